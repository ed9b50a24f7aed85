// Command sledge builds and runs database benchmarks (TPROC-C and TPROC-H,
// derived from the TPC's OLTP and decision-support specifications) and keeps
// every job in a queryable repository.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"
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
	err := newRootCmd().ExecuteContext(ctx)
	if err != nil {
		var exit exitError
		if errors.As(err, &exit) {
			os.Exit(exit.code)
		}
		fmt.Fprintln(os.Stderr, "sledge:", err)
		os.Exit(1)
	}
}

// exitError ends the process with a code after the command printed its own
// report (e.g. a consistency check that found violations).
type exitError struct{ code int }

func (e exitError) Error() string { return fmt.Sprintf("exit status %d", e.code) }

func newRootCmd() *cobra.Command {
	g := &globals{}
	root := &cobra.Command{
		Use:   "sledge",
		Short: "Build, run and compare database benchmarks (TPROC-C and TPROC-H)",
		Long: `Sledge builds a TPROC-C schema (an OLTP workload derived from the TPC-C
specification), drives it with many parallel virtual users, reports NOPM, TPM,
latency percentiles and errors, and stores every job in a repository.

With no --db, Sledge uses an embedded SQLite database in its data directory
($SLEDGE_HOME, else $XDG_DATA_HOME/sledge, else ~/.local/share/sledge).`,
		Version:       version,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.PersistentFlags().StringVar(&g.repo, "repo", "", "jobs repository file (default $SLEDGE_REPO, else <data dir>/jobs.db)")
	root.PersistentFlags().StringVar(&g.server, "server", "", "drive a `sledge serve` at this URL (run, build, jobs) instead of working here (default $SLEDGE_SERVER; token from $SLEDGE_TOKEN)")
	root.AddCommand(
		newBuildCmd(g),
		newRunCmd(g),
		newCheckCmd(g),
		newDropCmd(g),
		newJobsCmd(g),
		newSandboxCmd(g),
		newDatagenCmd(),
		newServeCmd(g),
		newCLICmd(g),
	)
	return root
}
