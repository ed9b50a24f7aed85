package main

import (
	"errors"
	"fmt"
	"runtime"

	"github.com/spf13/cobra"

	"github.com/sledge-bench/sledge/internal/agent"
	"github.com/sledge-bench/sledge/internal/app"
	"github.com/sledge-bench/sledge/internal/output"
	"github.com/sledge-bench/sledge/internal/server"
)

func newServeCmd(gs *globalState) *cobra.Command {
	// The server's configuration and what the process decides for it.
	o := serveFlags{Config: server.Config{Listen: "127.0.0.1:8080"}}
	cmd := withHelp("serve", &cobra.Command{
		Use:   "serve",
		Short: "Serve the HTTP API (and web UI) that starts, watches and stops jobs",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if o.ClientCPUs < 0 {
				return fmt.Errorf("--client-cpus must not be negative (got %d)", o.ClientCPUs)
			}
			policy, err := targetPolicy(gs, o.Target, o.Targets, o.AllowAnyTarget)
			if err != nil {
				return err
			}
			if o.ClientCPUs > 0 {
				runtime.GOMAXPROCS(app.ClientCPUs(o.ClientCPUs, 0))
			}
			ctx := cmd.Context()
			repo, err := openRepo(ctx, gs)
			if err != nil {
				return err
			}
			defer repo.Close()
			server.AnnouncePolicy(cmd.OutOrStdout(), cmd.ErrOrStderr(), policy, gs.root)
			hub := output.NewHub()
			svc := app.New(gs.serviceOptions(app.Options{Repo: repo, Hub: hub, Version: version, Targets: policy}))
			if o.Token == "" {
				o.Token = gs.getenv("SLEDGE_TOKEN")
			}
			return server.Serve(ctx, cmd.OutOrStdout(), svc, repo, hub, o.Config)
		},
	})
	bindFlags(cmd.Flags(), "serve", &o)
	return cmd
}

// serveFlags are sledge serve's settings (flags/serve.txt).
type serveFlags struct {
	server.Config
	Target, Targets []string // NAME=URL; files of them
	AllowAnyTarget  bool
	ClientCPUs      int
}

// targetPolicy is the server's target policy from its flags: the named
// targets, the data directory (embedded databases), the server's own files
// in it (the jobs repository, the sandboxes) reserved.
func targetPolicy(gs *globalState, targets, files []string, allowAny bool) (*app.TargetPolicy, error) {
	named, err := app.NamedTargets(targets, files, "--target", "--targets")
	if err != nil {
		return nil, err
	}
	dir, err := gs.configEnv().DataDir()
	if err != nil {
		return nil, err
	}
	repoPath, err := gs.configEnv().RepoPath(gs.flags.repo)
	if err != nil {
		return nil, err
	}
	return app.ServerPolicy(named, gs.abs(dir), repoPath, allowAny), nil
}

func newAgentCmd() *cobra.Command {
	o := agentFlags{Listen: "127.0.0.1:9101", Proc: "/proc"}
	cmd := withHelp("agent", &cobra.Command{
		Use:   "agent --os-metrics",
		Short: "Serve this host's OS metrics for a run on another host to read (sledge run --scrape)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if !o.OSMetrics {
				return errors.New("say what to serve: --os-metrics (the only kind of figures the agent serves)")
			}
			return agent.ListenAndServe(cmd.Context(), cmd.OutOrStdout(), cmd.ErrOrStderr(), o.Listen, o.Proc)
		},
	})
	bindFlags(cmd.Flags(), "agent", &o)
	return cmd
}

// agentFlags are sledge agent's settings (flags/agent.txt).
type agentFlags struct {
	OSMetrics    bool
	Listen, Proc string // address; the proc filesystem
}
