// Package jobs is Sledge's jobs repository: a SQLite file, or a PostgreSQL
// database for a team, that keeps every build, run, check and drop with its
// settings, console output, interval series and typed results, so that runs
// can be listed, shown and compared later without re-parsing text. Both
// hold the same typed schema and are served by the same methods (see
// dialect.go for what differs).
//
// Several sledge processes may write the same repository at once. A SQLite
// file is in WAL mode, writers wait for the write lock (busy timeout), and
// write transactions take that lock up front. In PostgreSQL, processes on
// several machines may write; a write transaction locks the row of the job
// it changes, so writers of one job take turns. No password is ever stored:
// targets and settings are redacted on the way in.
package jobs

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	_ "modernc.org/sqlite" // registers the "sqlite" database/sql driver

	"github.com/sledge-bench/sledge/internal/config"
	"github.com/sledge-bench/sledge/internal/metrics"
)

// Job kinds: the job spec's (config.Kind*).
const (
	KindBuild = config.KindBuild
	KindRun   = config.KindRun
	KindCheck = config.KindCheck
	KindDrop  = config.KindDrop
)

// Statuses lists every job status.
var Statuses = []string{metrics.StatusRunning, metrics.StatusCompleted, metrics.StatusDegraded,
	metrics.StatusInterrupted, metrics.StatusFailed, metrics.StatusAbandoned}

// ErrNotFound is matched (errors.Is) by the error for a job id that is not in
// the repository.
var ErrNotFound = errors.New("job not found")

type notFoundError struct{ id int64 }

func (e notFoundError) Error() string        { return fmt.Sprintf("no job %d", e.id) }
func (e notFoundError) Is(target error) bool { return target == ErrNotFound }

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

// Repo is an open jobs repository. It is safe for concurrent use.
type Repo struct {
	db   *repoDB
	d    *dialect
	path string // the SQLite file, or the PostgreSQL URL with its password redacted
	host string // this machine, to tell our own crashed jobs from other hosts' live ones
}

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

// Path is the repository: its file, or its PostgreSQL URL with the password
// redacted.
func (r *Repo) Path() string { return r.path }

// Close closes the repository.
func (r *Repo) Close() error { return r.db.Close() }

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

type queryer interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

func userVersion(ctx context.Context, q queryer) (int, error) {
	var v int
	if err := q.QueryRowContext(ctx, "PRAGMA user_version").Scan(&v); err != nil {
		return 0, fmt.Errorf("read schema version: %w", err)
	}
	return v, nil
}

// Job is one recorded command.
type Job struct {
	ID        int64
	Kind      string // KindBuild, KindRun, …
	Workload  string // e.g. "tprocc"
	DBKind    string
	Target    string // redacted
	DBVersion string
	Status    string // metrics.Status*
	Host      string
	PID       int
	Error     string
	CreatedAt time.Time
	StartedAt time.Time
	EndedAt   time.Time // zero while running

	// Headline is filled by List and Get for jobs with a run result, so a
	// listing needs no query per job. Ignored by Create.
	Headline *Headline
	// GeomeanS is filled by List and Get, in the same query, for TPROC-H
	// runs with a result: the geometric mean of the power test's query
	// times in seconds, NaN when it could not be computed. Ignored by Create.
	GeomeanS *float64
	// PartOf is the series or profile the job belongs to (its settings
	// series, trial, profile and profile_vu), filled by List and Get in the
	// same query; zero when it belongs to none. Ignored by Create.
	PartOf PartOf
}

// PartOf places a job in the series (sledge run --repeat) or profile
// (sledge profile) it belongs to: the first job's id, and its trial
// ("k/n") and step (VUs). Empty fields when it has none.
type PartOf struct {
	Series, Trial, Profile, ProfileVU string
}

// Headline is a run's two headline rates.
type Headline struct {
	NOPM, TPM float64
}

