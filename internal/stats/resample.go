package stats

import (
	"math"
	"math/rand/v2"
	"slices"
)

// The resampling tests judge a regression gate's few trials (often 3 to 5
// per arm), where Welch's t leans on a normality that so few values cannot
// show: a percentile bootstrap interval of the ratio of the means, and an
// exact permutation test of the difference of the means.

// BootstrapResamples is how many resamples BootstrapRatio draws: enough
// that the 2.5% and 97.5% percentiles move by well under a tenth of a
// percent from one seed to another.
const BootstrapResamples = 10000

// Ratio is mean(b)/mean(a) with its percentile bootstrap 95% interval.
type Ratio struct {
	Ratio, Low, High float64
	// Significant says the interval excludes 1: b's mean differs from a's.
	Significant bool
}

// BootstrapRatio estimates mean(b)/mean(a) and its 95% interval by
// resampling each sample with replacement (BootstrapResamples times,
// drawn from seed: the same seed gives the same interval). It needs two
// values in each sample and a positive mean of a; NaN otherwise. With
// few values the percentile interval is narrower than the truth (it
// cannot see beyond the values drawn): a gate reads it with a bound on the
// change, not alone.
func BootstrapRatio(a, b []float64, seed uint64) Ratio {
	r := Ratio{Ratio: math.NaN(), Low: math.NaN(), High: math.NaN()}
	if len(a) < 2 || len(b) < 2 || !(mean(a) > 0) {
		return r
	}
	r.Ratio = mean(b) / mean(a)
	rng := rand.New(rand.NewPCG(seed, 0x5eed9a7e))
	draw := func(xs []float64) float64 {
		var sum float64
		for range xs {
			sum += xs[rng.IntN(len(xs))]
		}
		return sum / float64(len(xs))
	}
	ratios := make([]float64, 0, BootstrapResamples)
	for range BootstrapResamples {
		ma := draw(a)
		if ma <= 0 {
			continue // a resample of zeros: no ratio
		}
		ratios = append(ratios, draw(b)/ma)
	}
	if len(ratios) == 0 {
		return r
	}
	slices.Sort(ratios)
	r.Low, r.High = percentile(ratios, 0.025), percentile(ratios, 0.975)
	r.Significant = r.Low > 1 || r.High < 1
	return r
}

// percentile reads the q-quantile of sorted xs, interpolating linearly.
func percentile(sorted []float64, q float64) float64 {
	pos := q * float64(len(sorted)-1)
	i := int(math.Floor(pos))
	if i+1 >= len(sorted) {
		return sorted[len(sorted)-1]
	}
	return sorted[i] + (pos-float64(i))*(sorted[i+1]-sorted[i])
}

// maxExactSplits bounds the splits PermutationP enumerates (C(20,10) is
// 184,756): beyond it, it draws this many at random instead.
const maxExactSplits = 200000

// PermutationP is the two-sided p-value of the difference of the means of
// a and b under the hypothesis that the labels do not matter: the share of
// the splits of the pooled values into groups of len(a) and len(b) whose
// |mean difference| is at least the observed one. Exact (every split) up
// to maxExactSplits, else estimated from that many random splits drawn
// from seed. NaN without a value in each sample. The smallest p it can
// give is 2/C(n, len(a)) for balanced samples: 0.1 for 3 trials each, 0.029
// for 4, 0.008 for 5.
func PermutationP(a, b []float64, seed uint64) float64 {
	if len(a) == 0 || len(b) == 0 {
		return math.NaN()
	}
	pool := append(slices.Clone(a), b...)
	n, k := len(pool), len(a)
	var total float64
	for _, x := range pool {
		total += x
	}
	diff := func(sumA float64) float64 {
		return math.Abs((total-sumA)/float64(n-k) - sumA/float64(k))
	}
	var sumA float64
	for _, x := range a {
		sumA += x
	}
	// A relative tolerance keeps the observed split itself counted despite
	// rounding in the sums.
	observed := diff(sumA) * (1 - 1e-9)
	var hits, splits float64
	if binomial(n, k) <= maxExactSplits {
		var rec func(start, left int, sum float64)
		rec = func(start, left int, sum float64) {
			if left == 0 {
				splits++
				if diff(sum) >= observed {
					hits++
				}
				return
			}
			for i := start; i <= n-left; i++ {
				rec(i+1, left-1, sum+pool[i])
			}
		}
		rec(0, k, 0)
		return hits / splits
	}
	rng := rand.New(rand.NewPCG(seed, 0x9e3779b9))
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	for range maxExactSplits {
		rng.Shuffle(n, func(i, j int) { idx[i], idx[j] = idx[j], idx[i] })
		var s float64
		for _, i := range idx[:k] {
			s += pool[i]
		}
		splits++
		if diff(s) >= observed {
			hits++
		}
	}
	// The observed split counts as one of those drawn (Phipson and Smyth):
	// a random estimate is never 0.
	return (hits + 1) / (splits + 1)
}

// binomial is C(n, k), saturating far above maxExactSplits.
func binomial(n, k int) float64 {
	c := 1.0
	for i := 1; i <= k; i++ {
		c = c * float64(n-k+i) / float64(i)
		if c > 1e12 {
			return c
		}
	}
	return math.Round(c)
}
