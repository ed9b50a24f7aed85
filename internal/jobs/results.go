package jobs

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"sort"
	"strings"
	"time"

	"github.com/sledge-bench/sledge/internal/metrics"
)

// Durations are stored as REAL seconds or microseconds: readable in SQL and
// exact enough to give back the same nanoseconds (float64 holds integers up
// to 2^53 ns, about 104 days).
func secs(d time.Duration) float64 { return d.Seconds() }
func us(d time.Duration) float64   { return float64(d) / float64(time.Microsecond) }

// boolInt stores a flag in an INTEGER column (SQLite has no boolean type).
func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

func fromSecs(s float64) time.Duration {
	return time.Duration(math.Round(s * float64(time.Second)))
}

func fromUS(u float64) time.Duration {
	return time.Duration(math.Round(u * float64(time.Microsecond)))
}

// SQLite stores NaN as NULL. A rate over an empty window may be NaN, and
// refusing it would lose the whole result, so measured REALs are nullable:
// nullNaN writes NaN as NULL and nanFloat reads NULL back as NaN.
func nullNaN(f float64) any {
	if math.IsNaN(f) {
		return nil
	}
	return f
}

type nanFloat struct{ p *float64 }

func (f nanFloat) Scan(src any) error {
	switch v := src.(type) {
	case nil:
		*f.p = math.NaN()
	case float64:
		*f.p = v
	case int64:
		*f.p = float64(v)
	default:
		return fmt.Errorf("REAL column holds %T", src)
	}
	return nil
}

// AddInterval stores one monitor tick of a run. Id 0 is ignored, as for
// AppendOutput.
func (r *Repo) AddInterval(ctx context.Context, id int64, iv metrics.Interval) error {
	if id == 0 {
		return nil
	}
	return r.inTx(ctx, fmt.Sprintf("store interval %d of job %d", iv.Seq, id), func(tx *repoTx) error {
		if err := lockJob(ctx, tx, id); err != nil {
			return err
		}
		return insertInterval(ctx, tx, id, iv)
	})
}

// AddIntervalOnce stores interval iv of job id unless the job has that
// interval already: the agents of a group run may both find an interval
// complete and merge it.
func (r *Repo) AddIntervalOnce(ctx context.Context, id int64, iv metrics.Interval) error {
	return r.inTx(ctx, fmt.Sprintf("store interval %d of job %d", iv.Seq, id), func(tx *repoTx) error {
		if err := lockJob(ctx, tx, id); err != nil {
			return err
		}
		var n int
		if err := tx.QueryRowContext(ctx, "SELECT COUNT(*) FROM job_interval WHERE job_id = ? AND seq = ?", id, iv.Seq).Scan(&n); err != nil || n > 0 {
			return err
		}
		return insertInterval(ctx, tx, id, iv)
	})
}

// ReplaceIntervals replaces job id's interval series with ivs.
func (r *Repo) ReplaceIntervals(ctx context.Context, id int64, ivs []metrics.Interval) error {
	return r.inTx(ctx, fmt.Sprintf("store the intervals of job %d", id), func(tx *repoTx) error {
		if err := lockJob(ctx, tx, id); err != nil {
			return err
		}
		for _, t := range []string{"job_interval_tx", "job_interval_vu", "job_interval"} {
			if _, err := tx.ExecContext(ctx, "DELETE FROM "+t+" WHERE job_id = ?", id); err != nil {
				return err
			}
		}
		for _, iv := range ivs {
			if err := insertInterval(ctx, tx, id, iv); err != nil {
				return fmt.Errorf("interval %d: %w", iv.Seq, err)
			}
		}
		return nil
	})
}

func insertInterval(ctx context.Context, tx *repoTx, id int64, iv metrics.Interval) error {
	if _, err := tx.ExecContext(ctx, `INSERT INTO job_interval
		(job_id, seq, phase, elapsed_s, length_s, tpm, nopm, errors, stage, lag_p99_us, late, scheduled, dropped)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		id, iv.Seq, iv.Phase, secs(iv.Elapsed), secs(iv.Length), nullNaN(iv.TPM), nullNaN(iv.NOPM), iv.Errors,
		iv.Stage, us(iv.LagP99), iv.Late, iv.Scheduled, iv.Dropped); err != nil {
		return err
	}
	for i, t := range iv.Tx {
		if _, err := tx.ExecContext(ctx, `INSERT INTO job_interval_tx
			(job_id, seq, ord, tx, count, errors, p50_us, p95_us, p99_us, max_us, histogram) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			id, iv.Seq, i, t.Name, t.Count, t.Errors, us(t.P50), us(t.P95), us(t.P99), us(t.Max), t.Histogram); err != nil {
			return fmt.Errorf("transaction %s: %w", t.Name, err)
		}
	}
	for _, v := range iv.VUs {
		if _, err := tx.ExecContext(ctx, `INSERT INTO job_interval_vu (job_id, seq, vu, state, commits, errors)
			VALUES (?, ?, ?, ?, ?, ?)`, id, iv.Seq, v.VU, v.State, v.Commits, v.Errors); err != nil {
			return fmt.Errorf("virtual user %d: %w", v.VU, err)
		}
	}
	return nil
}

