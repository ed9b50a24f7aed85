package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/sledge-bench/sledge/internal/app"
	"github.com/sledge-bench/sledge/internal/script"
	pyembed "github.com/sledge-bench/sledge/python"
)

// `sledge cli`: HammerDB CLI scripts, run by a real Tcl interpreter (tclsh)
// with HammerDB's command set defined in Tcl (script.TclPrelude). The
// commands keep their settings as HammerDB does (dbset, diset, vuset …) and
// hand the whole state to `sledge cli do ACTION`, which maps HammerDB's
// settings onto a job spec (internal/script) and runs it through the job
// service. The Python package (python/sledge) uses the same `cli do`
// contract, and `sledge cli job` for its own API.

func newCLICmd(g *globals) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "cli [auto SCRIPT.tcl]",
		Short: "Run HammerDB CLI scripts (real Tcl) or an interactive sledge> prompt",
		Long: `Run HammerDB CLI scripts unchanged: a real Tcl interpreter (tclsh 8.6) runs
the script with HammerDB's commands — dbset, diset, vuset, buildschema, vurun,
jobs … — defined to drive Sledge's engine. Without arguments: an interactive
sledge> prompt with line editing (arrows, Home/End, Ctrl-A/E/K/U/W), history
kept between sessions (Up/Down), Tab to complete a command name, and help.
Ctrl-C at the prompt drops the line; while a command runs it stops the job
(stored as interrupted) and the prompt comes back. Ctrl-D or quit leaves.

  sledge cli auto build.tcl
  sledge cli py auto sweep.py     # the same commands from Python

HammerDB's parameter names (pg_*, maria_*, mysql_* keys of the connection,
tpcc and tpch dicts) map onto Sledge's options; a key Sledge cannot honour is
accepted with a one-line notice, an unknown dictionary or key is refused with
HammerDB's message. See the README for the table. jobs answers
from Sledge's repository with HammerDB's sub-commands and JSON/text shapes
(type help jobs at the prompt); librarycheck connects to every configured
database and prints its server version.`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			switch {
			case len(args) == 0:
				return runTcl(cmd.Context(), g, "")
			case len(args) == 2 && args[0] == "auto":
				return runTcl(cmd.Context(), g, args[1])
			}
			return fmt.Errorf("usage: sledge cli [auto SCRIPT.tcl] | sledge cli py [auto SCRIPT.py]")
		},
	}
	cmd.AddCommand(&cobra.Command{
		Use:   "py [auto SCRIPT.py]",
		Short: "Run a Python script (or a Python prompt) with the sledge module and HammerDB's commands",
		Args:  cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			switch {
			case len(args) == 0:
				return runPython(cmd.Context(), "")
			case len(args) == 2 && args[0] == "auto":
				return runPython(cmd.Context(), args[1])
			}
			return fmt.Errorf("usage: sledge cli py [auto SCRIPT.py]")
		},
	})
	do := &cobra.Command{
		Use:    "do ACTION",
		Short:  "Run one HammerDB action with the state given as JSON on stdin (used by the Tcl and Python front ends)",
		Hidden: true,
		Args:   cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			var st script.State
			if err := json.NewDecoder(cmd.InOrStdin()).Decode(&st); err != nil {
				return fmt.Errorf("cli do: state on stdin: %w", err)
			}
			return withService(cmd.Context(), g, func(svc *app.Service) error {
				return script.Do(cmd.Context(), cmd.OutOrStdout(), svc, args[0], &st)
			})
		},
	}
	job := &cobra.Command{
		Use:    "job",
		Short:  "Run one job whose spec (the HTTP API's body) is given as JSON on stdin (used by the Python API)",
		Hidden: true,
		Args:   cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			spec, err := io.ReadAll(io.LimitReader(cmd.InOrStdin(), 1<<20))
			if err != nil {
				return fmt.Errorf("cli job: spec on stdin: %w", err)
			}
			return withService(cmd.Context(), g, func(svc *app.Service) error {
				return script.Job(cmd.Context(), cmd.OutOrStdout(), svc, spec)
			})
		},
	}
	cmd.AddCommand(do, job, newCLIJobsCmd(g), newCLIKeysCmd())
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
			if tcl {
				_, err := io.WriteString(cmd.OutOrStdout(), script.TclKeys())
				return err
			}
			b, err := script.KeysJSON()
			if err != nil {
				return err
			}
			_, err = cmd.OutOrStdout().Write(b)
			return err
		},
	}
	cmd.Flags().BoolVar(&tcl, "tcl", false, "print the table as Tcl source")
	return cmd
}

