package shell

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sledge-bench/sledge/internal/script"
)

func TestAsk(t *testing.T) {
	t.Parallel()
	for answer, want := range map[string]bool{"y\n": true, "YES\n": true, " Yes \n": true, "n\n": false, "\n": false, "yess\n": false, "": false} {
		var out bytes.Buffer
		got, err := Ask(context.Background(), strings.NewReader(answer), &out, "Go? [y/N] ")
		if err != nil || got != want || out.String() != "Go? [y/N] " {
			t.Errorf("answer %q: %v, %v, asked %q; want %v", answer, got, err, out.String(), want)
		}
	}
	// Ctrl-C at the question: ctx's error, and the line ended.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	r, w := io.Pipe()
	defer w.Close()
	var out bytes.Buffer
	if ok, err := Ask(ctx, r, &out, "Go? "); ok || !errors.Is(err, context.Canceled) || out.String() != "Go? \n" {
		t.Errorf("interrupted: %v, %v, %q", ok, err, out.String())
	}
}

func TestLookPathUsesTheGivenPATH(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	exe := filepath.Join(dir, "tool")
	if err := os.WriteFile(exe, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "data"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	env := []string{"PATH=/nonexistent", "PATH=relative:" + dir}
	if got, err := lookPath("tool", env); err != nil || got != exe {
		t.Errorf("lookPath(tool) = %q, %v; want %s", got, err, exe)
	}
	for _, name := range []string{"data", "missing"} {
		if got, err := lookPath(name, env); !errors.Is(err, exec.ErrNotFound) {
			t.Errorf("lookPath(%s) = %q, %v; want not found", name, got, err)
		}
	}
	if _, err := lookPath("tool", nil); err == nil {
		t.Error("found a tool without a PATH")
	}
}

// A script that is not there is refused before a child starts: a clear
// error, where Python itself would print a traceback.
func TestMissingScript(t *testing.T) {
	t.Parallel()
	for name, run := range map[string]func(context.Context, Process, string) error{"tclsh": Tcl, "python3": Python} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			ran := filepath.Join(dir, "ran")
			if err := os.WriteFile(filepath.Join(dir, name), []byte("#!/bin/sh\n: > "+ran+"\n"), 0o755); err != nil {
				t.Fatal(err)
			}
			var out bytes.Buffer
			p := Process{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &out, Env: []string{"PATH=" + dir}, TempDir: dir, WorkDir: dir}
			err := run(context.Background(), p, "missing.script")
			if err == nil || !strings.Contains(err.Error(), "script: stat "+filepath.Join(dir, "missing.script")+": no such file or directory") {
				t.Errorf("%s with a missing script: %v", name, err)
			}
			if _, err := os.Stat(ran); err == nil {
				t.Errorf("%s was started for a missing script", name)
			}
		})
	}
}

func TestHistoryFile(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ state, home, want string }{
		{"/s", "/h", "/s/sledge/cli_history"},
		{"", "/h", "/h/.local/state/sledge/cli_history"},
		{"", "", ""},
	} {
		if got := HistoryFile(c.state, c.home); got != c.want {
			t.Errorf("HistoryFile(%q, %q) = %q, want %q", c.state, c.home, got, c.want)
		}
	}
}

func TestCompleter(t *testing.T) {
	t.Parallel()
	names := tclCommands(script.TclPrelude)
	for _, want := range []string{"dbset", "diset", "vuset", "buildschema", "vurun", "jobs"} {
		found := false
		for _, n := range names {
			found = found || n == want
		}
		if !found {
			t.Errorf("the prelude's commands lack %s: %v", want, names)
		}
	}
	complete := completer([]string{"dbset", "diset", "dgset", "vurun"})
	for _, c := range []struct {
		line string
		want string
		ok   bool
	}{
		{"vu", "vurun ", true},
		{"d", "d", true}, // dbset, diset, dgset share only "d"
		{"di", "diset ", true},
		{"x", "", false},
		{"vurun x", "", false},
	} {
		got, _, ok := complete(c.line, len(c.line), '\t')
		if ok != c.ok || got != c.want {
			t.Errorf("complete(%q) = %q, %v; want %q, %v", c.line, got, ok, c.want, c.ok)
		}
	}
}

// TestChildEnv: the child gets the environment with the binary to call
// back and, when named, the repository appended: last, so that they win.
func TestChildEnv(t *testing.T) {
	t.Parallel()
	env := []string{"PATH=/bin", "SLEDGE_REPO=/old.db"}
	for _, tc := range []struct {
		bin, repo string
		want      []string
	}{
		{"", "", []string{"PATH=/bin", "SLEDGE_REPO=/old.db"}},
		{"/usr/bin/sledge", "", []string{"PATH=/bin", "SLEDGE_REPO=/old.db", "SLEDGE_BIN=/usr/bin/sledge"}},
		{"/usr/bin/sledge", "/new.db", []string{"PATH=/bin", "SLEDGE_REPO=/old.db", "SLEDGE_BIN=/usr/bin/sledge", "SLEDGE_REPO=/new.db"}},
	} {
		if got := ChildEnv(slices.Clone(env), tc.bin, tc.repo); !slices.Equal(got, tc.want) {
			t.Errorf("ChildEnv(%q, %q) = %q, want %q", tc.bin, tc.repo, got, tc.want)
		}
	}
}

// TestScriptArg: no arguments is the prompt, `auto SCRIPT` a script,
// anything else is refused.
func TestScriptArg(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args   []string
		script string
		ok     bool
	}{
		{nil, "", true},
		{[]string{"auto", "x.tcl"}, "x.tcl", true},
		{[]string{"x.tcl"}, "", false},
		{[]string{"auto"}, "", false},
		{[]string{"auto", "x.tcl", "y"}, "", false},
	} {
		if script, ok := ScriptArg(tc.args); script != tc.script || ok != tc.ok {
			t.Errorf("ScriptArg(%q) = %q, %v; want %q, %v", tc.args, script, ok, tc.script, tc.ok)
		}
	}
}
