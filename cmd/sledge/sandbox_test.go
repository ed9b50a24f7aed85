package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sledge-bench/sledge/internal/sandbox"
)

// runSandboxCLI runs `sledge sandbox postgres ARGS` in-process and returns its
// stdout and stderr.
func runSandboxCLI(t *testing.T, args ...string) (string, string, error) {
	t.Helper()
	root := newRootCmd()
	var out, errOut bytes.Buffer
	root.SetOut(&out)
	root.SetErr(&errOut)
	root.SetArgs(append([]string{"sandbox", "postgres"}, args...))
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	err := root.ExecuteContext(ctx)
	return out.String(), errOut.String(), err
}

func TestSandboxPostgresCommand(t *testing.T) {
	if _, err := sandbox.FindBinaries(); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("CI is set but PostgreSQL is missing: %v", err)
		}
		t.Skip(err)
	}
	// Not t.TempDir: it is mode 0700, closed to the postgres user that runs
	// the server when tests run as root.
	dir, err := os.MkdirTemp("", "sledge-cli-sandbox-")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if p, err := sandbox.Open(dir); err == nil {
			p.Stop(context.Background())
		}
		os.RemoveAll(dir)
	})

	status := func() (string, error) {
		out, _, err := runSandboxCLI(t, "--dir", dir, "--status")
		return out, err
	}
	if _, err := status(); !isExit(err, 3) {
		t.Fatalf("--status before any start: %v, want exit status 3", err)
	}

	out, errOut, err := runSandboxCLI(t, "--dir", dir)
	if err != nil {
		t.Fatalf("start: %v\n%s", err, errOut)
	}
	url := strings.TrimSuffix(out, "\n")
	if strings.Contains(url, "\n") || !strings.HasPrefix(url, "postgres://sledge@127.0.0.1:") {
		t.Fatalf("stdout = %q, want just the URL", out)
	}
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatalf("connect to %s: %v", url, err)
	}
	var one int
	if err := conn.QueryRow(ctx, "SELECT 1").Scan(&one); err != nil || one != 1 {
		t.Fatalf("SELECT 1: %d, %v", one, err)
	}
	conn.Close(ctx)

	again, errOut, err := runSandboxCLI(t, "--dir", dir)
	if err != nil || again != out || !strings.Contains(errOut, "already running") {
		t.Errorf("second start: %q, %q, %v; want the same URL, reported as already running", again, errOut, err)
	}
	if got, err := status(); err != nil || got != out {
		t.Errorf("--status while running: %q, %v; want %q", got, err, out)
	}

	if _, errOut, err := runSandboxCLI(t, "--dir", dir, "--stop"); err != nil {
		t.Fatalf("--stop: %v\n%s", err, errOut)
	}
	if _, err := status(); !isExit(err, 3) {
		t.Errorf("--status after --stop: %v, want exit status 3", err)
	}
	if _, _, err := runSandboxCLI(t, "--dir", dir, "--stop"); err != nil {
		t.Errorf("--stop when stopped: %v", err)
	}
	if _, _, err := runSandboxCLI(t, "--dir", dir, "--stop", "--status"); err == nil {
		t.Error("--stop --status: no error")
	}
}

func isExit(err error, code int) bool {
	var e exitError
	return errors.As(err, &e) && e.code == code
}
