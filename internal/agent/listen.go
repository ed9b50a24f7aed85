package agent

import (
	"context"
	"fmt"
	"io"
	"net"
)

// ListenAndServe serves the OS metrics on listen (sledge agent --listen)
// until ctx ends (Serve), saying on out where, and on errOut who can read
// them when that is beyond loopback. It checks procRoot first, so that a
// host with nothing to serve says so at once rather than at every scrape.
// Stopping is what Ctrl-C asks for: not an error.
func ListenAndServe(ctx context.Context, out, errOut io.Writer, listen, procRoot string) error {
	if err := Check(procRoot); err != nil {
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
	if err := Serve(ctx, ln, procRoot); err != nil {
		return err
	}
	fmt.Fprintln(out, "sledge agent: stopped")
	return nil
}
