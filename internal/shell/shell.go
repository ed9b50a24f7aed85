// Package shell is Sledge's side of the user's terminal: it runs the
// scripting front ends of `sledge cli` as child processes — tclsh with
// HammerDB's command set (internal/script's Tcl prelude), a script or the
// interactive sledge> prompt, and python3 with the embedded sledge package;
// both call back into sledge (`sledge cli do`, $SLEDGE_BIN) for every
// action — and asks the questions of destructive commands (Ask).
//
// The package reads nothing of its own process: the command hands it the
// standard streams, the environment and the directories as a Process.
package shell

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/sledge-bench/sledge/internal/script"
	pyembed "github.com/sledge-bench/sledge/python"
)

// Process is what a front end's child process gets from the sledge
// process that starts it.
type Process struct {
	// Stdin, Stdout and Stderr are the child's standard streams. The
	// prompt needs Stdin to be a terminal's file (StdinTTY).
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	// StdinTTY says Stdin is an interactive terminal: without a script,
	// tclsh then runs behind the sledge> prompt's line editor.
	StdinTTY bool
	// Env is the child's environment (KEY=VALUE); its PATH finds tclsh
	// and python3.
	Env []string
	// TempDir holds the prelude or the Python package while the child runs.
	TempDir string
	// WorkDir is where a relative script path is found.
	WorkDir string
	// History is the prompt's history file, kept between sessions; ""
	// keeps none.
	History string
}

// ChildEnv is the environment env (KEY=VALUE) of the sledge process as a
// front end's child takes it: with bin, the sledge binary the front end
// calls back into ($SLEDGE_BIN), and repo, when set, the jobs repository
// its actions use ($SLEDGE_REPO); "" leaves either as env has it.
func ChildEnv(env []string, bin, repo string) []string {
	if bin != "" {
		env = append(env, "SLEDGE_BIN="+bin)
	}
	if repo != "" {
		env = append(env, "SLEDGE_REPO="+repo)
	}
	return env
}

// ScriptArg is the script of a front end's arguments, `[auto SCRIPT]`: ""
// with none (its prompt); ok is false for any other arguments.
func ScriptArg(args []string) (script string, ok bool) {
	switch {
	case len(args) == 2 && args[0] == "auto":
		return args[1], true
	case len(args) != 0:
		return "", false
	}
	return "", true
}

// Tcl runs tclsh with the HammerDB prelude, then the script (scriptPath),
// or the prompt when there is none and stdin is a terminal. The error of a
// child that exited with a status is an *exec.ExitError.
func Tcl(ctx context.Context, p Process, scriptPath string) error {
	tclsh, err := lookPath("tclsh", p.Env)
	if err != nil {
		return errors.New("tclsh not found: install Tcl 8.6 (Debian: apt-get install tcl)")
	}
	dir, err := os.MkdirTemp(p.TempDir, "sledge-cli-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	prelude := filepath.Join(dir, "hammerdb.tcl")
	// The key table first: the prelude's diset and giset check against it.
	if err := os.WriteFile(prelude, []byte(script.TclKeys()+script.TclPrelude), 0o644); err != nil {
		return err
	}
	args := []string{prelude}
	if scriptPath != "" {
		abs, err := p.script(scriptPath)
		if err != nil {
			return err
		}
		args = append(args, "auto", abs)
	}
	if scriptPath == "" && p.StdinTTY {
		return prompt(ctx, p, tclsh, prelude)
	}
	return p.run(ctx, tclsh, args, p.Env)
}

// Python runs python3 with the embedded sledge package on its path: the
// script (scriptPath) with HammerDB's commands importable unqualified, or
// an interactive Python prompt.
func Python(ctx context.Context, p Process, scriptPath string) error {
	py, err := lookPath("python3", p.Env)
	if err != nil {
		return errors.New("python3 not found")
	}
	if scriptPath != "" {
		// Python would answer a missing script with a traceback.
		if _, err := p.script(scriptPath); err != nil {
			return err
		}
	}
	dir, err := os.MkdirTemp(p.TempDir, "sledge-py-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	if err := pyembed.Extract(dir); err != nil {
		return err
	}
	var args []string
	if scriptPath != "" {
		// The HammerDB commands are importable unqualified, as in HammerDB.
		// The script starts with what HammerDB's Python CLI gives it: the
		// commands, tclpy, HammerDB's print and help, os and sys.
		args = []string{"-c", "import runpy, sys; from sledge.hammerdb import script_namespace; sys.argv = [sys.argv[1]]; " +
			"runpy.run_path(sys.argv[0], init_globals=script_namespace(), run_name='__main__')", scriptPath}
	} else {
		args = []string{"-i", "-c", "from sledge.hammerdb import script_namespace; globals().update(script_namespace()); import sledge; " +
			"print('sledge Python prompt: HammerDB commands and the sledge module are loaded; help() lists the commands')"}
	}
	env := append(p.Env[:len(p.Env):len(p.Env)], "PYTHONPATH="+dir+string(os.PathListSeparator)+getenv(p.Env, "PYTHONPATH"))
	return p.run(ctx, py, args, env)
}

// run runs a child on the process's streams in WorkDir; it dies with this
// process.
func (p Process) run(ctx context.Context, name string, args, env []string) error {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = p.Stdin, p.Stdout, p.Stderr
	cmd.Env = env
	cmd.Dir = p.WorkDir
	dieWithParent(cmd)
	defer lockThread()()
	return cmd.Run()
}

// script is the script at path, made absolute against WorkDir, or why
// there is none to run.
func (p Process) script(path string) (string, error) {
	abs := p.abs(path)
	if _, err := os.Stat(abs); err != nil {
		return "", fmt.Errorf("script: %w", err)
	}
	return abs, nil
}

// abs is path made absolute against WorkDir.
func (p Process) abs(path string) string {
	if filepath.IsAbs(path) {
		return filepath.Clean(path)
	}
	return filepath.Join(p.WorkDir, path)
}

// getenv is the last value of name in env ("" when absent), as exec takes it.
func getenv(env []string, name string) string {
	v := ""
	for _, kv := range env {
		if k, val, ok := strings.Cut(kv, "="); ok && k == name {
			v = val
		}
	}
	return v
}

// lookPath finds an executable in the directories of env's PATH (exec.LookPath
// reads this process's PATH instead).
func lookPath(name string, env []string) (string, error) {
	for _, dir := range filepath.SplitList(getenv(env, "PATH")) {
		if !filepath.IsAbs(dir) {
			continue // as exec.LookPath, which refuses a relative result
		}
		path := filepath.Join(dir, name)
		if fi, err := os.Stat(path); err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0 {
			return path, nil
		}
	}
	return "", exec.ErrNotFound
}
