package jobs

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/sledge-bench/sledge/internal/threshold"
)

// SaveThresholds stores a run's thresholds with their verdicts, in order,
// replacing any earlier ones.
func (r *Repo) SaveThresholds(ctx context.Context, id int64, vs []threshold.Verdict) error {
	return r.inTx(ctx, fmt.Sprintf("store thresholds of job %d", id), func(tx *repoTx) error {
		if err := lockJob(ctx, tx, id); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, "DELETE FROM job_threshold WHERE job_id = ?", id); err != nil {
			return err
		}
		for i, v := range vs {
			var value any
			if v.HasValue {
				value = v.Value
			}
			if _, err := tx.ExecContext(ctx, `INSERT INTO job_threshold (job_id, ord, threshold, metric, name, op,
				limit_value, unit, value, passed, note) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
				id, i, v.Text, v.Metric, v.Name, v.Op, v.Limit, v.Unit, value, v.Pass, v.Note); err != nil {
				return fmt.Errorf("threshold %s: %w", v.Text, err)
			}
		}
		return nil
	})
}

// Thresholds returns a run's thresholds with their verdicts, in order
// (none when the job has none).
func (r *Repo) Thresholds(ctx context.Context, id int64) ([]threshold.Verdict, error) {
	var out []threshold.Verdict
	err := r.readTx(ctx, fmt.Sprintf("read thresholds of job %d", id), func(tx *repoTx) error {
		if err := requireJob(ctx, tx, id); err != nil {
			return err
		}
		rows, err := tx.QueryContext(ctx, `SELECT threshold, metric, name, op, limit_value, unit, value, passed, note
			FROM job_threshold WHERE job_id = ? ORDER BY ord`, id)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var (
				v     threshold.Verdict
				value sql.NullFloat64
			)
			if err := rows.Scan(&v.Text, &v.Metric, &v.Name, &v.Op, &v.Limit, &v.Unit, &value, &v.Pass, &v.Note); err != nil {
				return err
			}
			v.Value, v.HasValue = value.Float64, value.Valid
			out = append(out, v)
		}
		return rows.Err()
	})
	return out, err
}
