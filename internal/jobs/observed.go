package jobs

import (
	"context"
	"database/sql"
	"fmt"
	"slices"

	"github.com/sledge-bench/sledge/internal/observe"
)

// Observation is one observer's record of a job.
type Observation struct {
	Name      string
	Start     observe.Start
	Intervals []observe.Snapshot // in seq order
	Cost      observe.Cost
}

// SaveObserverStart records what observer idx (0, 1, … in the job's order)
// found when it started: its name, the server and its settings. Saving it
// again replaces the start and keeps the cost. Id 0 is ignored, as for
// AppendOutput.
func (r *Repo) SaveObserverStart(ctx context.Context, jobID int64, idx int, name string, st observe.Start) error {
	if jobID == 0 {
		return nil
	}
	return r.inTx(ctx, fmt.Sprintf("store start of observer %d of job %d", idx, jobID), func(tx *repoTx) error {
		if err := lockJob(ctx, tx, jobID); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO job_observer (job_id, idx, name, server, uptime_s)
			VALUES (?1, ?2, ?3, ?4, ?5)
			ON CONFLICT (job_id, idx) DO UPDATE SET name = ?3, server = ?4, uptime_s = ?5`,
			jobID, idx, name, st.Server, secs(st.Uptime)); err != nil {
			return err
		}
		for _, t := range []string{"job_setting", "job_observer_note"} {
			if _, err := tx.ExecContext(ctx, "DELETE FROM "+t+" WHERE job_id = ? AND idx = ?", jobID, idx); err != nil {
				return fmt.Errorf("replace %s: %w", t, err)
			}
		}
		for i, s := range st.Settings {
			// A setting's value may be a connection string (primary_conninfo).
			if _, err := tx.ExecContext(ctx, `INSERT INTO job_setting (job_id, idx, ord, name, value, source)
				VALUES (?, ?, ?, ?, ?, ?)`, jobID, idx, i, s.Name, redactText(s.Value), s.Source); err != nil {
				return fmt.Errorf("setting %s: %w", s.Name, err)
			}
		}
		for i, n := range st.Notes {
			if _, err := tx.ExecContext(ctx, `INSERT INTO job_observer_note (job_id, idx, n, note)
				VALUES (?, ?, ?, ?)`, jobID, idx, i, redactText(n)); err != nil {
				return fmt.Errorf("note %d: %w", i, err)
			}
		}
		return nil
	})
}

// AppendObserved stores what observer idx saw in the run's interval seq
// (metrics.Interval.Seq), in one transaction. Id 0 is ignored.
func (r *Repo) AppendObserved(ctx context.Context, jobID int64, idx int, seq int, s observe.Snapshot) error {
	if jobID == 0 {
		return nil
	}
	return r.inTx(ctx, fmt.Sprintf("store interval %d of observer %d of job %d", seq, idx, jobID), func(tx *repoTx) error {
		if err := lockJob(ctx, tx, jobID); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO job_observed (job_id, idx, seq, elapsed_s, length_s, samples, gap)
			VALUES (?, ?, ?, ?, ?, ?, ?)`,
			jobID, idx, seq, secs(s.Elapsed), secs(s.Length), s.Samples, redactText(s.Gap)); err != nil {
			return err
		}
		for i, w := range s.Waits {
			if _, err := tx.ExecContext(ctx, `INSERT INTO job_wait (job_id, idx, seq, ord, class, event, aas)
				VALUES (?, ?, ?, ?, ?, ?, ?)`, jobID, idx, seq, i, w.Class, w.Event, w.AAS); err != nil {
				return fmt.Errorf("wait %s:%s: %w", w.Class, w.Event, err)
			}
		}
		for i, st := range s.Statements {
			// Statement texts are the server's: an ALTER ROLE … PASSWORD
			// may be among them.
			if _, err := tx.ExecContext(ctx, `INSERT INTO job_statement
				(job_id, idx, seq, ord, stmt_id, text, aas, seconds, calls) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
				jobID, idx, seq, i, st.ID, redactText(st.Text), st.AAS, st.Seconds, st.Calls); err != nil {
				return fmt.Errorf("statement %d: %w", i, err)
			}
		}
		for i, c := range s.Counters {
			if _, err := tx.ExecContext(ctx, `INSERT INTO job_counter
				(job_id, idx, seq, ord, source, name, kind, unit, value) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
				jobID, idx, seq, i, c.Source, c.Name, c.Kind, c.Unit, nullNaN(c.Value)); err != nil {
				return fmt.Errorf("counter %s.%s: %w", c.Source, c.Name, err)
			}
		}
		return nil
	})
}

