// Package engine runs a job: it starts the virtual users, walks the phases
// (ramp-up, measured window, stop), ticks the monitor every interval, retries
// and reconnects per policy, and assembles the measured result.
//
// A run, top-down: Run → startVUs (one goroutine per VU: connect, then loop
// Next/Execute/Record) → monitor loop (Tick every interval; at the window
// edges probe the database and read the process CPU) → stop the VUs → final
// Tick → result.
package engine

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/sledge-bench/sledge/internal/db"
	"github.com/sledge-bench/sledge/internal/metrics"
	"github.com/sledge-bench/sledge/internal/workload"
)

// Config is how to drive the workload.
type Config struct {
	VUs      int
	Rampup   time.Duration // not counted
	Duration time.Duration // the measured window
	Interval time.Duration // monitor tick
	// Iterations, when positive, makes an iteration run (HammerDB's test
	// driver): each VU runs this many transactions and stops, and the run
	// ends when all are done. The window opens as the VUs start and closes
	// at the end of the last one's last transaction; Rampup must be 0 and
	// Duration is not used. An iteration is a transaction run to its end,
	// whatever its outcome — committed, rolled back by design, or failed
	// after its retries — as HammerDB counts the passes of its loop (its
	// attempts); MaxRetries retries within one iteration.
	Iterations int
	// MaxRetries retries serialization failures and deadlocks up to this many
	// times; a retried transaction counts once and its latency includes the
	// retries.
	MaxRetries int
	// StopGrace is how long in-flight transactions may take to finish after
	// the window closes before their sessions are cancelled.
	StopGrace time.Duration
	// Pacing makes each VU wait the workload's keying time before every
	// transaction and a think time after it (workloads that are a
	// workload.Pacer): 0 runs unpaced, 1 uses the specification's times, any
	// other value scales them (a shortened, not a specification, run).
	Pacing float64
	// InProcessDB says the database engine runs inside this process (SQLite):
	// its work is then part of the client CPU and no warning is given for it.
	InProcessDB bool

	// FirstVU is the number (0-based) of this process's first VU in the
	// whole run, when the run's VUs are spread over several processes
	// (config.Segment): its VUs are FirstVU .. FirstVU+VUs−1 wherever a
	// VU's identity shows — the workload's NewWorker, the intervals'
	// per-VU rows (VUInterval.VU is FirstVU+vu+1), log lines, outages — so
	// that VU numbers are the run's, whichever process ran them. 0: the
	// process runs the run's first VUs (all of them, usually).
	FirstVU int
	// StartAt, when set, is the wall-clock instant the run's clock starts
	// at: Run waits until then (Ctrl-C meanwhile ends it with nothing
	// measured) and times everything from StartAt itself, so that
	// processes given the same StartAt tick their intervals and open and
	// close their windows at the same instants. A StartAt more than one
	// Interval past is an error: too late to join. Zero: the clock starts
	// when Run is called.
	StartAt time.Time
	// Partial says the process runs only part of the run's VUs, the others
	// running in other processes against the same database (an agent of a
	// run spread over several). The database's counters at the window's
	// edges then count every process's work, this client only its own: the
	// cross-check's numbers are kept (DBNewOrders, DBCheckAllowance …) for
	// the merge of the processes' results (metrics.MergeRunResults), which
	// judges the merged count, but this part warns of no disagreement. And
	// the window's edges stay on their boundaries (a probe read a little
	// later does not move them), so that every process measures the same
	// window.
	Partial bool

	// The load model: closed-loop VUs (the default), Terminals over a pool
	// of Connections sessions, or arrivals at a Rate (see load.go).

	// Terminals, when positive, runs that many terminals over a pool of
	// Connections sessions (the workload must be a workload.Pool): each
	// terminal keys and thinks on its own schedule (Pacing), and one that
	// is due waits for a free session. Its transaction's latency counts
	// from when it was due, so that the wait is part of its response time.
	// VUs is not used.
	Terminals int
	// Connections is the session pool of a terminal or rate run.
	Connections int
	// (Terminals in a rate run: how many terminals draw the arrivals'
	// inputs, dealt round-robin to the sessions; at least one per session.)
	// Rate, when positive, runs open-loop arrivals: transactions scheduled
	// by a Poisson process of Rate per second, whatever the sessions are
	// doing, queued for the Connections sessions, their latency counted
	// from their scheduled start. RateByType, when set, is a rate per
	// transaction type (index as TxNames; Rate is then their sum): an
	// arrival's type is drawn in proportion and its inputs generated for
	// it (workload.Terminal.Choose); otherwise the workload draws the type
	// (Next). VUs is not used.
	Rate       float64
	RateByType []float64
	// MaxQueue bounds the arrivals waiting for a session; an arrival
	// beyond it is dropped and counted. 0: 100,000.
	MaxQueue int
	// Stages, when set, is the measured window as a load shape: each stage
	// offers its Target (VUs, terminals or transactions per second, by the
	// model) for its Duration, and Duration is their sum. The ramp-up runs
	// at the first stage's level. The sessions (VUs, terminals) of the
	// largest stage are opened at the start; those a stage does not use
	// wait idle.
	Stages []Stage
}

// Stage is one step of a staged run.
type Stage struct {
	Duration time.Duration
	Target   float64
}

