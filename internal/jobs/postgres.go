package jobs

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/stdlib"

	"github.com/sledge-bench/sledge/internal/db"
)

// pgConnectTimeout bounds each connection attempt to a PostgreSQL
// repository whose URL sets no connect_timeout: an unreachable host should
// say so in seconds, not after the operating system's minutes.
const pgConnectTimeout = 15 * time.Second

// pgMigrationLock is the key of the transaction-level advisory lock that
// serialises schema changes of a PostgreSQL repository ("sledge" in ASCII):
// processes opening a new repository at once take turns, the first creates
// the schema, the others find it made.
const pgMigrationLock = 0x736c65646765

// pgIdleInTransaction ends a repository transaction whose process stopped
// in the middle of it: shorter than the time after which agents count
// each other lost (10 s at the least), far longer than any transaction of
// a running process waits between its statements.
const pgIdleInTransaction = "8s"

// openPostgres opens the repository in the PostgreSQL database at url,
// creating Sledge's tables on first use and migrating an older schema. The
// database itself must exist.
func openPostgres(ctx context.Context, url string) (*Repo, error) {
	shown, pgURL := db.Redact(url), db.PostgresURL(url)
	// Every error below may quote the URL or a piece of it.
	fail := func(err error) error {
		return fmt.Errorf("open jobs repository %s: %w", shown, db.RedactError(err, url, pgURL))
	}
	cfg, err := pgx.ParseConfig(pgURL)
	if err != nil {
		return nil, fail(err)
	}
	if cfg.ConnectTimeout == 0 {
		cfg.ConnectTimeout = pgConnectTimeout
	}
	if _, set := cfg.RuntimeParams["idle_in_transaction_session_timeout"]; !set {
		// A process stopped (SIGSTOP, a paused VM) in the middle of one of
		// its repository transactions would hold its row locks for as long
		// as it is stopped, and every other agent's write to those rows —
		// counting it lost among them — would wait as long. The server ends
		// such a transaction instead; the stopped process, back, finds its
		// write failed and keeps it in its spool.
		cfg.RuntimeParams["idle_in_transaction_session_timeout"] = pgIdleInTransaction
	}
	sqldb := stdlib.OpenDB(*cfg)
	if err := sqldb.PingContext(ctx); err != nil {
		sqldb.Close()
		return nil, fail(connectError(err))
	}
	host, _ := os.Hostname()
	r := &Repo{db: &repoDB{raw: sqldb, d: postgresDialect}, d: postgresDialect, path: shown, host: host}
	if err := r.migrate(ctx); err != nil {
		sqldb.Close()
		return nil, fail(err)
	}
	return r, nil
}

// connectError says what to fix when the repository's server cannot be
// reached or refuses the connection.
func connectError(err error) error {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		switch pgErr.Code {
		case "3D000": // invalid_catalog_name
			return fmt.Errorf("%w: create the database first (e.g. createdb); Sledge creates its tables in it, not the database",
				err)
		case "28P01", "28000": // invalid_password, invalid_authorization_specification
			return fmt.Errorf("%w: check the user and password in the repository URL (or the server's pg_hba.conf)",
				err)
		}
	}
	return fmt.Errorf("cannot connect to PostgreSQL: %w: check that the server is running and reachable, "+
		"and the host, port, user, password and database in the repository URL", err)
}

// migratePostgres brings a PostgreSQL repository to SchemaVersion: a new one
// (no sledge_schema table) gets the baseline script, then the PostgreSQL
// scripts of the versions after it. All of it is one transaction (PostgreSQL
// has transactional DDL) under an advisory lock.
func (r *Repo) migratePostgres(ctx context.Context) error {
	v, err := pgVersion(ctx, r.db)
	if err != nil {
		return err
	}
	if v == SchemaVersion {
		return nil // the common case: no lock needed
	}
	if v > SchemaVersion {
		return newerSchemaError(v)
	}
	tx, err := r.db.BeginTx(ctx, r.d.writeTx)
	if err != nil {
		return fmt.Errorf("begin migration: %w", err)
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, "SELECT pg_advisory_xact_lock(?)", int64(pgMigrationLock)); err != nil {
		return fmt.Errorf("lock for migration: %w", err)
	}
	// Re-read under the lock (READ COMMITTED: this statement sees what a
	// process that held the lock before us committed).
	if v, err = pgVersion(ctx, tx); err != nil {
		return err
	}
	if v > SchemaVersion {
		return newerSchemaError(v)
	}
	if v == SchemaVersion {
		return nil
	}
	if v == 0 {
		script, err := schemaScript(pgBaselineScript)
		if err != nil {
			return err
		}
		if _, err := tx.raw.ExecContext(ctx, script); err != nil {
			return fmt.Errorf("create schema version %d: %w", pgBaseline, schemaError(err))
		}
		v = pgBaseline
	} else if v < pgBaseline {
		return fmt.Errorf("schema version %d in sledge_schema: a PostgreSQL repository starts at version %d", v, pgBaseline)
	}
	for ; v < SchemaVersion; v++ {
		script, err := schemaScript(migrations[v].postgres)
		if err != nil {
			return err
		}
		if _, err := tx.raw.ExecContext(ctx, script); err != nil {
			return fmt.Errorf("migrate schema to version %d: %w", v+1, schemaError(err))
		}
	}
	if _, err := tx.ExecContext(ctx, "UPDATE sledge_schema SET version = ?", v); err != nil {
		return fmt.Errorf("set schema version: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("commit migration: %w", err)
	}
	return nil
}

// schemaError adds what to do to the errors a schema script may meet in a
// database that is not Sledge's alone or a role that may not create tables.
func schemaError(err error) error {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		switch pgErr.Code {
		case "42P07", "42710": // duplicate_table, duplicate_object
			return fmt.Errorf("%w: the database already holds tables named as Sledge's but no Sledge schema; "+
				"give the repository a database of its own (or a schema, with ?search_path=… in the URL)", err)
		case "42501": // insufficient_privilege
			return fmt.Errorf("%w: the repository's role must be allowed to create tables in the database "+
				"(e.g. own it, or GRANT CREATE ON SCHEMA public)", err)
		}
	}
	return err
}

// pgVersion reads a PostgreSQL repository's schema version: 0 for a
// database without Sledge's tables. It looks for sledge_schema in pg_class
// itself, under the statement's snapshot, not through the session's
// catalog cache (to_regclass): a session that waited on the migration lock
// while another process created the tables has them in its snapshot, but
// not in its cache until something makes it read its invalidations — the
// re-check under the lock would see no schema and create it again.
func pgVersion(ctx context.Context, q queryer) (int, error) {
	var exists bool
	if err := q.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM pg_catalog.pg_class c
		WHERE c.relname = 'sledge_schema' AND c.relnamespace IN (
			SELECT n.oid FROM pg_catalog.pg_namespace n WHERE n.nspname = ANY (current_schemas(false))))`).Scan(&exists); err != nil {
		return 0, fmt.Errorf("read schema version: %w", err)
	}
	if !exists {
		return 0, nil
	}
	var v int
	if err := q.QueryRowContext(ctx, "SELECT COALESCE(MAX(version), 0) FROM sledge_schema").Scan(&v); err != nil {
		return 0, fmt.Errorf("read schema version: %w", err)
	}
	return v, nil
}
