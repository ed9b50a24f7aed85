package jobs

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/sledge-bench/sledge/internal/metrics"
)

// saveLoad stores a run's load account and stages (none for a closed-loop
// run without stages).
func saveLoad(ctx context.Context, tx *repoTx, id int64, res *metrics.RunResult) error {
	if l := res.Load; l != nil {
		if _, err := tx.ExecContext(ctx, `INSERT INTO job_load (job_id, model, terminals, connections,
			asked_rate, achieved_rate, scheduled, dropped, max_queue, lag_p50_us, lag_p99_us, lag_max_us, late, skip_late_us, skipped)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			id, l.Model, l.Terminals, l.Connections, l.AskedRate, l.AchievedRate, l.Scheduled, l.Dropped,
			l.MaxQueue, us(l.LagP50), us(l.LagP99), us(l.LagMax), l.Late, l.SkipLate.Microseconds(), l.Skipped); err != nil {
			return err
		}
	}
	for _, st := range res.Stages {
		if _, err := tx.ExecContext(ctx, `INSERT INTO job_stage (job_id, stage, target, start_s, end_s,
			commits, new_orders, errors, tpm, nopm, p50_us, p95_us, p99_us, lag_p99_us)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			id, st.Stage, st.Target, secs(st.Start), secs(st.End), st.Commits, st.NewOrders, st.Errors,
			nullNaN(st.TPM), nullNaN(st.NOPM), us(st.P50), us(st.P95), us(st.P99), us(st.LagP99)); err != nil {
			return err
		}
	}
	return nil
}

// readLoad reads a run's load account and stages into res.
func readLoad(ctx context.Context, tx *repoTx, id int64, res *metrics.RunResult) error {
	var (
		p50, p99, maxLag float64
		skipLate         int64
		x                metrics.LoadResult
	)
	err := tx.QueryRowContext(ctx, `SELECT model, terminals, connections, asked_rate, achieved_rate, scheduled,
		dropped, max_queue, lag_p50_us, lag_p99_us, lag_max_us, late, skip_late_us, skipped FROM job_load WHERE job_id = ?`, id).Scan(
		&x.Model, &x.Terminals, &x.Connections, &x.AskedRate, &x.AchievedRate, &x.Scheduled, &x.Dropped,
		&x.MaxQueue, &p50, &p99, &maxLag, &x.Late, &skipLate, &x.Skipped)
	switch {
	case errors.Is(err, sql.ErrNoRows):
	case err != nil:
		return err
	default:
		x.LagP50, x.LagP99, x.LagMax = fromUS(p50), fromUS(p99), fromUS(maxLag)
		x.SkipLate = time.Duration(skipLate) * time.Microsecond
		res.Load = &x
	}
	rows, err := tx.QueryContext(ctx, `SELECT stage, target, start_s, end_s, commits, new_orders, errors, tpm, nopm,
		p50_us, p95_us, p99_us, lag_p99_us FROM job_stage WHERE job_id = ? ORDER BY stage`, id)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var (
			st                             metrics.StageResult
			start, end, p50, p95, p99, lag float64
		)
		if err := rows.Scan(&st.Stage, &st.Target, &start, &end, &st.Commits, &st.NewOrders, &st.Errors,
			nanFloat{&st.TPM}, nanFloat{&st.NOPM}, &p50, &p95, &p99, &lag); err != nil {
			return err
		}
		st.Start, st.End = fromSecs(start), fromSecs(end)
		st.P50, st.P95, st.P99, st.LagP99 = fromUS(p50), fromUS(p95), fromUS(p99), fromUS(lag)
		res.Stages = append(res.Stages, st)
	}
	return rows.Err()
}
