// Package postgres is Sledge's PostgreSQL driver, built on pgx's native
// interface (not database/sql) so the transaction hot path stays lean.
package postgres

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/sledge-bench/sledge/internal/db"
)

// Driver opens PostgreSQL sessions.
type Driver struct{}

func (Driver) Kind() db.Kind { return db.Postgres }

// Connect opens one session. The isolation level becomes the session default
// (default_transaction_isolation) so that it applies equally to client-side
// transactions and to single-statement calls of server-side routines.
func (Driver) Connect(ctx context.Context, t db.Target, o db.Options) (db.Conn, error) {
	cfg, err := pgx.ParseConfig(t.DSN)
	if err != nil {
		return nil, fmt.Errorf("parse PostgreSQL URL %s: %w", db.Redact(t.DSN), errors.Unwrap(err))
	}
	switch o.ExecMode {
	case db.Simple:
		cfg.DefaultQueryExecMode = pgx.QueryExecModeSimpleProtocol
	default:
		cfg.DefaultQueryExecMode = pgx.QueryExecModeCacheStatement
	}
	if o.AppName != "" {
		cfg.RuntimeParams["application_name"] = o.AppName
	}
	switch o.Isolation {
	case db.ReadCommitted:
		cfg.RuntimeParams["default_transaction_isolation"] = "read committed"
	case db.RepeatableRead:
		cfg.RuntimeParams["default_transaction_isolation"] = "repeatable read"
	case db.Serializable:
		cfg.RuntimeParams["default_transaction_isolation"] = "serializable"
	}
	if o.Bulk {
		// A crash during a load means reloading anyway; do not wait for WAL flushes.
		cfg.RuntimeParams["synchronous_commit"] = "off"
	}
	c, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("connect to %s: %w", db.Redact(t.DSN), err)
	}
	return &Conn{c: c}, nil
}

// Classify maps PostgreSQL errors by SQLSTATE.
func (Driver) Classify(err error) db.ErrorClass {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		return db.ClassifySQLState(pgErr.Code)
	}
	if c, ok := db.ClassifyCommon(err); ok {
		return c
	}
	if pgconn.SafeToRetry(err) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return db.ClassConnection
	}
	var connErr *pgconn.ConnectError
	if errors.As(err, &connErr) {
		return db.ClassConnection
	}
	return db.ClassOther
}

// Version returns e.g. "PostgreSQL 15.18".
func (Driver) Version(ctx context.Context, c db.Conn) (string, error) {
	var v string
	if err := c.QueryRow(ctx, "SHOW server_version").Scan(&v); err != nil {
		return "", fmt.Errorf("read server_version: %w", err)
	}
	return "PostgreSQL " + v, nil
}

// Conn is one pgx session.
type Conn struct {
	c *pgx.Conn
}

// Pgx exposes the underlying connection for PostgreSQL-only code (tests, tools).
func (c *Conn) Pgx() *pgx.Conn { return c.c }

func (c *Conn) Exec(ctx context.Context, sql string, args ...any) (int64, error) {
	tag, err := c.c.Exec(ctx, sql, args...)
	return tag.RowsAffected(), err
}

func (c *Conn) QueryRow(ctx context.Context, sql string, args ...any) db.Row {
	return c.c.QueryRow(ctx, sql, args...)
}

func (c *Conn) Query(ctx context.Context, sql string, args ...any) (db.Rows, error) {
	r, err := c.c.Query(ctx, sql, args...)
	if err != nil {
		return nil, err
	}
	return r, nil
}

// Begin, Commit and Rollback are plain statements rather than pgx.Tx values:
// the VU owns its session and a Tx object would be one allocation per
// transaction for nothing.
func (c *Conn) Begin(ctx context.Context, readOnly bool) error {
	_, err := c.c.Exec(ctx, "BEGIN")
	return err
}

func (c *Conn) Commit(ctx context.Context) error {
	tag, err := c.c.Exec(ctx, "COMMIT")
	if err == nil && tag.String() == "ROLLBACK" {
		// COMMIT of an aborted transaction reports success with tag ROLLBACK.
		return errors.New("commit: transaction was rolled back by the server")
	}
	return err
}

func (c *Conn) Rollback(ctx context.Context) error {
	_, err := c.c.Exec(ctx, "ROLLBACK")
	return err
}

func (c *Conn) Close(ctx context.Context) error { return c.c.Close(ctx) }

// CopyText loads rows in COPY text format.
func (c *Conn) CopyText(ctx context.Context, copySQL string, r io.Reader) (int64, error) {
	tag, err := c.c.PgConn().CopyFrom(ctx, r, copySQL)
	return tag.RowsAffected(), err
}

// ServerCommits reads this database's commit and rollback counters from
// pg_stat_database. They are server-wide for the database: every session counts.
// The statistics collector lags by up to a second (stats_fetch_consistency);
// callers use it for a side-by-side figure, not as the result.
func (c *Conn) ServerCommits(ctx context.Context) (int64, error) {
	var n int64
	// pg_stat_clear_snapshot makes repeated reads in one session see fresh values.
	if _, err := c.c.Exec(ctx, "SELECT pg_stat_clear_snapshot()"); err != nil {
		return 0, fmt.Errorf("clear statistics snapshot: %w", err)
	}
	err := c.c.QueryRow(ctx,
		"SELECT xact_commit + xact_rollback FROM pg_stat_database WHERE datname = current_database()").Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("read pg_stat_database: %w", err)
	}
	return n, nil
}

var (
	_ db.Conn                = (*Conn)(nil)
	_ db.TextCopier          = (*Conn)(nil)
	_ db.ServerCommitCounter = (*Conn)(nil)
	_ db.Driver              = Driver{}
)
