// Package engine runs a job's load: executors (in the style of k6's
// lib/executor) decide when each transaction is due, and all of them hand
// it to one execution path, on one clock.
//
// The files, top-down:
//
//   - engine.go: Run — validate, pick the executor, start the clock, the
//     load and the monitor, stop, finish;
//   - config.go: Config and its validation;
//   - closed.go, terminals.go, arrivals.go: the executors — closed-loop
//     VUs (iteration runs too), paced terminals over a pool of sessions
//     (pool.go), open-loop arrivals at a rate; each its own file, known to
//     Run only through the executor interface;
//   - transact.go: the one execution path (retries, error classes,
//     reconnects, keying and think times, recording);
//   - clock.go: the run's time (the shared start, the phases' and
//     intervals' boundaries, the stages and the load level they set);
//   - monitor.go: the loop that ticks at the clock's boundaries, opens and
//     closes the window and switches stages;
//   - window.go: the measured window (its edges, probes, the cross-check
//     and the disruption account, with tracker.go's outages);
//   - result.go: the measured result.
package engine

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sledge-bench/sledge/internal/db"
	"github.com/sledge-bench/sledge/internal/metrics"
	"github.com/sledge-bench/sledge/internal/workload"
)

// Output receives what the run reports while it goes on. Calls may come from
// any goroutine.
type Output interface {
	// Logf reports a line (errors, reconnects, phase changes).
	Logf(format string, args ...any)
	// Interval reports one monitor tick.
	Interval(iv metrics.Interval)
}

// An executor is one load model: it decides when each transaction is due
// and hands it to the execution path every executor shares (run.transact).
// Run knows an executor only through this interface, so that adding one
// touches no other.
type executor interface {
	// sessions is how many database sessions the executor opens (and
	// recorders it records on).
	sessions() int
	// start launches the executor's goroutines on wg. They run until the
	// run stops (run.stopped), or until ctx is cancelled at the end of the
	// stop grace; a session that cannot be opened is sent to fatal, which
	// ends the run.
	start(ctx context.Context, recs []*metrics.Recorder, fatal chan<- error, wg *sync.WaitGroup)
	// describe says how the load is offered ("8 virtual users").
	describe() string
	// unit names what a stage's target counts ("virtual users").
	unit() string
	// account adds the executor's figures to the measured result (the
	// load account of a terminal or rate run); called once, after the
	// run's last events were taken in.
	account(res *metrics.RunResult)
}

// A finite executor ends the run itself (an iteration run): once its
// goroutines have all returned, the window closes where its last unit of
// work ended.
type finite interface {
	// lastEnd is that instant, on the run's clock (0: none ran); read once
	// every goroutine has returned.
	lastEnd() time.Duration
	// plan says, as the window opens, what the run will do.
	plan() string
}

// A ticker is an executor with counts of its own in each interval (a rate
// run's scheduled and dropped arrivals).
type ticker interface {
	tick(iv *metrics.Interval, measuring bool)
}

// newExecutor picks the executor of cfg's load model.
func newExecutor(r *run) (executor, error) {
	if r.cfg.model() == modelClosed {
		return newClosedLoop(r), nil
	}
	pool, ok := r.wl.(workload.Pool)
	if !ok {
		return nil, errors.New("the workload's transactions cannot share sessions: it runs closed-loop VUs only")
	}
	if r.cfg.model() == modelTerminals {
		return newTerminals(r, pool), nil
	}
	if n := len(r.cfg.RateByType); n > 0 && n != len(r.wl.TxNames()) {
		return nil, fmt.Errorf("a rate per type needs one rate for each of the %d transaction types (got %d)", len(r.wl.TxNames()), n)
	}
	return newArrivals(r, pool), nil
}

// errorsLoggedPerClass bounds how many error messages of each class are
// printed; every error is counted regardless.
const errorsLoggedPerClass = 5

// run is one run's state, shared by its executor, the execution path and
// the monitor.
type run struct {
	cfg   Config
	wl    workload.Runner
	out   Output
	col   *metrics.Collector
	clock *clock
	x     executor
	// level is the load the current stage offers (clock.go).
	level *levels

	// stop is set, and stopped closed, when the load is told to stop: the
	// units finish the transaction in hand; waits for keying and think
	// times or for a session end at once.
	stop    atomic.Bool
	stopped chan struct{}

	logged [db.NumClasses]atomic.Int32
	pace   []paceSums // per transaction type, in paced runs
	track  *tracker   // lost sessions and outages, as the units report them
	// connects times the sessions' openings as the load starts.
	connects connectSums
	watch    *watchdog // stalls and the client's pauses

	// Used by the monitor goroutine only.
	win    window
	status string
	stages stageState
}

