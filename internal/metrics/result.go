// Package metrics turns what virtual users did into numbers: latency
// histograms per transaction type, per-interval series, counters by outcome
// and error class, and the typed results that the jobs repository stores.
package metrics

import (
	"fmt"
	"time"
)

// Job statuses.
const (
	StatusRunning     = "running"
	StatusCompleted   = "completed"
	StatusInterrupted = "interrupted" // stopped by the user (Ctrl-C); what was measured is kept
	StatusFailed      = "failed"
	StatusAbandoned   = "abandoned" // the process died without finishing the job
	// StatusDegraded is a run that went to its end, but during whose measured
	// window the database was out of service for its virtual users (they
	// lost their sessions): its numbers are true, but not those of a healthy
	// database. RunResult.Disruption says what happened.
	StatusDegraded = "degraded"
)

// Phases of a run.
const (
	PhaseRampup  = "rampup"
	PhaseMeasure = "measure"
)

// TxSummary is one transaction type over the measured window.
type TxSummary struct {
	Name       string
	Count      int64            // committed
	RolledBack int64            // intentional rollbacks (New-Order's invalid item); never commits
	Errors     map[string]int64 // failed transactions by error class ("serialization", …)
	Retries    int64            // extra attempts made by --max-retries
	// RetriesByClass splits Retries by the error that caused them
	// ("serialization", "deadlock").
	RetriesByClass map[string]int64
	// Retried counts transactions that needed at least one retry, whatever
	// their end; FailedAfterRetries those of them that failed all the same
	// (they are in Errors too).
	Retried, FailedAfterRetries int64
	Mean                        time.Duration
	P50                         time.Duration
	P95                         time.Duration
	P99                         time.Duration
	Max                         time.Duration
	// Histogram is the HDR histogram of latencies in microseconds, in the
	// standard compressed encoding (hdrhistogram-go Encode, V2 base64).
	Histogram []byte
}

// ErrorCount is the sum of Errors.
func (t TxSummary) ErrorCount() int64 {
	var n int64
	for _, v := range t.Errors {
		n += v
	}
	return n
}

// VUTiming is one virtual user's completed transactions (commits and
// designed rollbacks) of one type over the measured window, kept when the
// run asks for per-VU timing (HammerDB's time profile).
type VUTiming struct {
	VU    int // 1-based, the run's numbering (VUInterval.VU)
	Tx    string
	Calls int64
	// Total is the sum of their latencies, exact.
	Total time.Duration
	// Histogram is their latencies' HDR histogram in microseconds, encoded
	// like TxSummary.Histogram, at two significant digits (the run's
	// histograms have three).
	Histogram []byte
}

// IntervalTx is one transaction type within one interval.
type IntervalTx struct {
	Name   string
	Count  int64
	Errors int64
	P50    time.Duration
	P95    time.Duration
	P99    time.Duration
	Max    time.Duration
	// Histogram is the interval's HDR histogram of this type's completed
	// transactions' latencies (commits and designed rollbacks), in
	// microseconds, encoded like TxSummary.Histogram; nil when none
	// completed in the interval. Intervals of several agents merge by it
	// (MergeInterval).
	Histogram []byte
}

// Interval is one tick of the monitor.
type Interval struct {
	Seq     int
	Phase   string        // PhaseRampup or PhaseMeasure
	Elapsed time.Duration // end of the interval, since the run started
	Length  time.Duration // actual length of the interval
	TPM     float64       // committed transactions per minute in this interval
	NOPM    float64       // committed New-Orders per minute in this interval
	Errors  int64
	Tx      []IntervalTx
	// VUs is each virtual user's state at the end of the interval and what
	// it did during it.
	VUs []VUInterval
	// Stage is the stage of a staged run whose time the interval covers
	// (1-based); 0 in ramp-up and in runs without stages.
	Stage int
	// Of terminal and rate runs (0 otherwise): the schedule lag's 99th
	// percentile over the interval's transactions, how many were late
	// (sent more than LateLag after their scheduled start), and, in a rate
	// run, how many arrived (were scheduled) and were dropped (the queue
	// was full).
	LagP99             time.Duration
	Late               int64
	Scheduled, Dropped int64
}

// VUInterval is one virtual user within one interval.
type VUInterval struct {
	VU      int // 1-based
	State   string
	Commits int64
	Errors  int64
}

// Audit verdicts.
const (
	VerdictOK  = "ok"
	VerdictOff = "OFF"
	VerdictNA  = "n/a" // too few observations to judge
)

