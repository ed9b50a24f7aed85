package report

import (
	"fmt"
	"math"

	"github.com/sledge-bench/sledge/internal/metrics"
	"github.com/sledge-bench/sledge/internal/stats"
)

// Verdict says whether B's NOPM differs from A's beyond the noise of their
// runs, judged on the measured intervals' NOPM (Welch's t-test, 5% level).
// The intervals of one run are not independent trials (a slow minute
// follows a slow minute), so a difference "beyond the noise" is a strong
// hint, not proof: repeated runs are.
type Verdict struct {
	Significant bool
	ChangePct   float64 // B against A, in percent of A's mean
	IntervalsA  int
	IntervalsB  int
	// Trials says the samples are the trials of two series (sledge run
	// --repeat): independent runs, the firm test; else the intervals.
	Trials bool
}

// minVerdictIntervals is how many measured intervals each run needs to be
// judged.
const minVerdictIntervals = 3

// NOPMVerdict judges two TPROC-C runs; nil when either lacks the measured
// intervals to judge (an analytic run, a run recorded without a series, a
// window shorter than three intervals).
func NOPMVerdict(a, b DiffSide) *Verdict {
	if a.Run == nil || b.Run == nil {
		return nil
	}
	if len(a.Trials) >= 2 && len(b.Trials) >= 2 {
		// Two series of trials: compare the trials.
		ma := stats.Summarize(a.Trials).Mean
		if ma <= 0 {
			return nil
		}
		d := stats.Welch(a.Trials, b.Trials)
		return &Verdict{Significant: d.Significant, ChangePct: 100 * d.Diff / ma, IntervalsA: len(a.Trials), IntervalsB: len(b.Trials), Trials: true}
	}
	xa, xb := measuredNOPM(a.Intervals), measuredNOPM(b.Intervals)
	if len(xa) < minVerdictIntervals || len(xb) < minVerdictIntervals {
		return nil
	}
	ma := stats.Summarize(xa).Mean
	if ma <= 0 {
		return nil
	}
	d := stats.Welch(xa, xb)
	return &Verdict{Significant: d.Significant, ChangePct: 100 * d.Diff / ma, IntervalsA: len(xa), IntervalsB: len(xb)}
}

func measuredNOPM(ivs []metrics.Interval) []float64 {
	var out []float64
	for _, iv := range ivs {
		if iv.Phase == metrics.PhaseMeasure && !math.IsNaN(iv.NOPM) {
			out = append(out, iv.NOPM)
		}
	}
	return out
}

// Text words the verdict in one line.
func (v Verdict) Text() string {
	judged := "within the noise"
	if v.Significant {
		judged = "beyond the noise"
	}
	if v.Trials {
		return fmt.Sprintf("NOPM %+.1f%%: %s of the trials (Welch's t-test at 5%%, %d and %d trials)",
			v.ChangePct, judged, v.IntervalsA, v.IntervalsB)
	}
	return fmt.Sprintf("NOPM %+.1f%%: %s of the measured intervals (Welch's t-test at 5%%, %d and %d intervals; repeat runs for a firmer answer)",
		v.ChangePct, judged, v.IntervalsA, v.IntervalsB)
}

// VerdictJSON is the verdict in `jobs diff --format json` (nopm_verdict).
type VerdictJSON struct {
	Significant bool  `json:"significant"`
	ChangePct   Float `json:"change_pct"`
	// IntervalsA and IntervalsB are the sample sizes: trials when Trials,
	// else measured intervals.
	IntervalsA int    `json:"intervals_a"`
	IntervalsB int    `json:"intervals_b"`
	Trials     bool   `json:"trials"`
	Text       string `json:"text"`
}

func toVerdictJSON(v *Verdict) *VerdictJSON {
	if v == nil {
		return nil
	}
	return &VerdictJSON{Significant: v.Significant, ChangePct: Float(v.ChangePct), IntervalsA: v.IntervalsA, IntervalsB: v.IntervalsB,
		Trials: v.Trials, Text: v.Text()}
}
