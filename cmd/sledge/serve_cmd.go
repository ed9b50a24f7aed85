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
	var cfg server.Config
	var clientCPUs int
	var targets, targetFiles []string
	var allowAny bool
	cmd := withHelp("serve", &cobra.Command{
		Use:   "serve",
		Short: "Serve the HTTP API (and web UI) that starts, watches and stops jobs",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if clientCPUs < 0 {
				return fmt.Errorf("--client-cpus must not be negative (got %d)", clientCPUs)
			}
			policy, err := targetPolicy(gs, targets, targetFiles, allowAny)
			if err != nil {
				return err
			}
			if clientCPUs > 0 {
				runtime.GOMAXPROCS(app.ClientCPUs(clientCPUs, 0))
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
			if cfg.Token == "" {
				cfg.Token = gs.getenv("SLEDGE_TOKEN")
			}
			return server.Serve(ctx, cmd.OutOrStdout(), svc, repo, hub, cfg)
		},
	})
	fl := cmd.Flags()
	fl.StringVar(&cfg.Listen, "listen", "127.0.0.1:8080", "address to listen on; anything but a loopback address requires a token")
	fl.StringVar(&cfg.Token, "token", "", "bearer token every API request must send (default $SLEDGE_TOKEN; generated when listening beyond loopback)")
	fl.StringVar(&cfg.TLSCert, "tls-cert", "", "TLS certificate file (PEM); with --tls-key, serve HTTPS")
	fl.StringVar(&cfg.TLSKey, "tls-key", "", "TLS private key file (PEM)")
	fl.StringArrayVar(&cfg.AllowedHosts, "host", nil, "a name clients reach the server by besides its listen address (NAME or NAME:PORT), e.g. a reverse proxy's; repeatable")
	fl.StringArrayVar(&targets, "target", nil, "a target jobs may use, by NAME: NAME=URL (postgres://…, mysql://…, sqlite:PATH, duckdb:PATH); repeatable")
	fl.StringArrayVar(&targetFiles, "targets", nil, "a file of targets, one NAME=URL per line (# comments); repeatable")
	fl.BoolVar(&allowAny, "allow-any-target", false, "let jobs name ANY database URL or file path (dials any host, creates files anywhere this user can write)")
	fl.IntVar(&clientCPUs, "client-cpus", 0, "CPU cores the server's jobs may use (GOMAXPROCS), set once at start (default: all)")
	return cmd
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
	var osMetrics bool
	var listen, procRoot string
	cmd := withHelp("agent", &cobra.Command{
		Use:   "agent --os-metrics",
		Short: "Serve this host's OS metrics for a run on another host to read (sledge run --scrape)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if !osMetrics {
				return errors.New("say what to serve: --os-metrics (the only kind of figures the agent serves)")
			}
			return agent.ListenAndServe(cmd.Context(), cmd.OutOrStdout(), cmd.ErrOrStderr(), listen, procRoot)
		},
	})
	fl := cmd.Flags()
	fl.BoolVar(&osMetrics, "os-metrics", false, "serve this host's CPU, memory, network and disk figures from /proc at /metrics (required)")
	fl.StringVar(&listen, "listen", "127.0.0.1:9101", "address to listen on, HOST:PORT (port 0 picks a free one); a run on another host needs an address it can reach")
	fl.StringVar(&procRoot, "proc", "/proc", "the proc filesystem to read, e.g. /host/proc when the agent runs in a container")
	return cmd
}