// Validate reports the first invalid setting.
func (c Config) Validate() error {
	switch {
	case c.model() == modelClosed && c.VUs < 1:
		return fmt.Errorf("VUs must be at least 1 (got %d)", c.VUs)
	case c.FirstVU < 0:
		return fmt.Errorf("the first VU's number must not be negative (got %d)", c.FirstVU)
	case c.VUs > 10000:
		return fmt.Errorf("VUs must be at most 10000 (got %d)", c.VUs)
	case c.Rampup < 0:
		return fmt.Errorf("ramp-up must not be negative (got %s)", c.Rampup)
	case c.Iterations < 0:
		return fmt.Errorf("iterations must not be negative (got %d)", c.Iterations)
	case c.Iterations > 0 && c.Rampup > 0:
		return fmt.Errorf("an iteration run has no ramp-up (got %s): it measures from the start", c.Rampup)
	case c.Iterations == 0 && c.Duration <= 0 && len(c.Stages) == 0:
		return fmt.Errorf("duration must be positive (got %s)", c.Duration)
	case c.Interval < 100*time.Millisecond:
		return fmt.Errorf("reporting interval must be at least 100ms (got %s)", c.Interval)
	case c.MaxRetries < 0 || c.MaxRetries > 255:
		return fmt.Errorf("max retries must be in 0..255 (got %d)", c.MaxRetries)
	case c.Pacing < 0 || c.Pacing > 10:
		return fmt.Errorf("pacing scale must be in (0, 10] (got %g)", c.Pacing)
	}
	return c.validateLoad()
}

// Output receives what the run reports while it goes on. Calls may come from
// any goroutine.
type Output interface {
	// Logf reports a line (errors, reconnects, phase changes).
	Logf(format string, args ...any)
	// Interval reports one monitor tick.
	Interval(iv metrics.Interval)
}

// startHook, when set (by tests), is told the instant a run's clock starts
// from, so that they can place what their workload did on it.
var startHook func(time.Time)

// errorsLoggedPerClass bounds how many error messages of each class are
// printed; every error is counted regardless.
const errorsLoggedPerClass = 5

type run struct {
	cfg     Config
	wl      workload.Runner
	out     Output
	col     *metrics.Collector
	start   time.Time
	stop    atomic.Bool
	stopped chan struct{} // closed with stop: wakes VUs waiting keying or think time
	logged  [db.NumClasses]atomic.Int32
	pace    []paceSums // per transaction type, in paced runs
	track   *tracker   // lost sessions and outages, as the VUs report them
	// finished is, in an iteration run, when each VU ended its last
	// iteration (0: it did not); each VU writes its own slot, the monitor
	// reads them once every VU has returned.
	finished []time.Duration

	// The load a staged run offers now, and a rate run's arrivals and
	// drops since the last tick.
	level              *levels
	scheduled, dropped atomic.Int64

	// Used by the monitor goroutine only.
	prober workload.Prober
	gaps   []metrics.MonitorGap
	idle   []metrics.IdleInterval
	// The window's start, a staged run's stage ends from it and the
	// current stage (0-based), the stages done, and a rate run's arrivals
	// and drops in the window.
	winStart             time.Duration
	stageEnd             []time.Duration
	stage                int
	stages               []metrics.StageResult
	winSched, winDropped int64
}

// paceSums adds up the keying and think times the VUs waited.
type paceSums struct {
	keying, think   atomic.Int64 // nanoseconds
	keyingN, thinkN atomic.Int64
}

func (r *run) clock() time.Duration { return time.Since(r.start) }

// window is the measured window as the monitor opens and closes it.
type window struct {
	open       bool
	start, end time.Duration
	p0, p1     workload.Probe
	err0, err1 error // the probes' failures
	cpu0       time.Duration
}

