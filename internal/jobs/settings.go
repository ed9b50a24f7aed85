package jobs

// A job's key/value records: its settings (job_config) and the facts about
// the client machine (job_system).

import (
	"context"
	"fmt"
	"strings"
)

// putKV upserts key/value rows into job_config or job_system.
func putKV(ctx context.Context, tx *repoTx, table string, id int64, kv map[string]string) error {
	if len(kv) == 0 {
		return nil
	}
	// table is one of two constants, never user input.
	stmt, err := tx.PrepareContext(ctx, "INSERT INTO "+table+" (job_id, key, value) VALUES (?, ?, ?) "+
		"ON CONFLICT (job_id, key) DO UPDATE SET value = excluded.value")
	if err != nil {
		return err
	}
	defer stmt.Close()
	for k, v := range kv {
		if _, err := stmt.ExecContext(ctx, id, k, v); err != nil {
			return fmt.Errorf("store %s %q: %w", table, k, err)
		}
	}
	return nil
}

// SetSystem records (adds to or replaces) facts about the client machine.
func (r *Repo) SetSystem(ctx context.Context, id int64, kv map[string]string) error {
	return r.inTx(ctx, fmt.Sprintf("set system info of job %d", id), func(tx *repoTx) error {
		if err := lockJob(ctx, tx, id); err != nil {
			return err
		}
		return putKV(ctx, tx, "job_system", id, redactConfig(kv))
	})
}

// AddConfig records more settings of a job: what it resolved once it
// started (a run's mode, seed, warehouses …). Existing keys are replaced.
func (r *Repo) AddConfig(ctx context.Context, id int64, kv map[string]string) error {
	if id == 0 || len(kv) == 0 {
		return nil
	}
	return r.inTx(ctx, fmt.Sprintf("record settings of job %d", id), func(tx *repoTx) error {
		if err := lockJob(ctx, tx, id); err != nil {
			return err
		}
		return putKV(ctx, tx, "job_config", id, redactConfig(kv))
	})
}

// Config returns the job's settings (redacted when stored).
func (r *Repo) Config(ctx context.Context, id int64) (map[string]string, error) {
	return r.kv(ctx, "job_config", id)
}

// System returns what was recorded about the client machine.
func (r *Repo) System(ctx context.Context, id int64) (map[string]string, error) {
	return r.kv(ctx, "job_system", id)
}

func (r *Repo) kv(ctx context.Context, table string, id int64) (map[string]string, error) {
	var out map[string]string
	err := r.readTx(ctx, fmt.Sprintf("read %s of job %d", strings.TrimPrefix(table, "job_"), id), func(tx *repoTx) error {
		if err := requireJob(ctx, tx, id); err != nil {
			return err
		}
		var err error
		out, err = kvIn(ctx, tx, table, id)
		return err
	})
	if err != nil {
		return nil, err
	}
	// Stored redacted; again, for a repository an older Sledge wrote.
	return redactConfig(out), nil
}

// JobsWithSetting lists, oldest first, the jobs whose setting key has value
// (the trials of a series: "series", the first trial's id).
func (r *Repo) JobsWithSetting(ctx context.Context, key, value string) ([]int64, error) {
	var ids []int64
	err := r.readTx(ctx, fmt.Sprintf("find the jobs with %s %s", key, value), func(tx *repoTx) error {
		rows, err := tx.QueryContext(ctx, "SELECT job_id FROM job_config WHERE key = ? AND value = ? ORDER BY job_id", key, value)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var id int64
			if err := rows.Scan(&id); err != nil {
				return err
			}
			ids = append(ids, id)
		}
		return rows.Err()
	})
	return ids, err
}

// kvIn reads job id's key/value rows of table (job_config or job_system)
// in tx.
func kvIn(ctx context.Context, tx *repoTx, table string, id int64) (map[string]string, error) {
	out := map[string]string{}
	rows, err := tx.QueryContext(ctx, "SELECT key, value FROM "+table+" WHERE job_id = ?", id)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var k, v string
		if err := rows.Scan(&k, &v); err != nil {
			return nil, err
		}
		out[k] = v
	}
	return out, rows.Err()
}
