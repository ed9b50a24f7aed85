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

// The repository handle (Repo), the error for a missing job, how times are
// stored, and the transactions the methods run in. Opening and migrating a
// repository is in open.go; jobs are created and ended in job.go, read in
// list.go, and their settings and output are in settings.go and output.go.

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync"
	"time"
)

// ErrNotFound is matched (errors.Is) by the error for a job id that is not in
// the repository.
var ErrNotFound = errors.New("job not found")

type notFoundError struct{ id int64 }

func (e notFoundError) Error() string        { return fmt.Sprintf("no job %d", e.id) }
func (e notFoundError) Is(target error) bool { return target == ErrNotFound }

// Repo is an open jobs repository. It is safe for concurrent use.
type Repo struct {
	db   *repoDB
	d    *dialect
	path string // the SQLite file, or the PostgreSQL URL with its password redacted
	host string // this machine, to tell our own crashed jobs from other hosts' live ones

	mu      sync.Mutex
	spooled map[int64]bool // jobs with a spool still to hand in (KeepSpooled): never abandoned
}

// Path is the repository: its file, or its PostgreSQL URL with the password
// redacted.
func (r *Repo) Path() string { return r.path }

// Close closes the repository.
func (r *Repo) Close() error { return r.db.Close() }

type queryer interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
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
//
// An imported job is read-only: lockJob refuses it with an *ImportedError,
// so that every write of a job's rows refuses it in one place.
func lockJob(ctx context.Context, tx *repoTx, id int64) error {
	imported, err := lockAnyJob(ctx, tx, id)
	if err == nil && imported {
		return &ImportedError{ID: id}
	}
	return err
}

// lockAnyJob is lockJob for a write that is allowed on an imported job
// too (Delete), saying whether the job is one.
func lockAnyJob(ctx context.Context, tx *repoTx, id int64) (imported bool, err error) {
	var n int
	err = tx.QueryRowContext(ctx, "SELECT (SELECT count(*) FROM job_origin o WHERE o.job_id = job.id) FROM job WHERE id = ?"+tx.d.lockJob, id).Scan(&n)
	if errors.Is(err, sql.ErrNoRows) {
		return false, notFoundError{id}
	}
	return n > 0, err
}

// refuseImported turns a write that changed no row of job id into the
// error that says why: *ImportedError for an imported job, else
// notFoundError. For the writes that are one statement (their WHERE
// excludes imported jobs) rather than a transaction that begins with
// lockJob.
func refuseImported(ctx context.Context, q queryer, res sql.Result, id int64) error {
	n, err := res.RowsAffected()
	if err != nil || n > 0 {
		return err
	}
	var imported int
	err = q.QueryRowContext(ctx, "SELECT count(*) FROM job_origin WHERE job_id = ?", id).Scan(&imported)
	if err != nil {
		return err
	}
	if imported > 0 {
		return &ImportedError{ID: id}
	}
	return notFoundError{id}
}

// notImported ends the WHERE of a one-statement write of table job.
const notImported = " AND NOT EXISTS (SELECT 1 FROM job_origin o WHERE o.job_id = job.id)"

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
		var ie *ImportedError
		var de *DuplicateError
		if errors.As(err, &nf) || errors.As(err, &ie) || errors.As(err, &de) {
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
