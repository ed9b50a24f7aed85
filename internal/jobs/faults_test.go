package jobs

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sledge-bench/sledge/internal/metrics"
)

// A value that could not be measured is stored as NULL with its reason, and
// read back absent: never a 0 that "disagrees".
func TestAbsentValuesStoredAsNull(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, b backend) {
		ctx := context.Background()
		r := b.open(t)
		id := mustCreate(t, r, Job{Kind: KindRun}, nil)
		res := sampleRunResult()
		res.HasDBCheck, res.DBNewOrders, res.NOPMDBCheck, res.DBCheckAgree, res.DBCheckAllowance = false, 0, 0, false, 0
		res.DBCheckUnavailable = "the database's counters could not be read at the window start: connection refused"
		res.HasServerTPM, res.ServerTPM, res.ServerTPMUnavailable = false, 0, res.DBCheckUnavailable
		res.Disruption = nil
		if err := r.SaveRunResult(ctx, id, res); err != nil {
			t.Fatal(err)
		}
		var nulls int
		if err := r.db.QueryRowContext(ctx, `SELECT CASE WHEN db_new_orders IS NULL THEN 1 ELSE 0 END
			+ CASE WHEN nopm_db_check IS NULL THEN 1 ELSE 0 END + CASE WHEN db_check_agree IS NULL THEN 1 ELSE 0 END
			+ CASE WHEN db_check_allowance IS NULL THEN 1 ELSE 0 END + CASE WHEN server_tpm IS NULL THEN 1 ELSE 0 END
			FROM job_result WHERE job_id = ?`, id).Scan(&nulls); err != nil {
			t.Fatal(err)
		}
		if nulls != 5 {
			t.Errorf("%d of the 5 absent columns are NULL", nulls)
		}
		got, err := r.RunResult(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if got.HasDBCheck || got.DBCheckAgree || got.DBNewOrders != 0 || got.NOPMDBCheck != 0 || got.HasServerTPM ||
			got.DBCheckUnavailable != res.DBCheckUnavailable || got.ServerTPMUnavailable != res.ServerTPMUnavailable {
			t.Errorf("read back %+v", got)
		}
		if got.Disruption != nil {
			t.Errorf("disruption %+v for a run without one", got.Disruption)
		}
		// A measured server TPM is stored and read back.
		res.HasServerTPM, res.ServerTPM, res.ServerTPMMargin, res.ServerTPMUnavailable = true, 21000.5, 361.25, ""
		if err := r.SaveRunResult(ctx, id, res); err != nil {
			t.Fatal(err)
		}
		if got, _ = r.RunResult(ctx, id); !got.HasServerTPM || got.ServerTPM != 21000.5 || got.ServerTPMMargin != 361.25 {
			t.Errorf("server TPM %v %v ± %v", got.HasServerTPM, got.ServerTPM, got.ServerTPMMargin)
		}
	})
}

func TestFinishDegraded(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, b backend) {
		ctx := context.Background()
		r := b.open(t)
		id := mustCreate(t, r, Job{Kind: KindRun}, nil)
		other := mustCreate(t, r, Job{Kind: KindRun}, nil)
		if err := r.Finish(ctx, id, metrics.StatusDegraded, ""); err != nil {
			t.Fatal(err)
		}
		if err := r.Finish(ctx, other, metrics.StatusCompleted, ""); err != nil {
			t.Fatal(err)
		}
		if !slices.Contains(Statuses, metrics.StatusDegraded) {
			t.Errorf("Statuses %v lack degraded", Statuses)
		}
		f := ListFilter{Status: metrics.StatusDegraded}
		if err := f.Validate(); err != nil {
			t.Fatal(err)
		}
		list, err := r.List(ctx, f)
		if err != nil || len(list) != 1 || list[0].ID != id || list[0].Status != metrics.StatusDegraded || list[0].EndedAt.IsZero() {
			t.Fatalf("degraded jobs: %+v, %v", list, err)
		}
	})
}

// A repository of schema version 4 is migrated: its stored results keep
// their values, a cross-check that was not made (stored as 0 New-Orders that
// disagree) and a server TPM that was not available (stored negative) become
// absent with a reason.
func TestMigrateResultsFromV4(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "jobs.db")
	old, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	for v := 0; v < 4; v++ {
		if _, err := old.ExecContext(ctx, sqliteScript(t, v)); err != nil {
			t.Fatalf("schema %d: %v", v+1, err)
		}
	}
	now := fmtTime(time.Now())
	for id := 1; id <= 2; id++ {
		if _, err := old.ExecContext(ctx, `INSERT INTO job (id, kind, status, created_at, started_at, ended_at)
			VALUES (?, 'run', 'completed', ?, ?, ?)`, id, now, now, now); err != nil {
			t.Fatal(err)
		}
	}
	row := `INSERT INTO job_result (job_id, status, vus, warehouses, mode, isolation, rampup_s, duration_s, measured_s,
		nopm, tpm, new_orders, commits, errors, rolled_back, db_new_orders, nopm_db_check, db_check_agree, server_tpm,
		client_cpu_s, client_cpu_per_tx_us, warnings) VALUES (?, 'completed', 4, 1, 'procs', 'default', 2, 60, 60,
		1000, 2300, 1000, 2300, 0, 10, ?, ?, ?, ?, 1.5, 20, '')`
	if _, err := old.ExecContext(ctx, row, 1, 1001, 1001.0, 1, 5000.0); err != nil {
		t.Fatal(err)
	}
	if _, err := old.ExecContext(ctx, row, 2, 0, 0.0, 0, -1.0); err != nil {
		t.Fatal(err)
	}
	if _, err := old.ExecContext(ctx, "PRAGMA user_version = 4"); err != nil {
		t.Fatal(err)
	}
	old.Close()

	r, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if v, _ := userVersion(ctx, r.db); v != SchemaVersion || SchemaVersion < 5 {
		t.Fatalf("schema %d after migration, want %d (>= 5)", v, SchemaVersion)
	}
	measured, err := r.RunResult(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	if !measured.HasDBCheck || measured.DBNewOrders != 1001 || !measured.DBCheckAgree || measured.NOPMDBCheck != 1001 ||
		!measured.HasServerTPM || measured.ServerTPM != 5000 || measured.NOPM != 1000 || measured.Measured != time.Minute {
		t.Errorf("measured result after migration: %+v", measured)
	}
	absent, err := r.RunResult(ctx, 2)
	if err != nil {
		t.Fatal(err)
	}
	if absent.HasDBCheck || absent.DBCheckAgree || absent.HasServerTPM || !strings.Contains(absent.DBCheckUnavailable, "earlier") ||
		absent.ServerTPMUnavailable == "" || absent.NewOrders != 1000 {
		t.Errorf("result without a check after migration: %+v", absent)
	}
	// The new tables take a disruption.
	res := sampleRunResult()
	if err := r.SaveRunResult(ctx, 2, res); err != nil {
		t.Fatal(err)
	}
	if got, err := r.RunResult(ctx, 2); err != nil || fmt.Sprint(got.Disruption) != fmt.Sprint(res.Disruption) {
		t.Errorf("disruption after migration: %+v, %v", got.Disruption, err)
	}
}
