// Package slo finds the highest open-loop rate at which a latency goal
// holds: it steps the offered rate up geometrically until a step fails,
// then bisects between the last pass and the first fail until the bracket
// is within a precision. A step is whatever Runner does at a rate (for
// Sledge, one `--rate` run job); this package only decides which rates to
// try and what the answer is, so it is tested with a fake.
package slo

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/sledge-bench/sledge/internal/metrics"
	"github.com/sledge-bench/sledge/internal/threshold"
)

// The phases of a step: the geometric climb, then the bisection.
const (
	PhaseStep   = "step"
	PhaseBisect = "bisect"
)

// Defaults of Options.
const (
	DefaultFactor    = 2
	DefaultPrecision = 0.05
	DefaultMaxSteps  = 30
)

// Options bound a search.
type Options struct {
	// Start is the first rate tried (transactions per second); Max the
	// highest (the climb stops there, passing or not).
	Start, Max float64
	// Factor multiplies the rate from one climbing step to the next
	// (DefaultFactor when 0).
	Factor float64
	// Precision is the bracket's relative width at which bisection stops:
	// lowest fail ÷ highest pass − 1 ≤ Precision (DefaultPrecision when 0).
	Precision float64
	// MaxSteps bounds the steps of the whole search (DefaultMaxSteps when
	// 0): a bracket that will not narrow (rates rounded to three digits)
	// does not run forever.
	MaxSteps int
}

func (o Options) normal() Options {
	if o.Factor <= 1 {
		o.Factor = DefaultFactor
	}
	if o.Precision <= 0 {
		o.Precision = DefaultPrecision
	}
	if o.MaxSteps <= 0 {
		o.MaxSteps = DefaultMaxSteps
	}
	if o.Max <= 0 || o.Max < o.Start {
		o.Max = math.Inf(1)
	}
	return o
}

// Check says what is wrong with the options, worded without flags.
func (o Options) Check() error {
	var errs []error
	if !(o.Start > 0) || math.IsInf(o.Start, 0) {
		errs = append(errs, fmt.Errorf("start rate must be a positive number of transactions per second (got %g)", o.Start))
	}
	if o.Max != 0 && !(o.Max >= o.Start) {
		errs = append(errs, fmt.Errorf("max rate %g is below the start rate %g", o.Max, o.Start))
	}
	if o.Precision < 0 || o.Precision > 1 || math.IsNaN(o.Precision) {
		errs = append(errs, fmt.Errorf("precision must be in (0%%, 100%%] (got %g%%)", 100*o.Precision))
	}
	return errors.Join(errs...)
}

// Step is one rate tried and what it gave.
type Step struct {
	Phase string
	// Offered is the rate asked (transactions per second), Achieved the
	// transactions ended in the window per second (NaN: unknown).
	Offered, Achieved float64
	// Saturated: the achieved rate fell below the offered beyond chance,
	// or arrivals were dropped: the target could not keep up, whatever
	// the goals say.
	Saturated bool
	// Goals are the goals judged on the step's measured window.
	Goals []threshold.Verdict
	// Pass: every goal held and the step was not saturated.
	Pass bool
	// P50 and P99 of the first latency goal's transaction (all types when
	// it names none), in ms; ErrorsPct the failed share of the attempted
	// transactions. NaN when not measured.
	P50, P99, ErrorsPct float64
	JobID               int64
	// Status is the step's job status ("" for a runner that has no jobs):
	// only a step whose job ended (completed or degraded) is judged; one
	// interrupted, failed or still running measured a window it did not
	// finish, or nothing.
	Status string
}

// Judged says whether the step takes part in the answer: its job ended
// (completed or degraded; "" for a runner without jobs). A partial window
// — Ctrl-C, a failure, a step still running — neither passes nor fails.
func (s Step) Judged() bool {
	switch s.Status {
	case "", metrics.StatusCompleted, metrics.StatusDegraded:
		return true
	}
	return false
}

