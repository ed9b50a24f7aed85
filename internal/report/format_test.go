package report

import (
	"regexp"
	"sort"
	"testing"
	"time"

	"github.com/sledge-bench/sledge/internal/metrics"
	"github.com/sledge-bench/sledge/internal/metrics/metricstest"
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
			name: "a day", headTx: 0,
			iv:   metrics.Interval{Phase: metrics.PhaseMeasure, Elapsed: 24 * time.Hour, TPM: 1234567, NOPM: 543210, Tx: tx},
			want: "[ 86400s] measure  TPM 1,234,567  NOPM   543,210  new_order p95  4.12 ms  errors 0",
		},
		{
			// No headline (pgbench's scripts): no NOPM; the rate a second
			// and the p95 of both types' latencies together (19 of 1 ms,
			// one of 10 ms: the 95th of 20 is 1 ms; the types' own p95s
			// are 10 ms and 1 ms).
			name: "no headline transaction", headTx: -1,
			iv: metrics.Interval{Phase: metrics.PhaseMeasure, Elapsed: 10 * time.Second, TPM: 226458, Tx: []metrics.IntervalTx{
				{Name: "tpcb-like", Count: 2, P95: 10 * time.Millisecond, Histogram: metricstest.Histogram(t, 1000, 10000)},
				{Name: "select-only", Count: 18, P95: time.Millisecond, Histogram: metricstest.Histogram(t, 1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000,
					1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000)},
			}},
			want: "[    10s] measure  TPS    3774.3  p95  1.00 ms  errors 0",
		},
		{
			name: "no headline, read from the API (no histograms): the only type's p95", headTx: -1,
			iv:   metrics.Interval{Phase: metrics.PhaseRampup, Elapsed: 5 * time.Second, TPM: 600, Tx: []metrics.IntervalTx{{Name: "tpcb-like", Count: 50, P95: 2 * time.Millisecond}}},
			want: "[     5s] rampup   TPS      10.0  p95  2.00 ms  errors 0",
		},
		{
			name: "no headline, several types without histograms", headTx: -1,
			iv: metrics.Interval{Phase: metrics.PhaseMeasure, Elapsed: 5 * time.Second, TPM: 600,
				Tx: []metrics.IntervalTx{{Name: "a", Count: 5, P95: time.Millisecond}, {Name: "b", Count: 5, P95: time.Millisecond}}},
			want: "[     5s] measure  TPS      10.0  p95        -  errors 0",
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
