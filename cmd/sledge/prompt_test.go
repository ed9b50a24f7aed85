package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/sledge-bench/sledge/internal/testdb"
	"github.com/sledge-bench/sledge/internal/testdb/tpcctest"
)

// The sledge> prompt on a real terminal: a pseudo-terminal drives
// `sledge cli` with keystrokes as a user types them.

// openPTY opens a pseudo-terminal pair (Linux /dev/ptmx).
func openPTY(t *testing.T) (master, slave *os.File) {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals here: %v", err)
	}
	if err := unix.IoctlSetPointerInt(int(m.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		t.Fatalf("unlock pty: %v", err)
	}
	n, err := unix.IoctlGetInt(int(m.Fd()), unix.TIOCGPTN)
	if err != nil {
		t.Fatalf("pty number: %v", err)
	}
	s, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatalf("open pty: %v", err)
	}
	if err := unix.IoctlSetWinsize(int(s.Fd()), unix.TIOCSWINSZ, &unix.Winsize{Row: 40, Col: 120}); err != nil {
		t.Fatalf("pty size: %v", err)
	}
	return m, s
}

// ttySession is this test binary as the sledge command on a
// pseudo-terminal.
type ttySession struct {
	t      *testing.T
	master *os.File
	cmd    *exec.Cmd
	mu     sync.Mutex
	out    bytes.Buffer
	done   chan error    // the command's end
	read   chan struct{} // closed once all it wrote has been read
}

