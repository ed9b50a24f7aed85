package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/sledge-bench/sledge/internal/jobs"
	"github.com/sledge-bench/sledge/internal/metrics"
	"github.com/sledge-bench/sledge/internal/testdb/tpcctest"
)

// TestCHBenchmarkCLI builds, checks, runs and drops CH-benCHmark on its
// embedded SQLite default through the CLI: the mixed run's flags reach the
// job, and a run asking for analytic streams of another workload is
// refused before any job is recorded.
func TestCHBenchmarkCLI(t *testing.T) {
	if testing.Short() {
		t.Skip("builds")
	}
	t.Parallel()
	e := newEnv(t)
	_, err := e.run("run", "--workload", "tprocc", "--analytic-streams", "1")
	if err == nil || !strings.Contains(err.Error(), "--analytic-streams") || !strings.Contains(err.Error(), "chbench") {
		t.Errorf("run --workload tprocc --analytic-streams 1: %v, want the field refused", err)
	}
	// Analytic options that would do nothing are refused as flags.
	if _, err := e.run("run", "--workload", "chbench", "--analytic-delay", "1s"); err == nil || !strings.Contains(err.Error(), "--analytic-delay: applies to analytic streams") {
		t.Errorf("run --workload chbench --analytic-delay 1s without streams: %v, want the flag refused", err)
	}
	if _, err := e.run("run", "--workload", "chbench", "--analytic-streams", "1", "--duration", "2s", "--analytic-delay", "2s"); err == nil ||
		!strings.Contains(err.Error(), "--analytic-delay: 2s is not within the measured window") {
		t.Errorf("run --workload chbench --analytic-delay past the window: %v, want the flag refused", err)
	}
	if list := e.jobs(); len(list) != 0 {
		t.Errorf("a refused run recorded jobs: %v", list)
	}
	// A plain TPROC-C database is no CH-benCHmark build: refused, with the
	// command that makes one.
	tpcc := tpcctest.SQLite(t, tpcctest.Options{}, "")
	if _, err := e.run("run", "--workload", "chbench", "--db", tpcc, "--vu", "1", "--analytic-streams", "1", "--rampup", "0", "--duration", "2s"); err == nil ||
		!strings.Contains(err.Error(), "no CH-benCHmark schema") || !strings.Contains(err.Error(), "sledge build --workload chbench") {
		t.Errorf("run --workload chbench on a TPROC-C database: %v, want it refused with advice to build", err)
	}

	out := e.ok("build", "--workload", "chbench")
	if !strings.Contains(out, "built 1 warehouse: 608,846 rows") {
		t.Errorf("build output lacks the TPROC-C rows plus 10,067 added:\n%s", out)
	}
	out = e.ok("check", "--workload", "chbench")
	for _, want := range []string{"C12", "rows supplier", "customer nations", "all conditions hold"} {
		if !strings.Contains(out, want) {
			t.Errorf("check output lacks %q:\n%s", want, out)
		}
	}
	if chk := e.latest(jobs.KindCheck); chk["workload"] != "chbench" || chk["status"] != metrics.StatusCompleted {
		t.Errorf("check job %v", chk)
	}
	// SQLite runs the mixed run too: one VU, one stream from the start.
	out = e.ok("run", "--workload", "ch-benchmark", "--vu", "1", "--analytic-streams", "1", "--analytic-shuffle", "--seed", "3",
		"--rampup", "0", "--duration", "2s", "--interval", "1s")
	for _, want := range []string{"1 analytic stream, each in its own order (seed 3)", "analytic streams: 1, shuffled order", "baseline         none"} {
		if !strings.Contains(out, want) {
			t.Errorf("run output lacks %q:\n%s", want, out)
		}
	}
	if run := e.latest(jobs.KindRun); run["workload"] != "chbench" || run["status"] != metrics.StatusCompleted {
		t.Errorf("run job %v", run)
	}
	// TPROC-C's tables are CH-benCHmark's: dropping them alone is refused,
	// and the schema stays whole.
	chDB := "sqlite:" + filepath.Join(e.home(), "chbench.sqlite")
	if _, err := e.run("drop", "--yes", "--workload", "tprocc", "--db", chDB); err == nil ||
		!strings.Contains(err.Error(), "part of its CH-benCHmark schema: drop that (workload chbench)") {
		t.Errorf("drop --workload tprocc of a CH-benCHmark database: %v, want it refused", err)
	}
	if out := e.ok("check", "--workload", "chbench"); !strings.Contains(out, "all conditions hold") {
		t.Errorf("check after the refused drop:\n%s", out)
	}
	e.ok("drop", "--yes", "--workload", "chbench")
	if _, err := e.run("check", "--workload", "chbench"); err == nil || !strings.Contains(err.Error(), "sledge build --workload chbench") {
		t.Errorf("check after drop: %v, want advice to build", err)
	}
}
