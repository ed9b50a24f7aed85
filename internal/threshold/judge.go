package threshold

import (
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/sledge-bench/sledge/internal/metrics"
)

// Verdict is one threshold judged on a run's result.
type Verdict struct {
	Threshold
	// Value is what the run measured, in the threshold's Unit; meaningful
	// only when HasValue.
	Value    float64
	HasValue bool
	// Pass says the value meets the threshold. A threshold whose value
	// could not be measured fails: a gate does not pass on what it did not
	// see.
	Pass bool
	// Note says why there is no value ("" when there is one).
	Note string
}

// Status words the verdict: "pass" or "FAIL".
func (v Verdict) Status() string {
	if v.Pass {
		return "pass"
	}
	return "FAIL"
}

// Measured words the value with its unit ("12.3ms", "41234", "0.5%"), or
// "—" when there is none.
func (v Verdict) Measured() string {
	if !v.HasValue {
		return "—"
	}
	return FormatNumber(v.Value) + v.Unit
}

// FormatNumber writes a value compactly: integers as integers, others with
// up to 4 significant digits after the point.
func FormatNumber(f float64) string {
	if f == math.Trunc(f) && math.Abs(f) < 1e15 {
		return strconv.FormatFloat(f, 'f', -1, 64)
	}
	if math.Abs(f) >= 100 {
		return strconv.FormatFloat(f, 'f', 1, 64)
	}
	return strconv.FormatFloat(f, 'g', 4, 64)
}

// Failed counts the verdicts that did not pass.
func Failed(vs []Verdict) int {
	n := 0
	for _, v := range vs {
		if !v.Pass {
			n++
		}
	}
	return n
}

func judged(t Threshold, v float64, note string) Verdict {
	if note != "" || math.IsNaN(v) || math.IsInf(v, 0) {
		if note == "" {
			note = "not computed"
		}
		return Verdict{Threshold: t, Note: note}
	}
	return Verdict{Threshold: t, Value: v, HasValue: true, Pass: t.holds(v)}
}

// JudgeRun judges each threshold on an OLTP run's result.
func JudgeRun(ths []Threshold, res *metrics.RunResult) []Verdict {
	out := make([]Verdict, 0, len(ths))
	for _, t := range ths {
		v, note := runValue(t, res)
		out = append(out, judged(t, v, note))
	}
	return out
}

func runValue(t Threshold, res *metrics.RunResult) (float64, string) {
	info := metricTable[t.Metric]
	if !info.oltp {
		return 0, fmt.Sprintf("%s is not measured by this run", t.Metric)
	}
	if res.Measured <= 0 {
		return 0, "nothing was measured"
	}
	switch t.Metric {
	case "nopm":
		return res.NOPM, ""
	case "tpm":
		return res.TPM, ""
	case "tps":
		return res.TPM / 60, ""
	case "errors":
		return runErrors(t, res)
	}
	return latency(t, res.Tx)
}

// runErrors counts the failed transactions of the threshold's type or
// class (all when it names none), as a share of the transactions
// attempted (committed, rolled back by design, or failed) when in %.
func runErrors(t Threshold, res *metrics.RunResult) (float64, string) {
	var failed, attempted int64
	found := t.Name == ""
	for _, tx := range res.Tx {
		n := tx.ErrorCount()
		switch {
		case t.Name == "":
		case tx.Name == t.Name:
			found = true
		case slices.Contains(errorClasses(), t.Name):
			found = true
			n = tx.Errors[t.Name]
		default:
			continue
		}
		failed += n
		attempted += tx.Count + tx.RolledBack + tx.ErrorCount()
	}
	if !found {
		return 0, fmt.Sprintf("the result has no %s transactions", t.Name)
	}
	if t.Name == "" && len(res.Tx) == 0 {
		failed = res.Errors
	}
	if t.Unit != "%" {
		return float64(failed), ""
	}
	if attempted == 0 {
		return 0, "no transaction was attempted in the window"
	}
	return 100 * float64(failed) / float64(attempted), ""
}

