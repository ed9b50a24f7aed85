package jobs

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"github.com/sledge-bench/sledge/internal/metrics"
)

// SaveAnalyticResult stores a TPROC-H run's result, replacing any earlier
// result of the job.
func (r *Repo) SaveAnalyticResult(ctx context.Context, id int64, res *metrics.AnalyticResult) error {
	if res == nil {
		return fmt.Errorf("store result of job %d: no result", id)
	}
	return r.inTx(ctx, fmt.Sprintf("store result of job %d", id), func(tx *repoTx) error {
		if err := lockJob(ctx, tx, id); err != nil {
			return err
		}
		for _, t := range []string{"job_tproch_result", "job_tproch_query", "job_tproch_refresh"} {
			if _, err := tx.ExecContext(ctx, "DELETE FROM "+t+" WHERE job_id = ?", id); err != nil {
				return err
			}
		}
		warnings := make([]string, len(res.Warnings))
		for i, w := range res.Warnings {
			warnings[i] = redactText(strings.ReplaceAll(w, "\n", " "))
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO job_tproch_result (job_id, status, scale_factor, streams,
			query_sets, seed, refresh, validation, validated, power_s, throughput_s, ts_s, geomean_s, power, throughput,
			composite, warnings) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			id, res.Status, res.SF, res.Streams, res.QuerySets, res.Seed, res.Refresh, res.Validation, res.Validated,
			res.PowerSeconds, res.ThroughputSeconds, nullNaN(res.TsS), nullNaN(res.GeomeanS), nullNaN(res.Power),
			nullNaN(res.Throughput), nullNaN(res.Composite), strings.Join(warnings, "\n")); err != nil {
			return err
		}
		for i, q := range res.Queries {
			if _, err := tx.ExecContext(ctx, `INSERT INTO job_tproch_query (job_id, ord, stream, position, qset,
				query, seconds, rows, error, answer_check) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
				id, i, q.Stream, q.Position, q.Set, q.Query, q.Seconds, q.Rows, nullEmpty(redactText(q.Error)), q.Check); err != nil {
				return fmt.Errorf("query %d of stream %d: %w", q.Query, q.Stream, err)
			}
		}
		for i, f := range res.Refreshes {
			if _, err := tx.ExecContext(ctx, `INSERT INTO job_tproch_refresh (job_id, ord, stream, set_no,
				function, seconds, rows, error) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
				id, i, f.Stream, f.Set, f.Function, f.Seconds, f.Rows, nullEmpty(redactText(f.Error))); err != nil {
				return fmt.Errorf("%s of stream %d: %w", f.Function, f.Stream, err)
			}
		}
		return nil
	})
}

func nullEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// AnalyticResult returns the stored TPROC-H result of a job, or nil (and no
// error) when it has none.
func (r *Repo) AnalyticResult(ctx context.Context, id int64) (*metrics.AnalyticResult, error) {
	var res *metrics.AnalyticResult
	err := r.readTx(ctx, fmt.Sprintf("read result of job %d", id), func(tx *repoTx) error {
		if err := requireJob(ctx, tx, id); err != nil {
			return err
		}
		x := &metrics.AnalyticResult{}
		var warnings string
		err := tx.QueryRowContext(ctx, `SELECT status, scale_factor, streams, query_sets, seed, refresh, validation,
			validated, power_s, throughput_s, ts_s, geomean_s, power, throughput, composite, warnings
			FROM job_tproch_result WHERE job_id = ?`, id).Scan(&x.Status, &x.SF, &x.Streams, &x.QuerySets, &x.Seed,
			&x.Refresh, &x.Validation, &x.Validated, &x.PowerSeconds, &x.ThroughputSeconds, nanFloat{&x.TsS}, nanFloat{&x.GeomeanS},
			nanFloat{&x.Power}, nanFloat{&x.Throughput}, nanFloat{&x.Composite}, &warnings)
		if errors.Is(err, sql.ErrNoRows) {
			return nil
		}
		if err != nil {
			return err
		}
		if warnings != "" {
			x.Warnings = strings.Split(warnings, "\n")
		}
		rows, err := tx.QueryContext(ctx, `SELECT stream, position, qset, query, seconds, rows, coalesce(error, ''), answer_check
			FROM job_tproch_query WHERE job_id = ? ORDER BY ord`, id)
		if err != nil {
			return err
		}
		for rows.Next() {
			var q metrics.AnalyticQuery
			if err := rows.Scan(&q.Stream, &q.Position, &q.Set, &q.Query, &q.Seconds, &q.Rows, &q.Error, &q.Check); err != nil {
				rows.Close()
				return err
			}
			x.Queries = append(x.Queries, q)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		rows, err = tx.QueryContext(ctx, `SELECT stream, set_no, function, seconds, rows, coalesce(error, '')
			FROM job_tproch_refresh WHERE job_id = ? ORDER BY ord`, id)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var f metrics.AnalyticRefresh
			if err := rows.Scan(&f.Stream, &f.Set, &f.Function, &f.Seconds, &f.Rows, &f.Error); err != nil {
				return err
			}
			x.Refreshes = append(x.Refreshes, f)
		}
		if err := rows.Err(); err != nil {
			return err
		}
		res = x
		return nil
	})
	return res, err
}
