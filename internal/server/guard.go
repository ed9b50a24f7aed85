package server

import (
	"fmt"
	"mime"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

// The guard refuses, before any handler runs, what a browser can be made to
// send to a server on localhost or a private network by a page of another
// site:
//
//   - every request (GET too: after DNS rebinding the attacker's page is
//     "same-origin" and reads the answers) whose Host is not a name this
//     server answers to: the address the connection came in on (for a
//     loopback address also localhost, 127.0.0.1 and [::1]) with its port,
//     and the names given with --host (Config.AllowedHosts);
//   - every state-changing request (any method but GET, HEAD and OPTIONS,
//     on /api/ and anywhere else) whose Sec-Fetch-Site, when sent, is not
//     same-origin or none, whose Origin, when sent, is not the server's own,
//     or whose Content-Type is not application/json. A page of another site
//     can send a form (urlencoded, multipart, text/plain) or a no-cors fetch
//     without asking; it cannot send application/json without a CORS
//     preflight, which this server never answers.
//
// Refusals are 403 with the usual JSON error body naming the header, and
// change nothing.

// hostPattern is one name the server answers to: a host, and a port or ""
// for any.
type hostPattern struct{ host, port string }

// parseHostPattern reads a --host value: NAME or NAME:PORT (an IPv6
// address in brackets).
func parseHostPattern(s string) (hostPattern, error) {
	in := strings.ToLower(strings.TrimSpace(s))
	if in == "" || strings.ContainsAny(in, "/?#@ \t") {
		return hostPattern{}, fmt.Errorf("--host %q: want a host name as clients write it (NAME or NAME:PORT, no scheme or path)", s)
	}
	if h, p, err := net.SplitHostPort(in); err == nil {
		if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 || h == "" {
			return hostPattern{}, fmt.Errorf("--host %q: bad port", s)
		}
		return hostPattern{host: h, port: p}, nil
	}
	h := in
	if strings.HasPrefix(h, "[") && strings.HasSuffix(h, "]") {
		h = h[1 : len(h)-1]
		if net.ParseIP(h) == nil {
			return hostPattern{}, fmt.Errorf("--host %q: not an IPv6 address in brackets", s)
		}
	} else if strings.ContainsAny(h, ":[]") {
		return hostPattern{}, fmt.Errorf("--host %q: want NAME or NAME:PORT ([ADDR] or [ADDR]:PORT for IPv6)", s)
	}
	return hostPattern{host: h}, nil
}

// SetAllowedHosts adds names (NAME or NAME:PORT; a NAME alone matches any
// port) that the server answers to besides the address a connection came
// in on: the public names of a reverse proxy in front of it. An Origin
// http(s)://NAME is then accepted too. Call it before Handler.
func (s *Server) SetAllowedHosts(names []string) error {
	for _, n := range names {
		p, err := parseHostPattern(n)
		if err != nil {
			return err
		}
		s.hosts = append(s.hosts, p)
	}
	return nil
}

// splitRequestHost splits a Host header (or an Origin's host) into its
// lowercase name and port, the port defaulting to the scheme's.
func splitRequestHost(hostport string, tls bool) (host, port string, ok bool) {
	hostport = strings.ToLower(hostport)
	if h, p, err := net.SplitHostPort(hostport); err == nil {
		return h, p, h != "" && p != ""
	}
	if hostport == "" || strings.HasSuffix(hostport, ":") {
		return "", "", false
	}
	h := hostport
	if strings.HasPrefix(h, "[") && strings.HasSuffix(h, "]") {
		h = h[1 : len(h)-1]
	} else if strings.Contains(h, ":") {
		return "", "", false // an IPv6 address needs brackets
	}
	if tls {
		return h, "443", true
	}
	return h, "80", true
}

// hostAllowed reports whether r's Host is a name the server answers to.
func (s *Server) hostAllowed(r *http.Request) bool {
	host, port, ok := splitRequestHost(r.Host, r.TLS != nil)
	if !ok {
		return false
	}
	for _, p := range s.hosts {
		if p.host == host && (p.port == "" || p.port == port) {
			return true
		}
	}
	local, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	if !ok {
		return false
	}
	tcp, ok := local.(*net.TCPAddr)
	if !ok || strconv.Itoa(tcp.Port) != port {
		return false
	}
	if ip := net.ParseIP(host); ip != nil && ip.Equal(tcp.IP) {
		return true
	}
	if tcp.IP.IsLoopback() {
		switch host {
		case "localhost", "127.0.0.1", "::1":
			return true
		}
	}
	return false
}

// originAllowed reports whether an Origin header is the server's own: the
// request's scheme and Host (an allowed one), or an http(s) origin on one
// of the --host names (a TLS-terminating proxy's pages are https while the
// server speaks http).
func (s *Server) originAllowed(origin string, r *http.Request) bool {
	u, err := url.Parse(origin)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" ||
		u.User != nil || (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" {
		return false // "null" (sandboxed frames, file:, redirects) among them
	}
	oh, op, ok := splitRequestHost(u.Host, u.Scheme == "https")
	if !ok {
		return false
	}
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	rh, rp, ok := splitRequestHost(r.Host, r.TLS != nil)
	if ok && u.Scheme == scheme && oh == rh && op == rp {
		return true
	}
	for _, p := range s.hosts {
		if p.host == oh && (p.port == "" || p.port == op) {
			return true
		}
	}
	return false
}

// safeMethod: the methods that never change state here.
func safeMethod(m string) bool {
	return m == http.MethodGet || m == http.MethodHead || m == http.MethodOptions
}

// guard wraps next with the checks above.
func (s *Server) guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !s.hostAllowed(r) {
			apiError(w, http.StatusForbidden, "Host", fmt.Sprintf("Host %q is not a name this server answers to "+
				"(a reverse proxy's public name is added with sledge serve --host NAME)", r.Host))
			return
		}
		if safeMethod(r.Method) {
			next.ServeHTTP(w, r)
			return
		}
		if site := r.Header.Get("Sec-Fetch-Site"); site != "" && site != "same-origin" && site != "none" {
			apiError(w, http.StatusForbidden, "Sec-Fetch-Site", fmt.Sprintf("refused: a %s request from another page "+
				"(Sec-Fetch-Site: %s); state-changing requests must come from this server's own pages or a non-browser client", r.Method, site))
			return
		}
		if origin := r.Header.Get("Origin"); origin != "" && !s.originAllowed(origin, r) {
			apiError(w, http.StatusForbidden, "Origin", fmt.Sprintf("refused: a %s request from origin %q, which is not this server's", r.Method, origin))
			return
		}
		mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
		if err != nil || mt != "application/json" {
			apiError(w, http.StatusForbidden, "Content-Type", fmt.Sprintf("refused: a %s request must send Content-Type: application/json "+
				"(even with an empty body); got %q", r.Method, r.Header.Get("Content-Type")))
			return
		}
		next.ServeHTTP(w, r)
	})
}
