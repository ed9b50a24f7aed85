package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// newTestState is a globalState of a test's own, which lets tests run in
// parallel: an environment with SLEDGE_HOME and SLEDGE_REPO in temporary
// directories (and the process's PATH, to find tclsh and python3; children
// that are this test binary act as sledge), a stdin that is no terminal and
// holds nothing, buffers for stdout and stderr (testStdout, testStderr), and
// a home and temporary directory of the test's. Set more of the
// environment in gs.env, or another stdin in gs.stdin, before running.
func newTestState(t testing.TB) *globalState {
	t.Helper()
	exe, _ := os.Executable()
	wd, _ := os.Getwd()
	return &globalState{
		env: map[string]string{
			"SLEDGE_HOME": t.TempDir(),
			"SLEDGE_REPO": filepath.Join(t.TempDir(), "jobs.db"),
			"TMP":         t.TempDir(), // HammerDB's temporary directory
			"PATH":        os.Getenv("PATH"),
			// The front ends call back into $SLEDGE_BIN, this test binary.
			"SLEDGE_TEST_AS_MAIN": "1",
			"SLEDGE_NO_REEXEC":    "1",
		},
		stdin:      strings.NewReader(""),
		stdout:     &syncBuffer{},
		stderr:     &syncBuffer{},
		workDir:    wd,
		userHome:   t.TempDir(),
		tempDir:    t.TempDir(),
		executable: exe,
		root:       os.Geteuid() == 0,
	}
}

// withProcessEnv lays the process's environment over gs's, for the tests
// that still set theirs with t.Setenv (and so cannot run in parallel): the
// command then sees what it saw when it read the environment itself.
func withProcessEnv(gs *globalState) *globalState {
	for _, kv := range os.Environ() {
		if k, v, ok := strings.Cut(kv, "="); ok {
			gs.env[k] = v
		}
	}
	return gs
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
