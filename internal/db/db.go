// Package db defines what Sledge needs from a database session, independent of
// the driver behind it: a connection that runs SQL text (prepared and cached
// by the driver), explicit transactions, and a classification of errors.
//
// The drivers live in sub-packages (postgres, sqlite, mysql, duckdb); package drivers picks
// one for a Target.
package db

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"io"
	"time"
)

// Kind names a database family.
type Kind string

const (
	Postgres Kind = "postgres"
	SQLite   Kind = "sqlite"
	// MySQL covers MariaDB and MySQL: one dialect, one driver; the job
	// records which server it was from its version string.
	MySQL Kind = "mysql"
	// DuckDB is the embedded analytic engine, TPROC-H's default.
	DuckDB Kind = "duckdb"
)

// Row is one result row, as returned by QueryRow.
type Row interface {
	Scan(dest ...any) error
}

// Rows iterates a result set. Close must be called (it is idempotent).
type Rows interface {
	Next() bool
	Scan(dest ...any) error
	Err() error
	Close()
}

// Conn is one database session owned by one goroutine. Statements are passed as
// SQL text; drivers prepare them once per session and reuse the prepared form
// (unless the session runs in simple-protocol mode).
type Conn interface {
	// Exec runs a statement and returns the number of rows it affected.
	Exec(ctx context.Context, sql string, args ...any) (int64, error)
	// QueryRow runs a query expected to return at most one row; Scan reports
	// ErrNoRows (errors.Is) when there was none.
	QueryRow(ctx context.Context, sql string, args ...any) Row
	Query(ctx context.Context, sql string, args ...any) (Rows, error)
	// Begin starts a transaction. readOnly lets engines with coarse locks
	// (SQLite) avoid taking the write lock up front.
	Begin(ctx context.Context, readOnly bool) error
	Commit(ctx context.Context) error
	Rollback(ctx context.Context) error
	Close(ctx context.Context) error
}

// Isolation is a transaction isolation level requested by the user.
type Isolation string

const (
	DefaultIsolation Isolation = ""
	ReadCommitted    Isolation = "read-committed"
	RepeatableRead   Isolation = "repeatable-read"
	Serializable     Isolation = "serializable"
)

// ParseIsolation accepts the user-facing names (and their SQL spellings).
func ParseIsolation(s string) (Isolation, error) {
	switch s {
	case "", "default":
		return DefaultIsolation, nil
	case "read-committed", "read_committed", "read committed", "rc":
		return ReadCommitted, nil
	case "repeatable-read", "repeatable_read", "repeatable read", "rr":
		return RepeatableRead, nil
	case "serializable":
		return Serializable, nil
	}
	return "", errors.New("unknown isolation level " + quote(s) + " (want read-committed, repeatable-read or serializable)")
}

// SnapshotIsolation is what a session does with MariaDB's
// innodb_snapshot_isolation (10.6.18/10.11.8/11.4+; on by default from
// 11.6.2): with it on, a REPEATABLE READ transaction that would modify or
// lock a row changed after its read view fails with error 1020 instead of
// working on the newest version.
type SnapshotIsolation string

const (
	// SnapshotServer leaves the server's setting alone.
	SnapshotServer SnapshotIsolation = "server"
	// SnapshotOn and SnapshotOff set it for the session, on servers that
	// have the variable; elsewhere nothing is set.
	SnapshotOn  SnapshotIsolation = "on"
	SnapshotOff SnapshotIsolation = "off"
)

// ParseSnapshotIsolation accepts server, on or off ("" is server).
func ParseSnapshotIsolation(s string) (SnapshotIsolation, error) {
	switch s {
	case "", "server":
		return SnapshotServer, nil
	case "on", "off":
		return SnapshotIsolation(s), nil
	}
	return "", errors.New("unknown snapshot isolation " + quote(s) + " (want server, on or off)")
}

// ExecMode selects how statements travel to the server (pgx's execution modes).
type ExecMode string

const (
	// Prepared: each statement is prepared once per session and executed by name.
	Prepared ExecMode = "prepared"
	// Simple: statements are sent as text with parameters interpolated client-side
	// (the simple query protocol); one round trip, no server-side plan cache.
	Simple ExecMode = "simple"
)

// ParseExecMode accepts "prepared" or "simple".
func ParseExecMode(s string) (ExecMode, error) {
	switch s {
	case "", "prepared":
		return Prepared, nil
	case "simple":
		return Simple, nil
	}
	return "", errors.New("unknown execution mode " + quote(s) + " (want prepared or simple)")
}

