package main

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
)

// TestStateEnvironmentIsPerCommand: a command reads the environment of its
// own globalState, never the process's, so commands with different
// environments run side by side.
func TestStateEnvironmentIsPerCommand(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"a", "b"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			gs := newTestState(t)
			repo := filepath.Join(t.TempDir(), name+".db")
			gs.env["SLEDGE_REPO"] = repo
			out, err := runSledge(context.Background(), gs, "jobs")
			if err != nil || out != "no jobs repository at "+repo+"\n" {
				t.Errorf("sledge jobs: %v, %q", err, out)
			}
		})
	}
}

// TestStateStdinAnswersConfirmation: a question is asked on the state's
// stderr when its stdin is a terminal, and answered from its stdin.
func TestStateStdinAnswersConfirmation(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "x.db")
	for _, c := range []struct {
		tty    bool
		answer string
		want   string
	}{
		{false, "y\n", "drop asks for confirmation: run it with --yes when there is no terminal"},
		{true, "n\n", "drop not confirmed: nothing done"},
		{true, "yes\n", "no database at " + path},
	} {
		gs := newTestState(t)
		gs.stdinTTY, gs.stdin = c.tty, strings.NewReader(c.answer)
		_, err := runSledge(context.Background(), gs, "drop", "--db", "sqlite:"+path)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("terminal %v, answer %q: %v, want %q", c.tty, c.answer, err, c.want)
		}
		asked := strings.Contains(testStderr(gs), "Drop all TPROC-C tables in sqlite:"+path+"? [y/N] ")
		if asked != c.tty {
			t.Errorf("terminal %v: asked %v:\n%s", c.tty, asked, testStderr(gs))
		}
	}
}
