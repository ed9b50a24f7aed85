//go:build unix

package sandbox

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// needBinaries skips the test where PostgreSQL is not installed, except in CI
// where a missing server must not silently turn integration tests green.
func needBinaries(t *testing.T) {
	t.Helper()
	if _, err := FindBinaries(os.Getenv("SLEDGE_PG_BIN")); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("CI is set but PostgreSQL is missing: %v", err)
		}
		t.Skip(err)
	}
}

// sandboxDir returns a fresh directory the server user can reach (t.TempDir
// is mode 0700, closed to the postgres user when tests run as root), and
// stops whatever server runs there at the end of the test.
func sandboxDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "sledge-sandbox-test-")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if p, err := Open(dir); err == nil {
			if err := p.Stop(context.Background()); err != nil {
				t.Errorf("cleanup: %v", err)
			}
		}
		os.RemoveAll(dir)
	})
	return dir
}

func mustStart(t *testing.T, dir string, opts Options) *Postgres {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	p, err := StartPostgres(ctx, dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func selectOne(t *testing.T, url string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatalf("connect to %s: %v", url, err)
	}
	defer conn.Close(ctx)
	var one int
	if err := conn.QueryRow(ctx, "SELECT 1").Scan(&one); err != nil || one != 1 {
		t.Fatalf("SELECT 1 on %s: %d, %v", url, one, err)
	}
}

func TestStartStopRestart(t *testing.T) {
	t.Parallel()
	needBinaries(t)
	dir := sandboxDir(t)
	ctx := context.Background()

	p := mustStart(t, dir, Options{})
	if !p.Running() {
		t.Fatal("not running after start")
	}
	want := fmt.Sprintf("postgres://sledge@127.0.0.1:%d/sledge?sslmode=disable", p.Port())
	if got := p.URL(Database); got != want {
		t.Errorf("URL = %s, want %s", got, want)
	}
	selectOne(t, p.URL(Database))

	// The settings that make a sandbox fast, and safe to run, are in effect.
	conn, err := pgx.Connect(ctx, p.URL(Database))
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{
		"listen_addresses": "127.0.0.1", "fsync": "off", "synchronous_commit": "off",
		"full_page_writes": "off", "max_connections": "200", "server_encoding": "UTF8",
		"port": strconv.Itoa(p.Port()),
	} {
		var got string
		if err := conn.QueryRow(ctx, "SELECT current_setting($1)", name).Scan(&got); err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Errorf("%s = %q, want %q", name, got, want)
		}
	}
	conn.Close(ctx)

	// A second start finds the running server.
	again := mustStart(t, dir, Options{})
	if again.Port() != p.Port() {
		t.Errorf("second start: port %d, want the running server's %d", again.Port(), p.Port())
	}
	if _, err := StartPostgres(ctx, dir, Options{Port: p.Port() + 1}); err == nil {
		t.Error("start with another port while running: no error")
	}

	// Open finds it from the state file.
	o, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	st := o.Status()
	if !st.Running || st.Port != p.Port() || st.PID <= 0 || st.DataDir != filepath.Join(dir, "data") {
		t.Errorf("Status = %+v", st)
	}

	if err := o.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	if p.Running() || p.Status().Running {
		t.Fatal("running after stop")
	}
	if err := p.Stop(ctx); err != nil {
		t.Errorf("second stop: %v", err)
	}

	// Restarting the same directory keeps the cluster, and the port.
	r := mustStart(t, dir, Options{})
	if r.Port() != p.Port() {
		t.Errorf("restart: port %d, want the previous %d", r.Port(), p.Port())
	}
	selectOne(t, r.URL(Database))
	if err := r.Stop(ctx); err != nil {
		t.Fatal(err)
	}
}

func TestExplicitPortAndSettings(t *testing.T) {
	t.Parallel()
	needBinaries(t)
	port, err := freePort(0)
	if err != nil {
		t.Fatal(err)
	}
	p := mustStart(t, sandboxDir(t), Options{Port: port, Settings: map[string]string{"work_mem": "8MB"}})
	if p.Port() != port {
		t.Fatalf("port %d, want %d", p.Port(), port)
	}
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, p.URL(Database))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var workMem string
	if err := conn.QueryRow(ctx, "SHOW work_mem").Scan(&workMem); err != nil || workMem != "8MB" {
		t.Errorf("work_mem = %q, %v; want 8MB", workMem, err)
	}
}

func TestCreateDropDatabase(t *testing.T) {
	t.Parallel()
	needBinaries(t)
	p := mustStart(t, sandboxDir(t), Options{})
	ctx := context.Background()
	const name = "Mixed Case-db"
	for range 2 { // the second call finds it
		if err := p.CreateDatabase(ctx, name); err != nil {
			t.Fatal(err)
		}
	}
	selectOne(t, p.URL(name))

	// An open session does not prevent the drop.
	conn, err := pgx.Connect(ctx, p.URL(name))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if err := p.DropDatabase(ctx, name); err != nil {
		t.Fatal(err)
	}
	if err := p.DropDatabase(ctx, name); err != nil {
		t.Errorf("dropping a missing database: %v", err)
	}
	if c, err := pgx.Connect(ctx, p.URL(name)); err == nil {
		c.Close(ctx)
		t.Error("connected to a dropped database")
	}
}