// Run drives wl until the measured window ends or ctx is cancelled (Ctrl-C);
// an interrupted run returns what was measured so far with status
// "interrupted". Errors are returned only when there is nothing to report
// (e.g. the VUs could not connect).
//
// The monitor ticks at fixed boundaries: every Interval from the start
// during ramp-up and one exactly at the ramp-up's end, where the window
// opens; then every Interval from the window's start and one at its end.
// Each interval holds the events that ended within it, so no interval is
// empty of time, the ramp-up's last one ends where the window starts and the
// window's last one ends where it ends. With a prober, each edge is where the
// database's counters were read.
func Run(ctx context.Context, wl workload.Runner, cfg Config, out Output) (*metrics.RunResult, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if cfg.StopGrace == 0 {
		cfg.StopGrace = 30 * time.Second
	}
	headline := -1
	prober, _ := wl.(workload.Prober)
	if prober != nil {
		headline = prober.HeadlineTx()
	}
	auditor, _ := wl.(workload.Auditor)
	model := cfg.model()
	pool, _ := wl.(workload.Pool)
	if model != modelClosed && pool == nil {
		return nil, errors.New("the workload's transactions cannot share sessions: it runs closed-loop VUs only")
	}
	if n := len(cfg.RateByType); n > 0 && n != len(wl.TxNames()) {
		return nil, fmt.Errorf("a rate per type needs one rate for each of the %d transaction types (got %d)", len(wl.TxNames()), n)
	}
	if len(cfg.Stages) > 0 {
		cfg.Duration = stageEnds(cfg)[len(cfg.Stages)-1]
	}
	r := &run{cfg: cfg, wl: wl, out: out, col: metrics.NewCollector(wl.TxNames(), headline),
		stopped: make(chan struct{}), pace: make([]paceSums, len(wl.TxNames())), prober: prober,
		level: newLevels(cfg), stageEnd: stageEnds(cfg)}
	r.track = newTracker(r)
	if model != modelClosed {
		r.col.TrackLag()
	}
	if len(cfg.Stages) > 0 {
		r.col.TrackStages()
	}
	if cfg.Iterations > 0 {
		r.finished = make([]time.Duration, cfg.VUs)
	}
	sessions := cfg.sessions()
	recs := make([]*metrics.Recorder, sessions)
	for i := range recs {
		recs[i] = r.col.NewRecorder()
	}
	res := &metrics.RunResult{VUs: sessions, Rampup: cfg.Rampup, Duration: cfg.Duration, Status: metrics.StatusCompleted}
	if cfg.Iterations > 0 {
		res.Iterations, res.Duration = cfg.Iterations, 0
	}
	var w window
	openWindow := func(at time.Duration) {
		w.open, w.start = true, at
		defer func() { r.winStart = w.start }()
		w.cpu0 = processCPU()
		if prober != nil {
			if w.p0, w.err0 = r.probe(ctx, metrics.EdgeWindowStart, at); w.err0 == nil {
				w.start = r.edge(at, w.p0.At)
			}
		}
		if auditor != nil {
			auditor.MarkAudit()
		}
		r.col.StartWindow(w.start)
		if cfg.Iterations > 0 {
			out.Logf("iteration run: each of the %d virtual users runs %d transactions, then stops; no ramp-up, measuring until the last is done",
				cfg.VUs, cfg.Iterations)
			return
		}
		out.Logf("measuring for %s", cfg.Duration)
	}

	if !cfg.StartAt.IsZero() {
		// A shared start: every process's clock is StartAt.
		if late := time.Since(cfg.StartAt); late > cfg.Interval {
			return nil, fmt.Errorf("the shared start %s passed %s ago: too late to join (more than an interval, %s)",
				cfg.StartAt.Local().Format("15:04:05.000"), late.Round(time.Millisecond), cfg.Interval)
		}
		if !waitUntil(ctx, cfg.StartAt) {
			out.Logf("interrupted before the run's start: nothing was measured")
			res.Status = metrics.StatusInterrupted
			res.Tx = r.col.Summaries()
			res.DBCheckUnavailable = "nothing was measured"
			res.ServerTPMUnavailable = res.DBCheckUnavailable
			return res, nil
		}
	}
	r.start = time.Now()
	if cfg.Rampup == 0 {
		// The window opens as the VUs start: read the database's count
		// before they do, and start the clock after, so that the count
		// holds at the window's start (nothing ran in between). With a
		// shared start the clock is StartAt, just before the count was
		// read: this process's VUs start after it all the same.
		openWindow(0)
		r.start = time.Now()
		w.start, r.winStart = 0, 0
		r.col.StartWindow(0)
	}
	if !cfg.StartAt.IsZero() {
		// StartAt as an instant of this process's monotonic clock, so
		// that a step of the wall clock mid-run does not move the ticks.
		r.start = time.Now().Add(-time.Since(cfg.StartAt))
	}

	if startHook != nil {
		startHook(r.start)
	}

	// The VUs' context is not ctx: on Ctrl-C they finish the transaction in
	// hand (within StopGrace) instead of being cut off mid-statement.
	vuCtx, cancelVUs := context.WithCancel(context.Background())
	defer cancelVUs()
	fatal := make(chan error, sessions+1)
	var wg sync.WaitGroup
	switch model {
	case modelTerminals:
		r.startTerminals(vuCtx, pool, recs, fatal, &wg)
	case modelRate:
		r.startRate(vuCtx, pool, recs, fatal, &wg)
	default:
		stagger := staggerStep(cfg)
		for i := 0; i < sessions; i++ {
			wg.Add(1)
			go func(vu int) {
				defer wg.Done()
				r.vu(vuCtx, vu, time.Duration(vu)*stagger, recs[vu], fatal)
			}(i)
		}
	}
	vusDone := make(chan struct{})
	go func() { wg.Wait(); close(vusDone) }()
	// In an iteration run the VUs' end is the run's end; a timed run's VUs
	// end only when stopped (a nil channel never fires).
	var iterationsDone <-chan struct{}
	if cfg.Iterations > 0 {
		iterationsDone = vusDone
	}
	if cfg.Rampup > 0 {
		out.Logf("ramp-up %s: %s starting", cfg.Rampup, r.describeLoad())
	} else if model != modelClosed {
		out.Logf("%s", r.describeLoad())
	}

	var failure error
	// finish ends an iteration run once every VU has returned: with a
	// failure when one could not connect, else at the last VU's end.
	finish := func() {
		select {
		case failure = <-fatal:
			res.Status = metrics.StatusFailed
			return
		default:
		}
		w.end = r.closeWindow(ctx, &w, r.lastFinished(w.start), true)
		if !r.tick(w.end, metrics.PhaseMeasure) {
			// A boundary tick came between the last VU's end and this: what
			// was recorded after it goes into a last, short interval.
			r.tick(r.clock(), metrics.PhaseMeasure)
		}
	}
	next := nextBoundary(0, w.open, w.start, cfg)
	timer := time.NewTimer(next - r.clock())
	defer timer.Stop()
loop:
	for {
		select {
		case <-timer.C:
			if isClosed(iterationsDone) {
				// Done before this boundary: its last interval ends there.
				finish()
				break loop
			}
			at := next // the boundary this tick is for; the clock may be a little later
			switch {
			case !w.open && at >= cfg.Rampup:
				openWindow(at)
				r.tick(w.start, metrics.PhaseRampup)
				at = w.start
			case w.open && cfg.Iterations == 0 && at >= w.start+cfg.Duration:
				w.end = r.closeWindow(ctx, &w, at, false)
				r.tick(w.end, metrics.PhaseMeasure)
				break loop
			case w.open:
				r.tick(at, metrics.PhaseMeasure)
			default:
				r.tick(at, metrics.PhaseRampup)
			}
			next = nextBoundary(at, w.open, w.start, cfg)
			timer.Reset(next - r.clock())
		case <-ctx.Done():
			now := r.clock()
			res.Status = metrics.StatusInterrupted
			out.Logf("interrupted after %s: stopping, keeping what was measured", now.Round(time.Second))
			if w.open {
				w.end = r.closeWindow(context.WithoutCancel(ctx), &w, now, false)
				r.tick(w.end, metrics.PhaseMeasure)
			} else {
				r.tick(now, metrics.PhaseRampup)
			}
			break loop
		case err := <-fatal:
			failure = err
			res.Status = metrics.StatusFailed
			break loop
		case <-iterationsDone:
			finish()
			break loop
		}
	}
	cpu1 := processCPU()

	// Stop the VUs: they finish the transaction in hand, then the rest is cut.
	r.stop.Store(true)
	close(r.stopped)
	select {
	case <-vusDone:
	case <-time.After(cfg.StopGrace):
		out.Logf("virtual users still busy after %s: cancelling their transactions", cfg.StopGrace)
		cancelVUs()
		<-vusDone
	}
	if failure != nil {
		return nil, failure
	}
	// Take in what ended within the window but was recorded after its last
	// tick (later events are ignored).
	r.col.Drain()

	if !w.open {
		res.Tx = r.col.Summaries()
		res.DBCheckUnavailable = "nothing was measured"
		res.ServerTPMUnavailable = res.DBCheckUnavailable
		res.Disruption = r.disruption(w)
		return res, nil
	}
	res.Measured = w.end - w.start
	r.fill(res, cpu1-w.cpu0, headline)
	r.fillLoad(res)
	r.crossCheck(res, &w)
	if d := r.disruption(w); d != nil {
		res.Disruption = d
		if d.InWindow() {
			if res.Status == metrics.StatusCompleted {
				res.Status = metrics.StatusDegraded
			}
			res.Warnings = append(res.Warnings, disruptionWarning(d))
		}
	}
	if auditor != nil {
		completed, rolledBack := r.col.Completed()
		failed := make([]map[string]int64, len(res.Tx))
		for i, t := range res.Tx {
			failed[i] = t.Errors
		}
		res.Audit = auditor.Audit(completed, rolledBack, failed)
	}
	res.Audit = append(res.Audit, r.paceAudit()...)
	res.Warnings = append(res.Warnings, metrics.AuditWarnings(res.Audit)...)
	return res, nil
}

