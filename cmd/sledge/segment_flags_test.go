package main

import (
	"strings"
	"testing"
)

// TestSegmentFlagsWordedAsFlags: --segment and --run-id are bound on run
// and build, and the spec's field errors about them are worded as these
// flags.
func TestSegmentFlagsWordedAsFlags(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "--segment", "3/3", "--run-id", "r1"}, "--segment 3/3: the index must be below the count (0-based)"},
		{[]string{"run", "--segment", "0/2"}, "--segment 0/2: needs a run id"},
		{[]string{"run", "--segment", "0/4", "--vu", "3", "--run-id", "r1"}, "--segment 0/4 gets no virtual users: 3 VUs over 4 segments"},
		{[]string{"run", "--run-id", "a b"}, `--run-id "a b": want 1 to 64 letters`},
		{[]string{"build", "--segment", "1/2:1/3", "--run-id", "b1"}, "--segment 1/2:1/3: the start must be below the end"},
		{[]string{"build", "--segment", "x", "--run-id", "b1"}, "--segment x: want I/N"},
	} {
		_, err := e.run(c.args...)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("sledge %s: error %v, want %q", strings.Join(c.args, " "), err, c.want)
		}
	}
	for _, cmd := range []string{"run", "build"} {
		c, _, err := newRootCmd(newTestState(t)).Find([]string{cmd})
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range []string{"segment", "run-id"} {
			if c.Flags().Lookup(f) == nil {
				t.Errorf("sledge %s has no --%s", cmd, f)
			}
		}
	}
}
