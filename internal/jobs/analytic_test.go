package jobs

import (
	"context"
	"math"
	"reflect"
	"testing"

	"github.com/sledge-bench/sledge/internal/metrics"
)

func sampleAnalyticResult() *metrics.AnalyticResult {
	res := &metrics.AnalyticResult{
		Status: metrics.StatusCompleted, Validated: "failed", SF: 0.01, Streams: 2, QuerySets: 1, Seed: 1123095959, Refresh: true,
		PowerSeconds: 3.5, ThroughputSeconds: 5.25, TsS: 5.25, GeomeanS: 0.04, Power: 1234.5,
		Throughput: math.NaN(), Composite: math.NaN(),
		Warnings: []string{"a throughput query failed: no throughput metric"},
		Refreshes: []metrics.AnalyticRefresh{
			{Stream: 0, Set: 1, Function: "RF1", Seconds: 0.2, Rows: 60},
			{Stream: 0, Set: 1, Function: "RF2", Seconds: 0.1, Rows: 75, Error: ""},
		},
	}
	for i := 1; i <= 22; i++ {
		res.Queries = append(res.Queries, metrics.AnalyticQuery{Stream: 0, Position: i, Set: 1, Query: 23 - i, Seconds: float64(i) / 100, Rows: int64(i), Check: "ok"})
	}
	res.Queries = append(res.Queries, metrics.AnalyticQuery{Stream: 1, Position: 1, Set: 1, Query: 21, Seconds: 1, Error: "relation does not exist"})
	return res
}

func TestAnalyticResultRoundTrip(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, b backend) {
		ctx := context.Background()
		r := b.open(t)
		id := mustCreate(t, r, Job{Kind: KindRun, Workload: "tproch"}, nil)
		if got, err := r.AnalyticResult(ctx, id); err != nil || got != nil {
			t.Fatalf("before saving: %v, %v", got, err)
		}
		want := sampleAnalyticResult()
		if err := r.SaveAnalyticResult(ctx, id, want); err != nil {
			t.Fatal(err)
		}
		// Saving again replaces.
		if err := r.SaveAnalyticResult(ctx, id, want); err != nil {
			t.Fatal(err)
		}
		got, err := r.AnalyticResult(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		// NaN never equals itself: compare those fields apart.
		if !math.IsNaN(got.Throughput) || !math.IsNaN(got.Composite) {
			t.Errorf("missing metrics came back as %v, %v", got.Throughput, got.Composite)
		}
		got.Throughput, got.Composite, want.Throughput, want.Composite = 0, 0, 0, 0
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("round trip differs:\n got %+v\nwant %+v", got, want)
		}
	})
}
