// Package threshold reads pass/fail criteria on a run's result, in the k6
// sense ("nopm>=40000", "p99(new_order)<50ms", "errors<1%"), and judges
// them on the measured window's result. Parsing knows no workload: what a
// workload's runs measure (its transaction types, whether it is analytic)
// is given to Check by the workload's own validation.
package threshold

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/sledge-bench/sledge/internal/db"
)

// Threshold is one criterion, as Parse read it.
type Threshold struct {
	// Text is the criterion as given (trimmed): its name in every report.
	Text string
	// Metric is what is judged ("nopm", "p99", "errors", "geomean" …).
	Metric string
	// Name narrows the metric: a transaction type for a latency; a
	// transaction type or an error class for errors. "": all.
	Name string
	// Op is one of <, <=, >, >=, ==.
	Op string
	// Limit is the bound, in Unit.
	Limit float64
	// Unit is the limit's unit as given: "ms", "s" or "us" for times, "%"
	// for errors as a share of the transactions, "" for counts and rates.
	Unit string
}

// kind is what a metric measures, which decides its units.
type kind int

const (
	kindRate    kind = iota // a rate or score: no unit
	kindLatency             // a latency: ms, s or us; narrowed by a transaction type
	kindErrors              // a count, or % of the transactions
	kindSeconds             // a time of an analytic run: s or ms
)

type metricInfo struct {
	kind     kind
	oltp     bool // measured by OLTP runs
	analytic bool // measured by analytic runs
	doc      string
}

// metricTable lists every metric a threshold may name.
var metricTable = map[string]metricInfo{
	"nopm":            {kind: kindRate, oltp: true, doc: "New-Orders per minute"},
	"tpm":             {kind: kindRate, oltp: true, doc: "committed transactions per minute"},
	"tps":             {kind: kindRate, oltp: true, doc: "committed transactions per second"},
	"p50":             {kind: kindLatency, oltp: true},
	"p90":             {kind: kindLatency, oltp: true},
	"p95":             {kind: kindLatency, oltp: true},
	"p99":             {kind: kindLatency, oltp: true},
	"p999":            {kind: kindLatency, oltp: true},
	"max":             {kind: kindLatency, oltp: true},
	"mean":            {kind: kindLatency, oltp: true},
	"errors":          {kind: kindErrors, oltp: true, analytic: true},
	"geomean":         {kind: kindSeconds, analytic: true, doc: "geometric mean of the power test's query times"},
	"power_time":      {kind: kindSeconds, analytic: true, doc: "wall time of the power test"},
	"throughput_time": {kind: kindSeconds, analytic: true, doc: "wall time of the throughput test"},
	"power":           {kind: kindRate, analytic: true},
	"throughput":      {kind: kindRate, analytic: true},
	"composite":       {kind: kindRate, analytic: true},
}

// Metrics lists the metric names, OLTP ones first, in a stable order.
func Metrics() []string {
	return []string{"nopm", "tpm", "tps", "p50", "p90", "p95", "p99", "p999", "max", "mean", "errors",
		"geomean", "power_time", "throughput_time", "power", "throughput", "composite"}
}

func metricsOf(analytic bool) []string {
	var out []string
	for _, m := range Metrics() {
		if info := metricTable[m]; info.analytic && analytic || info.oltp && !analytic {
			out = append(out, m)
		}
	}
	return out
}

// quantiles are the latency metrics read at a quantile of the histogram.
var quantiles = map[string]float64{"p50": 50, "p90": 90, "p95": 95, "p99": 99, "p999": 99.9}

var ops = []string{"<=", ">=", "==", "<", ">"} // two-character ones first

// Parse reads one criterion: METRIC[(NAME)] OP NUMBER[UNIT], spaces
// allowed between the parts. Its errors say what is wrong and what would
// be right; they do not name the setting.
func Parse(text string) (Threshold, error) {
	t := Threshold{Text: strings.TrimSpace(text)}
	s := t.Text
	if s == "" {
		return t, fmt.Errorf("empty threshold: want e.g. nopm>=40000, p99(new_order)<50ms or errors<1%%")
	}
	lhs, op, rest, err := splitCriterion(s)
	if err != nil {
		return t, err
	}
	t.Op = op
	var info metricInfo
	if t.Metric, t.Name, info, err = parseMetric(s, lhs); err != nil {
		return t, err
	}
	num, unit := splitUnit(strings.TrimSpace(rest))
	if num == "" {
		return t, fmt.Errorf("%q has no value after %s", s, t.Op)
	}
	v, err := strconv.ParseFloat(num, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return t, fmt.Errorf("%q: %q is not a number", s, num)
	}
	t.Limit, t.Unit = v, unit
	if t.Unit == "µs" {
		t.Unit = "us"
	}
	switch info.kind {
	case kindRate:
		if t.Unit != "" {
			return t, fmt.Errorf("%q: %s is a plain number, without a unit (got %q)", s, t.Metric, unit)
		}
	case kindLatency:
		if !slices.Contains([]string{"ms", "s", "us"}, t.Unit) {
			return t, fmt.Errorf("%q: a latency needs a unit: ms, s or us (e.g. %s<50ms)", s, lhs)
		}
	case kindSeconds:
		if t.Unit != "s" && t.Unit != "ms" {
			return t, fmt.Errorf("%q: a time needs a unit: s or ms (e.g. %s<30s)", s, lhs)
		}
	case kindErrors:
		if t.Unit != "" && t.Unit != "%" {
			return t, fmt.Errorf("%q: errors are a count, or a share of the transactions with %% (e.g. errors<1%%), not %q", s, unit)
		}
	}
	if v < 0 {
		return t, fmt.Errorf("%q: the value must not be negative", s)
	}
	return t, nil
}

