package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sledge-bench/sledge/internal/app"
	"github.com/sledge-bench/sledge/internal/jobs"
	"github.com/sledge-bench/sledge/internal/output"
	"github.com/sledge-bench/sledge/internal/sandbox"
	"github.com/sledge-bench/sledge/internal/server"
)

// TestWebUIInChromium drives the web UI in headless Chromium: the script
// web-tests/ui.mjs (playwright-core from npm, Debian's chromium as the
// browser) first has a page of another origin (a second server started
// here) try forms and no-cors fetches against the API, then starts a run
// from the form, watches it live, stops it, reads the result, runs a second
// job and compares the two, builds on a named target and drops it (each
// after confirming), against a server with a target policy on a fresh
// repository and embedded SQLite database. Screenshots go to
// $SLEDGE_TEST_ARTIFACTS/webui, else web-tests/artifacts (gitignored).
//
// Chromium is installed with apt-get when it is missing and the test runs as
// root, playwright-core with `npm ci` when web-tests/node_modules lacks it.
// When either cannot be had the test skips, or fails when $CI is set.
func TestWebUIInChromium(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs on SQLite, drives a browser")
	}
	webTests, err := filepath.Abs(filepath.Join("..", "..", "web-tests"))
	if err != nil {
		t.Fatal(err)
	}
	unavailable := func(format string, args ...any) {
		t.Helper()
		if os.Getenv("CI") != "" {
			t.Fatalf("CI is set but "+format, args...)
		}
		t.Skipf(format, args...)
	}
	chromium, err := ensureChromium(t.Context(), t.Logf)
	if err != nil {
		unavailable("Chromium is missing: %v", err)
	}
	node, err := ensurePlaywright(t.Context(), webTests, t.Logf)
	if err != nil {
		unavailable("playwright-core is missing: %v", err)
	}

	artifacts := filepath.Join(webTests, "artifacts")
	if dir := os.Getenv("SLEDGE_TEST_ARTIFACTS"); dir != "" {
		artifacts = filepath.Join(dir, "webui")
	}
	if err := os.MkdirAll(artifacts, 0o755); err != nil {
		t.Fatal(err)
	}
	_ = os.Remove(filepath.Join(artifacts, "failure.png")) // from an earlier run

	ts, repo, foreign := policyServer(t)
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = io.WriteString(w, otherSitePage)
	}))
	defer other.Close()
	// Another site: localhost is not the same site as 127.0.0.1 (ui.mjs
	// also tries 127.0.0.1 on this port: the same site, another origin).
	otherURL := strings.Replace(other.URL, "127.0.0.1", "localhost", 1)

	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, filepath.Join(webTests, "ui.mjs"), ts.URL, artifacts, otherURL)
	cmd.Dir = webTests
	cmd.Env = append(os.Environ(), "CHROMIUM="+chromium)
	cmd.WaitDelay = 10 * time.Second
	start := time.Now()
	err = runStreaming(t, cmd)
	t.Logf("ui.mjs took %s; screenshots in %s", time.Since(start).Round(100*time.Millisecond), artifacts)
	if ctx.Err() == context.DeadlineExceeded {
		t.Fatalf("ui.mjs did not finish within 3 minutes (see %s)", artifacts)
	}
	if err != nil {
		t.Fatalf("ui.mjs: %v (screenshots in %s)", err, artifacts)
	}

	// What the other origin sent reached the server and was refused, and
	// none of it became a job: the jobs are the five the UI started (the
	// first run's build, two runs, the build and the drop on the named
	// target).
	reqs := foreign.list()
	if len(reqs) < 6 {
		t.Errorf("only %d requests from the other origin reached the server: %v", len(reqs), reqs)
	}
	for _, r := range reqs {
		if !strings.HasSuffix(r, " 403") {
			t.Errorf("a request from the other origin was not refused: %s", r)
		}
	}
	t.Logf("refused from the other origin: %s", strings.Join(reqs, "; "))
	list, err := repo.List(context.Background(), jobs.ListFilter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 5 {
		for _, j := range list {
			t.Logf("job %d: %s %s %s", j.ID, j.Kind, j.Target, j.Status)
		}
		t.Errorf("%d jobs, want the 5 the UI started", len(list))
	}
}

// foreignLog records the state-changing requests that came from another
// origin, and how they were answered.
type foreignLog struct {
	mu   sync.Mutex
	reqs []string
}

func (f *foreignLog) add(s string) { f.mu.Lock(); f.reqs = append(f.reqs, s); f.mu.Unlock() }
func (f *foreignLog) list() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.reqs...)
}

// statusWriter remembers the status of a (non-streaming) answer.
type statusWriter struct {
	http.ResponseWriter
	code int
}

func (w *statusWriter) WriteHeader(code int) { w.code = code; w.ResponseWriter.WriteHeader(code) }

