package main

import (
	"io"
	"os"
	"path/filepath"
	"sort"

	"github.com/sledge-bench/sledge/internal/app"
	"github.com/sledge-bench/sledge/internal/config"
	"github.com/sledge-bench/sledge/internal/script"
	"github.com/sledge-bench/sledge/internal/shell"
)

// globalState is everything the commands take from the process they run in
// (k6's cmd/state.GlobalState): main builds it once from the real process
// (newGlobalState), a test builds its own (newTestState), so that tests run
// side by side. Nothing else in this package reads the environment, the
// standard streams or the working directory (but keepSysmonAwake, which
// runs before it is built), and no package below it does: they are handed
// values. Nothing here reads the clock either: the job service times jobs.
type globalState struct {
	env            map[string]string // the environment
	stdin          io.Reader
	stdout, stderr io.Writer
	stdinTTY       bool   // stdin is an interactive terminal: questions, the sledge> prompt
	stderrTTY      bool   // stderr is one: progress bars
	workDir        string // the working directory
	userHome       string // the user's home directory, "" when unknown
	tempDir        string // where temporary files go
	executable     string // this binary (the front ends call back into it), "" when unknown
	root           bool   // the effective user is root
	// ownsProcess: this process runs only what it is asked (the sledge
	// binary), so a run may set its client CPUs (GOMAXPROCS). Tests that run
	// commands inside the test binary leave it false: parallel tests share
	// the process.
	ownsProcess bool

	flags globalFlags // the flags every command shares, bound by newRootCmd
}

// globalFlags are the flags every command shares.
type globalFlags struct {
	repo   string // jobs repository path (--repo)
	server string // a `sledge serve` to drive instead of running here (--server)
}

// getenv is an environment variable's value, "" when unset.
func (gs *globalState) getenv(name string) string { return gs.env[name] }

// environ is the environment as a child process takes it (KEY=VALUE).
func (gs *globalState) environ() []string {
	env := make([]string, 0, len(gs.env))
	for k, v := range gs.env {
		env = append(env, k+"="+v)
	}
	sort.Strings(env)
	return env
}

// abs is path made absolute against the working directory.
func (gs *globalState) abs(path string) string {
	if filepath.IsAbs(path) {
		return filepath.Clean(path)
	}
	return filepath.Join(gs.workDir, path)
}

// configEnv is what the settings take from the environment: where Sledge's
// files live.
func (gs *globalState) configEnv() config.Env {
	return config.Env{SledgeHome: gs.getenv("SLEDGE_HOME"), XDGDataHome: gs.getenv("XDG_DATA_HOME"),
		UserHome: gs.userHome, Repo: gs.getenv("SLEDGE_REPO")}
}

// serviceOptions are the job service's options this process decides: the
// default target ($SLEDGE_DB), the data directory of the embedded
// databases, and where warnings that belong to no job go.
func (gs *globalState) serviceOptions(o app.Options) app.Options {
	o.DefaultDB = gs.getenv("SLEDGE_DB")
	o.DataDir, o.NoDataDir = gs.configEnv().DataDir() // none: a spec must name its target, and is told why
	o.Warn = gs.stderr
	if o.Repo != nil && o.RepoName == "" {
		o.RepoName = app.RepoName(o.Repo.Path(), gs.workDir) // what it cannot store is spooled in the data directory
	}
	o.SpareSpoolDir = app.SpareSpoolDir(gs.tempDir, os.Getuid())
	return o
}

// scriptEnv is what HammerDB's command layer takes from the environment:
// HammerDB's temporary directories and configuration directory.
func (gs *globalState) scriptEnv() script.Env {
	return script.Env{TMP: gs.getenv("TMP"), TMPDIR: gs.getenv("TMPDIR"), TEMP: gs.getenv("TEMP"),
		ConfigDir: gs.getenv(script.StepsEnv), WorkDir: gs.workDir}
}

// shellProcess is what the Tcl and Python front ends get of this process:
// its streams, its environment with the sledge binary to call back
// ($SLEDGE_BIN) and, when repo is set, the repository ($SLEDGE_REPO).
func (gs *globalState) shellProcess(repo string) shell.Process {
	return shell.Process{Stdin: gs.stdin, Stdout: gs.stdout, Stderr: gs.stderr, StdinTTY: gs.stdinTTY,
		Env: shell.ChildEnv(gs.environ(), gs.executable, repo), TempDir: gs.tempDir, WorkDir: gs.workDir,
		History: shell.HistoryFile(gs.getenv("XDG_STATE_HOME"), gs.userHome)}
}

// progressTTY is where build progress bars are drawn: stderr on a terminal,
// else nowhere (progress lines go to the job's output instead).
func (gs *globalState) progressTTY() io.Writer {
	if gs.stderrTTY {
		return gs.stderr
	}
	return nil
}
