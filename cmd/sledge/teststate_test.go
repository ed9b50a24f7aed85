package main

import (
	"bytes"
	"context"
	"encoding/json"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sledge-bench/sledge/internal/testdb"
	"github.com/sledge-bench/sledge/internal/testdb/tpcctest"
)

// newTestState is a globalState of a test's own, which lets tests run in
// parallel: an environment with SLEDGE_HOME and SLEDGE_REPO in temporary
// directories (and the process's PATH, to find tclsh and python3, and its
// locale; children that are this test binary act as sledge), a stdin that
// is no terminal and holds nothing, buffers for stdout and stderr
// (testStdout, testStderr), and a home and temporary directory of the
// test's. Set more of the environment in gs.env, or another stdin in
// gs.stdin, before running.
func newTestState(t testing.TB) *globalState {
	t.Helper()
	exe, _ := os.Executable()
	wd, _ := os.Getwd()
	home := t.TempDir()
	env := map[string]string{
		"SLEDGE_HOME": t.TempDir(),
		"SLEDGE_REPO": filepath.Join(t.TempDir(), "jobs.db"),
		"TMP":         t.TempDir(), // HammerDB's temporary directory
		"HOME":        home,        // the prompt's history, Python's user files
		"PATH":        os.Getenv("PATH"),
		// The front ends call back into $SLEDGE_BIN, this test binary.
		"SLEDGE_TEST_AS_MAIN": "1",
		"SLEDGE_NO_REEXEC":    "1",
	}
	// What the process was given that is no setting of Sledge's own: the
	// locale (Tcl reads and writes its strings in it), and the database
	// binaries the tests were told to use (testdb.PGBin, sledge sandbox).
	for _, k := range []string{"LANG", "LC_ALL", "LC_CTYPE", "SLEDGE_PG_BIN", "SLEDGE_MARIADB_BIN"} {
		if v, ok := os.LookupEnv(k); ok {
			env[k] = v
		}
	}
	return &globalState{
		env:        env,
		stdin:      strings.NewReader(""),
		stdout:     &syncBuffer{},
		stderr:     &syncBuffer{},
		workDir:    wd,
		userHome:   home,
		tempDir:    t.TempDir(),
		executable: exe,
		root:       os.Geteuid() == 0,
	}
}

// runSledge runs the CLI in-process on gs and returns what this run
// printed on stdout.
func runSledge(ctx context.Context, gs *globalState, args ...string) (string, error) {
	before := testStdout(gs)
	root := newRootCmd(gs)
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	return strings.TrimPrefix(testStdout(gs), before), err
}

// testStdout and testStderr are what a newTestState's commands printed so far.
func testStdout(gs *globalState) string { return gs.stdout.(*syncBuffer).String() }
func testStderr(gs *globalState) string { return gs.stderr.(*syncBuffer).String() }

// syncBuffer is a bytes.Buffer safe for the goroutines of one command (a
// job's console and the service's warnings).
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// testEnv is the world one test's sledge commands share: the environment
// of a newTestState (a data directory, a jobs repository, a home and
// HammerDB's temporary directory of the test's own), seen alike by the
// commands run in process (run, ok) and by this test binary run as the
// sledge command (process, start, startTTY). Nothing in it is the
// process's, so tests using one run in parallel.
type testEnv struct {
	t  *testing.T
	gs *globalState // what each command's state is copied from
}

func newEnv(t *testing.T) *testEnv {
	t.Helper()
	return &testEnv{t: t, gs: newTestState(t)}
}

// set sets an environment variable of every command e runs from now on.
func (e *testEnv) set(name, value string) *testEnv {
	e.gs.env[name] = value
	return e
}

func (e *testEnv) getenv(name string) string { return e.gs.env[name] }

// home is the data directory ($SLEDGE_HOME), repo the jobs repository
// ($SLEDGE_REPO), tmp HammerDB's temporary directory ($TMP).
func (e *testEnv) home() string { return e.getenv("SLEDGE_HOME") }
func (e *testEnv) repo() string { return e.getenv("SLEDGE_REPO") }
func (e *testEnv) tmp() string  { return e.getenv("TMP") }

