package main

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/sledge-bench/sledge/internal/testdb/tpcctest"
)

// sloJSON is what the tests read of `sledge slo show ID --format json`.
type sloJSON struct {
	ID        string   `json:"id"`
	Answer    *float64 `json:"answer"`
	High      *float64 `json:"high"`
	AnswerJob *string  `json:"answer_job"`
	Steps     []struct {
		Step    int     `json:"step"`
		Phase   string  `json:"phase"`
		Job     string  `json:"job"`
		Offered float64 `json:"offered"`
		Pass    bool    `json:"pass"`
	} `json:"steps"`
}

// sloShow is `sledge slo show ID --format json`.
func (e *testEnv) sloShow(id string) sloJSON {
	e.t.Helper()
	var s sloJSON
	out := e.ok("slo", "show", id, "--format", "json")
	if err := json.Unmarshal([]byte(out), &s); err != nil {
		e.t.Fatalf("%v:\n%s", err, out)
	}
	return s
}

// TestSLOPostgres is the proof of sledge slo: a search on PostgreSQL whose
// answer is checked by separate --rate runs — the goal holds at the
// answer and fails at 1.3 times it. The target's capacity does not depend
// on the machine's free CPU: every Payment sleeps 1 s on the server (a
// statement trigger on warehouse, which fires before the row is locked),
// and 64 connections serve at most 64 a second (63 with the real work, a
// few ms per Payment; the rate is low so that a machine loaded many times
// over its cores, as two copies of the whole test suite load it, moves
// that by little). The goal, p99 < 2 s, is twice the idle latency: a
// second of slack for the machine's delays (half a second, with a 500 ms
// sleep, was not enough under two copies of the suite). From 40/s at a
// precision of 45% the search runs 40 (passes), 80 (fails: the queue
// grows by 16 a second) and 56.6, where it stops: [56.6, 80) is within
// 45%. At 56.6, 0.9 of the capacity, the queue adds a few hundred ms to
// the p99; at 1.3 × 56.6 = 73.6, beyond the capacity, the latency grows by
// 0.15 s every second of the 17 s check (1 s ramp-up, 16 s measured), to
// 3.5 s and more.
func TestSLOPostgres(t *testing.T) {
	if testing.Short() {
		t.Skip("runs on PostgreSQL")
	}
	t.Parallel()
	e := newEnv(t)
	url := tpcctest.Postgres(t, tpcctest.Options{Warehouses: 2})
	targetExec(t, url,
		"CREATE FUNCTION slo_sleep() RETURNS trigger LANGUAGE plpgsql AS $$BEGIN PERFORM pg_sleep(1); RETURN NULL; END$$",
		"CREATE TRIGGER slo_sleep BEFORE UPDATE ON warehouse FOR EACH STATEMENT EXECUTE FUNCTION slo_sleep()")
	const goal = "p99(payment)<2s"
	common := []string{"--db", url, "--connections", "64", "--rampup", "1s", "--interval", "1s", "--metrics", "off"}
	html := filepath.Join(t.TempDir(), "slo.html")
	// The start, 20/s, leaves room below the 64 a second the connections
	// serve: on a machine loaded by a second copy of the suite a payment
	// took 1.6 s, the connections served 40 a second, and a search
	// started there failed its first step (exit 99).
	out := e.ok(append([]string{"slo", "--goal", goal, "--rate", "payment=1", "--start-rate", "20", "--precision", "45%",
		"--step-duration", "4s", "--html", html}, common...)...)
	t.Log(out[strings.Index(out, "SLO search "):])

	first := e.latest("run")["id"].(float64) // the newest run: the last step
	s := e.sloShow(jsonID(first))
	if s.AnswerJob == nil || s.Answer == nil || s.High == nil {
		t.Fatalf("no answer, or no failing rate above it:\n%s", out)
	}
	answer := *s.Answer
	if len(s.Steps) < 3 || s.Steps[0].Offered != 20 || s.Steps[0].Phase != "step" || s.Steps[len(s.Steps)-1].Phase != "bisect" {
		t.Errorf("steps %+v: want a climb from 20 then a bisection", s.Steps)
	}
	if *s.High/answer-1 > 0.45 {
		t.Errorf("bracket [%g, %g): wider than the precision, 45%%", answer, *s.High)
	}
	for _, want := range []string{"SLO search " + s.ID + " (tprocc, PostgreSQL", "payment p99", "◀ answer",
		"Answer: " + strconv.FormatFloat(answer, 'f', -1, 64) + " transactions per second", goal + ": "} {
		if !strings.Contains(out, want) {
			t.Errorf("the output lacks %q", want)
		}
	}
	if b, err := os.ReadFile(html); err != nil || !strings.Contains(string(b), `<svg id="chart-latency"`) {
		t.Errorf("--html: %v", err)
	}
	// Every step is a run job recording the search.
	for _, st := range s.Steps {
		var cfg map[string]string
		if err := json.Unmarshal([]byte(e.ok("jobs", "show", st.Job, "config", "--format", "json")), &cfg); err != nil {
			t.Fatal(err)
		}
		if cfg["slo"] != s.ID || cfg["slo_step"] != strconv.Itoa(st.Step) || cfg["slo_phase"] != st.Phase {
			t.Errorf("job %s: slo %q, slo_step %q, slo_phase %q; want %s, %d, %s", st.Job, cfg["slo"], cfg["slo_step"], cfg["slo_phase"], s.ID, st.Step, st.Phase)
		}
	}

	// The check: separate rate runs, the goal as a threshold.
	rate := func(r float64) (string, error) {
		out, err := e.run(append([]string{"run", "--rate", "payment=" + strconv.FormatFloat(r, 'f', 2, 64), "--duration", "16s", "--threshold", goal}, common...)...)
		for _, l := range strings.Split(out, "\n") {
			if strings.Contains(l, goal+" ") {
				t.Logf("at %g/s: %s", r, strings.TrimSpace(l))
			}
		}
		return out, err
	}
	// The machine's load moves between the search and the check: a run
	// at the answer may meet a busier moment than its step did (under a
	// second copy of the suite, the client itself fell behind its
	// schedule), so the goal must hold in one of three tries.
	for try := 1; ; try++ {
		out, err := rate(answer)
		if err == nil {
			break
		}
		if try == 3 {
			t.Errorf("at the answer, %g/s, the goal failed three times: %v\n%s", answer, err, out)
			break
		}
	}
	// Beyond: 1.3 × the answer, and at least 72/s, past the 64 a second
	// the connections can serve. A machine so busy that the client fell
	// behind its schedule during the search makes the answer the
	// machine's, lower (two copies of the suite: 40/s, the steps above it
	// "saturated" at 42 achieved of 56.6 asked), and 1.3 × that is still
	// within the server's capacity.
	over := max(1.3*answer, 72)
	out, err := rate(over)
	var exit exitError
	if !errors.As(err, &exit) || exit.code != exitThresholds || !strings.Contains(out, goal) {
		t.Errorf("at %g/s (1.3 × the answer %g, at least 72), the goal held (%v):\n%s", over, answer, err, out)
	}
}

