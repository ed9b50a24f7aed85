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
}

// Validate reports the first invalid setting.
func (c Config) Validate() error {
	switch {
	case c.VUs < 1:
		return fmt.Errorf("VUs must be at least 1 (got %d)", c.VUs)
	case c.VUs > 10000:
		return fmt.Errorf("VUs must be at most 10000 (got %d)", c.VUs)
	case c.Rampup < 0:
		return fmt.Errorf("ramp-up must not be negative (got %s)", c.Rampup)
	case c.Duration <= 0:
		return fmt.Errorf("duration must be positive (got %s)", c.Duration)
	case c.Interval < 100*time.Millisecond:
		return fmt.Errorf("reporting interval must be at least 100ms (got %s)", c.Interval)
	case c.MaxRetries < 0 || c.MaxRetries > 255:
		return fmt.Errorf("max retries must be in 0..255 (got %d)", c.MaxRetries)
	case c.Pacing < 0 || c.Pacing > 10:
		return fmt.Errorf("pacing scale must be in (0, 10] (got %g)", c.Pacing)
	}
	return nil
}

// Output receives what the run reports while it goes on. Calls may come from
// any goroutine.
type Output interface {
	// Logf reports a line (errors, reconnects, phase changes).
	Logf(format string, args ...any)
	// Interval reports one monitor tick.
	Interval(iv metrics.Interval)
}

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
}

// paceSums adds up the keying and think times the VUs waited.
type paceSums struct {
	keying, think   atomic.Int64 // nanoseconds
	keyingN, thinkN atomic.Int64
}

func (r *run) clock() time.Duration { return time.Since(r.start) }

// Run drives wl until the measured window ends or ctx is cancelled (Ctrl-C);
// an interrupted run returns what was measured so far with status
// "interrupted". Errors are returned only when there is nothing to report
// (e.g. the VUs could not connect).
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
	r := &run{cfg: cfg, wl: wl, out: out, col: metrics.NewCollector(wl.TxNames(), headline),
		stopped: make(chan struct{}), pace: make([]paceSums, len(wl.TxNames()))}
	recs := make([]*metrics.Recorder, cfg.VUs)
	for i := range recs {
		recs[i] = r.col.NewRecorder()
	}

	// The VUs' context is not ctx: on Ctrl-C they finish the transaction in
	// hand (within StopGrace) instead of being cut off mid-statement.
	vuCtx, cancelVUs := context.WithCancel(context.Background())
	defer cancelVUs()
	fatal := make(chan error, cfg.VUs)
	var wg sync.WaitGroup
	r.start = time.Now()
	stagger := staggerStep(cfg)
	for i := 0; i < cfg.VUs; i++ {
		wg.Add(1)
		go func(vu int) {
			defer wg.Done()
			r.vu(vuCtx, vu, time.Duration(vu)*stagger, recs[vu], fatal)
		}(i)
	}
	if cfg.Rampup > 0 {
		out.Logf("ramp-up %s: %d virtual users starting", cfg.Rampup, cfg.VUs)
	}

	res := &metrics.RunResult{VUs: cfg.VUs, Rampup: cfg.Rampup, Duration: cfg.Duration, Status: metrics.StatusCompleted, ServerTPM: -1}
	var (
		winStart, winEnd time.Duration
		p0, p1           workload.Probe
		probed           bool
		cpu0             time.Duration
		measuring        bool
		failure          error
	)
	startWindow := func(now time.Duration) {
		measuring = true
		winStart = now
		cpu0 = processCPU()
		if prober != nil {
			var err error
			if p0, err = prober.Probe(ctx); err != nil {
				out.Logf("warning: cannot read the database's counters at the window start: %v", err)
			} else {
				probed = true
				winStart = r.since(p0.At, now)
			}
		}
		if auditor != nil {
			auditor.MarkAudit()
		}
		r.col.StartWindow(winStart)
		out.Logf("measuring for %s", cfg.Duration)
	}

	next := cfg.Interval
	if cfg.Rampup == 0 {
		startWindow(0)
	} else if cfg.Rampup < next {
		next = cfg.Rampup
	}
	timer := time.NewTimer(next - r.clock())
	defer timer.Stop()
