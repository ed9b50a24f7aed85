package shell

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sledge-bench/sledge/internal/testdb"
)

// helperEnv makes this test binary TestTclHelperProcess's sledge: it runs
// a Tcl script (the variable's value) as `sledge cli auto` does, and waits.
const helperEnv = "SLEDGE_SHELL_TEST_TCL_SCRIPT"

// TestTclHelperProcess is the sledge process of TestFrontEndDiesWithSledge
// (it does nothing as a test of its own).
func TestTclHelperProcess(t *testing.T) {
	script := os.Getenv(helperEnv)
	if script == "" {
		t.Skip("the helper process of TestFrontEndDiesWithSledge")
	}
	err := Tcl(context.Background(), Process{Stdin: strings.NewReader(""), Stdout: os.Stdout, Stderr: os.Stderr,
		Env: append(os.Environ(), "SLEDGE_BIN="+os.Args[0]), TempDir: os.TempDir(), WorkDir: filepath.Dir(script)}, script)
	if err != nil {
		os.Exit(1)
	}
	os.Exit(0)
}

// TestFrontEndDiesWithSledge: the tclsh that a sledge process started is
// killed when that process dies, however it dies (SIGKILL here, which it
// cannot handle): no front end goes on running a script for nobody.
func TestFrontEndDiesWithSledge(t *testing.T) {
	t.Parallel()
	testdb.Command(t, "tclsh", "tcl")
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "tclsh.pid")
	script := filepath.Join(dir, "wait.tcl")
	src := "set f [open {" + pidFile + ".new} w]\nputs $f [pid]\nclose $f\nfile rename {" + pidFile + ".new} {" + pidFile + "}\nafter 600000\n"
	if err := os.WriteFile(script, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	sledge := exec.Command(exe, "-test.run=^TestTclHelperProcess$")
	sledge.Env = append(os.Environ(), helperEnv+"="+script)
	testdb.DieWithTest(sledge)
	if err := sledge.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { _ = sledge.Wait(); close(done) }()
	t.Cleanup(func() { _ = sledge.Process.Kill(); <-done })

	deadline := time.Now().Add(time.Minute)
	if d, ok := t.Deadline(); ok && d.Add(-10*time.Second).Before(deadline) {
		deadline = d.Add(-10 * time.Second)
	}
	var tclsh int
	for tclsh == 0 {
		if b, err := os.ReadFile(pidFile); err == nil {
			tclsh, _ = strconv.Atoi(strings.TrimSpace(string(b)))
		}
		select {
		case <-done:
			t.Fatal("the helper ended before its tclsh wrote its pid")
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatal("tclsh never wrote its pid")
		}
	}
	t.Cleanup(func() { _ = syscall.Kill(tclsh, syscall.SIGKILL) })
	if !alive(tclsh) {
		t.Fatalf("tclsh (pid %d) is not running", tclsh)
	}
	if err := sledge.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-done
	for alive(tclsh) {
		if time.Now().After(deadline) {
			t.Fatalf("tclsh (pid %d) outlived the sledge process that started it", tclsh)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// alive says whether process pid exists and is no zombie (a killed child
// whose new parent has not reaped it yet).
func alive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	// pid (comm) STATE …: comm may hold spaces and parentheses.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || s[i+2] != 'Z'
}
