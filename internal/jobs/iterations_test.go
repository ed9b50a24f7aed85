package jobs

import (
	"context"
	"database/sql"
	"path/filepath"
	"reflect"
	"testing"
	"time"
)

// An iteration run's result keeps its count per VU, so that a stored result
// shows what the live one showed.
func TestIterationRunRoundTrip(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, b backend) {
		ctx := context.Background()
		r := b.open(t)
		id := mustCreate(t, r, Job{Kind: KindRun}, nil)
		want := sampleRunResult()
		want.Iterations, want.Rampup, want.Duration, want.Measured = 500, 0, 0, 12345*time.Millisecond
		if err := r.SaveRunResult(ctx, id, want); err != nil {
			t.Fatal(err)
		}
		got, err := r.RunResult(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("round trip differs:\n got %+v\nwant %+v", got, want)
		}
	})
}

// A repository of schema version 6 is migrated: its results are timed runs
// (iterations 0) and keep their values.
func TestMigrateResultsFromV6(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "jobs.db")
	old, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	for v := 0; v < 6; v++ {
		if _, err := old.ExecContext(ctx, sqliteScript(t, v)); err != nil {
			t.Fatalf("schema %d: %v", v+1, err)
		}
	}
	now := fmtTime(time.Now())
	if _, err := old.ExecContext(ctx, `INSERT INTO job (id, kind, status, created_at, started_at, ended_at)
		VALUES (1, 'run', 'completed', ?, ?, ?)`, now, now, now); err != nil {
		t.Fatal(err)
	}
	if _, err := old.ExecContext(ctx, `INSERT INTO job_result (job_id, status, vus, warehouses, mode, isolation,
		rampup_s, duration_s, measured_s, nopm, tpm, new_orders, commits, errors, rolled_back, client_cpu_s,
		client_cpu_per_tx_us, warnings) VALUES (1, 'completed', 4, 1, 'procs', 'default', 2, 60, 60, 1000, 2300,
		1000, 2300, 0, 10, 1.5, 20, '')`); err != nil {
		t.Fatal(err)
	}
	if _, err := old.ExecContext(ctx, "PRAGMA user_version = 6"); err != nil {
		t.Fatal(err)
	}
	old.Close()

	r, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if v, _ := userVersion(ctx, r.db); v != SchemaVersion || SchemaVersion < 7 {
		t.Fatalf("schema %d after migration, want %d (>= 7)", v, SchemaVersion)
	}
	res, err := r.RunResult(ctx, 1)
	if err != nil || res == nil {
		t.Fatalf("result after migration: %v, %v", res, err)
	}
	if res.Iterations != 0 || res.Duration != time.Minute || res.NOPM != 1000 {
		t.Errorf("result after migration: iterations %d, duration %s, NOPM %g; want a timed run of 1m at 1000",
			res.Iterations, res.Duration, res.NOPM)
	}
}