// Duration is how long the job ran (until now for a running job).
func (j Job) Duration() time.Duration {
	if j.StartedAt.IsZero() {
		return 0
	}
	if j.EndedAt.IsZero() {
		return time.Since(j.StartedAt)
	}
	return j.EndedAt.Sub(j.StartedAt)
}

// timeLayout is fixed-width (unlike RFC3339Nano, which trims zeros) so that
// stored times sort as text.
const timeLayout = "2006-01-02T15:04:05.000000000Z07:00"

func fmtTime(t time.Time) string { return t.UTC().Format(timeLayout) }

func parseTime(s string) (time.Time, error) {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("bad time %q in repository: %w", s, err)
	}
	return t, nil
}

// Create records a new running job with its settings and returns its id.
// Host, PID, CreatedAt and StartedAt default to this process and now.
func (r *Repo) Create(ctx context.Context, j Job, config map[string]string) (int64, error) {
	var id int64
	err := r.inTx(ctx, "create job", func(tx *repoTx) error {
		var err error
		id, err = r.create(ctx, tx, j, config)
		return err
	})
	return id, err
}

// create inserts job j with its settings in tx and returns its id.
func (r *Repo) create(ctx context.Context, tx *repoTx, j Job, config map[string]string) (int64, error) {
	if j.Kind == "" {
		return 0, errors.New("no kind")
	}
	now := time.Now()
	if j.Host == "" {
		j.Host = r.host
	}
	if j.PID == 0 {
		j.PID = os.Getpid()
	}
	if j.CreatedAt.IsZero() {
		j.CreatedAt = now
	}
	if j.StartedAt.IsZero() {
		j.StartedAt = j.CreatedAt
	}
	var id int64
	if err := tx.QueryRowContext(ctx, `INSERT INTO job
		(kind, workload, db_kind, target, db_version, status, created_at, started_at, host, pid, error)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, '') RETURNING id`,
		j.Kind, j.Workload, j.DBKind, redactText(j.Target), j.DBVersion, metrics.StatusRunning,
		fmtTime(j.CreatedAt), fmtTime(j.StartedAt), j.Host, j.PID).Scan(&id); err != nil {
		return 0, err
	}
	if err := putKV(ctx, tx, "job_config", id, redactConfig(config)); err != nil {
		return 0, err
	}
	return id, nil
}

// putKV upserts key/value rows into job_config or job_system.
func putKV(ctx context.Context, tx *repoTx, table string, id int64, kv map[string]string) error {
	if len(kv) == 0 {
		return nil
	}
	// table is one of two constants, never user input.
	stmt, err := tx.PrepareContext(ctx, "INSERT INTO "+table+" (job_id, key, value) VALUES (?, ?, ?) "+
		"ON CONFLICT (job_id, key) DO UPDATE SET value = excluded.value")
	if err != nil {
		return err
	}
	defer stmt.Close()
	for k, v := range kv {
		if _, err := stmt.ExecContext(ctx, id, k, v); err != nil {
			return fmt.Errorf("store %s %q: %w", table, k, err)
		}
	}
	return nil
}

// requireJob returns a notFoundError unless job id exists.
func requireJob(ctx context.Context, q queryer, id int64) error {
	var one int
	err := q.QueryRowContext(ctx, "SELECT 1 FROM job WHERE id = ?", id).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return notFoundError{id}
	}
	return err
}

// lockJob is requireJob for a write transaction that goes on to read and
// change what job id holds: on PostgreSQL it also locks the job's row until
// the transaction ends, so that concurrent writers of the job (other
// processes, other machines) take turns. SQLite's write transactions are
// serialised already.
func lockJob(ctx context.Context, tx *repoTx, id int64) error {
	var one int
	err := tx.QueryRowContext(ctx, "SELECT 1 FROM job WHERE id = ?"+tx.d.lockJob, id).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return notFoundError{id}
	}
	return err
}

// SetDBVersion records the database server's version.
func (r *Repo) SetDBVersion(ctx context.Context, id int64, v string) error {
	res, err := r.db.ExecContext(ctx, "UPDATE job SET db_version = ? WHERE id = ?", v, id)
	if err != nil {
		return fmt.Errorf("set database version of job %d: %w", id, err)
	}
	return mustAffect(res, id)
}

