package main

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	_ "github.com/go-sql-driver/mysql" // registers "mysql" with database/sql
	"github.com/jackc/pgx/v5"

	"github.com/sledge-bench/sledge/internal/sandbox"
	"github.com/sledge-bench/sledge/internal/testdb"
)

// runSandboxCLI runs `sledge sandbox ENGINE ARGS` in-process and returns its
// stdout and stderr.
func runSandboxCLI(t *testing.T, engine string, args ...string) (string, string, error) {
	t.Helper()
	root := newRootCmd(newTestState(t))
	var out, errOut bytes.Buffer
	root.SetOut(&out)
	root.SetErr(&errOut)
	root.SetArgs(append([]string{"sandbox", engine}, args...))
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	err := root.ExecuteContext(ctx)
	return out.String(), errOut.String(), err
}

func TestSandboxPostgresCommand(t *testing.T) {
	t.Parallel()
	if _, err := sandbox.FindBinaries(testdb.PGBin()); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("CI is set but PostgreSQL is missing: %v", err)
		}
		t.Skip(err)
	}
	testSandboxCommand(t, sandbox.PostgresEngine(), "postgres://sledge@127.0.0.1:", func(url string) error {
		ctx := context.Background()
		conn, err := pgx.Connect(ctx, url)
		if err != nil {
			return err
		}
		defer conn.Close(ctx)
		var one int
		return conn.QueryRow(ctx, "SELECT 1").Scan(&one)
	})
}

func TestSandboxMariaDBCommand(t *testing.T) {
	t.Parallel()
	if _, err := sandbox.EnsureMariaDB(t.Context(), testdb.MariaDBBin(), t.Logf); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("CI is set but MariaDB is missing: %v", err)
		}
		t.Skip(err)
	}
	testSandboxCommand(t, sandbox.MariaDBEngine(), "mysql://root@127.0.0.1:", func(rawURL string) error {
		u, err := url.Parse(rawURL)
		if err != nil {
			return err
		}
		db, err := sql.Open("mysql", fmt.Sprintf("%s@tcp(%s)%s", u.User.Username(), u.Host, u.Path))
		if err != nil {
			return err
		}
		defer db.Close()
		var version string
		if err := db.QueryRow("SELECT VERSION()").Scan(&version); err != nil {
			return err
		}
		if !strings.Contains(version, "MariaDB") {
			return fmt.Errorf("VERSION() = %q, want a MariaDB server", version)
		}
		return nil
	})
}

// testSandboxCommand starts, queries, reports on and stops a sandbox of
// engine e through the CLI. The URL printed must start with urlPrefix, and
// query must succeed on it.
func testSandboxCommand(t *testing.T, e sandbox.Engine, urlPrefix string, query func(url string) error) {
	// Not t.TempDir: it is mode 0700, closed to the postgres or mysql user
	// that runs the server when tests run as root.
	dir, err := os.MkdirTemp("", "sledge-cli-sandbox-")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if s, err := e.Open(dir); err == nil {
			s.Stop(context.Background())
		}
		os.RemoveAll(dir)
	})

	status := func() (string, error) {
		out, _, err := runSandboxCLI(t, e.Name, "--dir", dir, "--status")
		return out, err
	}
	if _, err := status(); !isExit(err, 3) {
		t.Fatalf("--status before any start: %v, want exit status 3", err)
	}

	out, errOut, err := runSandboxCLI(t, e.Name, "--dir", dir)
	if err != nil {
		t.Fatalf("start: %v\n%s", err, errOut)
	}
	// Should the test binary die before its cleanup, a watchdog stops the
	// server all the same.
	if s, err := e.Open(dir); err == nil {
		if w, ok := s.(interface {
			StopOnExit(bool) (func() error, error)
		}); ok {
			if stopNow, err := w.StopOnExit(false); err == nil {
				t.Cleanup(func() { _ = stopNow() })
			}
		}
	}
	url := strings.TrimSuffix(out, "\n")
	if strings.Contains(url, "\n") || !strings.HasPrefix(url, urlPrefix) {
		t.Fatalf("stdout = %q, want just the URL, %s…", out, urlPrefix)
	}
	if !strings.Contains(errOut, "sledge sandbox "+e.Name+" --stop --dir "+dir) {
		t.Errorf("stderr = %q, want the command that stops the sandbox", errOut)
	}
	if err := query(url); err != nil {
		t.Fatalf("query %s: %v", url, err)
	}

	again, errOut, err := runSandboxCLI(t, e.Name, "--dir", dir)
	if err != nil || again != out || !strings.Contains(errOut, "already running") {
		t.Errorf("second start: %q, %q, %v; want the same URL, reported as already running", again, errOut, err)
	}
	if got, err := status(); err != nil || got != out {
		t.Errorf("--status while running: %q, %v; want %q", got, err, out)
	}

	if _, errOut, err := runSandboxCLI(t, e.Name, "--dir", dir, "--stop"); err != nil {
		t.Fatalf("--stop: %v\n%s", err, errOut)
	}
	if _, err := status(); !isExit(err, 3) {
		t.Errorf("--status after --stop: %v, want exit status 3", err)
	}
	if _, _, err := runSandboxCLI(t, e.Name, "--dir", dir, "--stop"); err != nil {
		t.Errorf("--stop when stopped: %v", err)
	}
	if _, _, err := runSandboxCLI(t, e.Name, "--dir", dir, "--stop", "--status"); err == nil {
		t.Error("--stop --status: no error")
	}
}

