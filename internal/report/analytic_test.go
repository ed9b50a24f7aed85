package report

import (
	"math"
	"strings"
	"testing"

	"github.com/sledge-bench/sledge/internal/jobs"
	"github.com/sledge-bench/sledge/internal/metrics"
	"github.com/sledge-bench/sledge/internal/workload/tproch"
)

// analyticResult is a power test of three queries (one failed, one empty)
// and a one-stream throughput test with a refresh stream.
func analyticResult() *metrics.AnalyticResult {
	return &metrics.AnalyticResult{Status: metrics.StatusCompleted, SF: 1, Streams: 1, QuerySets: 1, Seed: 5,
		Queries: []metrics.AnalyticQuery{
			{Stream: 0, Position: 1, Set: 1, Query: 14, Seconds: 1.5, Rows: 4, Check: "ok"},
			{Stream: 0, Position: 2, Set: 1, Query: 2, Seconds: 0.25, Error: "timeout"},
			{Stream: 0, Position: 3, Set: 1, Query: 9, Seconds: 0.5},
			{Stream: 1, Position: 1, Set: 1, Query: 3, Seconds: 2},
			{Stream: 1, Position: 2, Set: 1, Query: 7, Seconds: 3, Error: "oom"},
		},
		Refreshes: []metrics.AnalyticRefresh{{Stream: 0, Set: 1, Function: "RF1", Seconds: 0.1, Rows: 10},
			{Stream: 2, Set: 2, Function: "RF2", Seconds: 0.2, Rows: 12}},
		PowerSeconds: 2.25, ThroughputSeconds: 5, TsS: 5, GeomeanS: math.NaN(), Power: 1234.5, Throughput: 800,
		Composite: math.NaN(), Warnings: []string{"a query failed"}}
}

func TestStreamTotals(t *testing.T) {
	t.Parallel()
	got := StreamTotals(analyticResult())
	want := map[int]StreamTotal{
		0: {Stream: 0, Queries: 3, Failed: 1, Seconds: 2.25},
		1: {Stream: 1, Queries: 2, Failed: 1, Seconds: 5},
	}
	if len(got) != len(want) {
		t.Fatalf("StreamTotals = %v, want %v", got, want)
	}
	for s, w := range want {
		if got[s] != w {
			t.Errorf("stream %d: %+v, want %+v", s, got[s], w)
		}
	}
	if n := len(StreamTotals(&metrics.AnalyticResult{})); n != 0 {
		t.Errorf("no queries: %d totals", n)
	}
}

func TestAnalytic(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		edit    func(*metrics.AnalyticResult)
		want    []string
		notWant []string
	}{
		{
			name: "power and throughput",
			want: []string{
				"\nTPROC-H result (job 9): completed — not comparable with audited TPC results\n",
				" database duckdb:/tmp/h.duckdb\n",
				" scale factor 1, seed 5\n",
				" Q14 1.50 4 answer ok \n",
				" Q2 0.25 FAILED: timeout \n",
				" Q9 0.50 0 (empty) \n",
				" RF1 0.10 10 \n",
				" stream 0: 3 queries, 2.25 s in all\n",
				" stream 1: 2 queries, 5.00 s in all\n",
				" geometric mean of the 22 power-test queries: n/a\n",
				" TPROC-H power 1234.5 queries per hour × SF\n",
				" TPROC-H throughput 800.0 queries per hour × SF (1 streams, Ts 5.00 s)\n",
				" TPROC-H composite n/a\n",
				" warning: a query failed\n",
			},
			// Only the power test's queries and refreshes are listed.
			notWant: []string{"Q3 ", "Q7 ", "RF2", "answer validation", "not a specification scale factor"},
		},
		{
			name: "power test only, small scale, validated",
			edit: func(r *metrics.AnalyticResult) {
				r.Streams, r.SF, r.Validation, r.Validated, r.Queries = 0, 0.01, true, "passed", r.Queries[:3]
				r.Warnings = nil
			},
			want: []string{
				" scale factor 0.01" + tproch.ScaleLabel(0.01) + ", seed 5, validation parameters\n",
				" answer validation (SF 1 answers): passed\n",
			},
			notWant: []string{"throughput", "composite", "stream 1", "warning"},
		},
		{
			// The README: intervals to 0.01 s, at least 0.01 s (as the
			// metrics take them), never "0.00".
			name: "intervals below 0.01 s",
			edit: func(r *metrics.AnalyticResult) {
				r.Queries[0].Seconds, r.Queries[2].Seconds, r.Refreshes[0].Seconds = 0.004, 0.0151, 0.0001
				r.GeomeanS, r.Power, r.Throughput, r.Composite = 0.0123, 77203, 64129.6, 70363.3
			},
			want: []string{
				" Q14 0.01 4 answer ok \n",
				" Q9 0.02 0 (empty) \n",
				" RF1 0.01 10 \n",
				" geometric mean of the 22 power-test queries: 0.012 s\n",
				" TPROC-H power 77203.0 queries per hour × SF\n",
				" TPROC-H throughput 64129.6 queries per hour × SF (1 streams, Ts 5.00 s)\n",
				" TPROC-H composite 70363.3 queries per hour × SF\n",
			},
			notWant: []string{"0.00 ", "n/a"},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := analyticResult()
			if c.edit != nil {
				c.edit(r)
			}
			var b strings.Builder
			if err := Analytic(&b, 9, "duckdb:/tmp/h.duckdb", r); err != nil {
				t.Fatal(err)
			}
			out := b.String()
			if !strings.HasSuffix(out, "\n") || strings.HasSuffix(out, "\n\n") {
				t.Errorf("output does not end with exactly one newline: %q", out)
			}
			checkText(t, out, c.want, c.notWant)
		})
	}
}

