package report

import (
	"strings"
	"testing"
	"time"

	"github.com/sledge-bench/sledge/internal/metrics"
)

// side is a run whose measured intervals have the given NOPMs.
func side(nopms ...float64) DiffSide {
	d := DiffSide{Run: &metrics.RunResult{}}
	d.Intervals = append(d.Intervals, metrics.Interval{Seq: 1, Phase: metrics.PhaseRampup, NOPM: 1})
	for i, v := range nopms {
		d.Intervals = append(d.Intervals, metrics.Interval{Seq: i + 2, Phase: metrics.PhaseMeasure, Elapsed: time.Duration(i+2) * 10 * time.Second, NOPM: v})
	}
	return d
}

func TestNOPMVerdict(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		a, b   DiffSide
		want   string // "" for no verdict
		change float64
	}{
		{"clearly faster", side(100, 102, 98, 101, 99), side(120, 122, 118, 121, 119), "beyond the noise", 20},
		{"noisy", side(100, 130, 70, 110, 90), side(104, 134, 74, 114, 94), "within the noise", 4},
		{"too short", side(100, 101), side(120, 121, 119), "", 0},
		{"not a run", DiffSide{Intervals: side(1, 2, 3).Intervals}, side(1, 2, 3), "", 0},
		// Series of trials: the trials decide, not the intervals.
		{"trials", withTrials(side(100, 130, 70, 110, 90), 100, 101, 99, 100, 100), withTrials(side(104, 134, 74, 114, 94), 104, 105, 103, 104, 104),
			"beyond the noise of the trials", 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := NOPMVerdict(tc.a, tc.b)
			if tc.want == "" {
				if v != nil {
					t.Fatalf("verdict %+v, want none", v)
				}
				if j := toVerdictJSON(v); j != nil {
					t.Errorf("JSON %+v, want null", j)
				}
				return
			}
			if v == nil || !strings.Contains(v.Text(), tc.want) || v.ChangePct < tc.change-0.5 || v.ChangePct > tc.change+0.5 {
				t.Fatalf("verdict %+v (%q), want %q and about %+.0f%%", v, textOf(v), tc.want, tc.change)
			}
			if j := toVerdictJSON(v); j.Significant != v.Significant || j.Text != v.Text() || j.IntervalsA != 5 {
				t.Errorf("JSON %+v", j)
			}
		})
	}
}

func textOf(v *Verdict) string {
	if v == nil {
		return ""
	}
	return v.Text()
}

func withTrials(d DiffSide, trials ...float64) DiffSide {
	d.Trials = trials
	return d
}
