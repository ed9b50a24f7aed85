package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"

	"github.com/spf13/cobra"

	"github.com/sledge-bench/sledge/internal/agent"
)

func newAgentCmd() *cobra.Command {
	var osMetrics bool
	var listen, procRoot string
	cmd := &cobra.Command{
		Use:   "agent --os-metrics",
		Short: "Serve this host's OS metrics for a run on another host to read (sledge run --scrape)",
		Long: `Serve this machine's CPU, memory, network and disk figures over HTTP, so that a
run against a database on this machine, started on another one, records the
database host's OS metrics next to its results:

  on the database host:  sledge agent --os-metrics --listen 0.0.0.0:9101
  on the client:         sledge run --db postgres://… --scrape http://DBHOST:9101/metrics

GET /metrics answers in the Prometheus text format, with node_exporter's
names and units (node_cpu_seconds_total, node_memory_MemAvailable_bytes,
node_network_receive_bytes_total, node_disk_read_bytes_total, …), read
from /proc at every request: --scrape reads this agent and node_exporter
alike. Every CPU, interface and block device is served; the run picks the
ones to count. Linux only.

It listens on 127.0.0.1:9101 by default (node_exporter has 9100). A remote
run needs an address it can reach: then anyone who can reach the port can
read these figures (OS counters and the host name, never database data), and
there is no token: listen on an address only the client can reach, or
firewall the port. Ctrl-C or SIGTERM stops it.`,
		Example: `  sledge agent --os-metrics --listen 0.0.0.0:9101
  sledge agent --os-metrics --listen 10.0.0.5:9101 --proc /host/proc`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if !osMetrics {
				return errors.New("say what to serve: --os-metrics (the only kind of figures the agent serves)")
			}
			return runAgent(cmd.Context(), cmd.OutOrStdout(), cmd.ErrOrStderr(), listen, procRoot)
		},
	}
	fl := cmd.Flags()
	fl.BoolVar(&osMetrics, "os-metrics", false, "serve this host's CPU, memory, network and disk figures from /proc at /metrics (required)")
	fl.StringVar(&listen, "listen", "127.0.0.1:9101", "address to listen on, HOST:PORT (port 0 picks a free one); a run on another host needs an address it can reach")
	fl.StringVar(&procRoot, "proc", "/proc", "the proc filesystem to read, e.g. /host/proc when the agent runs in a container")
	return cmd
}

// runAgent serves the OS metrics on listen until ctx ends (agent.Serve).
// It checks /proc first, so that a host with nothing to serve says so at
// once rather than at every scrape.
func runAgent(ctx context.Context, out, errOut io.Writer, listen, procRoot string) error {
	if err := agent.Check(procRoot); err != nil {
		return err
	}
	host, _, err := net.SplitHostPort(listen)
	if err != nil {
		return fmt.Errorf("--listen %q: %w", listen, err)
	}
	ln, err := (&net.ListenConfig{}).Listen(ctx, "tcp", listen)
	if err != nil {
		return fmt.Errorf("--listen %q: %w", listen, err)
	}
	if ip := net.ParseIP(host); (ip == nil || !ip.IsLoopback()) && host != "localhost" {
		fmt.Fprintf(errOut, "sledge agent: listening beyond loopback: anyone who can reach %s can read this host's OS figures "+
			"(CPU, memory, network and disk counters, host name; no database data)\n", ln.Addr())
	}
	fmt.Fprintf(out, "sledge agent: listening on http://%s/metrics\n", ln.Addr())
	if err := agent.Serve(ctx, ln, procRoot); err != nil {
		return err
	}
	fmt.Fprintln(out, "sledge agent: stopped")
	return nil // stopping is what Ctrl-C asks for: not an error
}
