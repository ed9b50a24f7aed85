package app

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/sledge-bench/sledge/internal/config"
	"github.com/sledge-bench/sledge/internal/metrics"
	"github.com/sledge-bench/sledge/internal/report"
)

// TestServiceIterationRunSQLite: an iteration run through the service ends
// on its own after vu × iterations transactions, whatever its spec's ramp-up
// and duration, and its stored result, settings and report say what it was.
func TestServiceIterationRunSQLite(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs on SQLite")
	}
	parallel(t)
	svc, repo := newService(t)
	ctx := context.Background()
	target := tpccSQLite(t, "c.db")

	const vus, n = 2, 100
	run := config.New(config.KindRun)
	run.DB, run.VU, run.Iterations = target, vus, n
	// Not used by an iteration run: an hour of either would hold this test.
	run.Rampup, run.Duration, run.Interval = config.Duration(time.Hour), config.Duration(time.Hour), config.Duration(200*time.Millisecond)
	var out bytes.Buffer
	began := time.Now()
	o, err := svc.Run(ctx, Request{Spec: run, Console: &out})
	if err != nil || o.Status != metrics.StatusCompleted || o.Run == nil {
		t.Fatalf("run: %+v %v\n%s", o, err, out.String())
	}
	if d := time.Since(began); d > time.Minute {
		t.Fatalf("the run took %s: the ramp-up or duration was used", d)
	}
	res := o.Run
	if res.Iterations != n || res.Rampup != 0 || res.Duration != 0 || res.Commits+res.RolledBack+res.Errors != vus*n {
		t.Errorf("result: iterations %d, rampup %s, duration %s, %d commits + %d rolled back + %d errors, want %d in all",
			res.Iterations, res.Rampup, res.Duration, res.Commits, res.RolledBack, res.Errors, vus*n)
	}
	for _, want := range []string{"2 VUs, mode sql, 100 transactions per VU (an iteration run)",
		"iteration run: each of the 2 virtual users runs 100 transactions", "s elapsed: iteration run, 100 transactions per VU"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("console lacks %q:\n%s", want, out.String())
		}
	}

	stored, err := repo.RunResult(ctx, o.ID)
	if err != nil || stored == nil || stored.Iterations != n || stored.Measured != res.Measured {
		t.Fatalf("stored result %+v, %v", stored, err)
	}
	j, err := repo.Get(ctx, o.ID)
	if err != nil {
		t.Fatal(err)
	}
	var shown bytes.Buffer
	if err := report.StoredRunResult(&shown, "TPROC-C", j, stored); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(shown.String(), report.WindowText(res)) {
		t.Errorf("stored report lacks the live window line %q:\n%s", report.WindowText(res), shown.String())
	}
	cfg, _ := repo.Config(ctx, o.ID)
	if cfg["iterations"] != "100" || cfg["rampup"] != "0s" || cfg["duration"] != "" {
		t.Errorf("settings: iterations %q, rampup %q, duration %q; want 100, 0s and none", cfg["iterations"], cfg["rampup"], cfg["duration"])
	}
}

// Only TPROC-C runs count iterations: TPROC-H refuses them by field.
func TestServiceIterationsRefusedByTPROCH(t *testing.T) {
	parallel(t)
	svc, repo := newService(t)
	s := config.New(config.KindRun)
	s.Workload, s.Iterations = "tproch", 10
	_, err := svc.Start(context.Background(), Request{Spec: s})
	if f := config.Fields(err); len(f) != 1 || f[0].Field != "iterations" || !strings.HasPrefix(f[0].Msg, "iterations") {
		t.Errorf("tproch with iterations: %v, want one field error for iterations", err)
	}
	s.Workload = "tprocc"
	if _, _, err := svc.Resolve(s); err != nil {
		t.Errorf("tprocc with iterations: %v", err)
	}
	if n := jobCount(t, repo); n != 0 {
		t.Errorf("%d jobs recorded", n)
	}
}
