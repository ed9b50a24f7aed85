package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/spf13/cobra"

	"github.com/sledge-bench/sledge/internal/app"
	"github.com/sledge-bench/sledge/internal/config"
	"github.com/sledge-bench/sledge/internal/output"
	"github.com/sledge-bench/sledge/internal/server"
)

func newServeCmd(g *globals) *cobra.Command {
	var cfg server.Config
	var clientCPUs int
	var targets, targetFiles []string
	var allowAny bool
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Serve the HTTP API (and web UI) that starts, watches and stops jobs",
		Long: `Serve Sledge's JSON API over HTTP: start build, run, check and drop jobs
(POST /api/jobs with a job spec as the body), watch them (GET
/api/jobs/{id}/events, Server-Sent Events), stop them, read and delete them.
The OpenAPI document is at /api/openapi.json, the web UI at /.

Targets. A job names its database by the name the server gives it
(--target NAME=URL, repeatable, or --targets FILE with one NAME=URL per
line, # comments) or names an embedded database (sqlite:PATH, duckdb:PATH)
inside the data directory (a relative PATH is taken there; no way out by
".." or symbolic links), or leaves it out for the workload's embedded
default. Anything else is refused (403) before it is created or dialled.
GET /api/targets lists the names (never the URLs). --allow-any-target lets
jobs name any URL or path the server's user can reach: only for a server
nobody else can talk to.

It listens on 127.0.0.1:8080 by default. Listening on any other address needs
a bearer token: --token, else $SLEDGE_TOKEN, else one is generated and
printed once. Every API request must then send "Authorization: Bearer TOKEN".
A GET never changes anything. --tls-cert and --tls-key serve HTTPS.

Requests from other sites are refused: any request whose Host is not the
listen address (on loopback also localhost, 127.0.0.1, [::1]) or a --host
name, and any state-changing request that is not Content-Type
application/json or comes with a foreign Origin or a Sec-Fetch-Site other
than same-origin. Behind a reverse proxy, give its public name with --host.

The server decides its client CPUs (GOMAXPROCS) once, at start
(--client-cpus); jobs share them and cannot change them.`,
		Example: `  sledge serve --target pg=postgres://bench@db1:5432/tpcc --target maria=mysql://root@db2:3306/tpcc
  sledge serve --targets /etc/sledge/targets
  SLEDGE_TOKEN=secret sledge serve --listen 0.0.0.0:8443 --tls-cert cert.pem --tls-key key.pem --host sledge.example.com`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if clientCPUs < 0 {
				return fmt.Errorf("--client-cpus must not be negative (got %d)", clientCPUs)
			}
			policy, err := targetPolicy(g, targets, targetFiles, allowAny)
			if err != nil {
				return err
			}
			if clientCPUs > 0 {
				runtime.GOMAXPROCS(app.ClientCPUs(clientCPUs, 0))
			}
			ctx := cmd.Context()
			repo, err := openRepo(ctx, g)
			if err != nil {
				return err
			}
			defer repo.Close()
			printPolicy(cmd.OutOrStdout(), cmd.ErrOrStderr(), policy)
			hub := output.NewHub()
			svc := app.New(app.Options{Repo: repo, Hub: hub, Version: version, Targets: policy})
			return server.Serve(ctx, cmd.OutOrStdout(), svc, repo, hub, cfg)
		},
	}
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
func targetPolicy(g *globals, targets, files []string, allowAny bool) (*app.TargetPolicy, error) {
	named := map[string]string{}
	add := func(name, target, where string) error {
		if _, dup := named[name]; dup {
			return fmt.Errorf("%s: target %s is named twice", where, name)
		}
		named[name] = target
		return nil
	}
	for _, t := range targets {
		name, target, err := app.ParseNamedTarget(t)
		if err != nil {
			return nil, fmt.Errorf("--target: %w", err)
		}
		if err := add(name, target, "--target"); err != nil {
			return nil, err
		}
	}
	for _, file := range files {
		f, err := os.Open(file)
		if err != nil {
			return nil, fmt.Errorf("--targets: %w", err)
		}
		more, err := app.ReadTargets(f, file)
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("--targets: %w", err)
		}
		for name, target := range more {
			if err := add(name, target, file); err != nil {
				return nil, err
			}
		}
	}
	dir, err := config.DataDir()
	if err != nil {
		return nil, err
	}
	if dir, err = filepath.Abs(dir); err != nil {
		return nil, err
	}
	repoPath, err := config.RepoPath(g.repo)
	if err != nil {
		return nil, err
	}
	return &app.TargetPolicy{Named: named, DataDir: dir, AllowAny: allowAny,
		Reserved: []string{repoPath, filepath.Join(dir, "sandbox")}}, nil
}

// printPolicy says at start what jobs may target; --allow-any-target
// loudly, on stderr too.
func printPolicy(out, errOut io.Writer, p *app.TargetPolicy) {
	var names []string
	for _, t := range p.Names() {
		names = append(names, t.Name+" ("+t.Kind+")")
	}
	list := "none"
	if len(names) > 0 {
		list = strings.Join(names, ", ")
	}
	if p.AllowAny {
		who := "this server's user"
		if os.Geteuid() == 0 {
			who = "root"
		}
		fmt.Fprintf(errOut, "\n*** WARNING: --allow-any-target: jobs may name ANY database URL or file path.\n"+
			"*** This server will dial any host and port a request names and create database files and\n"+
			"*** directories anywhere %s can write. Only use it where nobody else can reach the API.\n\n", who)
		fmt.Fprintf(out, "targets: ANY (--allow-any-target); named: %s\n", list)
		return
	}
	fmt.Fprintf(out, "targets: named: %s; embedded databases inside %s\n", list, p.DataDir)
}
