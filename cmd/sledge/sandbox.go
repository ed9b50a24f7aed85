package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/sledge-bench/sledge/internal/config"
	"github.com/sledge-bench/sledge/internal/sandbox"
)

// sandboxExitNotRunning is the exit status of --status for a sandbox that is not
// running (pg_ctl status uses the same).
const sandboxExitNotRunning = 3

func newSandboxCmd(g *globals) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "sandbox",
		Short: "Run a private, throw-away database server to benchmark against",
		Long: `Run a private database server on this machine, started from locally
installed binaries, listening on 127.0.0.1 only and tuned for speed rather
than durability. Use it to try Sledge without setting up a server, or to get a
scratch database for tests.`,
		Args: cobra.NoArgs,
	}
	cmd.AddCommand(newSandboxPostgresCmd())
	return cmd
}

type sandboxFlags struct {
	dir    string
	port   int
	stop   bool
	status bool
}

func newSandboxPostgresCmd() *cobra.Command {
	f := &sandboxFlags{}
	cmd := &cobra.Command{
		Use:   "postgres",
		Short: "Start a PostgreSQL sandbox (or stop it, or report on it) and print its URL",
		Long: `Start a private PostgreSQL server and print its URL, and only its URL, on
stdout, so that

  export SLEDGE_DB=$(sledge sandbox postgres)

points the other commands at it. Messages go to stderr. If the sandbox is
already running, its URL is printed and nothing else happens.

The binaries come from $SLEDGE_PG_BIN, else from the directory of pg_ctl on
PATH, else from the newest /usr/lib/postgresql/*/bin. The first start creates
a cluster in --dir, with a superuser "sledge" and a database "sledge"; later
starts reuse it, on the same port when it is free. The server log is
postgres.log in --dir.

The server listens on 127.0.0.1 only, trusts every local connection, and runs
with fsync, full_page_writes and synchronous_commit off: it is fast and
disposable, never a place for data worth keeping. When Sledge runs as root,
the server runs as the postgres system user (PostgreSQL refuses to run as
root), which must be able to enter --dir and all its parents.

--status prints the URL if the sandbox runs, and exits with status 3 if not.`,
		Example: `  sledge sandbox postgres              # prints postgres://sledge@127.0.0.1:PORT/sledge?sslmode=disable
  DB=$(sledge sandbox postgres) && sledge build --db "$DB" --warehouses 4
  sledge sandbox postgres --status
  sledge sandbox postgres --stop
  sledge sandbox postgres --dir /var/tmp/pg --port 54321`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runSandboxPostgres(cmd.Context(), cmd.OutOrStdout(), cmd.ErrOrStderr(), f)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.dir, "dir", "", "sandbox directory, holding the cluster, its log and its state (default <data dir>/sandbox/postgres; for root without $SLEDGE_HOME, /var/lib/sledge/sandbox/postgres)")
	fl.IntVar(&f.port, "port", 0, "TCP port on 127.0.0.1 (default: the sandbox's previous port if free, else any free port)")
	fl.BoolVar(&f.stop, "stop", false, "stop the sandbox's server (fast shutdown: sessions are disconnected); the cluster is kept")
	fl.BoolVar(&f.status, "status", false, "report whether the sandbox runs; print its URL if it does, else exit with status 3")
	cmd.MarkFlagsMutuallyExclusive("stop", "status")
	cmd.MarkFlagsMutuallyExclusive("stop", "port")
	cmd.MarkFlagsMutuallyExclusive("status", "port")
	return cmd
}

func runSandboxPostgres(ctx context.Context, stdout, stderr io.Writer, f *sandboxFlags) error {
	dir := f.dir
	if dir == "" {
		d, err := defaultSandboxDir()
		if err != nil {
			return err
		}
		dir = d
	}
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}

	if f.stop || f.status {
		p, err := sandbox.Open(dir)
		if errors.Is(err, sandbox.ErrNoSandbox) {
			fmt.Fprintf(stderr, "sledge: no PostgreSQL sandbox in %s\n", dir)
			return sandboxNotRunning(f)
		}
		if err != nil {
			return err
		}
		st := p.Status()
		switch {
		case !st.Running:
			fmt.Fprintf(stderr, "sledge: the PostgreSQL sandbox in %s is not running\n", dir)
			return sandboxNotRunning(f)
		case f.status:
			fmt.Fprintf(stderr, "sledge: the PostgreSQL sandbox in %s is running (pid %d, port %d, log %s)\n", dir, st.PID, st.Port, st.LogFile)
			fmt.Fprintln(stdout, p.URL(sandbox.Database))
			return nil
		}
		if err := p.Stop(ctx); err != nil {
			return err
		}
		fmt.Fprintf(stderr, "sledge: stopped the PostgreSQL sandbox in %s\n", dir)
		return nil
	}

	wasRunning := false
	if p, err := sandbox.Open(dir); err == nil {
		wasRunning = p.Running()
	}
	if !wasRunning {
		fmt.Fprintf(stderr, "sledge: starting the PostgreSQL sandbox in %s\n", dir)
	}
	p, err := sandbox.StartPostgres(ctx, dir, sandbox.Options{Port: f.port})
	if errors.Is(err, sandbox.ErrUnreachable) && f.dir == "" {
		// Typically root, whose home directory is private: say which knob to turn.
		return fmt.Errorf("%w\n(choose the sandbox directory with --dir, e.g. --dir %s)", err, filepath.Join(os.TempDir(), "sledge-postgres"))
	}
	if err != nil {
		return err
	}
	if wasRunning {
		fmt.Fprintf(stderr, "sledge: the PostgreSQL sandbox in %s is already running (port %d)\n", dir, p.Port())
	} else {
		fmt.Fprintf(stderr, "sledge: started; stop it with: sledge sandbox postgres --stop%s\n", sandboxDirFlag(f.dir, dir))
	}
	fmt.Fprintln(stdout, p.URL(sandbox.Database))
	return nil
}

// sandboxNotRunning is the outcome of --stop (success: nothing to do) or --status
// (exit status 3) for a sandbox that is not running.
func sandboxNotRunning(f *sandboxFlags) error {
	if f.status {
		return exitError{code: sandboxExitNotRunning}
	}
	return nil
}

// sandboxDirFlag repeats --dir in a suggested command line, when one was given.
func sandboxDirFlag(flag, abs string) string {
	if flag == "" {
		return ""
	}
	return " --dir " + sandboxShellQuote(abs)
}

// sandboxShellQuote quotes s for a POSIX shell if it needs it.
func sandboxShellQuote(s string) string {
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '/' || r == '.' || r == '-' || r == '_') {
			return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
		}
	}
	return s
}

// rootSandboxDir is the default sandbox for root: the server cannot run as
// root and cannot enter root's private home, so root's sandbox lives where
// system services keep their state.
const rootSandboxDir = "/var/lib/sledge/sandbox/postgres"

// defaultSandboxDir is <data dir>/sandbox/postgres, or rootSandboxDir for
// root unless SLEDGE_HOME chooses a data directory explicitly.
func defaultSandboxDir() (string, error) {
	if os.Geteuid() == 0 && os.Getenv("SLEDGE_HOME") == "" {
		if err := os.MkdirAll(filepath.Dir(rootSandboxDir), 0o755); err != nil {
			return "", fmt.Errorf("create %s: %w", filepath.Dir(rootSandboxDir), err)
		}
		return rootSandboxDir, nil
	}
	d, err := config.DataDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(d, "sandbox", "postgres"), nil
}