// Runner runs one step at rate and judges it (Judge). An error stops the
// search; the steps run so far are kept, and so is the failing step when
// it has a job (JobID), with its Status saying it is not Judged.
type Runner func(ctx context.Context, phase string, rate float64) (Step, error)

// Result is a search's steps in the order run, and its answer.
type Result struct {
	Steps []Step
	// Found: some rate passed below the lowest failing one.
	Found bool
	// Answer is the index in Steps of the highest passing rate below the
	// lowest failing one (-1 when not Found).
	Answer int
	// Low is the answer's rate; High the lowest failing rate (+Inf when no
	// rate failed: the search stopped at Max). The answer lies in
	// [Low, High).
	Low, High float64
	// Precision is the bracket width the search aimed at.
	Precision float64
	// Stopped says why the search ended before its bracket was within the
	// precision ("" when it did not).
	Stopped string
}

// Summarize judges steps as a search left them: the answer is the highest
// passing rate below the lowest failing one (a pass above a fail — noise —
// does not count). Steps not Judged stay in Steps but count neither way.
func Summarize(steps []Step, precision float64) Result {
	r := Result{Steps: steps, Answer: -1, High: math.Inf(1), Precision: precision}
	for _, s := range steps {
		if s.Judged() && !s.Pass && s.Offered < r.High {
			r.High = s.Offered
		}
	}
	for i, s := range steps {
		if s.Judged() && s.Pass && s.Offered < r.High && (r.Answer < 0 || s.Offered > r.Low) {
			r.Answer, r.Low = i, s.Offered
		}
	}
	r.Found = r.Answer >= 0
	return r
}

// Width is the bracket's relative width, High ÷ Low − 1 (+Inf when no rate
// failed, NaN when none passed).
func (r Result) Width() float64 {
	if !r.Found {
		return math.NaN()
	}
	return r.High/r.Low - 1
}

// Search runs the steps: the climb from Start by Factor until a step fails
// or Max passed, then the bisection of [highest pass, lowest fail] at its
// geometric middle (rounded to three significant digits) until its width
// is within Precision. The start rate failing ends the search with no
// answer.
func Search(ctx context.Context, o Options, run Runner) (Result, error) {
	if err := o.Check(); err != nil {
		return Result{}, err
	}
	o = o.normal()
	var steps []Step
	do := func(phase string, rate float64) (Step, error) {
		s, err := run(ctx, phase, rate)
		if err == nil || s.JobID != 0 {
			s.Phase, s.Offered = phase, rate
			steps = append(steps, s)
		}
		return s, err
	}
	done := func(err error, stopped string) (Result, error) {
		r := Summarize(steps, o.Precision)
		r.Stopped = stopped
		if err != nil && stopped == "" {
			r.Stopped = err.Error()
		}
		return r, err
	}
	rate := o.Start
	for {
		if len(steps) >= o.MaxSteps {
			return done(nil, fmt.Sprintf("%d steps run, the most a search runs", len(steps)))
		}
		s, err := do(PhaseStep, rate)
		if err != nil {
			return done(err, "")
		}
		if !s.Pass || rate >= o.Max {
			break
		}
		rate = min(Round(rate*o.Factor), o.Max)
	}
	for {
		r := Summarize(steps, o.Precision)
		if !r.Found || math.IsInf(r.High, 1) || r.Width() <= o.Precision {
			return done(nil, "")
		}
		mid := Round(math.Sqrt(r.Low * r.High))
		if mid <= r.Low || mid >= r.High {
			return done(nil, fmt.Sprintf("the bracket [%s, %s) cannot be split at three significant digits", FormatRate(r.Low), FormatRate(r.High)))
		}
		if len(steps) >= o.MaxSteps {
			return done(nil, fmt.Sprintf("%d steps run, the most a search runs", len(steps)))
		}
		if _, err := do(PhaseBisect, mid); err != nil {
			return done(err, "")
		}
	}
}

// Round rounds a rate to three significant digits, so that the rates a
// search tries read as a person would type them.
func Round(rate float64) float64 {
	if rate <= 0 || math.IsInf(rate, 0) || math.IsNaN(rate) {
		return rate
	}
	v, _ := strconv.ParseFloat(strconv.FormatFloat(rate, 'g', 3, 64), 64)
	return v
}