// Intervals returns the run's interval series in order.
func (r *Repo) Intervals(ctx context.Context, id int64) ([]metrics.Interval, error) {
	var out []metrics.Interval
	err := r.readTx(ctx, fmt.Sprintf("read intervals of job %d", id), func(tx *repoTx) error {
		if err := requireJob(ctx, tx, id); err != nil {
			return err
		}
		rows, err := tx.QueryContext(ctx, `SELECT seq, phase, elapsed_s, length_s, tpm, nopm, errors,
			stage, lag_p99_us, late, scheduled, dropped
			FROM job_interval WHERE job_id = ? ORDER BY seq`, id)
		if err != nil {
			return err
		}
		defer rows.Close()
		bySeq := map[int]int{} // seq → index in out
		for rows.Next() {
			var (
				iv                   metrics.Interval
				elapsed, length, lag float64
			)
			if err := rows.Scan(&iv.Seq, &iv.Phase, &elapsed, &length, nanFloat{&iv.TPM}, nanFloat{&iv.NOPM}, &iv.Errors,
				&iv.Stage, &lag, &iv.Late, &iv.Scheduled, &iv.Dropped); err != nil {
				return err
			}
			iv.Elapsed, iv.Length, iv.LagP99 = fromSecs(elapsed), fromSecs(length), fromUS(lag)
			bySeq[iv.Seq] = len(out)
			out = append(out, iv)
		}
		if err := rows.Err(); err != nil {
			return err
		}
		rows.Close()

		rows, err = tx.QueryContext(ctx, `SELECT seq, tx, count, errors, p50_us, p95_us, p99_us, max_us, histogram
			FROM job_interval_tx WHERE job_id = ? ORDER BY seq, ord`, id)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var (
				seq                int
				t                  metrics.IntervalTx
				p50, p95, p99, max float64
			)
			if err := rows.Scan(&seq, &t.Name, &t.Count, &t.Errors, &p50, &p95, &p99, &max, &t.Histogram); err != nil {
				return err
			}
			t.P50, t.P95, t.P99, t.Max = fromUS(p50), fromUS(p95), fromUS(p99), fromUS(max)
			if i, ok := bySeq[seq]; ok {
				out[i].Tx = append(out[i].Tx, t)
			}
		}
		if err := rows.Err(); err != nil {
			return err
		}
		rows.Close()

		rows, err = tx.QueryContext(ctx, `SELECT seq, vu, state, commits, errors
			FROM job_interval_vu WHERE job_id = ? ORDER BY seq, vu`, id)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var (
				seq int
				v   metrics.VUInterval
			)
			if err := rows.Scan(&seq, &v.VU, &v.State, &v.Commits, &v.Errors); err != nil {
				return err
			}
			if i, ok := bySeq[seq]; ok {
				out[i].VUs = append(out[i].VUs, v)
			}
		}
		return rows.Err()
	})
	return out, err
}

