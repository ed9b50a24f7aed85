package agent

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"
)

// shutdownGrace is how long a stopping agent lets a scrape in flight
// finish: reading /proc takes milliseconds, so this is generous.
const shutdownGrace = 5 * time.Second

// Serve answers GET /metrics on ln with procRoot's figures until ctx ends,
// then lets a scrape in flight finish. Stopping is not an error.
func Serve(ctx context.Context, ln net.Listener, procRoot string) error {
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", Handler(procRoot))
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		if errors.Is(err, http.ErrServerClosed) {
			return nil
		}
		return fmt.Errorf("serving OS metrics: %w", err)
	case <-ctx.Done():
	}
	shutdown, cancel := context.WithTimeout(context.WithoutCancel(ctx), shutdownGrace)
	defer cancel()
	if err := srv.Shutdown(shutdown); err != nil {
		return fmt.Errorf("stopping the agent: %w", err)
	}
	return nil
}