// latency reads a latency metric from the histograms of the threshold's
// transaction type (all types merged when it names none).
func latency(t Threshold, txs []metrics.TxSummary) (float64, string) {
	var sel []metrics.TxSummary
	for _, tx := range txs {
		if t.Name == "" || tx.Name == t.Name {
			sel = append(sel, tx)
		}
	}
	if len(sel) == 0 {
		if t.Name == "" {
			return 0, "the result has no transactions"
		}
		return 0, fmt.Sprintf("the result has no %s transactions", t.Name)
	}
	h, err := mergeHistograms(sel)
	if err != nil {
		return 0, err.Error()
	}
	var us float64
	switch {
	case h != nil && h.TotalCount() > 0:
		if q, ok := quantiles[t.Metric]; ok {
			us = float64(h.ValueAtQuantile(q))
		} else if t.Metric == "max" {
			us = float64(h.Max())
		} else {
			us = h.Mean()
		}
	case h != nil || completed(sel) == 0:
		return 0, "no transaction completed in the window"
	case len(sel) == 1:
		// A result stored without its histogram: its own figures.
		d, ok := map[string]float64{"p50": float64(sel[0].P50), "p95": float64(sel[0].P95), "p99": float64(sel[0].P99),
			"max": float64(sel[0].Max), "mean": float64(sel[0].Mean)}[t.Metric]
		if !ok {
			return 0, "the result keeps no histogram to read " + t.Metric + " from"
		}
		us = d / 1e3
	default:
		return 0, "the result keeps no histograms to merge"
	}
	switch t.Unit {
	case "ms":
		return us / 1e3, ""
	case "s":
		return us / 1e6, ""
	}
	return us, ""
}

func completed(txs []metrics.TxSummary) int64 {
	var n int64
	for _, tx := range txs {
		n += tx.Count + tx.RolledBack
	}
	return n
}

// JudgeAnalytic judges each threshold on an analytic run's result.
func JudgeAnalytic(ths []Threshold, res *metrics.AnalyticResult) []Verdict {
	out := make([]Verdict, 0, len(ths))
	for _, t := range ths {
		v, note := analyticValue(t, res)
		out = append(out, judged(t, v, note))
	}
	return out
}

func analyticValue(t Threshold, res *metrics.AnalyticResult) (float64, string) {
	info := metricTable[t.Metric]
	if !info.analytic {
		return 0, fmt.Sprintf("%s is not measured by this run", t.Metric)
	}
	seconds := func(s float64, none string) (float64, string) {
		if math.IsNaN(s) || s <= 0 {
			return 0, none
		}
		if t.Unit == "ms" {
			return s * 1e3, ""
		}
		return s, ""
	}
	switch t.Metric {
	case "geomean":
		return seconds(res.GeomeanS, "the power test's geometric mean was not computed")
	case "power_time":
		return seconds(res.PowerSeconds, "the run has no power test time")
	case "throughput_time":
		return seconds(res.ThroughputSeconds, "the run had no throughput test (streams 0)")
	case "power":
		return res.Power, ""
	case "throughput":
		if res.Streams == 0 {
			return 0, "the run had no throughput test (streams 0)"
		}
		return res.Throughput, ""
	case "composite":
		return res.Composite, ""
	}
	// errors: failed queries and refresh functions.
	var failed, ran int
	for _, q := range res.Queries {
		ran++
		if q.Error != "" {
			failed++
		}
	}
	for _, r := range res.Refreshes {
		ran++
		if r.Error != "" {
			failed++
		}
	}
	if t.Unit != "%" {
		return float64(failed), ""
	}
	if ran == 0 {
		return 0, "no query ran"
	}
	return 100 * float64(failed) / float64(ran), ""
}

// mergeHistograms merges the transactions' encoded histograms: nil when
// none of them keeps one.
func mergeHistograms(txs []metrics.TxSummary) (*hdrhistogram.Histogram, error) {
	var m *hdrhistogram.Histogram
	for _, tx := range txs {
		if tx.Histogram == nil {
			continue
		}
		h, err := hdrhistogram.Decode(tx.Histogram)
		if err != nil {
			return nil, fmt.Errorf("%s's histogram: %w", tx.Name, err)
		}
		if m == nil {
			m = h
			continue
		}
		if dropped := m.Merge(h); dropped > 0 {
			return nil, fmt.Errorf("%d latencies out of the histogram's range", dropped)
		}
	}
	return m, nil
}
