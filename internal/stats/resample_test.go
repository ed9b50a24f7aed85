package stats

import (
	"math"
	"testing"
)

func TestBootstrapRatio(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name   string
		a, b   []float64
		sig    bool
		ratio  float64
		nonNaN bool
	}{
		{"clearly lower", []float64{1000, 1010, 990}, []float64{500, 505, 495}, true, 0.5, true},
		{"clearly higher", []float64{100, 102, 98, 101}, []float64{130, 131, 129, 128}, true, 1.2918, true},
		{"identical samples", []float64{1000, 1010, 990}, []float64{1000, 1010, 990}, false, 1, true},
		{"overlapping", []float64{1000, 1040, 970, 1010}, []float64{1020, 980, 1000, 1030}, false, 1.0024, true},
		{"one value", []float64{1000}, []float64{900, 910}, false, math.NaN(), false},
		{"zero mean", []float64{0, 0}, []float64{900, 910}, false, math.NaN(), false},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			r := BootstrapRatio(c.a, c.b, 42)
			if !c.nonNaN {
				if !math.IsNaN(r.Ratio) || !math.IsNaN(r.Low) || r.Significant {
					t.Errorf("got %+v, want NaN and not significant", r)
				}
				return
			}
			if r.Significant != c.sig {
				t.Errorf("significant = %v, want %v (%+v)", r.Significant, c.sig, r)
			}
			if math.Abs(r.Ratio-c.ratio) > 0.001 {
				t.Errorf("ratio %v, want %v", r.Ratio, c.ratio)
			}
			if !(r.Low <= r.Ratio && r.Ratio <= r.High) {
				t.Errorf("interval %v–%v does not hold the ratio %v", r.Low, r.High, r.Ratio)
			}
			if again := BootstrapRatio(c.a, c.b, 42); again != r {
				t.Errorf("the same seed gave %+v, then %+v", r, again)
			}
		})
	}
}

func TestPermutationP(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name string
		a, b []float64
		want float64 // exact
		max  float64 // for the random estimate: p at most this
		min  float64 // and at least this
	}{
		// 3 and 3: 20 splits, the observed one and its mirror are the
		// most extreme.
		{name: "3+3 apart", a: []float64{10, 11, 12}, b: []float64{20, 21, 22}, want: 0.1},
		{name: "5+5 apart", a: []float64{10, 11, 12, 13, 14}, b: []float64{20, 21, 22, 23, 24}, want: 2.0 / 252},
		{name: "identical", a: []float64{10, 11, 12}, b: []float64{10, 11, 12}, want: 1},
		// 12+12: C(24,12) = 2,704,156 splits, estimated.
		{name: "12+12 apart (random)", a: seq(10, 12), b: seq(40, 12), want: -1, max: 0.001, min: 0},
		{name: "12+12 same (random)", a: seq(10, 12), b: seq(10, 12), want: -1, max: 1, min: 0.9},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			p := PermutationP(c.a, c.b, 7)
			if c.want >= 0 {
				if math.Abs(p-c.want) > 1e-9 {
					t.Errorf("p = %v, want %v", p, c.want)
				}
				return
			}
			if p < c.min || p > c.max {
				t.Errorf("p = %v, want within %v–%v", p, c.min, c.max)
			}
		})
	}
	if p := PermutationP(nil, []float64{1}, 1); !math.IsNaN(p) {
		t.Errorf("p of an empty sample = %v, want NaN", p)
	}
}

func seq(from float64, n int) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = from + float64(i)
	}
	return out
}
