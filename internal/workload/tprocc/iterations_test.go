package tprocc

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/sledge-bench/sledge/internal/db"
	"github.com/sledge-bench/sledge/internal/db/postgres"
	"github.com/sledge-bench/sledge/internal/db/sqlite"
	"github.com/sledge-bench/sledge/internal/engine"
	"github.com/sledge-bench/sledge/internal/metrics"
)

// runIterations runs an iteration run of vus × n transactions against a
// built schema and checks what HammerDB's test driver promises: every VU ran
// exactly n (the counted attempts add up to vus × n), the run ended on its
// own, and the rates are over the elapsed time — the database's count of
// New-Orders agreeing exactly, since nothing runs at either edge.
func runIterations(t *testing.T, drv db.Driver, tg db.Target, vus, n int) *metrics.RunResult {
	t.Helper()
	ctx := context.Background()
	r, err := NewRunner(ctx, drv, tg, RunOptions{Seed: 11})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close(ctx)
	out := &logOutput{t: t}
	began := time.Now()
	res, err := engine.Run(ctx, r, engine.Config{VUs: vus, Iterations: n, Interval: 200 * time.Millisecond, MaxRetries: 5, StallAfter: runStallAfter}, out)
	if err != nil {
		t.Fatal(err)
	}
	wall := time.Since(began)
	if res.Status != metrics.StatusCompleted || res.Iterations != n {
		t.Fatalf("status %s, iterations %d", res.Status, res.Iterations)
	}
	var attempts int64
	for _, tx := range res.Tx {
		attempts += tx.Count + tx.RolledBack + tx.ErrorCount()
	}
	if want := int64(vus * n); attempts != want || res.Commits+res.RolledBack+res.Errors != want {
		t.Errorf("%d transactions counted (commits %d, rolled back %d, errors %d), want %d × %d = %d",
			attempts, res.Commits, res.RolledBack, res.Errors, vus, n, want)
	}
	if res.Measured <= 0 || res.Measured > wall {
		t.Errorf("elapsed %s, want within the run's %s", res.Measured, wall)
	}
	if want := float64(res.NewOrders) / res.Measured.Minutes(); res.NewOrders == 0 || math.Abs(res.NOPM-want) > 1e-9*want {
		t.Errorf("NOPM %g with %d New-Orders over %s, want %g", res.NOPM, res.NewOrders, res.Measured, want)
	}
	if !res.HasDBCheck || res.DBNewOrders != res.NewOrders {
		t.Errorf("database counted %d New-Orders, the client %d (%s)", res.DBNewOrders, res.NewOrders, res.DBCheckUnavailable)
	}
	// The intervals, all measured, hold every commit; the last ends with
	// the window.
	var sum int64
	for _, iv := range out.iv {
		for _, tx := range iv.Tx {
			sum += tx.Count
		}
	}
	if len(out.iv) == 0 || out.iv[len(out.iv)-1].Elapsed < res.Measured || sum != res.Commits {
		t.Errorf("%d intervals holding %d commits (result %d), the last not at the window's end %s", len(out.iv), sum, res.Commits, res.Measured)
	}
	t.Logf("%s: %d × %d transactions in %s: NOPM %.0f, TPM %.0f", drv.Kind(), vus, n, res.Measured, res.NOPM, res.TPM)
	return res
}

func TestIterationsSQLite(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs")
	}
	t.Parallel()
	drv := sqlite.Driver{}
	tg := built(t, db.SQLite, 1, 3)
	runIterations(t, drv, tg, 2, 150)
	requireConsistent(t, drv, tg, "after the iteration run")
}

func TestIterationsPostgres(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs")
	}
	t.Parallel()
	drv := postgres.Driver{}
	tg := built(t, db.Postgres, 1, 3)
	runIterations(t, drv, tg, 4, 250)
	requireConsistent(t, drv, tg, "after the iteration run")
}