// TestSLOStartFails: goals that fail at the start rate give no answer and
// exit status 99; the search is stored and shown again from its step's
// job; a job of no search is refused.
func TestSLOStartFails(t *testing.T) {
	if testing.Short() {
		t.Skip("runs on SQLite")
	}
	t.Parallel()
	e := newEnv(t)
	e.tpcc()
	out, err := e.run("slo", "--goal", "p99(new_order)<1us", "--start-rate", "20", "--step-duration", "1s", "--rampup", "0s",
		"--interval", "1s", "--metrics", "off", "--connections", "2")
	var exit exitError
	if !errors.As(err, &exit) || exit.code != exitThresholds {
		t.Fatalf("an impossible goal ended with %v, want exit status %d:\n%s", err, exitThresholds, out)
	}
	if !strings.Contains(out, "No answer: the goals failed at the start rate, 20 transactions per second") {
		t.Errorf("the output does not say there is no answer:\n%s", out)
	}
	id := jsonID(e.latest("run")["id"].(float64))
	s := e.sloShow(id)
	if s.ID != id || len(s.Steps) != 1 || s.Steps[0].Pass || s.Answer != nil || s.AnswerJob != nil {
		t.Errorf("slo show %s: %+v", id, s)
	}
	text := e.ok("slo", "show", id)
	if !strings.Contains(text, "FAIL") || !strings.Contains(text, "No answer") {
		t.Errorf("slo show %s:\n%s", id, text)
	}
	e.ok("run", "--duration", "1s", "--rampup", "0s", "--metrics", "off")
	other := jsonID(e.latest("run")["id"].(float64))
	if out, err := e.run("slo", "show", other); err == nil || !strings.Contains(err.Error(), "is not part of an SLO search") {
		t.Errorf("slo show of a plain run: %v\n%s", err, out)
	}
}

// TestSLOBadInput: what cannot search is refused before any job, naming
// the flag.
func TestSLOBadInput(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"slo"}, "--goal: name at least one goal"},
		{[]string{"slo", "--goal", "p99(new_order)<"}, "--goal: "},
		{[]string{"slo", "--goal", "p99(nosuch)<5ms"}, "--goal"},
		{[]string{"slo", "--goal", "p99<5ms", "--start-rate", "0"}, "--start-rate: must be in (0,"},
		{[]string{"slo", "--goal", "p99<5ms", "--start-rate", "50", "--max-rate", "10"}, "--max-rate: must be at least the start rate"},
		{[]string{"slo", "--goal", "p99<5ms", "--precision", "x"}, `--precision "x": want a percentage`},
		{[]string{"slo", "--goal", "p99<5ms", "--precision", "0%"}, "--precision: must be more than 0%"},
		{[]string{"slo", "--goal", "p99<5ms", "--step-duration", "10ms"}, "--step-duration: must be at least 1s"},
		{[]string{"slo", "--goal", "p99<5ms", "--rate", "50"}, "--rate: an SLO search sets each step's total rate itself"},
		{[]string{"slo", "--goal", "p99<5ms", "--stages", "1s:5"}, "--stages: an SLO search runs each step at one rate"},
	} {
		out, err := e.run(tc.args...)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("sledge %s: %v, want an error with %q\n%s", strings.Join(tc.args, " "), err, tc.want, out)
		}
	}
	if list := e.jobs(); len(list) != 0 {
		t.Errorf("refused searches left %d jobs", len(list))
	}
}
