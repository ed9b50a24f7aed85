package metrics

import (
	"strings"
	"testing"
	"time"
)

// series makes measured 10 s intervals with the given TPMs (after two
// ramp-up intervals, which the check leaves out).
func series(tpms ...float64) []Interval {
	ivs := []Interval{
		{Seq: 1, Phase: PhaseRampup, Elapsed: 10 * time.Second, Length: 10 * time.Second, TPM: 1},
		{Seq: 2, Phase: PhaseRampup, Elapsed: 20 * time.Second, Length: 10 * time.Second, TPM: 50000},
	}
	for i, v := range tpms {
		ivs = append(ivs, Interval{Seq: i + 3, Phase: PhaseMeasure, Elapsed: time.Duration(30+10*i) * time.Second, Length: 10 * time.Second, TPM: v})
	}
	return ivs
}

func TestSteadinessWarnings(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		ivs  []Interval
		want []string // substrings, one per warning; nil: none
	}{
		{"steady", series(100000, 101000, 99500, 100500, 99800, 100200, 100900, 99300), nil},
		{"rising", series(90000, 93000, 96000, 99000, 102000, 105000, 108000, 111000), []string{"not steady: TPM rose by 2"}},
		{"falling", series(110000, 107000, 104000, 101000, 98000, 95000, 92000, 89000), []string{"not steady: TPM fell by 2"}},
		// A small but clear trend (1% over the window) is not worth a word.
		{"small trend", series(100000, 100150, 100300, 100450, 100600, 100750, 100900, 101050), nil},
		{"cold start", series(60000, 62000, 100000, 101000, 99500, 100500, 99800, 100200, 100900, 99300),
			[]string{"warm-up: the window's first 2 intervals ran 39% below the rest"}},
		// Cold, and still climbing after: the trend says it.
		{"cold and climbing", series(60000, 62000, 80000, 85000, 90000, 95000, 100000, 105000, 110000, 115000),
			[]string{"not steady: TPM rose by"}},
		{"too short", series(10000, 50000, 90000, 130000, 170000), nil},
		{"nothing measured", series(), nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := SteadinessWarnings(tc.ivs)
			if len(got) != len(tc.want) {
				t.Fatalf("warnings %q, want %d", got, len(tc.want))
			}
			for i, w := range tc.want {
				if !strings.Contains(got[i], w) {
					t.Errorf("warning %q, want it to say %q", got[i], w)
				}
			}
		})
	}
}
