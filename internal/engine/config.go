package engine

import (
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/sledge-bench/sledge/internal/config"
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
	// the window closes before their sessions are cancelled (0: 30 s).
	StopGrace time.Duration
	// Pacing makes each VU wait the workload's keying time before every
	// transaction and a think time after it (workloads that are a
	// workload.Pacer): 0 runs unpaced, 1 uses the specification's times, any
	// other value scales them (a shortened, not a specification, run).
	Pacing float64
	// StallAfter is how long the run may go without any transaction
	// completing, while sessions are connected and waiting on the
	// database, before that is a stall (watchdog.go); a wake of the
	// client's watchdog this late is a pause of the client. 0: half an
	// interval, within 2 s and 30 s. Negative: no stall detection (pauses
	// are still watched, at the default threshold), for workloads whose
	// transactions may rightly run that long.
	StallAfter time.Duration
	// PerVUTiming keeps each VU's latencies per transaction type over the
	// window besides the run's (RunResult.VUTiming). The VUs record as
	// always; the monitor sorts their events by VU as it takes them in, into
	// one set of histograms per VU.
	PerVUTiming bool
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

	// The load model: closed-loop VUs (the default, closed.go), Terminals
	// over a pool of Connections sessions (terminals.go), or arrivals at a
	// Rate (arrivals.go).

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
	// SkipLate, when positive, skips (and counts) an arrival whose
	// session takes it later than this behind its schedule, as pgbench's
	// --latency-limit does with --rate.
	SkipLate time.Duration
	// Stages, when set, is the measured window as a load shape: each stage
	// offers its Target (VUs, terminals or transactions per second, by the
	// model) for its Duration, and Duration is their sum. The ramp-up runs
	// at the first stage's level. The sessions (VUs, terminals) of the
	// largest stage are opened at the start; those a stage does not use
	// wait idle.
	Stages []config.Stage

	// Started, if set, is told the instant the run's clock starts from
	// (run time 0), before any session opens: tests place what their
	// workload did on the run's clock with it.
	Started func(start time.Time)
}

// The load models, one executor each.
const (
	modelClosed = iota
	modelTerminals
	modelRate
)

// defaultMaxQueue is Config.MaxQueue's default; maxMaxQueue bounds it (an
// arrival waiting takes 32 bytes: 320 MB at most).
const (
	defaultMaxQueue = 100000
	maxMaxQueue     = 10000000
)

// defaultStopGrace is Config.StopGrace's default.
const defaultStopGrace = 30 * time.Second

func (c Config) model() int {
	switch {
	case c.Rate > 0 || len(c.RateByType) > 0:
		return modelRate
	case c.Terminals > 0:
		return modelTerminals
	}
	return modelClosed
}

// largestStage is the largest stage's target, 0 when unstaged.
func (c Config) largestStage() int {
	n := 0
	for _, st := range c.Stages {
		n = max(n, int(st.Target))
	}
	return n
}

// sessions is how many sessions (and recorders) the run has: the VUs of a
// closed-loop run (of its largest stage when staged), else the pool.
func (c Config) sessions() int {
	if c.model() != modelClosed {
		return c.Connections
	}
	return max(c.VUs, c.largestStage())
}

// units is how many schedulable units the run has: VUs or terminals (of
// the largest stage).
func (c Config) units() int {
	if c.model() == modelTerminals {
		return max(c.Terminals, c.largestStage())
	}
	return c.sessions()
}

// window is the measured window's planned length: the stages' sum when
// staged, else Duration (an iteration run's ends with its VUs: 0).
func (c Config) window() time.Duration {
	switch {
	case c.Iterations > 0:
		return 0
	case len(c.Stages) > 0:
		return config.StagesDuration(c.Stages)
	}
	return c.Duration
}

// Validate reports the first invalid setting.
func (c Config) Validate() error {
	switch {
	case c.Rate != 0 && !(c.Rate > 0 && c.Rate <= config.MaxRate):
		// NaN, ±Inf and negative rates too, whatever the model: a rate
		// that is not a number would otherwise read as a closed-loop run.
		return fmt.Errorf("the rate must be in (0, %g] transactions per second (got %g)", float64(config.MaxRate), c.Rate)
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
	case !(c.Pacing >= 0 && c.Pacing <= 10): // NaN too: it would pace by any wait
		return fmt.Errorf("pacing scale must be in (0, 10] (got %g)", c.Pacing)
	case c.Rampup > config.MaxTime || c.Duration > config.MaxTime || c.Interval > config.MaxTime:
		return fmt.Errorf("the ramp-up, duration and interval must each be at most %s (got %s, %s, %s)",
			config.MaxTime, c.Rampup, c.Duration, c.Interval)
	}
	if err := c.validateStages(); err != nil {
		return err
	}
	return c.validateLoad()
}

