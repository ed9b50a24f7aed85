package jobs

// Opening a repository: a SQLite file or a PostgreSQL URL (Open,
// OpenExisting), and bringing its schema to SchemaVersion through the
// embedded migration scripts.

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	_ "modernc.org/sqlite" // registers the "sqlite" database/sql driver
)

// busyTimeoutMS is how long a writer waits for another process's write lock.
// Writes are tiny, but a long SaveRunResult of a big run may hold the lock
// for a while; failing a job record because of that would be worse.
const busyTimeoutMS = 30000

// migrations are the schema scripts in order, one entry per schema version:
// migrations[i] brings a repository from version i to i+1, with one script
// per dialect (files of this directory, embedded). Append, never edit: a
// repository in the field may be at any of these versions.
//
// A SQLite repository replays the SQLite scripts from the version in its
// PRAGMA user_version. A PostgreSQL repository is created at version
// pgBaseline in one go by schema_pg.sql (the SQLite schema after the first
// pgBaseline scripts, which therefore have no PostgreSQL script) and then
// takes the PostgreSQL scripts of the later versions; its version is kept in
// the table sledge_schema.
//
// To add version 9: write schema_v9.sql (SQLite) and schema_pg_v9.sql
// (PostgreSQL) making the same change, each in its dialect's types (see the
// head of schema_pg.sql), and append
//
//	{sqlite: "schema_v9.sql", postgres: "schema_pg_v9.sql"},
//
// Nothing else: SchemaVersion follows, and the tests check that every script
// exists and that both dialects end with the same tables and columns
// (TestSchemasAgree). An array, so that SchemaVersion is a constant.
var migrations = [...]migration{
	{sqlite: "schema_v1.sql"}, // PostgreSQL: v1 … v8 are schema_pg.sql
	{sqlite: "schema_v2.sql"},
	{sqlite: "schema_v3.sql"},
	{sqlite: "schema_v4.sql"},
	{sqlite: "schema_v5.sql"},
	{sqlite: "schema_v6.sql"},
	{sqlite: "schema_v7.sql"},
	{sqlite: "schema_v8.sql"},
	{sqlite: "schema_v9.sql", postgres: "schema_pg_v9.sql"},
	{sqlite: "schema_v10.sql", postgres: "schema_pg_v10.sql"},
	{sqlite: "schema_v11.sql", postgres: "schema_pg_v11.sql"},
	{sqlite: "schema_v12.sql", postgres: "schema_pg_v12.sql"},
	{sqlite: "schema_v13.sql", postgres: "schema_pg_v13.sql"},
	{sqlite: "schema_v14.sql", postgres: "schema_pg_v14.sql"},
	{sqlite: "schema_v15.sql", postgres: "schema_pg_v15.sql"},
	{sqlite: "schema_v16.sql", postgres: "schema_pg_v16.sql"},
	{sqlite: "schema_v17.sql", postgres: "schema_pg_v17.sql"},
	{sqlite: "schema_v18.sql", postgres: "schema_pg_v18.sql"},
	{sqlite: "schema_v19.sql", postgres: "schema_pg_v19.sql"},
	{sqlite: "schema_v20.sql", postgres: "schema_pg_v20.sql"},
	{sqlite: "schema_v21.sql", postgres: "schema_pg_v21.sql"},
	{sqlite: "schema_v22.sql", postgres: "schema_pg_v22.sql"},
}

// migration names one version's script per dialect.
type migration struct {
	sqlite   string
	postgres string // "" for the versions up to pgBaseline
}

// pgBaseline is the schema version that pgBaselineScript creates.
const (
	pgBaseline       = 8
	pgBaselineScript = "schema_pg.sql"
)

//go:embed schema_*.sql
var schemaFS embed.FS

// schemaScript returns an embedded schema script.
func schemaScript(name string) (string, error) {
	b, err := fs.ReadFile(schemaFS, name)
	if err != nil {
		return "", fmt.Errorf("schema script %s: %w", name, err)
	}
	return string(b), nil
}

// SchemaVersion is the schema version this build of Sledge writes.
const SchemaVersion = len(migrations)

// IsPostgresURL reports whether a repository location is a PostgreSQL URL
// (postgres://… or postgresql://…) rather than a SQLite file.
func IsPostgresURL(location string) bool {
	l := strings.ToLower(location)
	return strings.HasPrefix(l, "postgres://") || strings.HasPrefix(l, "postgresql://")
}

// Open opens the repository at path, creating it on first use and migrating
// an older schema. path is a SQLite file, whose directory is created too,
// or a PostgreSQL URL (postgres://… or postgresql://…): a database that
// exists, in which Open creates Sledge's tables on first use.
func Open(ctx context.Context, path string) (*Repo, error) {
	if path == "" {
		return nil, errors.New("open jobs repository: no path")
	}
	if IsPostgresURL(path) {
		return openPostgres(ctx, path)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("create directory for jobs repository %s: %w", path, err)
	}
	return open(ctx, path, "")
}

// ErrNoRepository is matched (errors.Is) by OpenExisting's error for a
// repository file that does not exist, "no jobs repository at PATH"; that
// error matches fs.ErrNotExist too.
var ErrNoRepository = errors.New("no jobs repository")

type noRepositoryError struct{ path string }

func (e noRepositoryError) Error() string { return "no jobs repository at " + e.path }

