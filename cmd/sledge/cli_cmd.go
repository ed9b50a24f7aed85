package main

import (
	"context"
	"errors"
	"os/exec"

	"github.com/spf13/cobra"

	"github.com/sledge-bench/sledge/internal/app"
	"github.com/sledge-bench/sledge/internal/script"
	"github.com/sledge-bench/sledge/internal/shell"
)

// `sledge cli`: HammerDB CLI scripts, run by a real Tcl interpreter (tclsh)
// with HammerDB's command set defined in Tcl (script.TclPrelude). The
// commands keep their settings as HammerDB does (dbset, diset, vuset …) and
// hand the whole state to `sledge cli do ACTION`, which maps HammerDB's
// settings onto a job spec (internal/script) and runs it through the job
// service. The Python package (python/sledge) uses the same `cli do`
// contract, and `sledge cli job` for its own API.

func newCLICmd(gs *globalState) *cobra.Command {
	cmd := withHelp("cli", &cobra.Command{
		Use:   "cli [auto SCRIPT.tcl]",
		Short: "Run HammerDB CLI scripts (real Tcl) or an interactive sledge> prompt",
		Args:  cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return frontEnd(cmd, args, shell.Tcl, gs.shellProcess(gs.flags.repo), "usage: sledge cli [auto SCRIPT.tcl] | sledge cli py [auto SCRIPT.py]")
		},
	})
	// Its scripts and their jobs run here, on this machine's repository.
	cmd.PersistentPreRunE = func(*cobra.Command, []string) error { return localOnly(gs, "sledge cli") }
	cmd.AddCommand(&cobra.Command{
		Use:   "py [auto SCRIPT.py]",
		Short: "Run a Python script (or a Python prompt) with the sledge module and HammerDB's commands",
		Args:  cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return frontEnd(cmd, args, shell.Python, gs.shellProcess(gs.flags.repo), "usage: sledge cli py [auto SCRIPT.py]")
		},
	})
	do := &cobra.Command{
		Use:    "do ACTION",
		Short:  "Run one HammerDB action with the state given as JSON on stdin (used by the Tcl and Python front ends)",
		Hidden: true,
		Args:   cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			st, err := script.ReadState(cmd.InOrStdin())
			if err != nil {
				return err
			}
			return withService(cmd.Context(), gs, func(svc *app.Service) error {
				return script.Do(cmd.Context(), cmd.OutOrStdout(), svc, gs.scriptEnv(), args[0], st)
			})
		},
	}
	job := &cobra.Command{
		Use:    "job",
		Short:  "Run one job whose spec (the HTTP API's body) is given as JSON on stdin (used by the Python API)",
		Hidden: true,
		Args:   cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			spec, err := script.ReadSpec(cmd.InOrStdin())
			if err != nil {
				return err
			}
			return withService(cmd.Context(), gs, func(svc *app.Service) error {
				return script.Job(cmd.Context(), cmd.OutOrStdout(), svc, spec)
			})
		},
	}
	cmd.AddCommand(do, job, newCLIJobsCmd(gs), newCLIKeysCmd())
	return cmd
}

// newCLIKeysCmd prints HammerDB's key table (internal/script/keys.go), the
// one source the front ends check diset and giset against: as JSON for the
// Python front end, as Tcl for the Tcl prelude (which `sledge cli` gives
// the table itself; --tcl serves a prelude run without it).
func newCLIKeysCmd() *cobra.Command {
	var tcl bool
	cmd := &cobra.Command{
		Use:    "keys [--tcl]",
		Short:  "Print HammerDB's dictionaries, keys, defaults and what Sledge does with each (used by the Tcl and Python front ends)",
		Hidden: true,
		Args:   cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return script.WriteKeys(cmd.OutOrStdout(), tcl)
		},
	}
	cmd.Flags().BoolVar(&tcl, "tcl", false, "print the table as Tcl source")
	return cmd
}

// newCLIJobsCmd is HammerDB's jobs command for the front ends: it prints
// what the command prints, then a line holding only the record separator
// (0x1E), a line "FORMAT PROFILEID" with the session after the command, and
// the command's return value.
func newCLIJobsCmd(gs *globalState) *cobra.Command {
	var s script.Session
	cmd := &cobra.Command{
		Use:    "jobs [--format JSON|text] [--profileid N] -- [ARGS...]",
		Short:  "HammerDB's jobs command over Sledge's repository (used by the Tcl and Python front ends)",
		Hidden: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			repo, err := openRepo(cmd.Context(), gs)
			if err != nil {
				return err
			}
			defer repo.Close()
			c := &script.Command{Repo: repo, Env: gs.scriptEnv()}
			out, err := c.Run(cmd.Context(), s, args)
			if err != nil {
				return err
			}
			return out.Write(cmd.OutOrStdout())
		},
	}
	cmd.Flags().StringVar(&s.Format, "format", script.FormatJSON, "output format: JSON or text (jobs format)")
	cmd.Flags().IntVar(&s.ProfileID, "profileid", 0, "the session's performance profile id (jobs profileid)")
	return cmd
}

// frontEnd runs a front end (shell.Tcl, shell.Python) on the arguments of
// `[auto SCRIPT]`: with none, its prompt. Its exit status is this process's.
func frontEnd(cmd *cobra.Command, args []string, run func(context.Context, shell.Process, string) error, p shell.Process, usage string) error {
	script, ok := shell.ScriptArg(args)
	if !ok {
		return errors.New(usage)
	}
	err := run(cmd.Context(), p, script)
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return exitError{code: ee.ExitCode()}
	}
	return err
}