// startTTY starts sledge ARGS on a terminal of its own, in e's
// environment; it is killed when the test ends (or the test binary dies).
func (e *testEnv) startTTY(args ...string) *ttySession {
	t := e.t
	t.Helper()
	master, slave := openPTY(t)
	s := &ttySession{t: t, master: master, done: make(chan error, 1), read: make(chan struct{})}
	s.cmd = exec.Command(e.gs.executable, args...)
	s.cmd.Env = append(e.environ(), "TERM=xterm")
	s.cmd.Stdin, s.cmd.Stdout, s.cmd.Stderr = slave, slave, slave
	// A session of its own with the pty as controlling terminal, so that
	// Ctrl-C typed on it signals the foreground processes as in a shell.
	s.cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	testdb.DieWithTest(s.cmd)
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	slave.Close()
	go func() {
		// Until the terminal is closed: EIO once the last process that
		// had it open (the command and its children) has ended.
		defer close(s.read)
		buf := make([]byte, 4096)
		for {
			n, err := master.Read(buf)
			s.mu.Lock()
			s.out.Write(buf[:n])
			s.mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	go func() { s.done <- s.cmd.Wait() }()
	t.Cleanup(func() {
		s.cmd.Process.Kill()
		master.Close()
	})
	return s
}

func (s *ttySession) output() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.out.String()
}

func (s *ttySession) send(keys string) {
	s.t.Helper()
	if _, err := s.master.WriteString(keys); err != nil {
		s.t.Fatalf("type %q: %v", keys, err)
	}
}

// waitFor waits until the output matches re n times (or the test's
// deadline).
func (s *ttySession) waitFor(re string, n int) {
	s.t.Helper()
	rx := regexp.MustCompile(re)
	deadline := testDeadline(s.t)
	for len(rx.FindAllStringIndex(s.output(), -1)) < n {
		if time.Now().After(deadline) {
			s.t.Fatalf("waited until the test's deadline for %d× %q; the terminal shows:\n%q", n, re, s.output())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// line types a line and waits for the next prompt.
func (s *ttySession) line(keys string) {
	s.t.Helper()
	n := strings.Count(s.output(), "sledge> ")
	s.send(keys + "\r")
	s.waitFor(`sledge> `, n+1)
}

// wait waits for the command to end (or the test's deadline) and for what
// it wrote to be read, and returns how it ended.
func (s *ttySession) wait() error {
	s.t.Helper()
	deadline := time.After(time.Until(testDeadline(s.t)))
	var err error
	select {
	case err = <-s.done:
	case <-deadline:
		s.t.Fatalf("sledge %s still ran at the test's deadline:\n%q", strings.Join(s.cmd.Args[1:], " "), s.output())
	}
	select {
	case <-s.read:
	case <-deadline:
		s.t.Fatalf("sledge %s ended, but its terminal stayed open:\n%q", strings.Join(s.cmd.Args[1:], " "), s.output())
	}
	return err
}

func TestPromptLineEditing(t *testing.T) {
	needTclsh(t)
	t.Parallel()
	e := newEnv(t)
	state := t.TempDir()
	e.set("XDG_STATE_HOME", state)
	s := e.startTTY("cli")
	s.waitFor(`sledge> `, 1)

	const left = "\x1b[D"
	const up = "\x1b[A"
	// Cursor movement: "puts wrld", three steps left, insert "o".
	s.line("puts wrld" + left + left + left + "o")
	s.waitFor(`\nworld\r+\n`, 1)
	// History: Up brings the line back.
	s.line(up)
	s.waitFor(`\nworld\r+\n`, 2)
	// Ctrl-A/Ctrl-K and Ctrl-U: editing keys clear what was typed.
	s.line("puts nope\x01\x0bputs \"yes 1\"")
	s.line("garbage\x15puts {yes 2}")
	// Tab completes a command name.
	s.line("numberOfC\t")
	s.waitFor(`numberOfCPUs`, 1)
	s.waitFor(`\n\d+\r+\n`, 1)
	// A command over several lines gets the continuation prompt.
	s.send("proc twice {x} {\r")
	s.waitFor(`\n> `, 1)
	s.line("return [expr {$x * 2}] }")
	s.line("twice 21")
	s.waitFor(`\n42\r+\n`, 1)
	// Ctrl-C drops the line being typed and the prompt comes back.
	n := strings.Count(s.output(), "sledge> ")
	s.send("puts dropped\x03")
	s.waitFor(`sledge> `, n+1)
	s.line("help")
	s.waitFor(`vurun +run the workload; returns "Benchmark Run jobid=ID"`, 1)
	// Ctrl-D on an empty line leaves.
	s.send("\x04")
	if err := s.wait(); err != nil {
		t.Errorf("sledge cli ended with %v\n%q", err, s.output())
	}
	out := s.output()
	for _, want := range []string{"\nyes 1\r", "\nyes 2\r"} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q:\n%q", want, out)
		}
	}
	for _, bad := range []string{"\nnope", "\ngarbage", "\ndropped", "Error:"} {
		if strings.Contains(out, bad) {
			t.Errorf("unexpected %q:\n%q", bad, out)
		}
	}
	// The history outlives the session.
	b, err := os.ReadFile(filepath.Join(state, "sledge", "cli_history"))
	if err != nil || !strings.Contains(string(b), "puts world\n") || !strings.Contains(string(b), "twice 21\n") {
		t.Errorf("history file: %v\n%s", err, b)
	}
}

// Ctrl-C while vurun runs stops the job (stored as interrupted), the Tcl
// command fails with a clear error, and the session carries on.
func TestPromptCtrlCStopsRun(t *testing.T) {
	needTclsh(t)
	t.Parallel()
	e := newEnv(t)
	repo := e.repo()
	dbURL := tpcctest.Postgres(t, tpcctest.Options{})
	s := e.startTTY("cli")
	s.waitFor(`sledge> `, 1)
	s.line("dbset db pg")
	for _, l := range hammerConnection(t, dbURL, "pg_") {
		s.line(l)
	}
	s.line("diset tpcc pg_driver timed")
	s.line("diset tpcc pg_rampup 0")
	s.line("diset tpcc pg_duration 10")
	s.line("vuset vu 2")
	s.line("vucreate")
	s.send("set id [vurun]\r")
	s.waitFor(`measure +TPM`, 1)
	s.send("\x03")
	s.waitFor(`Error: vurun failed \(interrupted\)`, 1)
	s.waitFor(`sledge> `, 1)
	s.line("puts \"still here\"")
	s.waitFor(`\nstill here\r+\n`, 1)
	s.send("quit\r")
	if err := s.wait(); err != nil {
		t.Errorf("quit: %v", err)
	}
	list := e.jobs()
	var statuses []string
	for _, j := range list {
		if j["kind"] == "run" {
			statuses = append(statuses, fmt.Sprint(j["status"]))
		}
	}
	if len(statuses) != 1 || statuses[0] != "interrupted" {
		t.Errorf("run jobs in %s: %v, want one interrupted", repo, statuses)
	}
}
