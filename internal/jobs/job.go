package jobs

// A job's record: the Job type, its kinds and statuses, and creating,
// finishing and deleting it.

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

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
	// SchemaFailure is, for a job that failed on its workload's schema,
	// what it found; zero for every other job.
	SchemaFailure SchemaFailure
	CreatedAt     time.Time
	StartedAt     time.Time
	EndedAt       time.Time // zero while running

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
	// Origin is where an imported job was recorded (sledge jobs import),
	// filled by List and Get; nil for a job recorded here. An imported job
	// is read-only. Ignored by Create.
	Origin *Origin
}

// PartOf places a job in the series (sledge run --repeat) or profile
// (sledge profile) it belongs to: the first job's id, and its trial
// ("k/n") and step (VUs). Empty fields when it has none.
type PartOf struct {
	Series, Trial, Profile, ProfileVU string
}

// Headline is a run's two headline rates, and the New-Orders per minute
// the database counted over the window (the cross-check's; NaN when the
// run could not count them), which HammerDB reports as NOPM.
type Headline struct {
	NOPM, TPM   float64
	NOPMDBCheck float64
}

// SchemaFailure is what a job that failed on its workload's schema found
// (a workload.SchemaError, which the job's error text no longer is once
// stored), so that a front end reading the job, the remote client, words it
// as the front end that ran it would.
type SchemaFailure struct {
	Kind     string // workload.SchemaError.Kind: "schema_exists", "no_schema", "schema_unusable"
	Workload string // the workload's registered name
	Holds    string // for "no_schema": the workload whose schema the database holds, if it looked
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

// SetDBVersion records the database server's version.
func (r *Repo) SetDBVersion(ctx context.Context, id int64, v string) error {
	res, err := r.db.ExecContext(ctx, "UPDATE job SET db_version = ? WHERE id = ?"+notImported, v, id)
	if err != nil {
		return fmt.Errorf("set database version of job %d: %w", id, err)
	}
	return refuseImported(ctx, r.db, res, id)
}

// Finish records how the job ended: status is one of the final statuses
// (completed, degraded, interrupted, failed, abandoned).
func (r *Repo) Finish(ctx context.Context, id int64, status string, errText string) error {
	return r.FinishSchema(ctx, id, status, errText, SchemaFailure{})
}

// FinishSchema records how the job ended as Finish does, with what a job
// that failed on its workload's schema found (Job.SchemaFailure).
func (r *Repo) FinishSchema(ctx context.Context, id int64, status string, errText string, sf SchemaFailure) error {
	switch status {
	case metrics.StatusCompleted, metrics.StatusDegraded, metrics.StatusInterrupted, metrics.StatusFailed,
		metrics.StatusAbandoned:
	default:
		return fmt.Errorf("finish job %d: %q is not a final status", id, status)
	}
	res, err := r.db.ExecContext(ctx, `UPDATE job SET status = ?, error = ?, ended_at = ?,
		schema_error = ?, schema_error_workload = ?, schema_error_holds = ? WHERE id = ?`+notImported,
		status, redactText(errText), fmtTime(time.Now()), sf.Kind, sf.Workload, sf.Holds, id)
	if err != nil {
		return fmt.Errorf("finish job %d: %w", id, err)
	}
	return refuseImported(ctx, r.db, res, id)
}

// childTables are deleted explicitly by Delete, children before parents, so
// that deleting works even on a connection without foreign keys enforced.
var childTables = []string{
	"job_agent_interval_vu", "job_agent_interval_tx", "job_agent_interval", "job_agent", "run_group",
	"job_wait", "job_statement", "job_counter", "job_observed", "job_setting", "job_observer_note", "job_observer",
	"job_interval_tx", "job_interval_vu", "job_interval", "job_interval_missing", "job_timing", "job_error", "job_retry", "job_audit", "job_result",
	"job_outage_lost", "job_outage", "job_connection_event", "job_idle_interval", "job_monitor_gap", "job_stall", "job_disruption",
	"job_tproch_query", "job_tproch_refresh", "job_tproch_result",
	"job_load", "job_stage", "job_vu_timing", "job_threshold", "job_mixed_query_hist", "job_mixed_query", "job_mixed_tx", "job_mixed", "job_script_command",
	"job_build_table", "job_build", "job_check", "job_output", "job_system", "job_config", "job_origin",
}

// RunningError is a running job that DeleteStopped would not delete.
type RunningError struct {
	ID   int64
	PID  int
	Host string
}

func (e *RunningError) Error() string {
	return fmt.Sprintf("job %d is still running (pid %d on %s)", e.ID, e.PID, e.Host)
}

// DeleteStopped deletes a job as Delete does, unless it is still running
// (a *RunningError) and not forced. Its status is read first (Get), which
// turns the job of a process that has died into an abandoned one, deleted.
func (r *Repo) DeleteStopped(ctx context.Context, id int64, force bool) error {
	j, err := r.Get(ctx, id)
	if err != nil {
		return err
	}
	if j.Status == metrics.StatusRunning && !force {
		return &RunningError{ID: id, PID: j.PID, Host: j.Host}
	}
	return r.Delete(ctx, id)
}

// Delete removes a job and everything recorded with it.
func (r *Repo) Delete(ctx context.Context, id int64) error {
	return r.inTx(ctx, fmt.Sprintf("delete job %d", id), func(tx *repoTx) error {
		if _, err := lockAnyJob(ctx, tx, id); err != nil {
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