// SaveRunResult stores a run's result, per-transaction timings, error counts
// and audit in one transaction, replacing any earlier result of the job.
func (r *Repo) SaveRunResult(ctx context.Context, id int64, res *metrics.RunResult) error {
	if res == nil {
		return fmt.Errorf("store result of job %d: no result", id)
	}
	return r.inTx(ctx, fmt.Sprintf("store result of job %d", id), func(tx *repoTx) error {
		if err := lockJob(ctx, tx, id); err != nil {
			return err
		}
		for _, t := range []string{"job_result", "job_timing", "job_error", "job_retry", "job_audit",
			"job_disruption", "job_outage", "job_outage_lost", "job_connection_event", "job_idle_interval", "job_monitor_gap", "job_stall",
			"job_load", "job_stage", "job_vu_timing", "job_mixed", "job_mixed_tx", "job_mixed_query", "job_mixed_query_hist", "job_script_command"} {
			if _, err := tx.ExecContext(ctx, "DELETE FROM "+t+" WHERE job_id = ?", id); err != nil {
				return err
			}
		}
		warnings := make([]string, len(res.Warnings))
		for i, w := range res.Warnings {
			// One warning per line: a line break inside one would split it.
			warnings[i] = redactText(strings.ReplaceAll(w, "\n", " "))
		}
		// An absent value is NULL, never 0: the cross-check and the server's
		// TPM are stored only when they were measured.
		var dbNewOrders, nopmDBCheck, dbCheckAgree, dbCheckAllowance, serverTPM, serverTPMMargin any
		if res.HasDBCheck {
			dbNewOrders, nopmDBCheck, dbCheckAgree, dbCheckAllowance = res.DBNewOrders, nullNaN(res.NOPMDBCheck), res.DBCheckAgree, res.DBCheckAllowance
		}
		if res.HasServerTPM {
			serverTPM, serverTPMMargin = nullNaN(res.ServerTPM), nullNaN(res.ServerTPMMargin)
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO job_result (job_id, status, vus, warehouses, mode,
			isolation, rampup_s, duration_s, measured_s, nopm, tpm, new_orders, commits, errors, rolled_back,
			db_new_orders, nopm_db_check, db_check_agree, server_tpm, client_cpu_s, client_cpu_per_tx_us, warnings,
			db_check_allowance, db_check_unavailable, server_tpm_unavailable, iterations, server_tpm_margin,
			connects, connect_total_us, connect_max_us)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			id, res.Status, res.VUs, res.Warehouses, res.Mode, res.Isolation,
			secs(res.Rampup), secs(res.Duration), secs(res.Measured), nullNaN(res.NOPM), nullNaN(res.TPM),
			res.NewOrders, res.Commits, res.Errors, res.RolledBack,
			dbNewOrders, nopmDBCheck, dbCheckAgree, serverTPM,
			secs(res.ClientCPU), nullNaN(res.ClientCPUPerTxUS), strings.Join(warnings, "\n"),
			dbCheckAllowance, redactText(res.DBCheckUnavailable), redactText(res.ServerTPMUnavailable), res.Iterations, serverTPMMargin,
			res.Connects.Count, res.Connects.Total.Microseconds(), res.Connects.Max.Microseconds()); err != nil {
			return err
		}
		if err := saveDisruption(ctx, tx, id, res.Disruption); err != nil {
			return fmt.Errorf("disruption: %w", err)
		}
		if err := saveLoad(ctx, tx, id, res); err != nil {
			return fmt.Errorf("load: %w", err)
		}
		if err := saveMixed(ctx, tx, id, res.Mixed); err != nil {
			return fmt.Errorf("analytic streams: %w", err)
		}
		for i, t := range res.Tx {
			if _, err := tx.ExecContext(ctx, `INSERT INTO job_timing (job_id, ord, tx, count, rolled_back,
				retries, retried, failed_after_retries, mean_us, p50_us, p95_us, p99_us, max_us, histogram)
				VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
				id, i, t.Name, t.Count, t.RolledBack, t.Retries, t.Retried, t.FailedAfterRetries,
				us(t.Mean), us(t.P50), us(t.P95), us(t.P99), us(t.Max), t.Histogram); err != nil {
				return fmt.Errorf("transaction %s: %w", t.Name, err)
			}
			for class, n := range t.Errors {
				if _, err := tx.ExecContext(ctx, `INSERT INTO job_error (job_id, tx, class, count)
					VALUES (?, ?, ?, ?)`, id, t.Name, class, n); err != nil {
					return fmt.Errorf("errors of %s: %w", t.Name, err)
				}
			}
			for class, n := range t.RetriesByClass {
				if _, err := tx.ExecContext(ctx, `INSERT INTO job_retry (job_id, tx, class, count)
					VALUES (?, ?, ?, ?)`, id, t.Name, class, n); err != nil {
					return fmt.Errorf("retries of %s: %w", t.Name, err)
				}
			}
		}
		for _, t := range res.VUTiming {
			if _, err := tx.ExecContext(ctx, `INSERT INTO job_vu_timing (job_id, vu, tx, calls, total_us, histogram)
				VALUES (?, ?, ?, ?, ?, ?)`, id, t.VU, t.Tx, t.Calls, us(t.Total), t.Histogram); err != nil {
				return fmt.Errorf("timing of VU %d's %s: %w", t.VU, t.Tx, err)
			}
		}
		for _, c := range res.Commands {
			if _, err := tx.ExecContext(ctx, `INSERT INTO job_script_command (job_id, tx, ord, command, count, total_us, failures)
				VALUES (?, ?, ?, ?, ?, ?, ?)`, id, c.Tx, c.Index, c.Command, c.Count, c.Total.Microseconds(), c.Failures); err != nil {
				return fmt.Errorf("timing of %s's command %d: %w", c.Tx, c.Index+1, err)
			}
		}
		for i, a := range res.Audit {
			low, high := any(nil), any(nil)
			if a.HasRange() {
				low, high = nullNaN(a.Low), nullNaN(a.High)
			}
			if _, err := tx.ExecContext(ctx, `INSERT INTO job_audit (job_id, ord, name, value, unit, target, ok, low, high, n, verdict, note)
				VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, id, i, a.Name, nullNaN(a.Value), a.Unit, a.Target, a.OK,
				low, high, a.N, a.Verdict, redactText(a.Note)); err != nil {
				return fmt.Errorf("audit %s: %w", a.Name, err)
			}
		}
		return nil
	})
}