// A postmaster.pid naming a PID that now belongs to another program (here:
// this test) must not wedge the next start.
func TestStalePIDFile(t *testing.T) {
	t.Parallel()
	needBinaries(t)
	dir := sandboxDir(t)
	p := mustStart(t, dir, Options{})
	ctx := context.Background()
	if err := p.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	stale := fmt.Sprintf("%d\n%s\n1700000000\n%d\n%s\n127.0.0.1\n  1234567     12345\nready   \n", os.Getpid(), p.DataDir(), p.Port(), dir)
	if err := os.WriteFile(filepath.Join(p.DataDir(), "postmaster.pid"), []byte(stale), 0o600); err != nil {
		t.Fatal(err)
	}
	if p.Running() {
		t.Fatal("a postmaster.pid naming this test counts as a running server")
	}
	selectOne(t, mustStart(t, dir, Options{}).URL(Database))
}

// A server killed without shutting down (a crash, an OOM kill) leaves its
// postmaster.pid behind; the next start recovers.
func TestRestartAfterCrash(t *testing.T) {
	t.Parallel()
	needBinaries(t)
	dir := sandboxDir(t)
	p := mustStart(t, dir, Options{})
	pid := p.Status().PID
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for p.Running() {
		if time.Now().After(deadline) {
			t.Fatal("postmaster still alive 10 s after SIGKILL")
		}
		time.Sleep(20 * time.Millisecond)
	}
	selectOne(t, mustStart(t, dir, Options{}).URL(Database))
}

func TestOpenWithoutSandbox(t *testing.T) {
	t.Parallel()
	_, err := Open(t.TempDir())
	if !errors.Is(err, ErrNoSandbox) {
		t.Fatalf("Open(empty dir) = %v, want ErrNoSandbox", err)
	}
}

func TestUnreachableDirAsRoot(t *testing.T) {
	t.Parallel()
	if os.Geteuid() != 0 {
		t.Skip("only root runs the server as another user")
	}
	needBinaries(t)
	closed := t.TempDir() // mode 0700, owned by root
	dir := filepath.Join(closed, "pg")
	_, err := StartPostgres(context.Background(), dir, Options{})
	if !errors.Is(err, ErrUnreachable) || !strings.Contains(err.Error(), "cannot enter") {
		t.Fatalf("err = %v, want one saying the server user cannot enter a parent directory", err)
	}
	if _, err := os.Stat(dir); err == nil {
		t.Errorf("%s created although refused", dir)
	}
}

// TestFindBinariesHonoursChoice: a chosen directory ($SLEDGE_PG_BIN) is
// never second-guessed by the search.
func TestFindBinariesHonoursChoice(t *testing.T) {
	t.Parallel()
	if _, err := FindBinaries(t.TempDir()); !errors.Is(err, ErrNotInstalled) {
		t.Fatalf("FindBinaries of an empty chosen directory = %v, want ErrNotInstalled", err)
	}
}

func TestCompareVersions(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		a, b string
		sign int
	}{
		{"15", "9.6", 1}, {"9.6", "10", -1}, {"16", "16", 0}, {"9.5", "9.6", -1}, {"devel", "9", -1},
	} {
		got := compareVersions(c.a, c.b)
		if (got > 0) != (c.sign > 0) || (got < 0) != (c.sign < 0) {
			t.Errorf("compareVersions(%q, %q) = %d, want sign %d", c.a, c.b, got, c.sign)
		}
	}
}

// TestStopOnExit runs a child process that starts a sandbox with a watchdog
// and is then killed: the watchdog must stop the server and remove the
// directory.
func TestStopOnExit(t *testing.T) {
	t.Parallel()
	if dir := os.Getenv("SLEDGE_SANDBOX_WATCHDOG_CHILD"); dir != "" {
		p, err := StartPostgres(context.Background(), dir, Options{})
		if err != nil {
			fmt.Println("error:", err)
			os.Exit(1)
		}
		if _, err := p.StopOnExit(true); err != nil {
			fmt.Println("error:", err)
			os.Exit(1)
		}
		fmt.Println("started", p.Status().PID)
		time.Sleep(time.Minute) // until killed
		os.Exit(1)
	}
	needBinaries(t)
	dir := sandboxDir(t)
	cmd := exec.Command(os.Args[0], "-test.run=^TestStopOnExit$")
	cmd.Env = append(os.Environ(), "SLEDGE_SANDBOX_WATCHDOG_CHILD="+dir)
	dieWithTest(cmd) // the child sleeps a minute, unless killed
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, _ := bufio.NewReader(out).ReadString('\n')
	pid, err := strconv.Atoi(strings.TrimSpace(strings.TrimPrefix(line, "started ")))
	if err != nil {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("child: %q", line)
	}
	cmd.Process.Kill()
	cmd.Wait()

	deadline := time.Now().Add(30 * time.Second)
	for liveProcess(pid) || dirExists(dir) {
		if time.Now().After(deadline) {
			t.Fatalf("30 s after the child died: server alive %v, directory present %v", liveProcess(pid), dirExists(dir))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func dirExists(dir string) bool {
	_, err := os.Stat(dir)
	return err == nil
}

// liveProcess reports whether pid runs (exists and is not a zombie waiting
// for a parent to reap it).
func liveProcess(pid int) bool { return processExists(pid) && !isZombie(pid) }
