package slo

import (
	"context"
	"errors"
	"math"
	"slices"
	"testing"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/sledge-bench/sledge/internal/metrics"
	"github.com/sledge-bench/sledge/internal/threshold"
)

// capacity is a fake target: every rate up to limit passes, above it
// fails; it records the rates tried.
type capacity struct {
	limit float64
	tried []float64
	// failAt: a step at this rate returns an error.
	failAt float64
}

func (c *capacity) run(_ context.Context, _ string, rate float64) (Step, error) {
	c.tried = append(c.tried, rate)
	if rate == c.failAt {
		return Step{}, errors.New("the database went away")
	}
	return Step{Pass: rate <= c.limit, JobID: int64(len(c.tried))}, nil
}

func TestSearch(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name      string
		o         Options
		limit     float64
		failAt    float64
		tried     []float64
		found     bool
		low, high float64
		stopped   bool
		err       bool
	}{
		{name: "climb then bisect", o: Options{Start: 10, Precision: 0.05}, limit: 100,
			tried: []float64{10, 20, 40, 80, 160, 113, 95.1, 104, 99.5},
			found: true, low: 99.5, high: 104},
		{name: "start fails", o: Options{Start: 10}, limit: 5, tried: []float64{10}, high: 10},
		{name: "max passes", o: Options{Start: 10, Max: 50}, limit: 1000, tried: []float64{10, 20, 40, 50},
			found: true, low: 50, high: math.Inf(1)},
		{name: "coarse precision", o: Options{Start: 10, Precision: 0.5}, limit: 100,
			tried: []float64{10, 20, 40, 80, 160, 113}, found: true, low: 80, high: 113},
		{name: "factor 10", o: Options{Start: 1, Factor: 10, Precision: 0.5}, limit: 30,
			tried: []float64{1, 10, 100, 31.6, 17.8, 23.7}, found: true, low: 23.7, high: 31.6},
		{name: "step limit", o: Options{Start: 10, MaxSteps: 6}, limit: 100,
			tried: []float64{10, 20, 40, 80, 160, 113}, found: true, low: 80, high: 113, stopped: true},
		{name: "error keeps the steps before it", o: Options{Start: 10}, limit: 100, failAt: 40,
			tried: []float64{10, 20, 40}, found: true, low: 20, high: math.Inf(1), stopped: true, err: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := &capacity{limit: tc.limit, failAt: tc.failAt}
			r, err := Search(context.Background(), tc.o, c.run)
			if (err != nil) != tc.err {
				t.Fatalf("err = %v, want error %v", err, tc.err)
			}
			if !slices.Equal(c.tried, tc.tried) {
				t.Errorf("tried %v, want %v", c.tried, tc.tried)
			}
			if r.Found != tc.found || (tc.found && r.Low != tc.low) || r.High != tc.high {
				t.Errorf("found %v [%g, %g), want %v [%g, %g)", r.Found, r.Low, r.High, tc.found, tc.low, tc.high)
			}
			if (r.Stopped != "") != tc.stopped {
				t.Errorf("stopped %q, want stopped %v", r.Stopped, tc.stopped)
			}
			if tc.found && r.Steps[r.Answer].Offered != tc.low {
				t.Errorf("answer step %d offered %g, want %g", r.Answer, r.Steps[r.Answer].Offered, tc.low)
			}
			for i, s := range r.Steps {
				if s.Offered != c.tried[i] {
					t.Errorf("step %d offered %g, want %g", i, s.Offered, c.tried[i])
				}
			}
			if !tc.stopped && tc.found && !math.IsInf(r.High, 1) && r.Width() > max(tc.o.Precision, DefaultPrecision) {
				t.Errorf("bracket width %g beyond the precision", r.Width())
			}
		})
	}
}