// RunResult returns the stored result of a run, or nil (and no error) when
// the job has none (it is not a run, or it failed before the end).
func (r *Repo) RunResult(ctx context.Context, id int64) (*metrics.RunResult, error) {
	var res *metrics.RunResult
	err := r.readTx(ctx, fmt.Sprintf("read result of job %d", id), func(tx *repoTx) error {
		if err := requireJob(ctx, tx, id); err != nil {
			return err
		}
		var (
			x                               metrics.RunResult
			rampup, duration, measured, cpu float64
			warnings                        string
			dbNewOrders, allowance          sql.NullInt64
			dbCheckAgree                    sql.NullBool
			serverTPM, serverTPMMargin      sql.NullFloat64
			connectTotal, connectMax        int64
		)
		err := tx.QueryRowContext(ctx, `SELECT status, vus, warehouses, mode, isolation, rampup_s, duration_s,
			measured_s, nopm, tpm, new_orders, commits, errors, rolled_back, db_new_orders, nopm_db_check,
			db_check_agree, server_tpm, client_cpu_s, client_cpu_per_tx_us, warnings,
			db_check_allowance, db_check_unavailable, server_tpm_unavailable, iterations, server_tpm_margin,
			connects, connect_total_us, connect_max_us
			FROM job_result WHERE job_id = ?`, id).Scan(
			&x.Status, &x.VUs, &x.Warehouses, &x.Mode, &x.Isolation, &rampup, &duration, &measured,
			nanFloat{&x.NOPM}, nanFloat{&x.TPM}, &x.NewOrders, &x.Commits, &x.Errors, &x.RolledBack, &dbNewOrders,
			nanFloat{&x.NOPMDBCheck}, &dbCheckAgree, &serverTPM, &cpu, nanFloat{&x.ClientCPUPerTxUS}, &warnings,
			&allowance, &x.DBCheckUnavailable, &x.ServerTPMUnavailable, &x.Iterations, &serverTPMMargin,
			&x.Connects.Count, &connectTotal, &connectMax)
		if errors.Is(err, sql.ErrNoRows) {
			return nil
		}
		if err != nil {
			return err
		}
		x.Rampup, x.Duration, x.Measured, x.ClientCPU = fromSecs(rampup), fromSecs(duration), fromSecs(measured), fromSecs(cpu)
		x.Connects.Total, x.Connects.Max = time.Duration(connectTotal)*time.Microsecond, time.Duration(connectMax)*time.Microsecond
		if x.HasDBCheck = dbNewOrders.Valid; x.HasDBCheck {
			x.DBNewOrders, x.DBCheckAgree, x.DBCheckAllowance = dbNewOrders.Int64, dbCheckAgree.Bool, allowance.Int64
		} else {
			x.NOPMDBCheck = 0
		}
		x.HasServerTPM, x.ServerTPM, x.ServerTPMMargin = serverTPM.Valid, serverTPM.Float64, serverTPMMargin.Float64
		if x.Disruption, err = readDisruption(ctx, tx, id); err != nil {
			return err
		}
		if warnings != "" {
			x.Warnings = strings.Split(warnings, "\n")
		}
		if x.Tx, err = readTiming(ctx, tx, id); err != nil {
			return err
		}
		if x.Audit, err = readAudit(ctx, tx, id); err != nil {
			return err
		}
		if err := readLoad(ctx, tx, id, &x); err != nil {
			return err
		}
		if x.Mixed, err = readMixed(ctx, tx, id); err != nil {
			return err
		}
		err = eachRow(ctx, tx, `SELECT tx, ord, command, count, total_us, failures FROM job_script_command
			WHERE job_id = ? ORDER BY tx, ord`, id, func(rows *sql.Rows) error {
			var (
				c     metrics.CommandTiming
				total int64
			)
			if err := rows.Scan(&c.Tx, &c.Index, &c.Command, &c.Count, &total, &c.Failures); err != nil {
				return err
			}
			c.Total = time.Duration(total) * time.Microsecond
			x.Commands = append(x.Commands, c)
			return nil
		})
		if err != nil {
			return err
		}
		res = &x
		return nil
	})
	return res, err
}

