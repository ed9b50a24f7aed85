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
	cmd.AddCommand(newSandboxEngineCmd(postgresSandbox), newSandboxEngineCmd(mariaDBSandbox))
	// --repo and --server mean nothing to a sandbox: keep them out of its help.
	cmd.SetHelpFunc(func(c *cobra.Command, args []string) {
		for _, name := range []string{"repo", "server"} {
			if f := c.InheritedFlags().Lookup(name); f != nil {
				f.Hidden = true
			}
		}
		c.Root().HelpFunc()(c, args)
	})
	return cmd
}

// sandboxServer is what the sandbox commands use of a sandbox, running or
// not; *sandbox.Postgres and *sandbox.MariaDB are ones.
type sandboxServer interface {
	Port() int
	URL(dbname string) string
	Status() sandbox.Status
	Running() bool
	Stop(ctx context.Context) error
}

// asServer turns a sandbox constructor's results into a sandboxServer,
// keeping a failure's nil pointer from becoming a non-nil interface.
func asServer[S sandboxServer](s S, err error) (sandboxServer, error) {
	if err != nil {
		return nil, err
	}
	return s, nil
}

// sandboxEngine is one kind of sandbox: a `sledge sandbox` subcommand.
type sandboxEngine struct {
	name    string // the subcommand, and the default directory's name
	product string // for messages
	start   func(ctx context.Context, dir string, opts sandbox.Options) (sandboxServer, error)
	open    func(dir string) (sandboxServer, error)

	// Help texts. The --dir flag's default is described by the shared code.
	short, long, example, stopHelp string
}

