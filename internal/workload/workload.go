// Package workload defines what the engine needs from a benchmark workload.
// The interfaces are small: a workload implements the core (Runner, Worker)
// and opts into extras by implementing further interfaces the engine
// discovers (Prober, Auditor).
package workload

import (
	"context"
	"errors"
	"time"

	"github.com/sledge-bench/sledge/internal/db"
	"github.com/sledge-bench/sledge/internal/metrics"
)

// ErrRolledBack is returned by Worker.Execute when the transaction rolled back
// by design (TPROC-C's New-Order with an invalid item): a completed business
// transaction, never a commit and never an error.
var ErrRolledBack = errors.New("rolled back by design")

// Runner is a workload prepared against one database for one run.
type Runner interface {
	// TxNames lists the transaction types; a type is its index here.
	TxNames() []string
	// NewWorker opens the session of virtual user vu (0-based).
	NewWorker(ctx context.Context, vu int) (Worker, error)
	// Classify maps an error from Execute to its class.
	Classify(err error) db.ErrorClass
	// Close releases what the runner holds (its monitor session).
	Close(ctx context.Context) error
}

// Worker is one virtual user's side of a workload: it owns one session and is
// used by one goroutine.
type Worker interface {
	// Next chooses the next transaction and generates its inputs; it returns
	// the transaction type.
	Next() int
	// Execute runs the chosen transaction once. After a retryable error it
	// may be called again: the inputs stay the same.
	Execute(ctx context.Context) error
	// Reconnect replaces the session after a connection error.
	Reconnect(ctx context.Context) error
	Close(ctx context.Context) error
}

// Pool is a Runner whose terminals can share sessions: a terminal (the
// inputs it draws) is apart from the session that runs its transactions, so
// that many terminals can be served by a few sessions (terminal and rate
// runs).
type Pool interface {
	// NewTerminal creates terminal vu (0-based, its number in the whole
	// run). It holds no session.
	NewTerminal(vu int) Terminal
	// NewSession opens one session of the pool.
	NewSession(ctx context.Context) (Session, error)
}

// Terminal draws transactions and their inputs and runs them on a session
// it is given. It is used by one goroutine at a time.
type Terminal interface {
	// Next chooses the next transaction and generates its inputs; it
	// returns the transaction type.
	Next() int
	// Choose makes tx the next transaction and generates its inputs (a
	// rate run per transaction type).
	Choose(tx int)
	// ExecuteOn runs the chosen transaction once on s, a session of the
	// same Pool. After a retryable error it may be called again: the inputs
	// stay the same.
	ExecuteOn(ctx context.Context, s Session) error
}

// Session is one database session of a Pool.
type Session interface {
	// Reconnect replaces the session after a connection error.
	Reconnect(ctx context.Context) error
	Close(ctx context.Context) error
}

// Pacer is a Runner whose transactions have operator times: the keying time
// a terminal waits before submitting transaction type tx, and the mean of
// the think time after it (drawn from a negative exponential capped at ten
// times the mean). The engine waits them only in paced runs.
type Pacer interface {
	Pacing(tx int) (keying, thinkMean time.Duration)
}

// Probe is what the database itself says at a window edge.
type Probe struct {
	// Headline is the database's own count of headline transactions so far
	// (TPROC-C: sum of d_next_o_id, so deltas are committed New-Orders).
	Headline int64
	// At is when Headline was read: the midpoint of the query's round trip.
	// The engine opens and closes the measured window at these instants, so
	// the client's count and the database's cover the same time.
	At time.Time
	// RTT is the round trip of that read: the database read its count at
	// some instant within it, so At is uncertain by RTT/2.
	RTT time.Duration
	// ServerCommits is the server-wide commit+rollback counter; valid when
	// HasServerCommits.
	ServerCommits    int64
	HasServerCommits bool
	// ServerCommitsLag is how far behind ServerCommits may be: the commits
	// of the last this-long that it may not count yet.
	ServerCommitsLag time.Duration
	// ServerCommitsAfter is how long after At ServerCommits was read, at
	// the latest (a query of its own after the headline's): the commits of
	// that time may be on either side of the edge.
	ServerCommitsAfter time.Duration
	// Session identifies the session the probe read through: it changes
	// when the prober had to open a new one (the old one was lost, perhaps
	// because the server restarted and reset its counters).
	Session uint64
	// Attempts is how many tries the read took (1 when the session was
	// fine).
	Attempts int
}

// Prober is implemented by runners that can read the database's own counters,
// used to cross-check the client's counts over the measured window.
type Prober interface {
	// HeadlineTx is the transaction type whose commits Probe.Headline counts.
	HeadlineTx() int
	// Probe reads the counters. A session lost since the last probe (a
	// server restart) is re-opened like a virtual user's, retrying with
	// backoff until ctx's deadline; an error means the values could not be
	// read by then, and the engine reports them as missing.
	Probe(ctx context.Context) (Probe, error)
}

// Auditor is implemented by runners that check the run's inputs against the
// workload's rules (mix, remote and rollback percentages …).
type Auditor interface {
	// MarkAudit starts the audited window.
	MarkAudit()
	// Audit reports on the window since MarkAudit, given per type the
	// completed transactions (commits plus designed rollbacks), the designed
	// rollbacks, and the transactions that failed (after any retries) by
	// error class. Completed plus failed is what the VUs attempted.
	Audit(completed, rolledBack []int64, failed []map[string]int64) []metrics.AuditItem
}
