// Package observe watches the database server (and hosts) while a job runs:
// what the server's sessions wait on, its cumulative statistics as deltas,
// its settings, and the operating system's CPU, memory, disk and network.
// An Observer samples on its own connection, never on a virtual user's, and
// never writes to the server. The job service cuts each observer's figures
// at every monitor interval of the run (Cut), so the server's series line up
// with the run's TPM series, and stores them with the job.
package observe

import (
	"context"
	"time"
)

// Observer watches one server or host during a run. Start is called once
// before the run's clock starts, Cut at the end of every interval of the
// run (from one goroutine), Close once when the run has ended. An observer
// that loses its server keeps trying to reconnect in the background; the
// intervals it could not see say so (Snapshot.Gap) rather than fail the
// run.
type Observer interface {
	// Name says what is observed, for notes and errors: "PostgreSQL
	// sessions and statistics", "client host".
	Name() string
	// Start connects, takes the snapshot of settings and begins sampling.
	// An error means nothing can be observed (the run goes on without this
	// observer, with a note saying why).
	Start(ctx context.Context) (Start, error)
	// Cut closes the current interval at elapsed (since the run's start)
	// and returns what was observed in it.
	Cut(elapsed time.Duration) Snapshot
	// Close stops sampling and releases the connection; it returns the
	// observer's own cost.
	Close() Cost
}

// Start is what an observer found when it started.
type Start struct {
	Server   string // product and version, e.g. "PostgreSQL 15.8"
	Uptime   time.Duration
	Settings []Setting // the settings that matter for performance, not at their defaults
	Notes    []string  // e.g. "no pg_monitor role: only the benchmark's own sessions are seen"
}

// Setting is one server setting in force when the job started.
type Setting struct {
	Name   string
	Value  string // as the server shows it (with its unit, if any)
	Source string // where it was set ("configuration file", "default", "session" …); "" when unknown
}

// Snapshot is what one observer saw during one interval of a run.
type Snapshot struct {
	Elapsed time.Duration // end of the interval, since the run's start
	Length  time.Duration // the time the interval covered
	// Samples is how many activity samples the interval holds (0 for
	// observers that do not sample activity).
	Samples int
	// Gap is why part or all of the interval could not be observed (the
	// server went away, a query failed); "" when it was observed whole.
	Gap string
	// Waits are the average active sessions (samples of active sessions ÷
	// samples taken) by wait class and event; class "CPU" is a session
	// active without a wait event. Sorted by AAS, highest first.
	Waits []Wait
	// Statements are the statements seen most often in the samples.
	Statements []Statement
	// Counters are the changes over the interval of cumulative counters
	// (and the values of gauges), by source.
	Counters []Counter
}

// Wait is one wait event's average active sessions in an interval.
type Wait struct {
	Class string  // e.g. "Lock", "LWLock", "IO", "Client", "CPU"
	Event string  // e.g. "relation", "WALWrite"; "" for CPU
	AAS   float64 // average active sessions
}

// Statement is one statement's share of an interval's samples.
type Statement struct {
	ID      string  // the server's statement id (query_id on PostgreSQL 14+, digest on MySQL); "" when none
	Text    string  // its text, shortened
	AAS     float64 // average active sessions running it
	Seconds float64 // time spent in it when the server keeps statement statistics (pg_stat_statements); 0 otherwise
	Calls   int64   // calls in the interval, from the same statistics; 0 otherwise
}

// Counter is one figure of an interval: the change of a cumulative counter
// (Kind Delta) or the value of a gauge at the interval's end (Kind Gauge).
type Counter struct {
	Source string // e.g. "pg_stat_database", "pg_checkpointer", "global_status", "os.cpu"
	Name   string // e.g. "xact_commit", "checkpoints_req", "Innodb_buffer_pool_reads", "user_pct"
	Kind   string // Delta or Gauge
	Unit   string // e.g. "", "blocks", "bytes", "ms", "%"
	Value  float64
}

// Counter kinds.
const (
	Delta = "delta"
	Gauge = "gauge"
)

// Cost is an observer's own cost over the run: what its sampling took on
// the client (CPU time of its goroutines is not separable in Go, so the
// wall time spent in its queries) and on the server (the time the server
// reported for its queries, where it reports one).
type Cost struct {
	Samples     int           // samples taken
	Queries     int           // queries sent
	QueryTime   time.Duration // wall time spent waiting for their answers
	Reconnects  int           // times it had to reconnect
	ServerShare float64       // estimated share of one server CPU its queries used (0..1), 0 when unknown
}

// Options are the observers' settings for a run.
type Options struct {
	// Rate is the activity sampling rate (samples per second); default 10.
	Rate float64
	// Database is the benchmark's database: activity is sampled for it only.
	Database string
}

// DefaultRate is the activity sampling rate when none is set.
const DefaultRate = 10