// SaveObserverCost records observer idx's own cost once the run has ended.
// Id 0 is ignored.
func (r *Repo) SaveObserverCost(ctx context.Context, jobID int64, idx int, c observe.Cost) error {
	if jobID == 0 {
		return nil
	}
	return r.inTx(ctx, fmt.Sprintf("store cost of observer %d of job %d", idx, jobID), func(tx *repoTx) error {
		if err := lockJob(ctx, tx, jobID); err != nil {
			return err
		}
		// An observer whose start was not stored still has a cost to say.
		_, err := tx.ExecContext(ctx, `INSERT INTO job_observer
			(job_id, idx, name, server, uptime_s, samples, queries, query_s, reconnects, server_share)
			VALUES (?1, ?2, '', '', 0, ?3, ?4, ?5, ?6, ?7)
			ON CONFLICT (job_id, idx) DO UPDATE SET
			samples = ?3, queries = ?4, query_s = ?5, reconnects = ?6, server_share = ?7`,
			jobID, idx, c.Samples, c.Queries, secs(c.QueryTime), c.Reconnects, c.ServerShare)
		return err
	})
}

// Observations returns what the job's observers saw, in observer order
// (idx); nil when the job was not observed.
func (r *Repo) Observations(ctx context.Context, jobID int64) ([]Observation, error) {
	var out []Observation
	err := r.readTx(ctx, fmt.Sprintf("read observations of job %d", jobID), func(tx *repoTx) error {
		if err := requireJob(ctx, tx, jobID); err != nil {
			return err
		}
		byIdx := map[int]*Observation{}
		obs := func(idx int) *Observation {
			if o, ok := byIdx[idx]; ok {
				return o
			}
			o := &Observation{}
			byIdx[idx] = o
			return o
		}
		// Each query fills its part of the observations; the rows come in
		// the order the slices keep.
		type reader struct {
			what, query string
			scan        func(*sql.Rows) error
		}
		readers := []reader{
			{"observers", `SELECT idx, name, server, uptime_s, samples, queries, query_s, reconnects, server_share
				FROM job_observer WHERE job_id = ? ORDER BY idx`, func(rows *sql.Rows) error {
				var (
					idx            int
					uptime, queryS float64
					c              observe.Cost
					name, server   string
				)
				if err := rows.Scan(&idx, &name, &server, &uptime, &c.Samples, &c.Queries, &queryS, &c.Reconnects, &c.ServerShare); err != nil {
					return err
				}
				o := obs(idx)
				o.Name, o.Start.Server, o.Start.Uptime = name, server, fromSecs(uptime)
				c.QueryTime = fromSecs(queryS)
				o.Cost = c
				return nil
			}},
			{"notes", `SELECT idx, note FROM job_observer_note WHERE job_id = ? ORDER BY idx, n`, func(rows *sql.Rows) error {
				var (
					idx  int
					note string
				)
				if err := rows.Scan(&idx, &note); err != nil {
					return err
				}
				o := obs(idx)
				o.Start.Notes = append(o.Start.Notes, note)
				return nil
			}},
			{"settings", `SELECT idx, name, value, source FROM job_setting WHERE job_id = ? ORDER BY idx, ord`, func(rows *sql.Rows) error {
				var (
					idx int
					s   observe.Setting
				)
				if err := rows.Scan(&idx, &s.Name, &s.Value, &s.Source); err != nil {
					return err
				}
				o := obs(idx)
				o.Start.Settings = append(o.Start.Settings, s)
				return nil
			}},
		}
		for _, rd := range readers {
			if err := eachRow(ctx, tx, rd.query, jobID, rd.scan); err != nil {
				return fmt.Errorf("%s: %w", rd.what, err)
			}
		}

		// The intervals, then their waits, statements and counters by
		// (idx, seq).
		type key struct{ idx, seq int }
		snap := map[key]int{} // → index in the observer's Intervals
		if err := eachRow(ctx, tx, `SELECT idx, seq, elapsed_s, length_s, samples, gap
			FROM job_observed WHERE job_id = ? ORDER BY idx, seq`, jobID, func(rows *sql.Rows) error {
			var (
				idx, seq        int
				elapsed, length float64
				s               observe.Snapshot
			)
			if err := rows.Scan(&idx, &seq, &elapsed, &length, &s.Samples, &s.Gap); err != nil {
				return err
			}
			s.Elapsed, s.Length = fromSecs(elapsed), fromSecs(length)
			o := obs(idx)
			snap[key{idx, seq}] = len(o.Intervals)
			o.Intervals = append(o.Intervals, s)
			return nil
		}); err != nil {
			return fmt.Errorf("intervals: %w", err)
		}
		// in returns the snapshot a child row belongs to; nil for a row
		// whose interval is missing (it cannot be placed in the series).
		in := func(idx, seq int) *observe.Snapshot {
			i, ok := snap[key{idx, seq}]
			if !ok {
				return nil
			}
			return &byIdx[idx].Intervals[i]
		}
		if err := eachRow(ctx, tx, `SELECT idx, seq, class, event, aas
			FROM job_wait WHERE job_id = ? ORDER BY idx, seq, ord`, jobID, func(rows *sql.Rows) error {
			var (
				idx, seq int
				w        observe.Wait
			)
			if err := rows.Scan(&idx, &seq, &w.Class, &w.Event, &w.AAS); err != nil {
				return err
			}
			if s := in(idx, seq); s != nil {
				s.Waits = append(s.Waits, w)
			}
			return nil
		}); err != nil {
			return fmt.Errorf("waits: %w", err)
		}
		if err := eachRow(ctx, tx, `SELECT idx, seq, stmt_id, text, aas, seconds, calls
			FROM job_statement WHERE job_id = ? ORDER BY idx, seq, ord`, jobID, func(rows *sql.Rows) error {
			var (
				idx, seq int
				st       observe.Statement
			)
			if err := rows.Scan(&idx, &seq, &st.ID, &st.Text, &st.AAS, &st.Seconds, &st.Calls); err != nil {
				return err
			}
			if s := in(idx, seq); s != nil {
				s.Statements = append(s.Statements, st)
			}
			return nil
		}); err != nil {
			return fmt.Errorf("statements: %w", err)
		}
		if err := eachRow(ctx, tx, `SELECT idx, seq, source, name, kind, unit, value
			FROM job_counter WHERE job_id = ? ORDER BY idx, seq, ord`, jobID, func(rows *sql.Rows) error {
			var (
				idx, seq int
				c        observe.Counter
			)
			if err := rows.Scan(&idx, &seq, &c.Source, &c.Name, &c.Kind, &c.Unit, nanFloat{&c.Value}); err != nil {
				return err
			}
			if s := in(idx, seq); s != nil {
				s.Counters = append(s.Counters, c)
			}
			return nil
		}); err != nil {
			return fmt.Errorf("counters: %w", err)
		}

		idxs := make([]int, 0, len(byIdx))
		for idx := range byIdx {
			idxs = append(idxs, idx)
		}
		slices.Sort(idxs)
		for _, idx := range idxs {
			out = append(out, *byIdx[idx])
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// eachRow runs a query of one job and calls scan for every row.
func eachRow(ctx context.Context, tx *repoTx, query string, jobID int64, scan func(*sql.Rows) error) error {
	return eachRowArgs(ctx, tx, query, []any{jobID}, scan)
}