func TestSearchBadOptions(t *testing.T) {
	t.Parallel()
	for _, o := range []Options{{Start: 0}, {Start: -1}, {Start: math.Inf(1)}, {Start: 10, Max: 5}, {Start: 10, Precision: 2}} {
		called := false
		_, err := Search(context.Background(), o, func(context.Context, string, float64) (Step, error) {
			called = true
			return Step{}, nil
		})
		if err == nil || called {
			t.Errorf("%+v: err %v, ran a step %v; want an error and no step", o, err, called)
		}
	}
}

// TestSummarizeNoise: a pass above the lowest fail (noise) is not the
// answer.
func TestSummarizeNoise(t *testing.T) {
	t.Parallel()
	steps := []Step{{Offered: 10, Pass: true}, {Offered: 20, Pass: false}, {Offered: 15, Pass: true}, {Offered: 25, Pass: true}}
	r := Summarize(steps, 0.05)
	if !r.Found || r.Low != 15 || r.High != 20 || r.Answer != 2 {
		t.Errorf("got found %v [%g, %g) answer %d, want [15, 20) answer 2", r.Found, r.Low, r.High, r.Answer)
	}
}

// TestSummarizeUnjudged: a step whose job did not end — interrupted
// (its short window passed), failed (nothing measured: a fail), running —
// stays among the steps but neither is the answer nor lowers High.
func TestSummarizeUnjudged(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name      string
		last      Step
		found     bool
		low, high float64
	}{
		{"interrupted passing", Step{Offered: 40, Pass: true, Status: metrics.StatusInterrupted}, true, 20, math.Inf(1)},
		{"failed", Step{Offered: 40, Status: metrics.StatusFailed}, true, 20, math.Inf(1)},
		{"running", Step{Offered: 15, Status: metrics.StatusRunning}, true, 20, math.Inf(1)},
		{"abandoned", Step{Offered: 15, Status: metrics.StatusAbandoned}, true, 20, math.Inf(1)},
		{"degraded failing", Step{Offered: 40, Status: metrics.StatusDegraded}, true, 20, 40},
		{"completed passing", Step{Offered: 40, Pass: true, Status: metrics.StatusCompleted}, true, 40, math.Inf(1)},
	} {
		steps := []Step{{Offered: 10, Pass: true, Status: metrics.StatusCompleted}, {Offered: 20, Pass: true, Status: metrics.StatusCompleted}, tc.last}
		r := Summarize(steps, 0.05)
		if r.Found != tc.found || r.Low != tc.low || r.High != tc.high || len(r.Steps) != 3 {
			t.Errorf("%s: found %v [%g, %g) of %d steps, want %v [%g, %g) of 3", tc.name, r.Found, r.Low, r.High, len(r.Steps), tc.found, tc.low, tc.high)
		}
	}
	// Only an unjudged step: no answer, nothing failed.
	r := Summarize([]Step{{Offered: 10, Status: metrics.StatusFailed, JobID: 1}}, 0.05)
	if r.Found || !math.IsInf(r.High, 1) {
		t.Errorf("a failed first step: found %v, high %g; want no answer and no failing rate", r.Found, r.High)
	}
}

// TestSearchInterrupted: the step an interrupt cut short, passing on its
// partial window, is kept but is not the answer.
func TestSearchInterrupted(t *testing.T) {
	t.Parallel()
	run := func(_ context.Context, _ string, rate float64) (Step, error) {
		if rate == 40 {
			return Step{Pass: true, JobID: 3, Status: metrics.StatusInterrupted}, errors.New("job 3 interrupted")
		}
		return Step{Pass: true, JobID: int64(rate), Status: metrics.StatusCompleted}, nil
	}
	r, err := Search(context.Background(), Options{Start: 10}, run)
	if err == nil || r.Stopped == "" || len(r.Steps) != 3 || !r.Found || r.Low != 20 || !math.IsInf(r.High, 1) {
		t.Errorf("got %d steps, found %v [%g, %g), stopped %q, err %v; want 3 steps, [20, ∞), stopped", len(r.Steps), r.Found, r.Low, r.High, r.Stopped, err)
	}
}

