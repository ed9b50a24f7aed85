package server

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"

	"github.com/sledge-bench/sledge/internal/app"
	"github.com/sledge-bench/sledge/internal/output"
)

// Config is how Serve listens.
type Config struct {
	// Listen is the address to listen on (host:port). Any host but a
	// loopback address requires a token.
	Listen string
	// Token is the bearer token every API request must send; empty means
	// none on loopback and a generated one (printed once) beyond it.
	Token string
	// TLSCert and TLSKey are PEM files; together they make Serve speak
	// HTTPS.
	TLSCert, TLSKey string
	// AllowedHosts are names (NAME or NAME:PORT) the server answers to
	// besides its listen address (and, on loopback, localhost, 127.0.0.1
	// and [::1]): a reverse proxy's public names (--host). Any other Host
	// header is refused, which defeats DNS rebinding.
	AllowedHosts []string
}

// shutdownGrace is how long Serve waits for the jobs to stop once ctx ends:
// longer than the engine's grace for transactions in flight (30 s), so that
// a job whose VUs must be cancelled still records its end before the
// repository closes. The HTTP server then gets httpGrace of its own.
const (
	shutdownGrace = 45 * time.Second
	httpGrace     = 5 * time.Second
)

// Serve serves the API of svc on cfg.Listen until ctx ends, then stops the
// running jobs (recorded as interrupted), waits for them and closes the
// server. It prints the address (and a generated token) to w. hub must be
// the one svc reports to; store is the repository svc records in, which
// Serve neither opens nor closes.
func Serve(ctx context.Context, w io.Writer, svc *app.Service, store Store, hub *output.Hub, cfg Config) error {
	if (cfg.TLSCert == "") != (cfg.TLSKey == "") {
		return errors.New("a TLS certificate and key go together")
	}
	token := cfg.Token
	host, port, err := net.SplitHostPort(cfg.Listen)
	if err != nil {
		return fmt.Errorf("listen address %q: %w", cfg.Listen, err)
	}
	if ip := net.ParseIP(host); (ip == nil || !ip.IsLoopback()) && host != "localhost" && token == "" {
		b := make([]byte, 24)
		if _, err := rand.Read(b); err != nil {
			return err
		}
		token = hex.EncodeToString(b)
		fmt.Fprintf(w, "listening beyond loopback: API token (shown once): %s\n", token)
	}
	s := New(svc, store, hub, token)
	hosts := cfg.AllowedHosts
	if host != "" && net.ParseIP(host) == nil {
		// A listen address given by name answers to that name (with its
		// port, unless it is chosen at listen time).
		name := cfg.Listen
		if port == "0" || port == "" {
			name = host
		}
		hosts = append([]string{name}, hosts...)
	}
	if err := s.SetAllowedHosts(hosts); err != nil {
		return err
	}
	ln, err := net.Listen("tcp", cfg.Listen)
	if err != nil {
		return fmt.Errorf("listen address %q: %w", cfg.Listen, err)
	}
	srv := &http.Server{Handler: s.Handler(), ReadHeaderTimeout: 10 * time.Second}
	scheme := "http"
	if cfg.TLSCert != "" {
		scheme = "https"
	}
	fmt.Fprintf(w, "sledge serve: %s://%s (API at /api, OpenAPI at /api/openapi.json)\n", scheme, ln.Addr())
	errc := make(chan error, 1)
	go func() {
		if cfg.TLSCert != "" {
			errc <- srv.ServeTLS(ln, cfg.TLSCert, cfg.TLSKey)
		} else {
			errc <- srv.Serve(ln)
		}
	}()
	select {
	case err := <-errc:
		// The listener failed (e.g. an unreadable certificate): stop what
		// was started before it did.
		shutdown, cancel := context.WithTimeout(context.Background(), shutdownGrace)
		defer cancel()
		s.Shutdown(shutdown)
		return err
	case <-ctx.Done():
	}
	// Ctrl-C: stop the running jobs (they record themselves as interrupted;
	// their event streams send the final status), then the server.
	shutdown, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	s.Shutdown(shutdown)
	closing, cancelHTTP := context.WithTimeout(context.Background(), httpGrace)
	defer cancelHTTP()
	return srv.Shutdown(closing)
}