// saveDisruption stores a run's disruption account in its tables; nothing
// for none.
func saveDisruption(ctx context.Context, tx *repoTx, id int64, d *metrics.Disruption) error {
	if d == nil {
		return nil
	}
	optSecs := func(ok bool, v time.Duration) any {
		if !ok {
			return nil
		}
		return secs(v)
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO job_disruption (job_id, window_start_s, window_end_s, sessions, stall_after_s)
		VALUES (?, ?, ?, ?, ?)`, id, secs(d.WindowStart), secs(d.WindowEnd), d.Sessions, secs(d.StallAfter)); err != nil {
		return err
	}
	const insertStall = `INSERT INTO job_stall (job_id, kind, ord, start_s, end_s, ended, suspended, vus, longest_wait_s)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`
	for i, st := range d.Stalls {
		if _, err := tx.ExecContext(ctx, insertStall, id, "stall", i, secs(st.Start), secs(st.End), boolInt(st.Ended), 0,
			st.VUs, secs(st.LongestWait)); err != nil {
			return fmt.Errorf("stall %d: %w", i+1, err)
		}
	}
	for i, p := range d.Pauses {
		if _, err := tx.ExecContext(ctx, insertStall, id, "pause", i, secs(p.Start), secs(p.End), 0, boolInt(p.Suspended),
			0, secs(p.Slept)); err != nil {
			return fmt.Errorf("pause %d: %w", i+1, err)
		}
	}
	for i, o := range d.Outages {
		if _, err := tx.ExecContext(ctx, `INSERT INTO job_outage (job_id, ord, start_s, all_back_s, resumed_s, vus)
			VALUES (?, ?, ?, ?, ?, ?)`, id, i, secs(o.Start), optSecs(o.Reconnected, o.AllBack),
			optSecs(o.Recovered, o.Resumed), o.VUs); err != nil {
			return fmt.Errorf("outage %d: %w", i+1, err)
		}
		for class, n := range o.Lost {
			if _, err := tx.ExecContext(ctx, `INSERT INTO job_outage_lost (job_id, ord, class, count)
				VALUES (?, ?, ?, ?)`, id, i, class, n); err != nil {
				return fmt.Errorf("outage %d: %w", i+1, err)
			}
		}
	}
	for i, c := range d.Connections {
		if _, err := tx.ExecContext(ctx, `INSERT INTO job_connection_event (job_id, ord, vu, lost_s, reconnected_s, attempts)
			VALUES (?, ?, ?, ?, ?, ?)`, id, i, c.VU, secs(c.LostAt), optSecs(c.Reconnected, c.ReconnectedAt), c.Attempts); err != nil {
			return fmt.Errorf("connection event %d: %w", i+1, err)
		}
	}
	for _, iv := range d.IdleIntervals {
		if _, err := tx.ExecContext(ctx, `INSERT INTO job_idle_interval (job_id, seq, start_s, end_s)
			VALUES (?, ?, ?, ?)`, id, iv.Seq, secs(iv.Start), secs(iv.End)); err != nil {
			return fmt.Errorf("idle interval %d: %w", iv.Seq, err)
		}
	}
	for i, g := range d.MonitorGaps {
		if _, err := tx.ExecContext(ctx, `INSERT INTO job_monitor_gap (job_id, ord, edge, at_s, error)
			VALUES (?, ?, ?, ?, ?)`, id, i, g.Edge, secs(g.At), redactText(g.Error)); err != nil {
			return fmt.Errorf("monitor gap %d: %w", i+1, err)
		}
	}
	return nil
}

// readDisruption reads a run's disruption account; nil when it has none.
func readDisruption(ctx context.Context, tx *repoTx, id int64) (*metrics.Disruption, error) {
	var d metrics.Disruption
	var start, end, stallAfter float64
	err := tx.QueryRowContext(ctx, `SELECT window_start_s, window_end_s, sessions, stall_after_s FROM job_disruption WHERE job_id = ?`,
		id).Scan(&start, &end, &d.Sessions, &stallAfter)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	d.WindowStart, d.WindowEnd, d.StallAfter = fromSecs(start), fromSecs(end), fromSecs(stallAfter)
	optDur := func(v sql.NullFloat64) (time.Duration, bool) {
		if !v.Valid {
			return 0, false
		}
		return fromSecs(v.Float64), true
	}
	each := func(query string, scan func(*sql.Rows) error) error { return eachRow(ctx, tx, query, id, scan) }
	err = each(`SELECT start_s, all_back_s, resumed_s, vus FROM job_outage WHERE job_id = ? ORDER BY ord`, func(rows *sql.Rows) error {
		var (
			o               metrics.Outage
			s               float64
			allBack, resume sql.NullFloat64
		)
		if err := rows.Scan(&s, &allBack, &resume, &o.VUs); err != nil {
			return err
		}
		o.Start = fromSecs(s)
		o.AllBack, o.Reconnected = optDur(allBack)
		o.Resumed, o.Recovered = optDur(resume)
		o.Lost = map[string]int64{}
		d.Outages = append(d.Outages, o)
		return nil
	})
	if err != nil {
		return nil, err
	}
	err = each(`SELECT ord, class, count FROM job_outage_lost WHERE job_id = ?`, func(rows *sql.Rows) error {
		var (
			ord   int
			class string
			n     int64
		)
		if err := rows.Scan(&ord, &class, &n); err != nil {
			return err
		}
		if ord >= 0 && ord < len(d.Outages) {
			d.Outages[ord].Lost[class] = n
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	err = each(`SELECT vu, lost_s, reconnected_s, attempts FROM job_connection_event WHERE job_id = ? ORDER BY ord`, func(rows *sql.Rows) error {
		var (
			c    metrics.ConnectionEvent
			lost float64
			back sql.NullFloat64
		)
		if err := rows.Scan(&c.VU, &lost, &back, &c.Attempts); err != nil {
			return err
		}
		c.LostAt = fromSecs(lost)
		c.ReconnectedAt, c.Reconnected = optDur(back)
		d.Connections = append(d.Connections, c)
		return nil
	})
	if err != nil {
		return nil, err
	}
	err = each(`SELECT seq, start_s, end_s FROM job_idle_interval WHERE job_id = ? ORDER BY seq`, func(rows *sql.Rows) error {
		var (
			iv     metrics.IdleInterval
			st, en float64
		)
		if err := rows.Scan(&iv.Seq, &st, &en); err != nil {
			return err
		}
		iv.Start, iv.End = fromSecs(st), fromSecs(en)
		d.IdleIntervals = append(d.IdleIntervals, iv)
		return nil
	})
	if err != nil {
		return nil, err
	}
	err = each(`SELECT edge, at_s, error FROM job_monitor_gap WHERE job_id = ? ORDER BY ord`, func(rows *sql.Rows) error {
		var (
			g  metrics.MonitorGap
			at float64
		)
		if err := rows.Scan(&g.Edge, &at, &g.Error); err != nil {
			return err
		}
		g.At = fromSecs(at)
		d.MonitorGaps = append(d.MonitorGaps, g)
		return nil
	})
	if err != nil {
		return nil, err
	}
	err = each(`SELECT kind, start_s, end_s, ended, suspended, vus, longest_wait_s FROM job_stall WHERE job_id = ? ORDER BY kind, ord`,
		func(rows *sql.Rows) error {
			var (
				kind                  string
				st, en, longest       float64
				ended, suspended, vus int
			)
			if err := rows.Scan(&kind, &st, &en, &ended, &suspended, &vus, &longest); err != nil {
				return err
			}
			if kind == "pause" {
				d.Pauses = append(d.Pauses, metrics.Pause{Start: fromSecs(st), End: fromSecs(en), Suspended: suspended != 0,
					Slept: fromSecs(longest)})
			} else {
				d.Stalls = append(d.Stalls, metrics.Stall{Start: fromSecs(st), End: fromSecs(en), Ended: ended != 0,
					VUs: vus, LongestWait: fromSecs(longest)})
			}
			return nil
		})
	if err != nil {
		return nil, err
	}
	return &d, nil
}

func readTiming(ctx context.Context, tx *repoTx, id int64) ([]metrics.TxSummary, error) {
	rows, err := tx.QueryContext(ctx, `SELECT tx, count, rolled_back, retries, retried, failed_after_retries,
		mean_us, p50_us, p95_us, p99_us, max_us, histogram FROM job_timing WHERE job_id = ? ORDER BY ord`, id)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var (
		out    []metrics.TxSummary
		byName = map[string]int{}
	)
	for rows.Next() {
		var (
			t                        metrics.TxSummary
			mean, p50, p95, p99, max float64
		)
		if err := rows.Scan(&t.Name, &t.Count, &t.RolledBack, &t.Retries, &t.Retried, &t.FailedAfterRetries,
			&mean, &p50, &p95, &p99, &max, &t.Histogram); err != nil {
			return nil, err
		}
		t.Mean, t.P50, t.P95, t.P99, t.Max = fromUS(mean), fromUS(p50), fromUS(p95), fromUS(p99), fromUS(max)
		// Always a map, so callers can index and range without a nil check.
		t.Errors = map[string]int64{}
		t.RetriesByClass = map[string]int64{}
		byName[t.Name] = len(out)
		out = append(out, t)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	rows.Close()

	rows, err = tx.QueryContext(ctx, "SELECT tx, class, count FROM job_error WHERE job_id = ?", id)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var (
			name, class string
			n           int64
		)
		if err := rows.Scan(&name, &class, &n); err != nil {
			return nil, err
		}
		if i, ok := byName[name]; ok {
			out[i].Errors[class] = n
		}
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	rows.Close()

	rows, err = tx.QueryContext(ctx, "SELECT tx, class, count FROM job_retry WHERE job_id = ?", id)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var (
			name, class string
			n           int64
		)
		if err := rows.Scan(&name, &class, &n); err != nil {
			return nil, err
		}
		if i, ok := byName[name]; ok {
			out[i].RetriesByClass[class] = n
		}
	}
	return out, rows.Err()
}

// VUTiming returns VU vu's timing per transaction type (in the workload's
// order of types), or every VU's in VU order when vu is 0; nil when the job
// kept none (its run did not ask for per-VU timing) or has none for vu.
// RunResult leaves it out: the summaries need only the run's.
func (r *Repo) VUTiming(ctx context.Context, id int64, vu int) ([]metrics.VUTiming, error) {
	var out []metrics.VUTiming
	err := r.readTx(ctx, fmt.Sprintf("read per-VU timing of job %d", id), func(tx *repoTx) error {
		if err := requireJob(ctx, tx, id); err != nil {
			return err
		}
		// job_timing's ord is the workload's order of types.
		rows, err := tx.QueryContext(ctx, `SELECT v.vu, v.tx, v.calls, v.total_us, v.histogram
			FROM job_vu_timing v LEFT JOIN job_timing t ON t.job_id = v.job_id AND t.tx = v.tx
			WHERE v.job_id = ? AND (? = 0 OR v.vu = ?) ORDER BY v.vu, t.ord, v.tx`, id, vu, vu)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var (
				t     metrics.VUTiming
				total float64
			)
			if err := rows.Scan(&t.VU, &t.Tx, &t.Calls, &total, &t.Histogram); err != nil {
				return err
			}
			t.Total = fromUS(total)
			out = append(out, t)
		}
		return rows.Err()
	})
	return out, err
}

func readAudit(ctx context.Context, tx *repoTx, id int64) ([]metrics.AuditItem, error) {
	rows, err := tx.QueryContext(ctx, `SELECT name, value, unit, target, ok, low, high, n, verdict, note FROM job_audit
		WHERE job_id = ? ORDER BY ord`, id)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []metrics.AuditItem
	for rows.Next() {
		var a metrics.AuditItem
		var low, high sql.NullFloat64
		if err := rows.Scan(&a.Name, nanFloat{&a.Value}, &a.Unit, &a.Target, &a.OK, &low, &high, &a.N, &a.Verdict, &a.Note); err != nil {
			return nil, err
		}
		a.Low, a.High = low.Float64, high.Float64
		out = append(out, a)
	}
	return out, rows.Err()
}

// BuildResult is what a build loaded.
type BuildResult struct {
	Warehouses int
	Workers    int
	Rows       int64
	Seconds    float64
	RowsPerSec float64
	Tables     map[string]int64 // rows per table
}

// SaveBuildResult stores a build's result, replacing any earlier one.
func (r *Repo) SaveBuildResult(ctx context.Context, id int64, b BuildResult) error {
	return r.inTx(ctx, fmt.Sprintf("store build result of job %d", id), func(tx *repoTx) error {
		if err := lockJob(ctx, tx, id); err != nil {
			return err
		}
		for _, t := range []string{"job_build", "job_build_table"} {
			if _, err := tx.ExecContext(ctx, "DELETE FROM "+t+" WHERE job_id = ?", id); err != nil {
				return err
			}
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO job_build (job_id, warehouses, workers, rows, seconds, rows_per_s)
			VALUES (?, ?, ?, ?, ?, ?)`, id, b.Warehouses, b.Workers, b.Rows, nullNaN(b.Seconds), nullNaN(b.RowsPerSec)); err != nil {
			return err
		}
		for name, n := range b.Tables {
			if _, err := tx.ExecContext(ctx, `INSERT INTO job_build_table (job_id, table_name, rows)
				VALUES (?, ?, ?)`, id, name, n); err != nil {
				return fmt.Errorf("table %s: %w", name, err)
			}
		}
		return nil
	})
}

