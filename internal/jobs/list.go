package jobs

// Reading jobs: List and Get (with each job's headline figures and its
// series or profile in the same query), after marking as abandoned the
// running jobs of this host whose processes died.

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/sledge-bench/sledge/internal/config"
	"github.com/sledge-bench/sledge/internal/metrics"
)

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
	j.created_at, j.started_at, j.ended_at, j.host, j.pid, j.error,
	j.schema_error, j.schema_error_workload, j.schema_error_holds, r.job_id IS NOT NULL, r.nopm, r.tpm, r.nopm_db_check,
	h.job_id IS NOT NULL, h.geomean_s,
	COALESCE(cs.value, ''), COALESCE(ct.value, ''), COALESCE(cp.value, ''), COALESCE(cv.value, ''),
	o.origin_id, o.host, o.repository, o.sledge_version, o.exported_at, o.imported_at`

// jobFrom joins a job's headline figures and the settings that place it in
// a series or profile (job_config's primary key makes each join one row).
const jobFrom = ` FROM job j LEFT JOIN job_result r ON r.job_id = j.id LEFT JOIN job_tproch_result h ON h.job_id = j.id
	LEFT JOIN job_config cs ON cs.job_id = j.id AND cs.key = 'series'
	LEFT JOIN job_config ct ON ct.job_id = j.id AND ct.key = 'trial'
	LEFT JOIN job_config cp ON cp.job_id = j.id AND cp.key = 'profile'
	LEFT JOIN job_config cv ON cv.job_id = j.id AND cv.key = 'profile_vu'
	LEFT JOIN job_origin o ON o.job_id = j.id`

type scanner interface{ Scan(dest ...any) error }

func scanJob(s scanner) (Job, error) {
	var (
		j                 Job
		created, started  string
		ended             sql.NullString
		hasResult         bool
		nopm, tpm, dbNOPM float64
		hasAnalytic       bool
		geomean           float64
		originID          sql.NullInt64
		oHost, oRepo      sql.NullString
		oVersion          sql.NullString
		oExported, oAt    sql.NullString
	)
	if err := s.Scan(&j.ID, &j.Kind, &j.Workload, &j.DBKind, &j.Target, &j.DBVersion, &j.Status,
		&created, &started, &ended, &j.Host, &j.PID, &j.Error,
		&j.SchemaFailure.Kind, &j.SchemaFailure.Workload, &j.SchemaFailure.Holds, &hasResult, nanFloat{&nopm}, nanFloat{&tpm}, nanFloat{&dbNOPM},
		&hasAnalytic, nanFloat{&geomean},
		&j.PartOf.Series, &j.PartOf.Trial, &j.PartOf.Profile, &j.PartOf.ProfileVU,
		&originID, &oHost, &oRepo, &oVersion, &oExported, &oAt); err != nil {
		return Job{}, err
	}
	// Stored redacted; again, for a repository an older Sledge wrote.
	j.Target, j.Error = redactText(j.Target), redactText(j.Error)
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
		j.Headline = &Headline{NOPM: nopm, TPM: tpm, NOPMDBCheck: dbNOPM}
	}
	if hasAnalytic {
		j.GeomeanS = &geomean
	}
	if originID.Valid {
		o := &Origin{ID: originID.Int64, Host: oHost.String, Repository: oRepo.String, SledgeVersion: oVersion.String}
		if o.ExportedAt, err = parseTime(oExported.String); err != nil {
			return Job{}, err
		}
		if o.ImportedAt, err = parseTime(oAt.String); err != nil {
			return Job{}, err
		}
		j.Origin = o
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
// on the side of not declaring a live job dead. A job with a spool still to
// hand in (KeepSpooled) is not abandoned: its hand-in ends it.
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
		if c.pid != os.Getpid() && !processAlive(c.pid) && !r.isSpooled(c.id) {
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
		if r.isSpooled(id) {
			continue // an agent's spool is still to be handed in
		}
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
