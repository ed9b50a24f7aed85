package report

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/sledge-bench/sledge/internal/slo"
	"github.com/sledge-bench/sledge/internal/threshold"
)

func sloFixture(t *testing.T, steps []slo.Step) SLO {
	t.Helper()
	goal, err := threshold.Parse("p99(payment)<500ms")
	if err != nil {
		t.Fatal(err)
	}
	for i := range steps {
		v := threshold.Verdict{Threshold: goal, Value: steps[i].P99, HasValue: true, Pass: steps[i].P99 < 500}
		steps[i].Goals = []threshold.Verdict{v}
		steps[i].Pass = v.Pass && !steps[i].Saturated
		steps[i].JobID = int64(10 + i)
	}
	return SLO{ID: 10, Workload: "tprocc", DB: "PostgreSQL 17", Goals: []string{goal.Text}, Tx: "payment",
		Warmup: time.Second, StepDuration: 3 * time.Second, Result: slo.Summarize(steps, 0.2)}
}

func TestSLOText(t *testing.T) {
	t.Parallel()
	step := func(phase string, offered, achieved, p99 float64, sat bool) slo.Step {
		return slo.Step{Phase: phase, Offered: offered, Achieved: achieved, P50: p99 * 0.8, P99: p99, ErrorsPct: 0, Saturated: sat}
	}
	ended := func(st slo.Step, status string) slo.Step {
		st.Status = status
		return st
	}
	for _, tc := range []struct {
		name    string
		steps   []slo.Step
		maxRate float64
		stopped string
		want    []string
		not     []string
	}{
		{name: "answer", steps: []slo.Step{step("step", 100, 104, 214.9, false), step("step", 200, 156, 1053.7, true),
			step("bisect", 141, 147.7, 288.5, false), step("bisect", 168, 158, 712.2, false)},
			want: []string{"SLO search 10 (tprocc, PostgreSQL 17): the highest rate at which p99(payment)<500ms holds",
				"payment p99", "FAIL, saturated", "◀ answer",
				"Answer: 141 transactions per second: the goals held there and failed at 168, so the highest rate meeting them lies in [141, 168) (within 19.1%; precision 20%).",
				"p99(payment)<500ms: 288.5ms at the answer (job 12), margin 211.5ms (42% of the limit)",
				"each step: 1s of warm-up at its rate, not judged, then 3s measured"}},
		{name: "no answer", steps: []slo.Step{step("step", 100, 90, 900, false)},
			want: []string{"No answer: the goals failed at the start rate, 100 transactions per second"}, not: []string{"◀ answer"}},
		{name: "max passes", steps: []slo.Step{step("step", 100, 100, 200, false), step("step", 150, 150, 250, false)}, maxRate: 150,
			want: []string{"Answer: at least 150 transactions per second: the goals held at every rate tried, up to the highest allowed (a higher --max-rate)."}},
		{name: "no max rate", steps: []slo.Step{step("step", 100, 100, 200, false), step("step", 150, 150, 250, false)},
			want: []string{"Answer: at least 150 transactions per second: the goals held at every rate tried, up to the highest a run offers."},
			not:  []string{"--max-rate", "stopped early"}},
		// The step Ctrl-C cut short passed on its partial window: not the answer, and the text says why the search ended.
		{name: "interrupted", steps: []slo.Step{ended(step("step", 100, 100, 200, false), "completed"), ended(step("step", 200, 200, 250, false), "interrupted")},
			stopped: "job 11 interrupted",
			want: []string{"Answer: at least 100 transactions per second: the goals held at every rate judged, but the search stopped before any failed.",
				"not judged (interrupted)", "The search stopped early: job 11 interrupted."},
			not: []string{"--max-rate"}},
		{name: "first step interrupted", steps: []slo.Step{ended(step("step", 100, 100, 200, false), "interrupted")}, stopped: "job 10 interrupted",
			want: []string{"No answer: no step ended to be judged.", "not judged (interrupted)", "The search stopped early: job 10 interrupted."},
			not:  []string{"failed at the start rate", "--start-rate", "◀ answer"}},
		{name: "first step failed", steps: []slo.Step{ended(step("step", 100, math.NaN(), math.NaN(), false), "failed")}, stopped: "job 10: connection refused",
			want: []string{"No answer: no step ended to be judged.", "not judged (failed)", "The search stopped early: job 10: connection refused."},
			not:  []string{"failed at the start rate", "--start-rate"}},
	} {
		var b bytes.Buffer
		s := sloFixture(t, tc.steps)
		s.MaxRate, s.Result.Stopped = tc.maxRate, tc.stopped
		if err := SLOText(&b, s); err != nil {
			t.Fatal(err)
		}
		for _, w := range tc.want {
			if !strings.Contains(b.String(), w) {
				t.Errorf("%s: the text lacks %q:\n%s", tc.name, w, b.String())
			}
		}
		for _, w := range tc.not {
			if strings.Contains(b.String(), w) {
				t.Errorf("%s: the text has %q:\n%s", tc.name, w, b.String())
			}
		}
		// The JSON holds what the text says, nulls where nothing was.
		var raw map[string]any
		if err := json.Unmarshal(mustJSON(t, ToSLO(s)), &raw); err != nil {
			t.Fatal(err)
		}
		if s.Result.Found != (raw["answer"] != nil) || len(raw["steps"].([]any)) != len(tc.steps) {
			t.Errorf("%s: JSON %v", tc.name, raw)
		}
		if s.Result.Found && math.IsInf(s.Result.High, 1) != (raw["high"] == nil) {
			t.Errorf("%s: high %v for %g", tc.name, raw["high"], s.Result.High)
		}
		for i, js := range raw["steps"].([]any) {
			st, m := tc.steps[i], js.(map[string]any)
			if m["judged"] != st.Judged() || m["verdict"] != stepVerdict(st) || m["pass"] != (st.Pass && st.Judged()) {
				t.Errorf("%s: step %d in JSON %v", tc.name, i+1, m)
			}
		}
		// The page: one point per step and series (p50 and p99, achieved), failing ones hollow,
		// the goal and (with an answer) the answer marked.
		var h bytes.Buffer
		if err := SLOHTML(&h, s); err != nil {
			t.Fatal(err)
		}
		page := h.String()
		fails := 0
		for _, st := range tc.steps {
			if (!st.Pass || !st.Judged()) && !math.IsNaN(st.P99) { // nothing measured: no point
				fails++
			}
		}
		if n := strings.Count(page, `data-pass="false"`); n != 3*fails { // p50, p99, achieved
			t.Errorf("%s: %d hollow points, want %d", tc.name, n, 3*fails)
		}
		if !strings.Contains(page, `class="limit"`) || strings.Contains(page, `class="answer"><line`) != s.Result.Found {
			t.Errorf("%s: the goal or the answer is not marked as it should be", tc.name)
		}
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := WriteJSON(&b, v); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}