// policyServer is `sledge serve` as the browser test runs it: a fresh
// repository and data directory, a target policy naming "scratch" (an
// SQLite file elsewhere) and "bench-pg" (a PostgreSQL URL with a password,
// never used: the page must not show it), and a log of the state-changing
// requests that came from another origin.
func policyServer(t *testing.T) (*httptest.Server, *jobs.Repo, *foreignLog) {
	t.Helper()
	e2eEnv(t)
	repo, err := openRepo(context.Background(), &globals{})
	if err != nil {
		t.Fatal(err)
	}
	policy, err := targetPolicy(&globals{}, []string{
		"scratch=sqlite:" + filepath.Join(t.TempDir(), "scratch.db"),
		"bench-pg=postgres://bench:topsecret@127.0.0.1:1/tpcc",
	}, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	hub := output.NewHub()
	s := server.New(app.New(app.Options{Repo: repo, Hub: hub, Version: "test", Targets: policy}), repo, hub, "")
	api := s.Handler()
	foreign := &foreignLog{}
	var ts *httptest.Server
	ts = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		origin := r.Header.Get("Origin")
		if r.Method == http.MethodGet || origin == "" || origin == ts.URL {
			api.ServeHTTP(w, r) // (the event stream needs the writer as it is)
			return
		}
		sw := &statusWriter{ResponseWriter: w, code: http.StatusOK}
		api.ServeHTTP(sw, r)
		foreign.add(fmt.Sprintf("%s %s from %s (%s, Sec-Fetch-Site %s) %d", r.Method, r.URL.Path, origin,
			r.Header.Get("Content-Type"), r.Header.Get("Sec-Fetch-Site"), sw.code))
	}))
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		s.Shutdown(ctx)
		ts.Close()
		repo.Close()
	})
	return ts, repo, foreign
}

// otherSitePage is a page of another site aiming at the API (?api=BASE):
// the three kinds of form a page may send anywhere without asking (the
// text/plain one spelling a JSON job spec), submitted into an iframe.
// ui.mjs submits them and adds no-cors fetches.
const otherSitePage = `<!doctype html>
<html><head><meta charset="utf-8"><title>Another site</title><link rel="icon" href="data:,"></head>
<body style="font-family: sans-serif; margin: 24px">
<h1>Another site</h1>
<p>This page tries to start a benchmark on the Sledge server at <code id="api"></code>.</p>
<form id="form-text" method="POST" enctype="text/plain" target="sink">
<input type="hidden" name='{"kind":"run","vu":1,"rampup":"0s","duration":"1m","pad":"' value='"}'>
</form>
<form id="form-urlencoded" method="POST" target="sink"><input type="hidden" name="kind" value="run"></form>
<form id="form-multipart" method="POST" enctype="multipart/form-data" target="sink"><input type="hidden" name="kind" value="run"></form>
<iframe name="sink" title="answer" style="width: 720px; height: 160px; border: 1px solid #ccc"></iframe>
<script>
const api = new URLSearchParams(location.search).get('api') || '';
document.getElementById('api').textContent = api;
for (const f of document.forms) f.action = api + '/api/jobs';
</script>
</body></html>
`

// runStreaming runs cmd with its stdout and stderr going line by line to
// t.Log as they come.
func runStreaming(t *testing.T, cmd *exec.Cmd) error {
	t.Helper()
	pr, pw := io.Pipe()
	cmd.Stdout, cmd.Stderr = pw, pw
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		sc := bufio.NewScanner(pr)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			t.Log(sc.Text())
		}
		_, _ = io.Copy(io.Discard, pr)
	}()
	err := cmd.Start()
	if err == nil {
		err = cmd.Wait()
	}
	pw.Close()
	wg.Wait()
	return err
}

// ensureChromium returns the browser to drive: $CHROMIUM, else
// /usr/bin/chromium, which it installs from Debian's chromium package when
// it is missing and this process runs as root with apt-get.
func ensureChromium(ctx context.Context, logf func(string, ...any)) (string, error) {
	if p := os.Getenv("CHROMIUM"); p != "" {
		if _, err := os.Stat(p); err != nil {
			return "", fmt.Errorf("$CHROMIUM: %w", err)
		}
		return p, nil
	}
	const path = "/usr/bin/chromium"
	if _, err := os.Stat(path); err == nil {
		return path, nil
	}
	if !sandbox.CanAptInstall() {
		return "", fmt.Errorf("%s not found (install Debian's chromium package, or set $CHROMIUM)", path)
	}
	logf("%s not found; installing chromium with apt-get", path)
	ctx, cancel := context.WithTimeout(ctx, 15*time.Minute)
	defer cancel()
	ierr := sandbox.AptInstall(ctx, "chromium")
	if _, err := os.Stat(path); err != nil {
		return "", fmt.Errorf("%s still missing after apt-get install chromium: %v", path, ierr)
	}
	return path, nil
}

// ensurePlaywright makes sure web-tests/node_modules holds playwright-core,
// running `npm ci` (the versions package-lock.json pins) when it does not,
// and returns the node binary.
func ensurePlaywright(ctx context.Context, dir string, logf func(string, ...any)) (string, error) {
	node, err := exec.LookPath("node")
	if err != nil {
		return "", errors.New("node is not installed")
	}
	pkg := filepath.Join(dir, "node_modules", "playwright-core", "package.json")
	if _, err := os.Stat(pkg); err == nil {
		return node, nil
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		return "", errors.New("web-tests/node_modules lacks it and npm is not installed")
	}
	logf("web-tests/node_modules lacks playwright-core; running npm ci")
	ctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, npm, "ci", "--no-audit", "--no-fund")
	cmd.Dir = dir
	cmd.WaitDelay = 10 * time.Second
	out, cerr := cmd.CombinedOutput()
	if _, err := os.Stat(pkg); err != nil {
		if len(out) > 4096 {
			out = out[len(out)-4096:]
		}
		return "", fmt.Errorf("npm ci in %s (%v):\n%s", dir, cerr, strings.TrimSpace(string(out)))
	}
	return node, nil
}