// newCLIJobsCmd is HammerDB's jobs command for the front ends: it prints
// what the command prints, then a line holding only the record separator
// (0x1E), a line "FORMAT PROFILEID" with the session after the command, and
// the command's return value.
func newCLIJobsCmd(g *globals) *cobra.Command {
	var s script.Session
	cmd := &cobra.Command{
		Use:    "jobs [--format JSON|text] [--profileid N] -- [ARGS...]",
		Short:  "HammerDB's jobs command over Sledge's repository (used by the Tcl and Python front ends)",
		Hidden: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			repo, err := openRepo(cmd.Context(), g)
			if err != nil {
				return err
			}
			defer repo.Close()
			c := &script.Command{Repo: repo}
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

// runTcl runs tclsh with the HammerDB prelude, then the script or a prompt.
func runTcl(ctx context.Context, g *globals, scriptPath string) error {
	tclsh, err := exec.LookPath("tclsh")
	if err != nil {
		return errors.New("tclsh not found: install Tcl 8.6 (Debian: apt-get install tcl)")
	}
	dir, err := os.MkdirTemp("", "sledge-cli-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	prelude := filepath.Join(dir, "hammerdb.tcl")
	// The key table first: the prelude's diset and giset check against it.
	if err := os.WriteFile(prelude, []byte(script.TclKeys()+script.TclPrelude), 0o644); err != nil {
		return err
	}
	args := []string{prelude}
	if scriptPath != "" {
		abs, err := filepath.Abs(scriptPath)
		if err != nil {
			return err
		}
		if _, err := os.Stat(abs); err != nil {
			return fmt.Errorf("script: %w", err)
		}
		args = append(args, "auto", abs)
	}
	env := append(os.Environ(), cliEnv(g)...)
	if scriptPath == "" && isTerminal(os.Stdin) {
		return promptSession(ctx, tclsh, prelude, env)
	}
	cmd := exec.CommandContext(ctx, tclsh, args...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	cmd.Env = env
	return exitStatus(cmd.Run())
}

// runPython runs python3 with the embedded sledge package on its path.
func runPython(ctx context.Context, scriptPath string) error {
	py, err := exec.LookPath("python3")
	if err != nil {
		return errors.New("python3 not found")
	}
	dir, err := os.MkdirTemp("", "sledge-py-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	if err := pyembed.Extract(dir); err != nil {
		return err
	}
	var args []string
	if scriptPath != "" {
		// The HammerDB commands are importable unqualified, as in HammerDB.
		// The script starts with what HammerDB's Python CLI gives it: the
		// commands, tclpy, HammerDB's print and help, os and sys.
		args = []string{"-c", "import runpy, sys; from sledge.hammerdb import script_namespace; sys.argv = [sys.argv[1]]; " +
			"runpy.run_path(sys.argv[0], init_globals=script_namespace(), run_name='__main__')", scriptPath}
	} else {
		args = []string{"-i", "-c", "from sledge.hammerdb import script_namespace; globals().update(script_namespace()); import sledge; " +
			"print('sledge Python prompt: HammerDB commands and the sledge module are loaded; help() lists the commands')"}
	}
	cmd := exec.CommandContext(ctx, py, args...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	cmd.Env = append(os.Environ(), "PYTHONPATH="+dir+string(os.PathListSeparator)+os.Getenv("PYTHONPATH"))
	cmd.Env = append(cmd.Env, cliEnv(nil)...)
	return exitStatus(cmd.Run())
}

// cliEnv tells the front ends which sledge binary and repository to use.
func cliEnv(g *globals) []string {
	var env []string
	if exe, err := os.Executable(); err == nil {
		env = append(env, "SLEDGE_BIN="+exe)
	}
	if g != nil && g.repo != "" {
		env = append(env, "SLEDGE_REPO="+g.repo)
	}
	return env
}

func exitStatus(err error) error {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return exitError{code: ee.ExitCode()}
	}
	return err
}