// Build returns a build's stored result, or nil when the job has none.
func (r *Repo) Build(ctx context.Context, id int64) (*BuildResult, error) {
	var out *BuildResult
	err := r.readTx(ctx, fmt.Sprintf("read build result of job %d", id), func(tx *repoTx) error {
		if err := requireJob(ctx, tx, id); err != nil {
			return err
		}
		var b BuildResult
		err := tx.QueryRowContext(ctx, `SELECT warehouses, workers, rows, seconds, rows_per_s
			FROM job_build WHERE job_id = ?`, id).Scan(&b.Warehouses, &b.Workers, &b.Rows, nanFloat{&b.Seconds}, nanFloat{&b.RowsPerSec})
		if errors.Is(err, sql.ErrNoRows) {
			return nil
		}
		if err != nil {
			return err
		}
		b.Tables = map[string]int64{}
		rows, err := tx.QueryContext(ctx, "SELECT table_name, rows FROM job_build_table WHERE job_id = ?", id)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var (
				name string
				n    int64
			)
			if err := rows.Scan(&name, &n); err != nil {
				return err
			}
			b.Tables[name] = n
		}
		if err := rows.Err(); err != nil {
			return err
		}
		out = &b
		return nil
	})
	return out, err
}

// SortedTables lists the build's tables by name.
func (b BuildResult) SortedTables() []string {
	names := make([]string, 0, len(b.Tables))
	for n := range b.Tables {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// CheckItem is one consistency condition of a check.
type CheckItem struct {
	Name        string
	Description string
	Passed      bool
	Skipped     bool
	Violations  int64
	Note        string
}

// SaveCheck stores a check's conditions in order, replacing any earlier ones.
func (r *Repo) SaveCheck(ctx context.Context, id int64, items []CheckItem) error {
	return r.inTx(ctx, fmt.Sprintf("store check of job %d", id), func(tx *repoTx) error {
		if err := lockJob(ctx, tx, id); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, "DELETE FROM job_check WHERE job_id = ?", id); err != nil {
			return err
		}
		for i, c := range items {
			if _, err := tx.ExecContext(ctx, `INSERT INTO job_check (job_id, ord, name, description, passed,
				violations, skipped, note) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
				id, i, c.Name, c.Description, c.Passed, c.Violations, c.Skipped, c.Note); err != nil {
				return fmt.Errorf("condition %s: %w", c.Name, err)
			}
		}
		return nil
	})
}

// Check returns a check's conditions in order (none when the job has none).
func (r *Repo) Check(ctx context.Context, id int64) ([]CheckItem, error) {
	var out []CheckItem
	err := r.readTx(ctx, fmt.Sprintf("read check of job %d", id), func(tx *repoTx) error {
		if err := requireJob(ctx, tx, id); err != nil {
			return err
		}
		rows, err := tx.QueryContext(ctx, `SELECT name, description, passed, violations, skipped, note
			FROM job_check WHERE job_id = ? ORDER BY ord`, id)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var c CheckItem
			if err := rows.Scan(&c.Name, &c.Description, &c.Passed, &c.Violations, &c.Skipped, &c.Note); err != nil {
				return err
			}
			out = append(out, c)
		}
		return rows.Err()
	})
	return out, err
}