// Run drives wl until the measured window ends or ctx is cancelled (Ctrl-C);
// an interrupted run returns what was measured so far with status
// "interrupted". Errors are returned only when there is nothing to report
// (e.g. the VUs could not connect).
//
// The monitor ticks at fixed boundaries (clock.go): every Interval from the
// start during ramp-up and one exactly at the ramp-up's end, where the
// window opens; then every Interval from the window's start and one at its
// end. Each interval holds the events that ended within it, so no interval
// is empty of time, the ramp-up's last one ends where the window starts and
// the window's last one ends where it ends. With a prober, each edge is
// where the database's counters were read.
func Run(ctx context.Context, wl workload.Runner, cfg Config, out Output) (*metrics.RunResult, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg = cfg.withDefaults()
	r := newRun(wl, cfg, out)
	x, err := newExecutor(r)
	if err != nil {
		return nil, err
	}
	r.x = x
	r.watch = newWatchdog(cfg, r.clock, out, x.sessions())
	if err := r.clock.awaitStart(ctx); err != nil {
		if errors.Is(err, errNotStarted) {
			out.Logf("interrupted before the run's start: nothing was measured")
			return r.nothingMeasured(metrics.StatusInterrupted), nil
		}
		return nil, err
	}
	r.clock.begin(func() {
		if cfg.Rampup == 0 {
			// The window opens as the load starts: read the database's
			// count before it does, with the clock started after, so that
			// the count holds at the window's start.
			r.openWindow(ctx, 0, true)
		}
	})
	if cfg.Started != nil {
		cfg.Started(r.clock.t0)
	}

	// The load's context is not ctx: on Ctrl-C the units finish the
	// transaction in hand (within StopGrace) instead of being cut off
	// mid-statement.
	loadCtx, cancelLoad := context.WithCancel(context.Background())
	defer cancelLoad()
	fatal := make(chan error, x.sessions()+1)
	var wg sync.WaitGroup
	x.start(loadCtx, r.recorders(), fatal, &wg)
	loadDone := make(chan struct{})
	go func() { wg.Wait(); close(loadDone) }()
	r.logStart()
	stopWatch, watched := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(watched)
		r.watch.watch(stopWatch, cfg.StallAfter >= 0)
	}()

	failure := r.monitor(ctx, loadDone, fatal)
	cpu := processCPU()
	// The window is over: a stall still on is one the run ended in (the
	// stop grace's cancelled transactions do not end it).
	close(stopWatch)
	<-watched
	r.stopLoad(loadDone, cancelLoad)
	if failure != nil {
		return nil, failure
	}
	return r.result(cpu), nil
}

// withDefaults fills the settings whose zero means a default: the stop
// grace, and a staged run's duration (its stages').
func (c Config) withDefaults() Config {
	if c.StopGrace == 0 {
		c.StopGrace = defaultStopGrace
	}
	if len(c.Stages) > 0 {
		c.Duration = c.window()
	}
	return c
}

func newRun(wl workload.Runner, cfg Config, out Output) *run {
	headline := -1
	prober, _ := wl.(workload.Prober)
	if prober != nil {
		headline = prober.HeadlineTx()
	}
	r := &run{cfg: cfg, wl: wl, out: out, col: metrics.NewCollector(wl.TxNames(), headline),
		clock: newClock(cfg), level: newLevels(cfg), stopped: make(chan struct{}),
		pace: make([]paceSums, len(wl.TxNames())), track: newTracker(out), status: metrics.StatusCompleted}
	r.win = window{prober: prober, partial: cfg.Partial, timeout: probeTimeout(cfg), out: out, clock: r.clock}
	if cfg.model() != modelClosed {
		r.col.TrackLag()
	}
	if len(cfg.Stages) > 0 {
		r.col.TrackStages()
	}
	if cfg.PerVUTiming {
		r.col.TrackVUs()
	}
	return r
}

// recorders are the executor's recorders, one per session.
func (r *run) recorders() []*metrics.Recorder {
	recs := make([]*metrics.Recorder, r.x.sessions())
	for i := range recs {
		recs[i] = r.col.NewRecorder()
	}
	return recs
}

// logStart says how the load starts.
func (r *run) logStart() {
	switch {
	case r.cfg.Rampup > 0:
		r.out.Logf("ramp-up %s: %s starting", r.cfg.Rampup, r.x.describe())
	case r.cfg.model() != modelClosed:
		r.out.Logf("%s", r.x.describe())
	}
}

// stopLoad stops the load: the units finish the transaction in hand, and
// what is still running after the stop grace is cancelled.
func (r *run) stopLoad(done <-chan struct{}, cancel context.CancelFunc) {
	r.stop.Store(true)
	close(r.stopped)
	select {
	case <-done:
	case <-time.After(r.cfg.StopGrace):
		r.out.Logf("virtual users still busy after %s: cancelling their transactions", r.cfg.StopGrace)
		cancel()
		<-done
	}
}
