// Command sledge builds and runs database benchmarks (TPROC-C and TPROC-H,
// derived from the TPC's OLTP and decision-support specifications) and keeps
// every job in a queryable repository.
//
// This package is wiring only: cobra commands bind their flags onto a job
// spec (internal/config) and hand it to the job service (internal/app);
// rendering is internal/report, the HTTP API internal/server, the HammerDB
// front ends internal/script and internal/shell. What the commands take from
// the process is read once, in main, into a globalState.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"syscall"

	"github.com/spf13/cobra"
	"golang.org/x/term"
)

// version is set at link time (-ldflags "-X main.version=…").
var version = "dev"

func main() {
	keepSysmonAwake() // first: it may re-execute the process
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	gs := newGlobalState()
	// Registered here, before any command runs: one that ignores SIGINT
	// (the sledge> prompt, for its tclsh) must find this registration
	// made, not have it made after its own by a goroutine started late.
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	go interrupts(ctx, cancel, sigs, gs.stderr)
	err := newRootCmd(gs).ExecuteContext(ctx)
	if err != nil {
		if code, ok := ownExitCode(err); ok {
			os.Exit(code)
		}
		fmt.Fprintln(gs.stderr, "sledge:", err)
		if ctx.Err() != nil {
			os.Exit(exitInterrupted) // stopped by the signal, not failed on its own
		}
		os.Exit(1)
	}
}

// interrupts stops the command on the first Ctrl-C or SIGTERM (cancel:
// the job stops cleanly, and what it measured is stored and printed), and
// ends the process at once on the second — whatever the disposition of
// SIGINT this process inherited, and however long the first stop waits on
// a database that hangs.
func interrupts(ctx context.Context, cancel context.CancelFunc, sigs <-chan os.Signal, stderr io.Writer) {
	select {
	case <-sigs:
	case <-ctx.Done():
		return
	}
	cancel()
	<-sigs
	fmt.Fprintln(stderr, "sledge: interrupted again: exiting now (what the first interrupt stored is kept)")
	os.Exit(exitInterrupted)
}

// newGlobalState reads what the commands take from the real process: the
// only place in Sledge that reads the environment and the standard streams.
func newGlobalState() *globalState {
	env := map[string]string{}
	for _, kv := range os.Environ() {
		if k, v, ok := strings.Cut(kv, "="); ok {
			env[k] = v
		}
	}
	// /dev/null is a character device but no terminal.
	isTerminal := func(f *os.File) bool { return term.IsTerminal(int(f.Fd())) }
	gs := &globalState{env: env, stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr,
		stdinTTY: isTerminal(os.Stdin), stderrTTY: isTerminal(os.Stderr),
		tempDir: os.TempDir(), root: os.Geteuid() == 0, ownsProcess: true}
	gs.workDir, _ = os.Getwd()
	gs.userHome, _ = os.UserHomeDir()
	gs.executable, _ = os.Executable()
	return gs
}

// exitInterrupted is the exit status of a command stopped by SIGINT or
// SIGTERM (128 + SIGINT, the shell's convention), whatever it stored and
// printed first: a script can tell an interrupted job from a completed one.
const exitInterrupted = 130

// exitNotStored is the exit status of a job that measured its result but
// could not store it in the jobs repository: it is kept in a spool file and
// handed in later (EX_TEMPFAIL of sysexits.h: "try again later").
const exitNotStored = 75

// exitNotKept is the exit status of a job that measured its result but
// could neither store it nor keep it in a spool file (the disk holding the
// repository and the data directory is full, and the temporary directory's
// too): the printed report is all there is (EX_IOERR of sysexits.h).
const exitNotKept = 74

// exitThresholds is the exit status of a run that ended (completed or
// degraded) but failed one of its thresholds (--threshold): k6's code for
// the same, distinct from a failed job's 1, so that a pipeline can tell a
// regression from a broken run. A gate that fails a --fail-if bound ends
// with it too.
const exitThresholds = 99

// ownExitCode is the exit status an error chooses after its command
// printed its own message (exitError, a script's exit): false for any other
// error, which is printed. A failed child process's *exec.ExitError, which
// has an ExitCode too, is such another error: its code is the child's, and
// exiting with it silently would hide why.
func ownExitCode(err error) (int, bool) {
	var exit interface{ ExitCode() int }
	if !errors.As(err, &exit) {
		return 0, false
	}
	if _, child := exit.(*exec.ExitError); child {
		return 0, false
	}
	return exit.ExitCode(), true
}

// exitError ends the process with a code after the command printed its own
// report (e.g. a consistency check that found violations).
type exitError struct{ code int }

func (e exitError) Error() string { return fmt.Sprintf("exit status %d", e.code) }
func (e exitError) ExitCode() int { return e.code }

func newRootCmd(gs *globalState) *cobra.Command {
	root := withHelp("sledge", &cobra.Command{
		Use:           "sledge",
		Short:         "Build, run and compare database benchmarks (TPROC-C and TPROC-H)",
		Version:       version,
		SilenceUsage:  true,
		SilenceErrors: true,
	})
	root.SetIn(gs.stdin)
	root.SetOut(gs.stdout)
	root.SetErr(gs.stderr)
	root.PersistentFlags().StringVar(&gs.flags.repo, "repo", "", "jobs repository: a SQLite file or a postgres:// URL (default $SLEDGE_REPO, else <data dir>/jobs.db)")
	root.PersistentFlags().StringVar(&gs.flags.server, "server", "", "URL of a sledge serve whose jobs to run, read and delete instead of this machine's (build, run, check, drop, jobs, compare, profile show/list), printing what they print here, e.g. http://127.0.0.1:8080 (default $SLEDGE_SERVER; token from $SLEDGE_TOKEN)")
	root.AddCommand(
		newBuildCmd(gs),
		newRunCmd(gs),
		newPgbenchCmd(gs),
		newProfileCmd(gs),
		newGateCmd(gs),
		newSLOCmd(gs),
		newCompareCmd(gs),
		newCheckCmd(gs),
		newDropCmd(gs),
		newJobsCmd(gs),
		newSandboxCmd(gs),
		newDatagenCmd(),
		newServeCmd(gs),
		newCLICmd(gs),
		newAgentCmd(),
		newK8sCmd(gs),
	)
	return root
}
