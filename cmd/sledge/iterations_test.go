package main

import (
	"strings"
	"testing"
)

// TestIterationsFlag: sledge run --iterations binds onto the spec, --help
// explains it, and what the run refuses is worded as flags: --rampup or
// --duration typed with it (an iteration run uses neither), a negative
// count, and a TPROC-H run. Nothing refused is recorded.
func TestIterationsFlag(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	run, _, err := newRootCmd(newTestState(t)).Find([]string{"run"})
	if err != nil {
		t.Fatal(err)
	}
	f := run.Flags().Lookup("iterations")
	if f == nil || f.DefValue != "0" || !strings.Contains(f.Usage, "per VU") || !strings.Contains(f.Usage, "total_iterations") {
		t.Fatalf("--iterations: %+v", f)
	}
	for _, want := range []string{"--iterations N", "no ramp-up and no --duration", "elapsed time", "--max-retries"} {
		if !strings.Contains(run.Long, want) {
			t.Errorf("sledge run --help lacks %q", want)
		}
	}
	if !strings.Contains(run.Example, "--iterations") {
		t.Errorf("sledge run examples lack --iterations")
	}
	for _, c := range []struct {
		args     []string
		want     []string
		notWants []string
	}{
		{[]string{"--iterations", "5", "--rampup", "5s"}, []string{"--rampup is not used by an iteration run (--iterations)"}, []string{"--duration"}},
		{[]string{"--iterations", "5", "--duration", "1m", "--rampup", "0s"}, []string{"--duration is not used"}, []string{"--rampup"}},
		{[]string{"--iterations", "5", "--duration", "1m", "--rampup", "1s"}, []string{"--duration is not used", "--rampup is not used"}, nil},
		{[]string{"--iterations", "-1"}, []string{"--iterations must not be negative (got -1"}, nil},
		{[]string{"--iterations", "3", "--workload", "tproch"}, []string{"--iterations applies to TPROC-C runs only"}, nil},
	} {
		_, err := e.run(append([]string{"run"}, c.args...)...)
		if err == nil {
			t.Errorf("sledge run %s accepted", strings.Join(c.args, " "))
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("sledge run %s: %q lacks %q", strings.Join(c.args, " "), err, w)
			}
		}
		for _, w := range c.notWants {
			if strings.Contains(err.Error(), w) {
				t.Errorf("sledge run %s: %q has %q", strings.Join(c.args, " "), err, w)
			}
		}
	}
	if list := e.jobs(); len(list) != 0 {
		t.Errorf("refused runs recorded %d jobs: %v", len(list), list)
	}
}