// Options tune a session.
type Options struct {
	Isolation Isolation
	// SnapshotIsolation: MariaDB's innodb_snapshot_isolation for the
	// session; "" is SnapshotServer. Other databases ignore it.
	SnapshotIsolation SnapshotIsolation
	ExecMode          ExecMode
	// AppName shows up in the server's session list (e.g. pg_stat_activity).
	AppName string
	// Bulk marks a session used for loading data: drivers may relax durability
	// settings that only matter for committed user transactions.
	Bulk bool
	// MustExist opens an embedded database file (SQLite, DuckDB) only if it
	// exists: a job that reads or changes a built schema must not leave an
	// empty file (or directory) behind. The error then matches
	// fs.ErrNotExist (errors.Is). Servers ignore it.
	MustExist bool
	// DriverLog receives the driver library's own diagnostics about this
	// session (go-sql-driver/mysql logs a connection the server closed),
	// one short line each, instead of the library printing them to stderr.
	// Nil: they are counted per process and dropped.
	DriverLog func(msg string)
}

// Driver opens sessions for one database family and knows its errors.
type Driver interface {
	Kind() Kind
	Connect(ctx context.Context, t Target, o Options) (Conn, error)
	// Classify maps a driver error to a class; nil maps to ClassNone.
	Classify(err error) ErrorClass
	// Version returns the server's product and version, e.g. "PostgreSQL 15.18".
	Version(ctx context.Context, c Conn) (string, error)
}

// Admin is implemented by drivers of servers that hold several databases
// (PostgreSQL, MariaDB/MySQL): it creates the benchmark's database and, where
// the server has roles, its owner, through a session opened as an
// administrator (see AdminTarget). Find it with a type assertion on a Driver.
type Admin interface {
	// CreateDatabase creates database name owned by owner through admin, a
	// session of a role allowed to create databases (and roles), not inside
	// a transaction. It reports whether it created the database: one that
	// exists already is not an error, and is left as it is.
	//
	// On PostgreSQL, before creating the database, a missing owner is
	// created as a login role with password (none when password is empty);
	// an existing role is left as it is, and owner "" leaves the database to
	// admin's role. MariaDB/MySQL ignore owner and password.
	CreateDatabase(ctx context.Context, admin Conn, name, owner, password string) (created bool, err error)
}

// Adopter is implemented by drivers of servers whose databases have owners
// (PostgreSQL): it makes a database that exists already (a DBA created it)
// ready for the benchmark's login to build in, as Admin.CreateDatabase makes
// a new one. Find it with a type assertion on a Driver.
type Adopter interface {
	// AdoptDatabase works through admin, a session of an administrator
	// connected to the existing database itself. It creates a missing owner
	// as a login role with password (as CreateDatabase does) and, while the
	// database holds no tables outside the system schemas and owner neither
	// owns it nor is a member of the role that does, makes owner its owner.
	// A database that holds tables keeps its owner. It reports what it did
	// ("created role bench"), nothing when it found the database ready.
	AdoptDatabase(ctx context.Context, admin Conn, owner, password string) (did []string, err error)
}

// ServerCommitCounter is implemented by sessions whose server keeps a commit
// counter (PostgreSQL's pg_stat_database). The value is server-wide: it counts
// every session's transactions, not only Sledge's.
type ServerCommitCounter interface {
	ServerCommits(ctx context.Context) (int64, error)
	// ServerCommitsLag is how far behind the counter may be when read:
	// commits of the last this-long that it may not count yet.
	ServerCommitsLag() time.Duration
}

// TextCopier is implemented by sessions that can bulk-load rows in PostgreSQL
// COPY text format.
type TextCopier interface {
	// CopyText runs copySQL ("COPY t (cols) FROM STDIN") fed from r.
	CopyText(ctx context.Context, copySQL string, r io.Reader) (int64, error)
}

// BulkAppender is implemented by sessions of engines with a row appender
// (DuckDB): rows go straight into a table's storage.
type BulkAppender interface {
	Appender(ctx context.Context, table string) (RowAppender, error)
}

// RowAppender appends whole rows, values in column order; Close flushes.
type RowAppender interface {
	AppendRow(values ...driver.Value) error
	Close() error
}

// ErrNoRows is what Row.Scan returns (errors.Is) when there was no row. Both
// database/sql and pgx errors match it.
var ErrNoRows = sql.ErrNoRows

func quote(s string) string { return "\"" + s + "\"" }
