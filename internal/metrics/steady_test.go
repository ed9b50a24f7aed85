package metrics

import (
	"regexp"
	"strconv"
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

// fall is a warning's fall in percent.
var fall = regexp.MustCompile(`−(\d+) %`)

func TestSteadinessWarnings(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		ivs  []Interval
		want []string // substrings, one per warning; nil: none
	}{
		{"steady", series(100000, 101000, 99500, 100500, 99800, 100200, 100900, 99300), nil},
		// The fitted line's values at the window's edges (20 s and 100 s),
		// half an interval beyond the first and last midpoints, and the
		// change relative to the start value.
		{"rising", series(90000, 93000, 96000, 99000, 102000, 105000, 108000, 111000),
			[]string{"not steady: the trend rose from 88.5k to 112k TPM (+27 %) over the measured window, a significant least-squares trend over 8 intervals"}},
		{"falling", series(110000, 107000, 104000, 101000, 98000, 95000, 92000, 89000),
			[]string{"not steady: the trend fell from 112k to 87.5k TPM (−22 %) over the measured window"}},
		// The issue's: worded as a share of the mean, this fall was "by
		// 120%"; the line fell by three quarters of its start.
		{"falling steeply", series(30500, 27500, 24500, 21500, 18500, 15500, 12500, 9500),
			[]string{"not steady: the trend fell from 32k to 8k TPM (−75 %)"}},
		// A line that falls below zero is read as zero from where it
		// crosses it: a fall of 100 %, never more.
		{"falling below zero", series(8000, 6000, 4000, 2000, 0, 0, 0, 0),
			[]string{"not steady: the trend fell from 7.26k to 0 TPM (−100 %: the fitted line reaches zero 1m1s into the 1m20s window; TPM is not read below zero)"}},
		// One that rises from below zero has no change relative to its
		// start: it says where it crossed zero.
		{"rising from below zero", series(0, 0, 0, 0, 2000, 4000, 6000, 8000),
			[]string{"not steady: the trend rose from 0 to 7.26k TPM (the fitted line starts below zero: it crosses zero 19s into the 1m20s window)"}},
		// A small but clear trend (1% over the window) is not worth a word.
		{"small trend", series(100000, 100150, 100300, 100450, 100600, 100750, 100900, 101050), nil},
		{"cold start", series(60000, 62000, 100000, 101000, 99500, 100500, 99800, 100200, 100900, 99300),
			[]string{"warm-up: the window's first 2 intervals ran 39% below the rest"}},
		// Cold, and still climbing after: the trend says it.
		{"cold and climbing", series(60000, 62000, 80000, 85000, 90000, 95000, 100000, 105000, 110000, 115000),
			[]string{"not steady: the trend rose from 59.7k to 121k TPM (+102 %)"}},
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
				if m := fall.FindStringSubmatch(got[i]); m != nil {
					if pct, _ := strconv.Atoi(m[1]); pct > 100 {
						t.Errorf("warning %q: a fall of more than 100 %%", got[i])
					}
				}
			}
		})
	}
}

// A TPM is written to three significant digits with its unit's letter;
// rounding up to 1000 moves to the next unit.
func TestCompactTPM(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		v    float64
		want string
	}{
		{0, "0"}, {850, "850"}, {999.4, "999"}, {999.6, "1k"}, {6000, "6k"},
		{31234, "31.2k"}, {112500, "112k"}, {1.5e6, "1.5M"},
	} {
		if got := compact(c.v); got != c.want {
			t.Errorf("compact(%g) = %q, want %q", c.v, got, c.want)
		}
	}
}
