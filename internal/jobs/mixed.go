package jobs

// A mixed run's analytic half (metrics.MixedResult): job_mixed,
// job_mixed_tx, job_mixed_query and job_mixed_query_hist (each query's
// latency histogram), written with the run's result and read with it.

import (
	"context"
	"database/sql"
	"errors"
	"math"
	"time"

	"github.com/sledge-bench/sledge/internal/metrics"
)

// saveMixed stores m; nothing for nil.
func saveMixed(ctx context.Context, tx *repoTx, id int64, m *metrics.MixedResult) error {
	if m == nil {
		return nil
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO job_mixed (job_id, streams, query_order, seed, delay_s, rampup_s,
		baseline_s, baseline_nopm, baseline_tpm, mixed_s, mixed_nopm, mixed_tpm, interference, analytic_s,
		queries, query_errors, query_sets, query_sets_per_hour, freshness_p50_s, freshness_max_s)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		id, m.Streams, m.Order, m.Seed, secs(m.Delay), secs(m.Rampup),
		m.BaselineSeconds, nullNaN(m.BaselineNOPM), nullNaN(m.BaselineTPM),
		m.MixedSeconds, nullNaN(m.MixedNOPM), nullNaN(m.MixedTPM), nullNaN(m.Interference), m.AnalyticSeconds,
		m.Queries, m.QueryErrors, m.QuerySets, nullNaN(m.QuerySetsPerHour), nullNaN(m.FreshnessP50), nullNaN(m.FreshnessMax)); err != nil {
		return err
	}
	for _, part := range []struct {
		name string
		txs  []metrics.MixedTxLatency
	}{{"baseline", m.BaselineTx}, {"mixed", m.MixedTx}} {
		for i, l := range part.txs {
			if _, err := tx.ExecContext(ctx, `INSERT INTO job_mixed_tx (job_id, part, ord, tx, count, p50_us, p95_us, p99_us, max_us)
				VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`, id, part.name, i, l.Name, l.Count,
				l.P50.Microseconds(), l.P95.Microseconds(), l.P99.Microseconds(), l.Max.Microseconds()); err != nil {
				return err
			}
		}
	}
	for _, q := range m.PerQuery {
		if q.Histogram == nil {
			continue
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO job_mixed_query_hist (job_id, query, count, histogram) VALUES (?, ?, ?, ?)`,
			id, q.Query, q.Count, q.Histogram); err != nil {
			return err
		}
	}
	for i, r := range m.Runs {
		if _, err := tx.ExecContext(ctx, `INSERT INTO job_mixed_query (job_id, ord, stream, query_set, position, query,
			start_s, end_s, seconds, row_count, freshness_s, error) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			id, i, r.Stream, r.Set, r.Position, r.Query, secs(r.Start), secs(r.End), r.Seconds, r.Rows,
			nullNaN(r.Freshness), redactText(r.Error)); err != nil {
			return err
		}
	}
	return nil
}

// readMixed reads a run's mixed result, nil when it has none.
func readMixed(ctx context.Context, tx *repoTx, id int64) (*metrics.MixedResult, error) {
	var (
		m             metrics.MixedResult
		delay, rampup float64
	)
	err := tx.QueryRowContext(ctx, `SELECT streams, query_order, seed, delay_s, rampup_s,
		baseline_s, baseline_nopm, baseline_tpm, mixed_s, mixed_nopm, mixed_tpm, interference, analytic_s
		FROM job_mixed WHERE job_id = ?`, id).Scan(&m.Streams, &m.Order, &m.Seed, &delay, &rampup,
		&m.BaselineSeconds, nanFloat{&m.BaselineNOPM}, nanFloat{&m.BaselineTPM},
		&m.MixedSeconds, nanFloat{&m.MixedNOPM}, nanFloat{&m.MixedTPM}, nanFloat{&m.Interference}, &m.AnalyticSeconds)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	m.Delay, m.Rampup = fromSecs(delay), fromSecs(rampup)
	err = eachRow(ctx, tx, `SELECT part, tx, count, p50_us, p95_us, p99_us, max_us FROM job_mixed_tx
		WHERE job_id = ? ORDER BY part, ord`, id, func(rows *sql.Rows) error {
		var (
			part               string
			l                  metrics.MixedTxLatency
			p50, p95, p99, max int64
		)
		if err := rows.Scan(&part, &l.Name, &l.Count, &p50, &p95, &p99, &max); err != nil {
			return err
		}
		l.P50, l.P95, l.P99, l.Max = time.Duration(p50)*time.Microsecond, time.Duration(p95)*time.Microsecond,
			time.Duration(p99)*time.Microsecond, time.Duration(max)*time.Microsecond
		if part == "baseline" {
			m.BaselineTx = append(m.BaselineTx, l)
		} else {
			m.MixedTx = append(m.MixedTx, l)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	rows, err := tx.QueryContext(ctx, `SELECT stream, query_set, position, query, start_s, end_s, seconds,
		row_count, freshness_s, error FROM job_mixed_query WHERE job_id = ? ORDER BY ord`, id)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var (
			r          metrics.MixedRun
			start, end float64
			fresh      sql.NullFloat64
		)
		if err := rows.Scan(&r.Stream, &r.Set, &r.Position, &r.Query, &start, &end, &r.Seconds, &r.Rows, &fresh, &r.Error); err != nil {
			return nil, err
		}
		r.Start, r.End, r.Freshness = fromSecs(start), fromSecs(end), math.NaN()
		if fresh.Valid {
			r.Freshness = fresh.Float64
		}
		m.Runs = append(m.Runs, r)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	// The query figures are derived from the executions, as when the run
	// ended; each query's latencies are then read from its stored
	// histogram (a job recorded before schema version 21 has none: its
	// figures are the executions').
	metrics.SummarizeMixedRuns(&m)
	hists := map[int][]byte{}
	err = eachRow(ctx, tx, `SELECT query, histogram FROM job_mixed_query_hist WHERE job_id = ?`, id, func(rows *sql.Rows) error {
		var (
			q int
			h []byte
		)
		if err := rows.Scan(&q, &h); err != nil {
			return err
		}
		hists[q] = h
		return nil
	})
	if err != nil {
		return nil, err
	}
	if err := metrics.SetQueryHistograms(&m, hists); err != nil {
		return nil, err
	}
	return &m, nil
}