loop:
	for {
		select {
		case <-timer.C:
			now := r.clock()
			phase := metrics.PhaseRampup
			if measuring {
				phase = metrics.PhaseMeasure
			}
			atEnd := measuring && now >= winStart+cfg.Duration
			if atEnd {
				now = winStart + cfg.Duration
				winEnd = r.closeWindow(ctx, now, prober, &p1, probed)
			}
			if !measuring && now >= cfg.Rampup {
				// Open the window before draining, so events that ended
				// after now but were not yet drained count in it.
				startWindow(now)
			}
			out.Interval(r.col.Tick(now, phase))
			if atEnd {
				break loop
			}
			next = nextBoundary(now, measuring, winStart, cfg)
			timer.Reset(next - r.clock())
		case <-ctx.Done():
			now := r.clock()
			res.Status = metrics.StatusInterrupted
			out.Logf("interrupted after %s: stopping, keeping what was measured", now.Round(time.Second))
			if measuring {
				winEnd = r.closeWindow(context.Background(), now, prober, &p1, probed)
			}
			phase := metrics.PhaseRampup
			if measuring {
				phase = metrics.PhaseMeasure
			}
			out.Interval(r.col.Tick(now, phase))
			break loop
		case err := <-fatal:
			failure = err
			res.Status = metrics.StatusFailed
			break loop
		}
	}
	cpu1 := processCPU()

	// Stop the VUs: they finish the transaction in hand, then the rest is cut.
	r.stop.Store(true)
	close(r.stopped)
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(cfg.StopGrace):
		out.Logf("virtual users still busy after %s: cancelling their transactions", cfg.StopGrace)
		cancelVUs()
		<-done
	}
	if failure != nil {
		return nil, failure
	}
	// Drain what finished before the window closed (later events are ignored).
	r.col.Tick(r.clock(), metrics.PhaseMeasure)

	if !measuring {
		res.Tx = r.col.Summaries()
		return res, nil
	}
	res.Measured = winEnd - winStart
	r.fill(res, cpu1-cpu0, headline)
	if probed && p1.Headline != 0 {
		res.DBNewOrders = p1.Headline - p0.Headline
		res.NOPMDBCheck = float64(res.DBNewOrders) / res.Measured.Minutes()
		allowed := checkAllowance(cfg.VUs, max(res.DBNewOrders, res.NewOrders), res.Measured, p0.RTT, p1.RTT)
		res.DBCheckAllowance = allowed
		res.DBCheckAgree = abs64(res.DBNewOrders-res.NewOrders) <= allowed
		if !res.DBCheckAgree {
			res.Warnings = append(res.Warnings, fmt.Sprintf(
				"the database counted %d New-Orders in the window, the client %d: more apart than the %d that in-flight transactions and the probes' timing explain",
				res.DBNewOrders, res.NewOrders, allowed))
		}
		if p0.HasServerCommits && p1.HasServerCommits {
			res.ServerTPM = float64(p1.ServerCommits-p0.ServerCommits) / res.Measured.Minutes()
		}
	}
	if auditor != nil {
		completed, rolledBack := r.col.Completed()
		res.Audit = auditor.Audit(completed, rolledBack)
	}
	res.Audit = append(res.Audit, r.paceAudit()...)
	{
		for _, a := range res.Audit {
			if !a.OK {
				res.Warnings = append(res.Warnings, fmt.Sprintf("audit: %s is %.2f%s, expected %s", a.Name, a.Value, a.Unit, a.Target))
			}
		}
	}
	return res, nil
}

