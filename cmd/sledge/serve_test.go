package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/sledge-bench/sledge/internal/app"
	"github.com/sledge-bench/sledge/internal/output"
	"github.com/sledge-bench/sledge/internal/server"
)

// testServer runs the API on e's repository and embedded database.
func testServer(e *testEnv, token string) *httptest.Server {
	t := e.t
	t.Helper()
	gs := e.state()
	repo, err := openRepo(context.Background(), gs)
	if err != nil {
		t.Fatal(err)
	}
	hub := output.NewHub()
	s := server.New(app.New(gs.serviceOptions(app.Options{Repo: repo, Hub: hub, Version: "test"})), repo, hub, token)
	ts := httptest.NewServer(s.Handler())
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		s.Shutdown(ctx)
		ts.Close()
		repo.Close()
	})
	return ts
}

// TestRemoteCLI drives a server from the CLI: `sledge --server URL run` and
// `sledge --server URL jobs`.
func TestRemoteCLI(t *testing.T) {
	if testing.Short() {
		t.Skip("runs on SQLite")
	}
	t.Parallel()
	e := newEnv(t)
	e.tpcc() // the server's embedded default, as a first run leaves it
	ts := testServer(e, "tok")
	e.set("SLEDGE_TOKEN", "tok")
	out := e.ok("--server", ts.URL, "run", "--vu", "2", "--rampup", "1s", "--duration", "3s", "--interval", "1s")
	for _, want := range []string{"run job", "measure", "TPROC-C result (job 1): completed", "  NOPM  "} {
		if !strings.Contains(out, want) {
			t.Errorf("remote run output lacks %q:\n%s", want, out)
		}
	}
	out = e.ok("--server", ts.URL, "jobs", "--format", "json", "--kind", "run")
	var list []map[string]any
	if err := json.Unmarshal([]byte(out), &list); err != nil || len(list) != 1 || list[0]["status"] != "completed" {
		t.Errorf("remote jobs: %v %s", err, out)
	}
	// A spec the server refuses is worded as this front end's flag.
	if _, err := e.run("--server", ts.URL, "run", "--vu", "-3"); err == nil || !strings.Contains(err.Error(), "--vu") {
		t.Errorf("remote run with a bad --vu: %v", err)
	}
	// A remote run stopped on the server ends as a local one interrupted
	// does: exit status 130, and the line saying so on stderr.
	gs := e.state()
	type ended struct{ err error }
	done := make(chan ended, 1)
	go func() {
		_, err := runSledge(context.Background(), gs, "--server", ts.URL, "run", "--vu", "1", "--rampup", "0s", "--duration", "10m", "--interval", "1s")
		done <- ended{err}
	}()
	var (
		stopped bool
		id      string
	)
	for !stopped {
		select {
		case r := <-done:
			t.Fatalf("the remote run ended before it was stopped: %v\n%s", r.err, testStderr(gs))
		case <-time.After(100 * time.Millisecond):
		}
		var running []map[string]any
		if err := json.Unmarshal([]byte(e.ok("--server", ts.URL, "jobs", "--format", "json", "--status", "running")), &running); err != nil || len(running) != 1 {
			continue
		}
		id = fmt.Sprint(running[0]["id"])
		req, _ := http.NewRequest(http.MethodPost, ts.URL+"/api/jobs/"+id+"/stop", nil)
		req.Header.Set("Authorization", "Bearer tok")
		req.Header.Set("Content-Type", "application/json")
		if resp, err := http.DefaultClient.Do(req); err == nil {
			stopped = resp.StatusCode == http.StatusAccepted
			resp.Body.Close()
		}
	}
	var code interface{ ExitCode() int }
	if r := <-done; !errors.As(r.err, &code) || code.ExitCode() != exitInterrupted || !strings.Contains(testStderr(gs), "sledge: run job "+id+" interrupted\n") {
		t.Errorf("a remote run stopped on the server: %v; stderr:\n%s", r.err, testStderr(gs))
	}
	e.set("SLEDGE_TOKEN", "wrong")
	if _, err := e.run("--server", ts.URL, "jobs"); err == nil || !strings.Contains(err.Error(), "token") {
		t.Errorf("wrong token: %v", err)
	}
	if _, err := e.run("--server", "ftp://x", "jobs"); err == nil || !strings.Contains(err.Error(), "--server") {
		t.Errorf("bad server URL: %v", err)
	}
}