// waitUntil waits until the wall-clock instant t; false when ctx ended
// first.
func waitUntil(ctx context.Context, t time.Time) bool {
	d := time.Until(t)
	if d <= 0 {
		return ctx.Err() == nil
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-timer.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// tick makes the interval that ends at t and reports it; a measured interval
// without commits is noted for the disruption account. It reports false when
// t is not after the previous tick (no interval is made).
func (r *run) tick(t time.Duration, phase string) bool {
	iv, ok := r.col.Tick(t, phase)
	if !ok {
		return false
	}
	if phase == metrics.PhaseMeasure {
		var commits int64
		for _, tx := range iv.Tx {
			commits += tx.Count
		}
		if commits == 0 {
			r.idle = append(r.idle, metrics.IdleInterval{Seq: iv.Seq, Start: t - iv.Length, End: t})
		}
	}
	if r.cfg.FirstVU != 0 {
		// The collector numbers this process's VUs from 1: the run's
		// numbers follow its first VU's.
		for i := range iv.VUs {
			iv.VUs[i].VU += r.cfg.FirstVU
		}
	}
	if r.cfg.model() == modelRate {
		iv.Scheduled, iv.Dropped = r.scheduled.Swap(0), r.dropped.Swap(0)
		if phase == metrics.PhaseMeasure {
			r.winSched += iv.Scheduled
			r.winDropped += iv.Dropped
		}
	}
	endsStage := false
	if phase == metrics.PhaseMeasure && len(r.stageEnd) > 0 {
		iv.Stage = r.stage + 1
		endsStage = r.stage < len(r.stageEnd)-1 && t >= r.winStart+r.stageEnd[r.stage]
	}
	r.out.Interval(iv)
	if endsStage {
		// The last stage ends with the window, after the run's last events
		// are drained (fillLoad).
		r.endStage(t)
		r.level.set(r.cfg, r.cfg.Stages[r.stage].Target)
		r.out.Logf("stage %d of %d: %s", r.stage+1, len(r.stageEnd), r.describeStage(r.stage))
	}
	return true
}

// endStage closes the current stage at t (on the run's clock) and starts
// the next.
func (r *run) endStage(t time.Duration) {
	st := r.col.StageTotals()
	st.Start = r.winStart
	if r.stage > 0 {
		st.Start = r.stages[r.stage-1].End
	}
	st.Stage, st.Target, st.End = r.stage+1, r.cfg.Stages[r.stage].Target, t
	if m := (t - st.Start).Minutes(); m > 0 {
		st.TPM, st.NOPM = float64(st.Commits)/m, float64(st.NewOrders)/m
	}
	r.stages = append(r.stages, st)
	r.stage++
}

// describeLoad says how the run offers its load.
func (r *run) describeLoad() string {
	c := r.cfg
	switch c.model() {
	case modelTerminals:
		return fmt.Sprintf("%d terminals over %d sessions", c.units(), c.Connections)
	case modelRate:
		rate := c.Rate
		if len(c.Stages) > 0 {
			rate = c.Stages[0].Target
		}
		return fmt.Sprintf("arrivals at %g transactions per second over %d sessions", rate, c.Connections)
	}
	return fmt.Sprintf("%d virtual users", c.sessions())
}

// describeStage says what stage i offers.
func (r *run) describeStage(i int) string {
	st := r.cfg.Stages[i]
	what := "virtual users"
	switch r.cfg.model() {
	case modelTerminals:
		what = "terminals"
	case modelRate:
		what = "transactions per second"
	}
	return fmt.Sprintf("%g %s for %s", st.Target, what, st.Duration)
}

// fillLoad adds the schedule's figures of a terminal or rate run and the
// stages' rows; after the run's last events were drained.
func (r *run) fillLoad(res *metrics.RunResult) {
	if n := len(r.stageEnd); n > 0 && r.stage < n {
		if end := r.winStart + res.Measured; r.stage == 0 || end > r.stages[r.stage-1].End {
			r.endStage(end) // (a stage the run was stopped at the start of has no row)
		}
	}
	res.Stages = r.stages
	c := r.cfg
	switch c.model() {
	case modelTerminals:
		res.Load = &metrics.LoadResult{Model: metrics.LoadTerminals, Terminals: c.units(), Connections: c.Connections}
	case modelRate:
		res.Load = &metrics.LoadResult{Model: metrics.LoadRate, Connections: c.Connections,
			AskedRate: askedRate(c.Rate, r.stages), Scheduled: r.winSched, Dropped: r.winDropped, MaxQueue: c.MaxQueue}
		if res.Load.MaxQueue == 0 {
			res.Load.MaxQueue = defaultMaxQueue
		}
		if s := res.Measured.Seconds(); s > 0 {
			res.Load.AchievedRate = float64(res.Commits+res.RolledBack+res.Errors) / s
		}
	default:
		return
	}
	l := res.Load
	l.LagP50, l.LagP99, l.LagMax, l.Late = r.col.Lag()
	if l.Dropped > 0 {
		res.Warnings = append(res.Warnings, fmt.Sprintf(
			"%d scheduled transactions were dropped: %d were already waiting for a session (more sessions, a larger queue bound or a lower rate)",
			l.Dropped, l.MaxQueue))
	}
	// Poisson arrivals miss their mean by chance: n expected stray by √n.
	// Warn beyond 5 % or 3.3 standard deviations, whichever is wider.
	expected := l.AskedRate * res.Measured.Seconds()
	if c.model() == modelRate && expected > 0 && l.AchievedRate < (1-max(0.05, 3.3/math.Sqrt(expected)))*l.AskedRate {
		res.Warnings = append(res.Warnings, fmt.Sprintf(
			"the achieved rate, %.1f per second, is below the %.1f asked: the sessions could not keep up", l.AchievedRate, l.AskedRate))
	}
}

// isClosed reports whether ch is closed (false for a nil channel).
func isClosed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// lastFinished is when the last VU of an iteration run ended its last
// iteration, on the run's clock, and not before the window's start. Read
// only once every VU has returned.
func (r *run) lastFinished(start time.Duration) time.Duration {
	end := start
	for _, f := range r.finished {
		end = max(end, f)
	}
	return end
}

// probeTimeout is how long a window-edge probe may take, re-opening a lost
// monitor session as it goes: about an interval, within 2 s and 10 s. A
// probe that succeeds late moves its edge (the window keeps its length); one
// that fails leaves the edge at the boundary and its values missing.
func probeTimeout(cfg Config) time.Duration {
	return min(max(cfg.Interval, 2*time.Second), 10*time.Second)
}

// probe reads the database's counters at a window edge (at, on the run's
// clock), recording a failure as a monitor gap.
func (r *run) probe(ctx context.Context, edge string, at time.Duration) (workload.Probe, error) {
	pctx, cancel := context.WithTimeout(ctx, probeTimeout(r.cfg))
	defer cancel()
	p, err := r.prober.Probe(pctx)
	if err != nil {
		r.out.Logf("warning: cannot read the database's counters at the %s: %v", edge, err)
		r.gaps = append(r.gaps, metrics.MonitorGap{Edge: edge, At: at, Error: err.Error()})
		return workload.Probe{}, err
	}
	if p.Attempts > 1 {
		r.out.Logf("monitor: read the database's counters at the %s after %d attempts (its session was re-opened)", edge, p.Attempts)
	}
	return p, nil
}

// closeWindow ends the measured window at the boundary at — or, when the
// database is probed, at the instant its count was read — and returns the
// window's end. The end is probed only when the start was: the check needs
// both. settled says nothing runs any more (every VU of an iteration run is
// done, its last at at): the window then ends at at, and the probe, made
// after it, reads the count at that end.
func (r *run) closeWindow(ctx context.Context, w *window, at time.Duration, settled bool) time.Duration {
	end := at
	if r.prober != nil && w.err0 == nil {
		if w.p1, w.err1 = r.probe(ctx, metrics.EdgeWindowEnd, at); w.err1 == nil && !settled {
			end = r.edge(at, w.p1.At)
		}
	}
	r.col.EndWindow(end)
	return end
}

// crossCheck compares the client's count of the headline transaction with the
// database's over the window, and computes the server's TPM; either is
// absent, with the reason, when it could not be measured.
func (r *run) crossCheck(res *metrics.RunResult, w *window) {
	switch {
	case r.prober == nil:
		res.DBCheckUnavailable = "the workload has no database count to check against"
	case w.err0 != nil:
		res.DBCheckUnavailable = "the database's counters could not be read at the window start: " + w.err0.Error()
	case w.err1 != nil:
		res.DBCheckUnavailable = "the database's counters could not be read at the window end: " + w.err1.Error()
	case res.Measured <= 0:
		res.DBCheckUnavailable = "the window has no length"
	}
	if res.DBCheckUnavailable != "" {
		res.ServerTPMUnavailable = res.DBCheckUnavailable
		return
	}
	res.HasDBCheck = true
	res.DBNewOrders = w.p1.Headline - w.p0.Headline
	res.NOPMDBCheck = float64(res.DBNewOrders) / res.Measured.Minutes()
	// A transaction whose session was lost may have committed without the
	// client hearing of it: each is in doubt.
	var inDoubt int64
	for _, t := range res.Tx {
		inDoubt += t.Errors[db.ClassConnection.String()]
	}
	allowed := checkAllowance(r.cfg.sessions(), max(res.DBNewOrders, res.NewOrders), res.Measured, w.p0.RTT, w.p1.RTT) + inDoubt
	res.DBCheckAllowance = allowed
	res.DBCheckAgree = abs64(res.DBNewOrders-res.NewOrders) <= allowed
	if !res.DBCheckAgree && !r.cfg.Partial {
		// (A part's count is not the database's: the merge judges it.)
		res.Warnings = append(res.Warnings, fmt.Sprintf(
			"the database counted %d New-Orders in the window, the client %d: more apart than the %d that in-flight transactions and the probes' timing explain",
			res.DBNewOrders, res.NewOrders, allowed))
	}
	switch {
	case !w.p0.HasServerCommits || !w.p1.HasServerCommits:
		res.ServerTPMUnavailable = "the database keeps no server-wide commit counter"
	case w.p0.Session != w.p1.Session:
		res.ServerTPMUnavailable = "the monitor's session was lost between the window's edges (a server restart resets the server's counters)"
	case w.p1.ServerCommits < w.p0.ServerCommits:
		res.ServerTPMUnavailable = "the server's commit counter went backwards over the window (it was reset)"
	default:
		res.HasServerTPM = true
		res.ServerTPM = float64(w.p1.ServerCommits-w.p0.ServerCommits) / res.Measured.Minutes()
	}
}

// disruption assembles the run's disruption account; nil when no session was
// lost and every probe was read.
func (r *run) disruption(w window) *metrics.Disruption {
	d := r.track.account()
	if len(d.Outages) == 0 && len(r.gaps) == 0 {
		return nil
	}
	d.MonitorGaps = r.gaps
	d.IdleIntervals = r.idle
	if w.open {
		d.WindowStart, d.WindowEnd = w.start, w.end
	}
	return d
}

// disruptionWarning sums up an outage in the window in one line.
func disruptionWarning(d *metrics.Disruption) string {
	first, _ := d.FirstError()
	msg := fmt.Sprintf("the database was out of service during the measured window: %d of the virtual users lost their sessions (first at %.1f s)",
		d.VUsAffected(), first.Seconds())
	if ttr, ok := d.LongestTimeToRecover(); ok {
		msg += fmt.Sprintf(", service resumed after %.1f s", ttr.Seconds())
	} else {
		msg += ", service had not resumed when the run ended"
	}
	if n := len(d.IdleIntervals); n > 0 {
		msg += fmt.Sprintf("; %d measured intervals without a commit", n)
	}
	return msg + ": the numbers are not those of a healthy database"
}

// edge is where a window edge due at the boundary at falls when the
// database's counters were read at the instant probed: there, when later, so
// that the count holds at the edge. In a partial run the edge stays on the
// boundary, an instant shared by every process of the run.
func (r *run) edge(at time.Duration, probed time.Time) time.Duration {
	if r.cfg.Partial {
		return at
	}
	return max(at, r.since(probed, at))
}

// since converts an instant to run time; a zero instant falls back to def.
func (r *run) since(t time.Time, def time.Duration) time.Duration {
	if t.IsZero() {
		return def
	}
	return t.Sub(r.start)
}

// fill computes the result's numbers from the collector.
func (r *run) fill(res *metrics.RunResult, cpu time.Duration, headline int) {
	res.Tx = r.col.Summaries()
	var completed int64
	for i, t := range res.Tx {
		res.Commits += t.Count
		res.RolledBack += t.RolledBack
		res.Errors += t.ErrorCount()
		completed += t.Count + t.RolledBack
		if i == headline {
			res.NewOrders = t.Count
		}
	}
	minutes := res.Measured.Minutes()
	if minutes > 0 {
		res.TPM = float64(res.Commits) / minutes
		res.NOPM = float64(res.NewOrders) / minutes
	}
	res.ClientCPU = cpu
	if completed > 0 {
		res.ClientCPUPerTxUS = float64(cpu.Microseconds()) / float64(completed)
	}
	// The client should leave the machine to the database: flag a client that
	// used more than half of all cores over the window.
	if busy := cpu.Seconds() / (res.Measured.Seconds() * float64(runtime.NumCPU())); !r.cfg.InProcessDB && res.Measured > 0 && busy > 0.5 {
		res.Warnings = append(res.Warnings, fmt.Sprintf(
			"the client used %.0f%% of this machine's %d CPUs: it may have limited the database (run Sledge on another machine, or use fewer VUs)",
			100*busy, runtime.NumCPU()))
	}
	if procs := runtime.GOMAXPROCS(0); res.Measured > 0 && cpu.Seconds() > 0.8*res.Measured.Seconds()*float64(procs) && procs < runtime.NumCPU() {
		res.Warnings = append(res.Warnings, fmt.Sprintf(
			"the client was CPU-bound on its %d core(s): raise --client-cpus", procs))
	}
	if res.Errors > 0 {
		res.Warnings = append(res.Warnings, fmt.Sprintf("%d transactions failed (see errors by class)", res.Errors))
	}
}

// checkAllowance is how far the client's and the database's counts of the
// headline transaction may differ over a window. A transaction in flight at
// an edge may have committed in the database but not yet been seen by the
// client (or the other way round): at most one per VU, since a VU has one
// transaction at a time and the two edges err in opposite directions. And
// the database read its count somewhere within each probe's round trip, not
// exactly at its midpoint: commits during half of each round trip may fall on
// either side.
func checkAllowance(vus int, count int64, window, rtt0, rtt1 time.Duration) int64 {
	if window <= 0 {
		return int64(vus)
	}
	rate := float64(count) / window.Seconds()
	return int64(vus) + int64(math.Ceil(rate*(rtt0+rtt1).Seconds()/2))
}

// staggerStep spreads the VUs' starts over the first half of the ramp-up, at
// most 100ms apart, so logins do not arrive as one burst.
func staggerStep(cfg Config) time.Duration {
	if cfg.Rampup == 0 || cfg.sessions() <= 1 {
		return 0
	}
	step := cfg.Rampup / 2 / time.Duration(cfg.sessions())
	return min(step, 100*time.Millisecond)
}

// nextBoundary returns the next monitor tick: every Interval from the start
// during ramp-up, with a tick exactly at the window's start, then every
// Interval from there and one exactly at the window's end.
func nextBoundary(now time.Duration, measuring bool, winStart time.Duration, cfg Config) time.Duration {
	if !measuring {
		n := (now/cfg.Interval + 1) * cfg.Interval
		return min(n, cfg.Rampup)
	}
	k := (now-winStart)/cfg.Interval + 1
	if cfg.Iterations > 0 {
		return winStart + k*cfg.Interval // the VUs' end closes the window, not a boundary
	}
	next := min(winStart+k*cfg.Interval, winStart+cfg.Duration)
	// A stage's end is a boundary too: every interval lies in one stage.
	var end time.Duration
	for _, st := range cfg.Stages {
		end += st.Duration
		if winStart+end > now {
			next = min(next, winStart+end)
			break
		}
	}
	return next
}

// vu is one virtual user's life: connect, then transactions until stopped or,
// in an iteration run, until it has run its iterations.
func (r *run) vu(ctx context.Context, vu int, delay time.Duration, rec *metrics.Recorder, fatal chan<- error) {
	defer rec.SetState(metrics.VUStopped)
	if delay > 0 {
		select {
		case <-time.After(delay):
		case <-ctx.Done():
			return
		}
	}
	if r.stop.Load() {
		return
	}
	id := r.cfg.FirstVU + vu // the VU's number in the whole run
	w, err := r.wl.NewWorker(ctx, id)
	if err != nil {
		fatal <- fmt.Errorf("virtual user %d: %w", id+1, err)
		return
	}
	defer w.Close(context.Background())
	rec.SetState(metrics.VURunning)
	pacer, paced := r.wl.(workload.Pacer)
	paced = paced && r.cfg.Pacing > 0
	var rng *rand.Rand
	if paced {
		rng = rand.New(rand.NewPCG(uint64(id), uint64(time.Now().UnixNano())))
	}
	// An int compare per transaction: the hot path stays free of locks.
	iterations, done := r.cfg.Iterations, 0
	staged := len(r.cfg.Stages) > 0
	for !r.stop.Load() {
		if staged && !r.awaitTurn(ctx, vu, rec) {
			return
		}
		tx := w.Next()
		var keying, thinkMean time.Duration
		if paced {
			keying, thinkMean = pacer.Pacing(tx)
			k := r.scaled(keying)
			if !r.wait(ctx, k) {
				return
			}
			r.pace[tx].keying.Add(int64(k))
			r.pace[tx].keyingN.Add(1)
		}
		done++
		last := done == iterations // never in a timed run (iterations 0)
		e, st := r.transact(ctx, id, tx, time.Now(), 0, w, w, rec, last)
		if st != txDone {
			return
		}
		if last {
			// Its last think time is not waited: nothing follows it, and it
			// would only lengthen the elapsed time.
			r.finished[vu] = e.End
			return
		}
		if paced {
			th := r.scaled(thinkTime(rng, thinkMean))
			if !r.wait(ctx, th) {
				return
			}
			r.pace[tx].think.Add(int64(th))
			r.pace[tx].thinkN.Add(1)
		}
	}
}

// thinkTime draws Tt = −ln(u)·μ with u uniform in (0, 1], capped at 10μ and
// not rounded.
func thinkTime(rng *rand.Rand, mean time.Duration) time.Duration {
	u := 1 - rng.Float64()
	return time.Duration(min(-math.Log(u)*float64(mean), 10*float64(mean)))
}

func (r *run) scaled(d time.Duration) time.Duration {
	if r.cfg.Pacing == 1 {
		return d
	}
	return time.Duration(float64(d) * r.cfg.Pacing)
}

// wait sleeps d unless the run stops first; false when it did.
func (r *run) wait(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return !r.stop.Load()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return !r.stop.Load()
	case <-r.stopped:
		return false
	case <-ctx.Done():
		return false
	}
}

// paceAudit reports the keying and think times the VUs actually waited,
// per transaction type, against the workload's (scaled) values. Keying times
// are constant; think times are random, so their mean is judged only once a
// type has 100 of them: within 10% of the mean (whose cap at ten times
// lowers it by a factor of 0.99995), or within 3.3 standard errors when
// that is wider — a negative exponential's standard deviation is its mean,
// so the mean of n draws strays by mean/√n (10% at n = 100): a tolerance of
// 10% alone would fail a correct run one time in three.
func (r *run) paceAudit() []metrics.AuditItem {
	pacer, ok := r.wl.(workload.Pacer)
	if !ok || r.cfg.Pacing <= 0 {
		return nil
	}
	var items []metrics.AuditItem
	names := r.wl.TxNames()
	for tx := range r.pace {
		p := &r.pace[tx]
		keying, thinkMean := pacer.Pacing(tx)
		wantK, wantT := r.scaled(keying).Seconds(), r.scaled(thinkMean).Seconds()*0.99995
		if n := p.keyingN.Load(); n > 0 {
			mean := time.Duration(p.keying.Load() / n).Seconds()
			items = append(items, metrics.AuditItem{Name: "keying time " + names[tx], Value: mean, Unit: " s",
				Target: fmt.Sprintf("= %.4g", wantK), OK: math.Abs(mean-wantK) <= 0.001})
		}
		if n := p.thinkN.Load(); n > 0 {
			mean := time.Duration(p.think.Load() / n).Seconds()
			items = append(items, metrics.AuditItem{Name: "think time " + names[tx], Value: mean, Unit: " s",
				Target: fmt.Sprintf("≈ %.4g (mean)", r.scaled(thinkMean).Seconds()),
				OK:     n < 100 || math.Abs(mean-wantT) <= max(0.1, 3.3/math.Sqrt(float64(n)))*wantT})
		}
	}
	return items
}

// logError logs a failed transaction of VU vu (its number in the whole run).
func (r *run) logError(vu, tx int, cls db.ErrorClass, err error) {
	n := r.logged[cls].Add(1)
	if n <= errorsLoggedPerClass {
		r.out.Logf("vu %d: %s failed (%s): %v", vu+1, r.wl.TxNames()[tx], cls, err)
		if n == errorsLoggedPerClass {
			r.out.Logf("(further %s errors are counted but not printed)", cls)
		}
	}
}

// reconnect re-opens the session of VU vu (its number in the whole run) with
// exponential backoff until it works or the run stops. It reports false
// when the VU should end, and how many attempts it made. The backoff is
// capped at half an interval (within 100 ms and 5 s, jittered), so that a VU
// is back within about an interval of the database and the outage's end is
// seen at that resolution.
func (r *run) reconnect(ctx context.Context, vu int, w reconnector) (bool, int) {
	backoff := 100 * time.Millisecond
	ceiling := min(max(r.cfg.Interval/2, 100*time.Millisecond), 5*time.Second)
	attempt := 0
	for !r.stop.Load() {
		attempt++
		err := w.Reconnect(ctx)
		if err == nil {
			if attempt > 1 {
				r.out.Logf("vu %d: reconnected after %d attempts", vu+1, attempt)
			}
			return true, attempt
		}
		if ctx.Err() != nil {
			return false, attempt
		}
		if attempt == 1 || attempt%10 == 0 {
			r.out.Logf("vu %d: reconnect attempt %d failed: %v", vu+1, attempt, err)
		}
		// ±20% jitter: VUs that lost their sessions together do not all
		// knock at once.
		d := time.Duration(float64(backoff) * (0.8 + 0.4*rand.Float64()))
		t := time.NewTimer(d)
		select {
		case <-t.C:
		case <-r.stopped:
			t.Stop()
			return false, attempt
		case <-ctx.Done():
			t.Stop()
			return false, attempt
		}
		backoff = min(2*backoff, ceiling)
	}
	return false, attempt
}

// processCPU is this process's user+system CPU time so far.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func abs64(v int64) int64 {
	if v < 0 {
		return -v
	}
	return v
}
