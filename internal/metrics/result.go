// Package metrics turns what virtual users did into numbers: latency
// histograms per transaction type, per-interval series, counters by outcome
// and error class, and the typed results that the jobs repository stores.
package metrics

import "time"

// Job statuses.
const (
	StatusRunning     = "running"
	StatusCompleted   = "completed"
	StatusInterrupted = "interrupted" // stopped by the user (Ctrl-C); what was measured is kept
	StatusFailed      = "failed"
	StatusAbandoned   = "abandoned" // the process died without finishing the job
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

// IntervalTx is one transaction type within one interval.
type IntervalTx struct {
	Name   string
	Count  int64
	Errors int64
	P50    time.Duration
	P95    time.Duration
	P99    time.Duration
	Max    time.Duration
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
}

// VUInterval is one virtual user within one interval.
type VUInterval struct {
	VU      int // 1-based
	State   string
	Commits int64
	Errors  int64
}

// AuditItem is one measured property of the run checked against its target
// (mix percentages, remote percentages, rollback percentage …).
type AuditItem struct {
	Name   string
	Value  float64 // measured, in Unit
	Unit   string  // "%" usually
	Target string  // human-readable expectation, e.g. ">= 43.0" or "≈ 1.0"
	OK     bool
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
	Duration time.Duration // configured
	Measured time.Duration // the actual measured wall-clock window

	// From client-counted commits over Measured.
	NOPM       float64
	TPM        float64
	NewOrders  int64 // committed New-Orders in the window
	Commits    int64 // committed transactions of all types in the window
	Errors     int64
	RolledBack int64

	// Cross-check from the database: Δ sum(d_next_o_id) over the window edges.
	DBNewOrders  int64
	NOPMDBCheck  float64
	DBCheckAgree bool
	// DBCheckAllowance is how far apart the two counts may be: transactions
	// in flight at the edges plus commits within the probes' timing
	// uncertainty. Shown with the check, not stored.
	DBCheckAllowance int64
	// ServerTPM is the server's own commit+rollback counter per minute over
	// the window (server-wide, all sessions); negative when not available.
	ServerTPM float64

	// Client CPU (user+system of this process) over the window.
	ClientCPU        time.Duration
	ClientCPUPerTxUS float64
	Warnings         []string

	Tx    []TxSummary
	Audit []AuditItem
}
