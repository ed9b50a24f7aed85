package tproch

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/sledge-bench/sledge/internal/config"
	"github.com/sledge-bench/sledge/internal/db"
)

// TestLoadTotal: the total is every table's generated row count
// (8,661,245 at SF 1, LINEITEM 6,001,215), and 0 when the context ends
// before it is known.
func TestLoadTotal(t *testing.T) {
	t.Parallel()
	g := mustGen(t, 1)
	if n := loadTotal(context.Background(), g); n != 8661245 {
		t.Errorf("SF 1 total %d, want 8661245", n)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if n := loadTotal(ctx, g); n != 0 {
		t.Errorf("SF 1 total with the context ended: %d, want 0", n)
	}
}

// TestBuildSmallScales builds the small test scales on every engine: the
// keys are unique (PostgreSQL's and MariaDB's primary keys refuse repeats;
// dbgen's PARTSUPP repeats suppliers at SF 0.001 and 0.005), the load's
// progress counts rows that exist of the total that is loaded (never an
// estimate the end contradicts), and the power test with the refresh
// functions says when they had nothing to do (below SF 0.007) and then
// leaves out the power figure.
func TestBuildSmallScales(t *testing.T) {
	if testing.Short() {
		t.Skip("builds three scales on three engines")
	}
	t.Parallel()
	for _, e := range engines() {
		for _, sf := range []float64{0.001, 0.005, 0.01} {
			t.Run(fmt.Sprintf("%s/%g", e.name, sf), func(t *testing.T) {
				t.Parallel()
				ctx := context.Background()
				tg := e.tg(t)
				var (
					mu     sync.Mutex
					load   []Progress
					phases []string
				)
				rep, err := Build(ctx, e.drv, tg, BuildOptions{SF: sf, Workers: 2,
					Progress: func(p Progress) {
						mu.Lock()
						defer mu.Unlock()
						if len(phases) == 0 || phases[len(phases)-1] != p.Phase {
							phases = append(phases, p.Phase)
						}
						if p.Phase == "load" {
							load = append(load, p)
						}
					}})
				if err != nil {
					t.Fatal(err)
				}
				g := mustGen(t, sf)
				if want := loadTotal(ctx, g); rep.Rows != want || rep.Tables["lineitem"] != g.ExactLineitemRows() {
					t.Errorf("built %d rows (%d lines), want %d (%d)", rep.Rows, rep.Tables["lineitem"], want, g.ExactLineitemRows())
				}
				// What the database holds (MariaDB's LOAD DATA LOCAL skips a
				// row that repeats a key, with a warning only).
				c, err := e.drv.Connect(ctx, tg, db.Options{})
				if err != nil {
					t.Fatal(err)
				}
				defer c.Close(ctx)
				for _, tb := range Tables() {
					var n int64
					if err := c.QueryRow(ctx, "SELECT count(*) FROM "+tb.String()).Scan(&n); err != nil || n != rep.Tables[tb.String()] {
						t.Errorf("%s holds %d rows (%v), the build loaded %d", tb, n, err, rep.Tables[tb.String()])
					}
				}
				mu.Lock()
				// "prepare" only where the text pool was not ready (it is
				// built once per process).
				if got := strings.Join(phases, " "); got != "schema load index analyze" && got != "schema prepare load index analyze" {
					t.Errorf("phases %q", got)
				}
				if len(load) == 0 {
					t.Error("no load progress reported")
				}
				var done int64
				for i, p := range load {
					if p.RowsTotal != rep.Rows || p.RowsDone < done || p.RowsDone > p.RowsTotal {
						t.Errorf("load progress %d: %d of %d rows (after %d), want of %d", i, p.RowsDone, p.RowsTotal, done, rep.Rows)
					}
					done = p.RowsDone
				}
				if done != rep.Rows {
					t.Errorf("load progress ended at %d rows, want %d", done, rep.Rows)
				}
				mu.Unlock()

				acts := sf >= MinRefreshSF
				var lines []string // Logf is called from the run's goroutine only (no throughput test)
				res, err := Run(ctx, e.drv, tg, RunOptions{Refresh: true, Seed: 1,
					Logf: func(f string, a ...any) { lines = append(lines, fmt.Sprintf(f, a...)) }})
				if err != nil {
					t.Fatal(err)
				}
				said := slices.ContainsFunc(lines, func(l string) bool {
					return strings.Contains(l, "refresh functions insert and delete no orders")
				})
				if said == acts {
					t.Errorf("run's lines %q: said the refresh functions do nothing: %v, want %v", lines, said, !acts)
				}
				if acts != (g.RefreshRows() > 0) {
					t.Errorf("%d orders per update set at SF %g, MinRefreshSF %g", g.RefreshRows(), sf, MinRefreshSF)
				}
				for _, f := range res.Refreshes {
					if f.Error != "" || (f.Rows > 0) != acts {
						t.Errorf("%s: %d rows, %q; want rows: %v", f.Function, f.Rows, f.Error, acts)
					}
				}
				warned := slices.ContainsFunc(res.Warnings, func(w string) bool {
					return strings.Contains(w, "changed no rows") && strings.Contains(w, "act from scale factor 0.007")
				})
				if len(res.Refreshes) != 2 || math.IsNaN(res.Power) == acts || warned == acts || math.IsNaN(res.GeomeanS) {
					t.Errorf("refreshes %+v: power %v, geomean %v, warnings %q", res.Refreshes, res.Power, res.GeomeanS, res.Warnings)
				}
			})
		}
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
