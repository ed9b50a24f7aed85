package tproch

import (
	"context"
	"path/filepath"
	"strconv"
	"sync"
	"testing"

	"github.com/sledge-bench/sledge/internal/config"
	"github.com/sledge-bench/sledge/internal/db"
	"github.com/sledge-bench/sledge/internal/db/duckdb"
)

// TestLoadTotal: the exact total is every table's generated row count
// (8,661,245 at SF 1, LINEITEM 6,001,215); the estimate counts 4 lines per
// order.
func TestLoadTotal(t *testing.T) {
	t.Parallel()
	g := mustGen(t, 1)
	if n := loadTotal(g, true); n != 8661245 {
		t.Errorf("exact SF 1 total %d, want 8661245", n)
	}
	if n := loadTotal(g, false); n != 8661245-6001215+4*1500000 {
		t.Errorf("estimated SF 1 total %d, want %d", n, 8661245-6001215+4*1500000)
	}
}

// TestBuildProgressEndsAtTotal: the load phase's last report is every row
// loaded of a total that is the real count, so the bar ends full.
func TestBuildProgressEndsAtTotal(t *testing.T) {
	t.Parallel()
	tg := db.Target{Kind: db.DuckDB, DSN: filepath.Join(t.TempDir(), "h.duckdb")}
	var (
		mu   sync.Mutex
		load []Progress
	)
	rep, err := Build(context.Background(), duckdb.Driver{}, tg, BuildOptions{SF: testSF, Workers: 2,
		Progress: func(p Progress) {
			if p.Phase == "load" {
				mu.Lock()
				load = append(load, p)
				mu.Unlock()
			}
		}})
	if err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(load) == 0 {
		t.Fatal("no load progress reported")
	}
	if want := loadTotal(mustGen(t, testSF), true); rep.Rows != want {
		t.Errorf("built %d rows, want the exact total %d", rep.Rows, want)
	}
	if last := load[len(load)-1]; last.RowsDone != rep.Rows || last.RowsTotal != rep.Rows {
		t.Errorf("last load progress %d of %d, want %d of %d", last.RowsDone, last.RowsTotal, rep.Rows, rep.Rows)
	}
}

// TestAnalyticSettingsSeed: a run without --seed records the seed it will
// use (mmddhhmmss), never 0; a given seed is kept.
func TestAnalyticSettingsSeed(t *testing.T) {
	t.Parallel()
	s := config.New(config.KindRun).MustParse()
	s.Seed = 0
	kv := Workload{}.AnalyticSettings(&s)
	if s.Seed == 0 {
		t.Fatal("seed left 0: the run would choose another one than the recorded")
	}
	if kv["seed"] != strconv.FormatUint(s.Seed, 10) {
		t.Errorf("recorded seed %q, run's seed %d", kv["seed"], s.Seed)
	}
	s.Seed = 7
	if kv := (Workload{}).AnalyticSettings(&s); s.Seed != 7 || kv["seed"] != "7" {
		t.Errorf("given seed 7: spec %d, recorded %q", s.Seed, kv["seed"])
	}
}

// TestValidateRefusesPerVUTiming: per-VU timing is the OLTP engine's; a
// TPROC-H run refuses it by its field, a build does not look at it.
func TestValidateRefusesPerVUTiming(t *testing.T) {
	t.Parallel()
	run := config.Plan{Spec: config.Spec{Kind: config.KindRun, PerVUTiming: true}}
	if errs := (Workload{}).Validate(run); len(errs) != 1 || errs[0].Field != "per_vu_timing" {
		t.Errorf("run with per_vu_timing: %v, want one error for per_vu_timing", errs)
	}
	run.PerVUTiming = false
	if errs := (Workload{}).Validate(run); len(errs) != 0 {
		t.Errorf("run without: %v", errs)
	}
}