func mustAffect(res sql.Result, id int64) error {
	n, err := res.RowsAffected()
	if err != nil {
		return err
	}
	if n == 0 {
		return notFoundError{id}
	}
	return nil
}

// SetSystem records (adds to or replaces) facts about the client machine.
func (r *Repo) SetSystem(ctx context.Context, id int64, kv map[string]string) error {
	return r.inTx(ctx, fmt.Sprintf("set system info of job %d", id), func(tx *repoTx) error {
		if err := lockJob(ctx, tx, id); err != nil {
			return err
		}
		return putKV(ctx, tx, "job_system", id, redactConfig(kv))
	})
}

// inTx runs fn in a write transaction, wrapping its error with what. A fn
// that changes a job's rows begins with lockJob (not requireJob), so that on
// PostgreSQL writers of the job take turns.
func (r *Repo) inTx(ctx context.Context, what string, fn func(*repoTx) error) error {
	tx, err := r.db.BeginTx(ctx, r.d.writeTx)
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	defer tx.Rollback()
	if err := fn(tx); err != nil {
		var nf notFoundError
		if errors.As(err, &nf) {
			return err // "no job N" says it all
		}
		return fmt.Errorf("%s: %w", what, err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	return nil
}

// readTx runs fn in a read-only transaction, so that a reader sees one
// consistent snapshot while another process writes.
func (r *Repo) readTx(ctx context.Context, what string, fn func(*repoTx) error) error {
	tx, err := r.db.BeginTx(ctx, r.d.readTx)
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	defer tx.Rollback()
	if err := fn(tx); err != nil {
		var nf notFoundError
		if errors.As(err, &nf) {
			return err
		}
		return fmt.Errorf("%s: %w", what, err)
	}
	return nil
}

// AppendOutput stores one console line of the job. Id 0 — what callers hold
// when the job could not be recorded — is ignored, so that a repository
// failure at Create does not turn into one warning per line.
func (r *Repo) AppendOutput(ctx context.Context, id int64, line string) error {
	if id == 0 {
		return nil
	}
	if r.d.lockJob != "" {
		// PostgreSQL: concurrent statements would compute the same next
		// seq; the job's row lock makes appenders take turns.
		return r.AppendOutputLines(ctx, id, []OutputLine{{At: time.Now(), Line: line}})
	}
	// One statement: the next seq is computed under the write lock, so
	// concurrent appenders (even in other processes) cannot collide.
	res, err := r.db.ExecContext(ctx, `INSERT INTO job_output (job_id, seq, at, line)
		SELECT ?1, COALESCE((SELECT MAX(seq) FROM job_output WHERE job_id = ?1), 0) + 1, ?2, ?3
		WHERE EXISTS (SELECT 1 FROM job WHERE id = ?1)`,
		id, fmtTime(time.Now()), redactText(line))
	if err != nil {
		return fmt.Errorf("store output of job %d: %w", id, err)
	}
	return mustAffect(res, id)
}

// AppendOutputLines stores console lines of the job in one transaction, each
// with the time it was written (the repository sink batches lines this way
// instead of one INSERT per line). Id 0 is ignored, as for AppendOutput.
func (r *Repo) AppendOutputLines(ctx context.Context, id int64, lines []OutputLine) error {
	if id == 0 || len(lines) == 0 {
		return nil
	}
	return r.inTx(ctx, fmt.Sprintf("store output of job %d", id), func(tx *repoTx) error {
		if err := lockJob(ctx, tx, id); err != nil {
			return err
		}
		var seq int
		if err := tx.QueryRowContext(ctx, "SELECT COALESCE(MAX(seq), 0) FROM job_output WHERE job_id = ?", id).Scan(&seq); err != nil {
			return err
		}
		stmt, err := tx.PrepareContext(ctx, "INSERT INTO job_output (job_id, seq, at, line) VALUES (?, ?, ?, ?)")
		if err != nil {
			return err
		}
		defer stmt.Close()
		for _, l := range lines {
			seq++
			at := l.At
			if at.IsZero() {
				at = time.Now()
			}
			if _, err := stmt.ExecContext(ctx, id, seq, fmtTime(at), redactText(l.Line)); err != nil {
				return err
			}
		}
		return nil
	})
}

// AddConfig records more settings of a job: what it resolved once it
// started (a run's mode, seed, warehouses …). Existing keys are replaced.
func (r *Repo) AddConfig(ctx context.Context, id int64, kv map[string]string) error {
	if id == 0 || len(kv) == 0 {
		return nil
	}
	return r.inTx(ctx, fmt.Sprintf("record settings of job %d", id), func(tx *repoTx) error {
		if err := lockJob(ctx, tx, id); err != nil {
			return err
		}
		return putKV(ctx, tx, "job_config", id, redactConfig(kv))
	})
}

// Finish records how the job ended: status is one of the final statuses
// (completed, degraded, interrupted, failed, abandoned).
func (r *Repo) Finish(ctx context.Context, id int64, status string, errText string) error {
	switch status {
	case metrics.StatusCompleted, metrics.StatusDegraded, metrics.StatusInterrupted, metrics.StatusFailed,
		metrics.StatusAbandoned:
	default:
		return fmt.Errorf("finish job %d: %q is not a final status", id, status)
	}
	res, err := r.db.ExecContext(ctx, "UPDATE job SET status = ?, error = ?, ended_at = ? WHERE id = ?",
		status, redactText(errText), fmtTime(time.Now()), id)
	if err != nil {
		return fmt.Errorf("finish job %d: %w", id, err)
	}
	return mustAffect(res, id)
}

// ListFilter selects jobs for List. Zero values select everything.
type ListFilter struct {
	Kind   string
	Status string
	Limit  int // at most this many, newest first; 0 = all
}

// Validate reports a kind or status that no job can have, and a negative
// limit, as field errors ("kind", "status", "limit") for each front end to
// word.
func (f ListFilter) Validate() error {
	var errs config.FieldErrors
	for _, c := range []struct {
		field, value string
		valid        []string
	}{{"kind", f.Kind, config.Kinds}, {"status", f.Status, Statuses}} {
		if c.value != "" && !slices.Contains(c.valid, c.value) {
			errs = append(errs, config.FieldError{Field: c.field,
				Msg: fmt.Sprintf("%s %q: want one of %s", c.field, c.value, strings.Join(c.valid, ", "))})
		}
	}
	if f.Limit < 0 {
		errs = append(errs, config.FieldError{Field: "limit", Msg: fmt.Sprintf("limit %d: want 0 (all) or more", f.Limit)})
	}
	if len(errs) == 0 {
		return nil
	}
	return errs
}

const jobColumns = `j.id, j.kind, j.workload, j.db_kind, j.target, j.db_version, j.status,
	j.created_at, j.started_at, j.ended_at, j.host, j.pid, j.error, r.job_id IS NOT NULL, r.nopm, r.tpm,
	h.job_id IS NOT NULL, h.geomean_s,
	COALESCE(cs.value, ''), COALESCE(ct.value, ''), COALESCE(cp.value, ''), COALESCE(cv.value, '')`

// jobFrom joins a job's headline figures and the settings that place it in
// a series or profile (job_config's primary key makes each join one row).
const jobFrom = ` FROM job j LEFT JOIN job_result r ON r.job_id = j.id LEFT JOIN job_tproch_result h ON h.job_id = j.id
	LEFT JOIN job_config cs ON cs.job_id = j.id AND cs.key = 'series'
	LEFT JOIN job_config ct ON ct.job_id = j.id AND ct.key = 'trial'
	LEFT JOIN job_config cp ON cp.job_id = j.id AND cp.key = 'profile'
	LEFT JOIN job_config cv ON cv.job_id = j.id AND cv.key = 'profile_vu'`

type scanner interface{ Scan(dest ...any) error }

func scanJob(s scanner) (Job, error) {
	var (
		j                Job
		created, started string
		ended            sql.NullString
		hasResult        bool
		nopm, tpm        float64
		hasAnalytic      bool
		geomean          float64
	)
	if err := s.Scan(&j.ID, &j.Kind, &j.Workload, &j.DBKind, &j.Target, &j.DBVersion, &j.Status,
		&created, &started, &ended, &j.Host, &j.PID, &j.Error, &hasResult, nanFloat{&nopm}, nanFloat{&tpm},
		&hasAnalytic, nanFloat{&geomean},
		&j.PartOf.Series, &j.PartOf.Trial, &j.PartOf.Profile, &j.PartOf.ProfileVU); err != nil {
		return Job{}, err
	}
	var err error
	if j.CreatedAt, err = parseTime(created); err != nil {
		return Job{}, err
	}
	if j.StartedAt, err = parseTime(started); err != nil {
		return Job{}, err
	}
	if ended.Valid {
		if j.EndedAt, err = parseTime(ended.String); err != nil {
			return Job{}, err
		}
	}
	if hasResult {
		j.Headline = &Headline{NOPM: nopm, TPM: tpm}
	}
	if hasAnalytic {
		j.GeomeanS = &geomean
	}
	return j, nil
}

// List returns jobs newest first. Jobs of this host whose process died are
// marked abandoned first, so that they are listed (and filtered) as such.
func (r *Repo) List(ctx context.Context, f ListFilter) ([]Job, error) {
	if err := r.reapAbandoned(ctx, 0); err != nil {
		return nil, err
	}
	q := "SELECT " + jobColumns + jobFrom + " WHERE 1=1"
	var args []any
	if f.Kind != "" {
		q += " AND j.kind = ?"
		args = append(args, f.Kind)
	}
	if f.Status != "" {
		q += " AND j.status = ?"
		args = append(args, f.Status)
	}
	// Ids are allocated in creation order (AUTOINCREMENT in SQLite, an
	// identity column in PostgreSQL), which unlike
	// timestamps does not depend on the clocks of the hosts involved.
	q += " ORDER BY j.id DESC"
	if f.Limit > 0 {
		q += " LIMIT ?"
		args = append(args, f.Limit)
	}
	rows, err := r.db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("list jobs: %w", err)
	}
	defer rows.Close()
	var out []Job
	for rows.Next() {
		j, err := scanJob(rows)
		if err != nil {
			return nil, fmt.Errorf("list jobs: %w", err)
		}
		out = append(out, j)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list jobs: %w", err)
	}
	return out, nil
}

// Get returns one job; an unknown id gives an error matching ErrNotFound.
func (r *Repo) Get(ctx context.Context, id int64) (Job, error) {
	if err := r.reapAbandoned(ctx, id); err != nil {
		return Job{}, err
	}
	j, err := scanJob(r.db.QueryRowContext(ctx, "SELECT "+jobColumns+jobFrom+" WHERE j.id = ?", id))
	if errors.Is(err, sql.ErrNoRows) {
		return Job{}, notFoundError{id}
	}
	if err != nil {
		return Job{}, fmt.Errorf("get job %d: %w", id, err)
	}
	return j, nil
}

// reapAbandoned marks as abandoned the running jobs (all of them, or only job
// id if non-zero) whose process on this host no longer exists: a crashed or
// killed sledge never calls Finish. Jobs of other hosts are left alone, as
// their processes cannot be checked from here. A pid reused by an unrelated
// process keeps a dead job "running" until that process ends too; that errs
// on the side of not declaring a live job dead.
func (r *Repo) reapAbandoned(ctx context.Context, id int64) error {
	// A group run's job is recorded by its first agent but ended by
	// whichever merges: it is judged by all its agents (reapGroups).
	q := "SELECT id, pid FROM job WHERE status = ? AND host = ? AND id NOT IN (SELECT job_id FROM run_group)"
	args := []any{metrics.StatusRunning, r.host}
	if id != 0 {
		q += " AND id = ?"
		args = append(args, id)
	}
	rows, err := r.db.QueryContext(ctx, q, args...)
	if err != nil {
		return fmt.Errorf("find abandoned jobs: %w", err)
	}
	type cand struct {
		id  int64
		pid int
	}
	var dead []cand
	for rows.Next() {
		var c cand
		if err := rows.Scan(&c.id, &c.pid); err != nil {
			rows.Close()
			return fmt.Errorf("find abandoned jobs: %w", err)
		}
		if c.pid != os.Getpid() && !processAlive(c.pid) {
			dead = append(dead, c)
		}
	}
	err = rows.Err()
	rows.Close() // before writing: the pool may have a single connection to spare
	if err != nil {
		return fmt.Errorf("find abandoned jobs: %w", err)
	}
	for _, c := range dead {
		if err := r.markAbandoned(ctx, c.id, fmt.Sprintf("process %d on %s ended without finishing the job", c.pid, r.host)); err != nil {
			return err
		}
	}
	return r.reapGroups(ctx, id)
}

// markAbandoned records that running job id was abandoned, why.
func (r *Repo) markAbandoned(ctx context.Context, id int64, why string) error {
	// The job ended, at the latest, with its last output line. The status
	// condition keeps a Finish that raced us authoritative.
	_, err := r.db.ExecContext(ctx, `UPDATE job SET status = ?1, error = ?2,
		ended_at = COALESCE((SELECT MAX(at) FROM job_output WHERE job_id = ?3), started_at)
		WHERE id = ?3 AND status = ?4`,
		metrics.StatusAbandoned, why, id, metrics.StatusRunning)
	if err != nil {
		return fmt.Errorf("mark job %d abandoned: %w", id, err)
	}
	return nil
}

// reapGroups marks as abandoned the running group runs (all, or only job id
// if non-zero) whose agents all ran on this host and have all died: no
// agent is left to merge and end the job. A group with an agent on another
// host is left alone, as for a job of another host.
func (r *Repo) reapGroups(ctx context.Context, id int64) error {
	q := "SELECT j.id FROM job j JOIN run_group g ON g.job_id = j.id WHERE j.status = ?"
	args := []any{metrics.StatusRunning}
	if id != 0 {
		q += " AND j.id = ?"
		args = append(args, id)
	}
	var ids []int64
	rows, err := r.db.QueryContext(ctx, q, args...)
	if err != nil {
		return fmt.Errorf("find abandoned group runs: %w", err)
	}
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return fmt.Errorf("find abandoned group runs: %w", err)
		}
		ids = append(ids, id)
	}
	err = rows.Err()
	rows.Close()
	if err != nil {
		return fmt.Errorf("find abandoned group runs: %w", err)
	}
	for _, id := range ids {
		agents, err := r.Agents(ctx, id)
		if err != nil {
			return err
		}
		dead := len(agents) > 0
		var pids []string
		for _, a := range agents {
			if a.Host != r.host || a.PID == os.Getpid() || processAlive(a.PID) {
				dead = false
				break
			}
			pids = append(pids, strconv.Itoa(a.PID))
		}
		if dead {
			why := fmt.Sprintf("every agent of the run (processes %s on %s) ended without finishing the job", strings.Join(pids, ", "), r.host)
			if err := r.markAbandoned(ctx, id, why); err != nil {
				return err
			}
		}
	}
	return nil
}

