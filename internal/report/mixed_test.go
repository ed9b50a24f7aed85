package report

import (
	"math"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/sledge-bench/sledge/internal/metrics"
)

// TestMixedTxLatencies: a mixed run's block has each transaction type's
// latencies without and with the analytic load, "-" where a part has none,
// and its JSON the same figures.
func TestMixedTxLatencies(t *testing.T) {
	t.Parallel()
	ms := time.Millisecond
	m := &metrics.MixedResult{Streams: 1, Order: "paper", Delay: 10 * time.Second,
		BaselineSeconds: 10, BaselineNOPM: 600, BaselineTPM: 1300, MixedSeconds: 20, MixedNOPM: 300, MixedTPM: 650,
		Interference: 0.5, QuerySetsPerHour: math.NaN(), FreshnessP50: math.NaN(), FreshnessMax: math.NaN(),
		BaselineTx: []metrics.MixedTxLatency{{Name: "new_order", Count: 100, P50: ms, P95: 2 * ms, P99: 3 * ms, Max: 9 * ms}},
		MixedTx: []metrics.MixedTxLatency{{Name: "new_order", Count: 50, P50: 4 * ms, P95: 8 * ms, P99: 16 * ms, Max: 40 * ms},
			{Name: "payment", Count: 40, P50: ms, P95: ms, P99: 2 * ms, Max: 2 * ms}}}
	var b strings.Builder
	mixedBlock(&b, &metrics.RunResult{Mixed: m})
	for _, want := range []string{
		`(?m)^  latency ms +baseline p50 / p95 / p99 +mixed p50 / p95 / p99$`,
		`(?m)^  new_order +1\.00 / 2\.00 / 3\.00 +4\.00 / 8\.00 / 16\.00$`,
		`(?m)^  payment +- +1\.00 / 1\.00 / 2\.00$`,
	} {
		if !regexp.MustCompile(want).MatchString(b.String()) {
			t.Errorf("the block lacks %s:\n%s", want, b.String())
		}
	}
	j := ToMixed(m)
	if len(j.BaselineTx) != 1 || j.BaselineTx[0] != (MixedTxJSON{Tx: "new_order", Count: 100, P50MS: 1, P95MS: 2, P99MS: 3, MaxMS: 9}) ||
		len(j.MixedTx) != 2 || j.MixedTx[1].Tx != "payment" || j.MixedTx[0].P99MS != 16 {
		t.Errorf("JSON baseline %+v, mixed %+v", j.BaselineTx, j.MixedTx)
	}
	if j := ToMixed(&metrics.MixedResult{}); j.BaselineTx == nil || len(j.BaselineTx) != 0 {
		t.Errorf("a part not measured is %v in JSON, want []", j.BaselineTx)
	}
}

// TestMixedQueryHistograms: each query's figures in the block and in JSON
// are read from its HDR histogram — mean, percentiles and the distribution
// for the web UI's chart, the histogram itself in JSON — and a query that
// never completed has none.
func TestMixedQueryHistograms(t *testing.T) {
	t.Parallel()
	m := &metrics.MixedResult{Streams: 1, Order: "paper", QuerySetsPerHour: math.NaN(), FreshnessP50: math.NaN(),
		FreshnessMax: math.NaN(), BaselineNOPM: math.NaN(), MixedNOPM: math.NaN(), Interference: math.NaN()}
	// Q3 ran 100 times, 0.01 s … 1 s; Q4 failed once.
	for i := 1; i <= 100; i++ {
		m.Runs = append(m.Runs, metrics.MixedRun{Stream: 1, Set: i, Query: 3, Seconds: float64(i) / 100, Freshness: math.NaN()})
	}
	m.Runs = append(m.Runs, metrics.MixedRun{Stream: 1, Set: 1, Query: 4, Error: "boom", Freshness: math.NaN()})
	metrics.SummarizeMixedRuns(m)
	var b strings.Builder
	mixedBlock(&b, &metrics.RunResult{Mixed: m})
	for _, want := range []string{
		`(?m)^  query latencies \(each query's HDR histogram, three significant digits\):$`,
		`(?m)^ +query +count +errors +mean s +p50 s +p90 s +p95 s +p99 s +max s$`,
		`(?m)^ +Q3 +100 +0 +0\.505 +0\.500 +0\.900 +0\.950 +0\.990 +1\.000$`,
		`(?m)^ +Q4 +0 +1 +- +- +- +- +- +-$`,
	} {
		if !regexp.MustCompile(want).MatchString(b.String()) {
			t.Errorf("the block lacks %s:\n%s", want, b.String())
		}
	}
	j := ToMixed(m)
	if len(j.PerQuery) != 2 {
		t.Fatalf("per query %+v", j.PerQuery)
	}
	q3, q4 := j.PerQuery[0], j.PerQuery[1]
	near := func(got, want float64) bool { return math.Abs(got-want) <= want/1000 }
	if q3.Query != 3 || q3.Count != 100 || !near(float64(q3.MeanS), 0.505) || q3.Histogram == nil ||
		*q3.Histogram != string(m.PerQuery[0].Histogram) || len(q3.Percentiles) != len(QueryPercentiles) {
		t.Fatalf("Q3 in JSON %+v", q3)
	}
	for i, want := range []float64{0.01, 0.1, 0.25, 0.5, 0.75, 0.9, 0.95, 0.99, 1, 1} {
		if p := q3.Percentiles[i]; p.Percentile != QueryPercentiles[i] || !near(p.S, want) {
			t.Errorf("Q3's p%g = %g s, want %g", p.Percentile, p.S, want)
		}
	}
	if q4.Count != 0 || q4.Errors != 1 || q4.Histogram != nil || q4.Percentiles == nil || len(q4.Percentiles) != 0 || !math.IsNaN(float64(q4.P50S)) {
		t.Errorf("Q4 (never completed) in JSON %+v", q4)
	}
}
