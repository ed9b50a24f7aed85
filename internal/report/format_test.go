package report

import (
	"regexp"
	"sort"
	"testing"
	"time"

	"github.com/sledge-bench/sledge/internal/metrics"
)

func TestProgressElapsed(t *testing.T) {
	t.Parallel()
	cases := []struct {
		d    time.Duration
		want string
	}{
		{0, "     0s"},
		{50 * time.Second, "    50s"},
		{49500 * time.Millisecond, "    50s"}, // rounded, as the interval's end is
		{150 * time.Second, "   150s"},
		{time.Hour, "  3600s"},
		{24 * time.Hour, " 86400s"},
		{100 * time.Hour, "360000s"},
	}
	for _, c := range cases {
		if got := ProgressElapsed(c.d); got != c.want {
			t.Errorf("ProgressElapsed(%v) = %q, want %q", c.d, got, c.want)
		}
	}
}

// progressLine is the progress line's grammar, as a script would match it.
var progressLine = regexp.MustCompile(`^\[ *(\d+)s\] (rampup|measure) +TPM +[\d,]+  NOPM +[\d,]+  \S+ p95 +[\d.]+ ms  errors \d+$`)

func TestIntervalLine(t *testing.T) {
	t.Parallel()
	tx := []metrics.IntervalTx{{Name: "new_order", P95: 4120 * time.Microsecond}, {Name: "payment", P95: time.Millisecond}}
	cases := []struct {
		name   string
		iv     metrics.Interval
		headTx int
		want   string
	}{
		{
			name: "under a minute", headTx: 0,
			iv:   metrics.Interval{Phase: metrics.PhaseMeasure, Elapsed: 50 * time.Second, TPM: 12000, NOPM: 5400, Tx: tx},
			want: "[    50s] measure  TPM    12,000  NOPM     5,400  new_order p95  4.12 ms  errors 0",
		},
		{
			name: "past a minute: still seconds", headTx: 1,
			iv:   metrics.Interval{Phase: metrics.PhaseRampup, Elapsed: 150 * time.Second, TPM: 600, Errors: 3, Tx: tx},
			want: "[   150s] rampup   TPM       600  NOPM         0  payment p95  1.00 ms  errors 3",
		},
		{
			name: "a day", headTx: -1,
			iv:   metrics.Interval{Phase: metrics.PhaseMeasure, Elapsed: 24 * time.Hour, TPM: 1234567, NOPM: 543210},
			want: "[ 86400s] measure  TPM 1,234,567  NOPM   543,210  p95  0.00 ms  errors 0",
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := IntervalLine(c.iv, c.headTx)
			if got != c.want {
				t.Errorf("got  %q\nwant %q", got, c.want)
			}
			if c.headTx >= 0 && !progressLine.MatchString(got) {
				t.Errorf("%q does not match %s", got, progressLine)
			}
		})
	}
}

// TestIntervalLinesSort: the lines of a run sort by their text in the order
// of their time, whatever its length.
func TestIntervalLinesSort(t *testing.T) {
	t.Parallel()
	var lines []string
	for _, s := range []int{5, 59, 60, 61, 599, 600, 3600, 86399, 86400} {
		lines = append(lines, IntervalLine(metrics.Interval{Phase: metrics.PhaseMeasure, Elapsed: time.Duration(s) * time.Second}, -1))
	}
	if !sort.StringsAreSorted(lines) {
		t.Errorf("not in time order when sorted as text:\n%q", lines)
	}
}

func TestInt(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		v    float64
		want string
	}{
		{0, "0"}, {999.4, "999"}, {999.5, "1,000"}, {1234567, "1,234,567"},
		{-0.4, "0"}, {-999, "-999"}, {-3064.4, "-3,064"}, {-1234567.6, "-1,234,568"},
	} {
		if got := Int(c.v); got != c.want {
			t.Errorf("Int(%g) = %q, want %q", c.v, got, c.want)
		}
	}
}
