//go:build unix

package sandbox

import (
	"bufio"
	"context"
	"database/sql"
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

	"github.com/go-sql-driver/mysql"
)

// needMariaDB installs MariaDB where it may (root, apt-get) and skips the
// test where it is still not installed, except in CI
// where a missing server must not silently turn integration tests green.
func needMariaDB(t *testing.T) {
	t.Helper()
	if _, err := EnsureMariaDB(t.Context(), os.Getenv("SLEDGE_MARIADB_BIN"), t.Logf); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("CI is set but MariaDB is missing: %v", err)
		}
		t.Skip(err)
	}
}

// mariaDBDir returns a fresh directory the server user can reach (t.TempDir
// is mode 0700, closed to the mysql user when tests run as root), and stops
// whatever server runs there at the end of the test.
func mariaDBDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "sledge-mariadb-test-")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if m, err := OpenMariaDB(dir); err == nil {
			if err := m.Stop(context.Background()); err != nil {
				t.Errorf("cleanup: %v", err)
			}
		}
		os.RemoveAll(dir)
	})
	return dir
}

func mustStartMariaDB(t *testing.T, dir string, opts Options) *MariaDB {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	m, err := StartMariaDB(ctx, dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// openMariaDB connects to database dbname of m, as the URL says: root,
// without a password, over TCP.
func openMariaDB(t *testing.T, m *MariaDB, dbname string) *sql.DB {
	t.Helper()
	cfg := mysql.NewConfig()
	cfg.User, cfg.Net, cfg.Addr, cfg.DBName = "root", "tcp", fmt.Sprintf("127.0.0.1:%d", m.Port()), dbname
	cfg.Timeout = 10 * time.Second
	connector, err := mysql.NewConnector(cfg)
	if err != nil {
		t.Fatal(err)
	}
	db := sql.OpenDB(connector)
	t.Cleanup(func() { db.Close() })
	return db
}

func selectOneMariaDB(t *testing.T, m *MariaDB, dbname string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var one int
	if err := openMariaDB(t, m, dbname).QueryRowContext(ctx, "SELECT 1").Scan(&one); err != nil || one != 1 {
		t.Fatalf("SELECT 1 on %s: %d, %v", m.URL(dbname), one, err)
	}
}

func TestMariaDBStartStopRestart(t *testing.T) {
	t.Parallel()
	needMariaDB(t)
	dir := mariaDBDir(t)
	ctx := context.Background()

	m := mustStartMariaDB(t, dir, Options{})
	if !m.Running() {
		t.Fatal("not running after start")
	}
	want := fmt.Sprintf("mysql://root@127.0.0.1:%d/sledge", m.Port())
	if got := m.URL(Database); got != want {
		t.Errorf("URL = %s, want %s", got, want)
	}
	if got, want := m.URL("a b"), fmt.Sprintf("mysql://root@127.0.0.1:%d/a%%20b", m.Port()); got != want {
		t.Errorf("URL(%q) = %s, want %s", "a b", got, want)
	}
	selectOneMariaDB(t, m, Database)

	// The settings that make a sandbox fast, usable by the loader, and safe
	// to run are in effect.
	db := openMariaDB(t, m, Database)
	for name, want := range map[string]string{
		"bind_address": "127.0.0.1", "port": strconv.Itoa(m.Port()), "skip_name_resolve": "1",
		"innodb_flush_log_at_trx_commit": "0", "innodb_doublewrite": "0", "log_bin": "0", "sync_binlog": "0",
		"innodb_buffer_pool_size": strconv.Itoa(256 << 20), "innodb_log_file_size": strconv.Itoa(256 << 20),
		"max_connections": "500", "local_infile": "1", "character_set_server": "utf8mb4",
		"datadir": m.DataDir() + "/", "log_error": m.LogFile(), "pid_file": filepath.Join(dir, "mariadb.pid"),
		"socket": filepath.Join(dir, "mariadb.sock"), "have_ssl": "DISABLED",
	} {
		var got string
		if err := db.QueryRowContext(ctx, "SELECT @@GLOBAL."+name).Scan(&got); err != nil {
			t.Fatalf("@@%s: %v", name, err)
		}
		if got != want {
			t.Errorf("%s = %q, want %q", name, got, want)
		}
	}
	if os.Geteuid() == 0 {
		// Not root: the server runs as the mysql system user where there is one.
		want := "root"
		if _, err := lookupUser("mysql"); err == nil {
			want = "mysql"
		}
		if got := processUser(t, m.Status().PID); got != want {
			t.Errorf("the server runs as %s, want %s", got, want)
		}
	}

	// A second start finds the running server.
	again := mustStartMariaDB(t, dir, Options{})
	if again.Port() != m.Port() {
		t.Errorf("second start: port %d, want the running server's %d", again.Port(), m.Port())
	}
	if _, err := StartMariaDB(ctx, dir, Options{Port: m.Port() + 1}); err == nil {
		t.Error("start with another port while running: no error")
	}

	// OpenMariaDB finds it from the state file.
	o, err := OpenMariaDB(dir)
	if err != nil {
		t.Fatal(err)
	}
	st := o.Status()
	if !st.Running || st.Port != m.Port() || st.PID <= 0 || st.DataDir != filepath.Join(dir, "data") ||
		st.LogFile != filepath.Join(dir, "mariadb.log") || st.Dir != dir || o.Port() != m.Port() || o.Dir() != dir {
		t.Errorf("Status = %+v", st)
	}

	if err := o.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	if m.Running() || m.Status().Running {
		t.Fatal("running after stop")
	}
	if err := m.Stop(ctx); err != nil {
		t.Errorf("second stop: %v", err)
	}

	// Restarting the same directory keeps the data, and the port.
	r := mustStartMariaDB(t, dir, Options{})
	if r.Port() != m.Port() {
		t.Errorf("restart: port %d, want the previous %d", r.Port(), m.Port())
	}
	selectOneMariaDB(t, r, Database)
	if err := r.Stop(ctx); err != nil {
		t.Fatal(err)
	}
}

// processUser returns the name of the user running pid.
func processUser(t *testing.T, pid int) string {
	t.Helper()
	out, err := exec.Command("ps", "-o", "user=", "-p", strconv.Itoa(pid)).Output()
	if err != nil {
		t.Fatalf("ps: %v", err)
	}
	return strings.TrimSpace(string(out))
}

func TestMariaDBExplicitPortAndSettings(t *testing.T) {
	t.Parallel()
	needMariaDB(t)
	port, err := freePort(0)
	if err != nil {
		t.Fatal(err)
	}
	m := mustStartMariaDB(t, mariaDBDir(t), Options{Port: port, Settings: map[string]string{"innodb-buffer-pool-size": "64M"}})
	if m.Port() != port {
		t.Fatalf("port %d, want %d", m.Port(), port)
	}
	var size int64
	if err := openMariaDB(t, m, Database).QueryRow("SELECT @@innodb_buffer_pool_size").Scan(&size); err != nil || size != 64<<20 {
		t.Errorf("innodb_buffer_pool_size = %d, %v; want 64M", size, err)
	}
}

// A sandbox directory too long for a Unix socket address gets its socket in
// the temporary directory.
func TestMariaDBLongDir(t *testing.T) {
	t.Parallel()
	needMariaDB(t)
	dir := filepath.Join(mariaDBDir(t), strings.Repeat("x", 60), strings.Repeat("y", 60))
	m := mustStartMariaDB(t, dir, Options{})
	t.Cleanup(func() { m.Stop(context.Background()) })
	sock := m.socketPath()
	if filepath.Dir(sock) == dir || len(sock) > maxSocketPath {
		t.Errorf("socket %s: want a short path outside %s", sock, dir)
	}
	var got string
	if err := openMariaDB(t, m, Database).QueryRow("SELECT @@socket").Scan(&got); err != nil || got != sock {
		t.Errorf("@@socket = %q, %v; want %s", got, err, sock)
	}
}

func TestMariaDBCreateDropDatabase(t *testing.T) {
	t.Parallel()
	needMariaDB(t)
	m := mustStartMariaDB(t, mariaDBDir(t), Options{})
	ctx := context.Background()
	const name = "Mixed Case-db"
	for range 2 { // the second call finds it
		if err := m.CreateDatabase(ctx, name); err != nil {
			t.Fatal(err)
		}
	}
	selectOneMariaDB(t, m, name)

	// An open session, even one in a transaction holding locks in the
	// database, does not prevent the drop.
	db := openMariaDB(t, m, name)
	if _, err := db.ExecContext(ctx, "CREATE TABLE t (x int)"); err != nil {
		t.Fatal(err)
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, "INSERT INTO t VALUES (1)"); err != nil {
		t.Fatal(err)
	}
	dropCtx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if err := m.DropDatabase(dropCtx, name); err != nil {
		t.Fatal(err)
	}
	if err := m.DropDatabase(ctx, name); err != nil {
		t.Errorf("dropping a missing database: %v", err)
	}
	if err := openMariaDB(t, m, name).PingContext(ctx); err == nil {
		t.Error("connected to a dropped database")
	}
}

// A server killed without shutting down (a crash, an OOM kill) leaves its
// pid file behind; the next start recovers.
func TestMariaDBRestartAfterCrash(t *testing.T) {
	t.Parallel()
	needMariaDB(t)
	dir := mariaDBDir(t)
	m := mustStartMariaDB(t, dir, Options{})
	if err := m.CreateDatabase(context.Background(), "kept"); err != nil {
		t.Fatal(err)
	}
	pid := m.Status().PID
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for m.Running() {
		if time.Now().After(deadline) {
			t.Fatal("server still alive 10 s after SIGKILL")
		}
		time.Sleep(20 * time.Millisecond)
	}
	// A state file naming a PID that now belongs to another program (here:
	// this test) does not count as a running server either.
	st, err := m.readState()
	if err != nil {
		t.Fatal(err)
	}
	st.PID = os.Getpid()
	if err := m.writeState(st); err != nil {
		t.Fatal(err)
	}
	if m.Running() {
		t.Fatal("a state file naming this test counts as a running server")
	}
	selectOneMariaDB(t, mustStartMariaDB(t, dir, Options{}), "kept")
}

// A failed start says why, with the server's log.
func TestMariaDBStartFailureShowsLog(t *testing.T) {
	t.Parallel()
	needMariaDB(t)
	_, err := StartMariaDB(context.Background(), mariaDBDir(t), Options{Settings: map[string]string{"no-such-option": "1"}})
	if err == nil {
		t.Fatal("start with an unknown option: no error")
	}
	if !strings.Contains(err.Error(), "server log") || !strings.Contains(err.Error(), "no-such-option") {
		t.Errorf("err = %v; want the server log's complaint about the option", err)
	}
}

func TestOpenMariaDBWithoutSandbox(t *testing.T) {
	t.Parallel()
	_, err := OpenMariaDB(t.TempDir())
	if !errors.Is(err, ErrNoSandbox) || !strings.Contains(err.Error(), "MariaDB") {
		t.Fatalf("OpenMariaDB(empty dir) = %v, want ErrNoSandbox, about MariaDB", err)
	}
}

func TestMariaDBRefusesPostgresDir(t *testing.T) {
	t.Parallel()
	needMariaDB(t)
	dir := mariaDBDir(t)
	if err := os.WriteFile(filepath.Join(dir, stateName), []byte(`{"port":5432}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := StartMariaDB(context.Background(), dir, Options{}); err == nil || !strings.Contains(err.Error(), "PostgreSQL sandbox") {
		t.Fatalf("err = %v, want a refusal of the PostgreSQL sandbox's directory", err)
	}
}

func TestMariaDBUnreachableDirAsRoot(t *testing.T) {
	t.Parallel()
	if os.Geteuid() != 0 {
		t.Skip("only root runs the server as another user")
	}
	needMariaDB(t)
	if _, err := lookupUser("mysql"); err != nil {
		t.Skip("no mysql user: the server runs as root, which reaches everything")
	}
	closed := t.TempDir() // mode 0700, owned by root
	dir := filepath.Join(closed, "a", "mariadb")
	_, err := StartMariaDB(context.Background(), dir, Options{})
	if !errors.Is(err, ErrUnreachable) || !strings.Contains(err.Error(), "cannot enter") || !strings.Contains(err.Error(), closed) {
		t.Fatalf("err = %v, want one saying the server user cannot enter %s", err, closed)
	}
	if _, err := os.Stat(filepath.Join(closed, "a")); err == nil {
		t.Errorf("%s created although refused", filepath.Join(closed, "a"))
	}
}

// TestFindMariaDBHonoursChoice: chosen directories ($SLEDGE_MARIADB_BIN)
// are never second-guessed by the search.
func TestFindMariaDBHonoursChoice(t *testing.T) {
	t.Parallel()
	_, err := FindMariaDB(t.TempDir())
	if !errors.Is(err, ErrNotInstalled) || !strings.Contains(err.Error(), "MariaDB") || strings.Contains(err.Error(), "PostgreSQL") {
		t.Fatalf("FindMariaDB of an empty chosen directory = %v, want ErrNotInstalled, about MariaDB", err)
	}
}

func TestFindProgramPrefersFirstName(t *testing.T) {
	t.Parallel()
	a, b := t.TempDir(), t.TempDir()
	for _, p := range []string{filepath.Join(a, "mysqld"), filepath.Join(b, "mariadbd"), filepath.Join(b, "notexec")} {
		mode := os.FileMode(0o755)
		if filepath.Base(p) == "notexec" {
			mode = 0o644
		}
		if err := os.WriteFile(p, []byte("#!/bin/sh\n"), mode); err != nil {
			t.Fatal(err)
		}
	}
	if got := findProgram([]string{a, b}, "mariadbd", "mysqld"); got != filepath.Join(b, "mariadbd") {
		t.Errorf("findProgram = %q, want mariadbd from the second directory", got)
	}
	if got := findProgram([]string{a, b}, "notexec"); got != "" {
		t.Errorf("findProgram found a file that is not executable: %q", got)
	}
}

// TestMariaDBStopOnExit runs a child process that starts a sandbox with a
// watchdog and is then killed: the watchdog must stop the server and remove
// the directory.
func TestMariaDBStopOnExit(t *testing.T) {
	t.Parallel()
	if dir := os.Getenv("SLEDGE_MARIADB_WATCHDOG_CHILD"); dir != "" {
		m, err := StartMariaDB(context.Background(), dir, Options{})
		if err != nil {
			fmt.Println("error:", err)
			os.Exit(1)
		}
		if _, err := m.StopOnExit(true); err != nil {
			fmt.Println("error:", err)
			os.Exit(1)
		}
		fmt.Println("started", m.Status().PID)
		time.Sleep(time.Minute) // until killed
		os.Exit(1)
	}
	needMariaDB(t)
	dir := mariaDBDir(t)
	cmd := exec.Command(os.Args[0], "-test.run=^TestMariaDBStopOnExit$")
	cmd.Env = append(os.Environ(), "SLEDGE_MARIADB_WATCHDOG_CHILD="+dir)
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

	deadline := time.Now().Add(60 * time.Second)
	for liveProcess(pid) || dirExists(dir) {
		if time.Now().After(deadline) {
			t.Fatalf("60 s after the child died: server alive %v, directory present %v", liveProcess(pid), dirExists(dir))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// The orderly end: Stop, then the watchdog's stopNow, leaves nothing behind.
func TestMariaDBStopNow(t *testing.T) {
	t.Parallel()
	needMariaDB(t)
	dir := mariaDBDir(t)
	m := mustStartMariaDB(t, dir, Options{})
	stopNow, err := m.StopOnExit(true)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.StopOnExit(true); err == nil {
		t.Error("a second watchdog: no error")
	}
	pid := m.Status().PID
	if err := m.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := stopNow(); err != nil {
		t.Fatal(err)
	}
	if liveProcess(pid) || dirExists(dir) {
		t.Errorf("after Stop and stopNow: server alive %v, directory present %v", liveProcess(pid), dirExists(dir))
	}
}
