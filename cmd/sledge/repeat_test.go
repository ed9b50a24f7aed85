package main

import (
	"strings"
	"testing"
)

// TestRunRepeat: --repeat 2 runs two trials as two jobs and prints the
// series with its mean and SD (too few trials for an interval); a bad count or a bad spec is refused
// before any job.
func TestRunRepeat(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs on SQLite")
	}
	t.Parallel()
	e := newEnv(t)
	e.tpcc() // the embedded default, as a first run leaves it
	out := e.ok("run", "--vu", "1", "--rampup", "0s", "--duration", "2s", "--interval", "1s", "--repeat", "2")
	// Two trials: a mean and an SD, and no interval (one degree of
	// freedom gave bounds like "-3064 – 10,665").
	for _, want := range []string{"Series of 2 trials", "95% CI of the mean", "NOPM", "— (2 trials: too few, it takes 3)"} {
		if !strings.Contains(out, want) {
			t.Errorf("the output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, " -") {
		t.Errorf("a negative figure:\n%s", out)
	}
	runs := 0
	for _, j := range e.jobs() {
		if j["kind"] == "run" {
			runs++
		}
	}
	if runs != 2 {
		t.Errorf("%d run jobs, want 2", runs)
	}
	for _, bad := range [][]string{
		{"--repeat", "0"},
		{"--repeat", "2", "--vu", "0"},
	} {
		if _, err := e.run(append([]string{"run"}, bad...)...); err == nil {
			t.Errorf("run %v was accepted", bad)
		}
	}
	if n := len(e.jobs()); n != 2 { // the two trials
		t.Errorf("%d jobs after the refused runs, want 2", n)
	}
}