// childTables are deleted explicitly by Delete, children before parents, so
// that deleting works even on a connection without foreign keys enforced.
var childTables = []string{
	"job_agent_interval_vu", "job_agent_interval_tx", "job_agent_interval", "job_agent", "run_group",
	"job_wait", "job_statement", "job_counter", "job_observed", "job_setting", "job_observer_note", "job_observer",
	"job_interval_tx", "job_interval_vu", "job_interval", "job_timing", "job_error", "job_retry", "job_audit", "job_result",
	"job_outage_lost", "job_outage", "job_connection_event", "job_idle_interval", "job_monitor_gap", "job_disruption",
	"job_tproch_query", "job_tproch_refresh", "job_tproch_result",
	"job_load", "job_stage",
	"job_build_table", "job_build", "job_check", "job_output", "job_system", "job_config",
}

// Delete removes a job and everything recorded with it.
func (r *Repo) Delete(ctx context.Context, id int64) error {
	return r.inTx(ctx, fmt.Sprintf("delete job %d", id), func(tx *repoTx) error {
		if err := lockJob(ctx, tx, id); err != nil {
			return err
		}
		for _, t := range childTables {
			if _, err := tx.ExecContext(ctx, "DELETE FROM "+t+" WHERE job_id = ?", id); err != nil {
				return fmt.Errorf("delete from %s: %w", t, err)
			}
		}
		_, err := tx.ExecContext(ctx, "DELETE FROM job WHERE id = ?", id)
		return err
	})
}

