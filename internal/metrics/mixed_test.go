package metrics

import (
	"math"
	"testing"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// TestCompleteMixed splits a window's intervals at the streams' start: the
// intervals before are the baseline, those after the mixed part, one cut by
// the start is in neither; without a baseline the ratio is absent.
func TestCompleteMixed(t *testing.T) {
	t.Parallel()
	s := time.Second
	ivs := []Interval{
		{Phase: PhaseRampup, Elapsed: 10 * s, Length: 10 * s, NOPM: 1e6, TPM: 1e6}, // not in the window
		{Phase: PhaseMeasure, Elapsed: 20 * s, Length: 10 * s, NOPM: 100, TPM: 200},
		{Phase: PhaseMeasure, Elapsed: 30 * s, Length: 10 * s, NOPM: 300, TPM: 600},
		{Phase: PhaseMeasure, Elapsed: 40 * s, Length: 10 * s, NOPM: 50, TPM: 100},
		{Phase: PhaseMeasure, Elapsed: 50 * s, Length: 10 * s, NOPM: 150, TPM: 300},
	}
	for _, tc := range []struct {
		name                 string
		delay, rampup        time.Duration
		baseS, base, mixS, m float64
		ratio                float64
	}{
		{"on a boundary", 20 * s, 0, 20, 200, 20, 100, 0.5},
		{"within an interval", 25 * s, 0, 20, 200, 10, 150, 0.75}, // 30–40 s is cut: in neither
		{"no baseline", 0, 0, 0, math.NaN(), 40, 150, math.NaN()},
		// The streams' ramp-up (30–40 s, some streams running) is in neither part.
		{"ramp-up", 20 * s, 10 * s, 20, 200, 10, 150, 0.75},
		{"ramp-up within an interval", 10 * s, 15 * s, 10, 100, 10, 150, 1.5}, // 20–40 s: in neither
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			m := MixedResult{Streams: 2, Delay: tc.delay, Rampup: tc.rampup, AnalyticSeconds: 36}
			// Q1 twice (one a whole set with the other 21), Q2 failed once.
			for q := 1; q <= 22; q++ {
				m.Runs = append(m.Runs, MixedRun{Stream: 1, Set: 1, Query: q, Seconds: float64(q), Freshness: 1})
			}
			m.Runs = append(m.Runs, MixedRun{Stream: 1, Set: 2, Query: 1, Seconds: 3, Freshness: math.NaN()},
				MixedRun{Stream: 1, Set: 2, Query: 2, Error: "boom"})
			CompleteMixed(&m, ivs, 10*s)
			same := func(a, b float64) bool { return a == b || math.IsNaN(a) && math.IsNaN(b) }
			if m.BaselineSeconds != tc.baseS || !same(m.BaselineNOPM, tc.base) || m.MixedSeconds != tc.mixS ||
				!same(m.MixedNOPM, tc.m) || !same(m.Interference, tc.ratio) || !same(m.MixedTPM, 2*tc.m) {
				t.Errorf("baseline %g s NOPM %g, mixed %g s NOPM %g TPM %g, ratio %g; want %g s %g, %g s %g, %g",
					m.BaselineSeconds, m.BaselineNOPM, m.MixedSeconds, m.MixedNOPM, m.MixedTPM, m.Interference,
					tc.baseS, tc.base, tc.mixS, tc.m, tc.ratio)
			}
			if m.Queries != 23 || m.QueryErrors != 1 || m.QuerySets != 1 || m.QuerySetsPerHour != 23.0/22/36*3600 {
				t.Errorf("queries %d, errors %d, sets %d, sets/hour %g", m.Queries, m.QueryErrors, m.QuerySets, m.QuerySetsPerHour)
			}
			if m.FreshnessP50 != 1 || m.FreshnessMax != 1 {
				t.Errorf("freshness %g/%g, want 1 (the query not read left out)", m.FreshnessP50, m.FreshnessMax)
			}
			// Per-query percentiles are read from HDR histograms: within
			// their three significant digits of the exact values.
			hdr := func(got, want float64) bool { return math.Abs(got-want) <= want/1000 }
			if len(m.PerQuery) != 22 || m.PerQuery[0].Count != 2 || !hdr(m.PerQuery[0].P50, 1) || !hdr(m.PerQuery[0].Max, 3) ||
				m.PerQuery[1].Errors != 1 || m.PerQuery[1].Count != 1 || !hdr(m.PerQuery[1].P99, 2) {
				t.Errorf("per query %+v", m.PerQuery[:2])
			}
			if h, err := hdrhistogram.Decode(m.PerQuery[0].Histogram); err != nil || h.TotalCount() != 2 {
				t.Errorf("Q1's histogram: %v", err)
			}
		})
	}
}

