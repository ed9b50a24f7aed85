package main

import (
	"encoding/json"
	"encoding/xml"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sledge-bench/sledge/internal/app"
	"github.com/sledge-bench/sledge/internal/config"
)

// TestGate runs two gates of 3 trials per arm on the embedded SQLite: one
// between unpaced runs and runs paced as the specification (at 1% of its
// times), which must fail its bound with exit status 99 and say why, and
// one between identical settings, which must pass. Every trial is a run
// job recording the gate, its arm, the order and the seed.
func TestGate(t *testing.T) {
	if testing.Short() {
		t.Skip("runs on SQLite")
	}
	t.Parallel()
	e := newEnv(t)
	e.tpcc()
	dir := t.TempDir()
	summary, junit := filepath.Join(dir, "summary.md"), filepath.Join(dir, "gate.xml")
	common := []string{"gate", "--vu", "2", "--rampup", "0s", "--duration", "1s", "--interval", "1s", "--metrics", "off",
		"--trials", "3", "--order-seed", "42", "--fail-if", "nopm<-50%", "--summary", summary, "--junit", junit}

	out, err := e.run(append(common, "--b-set", "pacing=spec", "--b-set", "pacing-scale=0.01")...)
	var exit exitError
	if !errors.As(err, &exit) || exit.code != exitThresholds {
		t.Fatalf("a gate on a clear regression ended with %v, want exit status %d:\n%s", err, exitThresholds, out)
	}
	order := app.GateOrder(3, 42)
	for _, want := range []string{"A (the common settings), B pacing=spec pacing-scale=0.01", "order " + order + " (seed 42)",
		"FAIL: nopm changed by -", "significant and beyond nopm<-50%", "Gate verdict: FAIL (1 of 1 bounds)"} {
		if !strings.Contains(out, want) {
			t.Errorf("the failed gate's output lacks %q:\n%s", want, out)
		}
	}
	md, err := os.ReadFile(summary)
	if err != nil || !strings.Contains(string(md), "## ❌ Sledge gate") {
		t.Errorf("summary: %v\n%s", err, md)
	}
	assertJUnit(t, junit, 1)

	// The trials: run jobs, interleaved as recorded.
	var ids []float64
	for _, j := range e.jobs() {
		if j["kind"] == "run" {
			ids = append([]float64{j["id"].(float64)}, ids...) // newest first in the list
		}
	}
	if len(ids) != 6 {
		t.Fatalf("%d run jobs, want 6", len(ids))
	}
	for k, id := range ids {
		var cfg map[string]string
		if err := json.Unmarshal([]byte(e.ok("jobs", "show", jsonID(id), "config", "--format", "json")), &cfg); err != nil {
			t.Fatal(err)
		}
		want := map[string]string{"gate": jsonID(ids[0]), "gate_arm": order[k : k+1], "gate_order": order,
			"gate_seed": "42", "gate_trial": jsonID(float64(k+1)) + "/6"}
		if order[k] == 'B' {
			want["pacing"] = "spec x0.01"
		} else {
			want["pacing"] = "unpaced"
		}
		if k == 0 {
			want["gate_verdict"] = "FAIL"
		}
		for key, v := range want {
			if cfg[key] != v {
				t.Errorf("job %v (trial %d): setting %s = %q, want %q", id, k+1, key, cfg[key], v)
			}
		}
	}

	// Identical arms pass (a bound of -50% is far beyond this machine's
	// noise), and the summary is appended to. --between does its step
	// between any two trials, as for a series.
	out, err = e.run(append(common, "--b-set", "pacing=off", "--order-seed", "7", "--between", "checkpoint")...)
	if err != nil || !strings.Contains(out, "Gate verdict: pass") {
		t.Fatalf("a gate between identical settings: %v\n%s", err, out)
	}
	if n := strings.Count(out, "between trials: "); n < 5 {
		t.Errorf("%d between steps in the output, want one between each two of the 6 trials:\n%s", n, out)
	}
	md, _ = os.ReadFile(summary)
	if !strings.Contains(string(md), "## ❌ Sledge gate") || !strings.Contains(string(md), "## ✅ Sledge gate") {
		t.Errorf("the summary does not hold both gates:\n%s", md)
	}
	assertJUnit(t, junit, 0)
}

func jsonID(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

func assertJUnit(t *testing.T, path string, failures int) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Failures int `xml:"failures,attr"`
		Tests    int `xml:"tests,attr"`
	}
	if err := xml.Unmarshal(b, &doc); err != nil || doc.Failures != failures || doc.Tests != 2 {
		t.Errorf("JUnit (%v): %d of %d failed, want %d of 2:\n%s", err, doc.Failures, doc.Tests, failures, b)
	}
}

// TestGateBadInput: what a gate cannot run is refused before any job.
func TestGateBadInput(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--trials", "3"}, "--a-set or --b-set: say how the arms differ"},
		{[]string{"--b-set", "pacing"}, `--b-set "pacing": want KEY=VALUE`},
		{[]string{"--b-set", "pacin=spec"}, "pacin is no run flag"},
		{[]string{"--b-set", "vu=x"}, "--b-set vu=x: invalid argument"},
		{[]string{"--b-set", "between=vacuum"}, "applies to the whole gate"},
		{[]string{"--b-set", "pacing=sometimes"}, "--b-set pacing"},
		{[]string{"--b-set", "pacing=spec", "--trials", "1"}, "--trials: must be between 2"},
		{[]string{"--b-set", "pacing=spec", "--fail-if", "nopm<-3"}, "--fail-if: \"nopm<-3\": the bound is a change in percent"},
		{[]string{"--b-set", "pacing=spec", "--fail-if", "p95(bogus)>+10%"}, `--fail-if "p95(bogus)>+10%": "bogus" is not a TPROC-C transaction type`},
		{[]string{"--b-set", "pacing=spec", "--fail-if", "geomean>+10%"}, "geomean is not measured by TPROC-C runs"},
		{[]string{"--b-set", "pacing=spec", "--vu", "0"}, "--vu"},
	} {
		out, err := e.run(append([]string{"gate"}, c.args...)...)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("gate %v: error %v, want one saying %q\n%s", c.args, err, c.want, out)
		}
		if c.args[1] == "pacing=sometimes" && strings.Contains(err.Error(), "--a-set") {
			t.Errorf("gate %v: an arm's error is named for both arms: %v", c.args, err)
		}
	}
	if n := len(e.jobs()); n != 0 {
		t.Errorf("%d jobs after refused gates, want none", n)
	}
}

// TestArmSpecKeepsCommonSettings: an arm starts from the gate's common
// run settings and changes only what its --a-set/--b-set names. Every run
// flag is bound afresh on the arm's copy, so a flag declared with a fixed
// default (as --latency-limit was, 0) silently reset the common value.
func TestArmSpecKeepsCommonSettings(t *testing.T) {
	t.Parallel()
	common := config.New(config.KindRun)
	common.LatencyLimit = config.Duration(50 * time.Millisecond)
	common.Rate = 100
	common.VU = 7
	common.Pacing = "spec"
	arm, _, err := armSpec(common, "--b-set", []string{"vu=9"})
	if err != nil {
		t.Fatal(err)
	}
	want := common
	want.VU = 9
	if !reflect.DeepEqual(arm, want) {
		t.Errorf("arm spec %+v,\nwant the common one with vu 9: %+v", arm, want)
	}
}
