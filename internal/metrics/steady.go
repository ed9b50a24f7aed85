package metrics

import (
	"fmt"
	"math"

	"github.com/sledge-bench/sledge/internal/stats"
)

// Steadiness thresholds: a measured window is judged when it has at least
// steadyMinIntervals intervals, and a change is reported when it is
// statistically significant (5% level) and large enough to matter.
const (
	steadyMinIntervals = 6
	// steadyDrift is the change of TPM over the whole window, as a share of
	// its mean, from which a significant trend is reported.
	steadyDrift = 0.05
	// warmupShare is the share of the window's first intervals compared
	// with the rest; warmupGap the shortfall reported when significant.
	warmupShare = 0.2
	warmupGap   = 0.10
)

// SteadinessWarnings judges whether the run's measured window was steady:
// a trend of TPM across the window (the database still warming up, a
// growing table, a checkpoint storm settling) and a first part well below
// the rest (a ramp-up too short) make its average a number of a moment,
// not of the system. It returns the warnings; none when the window is
// steady or too short to judge.
func SteadinessWarnings(ivs []Interval) []string {
	var xs, ys []float64
	for _, iv := range ivs {
		if iv.Phase != PhaseMeasure || math.IsNaN(iv.TPM) || iv.Length <= 0 {
			continue
		}
		xs = append(xs, (iv.Elapsed - iv.Length/2).Minutes())
		ys = append(ys, iv.TPM)
	}
	if len(ys) < steadyMinIntervals {
		return nil
	}
	if stats.Summarize(ys).Mean <= 0 {
		return nil
	}
	// A window whose first part ran well below a steady rest had a cold
	// start; else a trend across the whole window says it was not steady.
	// One of the two, the one that explains it.
	k := int(math.Ceil(warmupShare * float64(len(ys))))
	if d := stats.Welch(ys[:k], ys[k:]); k >= 2 && d.Significant && d.Diff > 0 && drift(xs[k:], ys[k:]) == 0 {
		if gap := d.Diff / stats.Summarize(ys[k:]).Mean; gap >= warmupGap {
			return []string{fmt.Sprintf(
				"warm-up: the window's first %d intervals ran %.0f%% below the rest: the database was not yet warm (a longer ramp-up would leave them out)",
				k, 100*gap)}
		}
	}
	if d := drift(xs, ys); d != 0 {
		return []string{fmt.Sprintf(
			"not steady: TPM %s by %.0f%% across the measured window (a significant trend over %d intervals): its average is of that moment; a longer ramp-up or window tells more",
			map[bool]string{true: "rose", false: "fell"}[d > 0], math.Abs(100*d), len(ys))}
	}
	return nil
}

// drift is the change of y across the points' x span, as a share of y's
// mean, when the trend is significant and at least steadyDrift; else 0.
func drift(xs, ys []float64) float64 {
	if len(ys) < 3 {
		return 0
	}
	m := stats.Summarize(ys).Mean
	tr := stats.LinearTrend(xs, ys)
	d := tr.Slope * (xs[len(xs)-1] - xs[0]) / m
	if m <= 0 || !tr.Significant || math.Abs(d) < steadyDrift {
		return 0
	}
	return d
}