func TestJudge(t *testing.T) {
	t.Parallel()
	goal, err := threshold.Parse("p99(new_order)<50ms")
	if err != nil {
		t.Fatal(err)
	}
	errGoal, _ := threshold.Parse("errors<1%")
	h := func(ms ...int64) metrics.TxSummary {
		tx := metrics.TxSummary{Name: "new_order", Count: int64(len(ms))}
		tx.Histogram = encode(t, ms)
		return tx
	}
	fast := make([]int64, 100)
	for i := range fast {
		fast[i] = 10
	}
	slow := append(slices.Clone(fast[:90]), 80, 80, 80, 80, 80, 80, 80, 80, 80, 80)
	res := func(tx metrics.TxSummary, achieved float64, dropped int64, scheduled ...int64) *metrics.RunResult {
		l := &metrics.LoadResult{Model: metrics.LoadRate, AskedRate: 100, AchievedRate: achieved, Dropped: dropped, Connections: 4}
		if len(scheduled) > 0 {
			l.Scheduled = scheduled[0]
		}
		return &metrics.RunResult{Measured: 10 * time.Second, Tx: []metrics.TxSummary{tx}, Load: l}
	}
	for _, tc := range []struct {
		name      string
		res       *metrics.RunResult
		pass, sat bool
		p99       float64
	}{
		{name: "fast", res: res(h(fast...), 99, 0), pass: true, p99: 10},
		{name: "slow", res: res(h(slow...), 99, 0), p99: 80},
		{name: "saturated", res: res(h(fast...), 80, 0), sat: true, p99: 10},
		{name: "within chance", res: res(h(fast...), 96, 0), pass: true, p99: 10},
		{name: "dropped", res: res(h(fast...), 99, 3), sat: true, p99: 10},
		{name: "queue grew", res: res(h(fast...), 97, 0, 1100), sat: true, p99: 10},
		{name: "queue steady", res: res(h(fast...), 99, 0, 1000), pass: true, p99: 10},
		{name: "in flight at the end", res: res(h(fast...), 94.8, 0, 1000), pass: true, p99: 10},
		{name: "nothing measured", res: nil, p99: math.NaN()},
	} {
		s := Judge([]threshold.Threshold{goal, errGoal}, 100, tc.res)
		if s.Pass != tc.pass || s.Saturated != tc.sat {
			t.Errorf("%s: pass %v saturated %v, want %v %v (%+v)", tc.name, s.Pass, s.Saturated, tc.pass, tc.sat, s.Goals)
		}
		if math.IsNaN(tc.p99) != math.IsNaN(s.P99) || !math.IsNaN(tc.p99) && math.Abs(s.P99-tc.p99) > tc.p99*0.01 {
			t.Errorf("%s: p99 %g ms, want %g", tc.name, s.P99, tc.p99)
		}
	}
}

func TestMargin(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		text     string
		value    float64
		abs, pct float64
	}{
		{"p99(new_order)<50ms", 40, 10, 20},
		{"p99(new_order)<50ms", 60, -10, -20},
		{"nopm>=1000", 1500, 500, 50},
	} {
		th, err := threshold.Parse(tc.text)
		if err != nil {
			t.Fatal(err)
		}
		abs, pct, ok := Margin(threshold.Verdict{Threshold: th, Value: tc.value, HasValue: true})
		if !ok || abs != tc.abs || pct != tc.pct {
			t.Errorf("%s at %g: margin %g (%g%%) %v, want %g (%g%%)", tc.text, tc.value, abs, pct, ok, tc.abs, tc.pct)
		}
	}
	if _, _, ok := Margin(threshold.Verdict{}); ok {
		t.Error("a verdict without a value has a margin")
	}
}

// encode encodes a histogram of the latencies, given in ms.
func encode(t *testing.T, ms []int64) []byte {
	t.Helper()
	h := hdrhistogram.New(1, 60_000_000, 3)
	for _, v := range ms {
		if err := h.RecordValue(v * 1000); err != nil {
			t.Fatal(err)
		}
	}
	b, err := h.Encode(hdrhistogram.V2CompressedEncodingCookieBase)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
