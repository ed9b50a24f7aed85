package jobs

// What a job could not store at once: intervals of its series that are
// missing, with the reason (never a silent hole), and the idempotent writes
// that hand in what a spool file kept while the repository could not be
// written (a hand-in that is repeated, or that follows a write whose
// success was never heard of, stores nothing twice).

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
)

// MissingInterval is an interval of a run's series that was never stored,
// and why.
type MissingInterval struct {
	Seq    int
	Reason string
}

// MarkIntervalsMissing records intervals of job id as missing, why; one
// that is stored meanwhile, or already marked, is left as it is.
func (r *Repo) MarkIntervalsMissing(ctx context.Context, id int64, missing []MissingInterval) error {
	if len(missing) == 0 {
		return nil
	}
	return r.inTx(ctx, fmt.Sprintf("mark intervals of job %d missing", id), func(tx *repoTx) error {
		if err := lockJob(ctx, tx, id); err != nil {
			return err
		}
		return markMissing(ctx, tx, id, missing)
	})
}

func markMissing(ctx context.Context, tx *repoTx, id int64, missing []MissingInterval) error {
	for _, m := range missing {
		if _, err := tx.ExecContext(ctx, `INSERT INTO job_interval_missing (job_id, seq, reason)
			SELECT ?1, ?2, ?3 WHERE NOT EXISTS (SELECT 1 FROM job_interval WHERE job_id = ?1 AND seq = ?2)
			ON CONFLICT (job_id, seq) DO NOTHING`, id, m.Seq, redactText(m.Reason)); err != nil {
			return fmt.Errorf("interval %d: %w", m.Seq, err)
		}
	}
	return nil
}

// MarkSeriesHoles looks at job id's stored series once nothing more will
// come (the job has ended, its spool handed in): every interval before the
// last stored one that is not stored is marked missing with reason, and an
// interval marked missing that has been stored since is no longer.
func (r *Repo) MarkSeriesHoles(ctx context.Context, id int64, reason string) error {
	return r.inTx(ctx, fmt.Sprintf("mark the holes of job %d's series", id), func(tx *repoTx) error {
		if err := lockJob(ctx, tx, id); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM job_interval_missing WHERE job_id = ?1
			AND seq IN (SELECT seq FROM job_interval WHERE job_id = ?1)`, id); err != nil {
			return err
		}
		var seqs []int
		if err := eachRow(ctx, tx, "SELECT seq FROM job_interval WHERE job_id = ? ORDER BY seq", id, func(rows *sql.Rows) error {
			var s int
			err := rows.Scan(&s)
			seqs = append(seqs, s)
			return err
		}); err != nil {
			return err
		}
		var holes []MissingInterval
		for want, i := 1, 0; i < len(seqs); want++ {
			if seqs[i] == want {
				i++
				continue
			}
			holes = append(holes, MissingInterval{Seq: want, Reason: reason})
		}
		return markMissing(ctx, tx, id, holes)
	})
}

// MissingIntervals lists job id's intervals that are missing, in order.
func (r *Repo) MissingIntervals(ctx context.Context, id int64) ([]MissingInterval, error) {
	var out []MissingInterval
	err := r.readTx(ctx, fmt.Sprintf("read the missing intervals of job %d", id), func(tx *repoTx) error {
		return eachRow(ctx, tx, "SELECT seq, reason FROM job_interval_missing WHERE job_id = ? ORDER BY seq", id, func(rows *sql.Rows) error {
			var m MissingInterval
			err := rows.Scan(&m.Seq, &m.Reason)
			out = append(out, m)
			return err
		})
	})
	return out, err
}

// AppendOutputLinesOnce is AppendOutputLines for lines handed in from a
// spool: a batch whose first line (its time and text) the job has already
// is not stored again (batches are stored whole, in one transaction).
func (r *Repo) AppendOutputLinesOnce(ctx context.Context, id int64, lines []OutputLine) error {
	if id == 0 || len(lines) == 0 {
		return nil
	}
	var n int
	if err := r.db.QueryRowContext(ctx, "SELECT COUNT(*) FROM job_output WHERE job_id = ? AND at = ? AND line = ?",
		id, fmtTime(lines[0].At), redactText(lines[0].Line)).Scan(&n); err != nil {
		return fmt.Errorf("store output of job %d: %w", id, err)
	}
	if n > 0 {
		return nil
	}
	return r.AppendOutputLines(ctx, id, lines)
}

// KeepSpooled tells the repository that jobs ids have a spool file on this
// host that is still to be handed in: their process may be gone, but they
// are not abandoned, and are not marked so (the hand-in ends them).
func (r *Repo) KeepSpooled(ids ...int64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.spooled == nil {
		r.spooled = map[int64]bool{}
	}
	for _, id := range ids {
		r.spooled[id] = true
	}
}

// isSpooled reports whether job id was said to have a spool (KeepSpooled).
func (r *Repo) isSpooled(id int64) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.spooled[id]
}

// OpenGroups lists the group runs whose job is still running.
func (r *Repo) OpenGroups(ctx context.Context) ([]RunGroup, error) {
	var ids []string
	err := r.readTx(ctx, "list running group runs", func(tx *repoTx) error {
		return eachRowArgs(ctx, tx, `SELECT g.run_id FROM run_group g JOIN job j ON j.id = g.job_id WHERE j.status = ?`,
			[]any{"running"}, func(rows *sql.Rows) error {
				var id string
				err := rows.Scan(&id)
				ids = append(ids, id)
				return err
			})
	})
	if err != nil {
		return nil, err
	}
	slices.Sort(ids)
	var out []RunGroup
	for _, id := range ids {
		g, err := r.RunGroup(ctx, id)
		if err != nil {
			return nil, err
		}
		out = append(out, g)
	}
	return out, nil
}
