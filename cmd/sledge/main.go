// Command sledge builds and runs database benchmarks (TPROC-C and TPROC-H,
// derived from the TPC's OLTP and decision-support specifications) and keeps
// every job in a queryable repository.
//
// This package is wiring only: cobra commands bind their flags onto a job
// spec (internal/config) and hand it to the job service (internal/app);
// rendering is internal/report, the HTTP API internal/server, the HammerDB
// front ends internal/script.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/sledge-bench/sledge/internal/app"
	"github.com/sledge-bench/sledge/internal/config"
	"github.com/sledge-bench/sledge/internal/jobs"
	"github.com/sledge-bench/sledge/internal/workload"
)

// version is set at link time (-ldflags "-X main.version=…").
var version = "dev"

// globals are the flags every command shares.
type globals struct {
	repo   string // jobs repository path (--repo)
	server string // a `sledge serve` to drive instead of running here (--server)
}

func main() {
	keepSysmonAwake()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() {
		// The first Ctrl-C stops the job cleanly (what it measured is stored
		// and printed); a second one ends the process at once, as usual.
		<-ctx.Done()
		stop()
	}()
	err := newRootCmd().ExecuteContext(ctx)
	if err != nil {
		var exit interface{ ExitCode() int }
		if errors.As(err, &exit) {
			os.Exit(exit.ExitCode())
		}
		fmt.Fprintln(os.Stderr, "sledge:", err)
		if ctx.Err() != nil {
			os.Exit(exitInterrupted) // stopped by the signal, not failed on its own
		}
		os.Exit(1)
	}
}

// exitInterrupted is the exit status of a command stopped by SIGINT or
// SIGTERM (128 + SIGINT, the shell's convention), whatever it stored and
// printed first: a script can tell an interrupted job from a completed one.
const exitInterrupted = 130

// exitError ends the process with a code after the command printed its own
// report (e.g. a consistency check that found violations).
type exitError struct{ code int }

func (e exitError) Error() string { return fmt.Sprintf("exit status %d", e.code) }
func (e exitError) ExitCode() int { return e.code }

