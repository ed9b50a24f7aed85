package jobs

// A job's console output: the lines appended while it runs, read back in
// order.

import (
	"context"
	"fmt"
	"time"
)

// AppendOutput stores one console line of the job. Id 0 — what callers hold
// when the job could not be recorded — is ignored, so that a repository
// failure at Create does not turn into one warning per line.
func (r *Repo) AppendOutput(ctx context.Context, id int64, line string) error {
	if id == 0 {
		return nil
	}
	if r.d.lockJob != "" {
		// PostgreSQL: concurrent statements would compute the same next
		// seq; the job's row lock makes appenders take turns.
		return r.AppendOutputLines(ctx, id, []OutputLine{{At: time.Now(), Line: line}})
	}
	// One statement: the next seq is computed under the write lock, so
	// concurrent appenders (even in other processes) cannot collide.
	res, err := r.db.ExecContext(ctx, `INSERT INTO job_output (job_id, seq, at, line)
		SELECT ?1, COALESCE((SELECT MAX(seq) FROM job_output WHERE job_id = ?1), 0) + 1, ?2, ?3
		WHERE EXISTS (SELECT 1 FROM job WHERE id = ?1`+notImported+`)`,
		id, fmtTime(time.Now()), redactText(line))
	if err != nil {
		return fmt.Errorf("store output of job %d: %w", id, err)
	}
	return refuseImported(ctx, r.db, res, id)
}

// AppendOutputLines stores console lines of the job in one transaction, each
// with the time it was written (the repository sink batches lines this way
// instead of one INSERT per line). Id 0 is ignored, as for AppendOutput.
func (r *Repo) AppendOutputLines(ctx context.Context, id int64, lines []OutputLine) error {
	if id == 0 || len(lines) == 0 {
		return nil
	}
	return r.inTx(ctx, fmt.Sprintf("store output of job %d", id), func(tx *repoTx) error {
		if err := lockJob(ctx, tx, id); err != nil {
			return err
		}
		var seq int
		if err := tx.QueryRowContext(ctx, "SELECT COALESCE(MAX(seq), 0) FROM job_output WHERE job_id = ?", id).Scan(&seq); err != nil {
			return err
		}
		stmt, err := tx.PrepareContext(ctx, "INSERT INTO job_output (job_id, seq, at, line) VALUES (?, ?, ?, ?)")
		if err != nil {
			return err
		}
		defer stmt.Close()
		for _, l := range lines {
			seq++
			at := l.At
			if at.IsZero() {
				at = time.Now()
			}
			if _, err := stmt.ExecContext(ctx, id, seq, fmtTime(at), redactText(l.Line)); err != nil {
				return err
			}
		}
		return nil
	})
}

// OutputLine is one stored console line.
type OutputLine struct {
	Seq  int
	At   time.Time
	Line string
}

// Output returns the job's console lines in order.
func (r *Repo) Output(ctx context.Context, id int64) ([]OutputLine, error) {
	var out []OutputLine
	err := r.readTx(ctx, fmt.Sprintf("read output of job %d", id), func(tx *repoTx) error {
		if err := requireJob(ctx, tx, id); err != nil {
			return err
		}
		rows, err := tx.QueryContext(ctx, "SELECT seq, at, line FROM job_output WHERE job_id = ? ORDER BY seq", id)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var (
				l  OutputLine
				at string
			)
			if err := rows.Scan(&l.Seq, &at, &l.Line); err != nil {
				return err
			}
			l.Line = redactText(l.Line) // again, for an older Sledge's lines
			if l.At, err = parseTime(at); err != nil {
				return err
			}
			out = append(out, l)
		}
		return rows.Err()
	})
	return out, err
}