// AuditItem is one measured property of the run checked against its target
// (mix percentages, remote percentages, rollback percentage …).
type AuditItem struct {
	Name   string
	Value  float64 // measured, in Unit
	Unit   string  // "%" usually
	Target string  // human-readable expectation, e.g. ">= 43.0" or "≈ 1.0"
	// Low and High bound the accepted values, inclusive: the target's
	// tolerance as data. Exact where the target is a bound (">= 43.0" is
	// 43..100 %); where Value is a random share, a tolerance derived from N.
	// Both zero: the item has no range (checks that are not ranges, results
	// stored without one).
	Low, High float64
	// N is the number of observations Value is measured over (transactions,
	// order lines …); 0 when it is not a share.
	N int64
	// OK is false only for an OFF verdict: an item too small to judge is not
	// a failure.
	OK bool
	// Verdict is VerdictOK, VerdictOff or VerdictNA; empty in items that
	// carry only OK (results stored without it) — read it with Status.
	Verdict string
	// Note explains an OFF or n/a verdict, or what moved the value.
	Note string
}

// Status is the item's verdict: Verdict, or when that is empty "ok" or
// "OFF" by OK.
func (a AuditItem) Status() string {
	switch {
	case a.Verdict != "":
		return a.Verdict
	case a.OK:
		return VerdictOK
	}
	return VerdictOff
}

// HasRange reports whether the item carries its accepted range.
func (a AuditItem) HasRange() bool { return a.Low != 0 || a.High != 0 }

// Accepted words the item's accepted range, e.g. "41.50–45.46" ("" without
// one).
func (a AuditItem) Accepted() string {
	if !a.HasRange() {
		return ""
	}
	return fmt.Sprintf("%.2f–%.2f", a.Low, a.High)
}

// AuditWarnings words the OFF items of an audit as warnings; a note shared
// by several items is given with the first only.
func AuditWarnings(items []AuditItem) []string {
	var out []string
	noted := map[string]bool{}
	for _, a := range items {
		if a.Status() != VerdictOff {
			continue
		}
		w := fmt.Sprintf("audit: %s is %.2f%s, expected %s", a.Name, a.Value, a.Unit, a.Target)
		if a.HasRange() {
			w += fmt.Sprintf(" (accepted %s%s)", a.Accepted(), a.Unit)
		}
		if a.Note != "" && !noted[a.Note] {
			noted[a.Note] = true
			w += ": " + a.Note
		}
		out = append(out, w)
	}
	return out
}

// RunResult is what a measured run achieved.
type RunResult struct {
	Status     string
	VUs        int
	Warehouses int
	Mode       string // procs | sql
	Isolation  string
	// Pacing is the engine's pacing factor (0: unpaced, 1: the
	// specification's keying and think times); recorded in the job's
	// settings, not in its result.
	Pacing float64
	// PacedCeiling is the NOPM a paced run can reach at most (the workload's
	// terminal model for the warehouses, raised by scaled times); 0 when
	// unpaced. Shown with the live result, not stored.
	PacedCeiling float64

	Rampup   time.Duration // configured
	Duration time.Duration // configured; 0 in an iteration run
	Measured time.Duration // the actual measured wall-clock window
	// Iterations is, in an iteration run, the transactions each VU ran
	// (its window is the elapsed time from the VUs' start to the last one's
	// end, with no ramp-up); 0 in a timed run.
	Iterations int

	// From client-counted commits over Measured.
	NOPM       float64
	TPM        float64
	NewOrders  int64 // committed New-Orders in the window
	Commits    int64 // committed transactions of all types in the window
	Errors     int64
	RolledBack int64

	// Cross-check from the database: Δ sum(d_next_o_id) over the window
	// edges. It is present only when HasDBCheck; a check that could not be
	// made (a probe failed, nothing was measured, the workload has no
	// probe) is absent, with DBCheckUnavailable saying why, and its other
	// fields are zero: never a count of 0 that "disagrees".
	HasDBCheck         bool
	DBCheckUnavailable string
	DBNewOrders        int64
	NOPMDBCheck        float64
	DBCheckAgree       bool
	// DBCheckAllowance is how far apart the two counts may be: transactions
	// in flight at the edges, commits within the probes' timing
	// uncertainty, and transactions whose session was lost (they may have
	// committed without the client hearing of it).
	DBCheckAllowance int64
	// ServerTPM is the server's own commit+rollback counter per minute over
	// the window (server-wide, all sessions); present only when
	// HasServerTPM, else ServerTPMUnavailable says why.
	HasServerTPM bool
	ServerTPM    float64
	// ServerTPMMargin is how far ServerTPM may stray from the window's own
	// commits (±, per minute): the counter's lag at each edge (it may miss
	// the commits of the last second there: pg_stat_database) and the
	// transactions in flight at the edges, one per session.
	ServerTPMMargin      float64
	ServerTPMUnavailable string

	// Disruption is the account of the run's connection trouble (sessions
	// lost, service resumed, probes that failed); nil when there was none.
	Disruption *Disruption

	// Client CPU (user+system of this process) over the window.
	ClientCPU        time.Duration
	ClientCPUPerTxUS float64
	Warnings         []string

	Tx    []TxSummary
	Audit []AuditItem
	// VUTiming is each VU's timing per transaction type, in VU then type
	// order; nil unless the run kept it (config.Spec.PerVUTiming). Tx is
	// the run's totals whether or not.
	VUTiming []VUTiming

	// Load is how the run offered its load, with the schedule's figures
	// for terminal and rate runs; nil for a closed-loop run of VUs.
	Load *LoadResult
	// Stages is one row per stage of a staged run; nil without stages.
	Stages []StageResult
	// Mixed is the analytic half of a mixed run (workload chbench with
	// analytic streams) and the transactions' rates without and with it;
	// nil for any other run.
	Mixed *MixedResult
	// Commands are the script commands' timings of a script-driven run
	// (the pgbench workload's), in script and command order; nil for
	// other workloads.
	Commands []CommandTiming
	// Connects is how long the run's units took to open their sessions
	// as the load started (pgbench's "initial connection time"); zero in
	// results stored before it was measured.
	Connects Connects
}

