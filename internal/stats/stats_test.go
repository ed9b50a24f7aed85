package stats

import (
	"math"
	"math/rand/v2"
	"testing"
)

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol }

func TestSummarize(t *testing.T) {
	// Mean 5, sample SD 2.138 (n − 1), t(7) = 2.365.
	s := Summarize([]float64{2, 4, 4, 4, 5, 5, 7, 9})
	half := 2.365 * 2.13809 / math.Sqrt(8)
	if s.N != 8 || s.Mean != 5 || !near(s.SD, 2.13809, 1e-4) || !near(s.CI95Low, 5-half, 1e-3) || !near(s.CI95High, 5+half, 1e-3) {
		t.Errorf("Summarize = %+v", s)
	}
	if s := Summarize([]float64{3}); s.Mean != 3 || !math.IsNaN(s.SD) || !math.IsNaN(s.CI95Low) {
		t.Errorf("one value: %+v", s)
	}
	if s := Summarize(nil); s.N != 0 || !math.IsNaN(s.Mean) {
		t.Errorf("no value: %+v", s)
	}
	// Two values: a mean and an SD, no interval (t(1) = 12.7 would put
	// this one at −3,064 – 10,665).
	if s := Summarize([]float64{4340, 3260}); s.Mean != 3800 || !near(s.SD, 763.7, 0.1) || !math.IsNaN(s.CI95Low) || !math.IsNaN(s.CI95High) {
		t.Errorf("two values: %+v", s)
	}
	// A quantity that cannot be negative keeps its bounds at zero or more.
	if s := SummarizeNonNegative([]float64{1, 1, 30}); s.CI95Low != 0 || !near(s.CI95High, Summarize([]float64{1, 1, 30}).CI95High, 1e-9) {
		t.Errorf("non-negative: %+v", s)
	}
	if s := SummarizeNonNegative([]float64{2, 4, 4, 4, 5, 5, 7, 9}); s != Summarize([]float64{2, 4, 4, 4, 5, 5, 7, 9}) {
		t.Errorf("non-negative, bounds above zero: %+v", s)
	}
}

func TestTCritical95(t *testing.T) {
	for _, tc := range []struct{ df, want float64 }{
		{1, 12.706}, {2, 4.303}, {10, 2.228}, {10.9, 2.228}, {30, 2.042}, {30.5, 2.042}, {35, 2.021}, {100, 1.980}, {1e6, 1.960},
	} {
		if got := TCritical95(tc.df); got != tc.want {
			t.Errorf("TCritical95(%g) = %g, want %g", tc.df, got, tc.want)
		}
	}
	if !math.IsInf(TCritical95(0), 1) || !math.IsInf(TCritical95(math.NaN()), 1) {
		t.Error("no degrees of freedom must never be significant")
	}
}

func TestLinearTrend(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	noisy := func(slope float64, n int, sd float64) ([]float64, []float64) {
		var xs, ys []float64
		for i := range n {
			x := float64(i)
			xs, ys = append(xs, x), append(ys, 100+slope*x+rng.NormFloat64()*sd)
		}
		return xs, ys
	}
	xs, ys := noisy(2, 20, 1)
	if tr := LinearTrend(xs, ys); !tr.Significant || !near(tr.Slope, 2, 0.1) || !near(tr.Intercept, 100, 1.5) {
		t.Errorf("a clear trend: %+v", tr)
	}
	// A flat series: over many seeds, about 5% come out significant.
	significant := 0
	for range 400 {
		xs, ys := noisy(0, 12, 5)
		if LinearTrend(xs, ys).Significant {
			significant++
		}
	}
	if significant < 5 || significant > 40 {
		t.Errorf("%d of 400 flat series had a significant trend, want about 20", significant)
	}
	if tr := LinearTrend([]float64{0, 1, 2}, []float64{1, 2, 3}); !tr.Significant || !math.IsInf(tr.T, 1) {
		t.Errorf("points on a line: %+v", tr)
	}
	if tr := LinearTrend([]float64{0, 1, 2}, []float64{5, 5, 5}); tr.Significant || tr.Slope != 0 {
		t.Errorf("a constant: %+v", tr)
	}
	if tr := LinearTrend([]float64{1, 1, 1}, []float64{1, 2, 3}); tr.Significant || !math.IsNaN(tr.Slope) {
		t.Errorf("one x: %+v", tr)
	}
	if tr := LinearTrend([]float64{1, 2}, []float64{1, 2}); tr.Significant {
		t.Errorf("two points: %+v", tr)
	}
}

func TestWelch(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	sample := func(m, sd float64, n int) []float64 {
		out := make([]float64, n)
		for i := range out {
			out[i] = m + rng.NormFloat64()*sd
		}
		return out
	}
	if d := Welch(sample(100, 5, 10), sample(130, 10, 12)); !d.Significant || d.Diff < 20 || d.DF < 10 || d.DF > 22 {
		t.Errorf("different means: %+v", d)
	}
	significant := 0
	for range 400 {
		if Welch(sample(100, 5, 8), sample(100, 10, 8)).Significant {
			significant++
		}
	}
	if significant < 5 || significant > 40 {
		t.Errorf("%d of 400 equal-mean pairs differed, want about 20", significant)
	}
	// Textbook values: a = 1..5, b = 3..7: diff 2, t = 2/√(2.5/5·2) = 2, df 8.
	if d := Welch([]float64{1, 2, 3, 4, 5}, []float64{3, 4, 5, 6, 7}); !near(d.T, 2, 1e-9) || !near(d.DF, 8, 1e-9) || d.Significant {
		t.Errorf("textbook: %+v", d)
	}
	if d := Welch([]float64{1}, []float64{2, 3}); d.Significant || !math.IsNaN(d.T) {
		t.Errorf("too few: %+v", d)
	}
}