// Config returns the job's settings (redacted when stored).
func (r *Repo) Config(ctx context.Context, id int64) (map[string]string, error) {
	return r.kv(ctx, "job_config", id)
}

// System returns what was recorded about the client machine.
func (r *Repo) System(ctx context.Context, id int64) (map[string]string, error) {
	return r.kv(ctx, "job_system", id)
}

func (r *Repo) kv(ctx context.Context, table string, id int64) (map[string]string, error) {
	var out map[string]string
	err := r.readTx(ctx, fmt.Sprintf("read %s of job %d", strings.TrimPrefix(table, "job_"), id), func(tx *repoTx) error {
		if err := requireJob(ctx, tx, id); err != nil {
			return err
		}
		var err error
		out, err = kvIn(ctx, tx, table, id)
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// JobsWithSetting lists, oldest first, the jobs whose setting key has value
// (the trials of a series: "series", the first trial's id).
func (r *Repo) JobsWithSetting(ctx context.Context, key, value string) ([]int64, error) {
	var ids []int64
	err := r.readTx(ctx, fmt.Sprintf("find the jobs with %s %s", key, value), func(tx *repoTx) error {
		rows, err := tx.QueryContext(ctx, "SELECT job_id FROM job_config WHERE key = ? AND value = ? ORDER BY job_id", key, value)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var id int64
			if err := rows.Scan(&id); err != nil {
				return err
			}
			ids = append(ids, id)
		}
		return rows.Err()
	})
	return ids, err
}

// kvIn reads job id's key/value rows of table (job_config or job_system)
// in tx.
func kvIn(ctx context.Context, tx *repoTx, table string, id int64) (map[string]string, error) {
	out := map[string]string{}
	rows, err := tx.QueryContext(ctx, "SELECT key, value FROM "+table+" WHERE job_id = ?", id)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var k, v string
		if err := rows.Scan(&k, &v); err != nil {
			return nil, err
		}
		out[k] = v
	}
	return out, rows.Err()
}

// OutputLine is one stored console line.
type OutputLine struct {
	Seq  int
	At   time.Time
	Line string
}

// Output returns the job's console lines in order.
func (r *Repo) Output(ctx context.Context, id int64) ([]OutputLine, error) {
	var out []OutputLine
	err := r.readTx(ctx, fmt.Sprintf("read output of job %d", id), func(tx *repoTx) error {
		if err := requireJob(ctx, tx, id); err != nil {
			return err
		}
		rows, err := tx.QueryContext(ctx, "SELECT seq, at, line FROM job_output WHERE job_id = ? ORDER BY seq", id)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var (
				l  OutputLine
				at string
			)
			if err := rows.Scan(&l.Seq, &at, &l.Line); err != nil {
				return err
			}
			if l.At, err = parseTime(at); err != nil {
				return err
			}
			out = append(out, l)
		}
		return rows.Err()
	})
	return out, err
}
