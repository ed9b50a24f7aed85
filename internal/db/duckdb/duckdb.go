// Package duckdb is Sledge's embedded analytic database (TPROC-H's default),
// through duckdb-go and its prebuilt DuckDB library (cgo).
package duckdb

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"

	duckdb "github.com/duckdb/duckdb-go/v2"

	"github.com/sledge-bench/sledge/internal/db"
)

// Driver opens DuckDB sessions on a database file. A file is opened once
// per process and shared by all its sessions: DuckDB allows one read-write
// instance per file, and sessions of one instance see each other's commits.
type Driver struct{}

func (Driver) Kind() db.Kind { return db.DuckDB }

// instances holds the open database files of this process; it belongs to
// the driver rather than to one run because DuckDB's lock is per process.
var instances = struct {
	sync.Mutex
	m map[string]*instance
}{m: map[string]*instance{}}

type instance struct {
	connector *duckdb.Connector
	pool      *sql.DB
	refs      int
}

// acquire opens path (or shares the instance open already), creating the
// file and its directory unless mustExist.
func acquire(path string, mustExist bool) (*instance, error) {
	instances.Lock()
	defer instances.Unlock()
	if in, ok := instances.m[path]; ok {
		in.refs++
		return in, nil
	}
	if mustExist {
		// DuckDB has no open mode that refuses to create the file: look first.
		if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
			return nil, noDatabaseError(path)
		} else if err != nil {
			return nil, fmt.Errorf("database %s: %w", path, err)
		}
	} else if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("create directory for %s: %w", path, err)
	}
	c, err := duckdb.NewConnector(path, nil)
	if err != nil {
		return nil, fmt.Errorf("open DuckDB database %s: %w", path, err)
	}
	in := &instance{connector: c, pool: sql.OpenDB(c), refs: 1}
	instances.m[path] = in
	return in, nil
}

func release(path string, in *instance) error {
	instances.Lock()
	defer instances.Unlock()
	in.refs--
	if in.refs > 0 {
		return nil
	}
	delete(instances.m, path)
	err := in.pool.Close()
	if cerr := in.connector.Close(); err == nil {
		err = cerr
	}
	return err
}

// noDatabaseError is "no database at PATH"; it matches fs.ErrNotExist.
type noDatabaseError string

func (e noDatabaseError) Error() string        { return "no database at " + string(e) }
func (e noDatabaseError) Is(target error) bool { return target == fs.ErrNotExist }

// Connect opens one session. DuckDB runs every transaction with snapshot
// isolation; other levels are refused rather than silently ignored.
func (Driver) Connect(ctx context.Context, t db.Target, o db.Options) (db.Conn, error) {
	switch o.Isolation {
	case db.DefaultIsolation, db.Serializable, db.RepeatableRead:
	default:
		return nil, fmt.Errorf("DuckDB runs every transaction with snapshot isolation; --isolation %s is not available", o.Isolation)
	}
	in, err := acquire(t.DSN, o.MustExist)
	if err != nil {
		return nil, err
	}
	conn, err := in.pool.Conn(ctx)
	if err != nil {
		_ = release(t.DSN, in)
		return nil, fmt.Errorf("open DuckDB session on %s: %w", t.DSN, err)
	}
	return &Conn{path: t.DSN, in: in, conn: conn}, nil
}

// Classify maps DuckDB's error types.
func (Driver) Classify(err error) db.ErrorClass {
	var de *duckdb.Error
	if errors.As(err, &de) {
		switch de.Type {
		case duckdb.ErrorTypeTransaction:
			return db.ClassSerialization
		case duckdb.ErrorTypeConstraint:
			return db.ClassConstraint
		case duckdb.ErrorTypeConnection:
			return db.ClassConnection
		case duckdb.ErrorTypeInterrupt:
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

// Version returns e.g. "DuckDB v1.5.5".
func (Driver) Version(ctx context.Context, c db.Conn) (string, error) {
	var v string
	if err := c.QueryRow(ctx, "SELECT version()").Scan(&v); err != nil {
		return "", fmt.Errorf("read DuckDB version: %w", err)
	}
	return "DuckDB " + v, nil
}

// Conn is one DuckDB session.
type Conn struct {
	path string
	in   *instance
	conn *sql.Conn
}

// DuckDB parses and plans quickly next to analytic queries; statements are
// run as text rather than kept prepared.

func (c *Conn) Exec(ctx context.Context, q string, args ...any) (int64, error) {
	res, err := c.conn.ExecContext(ctx, q, args...)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

func (c *Conn) QueryRow(ctx context.Context, q string, args ...any) db.Row {
	return c.conn.QueryRowContext(ctx, q, args...)
}

type rows struct{ *sql.Rows }

func (r rows) Close() { _ = r.Rows.Close() }

func (c *Conn) Query(ctx context.Context, q string, args ...any) (db.Rows, error) {
	r, err := c.conn.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	return rows{r}, nil
}

func (c *Conn) Begin(ctx context.Context, readOnly bool) error {
	_, err := c.conn.ExecContext(ctx, "BEGIN TRANSACTION")
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
	err := c.conn.Close()
	if rerr := release(c.path, c.in); err == nil {
		err = rerr
	}
	return err
}

// Appender opens DuckDB's appender on a table: rows go straight into the
// table's storage in chunks, the fastest way in.
func (c *Conn) Appender(ctx context.Context, table string) (db.RowAppender, error) {
	var app *duckdb.Appender
	err := c.conn.Raw(func(dc any) error {
		conn, ok := dc.(driver.Conn)
		if !ok {
			return fmt.Errorf("unexpected DuckDB connection type %T", dc)
		}
		var err error
		app, err = duckdb.NewAppenderFromConn(conn, "", table)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("appender for %s: %w", table, err)
	}
	return app, nil
}

var (
	_ db.Conn         = (*Conn)(nil)
	_ db.BulkAppender = (*Conn)(nil)
	_ db.Driver       = Driver{}
)
