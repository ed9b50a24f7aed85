// Package report renders jobs and their results for people (text) and for
// programs (the stable JSON shapes of `sledge jobs` and the HTTP API). Every
// front end renders through it, so a result reads the same everywhere.
package report

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/sledge-bench/sledge/internal/metrics"
)

// Int renders a rate or count with thousands separators, rounded.
func Int(v float64) string {
	n := int64(math.Round(v))
	s := fmt.Sprint(n)
	var b strings.Builder
	if n < 0 {
		b.WriteByte('-')
		s = s[1:]
	}
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}

// Rate is Int that survives NaN and ±Inf (a rate over an empty window): "-".
func Rate(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "-"
	}
	return Int(v)
}

// MS is a duration in milliseconds as a number.
func MS(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// Latency renders a latency with a precision that suits its size.
func Latency(d time.Duration) string {
	ms := MS(d)
	switch {
	case ms < 10:
		return fmt.Sprintf("%.2f ms", ms)
	case ms < 1000:
		return fmt.Sprintf("%.1f ms", ms)
	}
	return fmt.Sprintf("%.0f ms", ms)
}

// Elapsed renders a time since a run's start: "50s", "2m30s".
func Elapsed(d time.Duration) string {
	d = d.Round(time.Second)
	if d < time.Minute {
		return fmt.Sprintf("%ds", int(d.Seconds()))
	}
	return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
}

// Plural renders a count with its noun ("1 warehouse", "4 warehouses").
func Plural(n int, noun string) string {
	if n != 1 {
		noun += "s"
	}
	return fmt.Sprintf("%d %s", n, noun)
}

// ProgressElapsed renders a time since a run's start as the progress lines
// give it: whole seconds, right-aligned in seven columns ("    50s",
// "   150s", " 86400s" for a day), one format for any length of run so that
// the lines sort and grep alike.
func ProgressElapsed(d time.Duration) string {
	return fmt.Sprintf("%6ds", int64(d.Round(time.Second)/time.Second))
}

// IntervalLine is the progress line of one monitor interval; headTx is the
// transaction whose p95 it shows (-1: none):
//
//	[    50s] measure  TPM    12,000  NOPM     5,400  new_order p95  4.12 ms  errors 0
//
// A workload without a headline transaction (pgbench's) has no NOPM: its
// line gives the transactions a second and the p95 of all of them together
// (pgbench's -P shows the rate and the latency of all transactions):
//
//	[    50s] measure  TPS    3774.3  p95  1.80 ms  errors 0
func IntervalLine(iv metrics.Interval, headTx int) string {
	var line string
	if headTx >= 0 && headTx < len(iv.Tx) {
		line = fmt.Sprintf("[%s] %-8s TPM %9s  NOPM %9s  %s %8s  errors %d",
			ProgressElapsed(iv.Elapsed), iv.Phase, Int(iv.TPM), Int(iv.NOPM), iv.Tx[headTx].Name+" p95", Latency(iv.Tx[headTx].P95), iv.Errors)
	} else {
		line = fmt.Sprintf("[%s] %-8s TPS %9.1f  p95 %8s  errors %d",
			ProgressElapsed(iv.Elapsed), iv.Phase, iv.TPM/60, allP95(iv.Tx), iv.Errors)
	}
	// Terminal and rate runs say how well the schedule was kept; staged
	// runs which stage the interval is in. Closed-loop lines are unchanged.
	if iv.LagP99 > 0 || iv.Late > 0 {
		line += fmt.Sprintf("  lag p99 %s  late %d", Latency(iv.LagP99), iv.Late)
	}
	if iv.Dropped > 0 {
		line += fmt.Sprintf("  dropped %d", iv.Dropped)
	}
	if iv.Stage > 0 {
		line += fmt.Sprintf("  stage %d", iv.Stage)
	}
	return line
}

// allP95 is the p95 of an interval's transactions of every type: from
// their histograms, or, without them (an interval read from the API), the
// only type's; "-" when it cannot be known.
func allP95(txs []metrics.IntervalTx) string {
	if p, ok, err := metrics.IntervalPercentile(95, txs...); err == nil && ok {
		return Latency(p)
	}
	if len(txs) == 1 && txs[0].Count > 0 {
		return Latency(txs[0].P95)
	}
	return "-"
}

// IntervalJSONLine is IntervalLine of an interval as the API sends it (a
// remote run's progress): the same line, the headline transaction being
// New-Order when the interval has one.
func IntervalJSONLine(x IntervalJSON) string {
	iv := metrics.Interval{Phase: x.Phase, Elapsed: time.Duration(x.ElapsedS * float64(time.Second)),
		TPM: float64(x.TPM), NOPM: float64(x.NOPM), Errors: x.Errors, Stage: x.Stage,
		LagP99: time.Duration(x.LagP99MS * float64(time.Millisecond)), Late: x.Late, Dropped: x.Dropped}
	head := -1
	if t, ok := x.Transactions["new_order"]; ok {
		head = 0
		iv.Tx = []metrics.IntervalTx{{Name: "new_order", P95: time.Duration(t.P95MS * float64(time.Millisecond))}}
	} else {
		for name, t := range x.Transactions {
			iv.Tx = append(iv.Tx, metrics.IntervalTx{Name: name, Count: t.Count, P95: time.Duration(t.P95MS * float64(time.Millisecond))})
		}
	}
	return IntervalLine(iv, head)
}