// FormatRate writes a rate compactly ("150", "1.25", "12500").
func FormatRate(rate float64) string {
	if math.IsInf(rate, 1) {
		return "∞"
	}
	return strconv.FormatFloat(rate, 'f', -1, 64)
}

// Judge is a step's verdict on an OLTP run's result at rate offered: the
// goals judged on its measured window (threshold.JudgeRun), saturation
// (an achieved rate below the offered by more than 5% and by more than
// chance — 3.3 standard deviations of a Poisson count —, the window's
// arrivals outnumbering the transactions ended in it by more than 5% plus
// one per session, or arrivals dropped), and the p50, p99 and errors the
// curve shows. A nil result (a
// run that measured nothing) fails.
func Judge(goals []threshold.Threshold, offered float64, res *metrics.RunResult) Step {
	s := Step{Offered: offered, Achieved: math.NaN(), P50: math.NaN(), P99: math.NaN(), ErrorsPct: math.NaN()}
	if res == nil {
		for _, g := range goals {
			s.Goals = append(s.Goals, threshold.Verdict{Threshold: g, Note: "nothing was measured"})
		}
		return s
	}
	s.Goals = threshold.JudgeRun(goals, res)
	if l := res.Load; l != nil {
		s.Achieved = l.AchievedRate
		secs := res.Measured.Seconds()
		expected, ended := offered*secs, l.AchievedRate*secs
		// The arrivals themselves stray from the offered rate by chance;
		// the queue's growth over the window (arrivals scheduled in it but
		// not ended, beyond one per session still in flight) does not.
		grew := l.Scheduled > 0 && float64(l.Scheduled)-ended > 0.05*float64(l.Scheduled)+float64(l.Connections)
		s.Saturated = l.Dropped > 0 || grew || expected > 0 && l.AchievedRate < (1-max(0.05, 3.3/math.Sqrt(expected)))*offered
	}
	name := LatencyName(goals)
	probe := []threshold.Threshold{{Metric: "p50", Name: name, Op: "<", Unit: "ms"}, {Metric: "p99", Name: name, Op: "<", Unit: "ms"},
		{Metric: "errors", Op: "<", Unit: "%"}}
	for i, v := range threshold.JudgeRun(probe, res) {
		if v.HasValue {
			*[]*float64{&s.P50, &s.P99, &s.ErrorsPct}[i] = v.Value
		}
	}
	s.Pass = !s.Saturated && threshold.Failed(s.Goals) == 0 && len(s.Goals) > 0
	return s
}

// LatencyName is the transaction type whose p50 and p99 Judge reads: the
// first latency goal's ("" for all types).
func LatencyName(goals []threshold.Threshold) string {
	for _, g := range goals {
		if g.Unit == "ms" || g.Unit == "s" || g.Unit == "us" {
			return g.Name
		}
	}
	return ""
}

// Margin is how far a goal's measured value is inside its limit, in the
// goal's unit and as a share of the limit (negative: outside it). ok is
// false when there is no value or the goal is an equality.
func Margin(v threshold.Verdict) (abs, pct float64, ok bool) {
	if !v.HasValue {
		return 0, 0, false
	}
	switch v.Op {
	case "<", "<=":
		abs = v.Limit - v.Value
	case ">", ">=":
		abs = v.Value - v.Limit
	default:
		return 0, 0, false
	}
	if v.Limit != 0 {
		pct = 100 * abs / v.Limit
	} else {
		pct = math.NaN()
	}
	return abs, pct, true
}

// ParsePercent reads a precision as a percentage ("5%" or "5") and
// returns it as a share (0.05).
func ParsePercent(text string) (float64, error) {
	v, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(text), "%"), 64)
	if err != nil || math.IsNaN(v) {
		return 0, fmt.Errorf("%q: want a percentage, e.g. 5%%", text)
	}
	return v / 100, nil
}
