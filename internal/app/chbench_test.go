package app

import (
	"bytes"
	"context"
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/sledge-bench/sledge/internal/config"
	"github.com/sledge-bench/sledge/internal/db"
	"github.com/sledge-bench/sledge/internal/db/drivers"
	"github.com/sledge-bench/sledge/internal/metrics"
	"github.com/sledge-bench/sledge/internal/observe"
	"github.com/sledge-bench/sledge/internal/testdb"
	"github.com/sledge-bench/sledge/internal/workload/chbench"
	"github.com/sledge-bench/sledge/internal/workload/tprocc"
)

// chbenchBuild builds CH-benCHmark with 2 warehouses on the empty database
// at url (the template of the mixed-run tests).
func chbenchBuild(ctx context.Context, url string) error {
	tg, err := db.ParseTarget(url)
	if err != nil {
		return err
	}
	drv, err := drivers.For(tg.Kind)
	if err != nil {
		return err
	}
	_, err = chbench.Build(ctx, drv, tg, chbench.BuildOptions{BuildOptions: tprocc.BuildOptions{
		Warehouses: 2, Workers: 2, Seed: config.DefaultBuildSeed}})
	return err
}

// TestCHBenchmarkMixed runs CH-benCHmark's mixed run through the service on
// PostgreSQL and MariaDB, on 2 warehouses copied from a template: 2 TPROC-C
// VUs and 1 analytic stream that starts 2 s into a 6 s window. Both halves
// are measured (the baseline's and the mixed part's NOPM, the streams'
// queries and their freshness), the cross-check agrees, and the analytic
// half is stored with the job.
func TestCHBenchmarkMixed(t *testing.T) {
	if testing.Short() {
		t.Skip("builds CH-benCHmark and runs it on PostgreSQL and MariaDB")
	}
	parallel(t)
	g := testdb.NewTogether(t) // (counted in by parallel, with its subtests)
	for _, tc := range []struct {
		name string
		url  func(t testing.TB) string
	}{
		{"postgres", func(t testing.TB) string { return testdb.PostgresFrom(t, "chbench w2", chbenchBuild) }},
		{"mariadb", func(t testing.TB) string { return testdb.MariaDBFrom(t, "chbench w2", chbenchBuild) }},
	} {
		g.Run(tc.name, func(t *testing.T) {
			svc, repo := newService(t)
			ctx := context.Background()
			url := tc.url(t)
			run := config.New(config.KindRun)
			run.Workload, run.DB, run.VU, run.Seed = "chbench", url, 2, 7
			run.Rampup, run.Duration, run.Interval = 0, config.Duration(6*time.Second), config.Duration(time.Second)
			run.AnalyticStreams, run.AnalyticDelay = 1, config.Duration(2*time.Second)
			var (
				out   bytes.Buffer
				o     Outcome
				err   error
				since float64
			)
			// A query cut by the window's end is not counted: on a busy
			// machine MariaDB's Q1 may outlast a 4 s mixed part, so a run
			// that completed no query is tried again with twice the window.
			for window := 6 * time.Second; ; window *= 2 {
				run.Duration = config.Duration(window)
				out.Reset()
				began := time.Now()
				o, err = svc.Run(ctx, Request{Spec: run, Console: &out})
				since = time.Since(began).Seconds()
				if err != nil || o.Run == nil || o.Run.Mixed == nil || o.Run.Mixed.Queries > 0 || window >= 24*time.Second {
					break
				}
				t.Logf("no query completed in a %s window: again with %s", window, 2*window)
			}
			if err != nil || o.Status != metrics.StatusCompleted || o.Run == nil || o.Run.Mixed == nil {
				t.Fatalf("run: %+v %v\n%s", o, err, out.String())
			}
			r, m := o.Run, o.Run.Mixed
			if !r.HasDBCheck || !r.DBCheckAgree || r.NewOrders == 0 {
				t.Errorf("cross-check: has %v, agree %v, %d New-Orders\n%s", r.HasDBCheck, r.DBCheckAgree, r.NewOrders, out.String())
			}
			// The window's intervals: 2 before the stream, the rest with it.
			if !(m.BaselineNOPM > 0 && m.MixedNOPM > 0 && m.Interference > 0) || m.BaselineSeconds >= m.MixedSeconds {
				t.Errorf("baseline NOPM %g over %g s, mixed %g over %g s, interference %g",
					m.BaselineNOPM, m.BaselineSeconds, m.MixedNOPM, m.MixedSeconds, m.Interference)
			}
			// Each part has the transactions' latencies, New-Order's first
			// (the run's order of types), from real histograms.
			for part, txs := range map[string][]metrics.MixedTxLatency{"baseline": m.BaselineTx, "mixed": m.MixedTx} {
				if len(txs) != 5 || txs[0].Name != "new_order" || txs[0].Count == 0 || txs[0].P50 <= 0 || txs[0].P99 < txs[0].P50 {
					t.Errorf("%s latencies %+v, want the five types, New-Order measured", part, txs)
				}
			}
			// The client's NOPM over the window lies between its parts'.
			if lo, hi := min(m.BaselineNOPM, m.MixedNOPM), max(m.BaselineNOPM, m.MixedNOPM); r.NOPM < lo*0.9 || r.NOPM > hi*1.1 {
				t.Errorf("window NOPM %g outside its parts' %g … %g", r.NOPM, lo, hi)
			}
			if m.Queries == 0 || m.QueryErrors != 0 || len(m.PerQuery) == 0 || !(m.QuerySetsPerHour > 0) {
				t.Errorf("queries %d (errors %d), per query %d, sets/hour %g\n%s", m.Queries, m.QueryErrors, len(m.PerQuery), m.QuerySetsPerHour, out.String())
			}
			for _, q := range m.Runs {
				if q.Stream != 1 || q.Start < 2*time.Second || q.End > run.Duration.D()+time.Second || q.Error != "" {
					t.Errorf("query run %+v: want stream 1, between the stream's start (2 s) and the window's end", q)
				}
			}
			// The paper's order: the stream's first query is Q1.
			if len(m.Runs) > 0 && m.Runs[0].Query != 1 {
				t.Errorf("the first query run is Q%d, want Q1", m.Runs[0].Query)
			}
			// The newest order the queries could read is the run's own:
			// younger than the run (the template's are older).
			if math.IsNaN(m.FreshnessMax) || m.FreshnessP50 < 0 || m.FreshnessMax > since+1 {
				t.Errorf("freshness p50 %g max %g s, want within the run's %.1f s", m.FreshnessP50, m.FreshnessMax, since)
			}
			for _, want := range []string{"analytic streams: 1, paper order", "interference", "baseline p50 / p95 / p99", "query sets/hour", "freshness", "Q1",
				"query latencies (each query's HDR histogram"} {
				if !strings.Contains(out.String(), want) {
					t.Errorf("output lacks %q:\n%s", want, out.String())
				}
			}
			stored, err := repo.RunResult(ctx, o.ID)
			if err != nil || stored == nil || stored.Mixed == nil || stored.Mixed.Queries != m.Queries ||
				math.Abs(stored.Mixed.MixedNOPM-m.MixedNOPM) > 1e-6*m.MixedNOPM || !reflect.DeepEqual(stored.Mixed.MixedTx, m.MixedTx) {
				t.Errorf("stored mixed result %+v, %v", stored, err)
			}
			// Each query's latencies are an HDR histogram, stored with the
			// job and read back as the run had them.
			if len(m.PerQuery) == 0 || m.PerQuery[0].Count > 0 && m.PerQuery[0].Histogram == nil {
				t.Errorf("per-query figures %+v, want a histogram for a query that completed", m.PerQuery)
			} else if stored != nil && stored.Mixed != nil && !reflect.DeepEqual(stored.Mixed.PerQuery, m.PerQuery) {
				t.Errorf("per-query figures stored %+v, the run's %+v", stored.Mixed.PerQuery, m.PerQuery)
			}
			// The server's observer keeps the streams' session samples apart
			// from the VUs' (PostgreSQL by application_name, MariaDB by the
			// statements' leading comment): both kinds were seen active.
			obs, err := repo.Observations(ctx, o.ID)
			kinds := map[string]float64{}
			for _, ob := range obs {
				for _, iv := range ob.Intervals {
					for _, c := range iv.Counters {
						if kind, _, ok := observe.SessionKind(c); ok {
							kinds[kind] += c.Value * iv.Length.Seconds()
						}
					}
				}
			}
			var others float64
			for k, v := range kinds {
				if k != chbench.AnalyticAppName {
					others += v
				}
			}
			if err != nil || !(kinds[chbench.AnalyticAppName] > 0) || !(others > 0) {
				t.Errorf("active sessions by kind %v (%v): want the analytic streams' and the VUs'", kinds, err)
			}
			// and the run's server section says so, as jobs show does.
			if !strings.Contains(out.String(), "sessions "+chbench.AnalyticAppName) {
				t.Errorf("the run's output does not show the streams' active sessions:\n%s", out.String())
			}
			if cfg, _ := repo.Config(ctx, o.ID); cfg["analytic_streams"] != "1" || cfg["analytic_delay"] != "2s" || cfg["warehouses"] != "2" {
				t.Errorf("run settings %v", cfg)
			}
		})
	}
	g.Wait()
}

