package jobs

import (
	"context"
	"math"
	"reflect"
	"testing"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/sledge-bench/sledge/internal/metrics"
)

// sampleMixed is a mixed run's analytic half: two streams, one baseline.
func sampleMixed() *metrics.MixedResult {
	m := &metrics.MixedResult{Streams: 2, Order: "shuffled", Seed: 7, Delay: 10 * time.Second, Rampup: time.Second,
		AnalyticSeconds: 20}
	for q := 1; q <= 22; q++ {
		m.Runs = append(m.Runs, metrics.MixedRun{Stream: 1, Set: 1, Position: q, Query: q,
			Start: 20*time.Second + time.Duration(q)*100*time.Millisecond, End: 20*time.Second + time.Duration(q+1)*100*time.Millisecond,
			Seconds: 0.1, Rows: int64(q), Freshness: 0.5})
	}
	m.Runs = append(m.Runs, metrics.MixedRun{Stream: 2, Set: 1, Position: 1, Query: 5, Start: 21 * time.Second,
		End: 22 * time.Second, Seconds: 1, Freshness: 2, Error: "boom"})
	ivs := []metrics.Interval{
		{Phase: metrics.PhaseRampup, Elapsed: 10 * time.Second, Length: 10 * time.Second, NOPM: 999},
		{Phase: metrics.PhaseMeasure, Elapsed: 20 * time.Second, Length: 10 * time.Second, NOPM: 100, TPM: 220},
		{Phase: metrics.PhaseMeasure, Elapsed: 30 * time.Second, Length: 10 * time.Second, NOPM: 50, TPM: 110},
	}
	metrics.CompleteMixed(m, ivs, 10*time.Second)
	ms := time.Millisecond
	m.BaselineTx = []metrics.MixedTxLatency{{Name: "new_order", Count: 10, P50: ms, P95: 2 * ms, P99: 3 * ms, Max: 4 * ms},
		{Name: "payment", Count: 9, P50: ms, P95: ms, P99: ms, Max: 2 * ms}}
	m.MixedTx = []metrics.MixedTxLatency{{Name: "new_order", Count: 5, P50: 5 * ms, P95: 8 * ms, P99: 13 * ms, Max: 21 * ms}}
	return m
}

// TestMixedRoundTrip stores a run with its analytic half and reads the
// same figures back; a run without one reads none.
func TestMixedRoundTrip(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, b backend) {
		ctx := context.Background()
		r := b.open(t)
		plain := mustCreate(t, r, Job{Kind: KindRun}, nil)
		if err := r.SaveRunResult(ctx, plain, sampleRunResult()); err != nil {
			t.Fatal(err)
		}
		if got, err := r.RunResult(ctx, plain); err != nil || got.Mixed != nil {
			t.Fatalf("a run without streams: %+v, %v; want no mixed result", got.Mixed, err)
		}
		id := mustCreate(t, r, Job{Kind: KindRun}, nil)
		res := sampleRunResult()
		res.Mixed = sampleMixed()
		res.Mixed.Runs[22].Freshness = math.NaN() // not read: NULL
		// Q1's histogram is the job's record of its latencies: one unlike
		// its runs' (1,000 executions of 2 s) is what is read back.
		h := hdrhistogram.New(1, int64(24*time.Hour/time.Microsecond), 3)
		if err := h.RecordValues(2_000_000, 1000); err != nil {
			t.Fatal(err)
		}
		enc, err := h.Encode(hdrhistogram.V2CompressedEncodingCookieBase)
		if err != nil {
			t.Fatal(err)
		}
		res.Mixed.PerQuery[0].Histogram = enc
		if err := r.SaveRunResult(ctx, id, res); err != nil {
			t.Fatal(err)
		}
		got, err := r.RunResult(ctx, id)
		if err != nil || got.Mixed == nil {
			t.Fatalf("read: %v, %v", got, err)
		}
		m, want := got.Mixed, res.Mixed
		if m.Streams != 2 || m.Order != "shuffled" || m.Seed != 7 || m.Delay != want.Delay || m.Rampup != want.Rampup ||
			m.BaselineNOPM != 100 || m.MixedNOPM != 50 || m.Interference != 0.5 || m.MixedTPM != 110 ||
			m.Queries != 22 || m.QueryErrors != 1 || m.QuerySets != 1 || m.QuerySetsPerHour != want.QuerySetsPerHour ||
			m.FreshnessP50 != 0.5 || len(m.Runs) != 23 || len(m.PerQuery) != 22 {
			t.Errorf("read back %+v\nwant %+v", *m, *want)
		}
		if !reflect.DeepEqual(m.BaselineTx, want.BaselineTx) || !reflect.DeepEqual(m.MixedTx, want.MixedTx) {
			t.Errorf("the parts' latencies read back as %+v and %+v", m.BaselineTx, m.MixedTx)
		}
		q1, q2 := m.PerQuery[0], m.PerQuery[1]
		if q1.Query != 1 || q1.Count != 1000 || math.Abs(q1.P50-2) > 0.002 || math.Abs(q1.Max-2) > 0.002 || string(q1.Histogram) != string(enc) {
			t.Errorf("Q1 read back as %+v, want the stored histogram's 1,000 executions of 2 s", q1)
		}
		if q2.Query != 2 || q2.Count != 1 || math.Abs(q2.P99-0.1) > 0.0001 || !reflect.DeepEqual(q2, want.PerQuery[1]) {
			t.Errorf("Q2 read back as %+v, want %+v", q2, want.PerQuery[1])
		}
		if r := m.Runs[22]; r.Error != "boom" || !math.IsNaN(r.Freshness) || r.Start != 21*time.Second {
			t.Errorf("the failed query read back as %+v", r)
		}
	})
}
