// Package sqlite is Sledge's embedded default database, through the pure-Go
// modernc.org/sqlite driver (nothing to install, no cgo).
package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"

	sqlite "modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/sledge-bench/sledge/internal/db"
)

// Driver opens SQLite sessions on a database file.
type Driver struct{}

func (Driver) Kind() db.Kind { return db.SQLite }

// busyTimeoutMS is how long a writer waits for the single write lock before
// SQLITE_BUSY. Generous: with many VUs the queue for the lock is long.
const busyTimeoutMS = 30000

// Connect opens the file as one session in WAL mode, creating it and its
// directory unless o.MustExist.
func (Driver) Connect(ctx context.Context, t db.Target, o db.Options) (db.Conn, error) {
	switch o.Isolation {
	case db.DefaultIsolation, db.Serializable:
	default:
		return nil, fmt.Errorf("SQLite runs every transaction serializable; --isolation %s is not available", o.Isolation)
	}
	if o.MustExist {
		if err := mustExist(t.DSN); err != nil {
			return nil, err
		}
	} else if err := os.MkdirAll(filepath.Dir(t.DSN), 0o755); err != nil {
		return nil, fmt.Errorf("create directory for %s: %w", t.DSN, err)
	}
	sync := "NORMAL"
	if o.Bulk {
		sync = "OFF"
	}
	dsn := "file:" + t.DSN + "?_pragma=busy_timeout(" + fmt.Sprint(busyTimeoutMS) + ")" +
		"&_pragma=journal_mode(WAL)&_pragma=synchronous(" + sync + ")&_pragma=foreign_keys(0)"
	if o.MustExist {
		// SQLite's own URI parameter: open read-write, never create (the
		// file may have gone since the look above).
		dsn += "&mode=rw"
	}
	pool, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", t.DSN, err)
	}
	// One session = one connection; the pool must never open a second one
	// behind our back (prepared statements and BEGIN belong to a connection).
	pool.SetMaxOpenConns(1)
	conn, err := pool.Conn(ctx)
	if err != nil {
		pool.Close()
		if o.MustExist {
			if nerr := mustExist(t.DSN); nerr != nil {
				return nil, nerr // removed since the look above
			}
		}
		return nil, fmt.Errorf("open %s: %w", t.DSN, err)
	}
	return &Conn{pool: pool, conn: conn, stmts: map[string]*sql.Stmt{}}, nil
}

// mustExist is the error of a database file that does not exist (matching
// fs.ErrNotExist), nil when it does.
func mustExist(path string) error {
	_, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return noDatabaseError(path)
	}
	if err != nil {
		return fmt.Errorf("database %s: %w", path, err)
	}
	return nil
}

// Classify maps SQLite result codes. SQLITE_BUSY/LOCKED are lock conflicts
// that a retry may get past, like a serialization failure on a server.
func (Driver) Classify(err error) db.ErrorClass {
	var se *sqlite.Error
	if errors.As(err, &se) {
		switch se.Code() & 0xff {
		case sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED:
			return db.ClassSerialization
		case sqlite3.SQLITE_CONSTRAINT:
			return db.ClassConstraint
		case sqlite3.SQLITE_IOERR, sqlite3.SQLITE_CANTOPEN, sqlite3.SQLITE_NOTADB, sqlite3.SQLITE_CORRUPT:
			return db.ClassConnection
		case sqlite3.SQLITE_INTERRUPT:
			return db.ClassTimeout
		}
		return db.ClassOther
	}
	if c, ok := db.ClassifyCommon(err); ok {
		return c
	}
	if errors.Is(err, sql.ErrConnDone) {
		return db.ClassConnection
	}
	return db.ClassOther
}

// Version returns e.g. "SQLite 3.50.4".
func (Driver) Version(ctx context.Context, c db.Conn) (string, error) {
	var v string
	if err := c.QueryRow(ctx, "SELECT sqlite_version()").Scan(&v); err != nil {
		return "", fmt.Errorf("read sqlite_version: %w", err)
	}
	return "SQLite " + v, nil
}

// Conn is one SQLite connection with its own prepared-statement cache.
type Conn struct {
	pool  *sql.DB
	conn  *sql.Conn
	mu    sync.Mutex // guards stmts; a Conn is used by one goroutine, but Close may race
	stmts map[string]*sql.Stmt
}

func (c *Conn) stmt(ctx context.Context, q string) (*sql.Stmt, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if s, ok := c.stmts[q]; ok {
		return s, nil
	}
	s, err := c.conn.PrepareContext(ctx, q)
	if err != nil {
		return nil, err
	}
	c.stmts[q] = s
	return s, nil
}

func (c *Conn) Exec(ctx context.Context, q string, args ...any) (int64, error) {
	if len(args) == 0 && isMultiStatement(q) {
		// Schema scripts: several statements, run once, not worth preparing.
		_, err := c.conn.ExecContext(ctx, q)
		return 0, err
	}
	s, err := c.stmt(ctx, q)
	if err != nil {
		return 0, err
	}
	res, err := s.ExecContext(ctx, args...)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

func isMultiStatement(q string) bool {
	q = strings.TrimSpace(q)
	q = strings.TrimSuffix(q, ";")
	return strings.Contains(q, ";")
}

type errRow struct{ err error }

func (r errRow) Scan(...any) error { return r.err }

func (c *Conn) QueryRow(ctx context.Context, q string, args ...any) db.Row {
	s, err := c.stmt(ctx, q)
	if err != nil {
		return errRow{err}
	}
	return s.QueryRowContext(ctx, args...)
}

type rows struct{ *sql.Rows }

func (r rows) Close() { _ = r.Rows.Close() }

func (c *Conn) Query(ctx context.Context, q string, args ...any) (db.Rows, error) {
	s, err := c.stmt(ctx, q)
	if err != nil {
		return nil, err
	}
	r, err := s.QueryContext(ctx, args...)
	if err != nil {
		return nil, err
	}
	return rows{r}, nil
}

// Begin takes the write lock up front for read-write transactions (BEGIN
// IMMEDIATE): SQLite would otherwise fail a reader that later tries to write
// with SQLITE_BUSY instead of waiting for the lock.
func (c *Conn) Begin(ctx context.Context, readOnly bool) error {
	q := "BEGIN IMMEDIATE"
	if readOnly {
		q = "BEGIN"
	}
	_, err := c.conn.ExecContext(ctx, q)
	return err
}

func (c *Conn) Commit(ctx context.Context) error {
	_, err := c.conn.ExecContext(ctx, "COMMIT")
	return err
}

func (c *Conn) Rollback(ctx context.Context) error {
	_, err := c.conn.ExecContext(ctx, "ROLLBACK")
	return err
}

func (c *Conn) Close(ctx context.Context) error {
	c.mu.Lock()
	for _, s := range c.stmts {
		_ = s.Close()
	}
	c.stmts = nil
	c.mu.Unlock()
	err := c.conn.Close()
	if perr := c.pool.Close(); err == nil {
		err = perr
	}
	return err
}

var (
	_ db.Conn   = (*Conn)(nil)
	_ db.Driver = Driver{}
)

// noDatabaseError is "no database at PATH"; it matches fs.ErrNotExist.
type noDatabaseError string

func (e noDatabaseError) Error() string        { return "no database at " + string(e) }
func (e noDatabaseError) Is(target error) bool { return target == fs.ErrNotExist }