var postgresSandbox = sandboxEngine{
	name:    "postgres",
	product: "PostgreSQL",
	start: func(ctx context.Context, dir string, opts sandbox.Options) (sandboxServer, error) {
		return asServer(sandbox.StartPostgres(ctx, dir, opts))
	},
	open:  func(dir string) (sandboxServer, error) { return asServer(sandbox.Open(dir)) },
	short: "Start a PostgreSQL sandbox (or stop it, or report on it) and print its URL",
	long: `Start a private PostgreSQL server and print its URL, and only its URL, on
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
	example: `  sledge sandbox postgres              # prints postgres://sledge@127.0.0.1:PORT/sledge?sslmode=disable
  DB=$(sledge sandbox postgres) && sledge build --db "$DB" --warehouses 4
  sledge sandbox postgres --status
  sledge sandbox postgres --stop
  sledge sandbox postgres --dir /var/tmp/pg --port 54321`,
	stopHelp: "stop the sandbox's server (fast shutdown: sessions are disconnected); the cluster is kept",
}

var mariaDBSandbox = sandboxEngine{
	name:    "mariadb",
	product: "MariaDB",
	start: func(ctx context.Context, dir string, opts sandbox.Options) (sandboxServer, error) {
		return asServer(sandbox.StartMariaDB(ctx, dir, opts))
	},
	open:  func(dir string) (sandboxServer, error) { return asServer(sandbox.OpenMariaDB(dir)) },
	short: "Start a MariaDB sandbox (or stop it, or report on it) and print its URL",
	long: `Start a private MariaDB server and print its URL, and only its URL, on
stdout, so that

  export SLEDGE_DB=$(sledge sandbox mariadb)

points the other commands at it. Messages go to stderr. If the sandbox is
already running, its URL is printed and nothing else happens.

The binaries, mariadbd and mariadb-install-db (or their older names mysqld
and mysql_install_db; MariaDB 10.4 or later, not MySQL), come from the
directories listed in $SLEDGE_MARIADB_BIN (separated like PATH), else from
PATH, /usr/sbin and /usr/bin. The first start initializes a data directory in
--dir and creates a database "sledge"; later starts reuse it, on the same port
when it is free. Sledge connects as root, without a password. The server log
is mariadb.log in --dir. No my.cnf is read: the system server's settings do
not apply.

The server listens on 127.0.0.1 only and trades durability for speed: the
redo log is flushed about once a second rather than at each commit, there is
no doublewrite buffer and no binary log. It is fast and disposable, never a
place for data worth keeping. LOAD DATA LOCAL INFILE, which "sledge build"
loads with, is enabled. When Sledge runs as root, the server runs as the mysql
system user (as root only if there is none), which must then be able to enter
--dir and all its parents.

--status prints the URL if the sandbox runs, and exits with status 3 if not.`,
	example: `  sledge sandbox mariadb               # prints mysql://root@127.0.0.1:PORT/sledge
  DB=$(sledge sandbox mariadb) && sledge build --db "$DB" --warehouses 4
  sledge sandbox mariadb --status
  sledge sandbox mariadb --stop
  sledge sandbox mariadb --dir /var/tmp/mariadb --port 33060`,
	stopHelp: "stop the sandbox's server (normal shutdown: sessions are disconnected); the data directory is kept",
}

type sandboxFlags struct {
	dir    string
	port   int
	stop   bool
	status bool
}

func newSandboxEngineCmd(e sandboxEngine) *cobra.Command {
	f := &sandboxFlags{}
	cmd := &cobra.Command{
		Use:     e.name,
		Short:   e.short,
		Long:    e.long,
		Example: e.example,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runSandbox(cmd.Context(), cmd.OutOrStdout(), cmd.ErrOrStderr(), e, f)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.dir, "dir", "", fmt.Sprintf("sandbox directory, holding the server's data, its log and its state (default <data dir>/sandbox/%s; for root without $SLEDGE_HOME, %s)",
		e.name, filepath.Join(rootSandboxBase, e.name)))
	fl.IntVar(&f.port, "port", 0, "TCP port on 127.0.0.1 (default: the sandbox's previous port if free, else any free port)")
	fl.BoolVar(&f.stop, "stop", false, e.stopHelp)
	fl.BoolVar(&f.status, "status", false, "report whether the sandbox runs; print its URL if it does, else exit with status 3")
	cmd.MarkFlagsMutuallyExclusive("stop", "status")
	cmd.MarkFlagsMutuallyExclusive("stop", "port")
	cmd.MarkFlagsMutuallyExclusive("status", "port")
	return cmd
}

func runSandbox(ctx context.Context, stdout, stderr io.Writer, e sandboxEngine, f *sandboxFlags) error {
	dir := f.dir
	if dir == "" {
		d, err := defaultSandboxDir(e.name)
		if err != nil {
			return err
		}
		dir = d
	}
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}

	if f.stop || f.status {
		s, err := e.open(dir)
		if errors.Is(err, sandbox.ErrNoSandbox) {
			fmt.Fprintf(stderr, "sledge: no %s sandbox in %s\n", e.product, dir)
			return sandboxNotRunning(f)
		}
		if err != nil {
			return err
		}
		st := s.Status()
		switch {
		case !st.Running:
			fmt.Fprintf(stderr, "sledge: the %s sandbox in %s is not running\n", e.product, dir)
			return sandboxNotRunning(f)
		case f.status:
			fmt.Fprintf(stderr, "sledge: the %s sandbox in %s is running (pid %d, port %d, log %s)\n", e.product, dir, st.PID, st.Port, st.LogFile)
			fmt.Fprintln(stdout, s.URL(sandbox.Database))
			return nil
		}
		if err := s.Stop(ctx); err != nil {
			return err
		}
		fmt.Fprintf(stderr, "sledge: stopped the %s sandbox in %s\n", e.product, dir)
		return nil
	}

	wasRunning := false
	if s, err := e.open(dir); err == nil {
		wasRunning = s.Running()
	}
	if !wasRunning {
		fmt.Fprintf(stderr, "sledge: starting the %s sandbox in %s\n", e.product, dir)
	}
	s, err := e.start(ctx, dir, sandbox.Options{Port: f.port})
	if errors.Is(err, sandbox.ErrUnreachable) && f.dir == "" {
		// Typically root, whose home directory is private: say which knob to turn.
		return fmt.Errorf("%w\n(choose the sandbox directory with --dir, e.g. --dir %s)", err, filepath.Join(os.TempDir(), "sledge-"+e.name))
	}
	if err != nil {
		return err
	}
	if wasRunning {
		fmt.Fprintf(stderr, "sledge: the %s sandbox in %s is already running (port %d)\n", e.product, dir, s.Port())
	} else {
		fmt.Fprintf(stderr, "sledge: started; stop it with: sledge sandbox %s --stop%s\n", e.name, sandboxDirFlag(f.dir, dir))
	}
	fmt.Fprintln(stdout, s.URL(sandbox.Database))
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

// rootSandboxBase holds root's default sandboxes: the servers do not run as
// root (PostgreSQL refuses to, MariaDB runs as the mysql user) and cannot
// enter root's private home, so root's sandboxes live where system services
// keep their state.
const rootSandboxBase = "/var/lib/sledge/sandbox"

// defaultSandboxDir is <data dir>/sandbox/<name>, or rootSandboxBase/<name>
// for root unless SLEDGE_HOME chooses a data directory explicitly.
func defaultSandboxDir(name string) (string, error) {
	if os.Geteuid() == 0 && os.Getenv("SLEDGE_HOME") == "" {
		if err := os.MkdirAll(rootSandboxBase, 0o755); err != nil {
			return "", fmt.Errorf("create %s: %w", rootSandboxBase, err)
		}
		return filepath.Join(rootSandboxBase, name), nil
	}
	d, err := config.DataDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(d, "sandbox", name), nil
}
