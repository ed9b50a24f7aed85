package metrics

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/sledge-bench/sledge/internal/db"
)

// Outcome of one transaction.
type Outcome uint8

const (
	Committed  Outcome = iota
	RolledBack         // designed rollback: completed, not committed
	// Failed outcomes are failedBase + error class.
	failedBase
)

// Failed returns the outcome of a transaction that failed with class c.
func Failed(c db.ErrorClass) Outcome { return failedBase + Outcome(c) }

// Event is one finished transaction.
type Event struct {
	End     time.Duration // when it finished, since the run started
	Latency time.Duration // including retries
	Tx      uint8
	Outcome Outcome
	Retries uint8
	// RetryClass is the error class that caused the retries (of the last one
	// when a transaction met several).
	RetryClass db.ErrorClass
	// Lag is how late the transaction was sent after its scheduled start
	// (a terminal's due time, a rate run's arrival): the wait for a free
	// session and the scheduler's own delay. Its Latency counts from the
	// scheduled start, so it includes Lag. Zero in closed-loop runs.
	Lag time.Duration
}

// Recorder collects one VU's events. The VU appends; the monitor swaps the
// buffer out once per interval and turns the events into histograms. The
// mutex is per VU, so the VUs never contend with each other, and the buffers
// are reused, so recording does not allocate once warmed up. Memory is
// bounded by one interval's worth of events, however long the run.
type Recorder struct {
	mu    sync.Mutex
	buf   []Event
	state atomic.Int32 // a VUState, set by the VU, read by the monitor
}

// VUState is what a virtual user is doing, as the live view shows it.
type VUState int32

const (
	VUStarting     VUState = iota // waiting for its ramp-up slot or connecting
	VURunning                     // running transactions
	VUReconnecting                // lost its session, reconnecting with backoff
	VUStopped                     // finished (end of run, or gave up)
	VUIdle                        // not used by the current stage of a staged run
)

var vuStateNames = [...]string{"starting", "running", "reconnecting", "stopped", "idle"}

func (s VUState) String() string {
	if s < 0 || int(s) >= len(vuStateNames) {
		return "unknown"
	}
	return vuStateNames[s]
}

// SetState records what the VU is doing.
func (r *Recorder) SetState(s VUState) { r.state.Store(int32(s)) }

// Record adds an event.
func (r *Recorder) Record(e Event) {
	r.mu.Lock()
	r.buf = append(r.buf, e)
	r.mu.Unlock()
}

// swap hands the buffered events over and installs spare (emptied) as the new
// buffer.
func (r *Recorder) swap(spare []Event) []Event {
	r.mu.Lock()
	b := r.buf
	r.buf = spare[:0]
	r.mu.Unlock()
	return b
}