// state is a globalState for one command: e's environment (a copy), an
// empty stdin that is no terminal, and streams of its own.
func (e *testEnv) state() *globalState {
	gs := *e.gs
	gs.env = maps.Clone(e.gs.env)
	gs.stdin = strings.NewReader("")
	gs.stdout, gs.stderr = &syncBuffer{}, &syncBuffer{}
	return &gs
}

// run runs sledge in process and returns what it printed on stdout.
func (e *testEnv) run(args ...string) (string, error) {
	return runSledge(context.Background(), e.state(), args...)
}

// ok is run of a command that must succeed.
func (e *testEnv) ok(args ...string) string {
	e.t.Helper()
	out, err := e.run(args...)
	if err != nil {
		e.t.Fatalf("sledge %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return out
}

// jobs is `sledge jobs --format json`.
func (e *testEnv) jobs() []map[string]any {
	e.t.Helper()
	var list []map[string]any
	if err := json.Unmarshal([]byte(e.ok("jobs", "--format", "json")), &list); err != nil {
		e.t.Fatal(err)
	}
	return list
}

// latest returns the newest job of a kind.
func (e *testEnv) latest(kind string) map[string]any {
	e.t.Helper()
	for _, j := range e.jobs() {
		if j["kind"] == kind {
			return j
		}
	}
	e.t.Fatalf("no %s job in the repository", kind)
	return nil
}

// tpcc puts the TPROC-C schema as `sledge build` leaves it (one warehouse,
// the default seed) where a first `sledge run` would build it, the
// embedded default in the data directory, as a copy of the test binary's
// template: for tests of what runs on it, not of the first run's build.
// The repository then holds no build job.
func (e *testEnv) tpcc() {
	e.t.Helper()
	tpcctest.SQLiteAt(e.t, tpcctest.Options{}, filepath.Join(e.home(), "tprocc.sqlite"))
}

// environ is e's environment as a child process takes it.
func (e *testEnv) environ() []string { return e.gs.environ() }

// command is this test binary as the sledge command in e's environment
// (SLEDGE_TEST_AS_MAIN), killed should the test binary die.
func (e *testEnv) command(ctx context.Context, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, e.gs.executable, args...)
	cmd.Env = e.environ()
	cmd.WaitDelay = 10 * time.Second
	testdb.DieWithTest(cmd)
	return cmd
}

// process runs this test binary as the sledge command, with stdin (none
// when ""), and returns its stdout and stderr together.
func (e *testEnv) process(stdin string, args ...string) (string, error) {
	e.t.Helper()
	ctx, cancel := testContext(e.t)
	defer cancel()
	cmd := e.command(ctx, args...)
	if stdin != "" {
		cmd.Stdin = strings.NewReader(stdin)
	}
	out, err := cmd.CombinedOutput()
	if ctx.Err() != nil {
		e.t.Fatalf("sledge %s still ran at the test's deadline:\n%s", strings.Join(args, " "), out)
	}
	return string(out), err
}

// testDeadlineMargin is what a test keeps of its binary's deadline
// (-timeout) to report a wait that did not end, and to clean up.
const testDeadlineMargin = 30 * time.Second

// testDeadline is when a test stops waiting for a condition: shortly before
// its binary's deadline, or an hour from now without one.
func testDeadline(t testing.TB) time.Time {
	if dt, ok := t.(interface{ Deadline() (time.Time, bool) }); ok {
		if d, ok := dt.Deadline(); ok {
			return d.Add(-testDeadlineMargin)
		}
	}
	return time.Now().Add(time.Hour)
}

// testContext ends at testDeadline (or when the test does).
func testContext(t *testing.T) (context.Context, context.CancelFunc) {
	return context.WithDeadline(t.Context(), testDeadline(t))
}
