// Package stats holds the few statistics Sledge judges its numbers with:
// a sample's mean with its 95% confidence interval, whether a series has a
// trend, and whether two samples differ (Welch's t-test). Two-sided tests at
// the 5% level throughout; the t-distribution's critical values come from
// its standard table.
package stats

import (
	"math"
)

// tTable holds the two-sided 95% critical values of Student's t for 1 to 30
// degrees of freedom (the standard table).
var tTable = [...]float64{
	12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
	2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
	2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042,
}

// TCritical95 is the two-sided 95% critical value of Student's t with df
// degrees of freedom (rounded down to a whole number, which errs on the
// careful side). Beyond the table it decreases towards the normal's 1.960:
// 2.021 at 40, 2.000 at 60, 1.980 at 120.
func TCritical95(df float64) float64 {
	df = math.Floor(df)
	switch {
	case df < 1 || math.IsNaN(df):
		return math.Inf(1)
	case df <= 30:
		return tTable[int(df)-1]
	case df <= 40:
		return 2.021
	case df <= 60:
		return 2.000
	case df <= 120:
		return 1.980
	}
	return 1.960
}

// MinCITrials is the fewest values a confidence interval of the mean is
// given for. Two values have one degree of freedom, whose t of 12.7 makes
// the interval about nine times their spread: for two trials whose NOPM
// differ by a fifth, bounds below zero. It says nothing a user can act on.
const MinCITrials = 3

// Summary is a sample's size, mean and standard deviation (from two values),
// with the 95% confidence interval of its mean (from MinCITrials values;
// NaN bounds for fewer).
type Summary struct {
	N                 int
	Mean, SD          float64
	CI95Low, CI95High float64
}

// SummarizeNonNegative is Summarize for a quantity that cannot be negative
// (a throughput, a latency): the interval's lower bound is at least zero.
func SummarizeNonNegative(xs []float64) Summary {
	s := Summarize(xs)
	if s.CI95Low < 0 {
		s.CI95Low = 0
	}
	return s
}

// Summarize describes xs.
func Summarize(xs []float64) Summary {
	s := Summary{N: len(xs), Mean: math.NaN(), SD: math.NaN(), CI95Low: math.NaN(), CI95High: math.NaN()}
	if s.N == 0 {
		return s
	}
	s.Mean = mean(xs)
	if s.N < 2 {
		return s
	}
	s.SD = math.Sqrt(variance(xs, s.Mean))
	if s.N < MinCITrials {
		return s
	}
	half := TCritical95(float64(s.N-1)) * s.SD / math.Sqrt(float64(s.N))
	s.CI95Low, s.CI95High = s.Mean-half, s.Mean+half
	return s
}

func mean(xs []float64) float64 {
	var sum float64
	for _, x := range xs {
		sum += x
	}
	return sum / float64(len(xs))
}

// variance is the sample variance (n − 1 in the denominator).
func variance(xs []float64, m float64) float64 {
	var ss float64
	for _, x := range xs {
		ss += (x - m) * (x - m)
	}
	return ss / float64(len(xs)-1)
}

// Trend is the least-squares line through points (x, y) and whether its
// slope differs from zero.
type Trend struct {
	N                int
	Slope, Intercept float64
	// T is the slope over its standard error (±Inf for points exactly on a
	// sloped line, NaN when it cannot be told).
	T           float64
	Significant bool
}

// LinearTrend fits y = Intercept + Slope·x to the points and tests the
// slope (t-test with n − 2 degrees of freedom). It needs three points and
// two distinct x.
func LinearTrend(xs, ys []float64) Trend {
	t := Trend{N: len(xs), Slope: math.NaN(), Intercept: math.NaN(), T: math.NaN()}
	if len(xs) != len(ys) || len(xs) < 3 {
		return t
	}
	mx, my := mean(xs), mean(ys)
	var sxx, sxy float64
	for i := range xs {
		sxx += (xs[i] - mx) * (xs[i] - mx)
		sxy += (xs[i] - mx) * (ys[i] - my)
	}
	if sxx == 0 {
		return t
	}
	t.Slope = sxy / sxx
	t.Intercept = my - t.Slope*mx
	var sse float64
	for i := range xs {
		r := ys[i] - (t.Intercept + t.Slope*xs[i])
		sse += r * r
	}
	df := float64(len(xs) - 2)
	se := math.Sqrt(sse / df / sxx)
	switch {
	case se > 0:
		t.T = t.Slope / se
	case t.Slope != 0:
		t.T = math.Copysign(math.Inf(1), t.Slope)
	default:
		t.T = 0
	}
	t.Significant = math.Abs(t.T) > TCritical95(df)
	return t
}

// Difference is Welch's t-test of two samples' means.
type Difference struct {
	// Diff is mean(b) − mean(a).
	Diff, T, DF float64
	Significant bool
}

// Welch tests whether samples a and b have different means, without
// assuming equal variances. It needs two values in each.
func Welch(a, b []float64) Difference {
	d := Difference{Diff: math.NaN(), T: math.NaN(), DF: math.NaN()}
	if len(a) < 2 || len(b) < 2 {
		return d
	}
	ma, mb := mean(a), mean(b)
	va, vb := variance(a, ma)/float64(len(a)), variance(b, mb)/float64(len(b))
	d.Diff = mb - ma
	if va+vb == 0 {
		d.T, d.DF = math.Copysign(math.Inf(1), d.Diff), float64(len(a)+len(b)-2)
		d.Significant = d.Diff != 0
		return d
	}
	d.T = d.Diff / math.Sqrt(va+vb)
	// Welch–Satterthwaite degrees of freedom.
	d.DF = (va + vb) * (va + vb) / (va*va/float64(len(a)-1) + vb*vb/float64(len(b)-1))
	d.Significant = math.Abs(d.T) > TCritical95(d.DF)
	return d
}