// closeWindow ends the measured window at now — or, when the database is
// probed, at the instant its count was read — and returns the window's end.
func (r *run) closeWindow(ctx context.Context, now time.Duration, prober workload.Prober, p1 *workload.Probe, probed bool) time.Duration {
	end := now
	if prober != nil && probed {
		var err error
		if *p1, err = prober.Probe(ctx); err != nil {
			r.out.Logf("warning: cannot read the database's counters at the window end: %v", err)
			*p1 = workload.Probe{}
		} else {
			end = r.since(p1.At, now)
		}
	}
	r.col.EndWindow(end)
	return end
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
	if cfg.Rampup == 0 || cfg.VUs <= 1 {
		return 0
	}
	step := cfg.Rampup / 2 / time.Duration(cfg.VUs)
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
	return min(winStart+k*cfg.Interval, winStart+cfg.Duration)
}

// vu is one virtual user's life: connect, then transactions until stopped.
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
	w, err := r.wl.NewWorker(ctx, vu)
	if err != nil {
		fatal <- fmt.Errorf("virtual user %d: %w", vu+1, err)
		return
	}
	defer w.Close(context.Background())
	rec.SetState(metrics.VURunning)
	maxRetries := r.cfg.MaxRetries
	pacer, paced := r.wl.(workload.Pacer)
	paced = paced && r.cfg.Pacing > 0
	var rng *rand.Rand
	if paced {
		rng = rand.New(rand.NewPCG(uint64(vu), uint64(time.Now().UnixNano())))
	}
	for !r.stop.Load() {
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
		began := time.Now()
		var (
			err      error
			cls      db.ErrorClass
			retries  int
			retryCls db.ErrorClass
		)
		for {
			err = w.Execute(ctx)
			if err == nil || errors.Is(err, workload.ErrRolledBack) {
				break
			}
			cls = r.wl.Classify(err)
			if !cls.Retryable() || retries >= maxRetries || r.stop.Load() {
				break
			}
			retries++
			retryCls = cls
		}
		end := time.Now()
		if ctx.Err() != nil {
			return // cancelled at stop: outside the window, not a result
		}
		e := metrics.Event{End: end.Sub(r.start), Latency: end.Sub(began), Tx: uint8(tx), Retries: uint8(retries), RetryClass: retryCls}
		switch {
		case err == nil:
			e.Outcome = metrics.Committed
		case errors.Is(err, workload.ErrRolledBack):
			e.Outcome = metrics.RolledBack
		default:
			e.Outcome = metrics.Failed(cls)
		}
		rec.Record(e)
		if err != nil && e.Outcome != metrics.RolledBack {
			r.logError(vu, tx, cls, err)
			if cls == db.ClassConnection {
				rec.SetState(metrics.VUReconnecting)
				if !r.reconnect(ctx, vu, w) {
					return
				}
				rec.SetState(metrics.VURunning)
			}
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
// lowers it by a factor of 0.99995).
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
				Target: fmt.Sprintf("≈ %.4g (mean)", r.scaled(thinkMean).Seconds()), OK: n < 100 || math.Abs(mean-wantT) <= 0.1*wantT})
		}
	}
	return items
}

func (r *run) logError(vu, tx int, cls db.ErrorClass, err error) {
	n := r.logged[cls].Add(1)
	if n <= errorsLoggedPerClass {
		r.out.Logf("vu %d: %s failed (%s): %v", vu+1, r.wl.TxNames()[tx], cls, err)
		if n == errorsLoggedPerClass {
			r.out.Logf("(further %s errors are counted but not printed)", cls)
		}
	}
}

// reconnect re-opens a VU's session with exponential backoff until it works
// or the run stops. It reports false when the VU should end.
func (r *run) reconnect(ctx context.Context, vu int, w workload.Worker) bool {
	backoff := 100 * time.Millisecond
	for attempt := 1; !r.stop.Load(); attempt++ {
		err := w.Reconnect(ctx)
		if err == nil {
			if attempt > 1 {
				r.out.Logf("vu %d: reconnected after %d attempts", vu+1, attempt)
			}
			return true
		}
		if ctx.Err() != nil {
			return false
		}
		if attempt == 1 || attempt%10 == 0 {
			r.out.Logf("vu %d: reconnect attempt %d failed: %v", vu+1, attempt, err)
		}
		select {
		case <-time.After(backoff):
		case <-ctx.Done():
			return false
		}
		backoff = min(2*backoff, 5*time.Second)
	}
	return false
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
