package threshold

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/sledge-bench/sledge/internal/metrics"
)

// Relative is a bound on the change of a metric from one set of runs (A)
// to another (B), in percent of A: "nopm<-3%" fails when B's NOPM is more
// than 3% below A's, "p95(new_order)>+10%" when B's New-Order p95 is more
// than 10% above A's (sledge gate --fail-if). It names what fails.
type Relative struct {
	// Text is the bound as given (trimmed).
	Text string
	// Metric and Name are what is compared, as a Threshold's.
	Metric, Name string
	// Op is one of <, <=, >, >=.
	Op string
	// Percent is the bound on the change, signed: -3 for "-3%".
	Percent float64
}

// ParseRelative reads METRIC[(NAME)] OP ±N%: a metric of Parse's, a
// comparison other than ==, and a signed percentage.
func ParseRelative(text string) (Relative, error) {
	r := Relative{Text: strings.TrimSpace(text)}
	s := r.Text
	if s == "" {
		return r, fmt.Errorf("empty bound: want e.g. nopm<-3%% or p95(new_order)>+10%%")
	}
	lhs, op, rest, err := splitCriterion(s)
	if err != nil {
		return r, err
	}
	if op == "==" {
		return r, fmt.Errorf("%q: a bound on a change takes < <= > or >=, not ==", s)
	}
	r.Op = op
	if r.Metric, r.Name, _, err = parseMetric(s, lhs); err != nil {
		return r, err
	}
	rest = strings.TrimSpace(rest)
	num, ok := strings.CutSuffix(rest, "%")
	if !ok {
		return r, fmt.Errorf("%q: the bound is a change in percent of A, signed (e.g. %s%s-3%%), not %q", s, lhs, op, rest)
	}
	num = strings.TrimSpace(num)
	v, err := strconv.ParseFloat(num, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return r, fmt.Errorf("%q: %q is not a number", s, num)
	}
	if v <= -100 {
		return r, fmt.Errorf("%q: a change of %s%% is not possible (a metric cannot fall by 100%% or more)", s, num)
	}
	r.Percent = v
	return r, nil
}

// Label names what is compared: "nopm", "p95(new_order)".
func (r Relative) Label() string {
	if r.Name == "" {
		return r.Metric
	}
	return r.Metric + "(" + r.Name + ")"
}

// Unit is the unit Value measures in: ms for a latency, s for an analytic
// time, "" for rates and error counts.
func (r Relative) Unit() string {
	switch metricTable[r.Metric].kind {
	case kindLatency:
		return "ms"
	case kindSeconds:
		return "s"
	}
	return ""
}

// Threshold is the metric as a threshold (with no bound), for Check.
func (r Relative) Threshold() Threshold {
	return Threshold{Text: r.Text, Metric: r.Metric, Name: r.Name, Unit: r.Unit()}
}

// Value reads the metric from one run's result (run for an OLTP run,
// analytic for an analytic one), in Unit; note says why there is none.
func (r Relative) Value(run *metrics.RunResult, analytic *metrics.AnalyticResult) (v float64, note string) {
	t := r.Threshold()
	switch {
	case run != nil:
		v, note = runValue(t, run)
	case analytic != nil:
		v, note = analyticValue(t, analytic)
	default:
		return 0, "the job has no result"
	}
	if note == "" && (math.IsNaN(v) || math.IsInf(v, 0)) {
		note = "not computed"
	}
	return v, note
}

// Exceeded reports whether a change of changePct percent is beyond the
// bound: the change it names as failing.
func (r Relative) Exceeded(changePct float64) bool {
	return Threshold{Op: r.Op, Limit: r.Percent}.holds(changePct)
}