func (e noRepositoryError) Is(target error) bool {
	return target == ErrNoRepository || target == fs.ErrNotExist
}

// OpenExisting opens the repository at path for the commands that only read
// it or change what it holds (list, show, delete): it creates nothing, no
// file and no directory, and fails with ErrNoRepository ("no jobs
// repository at PATH") when there is none. An older schema is migrated as
// by Open.
//
// A PostgreSQL URL is opened as by Open: a database that can be reached
// exists (a missing one fails to connect), and one that does not have
// Sledge's tables yet is an empty repository, so it gets them (telling "no
// repository" from "no jobs" apart would only make a team's first `jobs
// list` fail).
func OpenExisting(ctx context.Context, path string) (*Repo, error) {
	if path == "" {
		return nil, errors.New("open jobs repository: no path")
	}
	if IsPostgresURL(path) {
		return openPostgres(ctx, path)
	}
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return nil, noRepositoryError{path}
	} else if err != nil {
		return nil, fmt.Errorf("open jobs repository %s: %w", path, err)
	}
	// mode=rw: should the file go between the look above and the open,
	// SQLite fails rather than creating an empty one.
	r, err := open(ctx, path, "&mode=rw")
	if err != nil {
		if _, serr := os.Stat(path); errors.Is(serr, fs.ErrNotExist) {
			return nil, noRepositoryError{path}
		}
		return nil, err
	}
	return r, nil
}

// open opens the repository file with extra DSN parameters.
func open(ctx context.Context, path, params string) (*Repo, error) {
	// _txlock=immediate: a write transaction takes the write lock at BEGIN
	// and waits for it under busy_timeout; a deferred one that upgrades from
	// read to write could fail at once with SQLITE_BUSY. Read-only
	// transactions still begin deferred (the driver honours TxOptions).
	// synchronous=NORMAL is durable enough in WAL mode (a power cut may lose
	// the last lines, never corrupt) and avoids an fsync per console line.
	dsn := "file:" + path + "?_txlock=immediate" +
		fmt.Sprintf("&_pragma=busy_timeout(%d)", busyTimeoutMS) +
		"&_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)&_pragma=foreign_keys(1)" + params
	sqldb, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("open jobs repository %s: %w", path, err)
	}
	host, _ := os.Hostname()
	r := &Repo{db: &repoDB{raw: sqldb, d: sqliteDialect}, d: sqliteDialect, path: path, host: host}
	// Processes that open a new file at the same moment (the agents of a
	// run on one machine) may find it busy while one of them switches it to
	// WAL, which does not wait under busy_timeout: try again a little later.
	for attempt := 1; ; attempt++ {
		err := r.migrate(ctx)
		if err == nil {
			return r, nil
		}
		if !sqliteBusy(err) || attempt == openAttempts || ctx.Err() != nil {
			sqldb.Close()
			return nil, fmt.Errorf("open jobs repository %s: %w", path, err)
		}
		time.Sleep(time.Duration(attempt) * 10 * time.Millisecond)
	}
}

// openAttempts bounds the tries of open on a busy new file (about 10 s).
const openAttempts = 45

// sqliteBusy reports whether err is SQLite's "database is locked" (busy).
func sqliteBusy(err error) bool {
	msg := err.Error()
	return strings.Contains(msg, "SQLITE_BUSY") || strings.Contains(msg, "database is locked")
}

// migrate brings the schema to SchemaVersion. In SQLite the version lives in
// PRAGMA user_version, which is part of the database header and so changes
// atomically with the migration's transaction.
func (r *Repo) migrate(ctx context.Context) error {
	if r.d == postgresDialect {
		return r.migratePostgres(ctx)
	}
	v, err := userVersion(ctx, r.db)
	if err != nil {
		return err
	}
	if v == SchemaVersion {
		return nil // the common case: no write lock needed
	}
	if v > SchemaVersion {
		return newerSchemaError(v)
	}
	tx, err := r.db.BeginTx(ctx, r.d.writeTx)
	if err != nil {
		return fmt.Errorf("begin migration: %w", err)
	}
	defer tx.Rollback()
	// Re-read under the write lock: another process may have migrated
	// between our first look and BEGIN IMMEDIATE.
	if v, err = userVersion(ctx, tx); err != nil {
		return err
	}
	for ; v < SchemaVersion; v++ {
		script, err := schemaScript(migrations[v].sqlite)
		if err != nil {
			return err
		}
		if _, err := tx.raw.ExecContext(ctx, script); err != nil {
			return fmt.Errorf("migrate schema to version %d: %w", v+1, err)
		}
	}
	// PRAGMA takes no bind parameters; v is an int we control.
	if _, err := tx.ExecContext(ctx, fmt.Sprintf("PRAGMA user_version = %d", v)); err != nil {
		return fmt.Errorf("set schema version: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("commit migration: %w", err)
	}
	return nil
}

func newerSchemaError(v int) error {
	return fmt.Errorf("schema version %d is newer than this sledge knows (%d): upgrade sledge", v, SchemaVersion)
}

func userVersion(ctx context.Context, q queryer) (int, error) {
	var v int
	if err := q.QueryRowContext(ctx, "PRAGMA user_version").Scan(&v); err != nil {
		return 0, fmt.Errorf("read schema version: %w", err)
	}
	return v, nil
}
