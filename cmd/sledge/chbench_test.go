package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/sledge-bench/sledge/internal/jobs"
	"github.com/sledge-bench/sledge/internal/metrics"
)

// TestCHBenchmarkCLI builds, checks and drops CH-benCHmark on its embedded
// SQLite default through the CLI, and finds its run refused with the
// reason: the mixed run does not exist yet.
func TestCHBenchmarkCLI(t *testing.T) {
	if testing.Short() {
		t.Skip("builds")
	}
	t.Parallel()
	e := newEnv(t)
	for _, name := range []string{"chbench", "ch-benchmark"} {
		_, err := e.run("run", "--workload", name)
		if err == nil || !strings.Contains(err.Error(), "CH-benCHmark run") || !strings.Contains(err.Error(), "not available yet") ||
			strings.Contains(err.Error(), "has no run jobs") {
			t.Errorf("run --workload %s: %v, want one error saying the run is not available yet", name, err)
		}
	}
	if list := e.jobs(); len(list) != 0 {
		t.Errorf("a refused run recorded jobs: %v", list)
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
