package chbench

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sledge-bench/sledge/internal/config"
	"github.com/sledge-bench/sledge/internal/db"
	"github.com/sledge-bench/sledge/internal/db/postgres"
	"github.com/sledge-bench/sledge/internal/db/sqlite"
	"github.com/sledge-bench/sledge/internal/metrics"
	"github.com/sledge-bench/sledge/internal/testdb/tpcctest"
	"github.com/sledge-bench/sledge/internal/workload"
)

// TestStreamsUnreachable: streams whose database refuses them try until the
// window's end, then say so; the run's analytic half is empty, not absent.
// Interrupted, the streams' time is what they had, not the planned window.
func TestStreamsUnreachable(t *testing.T) {
	t.Parallel()
	tg, err := db.ParseTarget("postgres://nobody@127.0.0.1:1/none")
	if err != nil {
		t.Fatal(err)
	}
	p := config.Plan{Spec: config.New(config.KindRun)}
	p.Rampup, p.Duration, p.AnalyticStreams, p.Seed = 0, config.Duration(time.Second), 2, 5
	env := workload.Env{Driver: postgres.Driver{}, Target: tg}
	b, err := newStreams(env, p)
	if err != nil {
		t.Fatalf("newStreams: %v", err)
	}
	if set := b.Settings(); set["analytic_streams"] != "2" || set["analytic_seed"] != "5" || set["analytic_order"] != "paper" {
		t.Errorf("settings %v", set)
	}
	b.Run(context.Background(), time.Now())
	var res metrics.RunResult
	b.Complete(&res, nil)
	m := res.Mixed
	if m == nil || m.Queries != 0 || len(m.Runs) != 0 || len(m.Warnings) != 2 || !strings.Contains(m.Warnings[0], "could not connect") {
		t.Fatalf("mixed result %+v", m)
	}

	// Interrupted a moment into an hour's window.
	p.Duration = config.Duration(time.Hour)
	if b, err = newStreams(env, p); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	t0 := time.Now()
	time.AfterFunc(50*time.Millisecond, cancel)
	b.Run(ctx, t0)
	had := time.Since(t0).Seconds()
	res = metrics.RunResult{}
	b.Complete(&res, nil)
	if m := res.Mixed; m.AnalyticSeconds <= 0 || m.AnalyticSeconds > had {
		t.Errorf("interrupted after %g s: analytic seconds %g, want what the streams had", had, m.AnalyticSeconds)
	}

	// A run of workload chbench needs a CH-benCHmark build, even without
	// streams; here it cannot even connect.
	p.AnalyticStreams = 0
	if b, err := (Workload{}).PrepareBeside(context.Background(), env, p); b != nil || err == nil {
		t.Errorf("no streams on an unreachable database: %v, %v", b, err)
	}
}

// TestPrepareBesideNeedsBuild: a plain TPROC-C database (whose run
// PrepareRun accepts) is refused as holding no CH-benCHmark schema, a
// workload.SchemaError the front end words with its advice.
func TestPrepareBesideNeedsBuild(t *testing.T) {
	t.Parallel()
	tg, err := db.ParseTarget(tpcctest.SQLite(t, tpcctest.Options{}, ""))
	if err != nil {
		t.Fatal(err)
	}
	p := config.Plan{Spec: config.New(config.KindRun)}
	p.Duration, p.AnalyticStreams = config.Duration(time.Second), 1
	b, err := Workload{}.PrepareBeside(context.Background(), workload.Env{Driver: sqlite.Driver{}, Target: tg}, p)
	var se *workload.SchemaError
	if b != nil || !errors.As(err, &se) || !errors.Is(err, workload.ErrNoSchema) || se.Workload != Name {
		t.Errorf("PrepareBeside on a TPROC-C database: %v, %v; want a SchemaError (no schema) of chbench", b, err)
	}
}

// TestStreamFailures: a stream whose queries fail at once backs off after
// each failure (longer after each in a row) and stops after maxErrors in a
// row, saying why, instead of spinning until the window's end; past
// maxRuns executions are dropped and counted, not kept.
func TestStreamFailures(t *testing.T) {
	t.Parallel()
	tg := db.Target{Kind: db.SQLite, DSN: filepath.Join(t.TempDir(), "x.sqlite")}
	p := config.Plan{Spec: config.New(config.KindRun)}
	p.Duration, p.AnalyticStreams = config.Duration(time.Hour), 2
	for _, tc := range []struct {
		name  string
		query string
	}{
		{"failing", "SELECT * FROM no_such_table"},
		{"many", "SELECT 1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s, err := newStreams(workload.Env{Driver: sqlite.Driver{}, Target: tg}, p)
			if err != nil {
				t.Fatal(err)
			}
			for i := range s.queries {
				s.queries[i] = tc.query
			}
			s.fresh = "SELECT 0"
			s.pause, s.maxErrors, s.maxRuns = time.Millisecond, 5, 30
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			if tc.name == "many" {
				// Ended once past the cap (the streams never fail).
				go func() {
					for {
						s.mu.Lock()
						d := s.dropped
						s.mu.Unlock()
						if d > 0 {
							cancel()
							return
						}
						time.Sleep(time.Millisecond)
					}
				}()
			}
			s.Run(ctx, time.Now())
			var res metrics.RunResult
			s.Complete(&res, nil)
			m := res.Mixed
			switch tc.name {
			case "failing":
				if len(m.Runs) != 2*5 || m.QueryErrors != 2*5 || len(m.Warnings) != 2 || !strings.Contains(m.Warnings[0], "stopped after 5 failed queries in a row") {
					t.Fatalf("%d runs, %d errors, warnings %q: want each stream stopped after 5", len(m.Runs), m.QueryErrors, m.Warnings)
				}
				// The waits double: 1, 2, 4, 8 ms between a stream's failures.
				gap := map[int]time.Duration{}
				last := map[int]time.Duration{}
				for _, r := range m.Runs {
					if e, ok := last[r.Stream]; ok {
						if want := time.Millisecond << gap[r.Stream]; r.Start-e < want {
							t.Errorf("stream %d waited %s after failure %d, want at least %s", r.Stream, r.Start-e, gap[r.Stream]+1, want)
						}
						gap[r.Stream]++
					}
					last[r.Stream] = r.End
				}
			case "many":
				if len(m.Runs) != 30 || m.Queries != 30 || len(m.Warnings) != 1 || !strings.Contains(m.Warnings[0], "the first 30 only") {
					t.Fatalf("%d runs, %d queries, warnings %q: want 30 kept and the rest said dropped", len(m.Runs), m.Queries, m.Warnings)
				}
			}
		})
	}
}