func TestToAnalytic(t *testing.T) {
	t.Parallel()
	m := object(t, ToAnalytic(9, analyticResult()))
	hasKeys(t, m, "job_id", "workload", "status", "scale_factor", "streams", "query_sets", "seed", "refresh",
		"validation", "validated", "geomean_s", "power", "throughput", "composite", "ts_s", "power_test_s",
		"throughput_test_s", "queries", "refreshes", "stream_totals", "warnings", "note")
	if m["workload"] != tproch.Name {
		t.Errorf("workload = %v, want %s", m["workload"], tproch.Name)
	}
	for _, k := range []string{"validated", "geomean_s", "composite"} {
		if m[k] != nil {
			t.Errorf("%s = %v, want null", k, m[k])
		}
	}
	if m["power"] != 1234.5 {
		t.Errorf("power = %v", m["power"])
	}
	queries := m["queries"].([]any)
	if len(queries) != 5 {
		t.Fatalf("%d queries, want 5", len(queries))
	}
	q0, q1 := queries[0].(map[string]any), queries[1].(map[string]any)
	hasKeys(t, q0, "stream", "position", "set", "query", "seconds", "rows", "error", "answer_check")
	if q0["error"] != nil || q0["answer_check"] != "ok" || q1["error"] != "timeout" || q1["answer_check"] != nil {
		t.Errorf("queries = %v, %v", q0, q1)
	}
	// JSON keeps the measured times; only the text rounds them.
	small := analyticResult()
	small.Queries[0].Seconds, small.Refreshes[0].Seconds = 0.004, 0.0001
	sj := ToAnalytic(9, small)
	if sj.Queries[0].Seconds != 0.004 || sj.Refreshes[0].Seconds != 0.0001 {
		t.Errorf("JSON seconds %v, %v: want the measured 0.004, 0.0001", sj.Queries[0].Seconds, sj.Refreshes[0].Seconds)
	}
	rf := m["refreshes"].([]any)[0].(map[string]any)
	hasKeys(t, rf, "stream", "set", "function", "seconds", "rows", "error")
	// Stream totals are a list in stream order, not an object.
	totals := m["stream_totals"].([]any)
	if len(totals) != 2 || totals[0].(map[string]any)["stream"] != 0.0 || totals[1].(map[string]any)["failed"] != 1.0 {
		t.Errorf("stream_totals = %v", totals)
	}

	empty := object(t, ToAnalytic(1, &metrics.AnalyticResult{GeomeanS: math.NaN()}))
	for _, k := range []string{"queries", "refreshes", "stream_totals", "warnings"} {
		if l, ok := empty[k].([]any); !ok || len(l) != 0 {
			t.Errorf("empty result: %s = %#v, want []", k, empty[k])
		}
	}
}

// TestToJobGeomean: `sledge jobs --format json` carries a TPROC-H run's
// headline as geomean_s, null for other jobs and when it was not computed.
func TestToJobGeomean(t *testing.T) {
	t.Parallel()
	h, g := finishedJob(), 0.0394
	h.Workload, h.Headline, h.GeomeanS = "tproch", nil, &g
	m := object(t, ToJob(h))
	if m["geomean_s"] != 0.0394 || m["nopm"] != nil || m["tpm"] != nil {
		t.Errorf("TPROC-H run: geomean_s %v, nopm %v, tpm %v", m["geomean_s"], m["nopm"], m["tpm"])
	}
	nan := math.NaN()
	h.GeomeanS = &nan
	for _, j := range []jobs.Job{h, finishedJob()} {
		m := object(t, ToJob(j))
		if v, ok := m["geomean_s"]; !ok || v != nil {
			t.Errorf("%s job: geomean_s = %v (present %v), want null", j.Workload, v, ok)
		}
	}
}