// Connects sums the openings of a run's sessions as its load started —
// a closed-loop VU's session, or one of a shared pool's — each from the
// request to a session ready for its first transaction (the workload's
// set-up on it included); reconnects are not counted. Totals, not means,
// so that the parts of a multi-agent run merge exactly.
type Connects struct {
	Count int64
	Total time.Duration
	Max   time.Duration
}

// ConnectsInWindow reports whether the run's sessions opened inside its
// measured window: without a ramp-up the window opens as the load starts
// (an iteration run's too), before the first session is open; with one
// they open in the ramp-up (a pool slower than the ramp-up is warned of
// as the run goes).
func (r *RunResult) ConnectsInWindow() bool { return r.Rampup == 0 }

// Add counts one opening that took d.
func (c *Connects) Add(d time.Duration) {
	c.Count++
	c.Total += d
	c.Max = max(c.Max, d)
}

// Merge is c and o together.
func (c Connects) Merge(o Connects) Connects {
	return Connects{Count: c.Count + o.Count, Total: c.Total + o.Total, Max: max(c.Max, o.Max)}
}

// Mean is the mean time an opening took; 0 when none was counted.
func (c Connects) Mean() time.Duration {
	if c.Count == 0 {
		return 0
	}
	return c.Total / time.Duration(c.Count)
}

// LateLag is how late after its scheduled start a transaction of a
// terminal or rate run may be sent before it counts as late.
const LateLag = 10 * time.Millisecond

// Load models of LoadResult.Model (config.Spec.LoadModel's values).
const (
	LoadTerminals = "terminals"
	LoadRate      = "rate"
)

// LoadResult is how a terminal or rate run offered its load and how well
// the client kept its schedule over the measured window.
type LoadResult struct {
	Model       string // LoadTerminals or LoadRate
	Terminals   int    // terminal runs: terminals over Connections sessions
	Connections int
	// Rate runs: the rate asked for (time-weighted over the stages) and
	// the rate achieved (transactions ended in the window, whatever their
	// outcome, per second), in transactions per second; the arrivals
	// scheduled in the window and those dropped because MaxQueue were
	// already waiting.
	AskedRate, AchievedRate float64
	Scheduled, Dropped      int64
	MaxQueue                int
	// SkipLate is a rate run's latency limit (pgbench's -L), 0 for none:
	// an arrival that would be sent later than this behind its schedule
	// is not sent; Skipped counts those of the window.
	SkipLate time.Duration
	Skipped  int64
	// The schedule lag (scheduled start → sent) over the window's
	// completed transactions, and how many were late (LateLag).
	LagP50, LagP99, LagMax time.Duration
	Late                   int64
}

// StageResult is one stage of a staged run.
type StageResult struct {
	Stage      int     // 1-based
	Target     float64 // VUs, terminals or transactions per second
	Start, End time.Duration
	Commits    int64
	NewOrders  int64
	Errors     int64
	TPM, NOPM  float64
	// Latency of the headline transaction (all types when the workload has
	// none) and, in terminal and rate runs, the schedule lag's p99.
	P50, P95, P99 time.Duration
	LagP99        time.Duration
}