func isExit(err error, code int) bool {
	var e exitError
	return errors.As(err, &e) && e.code == code
}

func TestSandboxVersionRefused(t *testing.T) {
	t.Parallel()
	tests := []struct {
		engine, version, want string
	}{
		{"postgres", "14", "the fetchable versions are 16, 17, 18"},
		{"postgres", "seventeen", `PostgreSQL version "seventeen": want a major version (16, 17, 18)`},
		{"mariadb", "10.6", "MariaDB 10.6 cannot be fetched: the fetchable versions are 11.4"},
	}
	for _, tt := range tests {
		t.Run(tt.engine+"-"+tt.version, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			_, errOut, err := runSandboxCLI(t, tt.engine, "--version", tt.version, "--dir", dir)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("--version %s: %v, want an error saying %q\n%s", tt.version, err, tt.want, errOut)
			}
			if entries, _ := os.ReadDir(dir); len(entries) != 0 {
				t.Errorf("a refused version left %d entries in the sandbox directory", len(entries))
			}
		})
	}
}

func TestOwnExitCode(t *testing.T) {
	t.Parallel()
	child := exec.Command("sh", "-c", "exit 7").Run() // an *exec.ExitError, code 7
	tests := []struct {
		name     string
		err      error
		code     int
		silently bool
	}{
		{"a command's own status", exitError{code: 3}, 3, true},
		{"wrapped", fmt.Errorf("status: %w", exitError{code: 3}), 3, true},
		{"a failed child process, wrapped", fmt.Errorf("pip download: %w", child), 0, false},
		{"any other error", errors.New("no"), 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			code, ok := ownExitCode(tt.err)
			if code != tt.code || ok != tt.silently {
				t.Fatalf("ownExitCode(%v) = %d, %v; want %d, %v", tt.err, code, ok, tt.code, tt.silently)
			}
		})
	}
}

// TestSandboxRootDirectorySaysWhy: root's default sandbox is not in the
// data directory, and Sledge says where it is and why before it starts one
// (here one that cannot start: its binaries are missing, so nothing is
// left behind).
func TestSandboxRootDirectorySaysWhy(t *testing.T) {
	t.Parallel()
	if os.Geteuid() != 0 {
		t.Skip("root's default sandbox directory is created under /var/lib")
	}
	e := newEnv(t).set("SLEDGE_PG_BIN", filepath.Join(t.TempDir(), "none"))
	delete(e.gs.env, "SLEDGE_HOME")
	e.gs.root = true
	gs := e.state()
	_, err := runSledge(t.Context(), gs, "sandbox", "postgres")
	want := "sledge: as root, the sandbox is in /var/lib/sledge/sandbox/postgres: its server runs as a system user (postgres), which cannot enter root's private home; set $SLEDGE_HOME or --dir to choose another place"
	if err == nil || !strings.Contains(testStderr(gs), want) {
		t.Errorf("error %v, stderr:\n%s", err, testStderr(gs))
	}
	// With $SLEDGE_HOME the data directory is the user's choice: no word.
	e.set("SLEDGE_HOME", t.TempDir())
	gs = e.state()
	if _, err := runSledge(t.Context(), gs, "sandbox", "postgres"); err == nil || strings.Contains(testStderr(gs), "as root") {
		t.Errorf("with $SLEDGE_HOME: error %v, stderr:\n%s", err, testStderr(gs))
	}
}