// TestMixedRunRefusals: analytic streams are CH-benCHmark's, a mixed run
// is one process's and timed; refused before any job is recorded.
func TestMixedRunRefusals(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		spec  func(s *config.Spec)
		field string
	}{
		{"tprocc with streams", func(s *config.Spec) { s.AnalyticStreams = 1 }, "analytic_streams"},
		{"negative streams", func(s *config.Spec) { s.Workload, s.AnalyticStreams = "chbench", -1 }, "analytic_streams"},
		{"iteration run", func(s *config.Spec) { s.Workload, s.AnalyticStreams, s.Iterations = "chbench", 1, 10 }, "iterations"},
		{"segment", func(s *config.Spec) { s.Workload, s.Segment, s.RunID = "chbench", "0/2", "r" }, "segment"},
		{"delay without streams", func(s *config.Spec) { s.Workload, s.AnalyticDelay = "chbench", config.Duration(time.Second) }, "analytic_delay"},
		{"ramp-up without streams", func(s *config.Spec) { s.Workload, s.AnalyticRampup = "chbench", config.Duration(time.Second) }, "analytic_rampup"},
		{"shuffle without streams", func(s *config.Spec) { s.Workload, s.AnalyticShuffle = "chbench", true }, "analytic_shuffle"},
		{"ramp-up of one stream", func(s *config.Spec) {
			s.Workload, s.AnalyticStreams, s.AnalyticRampup = "chbench", 1, config.Duration(time.Second)
		}, "analytic_rampup"},
		{"delay past the window", func(s *config.Spec) {
			s.Workload, s.AnalyticStreams, s.Duration, s.AnalyticDelay = "chbench", 1, config.Duration(time.Minute), config.Duration(time.Minute)
		}, "analytic_delay"},
		{"ramp-up past the window", func(s *config.Spec) {
			s.Workload, s.AnalyticStreams, s.Duration = "chbench", 2, config.Duration(time.Minute)
			s.AnalyticDelay, s.AnalyticRampup = config.Duration(30*time.Second), config.Duration(30*time.Second)
		}, "analytic_rampup"},
		{"delay past the stages", func(s *config.Spec) {
			s.Workload, s.AnalyticStreams, s.Stages, s.AnalyticDelay = "chbench", 1, "10s:2,10s:4", config.Duration(20*time.Second)
		}, "analytic_delay"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			svc, repo := newService(t)
			s := config.New(config.KindRun)
			s.Workload, s.DB = "tprocc", "sqlite:"+t.TempDir()+"/x.sqlite"
			tc.spec(&s)
			_, err := svc.Run(context.Background(), Request{Spec: s})
			var fe config.FieldErrors
			if !errors.As(err, &fe) || !hasField(fe, tc.field) {
				t.Errorf("err %v, want a field error of %s", err, tc.field)
			}
			if n := jobCount(t, repo); n != 0 {
				t.Errorf("%d jobs recorded", n)
			}
		})
	}
}

func hasField(fe config.FieldErrors, field string) bool {
	for _, e := range fe {
		if e.Field == field {
			return true
		}
	}
	return false
}