func (c Config) validateLoad() error {
	m := c.model()
	switch {
	case m != modelClosed && c.Connections < 1:
		return fmt.Errorf("a terminal or rate run needs at least one connection (got %d)", c.Connections)
	case m != modelClosed && c.Iterations > 0:
		return errors.New("an iteration run is a run of closed-loop VUs, not of terminals or arrivals")
	case m != modelClosed && c.Partial:
		return errors.New("a run split over several processes runs closed-loop VUs")
	case m == modelRate && c.Pacing > 0:
		return errors.New("a rate run is not paced: its arrivals are its schedule")
	case m == modelRate && c.Rate <= 0:
		return fmt.Errorf("the rate must be positive (got %g)", c.Rate)
	case !ratesInRange(c.RateByType):
		return fmt.Errorf("a rate per type must be in [0, %g] transactions per second (got %v)", float64(config.MaxRate), c.RateByType)
	case m == modelRate && len(c.Stages) == 0 && c.Iterations == 0 && c.Rate < config.MinRate(c.Duration):
		return fmt.Errorf("the rate, %g per second, expects %.2g arrivals in the %s window: at least one must be expected (%g per second)",
			c.Rate, c.Rate*c.Duration.Seconds(), c.Duration, config.MinRate(c.Duration))
	case c.MaxQueue < 0 || c.MaxQueue > maxMaxQueue:
		return fmt.Errorf("the queue bound must be in 0..%d (got %d)", maxMaxQueue, c.MaxQueue)
	case m == modelRate && len(c.RateByType) > 0 && !hasPositive(c.RateByType):
		return errors.New("a rate per type needs one type with a positive rate")
	case len(c.Stages) > 0 && c.Iterations > 0:
		return errors.New("an iteration run has no stages")
	case c.units() > 100000:
		return fmt.Errorf("at most 100000 terminals (got %d)", c.units())
	case c.sessions() > 10000:
		return fmt.Errorf("at most 10000 sessions (got %d)", c.sessions())
	case len(c.Stages) > 0 && c.Partial:
		return errors.New("a run split over several processes has no stages")
	}
	for i, st := range c.Stages {
		if m != modelRate && st.Target != math.Trunc(st.Target) {
			return fmt.Errorf("stage %d: %g is not a whole number of VUs or terminals", i+1, st.Target)
		}
		if m == modelRate && st.Target < config.MinRate(st.Duration) {
			return fmt.Errorf("stage %d: %g per second expects %.2g arrivals in its %s: at least one must be expected (%g per second)",
				i+1, st.Target, st.Target*st.Duration.Seconds(), st.Duration, config.MinRate(st.Duration))
		}
	}
	return nil
}

// validateStages checks the stages' durations and targets before anything
// derives from them (the largest stage, the window): each positive and
// bounded, their sum too, so that no sum or conversion of them overflows.
func (c Config) validateStages() error {
	var total time.Duration
	for i, st := range c.Stages {
		if st.Duration <= 0 || !(st.Target > 0 && st.Target <= config.MaxRate) {
			return fmt.Errorf("stage %d: its duration must be positive and its target in (0, %g] (got %s, %g)",
				i+1, float64(config.MaxRate), st.Duration, st.Target)
		}
		if st.Duration > config.MaxTime-total {
			return fmt.Errorf("the stages last more than %s", config.MaxTime)
		}
		total += st.Duration
	}
	return nil
}

// ratesInRange reports whether every rate per type is a number in
// [0, MaxRate], and their sum at most MaxRate.
func ratesInRange(v []float64) bool {
	var sum float64
	for _, x := range v {
		if !(x >= 0 && x <= config.MaxRate) {
			return false
		}
		sum += x
	}
	return sum <= config.MaxRate
}

func hasPositive(v []float64) bool {
	for _, x := range v {
		if x > 0 {
			return true
		}
	}
	return false
}
