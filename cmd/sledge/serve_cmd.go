package main

import (
	"fmt"
	"runtime"

	"github.com/spf13/cobra"

	"github.com/sledge-bench/sledge/internal/app"
	"github.com/sledge-bench/sledge/internal/output"
	"github.com/sledge-bench/sledge/internal/server"
)

func newServeCmd(g *globals) *cobra.Command {
	var cfg server.Config
	var clientCPUs int
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Serve the HTTP API (and web UI) that starts, watches and stops jobs",
		Long: `Serve Sledge's JSON API over HTTP: start build, run, check and drop jobs
(POST /api/jobs with a job spec as the body), watch them (GET
/api/jobs/{id}/events, Server-Sent Events), stop them, read and delete them.
The OpenAPI document is at /api/openapi.json, the web UI at /.

It listens on 127.0.0.1:8080 by default. Listening on any other address needs
a bearer token: --token, else $SLEDGE_TOKEN, else one is generated and
printed once. Every API request must then send "Authorization: Bearer TOKEN".
A GET never changes anything. --tls-cert and --tls-key serve HTTPS.

The server decides its client CPUs (GOMAXPROCS) once, at start
(--client-cpus); jobs share them and cannot change them.`,
		Example: `  sledge serve
  SLEDGE_TOKEN=secret sledge serve --listen 0.0.0.0:8443 --tls-cert cert.pem --tls-key key.pem`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if clientCPUs < 0 {
				return fmt.Errorf("--client-cpus must not be negative (got %d)", clientCPUs)
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
			hub := output.NewHub()
			svc := app.New(app.Options{Repo: repo, Hub: hub, Version: version})
			return server.Serve(ctx, cmd.OutOrStdout(), svc, repo, hub, cfg)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&cfg.Listen, "listen", "127.0.0.1:8080", "address to listen on; anything but a loopback address requires a token")
	fl.StringVar(&cfg.Token, "token", "", "bearer token every API request must send (default $SLEDGE_TOKEN; generated when listening beyond loopback)")
	fl.StringVar(&cfg.TLSCert, "tls-cert", "", "TLS certificate file (PEM); with --tls-key, serve HTTPS")
	fl.StringVar(&cfg.TLSKey, "tls-key", "", "TLS private key file (PEM)")
	fl.IntVar(&clientCPUs, "client-cpus", 0, "CPU cores the server's jobs may use (GOMAXPROCS), set once at start (default: all)")
	return cmd
}
