package metrics

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/sledge-bench/sledge/internal/stats"
)

// Steadiness thresholds: a measured window is judged when it has at least
// steadyMinIntervals intervals, and a change is reported when it is
// statistically significant (5% level) and large enough to matter.
const (
	steadyMinIntervals = 6
	// steadyDrift is the change of the fitted trend across the window, as
	// a share of its value at the window's start, from which a
	// significant trend is reported.
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
	var pts []point
	for _, iv := range ivs {
		if iv.Phase != PhaseMeasure || math.IsNaN(iv.TPM) || iv.Length <= 0 {
			continue
		}
		pts = append(pts, point{start: iv.Elapsed - iv.Length, end: iv.Elapsed, tpm: iv.TPM})
	}
	if len(pts) < steadyMinIntervals {
		return nil
	}
	ys := tpms(pts)
	if stats.Summarize(ys).Mean <= 0 {
		return nil
	}
	// A window whose first part ran well below a steady rest had a cold
	// start; else a trend across the whole window says it was not steady.
	// One of the two, the one that explains it.
	k := int(math.Ceil(warmupShare * float64(len(ys))))
	if d := stats.Welch(ys[:k], ys[k:]); k >= 2 && d.Significant && d.Diff > 0 {
		if _, trending := fitTrend(pts[k:]); !trending {
			if gap := d.Diff / stats.Summarize(ys[k:]).Mean; gap >= warmupGap {
				return []string{fmt.Sprintf(
					"warm-up: the window's first %d intervals ran %.0f%% below the rest: the database was not yet warm (a longer ramp-up would leave them out)",
					k, 100*gap)}
			}
		}
	}
	if tr, ok := fitTrend(pts); ok {
		return []string{fmt.Sprintf(
			"not steady: %s over the measured window, a significant least-squares trend over %d intervals: its average is of that moment; a longer ramp-up or window tells more",
			tr, len(pts))}
	}
	return nil
}

// point is one measured interval: its span on the run's clock and its TPM.
type point struct {
	start, end time.Duration
	tpm        float64
}

func tpms(pts []point) []float64 {
	ys := make([]float64, len(pts))
	for i, p := range pts {
		ys[i] = p.tpm
	}
	return ys
}

// trend is what the least-squares line of TPM did across a window: its
// values at the window's start and end, each clamped at zero (no
// throughput is negative), and where it crosses zero when it does inside
// the window.
type trend struct {
	from, to float64
	// window is the span's length; zeroAt, when cross, is how far into it
	// the fitted line crosses zero (a line that rises from below zero, or
	// falls below it).
	window time.Duration
	zeroAt time.Duration
	cross  bool
}

// fitTrend fits TPM against the intervals' midpoints and reads the line at
// the span's start (the first interval's start) and end (the last one's
// end). ok when the trend is significant and its change is at least
// steadyDrift of its start value — always, when the line starts below zero.
func fitTrend(pts []point) (trend, bool) {
	if len(pts) < 3 {
		return trend{}, false
	}
	xs := make([]float64, len(pts))
	for i, p := range pts {
		xs[i] = (p.start + (p.end-p.start)/2).Minutes()
	}
	fit := stats.LinearTrend(xs, tpms(pts))
	if !fit.Significant || math.IsNaN(fit.Slope) || fit.Slope == 0 {
		return trend{}, false
	}
	t0, t1 := pts[0].start, pts[len(pts)-1].end
	at := func(t time.Duration) float64 { return fit.Intercept + fit.Slope*t.Minutes() }
	tr := trend{from: at(t0), to: at(t1), window: t1 - t0}
	if (tr.from < 0) != (tr.to < 0) {
		zero := -fit.Intercept / fit.Slope // minutes, on the run's clock
		tr.zeroAt, tr.cross = time.Duration(zero*float64(time.Minute))-t0, true
	}
	tr.from, tr.to = max(tr.from, 0), max(tr.to, 0)
	if tr.from == 0 {
		return tr, tr.to > 0
	}
	return tr, math.Abs(tr.to-tr.from)/tr.from >= steadyDrift
}

// String words the trend as what the fitted line did: "the trend fell from
// 31k to 6k TPM (−80 %)", its change relative to its start value; a line
// clamped at zero says where it crossed it.
func (t trend) String() string {
	verb := "rose"
	if t.to < t.from {
		verb = "fell"
	}
	s := fmt.Sprintf("the trend %s from %s to %s TPM", verb, compact(t.from), compact(t.to))
	into := fmt.Sprintf("%s into the %s window", t.zeroAt.Round(time.Second), t.window.Round(time.Second))
	switch {
	case t.from == 0:
		return s + " (the fitted line starts below zero: it crosses zero " + into + ")"
	case t.to == 0 && t.cross:
		return s + " (−100 %: the fitted line reaches zero " + into + "; TPM is not read below zero)"
	}
	pct := strconv.FormatFloat(100*(t.to-t.from)/t.from, 'f', 0, 64)
	if !strings.HasPrefix(pct, "-") {
		pct = "+" + pct
	}
	return s + " (" + strings.Replace(pct, "-", "−", 1) + " %)"
}

// compact writes a TPM to three significant digits with a k, M or G:
// 31234 is 31.2k, 6000 is 6k.
func compact(v float64) string {
	units := []string{"", "k", "M", "G"}
	i := 0
	for i < len(units)-1 && math.Abs(v) >= 999.5 {
		v /= 1000
		i++
	}
	return strconv.FormatFloat(v, 'g', 3, 64) + units[i]
}