// splitCriterion splits criterion s into its left-hand side, its
// comparison and what follows it.
func splitCriterion(s string) (lhs, op, rest string, err error) {
	i := strings.IndexAny(s, "<>=")
	if i < 0 {
		return "", "", "", fmt.Errorf("%q has no comparison: want METRIC OP VALUE with OP one of < <= > >= == (e.g. p99(new_order)<50ms)", s)
	}
	lhs, rest = strings.TrimSpace(s[:i]), s[i:]
	for _, o := range ops {
		if strings.HasPrefix(rest, o) {
			return lhs, o, rest[len(o):], nil
		}
	}
	return "", "", "", fmt.Errorf("%q: %q is not a comparison: want < <= > >= or ==", s, rest[:1])
}

// parseMetric reads METRIC[(NAME)], the left-hand side of criterion s.
func parseMetric(s, lhs string) (metric, name string, info metricInfo, err error) {
	metric = lhs
	if open := strings.IndexByte(lhs, '('); open >= 0 {
		if !strings.HasSuffix(lhs, ")") {
			return "", "", info, fmt.Errorf("%q: %q has no closing parenthesis", s, lhs)
		}
		metric = strings.TrimSpace(lhs[:open])
		name = strings.TrimSpace(lhs[open+1 : len(lhs)-1])
		if name == "" {
			return "", "", info, fmt.Errorf("%q: empty parentheses: name a transaction type, or leave them out for all", s)
		}
	}
	metric = strings.ToLower(metric)
	info, ok := metricTable[metric]
	if !ok {
		if metric == "" {
			return "", "", info, fmt.Errorf("%q names no metric: want one of %s", s, strings.Join(Metrics(), ", "))
		}
		return "", "", info, fmt.Errorf("%q: unknown metric %q: want one of %s", s, metric, strings.Join(Metrics(), ", "))
	}
	if name != "" && info.kind != kindLatency && info.kind != kindErrors {
		return "", "", info, fmt.Errorf("%q: %s takes no name in parentheses (latencies and errors do)", s, metric)
	}
	return metric, name, info, nil
}

// splitUnit splits "50ms" into "50" and "ms".
func splitUnit(s string) (num, unit string) {
	i := len(s)
	for i > 0 {
		c := s[i-1]
		if c >= '0' && c <= '9' || c == '.' {
			break
		}
		i--
	}
	return strings.TrimSpace(s[:i]), strings.TrimSpace(s[i:])
}

// Scope is what a workload's runs measure, against which Check judges
// whether a threshold can be met at all.
type Scope struct {
	Title    string   // the workload's name for people ("TPROC-C")
	Analytic bool     // its runs are query streams, not transactions
	TxNames  []string // its transaction types (OLTP)
}

// Check reports each threshold that names what the scope's runs do not
// measure: a metric of the other kind of run, an unknown transaction type
// or error class.
func Check(ths []Threshold, sc Scope) []error {
	var errs []error
	for _, t := range ths {
		info := metricTable[t.Metric]
		if sc.Analytic && !info.analytic || !sc.Analytic && !info.oltp {
			errs = append(errs, fmt.Errorf("%q: %s is not measured by %s runs: want one of %s",
				t.Text, t.Metric, sc.Title, strings.Join(metricsOf(sc.Analytic), ", ")))
			continue
		}
		if t.Name == "" {
			continue
		}
		if sc.Analytic {
			errs = append(errs, fmt.Errorf("%q: %s of %s runs takes no name in parentheses", t.Text, t.Metric, sc.Title))
			continue
		}
		switch {
		case slices.Contains(sc.TxNames, t.Name):
		case info.kind == kindErrors && slices.Contains(errorClasses(), t.Name):
		case info.kind == kindErrors:
			errs = append(errs, fmt.Errorf("%q: %q is neither a %s transaction type (%s) nor an error class (%s)",
				t.Text, t.Name, sc.Title, strings.Join(sc.TxNames, ", "), strings.Join(errorClasses(), ", ")))
		default:
			errs = append(errs, fmt.Errorf("%q: %q is not a %s transaction type: want %s",
				t.Text, t.Name, sc.Title, strings.Join(sc.TxNames, ", ")))
		}
	}
	return errs
}

// errorClasses are the classes a failed transaction is counted in.
func errorClasses() []string {
	out := make([]string, 0, db.NumClasses)
	for c := db.ClassNone + 1; c < db.NumClasses; c++ {
		out = append(out, c.String())
	}
	return out
}

// holds reports whether v op limit.
func (t Threshold) holds(v float64) bool {
	switch t.Op {
	case "<":
		return v < t.Limit
	case "<=":
		return v <= t.Limit
	case ">":
		return v > t.Limit
	case ">=":
		return v >= t.Limit
	}
	return v == t.Limit
}