func newRootCmd() *cobra.Command {
	g := &globals{}
	root := &cobra.Command{
		Use:   "sledge",
		Short: "Build, run and compare database benchmarks (TPROC-C and TPROC-H)",
		Long: `Sledge builds and runs two workloads against real databases and stores every
job in a repository:

  TPROC-C  OLTP, derived from the TPC-C specification: many parallel virtual
           users; NOPM, TPM, latency percentiles, errors by class
  TPROC-H  analytics, derived from the TPC-H specification: the 22 queries in
           power and throughput tests; query times and their geometric mean

Databases: PostgreSQL, MariaDB/MySQL, SQLite and DuckDB. With no --db, Sledge
uses an embedded database in its data directory ($SLEDGE_HOME, else
$XDG_DATA_HOME/sledge, else ~/.local/share/sledge): SQLite for TPROC-C,
DuckDB for TPROC-H. Results are not audited TPC results and are not
comparable with them.`,
		Version:       version,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.PersistentFlags().StringVar(&g.repo, "repo", "", "jobs repository: a SQLite file or a postgres:// URL (default $SLEDGE_REPO, else <data dir>/jobs.db)")
	root.PersistentFlags().StringVar(&g.server, "server", "", "URL of a sledge serve to drive (run, build, jobs) instead of working here, e.g. http://127.0.0.1:8080 (default $SLEDGE_SERVER; token from $SLEDGE_TOKEN)")
	root.AddCommand(
		newBuildCmd(g),
		newRunCmd(g),
		newProfileCmd(g),
		newCompareCmd(g),
		newCheckCmd(g),
		newDropCmd(g),
		newJobsCmd(g),
		newSandboxCmd(g),
		newDatagenCmd(),
		newServeCmd(g),
		newCLICmd(g),
		newAgentCmd(),
		newK8sCmd(),
	)
	return root
}

// openRepo opens the jobs repository named by --repo (else $SLEDGE_REPO, else
// the data directory's jobs.db), creating it on first use: a SQLite file (and
// its directory), or Sledge's tables in the database of a postgres:// URL.
// jobs.Open tells the two apart; nothing here treats a URL as a path.
func openRepo(ctx context.Context, g *globals) (*jobs.Repo, error) {
	path, err := config.RepoPath(g.repo)
	if err != nil {
		return nil, err
	}
	return jobs.Open(ctx, path)
}

// openExistingRepo opens the jobs repository as openRepo does, for commands
// that read it or delete from it: it creates no file, and an error matching
// jobs.ErrNoRepository says "no jobs repository at PATH". A postgres:// URL
// opens as by openRepo (a reachable database is an existing repository).
func openExistingRepo(ctx context.Context, g *globals) (*jobs.Repo, error) {
	path, err := config.RepoPath(g.repo)
	if err != nil {
		return nil, err
	}
	return jobs.OpenExisting(ctx, path)
}

// withService opens the repository and runs fn with a job service that owns
// this process (it may decide the process's client CPUs once).
func withService(ctx context.Context, g *globals, fn func(*app.Service) error) error {
	repo, err := openRepo(ctx, g)
	if err != nil {
		return err
	}
	defer repo.Close()
	return fn(app.New(app.Options{Repo: repo, Version: version, OwnsProcess: true}))
}

// flagOf names the flag of a spec field where it is not the field's name
// with "-" for "_".
var flagOf = map[string]string{"confirm": "yes"}

// flagErrors words the job service's field errors as this front end's
// flags: field "max_retries" is --max-retries; a target error is --db's; what
// a job found about its workload's schema gets the command that deals with it.
func flagErrors(err error) error {
	var te app.TargetError
	if errors.As(err, &te) {
		return fmt.Errorf("--db: %w", te.Err)
	}
	if advice := schemaAdvice(err); advice != "" {
		return fmt.Errorf("%w: %s", err, advice)
	}
	fields := config.Fields(err)
	if fields == nil {
		return err
	}
	msgs := make([]string, len(fields))
	for i, f := range fields {
		msgs[i] = f.Msg
		if f.Field != "" {
			name, ok := flagOf[f.Field]
			if !ok {
				name = strings.ReplaceAll(f.Field, "_", "-")
			}
			flag := "--" + name
			if rest, ok := strings.CutPrefix(f.Msg, f.Field); ok {
				msgs[i] = flag + rest
			} else {
				msgs[i] = flag + ": " + f.Msg
			}
		}
	}
	return errors.New(strings.Join(msgs, "\n"))
}

// schemaAdvice says which command deals with what a job found about its
// workload's schema (a workload.SchemaError), "" for other errors.
func schemaAdvice(err error) string {
	var se *workload.SchemaError
	if !errors.As(err, &se) {
		return ""
	}
	build := "sledge build"
	if se.Workload != "" && se.Workload != config.DefaultWorkload {
		build += " --workload " + se.Workload
	}
	switch {
	case errors.Is(err, workload.ErrSchemaExists):
		return "use --force to drop it and build again (with --yes where there is no terminal), or `" +
			strings.Replace(build, "build", "drop", 1) + "`"
	case errors.Is(err, workload.ErrNoSchema):
		return "run `" + build + "` first"
	case errors.Is(err, workload.ErrSchemaUnusable):
		return "run `" + build + " --force` to replace it"
	}
	return ""
}

// workloadFlagHelp lists the registered workloads (cobra adds the default).
func workloadFlagHelp() string {
	var names []string
	for _, n := range workload.Names() {
		w, _ := workload.Lookup(n)
		names = append(names, n+" ("+w.Title()+")")
	}
	return "workload: " + strings.Join(names, " or ")
}

// isTerminal reports whether f is an interactive terminal (for progress
// bars and questions). /dev/null is a character device but no terminal.
func isTerminal(f *os.File) bool { return term.IsTerminal(int(f.Fd())) }

// progressTTY is where build progress bars are drawn: stderr on a terminal,
// else nowhere (progress lines go to the job's output instead).
func progressTTY() io.Writer {
	if isTerminal(os.Stderr) {
		return os.Stderr
	}
	return nil
}