// TestCompleteMixedLatencies: each part's transaction latencies are its
// intervals' histograms merged — the cut interval and the ramp-up's in
// neither — and a part without intervals has none.
func TestCompleteMixedLatencies(t *testing.T) {
	t.Parallel()
	s := time.Second
	iv := func(phase string, end time.Duration, lat time.Duration, n int) Interval {
		h := newHist()
		for range n {
			recordUS(h, lat)
		}
		enc, err := h.Encode(hdrhistogram.V2CompressedEncodingCookieBase)
		if err != nil {
			t.Fatal(err)
		}
		return Interval{Phase: phase, Elapsed: end, Length: 10 * s, NOPM: 60, TPM: 120,
			Tx: []IntervalTx{{Name: "new_order", Count: int64(n), Histogram: enc}, {Name: "payment"}}}
	}
	ivs := []Interval{
		iv(PhaseRampup, 10*s, time.Second, 5), // not in the window
		iv(PhaseMeasure, 20*s, time.Millisecond, 10),
		iv(PhaseMeasure, 30*s, time.Millisecond, 20),
		iv(PhaseMeasure, 40*s, time.Second, 7), // cut by the streams' start at 35 s
		iv(PhaseMeasure, 50*s, 20*time.Millisecond, 30),
	}
	m := MixedResult{Streams: 1, Delay: 25 * s}
	CompleteMixed(&m, ivs, 10*s)
	near := func(d, want time.Duration) bool { return d >= want*99/100 && d <= want*101/100 }
	if len(m.BaselineTx) != 2 || m.BaselineTx[0].Name != "new_order" || m.BaselineTx[0].Count != 30 ||
		!near(m.BaselineTx[0].P99, time.Millisecond) || !near(m.BaselineTx[0].Max, time.Millisecond) ||
		m.BaselineTx[1].Name != "payment" || m.BaselineTx[1].Count != 0 || m.BaselineTx[1].P99 != 0 {
		t.Errorf("baseline %+v, want 30 New-Orders at 1 ms", m.BaselineTx)
	}
	if len(m.MixedTx) != 2 || m.MixedTx[0].Count != 30 || !near(m.MixedTx[0].P50, 20*time.Millisecond) {
		t.Errorf("mixed %+v, want 30 New-Orders at 20 ms", m.MixedTx)
	}
	none := MixedResult{Streams: 1}
	CompleteMixed(&none, ivs, 10*s)
	if none.BaselineTx != nil || len(none.MixedTx) != 2 || none.MixedTx[0].Count != 67 {
		t.Errorf("no baseline: baseline %+v, mixed %+v", none.BaselineTx, none.MixedTx)
	}
}

// TestQueryHistograms: a query's histogram merges exactly (the histograms
// of two halves of its runs merged are the histogram of all of them), and
// stored histograms replace the figures derived from the runs, a corrupt
// one an error.
func TestQueryHistograms(t *testing.T) {
	t.Parallel()
	var all, first, second MixedResult
	for i := range 200 {
		r := MixedRun{Stream: 1, Set: i + 1, Query: 6, Seconds: 0.001 * float64(1+i*i%997), Freshness: math.NaN()}
		all.Runs = append(all.Runs, r)
		if i%2 == 0 {
			first.Runs = append(first.Runs, r)
		} else {
			second.Runs = append(second.Runs, r)
		}
	}
	for _, m := range []*MixedResult{&all, &first, &second} {
		SummarizeMixedRuns(m)
		if len(m.PerQuery) != 1 || m.PerQuery[0].Query != 6 {
			t.Fatalf("per query %+v", m.PerQuery)
		}
	}
	var hm histMerge
	for _, m := range []*MixedResult{&first, &second} {
		if err := hm.add(m.PerQuery[0].Histogram); err != nil {
			t.Fatal(err)
		}
	}
	want, _ := hdrhistogram.Decode(all.PerQuery[0].Histogram)
	if !hm.h.Equals(want) {
		t.Errorf("the halves' histograms merged differ from the whole's")
	}
	merged := MixedResult{Runs: first.Runs}
	SummarizeMixedRuns(&merged)
	enc, err := hm.encoded()
	if err != nil {
		t.Fatal(err)
	}
	if err := SetQueryHistograms(&merged, map[int][]byte{6: enc}); err != nil {
		t.Fatal(err)
	}
	got, w := merged.PerQuery[0], all.PerQuery[0]
	if got.Count != 200 || got.P50 != w.P50 || got.P95 != w.P95 || got.P99 != w.P99 || got.Max != w.Max {
		t.Errorf("figures from the merged histogram %+v, want the whole's %+v", got, w)
	}
	if err := SetQueryHistograms(&merged, map[int][]byte{6: []byte("not a histogram")}); err == nil {
		t.Error("a corrupt histogram was read")
	}
}
