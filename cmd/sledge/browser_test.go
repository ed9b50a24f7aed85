package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/sledge-bench/sledge/internal/app"
	"github.com/sledge-bench/sledge/internal/config"
	"github.com/sledge-bench/sledge/internal/jobs"
	"github.com/sledge-bench/sledge/internal/metrics"
	"github.com/sledge-bench/sledge/internal/metrics/metricstest"
	"github.com/sledge-bench/sledge/internal/observe"
	"github.com/sledge-bench/sledge/internal/output"
	"github.com/sledge-bench/sledge/internal/sandbox"
	"github.com/sledge-bench/sledge/internal/script/scripttest"
	"github.com/sledge-bench/sledge/internal/server"
	"github.com/sledge-bench/sledge/internal/testdb"
	"github.com/sledge-bench/sledge/internal/testdb/tpcctest"
	"github.com/sledge-bench/sledge/internal/threshold"
)

// TestWebUIInChromium drives the web UI in headless Chromium: the script
// web-tests/ui.mjs (playwright-core from npm, Debian's chromium as the
// browser) first has a page of another origin (a second server started
// here) try forms and no-cors fetches against the API, then starts a run
// from the form, watches it live, stops it, reads the result, runs a second
// job and compares the two, builds on a named target and drops it (each
// after confirming), against a server with a target policy on a fresh
// repository and embedded SQLite database. Screenshots go to
// $SLEDGE_TEST_ARTIFACTS/webui/TestWebUIInChromium, else
// web-tests/artifacts/TestWebUIInChromium (gitignored).
//
// TestWebUIProfileInChromium and TestWebUISeriesInChromium drive the
// profile, load model and series pages, each on a server of its own.
//
// Chromium is installed with apt-get when it is missing and the test runs as
// root, playwright-core with `npm ci` when web-tests/node_modules lacks it.
// When either cannot be had the test skips, or fails when $CI is set.
//
// The scripts wait on what the page shows, each wait up to the test's
// deadline (-timeout, less a margin to report and clean up): they pass on
// a busy machine, and one that hangs fails with its screenshot.
func TestWebUIInChromium(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs on SQLite, drives a browser")
	}
	t.Parallel()
	webTests, chromium, node, artifacts := browserEnv(t)

	e := newEnv(t)
	ts, repo, foreign := policyServer(e)
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = io.WriteString(w, otherSitePage)
	}))
	defer other.Close()
	// Another site: localhost is not the same site as 127.0.0.1 (ui.mjs
	// also tries 127.0.0.1 on this port: the same site, another origin).
	otherURL := strings.Replace(other.URL, "127.0.0.1", "localhost", 1)

	ctx, cancel := testContext(t)
	defer cancel()
	start := time.Now()
	err := runStreaming(t, nodeCommand(ctx, t, webTests, node, chromium, "ui.mjs", ts.URL, artifacts, otherURL))
	t.Logf("ui.mjs took %s; screenshots in %s", time.Since(start).Round(100*time.Millisecond), artifacts)
	if ctx.Err() == context.DeadlineExceeded {
		t.Fatalf("ui.mjs did not finish by the test's deadline (see %s)", artifacts)
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

// TestWebUIProfileInChromium runs a small profile (1 and 2 VUs, 2 s each)
// on the embedded database (as a first run leaves it) of a server like
// TestWebUIInChromium's, and has ui.mjs check its pages ($SLEDGE_PROFILE).
func TestWebUIProfileInChromium(t *testing.T) {
	if testing.Short() {
		t.Skip("runs on SQLite, drives a browser")
	}
	t.Parallel()
	webTests, chromium, node, artifacts := browserEnv(t)
	e := newEnv(t)
	e.tpcc()
	ts, repo, _ := policyServer(e)
	outs, err := app.New(e.state().serviceOptions(app.Options{Repo: repo, Version: "test"})).RunProfile(t.Context(), app.Request{Spec: shortRun()}, []int{1, 2}, 1)
	if err != nil || len(outs) != 2 {
		t.Fatalf("profile: %d jobs, %v", len(outs), err)
	}
	elsewhere := elsewhereBuild(t, repo, outs[0].ID)
	ctx, cancel := testContext(t)
	defer cancel()
	cmd := nodeCommand(ctx, t, webTests, node, chromium, "ui.mjs", ts.URL, artifacts)
	cmd.Env = append(cmd.Env, fmt.Sprint("SLEDGE_PROFILE=", outs[0].ID), fmt.Sprint("SLEDGE_PROFILE_MEMBER=", outs[1].ID),
		fmt.Sprint("SLEDGE_ELSEWHERE=", elsewhere))
	if err := runStreaming(t, cmd); err != nil {
		t.Fatalf("ui.mjs (profile %d): %v (screenshots in %s)", outs[0].ID, err, artifacts)
	}
}

// elsewhereBuild records a completed build as if made on another client
// machine (job like's facts but the host) against another version of
// SQLite: the compare page of like and it must say that both differ.
func elsewhereBuild(t *testing.T, repo *jobs.Repo, like int64) int64 {
	t.Helper()
	ctx := t.Context()
	sys, err := repo.System(ctx, like)
	if err != nil || len(sys) == 0 {
		t.Fatalf("job %d's system: %v %v", like, sys, err)
	}
	sys["host"] = "elsewhere"
	id, err := repo.Create(ctx, jobs.Job{Kind: jobs.KindBuild, Workload: "tprocc", DBKind: "sqlite"}, map[string]string{"warehouses": "1"})
	if err == nil {
		err = errors.Join(repo.SetSystem(ctx, id, sys), repo.SetDBVersion(ctx, id, "SQLite 3.0.1"),
			repo.Finish(ctx, id, metrics.StatusCompleted, ""))
	}
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// TestWebUISeriesInChromium runs a series of three 2 s trials (sledge run
// --repeat 3) on the embedded database of a server like
// TestWebUIInChromium's; ui.mjs starts a staged run and a rate run from the
// page itself, watches them live, and checks their pages and the series'
// (the Load, Stages and Series panels, $SLEDGE_SERIES).
func TestWebUISeriesInChromium(t *testing.T) {
	if testing.Short() {
		t.Skip("runs on SQLite, drives a browser")
	}
	t.Parallel()
	webTests, chromium, node, artifacts := browserEnv(t)
	e := newEnv(t)
	e.tpcc()
	ts, repo, _ := policyServer(e)
	// Three trials: the fewest a confidence interval is given for.
	trials, err := app.New(e.state().serviceOptions(app.Options{Repo: repo, Version: "test"})).RunSeries(t.Context(), app.Request{Spec: shortRun()}, 3)
	if err != nil || len(trials) != 3 {
		t.Fatalf("series: %d jobs, %v", len(trials), err)
	}
	ctx, cancel := testContext(t)
	defer cancel()
	cmd := nodeCommand(ctx, t, webTests, node, chromium, "ui.mjs", ts.URL, artifacts)
	cmd.Env = append(cmd.Env, fmt.Sprintf("SLEDGE_SERIES=%d,%d,%d", trials[0].ID, trials[1].ID, trials[2].ID))
	start := time.Now()
	if err := runStreaming(t, cmd); err != nil {
		t.Fatalf("ui.mjs (load models, stages, series %d): %v (screenshots in %s)", trials[0].ID, err, artifacts)
	}
	t.Logf("ui.mjs (load models, stages, series) took %s", time.Since(start).Round(100*time.Millisecond))
}

// shortRun is a TPROC-C run on the embedded default of 2 s without ramp-up.
func shortRun() config.Spec {
	spec := config.New(config.KindRun)
	spec.Rampup, spec.Duration, spec.Interval = 0, config.Duration(2*time.Second), config.Duration(time.Second)
	return spec
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

// policyServer is `sledge serve` as the browser test runs it: e's fresh
// repository and data directory, a target policy naming "scratch" (an
// SQLite file elsewhere) and "bench-pg" (a PostgreSQL URL with a password,
// never used: the page must not show it), and a log of the state-changing
// requests that came from another origin.
func policyServer(e *testEnv, moreTargets ...string) (*httptest.Server, *jobs.Repo, *foreignLog) {
	t := e.t
	t.Helper()
	gs := e.state()
	repo, err := openRepo(context.Background(), gs)
	if err != nil {
		t.Fatal(err)
	}
	policy, err := targetPolicy(gs, append([]string{
		"scratch=sqlite:" + filepath.Join(t.TempDir(), "scratch.db"),
		"bench-pg=postgres://bench:topsecret@127.0.0.1:1/tpcc",
	}, moreTargets...), nil, false)
	if err != nil {
		t.Fatal(err)
	}
	hub := output.NewHub()
	s := server.New(app.New(gs.serviceOptions(app.Options{Repo: repo, Hub: hub, Version: "test", Targets: policy})), repo, hub, "")
	api := s.Handler()
	foreign := &foreignLog{}
	var ts *httptest.Server
	ts = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		origin := r.Header.Get("Origin")
		if r.Method == http.MethodGet || origin == "" || origin == ts.URL {
			// A slow answer is logged: when a page waits, this says whether
			// the server held the request (or the browser never sent it).
			start := time.Now()
			api.ServeHTTP(w, r) // (the event stream needs the writer as it is)
			if d := time.Since(start); d > 2*time.Second && !strings.HasSuffix(r.URL.Path, "/events") {
				t.Logf("server: %s %s answered in %s", r.Method, r.URL.Path, d.Round(time.Millisecond))
			}
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

// nodeCommand is node running script of the web-tests directory with args,
// on Chromium, killed should the test binary die. Its waits end at
// $SLEDGE_DEADLINE_MS (milliseconds since the epoch): a margin before
// ctx's deadline (the test's), so that a script that waited in vain still
// reports where, with its screenshot.
func nodeCommand(ctx context.Context, t *testing.T, webTests, node, chromium, script string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, node, append([]string{filepath.Join(webTests, script)}, args...)...)
	cmd.Dir = webTests
	deadline := testDeadline(t)
	if d, ok := ctx.Deadline(); ok && d.Before(deadline) {
		deadline = d
	}
	cmd.Env = append(os.Environ(), "CHROMIUM="+chromium, fmt.Sprint("SLEDGE_DEADLINE_MS=", deadline.Add(-testDeadlineMargin).UnixMilli()))
	cmd.WaitDelay = 10 * time.Second
	testdb.DieWithTest(cmd)
	return cmd
}

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
	// npm ci replaces node_modules: one at a time, among the browser tests
	// running at once and the test binaries too (a file lock).
	if lock, err := os.OpenFile(filepath.Join(os.TempDir(), "sledge-web-tests-npm.lock"), os.O_CREATE|os.O_RDWR, 0o666); err == nil {
		defer lock.Close()
		if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err == nil {
			defer syscall.Flock(int(lock.Fd()), syscall.LOCK_UN)
		}
		if _, err := os.Stat(pkg); err == nil {
			return node, nil // installed meanwhile
		}
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

// TestWebUIObservedInChromium drives the server section of a run's job page
// in headless Chromium (web-tests/observed.mjs): a stored run with what a
// PostgreSQL observer and a host observer saw shows the active sessions
// stacked by wait class under the TPM chart (a Lock spike in two
// intervals, a gap), the server statistics and the settings table; a run
// without observations says it was not observed (and shows its thresholds'
// verdicts); and a run going on
// against the test's PostgreSQL server draws the chart live, growing with
// its intervals, until the page stops it. Screenshots go to a directory
// of its own beside TestWebUIInChromium's (observed-job.png,
// observed-section.png, not-observed-job.png, observed-live.png).
func TestWebUIObservedInChromium(t *testing.T) {
	if testing.Short() {
		t.Skip("drives a browser, builds and runs on PostgreSQL")
	}
	t.Parallel()
	webTests, chromium, node, artifacts := browserEnv(t)

	// The live run's database holds TPROC-C as a build leaves it.
	ts, repo, _ := policyServer(newEnv(t), "live-pg="+tpcctest.Postgres(t, tpcctest.Options{}))
	observed := storeRun(t, repo)
	observeStoredRun(t, repo, observed)
	unobserved := storeRun(t, repo)
	// Its thresholds: one passed, one failed, one not measured.
	if err := repo.SaveThresholds(context.Background(), unobserved, []threshold.Verdict{
		{Threshold: threshold.Threshold{Text: "nopm>=40000", Metric: "nopm", Op: ">=", Limit: 40000}, Value: 41000, HasValue: true, Pass: true},
		{Threshold: threshold.Threshold{Text: "p99(new_order)<5ms", Metric: "p99", Name: "new_order", Op: "<", Limit: 5, Unit: "ms"}, Value: 12.5, HasValue: true},
		{Threshold: threshold.Threshold{Text: "p99(delivery)<1s", Metric: "p99", Name: "delivery", Op: "<", Limit: 1, Unit: "s"}, Note: "no transaction completed in the window"},
	}); err != nil {
		t.Fatal(err)
	}
	group := storeGroupRun(t, repo)
	// The observed run imported back: the page marks it and reads it as
	// the original.
	exported, err := repo.Export(context.Background(), []int64{observed}, "test", time.Now())
	if err != nil {
		t.Fatal(err)
	}
	imported, err := repo.Import(context.Background(), exported, time.Now())
	if err != nil {
		t.Fatal(err)
	}

	mixed := storeMixedRun(t, repo)

	// Long enough that only the page's Stop ends it.
	live := postJob(t, ts.URL, `{"kind":"run","db":"live-pg","vu":2,"rampup":"2s","duration":"5m","interval":"1s"}`)

	ctx, cancel := testContext(t)
	defer cancel()
	cmd := nodeCommand(ctx, t, webTests, node, chromium, "observed.mjs", ts.URL, artifacts,
		fmt.Sprint(observed), fmt.Sprint(unobserved), live)
	cmd.Env = append(cmd.Env, fmt.Sprint("AGENTS_ID=", group), fmt.Sprint("IMPORTED_ID=", imported[0].ID), fmt.Sprint("MIXED_ID=", mixed))
	err = runStreaming(t, cmd)
	if err != nil {
		// The page did not get to stop it: stop it here.
		if resp, perr := http.Post(ts.URL+"/api/jobs/"+live+"/stop", "application/json", nil); perr == nil {
			resp.Body.Close()
		}
	}
	status := waitJob(t, ts.URL, live) // whatever happened, the run ends before the server does
	if err != nil {
		t.Fatalf("observed.mjs: %v (screenshots in %s)", err, artifacts)
	}
	if status == "running" || status == "failed" {
		t.Errorf("the live run ended %s after the page's Stop", status)
	}
	id, _ := strconv.ParseInt(live, 10, 64)
	obs, err := repo.Observations(context.Background(), id)
	if err != nil || len(obs) == 0 {
		t.Fatalf("the live run's observations: %d, %v", len(obs), err)
	}
}

// postJob starts a job through the API and returns its id.
func postJob(t *testing.T, base, body string) string {
	t.Helper()
	resp, err := http.Post(base+"/api/jobs", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var created struct {
		ID string `json:"id"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&created); err != nil || resp.StatusCode != http.StatusCreated || created.ID == "" {
		t.Fatalf("POST /api/jobs %s: %s, %+v, %v", body, resp.Status, created, err)
	}
	return created.ID
}

// waitJob waits for job id to end and returns its status; should it still
// run a minute before the test's deadline, it stops it first.
func waitJob(t *testing.T, base, id string) string {
	t.Helper()
	deadline := testDeadline(t).Add(-time.Minute)
	stopped := false
	for {
		resp, err := http.Get(base + "/api/jobs/" + id)
		if err != nil {
			t.Fatal(err)
		}
		var job struct {
			Status string `json:"status"`
		}
		err = json.NewDecoder(resp.Body).Decode(&job)
		resp.Body.Close()
		if err != nil {
			t.Fatalf("GET /api/jobs/%s: %v", id, err)
		}
		if job.Status != "running" {
			return job.Status
		}
		if time.Now().After(deadline) {
			if stopped {
				return job.Status
			}
			if resp, err := http.Post(base+"/api/jobs/"+id+"/stop", "application/json", nil); err == nil {
				resp.Body.Close()
			}
			stopped, deadline = true, testDeadline(t)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// storeRun records a finished TPROC-C run on PostgreSQL: 12 intervals of
// 5 s, the first two of ramp-up, and its result.
func storeRun(t *testing.T, repo *jobs.Repo) int64 {
	t.Helper()
	ctx := context.Background()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	id, err := repo.Create(ctx, jobs.Job{Kind: jobs.KindRun, Workload: "tprocc", DBKind: "postgres",
		Target: "postgres://bench@127.0.0.1:5432/tpcc"}, map[string]string{"vu": "8", "warehouses": "10", "rampup": "10s", "duration": "50s"})
	must(err)
	must(repo.SetDBVersion(ctx, id, "PostgreSQL 16.4"))
	res := &metrics.RunResult{Status: metrics.StatusCompleted, VUs: 8, Warehouses: 10, Mode: "procs",
		Rampup: 10 * time.Second, Duration: 50 * time.Second, Measured: 50 * time.Second, NOPM: 41000, TPM: 95000}
	for _, name := range []string{"new_order", "payment", "delivery", "stock_level", "order_status"} {
		us := scripttest.Latencies[name]
		res.Tx = append(res.Tx, metrics.TxSummary{Name: name, Count: int64(len(us)), Histogram: metricstest.Histogram(t, us...)})
	}
	must(repo.SaveRunResult(ctx, id, res))
	for i := range 12 {
		phase := metrics.PhaseMeasure
		if i < 2 {
			phase = metrics.PhaseRampup
		}
		tpm := 95000.0 + float64(i%3)*1500
		if i == 5 || i == 6 {
			tpm = 52000 // the Lock spike
		}
		must(repo.AddInterval(ctx, id, metrics.Interval{Seq: i + 1, Phase: phase, Elapsed: time.Duration(i+1) * 5 * time.Second,
			Length: 5 * time.Second, TPM: tpm, NOPM: tpm * 0.45}))
	}
	must(repo.AppendOutput(ctx, id, "measured 50 s"))
	must(repo.Finish(ctx, id, metrics.StatusCompleted, ""))
	return id
}

// storeMixedRun records storeRun's run as a CH-benCHmark mixed run: one
// analytic stream from 20 s into the window, a query set and a half after
// (Qn taking n × 40 ms), NOPM 40,000 before it and 20,000 with it.
func storeMixedRun(t *testing.T, repo *jobs.Repo) int64 {
	t.Helper()
	ctx := context.Background()
	id := storeRun(t, repo)
	res, err := repo.RunResult(ctx, id)
	if err != nil || res == nil {
		t.Fatalf("stored run: %v, %v", res, err)
	}
	m := &metrics.MixedResult{Streams: 1, Order: "paper", Seed: 1, Delay: 20 * time.Second, AnalyticSeconds: 30}
	for i := range 33 {
		// Qn takes n × 40 ms: the queries' latency strips differ.
		start, took := 30*time.Second+time.Duration(i)*900*time.Millisecond, time.Duration(i%22+1)*40*time.Millisecond
		m.Runs = append(m.Runs, metrics.MixedRun{Stream: 1, Set: i/22 + 1, Position: i%22 + 1, Query: i%22 + 1,
			Start: start, End: start + took, Seconds: took.Seconds(), Rows: 3, Freshness: 0.2})
	}
	ivs := []metrics.Interval{
		{Phase: metrics.PhaseMeasure, Elapsed: 20 * time.Second, Length: 10 * time.Second, NOPM: 40000, TPM: 90000},
		{Phase: metrics.PhaseMeasure, Elapsed: 40 * time.Second, Length: 10 * time.Second, NOPM: 20000, TPM: 45000},
	}
	metrics.CompleteMixed(m, ivs, 10*time.Second)
	ms := time.Millisecond // the parts' latencies, as the web UI's table shows them
	m.BaselineTx = []metrics.MixedTxLatency{{Name: "new_order", Count: 100, P50: ms, P95: 2 * ms, P99: 3 * ms, Max: 5 * ms}}
	m.MixedTx = []metrics.MixedTxLatency{{Name: "new_order", Count: 50, P50: 4 * ms, P95: 8 * ms, P99: 16 * ms, Max: 30 * ms}}
	res.Mixed = m
	if err := repo.SaveRunResult(ctx, id, res); err != nil {
		t.Fatal(err)
	}
	return id
}

// storeGroupRun records a finished run driven by two agents: one handed in
// its part, the other was lost.
func storeGroupRun(t *testing.T, repo *jobs.Repo) int64 {
	t.Helper()
	ctx := context.Background()
	now := time.Now()
	noCheck := func(jobs.RunGroup, []jobs.Agent, map[string]string) error { return nil }
	var id int64
	for _, a := range []jobs.Agent{
		{Segment: "0/2", Host: "client1", PID: 101, VUs: 4, JoinedAt: now.Add(-time.Minute)},
		{Segment: "1/2", Host: "client2", PID: 202, FirstVU: 4, VUs: 4, ClockOffset: 3 * time.Millisecond, JoinedAt: now.Add(-time.Minute)},
	} {
		g, _, err := repo.JoinRun(ctx, "browser-group", jobs.Job{Kind: jobs.KindRun, Workload: "tprocc", DBKind: "postgres",
			Target: "postgres://bench@10.0.0.5:5432/tpcc"}, map[string]string{"vu": "8", "warehouses": "8"}, a, noCheck)
		if err != nil {
			t.Fatal(err)
		}
		id = g.JobID
	}
	part := &metrics.RunResult{Status: metrics.StatusCompleted, VUs: 4, NOPM: 20500, NewOrders: 10250, Commits: 23000,
		ClientCPU: 700 * time.Millisecond, ClientCPUPerTxUS: 30.4, Measured: 30 * time.Second}
	if err := repo.SaveAgentResult(ctx, id, "0/2", now, part); err != nil {
		t.Fatal(err)
	}
	if _, err := repo.MarkAgentLost(ctx, id, "1/2", now.Add(-time.Minute), now.Add(-time.Minute), now.Add(-50*time.Second)); err != nil {
		t.Fatal(err)
	}
	merged := *part
	merged.Status = metrics.StatusDegraded
	merged.Warnings = []string{"the merged numbers cover segments 0/2 only (4 virtual users): segment 1/2 (client2, pid 202) was lost"}
	if err := repo.SaveRunResult(ctx, id, &merged); err != nil {
		t.Fatal(err)
	}
	if err := repo.Finish(ctx, id, metrics.StatusDegraded, ""); err != nil {
		t.Fatal(err)
	}
	return id
}

// observeStoredRun stores what a PostgreSQL observer and a host observer
// saw of storeRun's run: sessions mostly on CPU, a Lock spike in intervals
// 6 and 7, a gap in interval 9, a requested checkpoint in interval 4.
func observeStoredRun(t *testing.T, repo *jobs.Repo, id int64) {
	t.Helper()
	ctx := context.Background()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(repo.SaveObserverStart(ctx, id, 0, "PostgreSQL sessions and statistics", observe.Start{
		Server: "PostgreSQL 16.4", Uptime: 26 * time.Hour,
		Settings: []observe.Setting{
			{Name: "shared_buffers", Value: "1GB", Source: "configuration file"},
			{Name: "max_connections", Value: "200", Source: "configuration file"},
			{Name: "synchronous_commit", Value: "off", Source: "configuration file"},
			{Name: "work_mem", Value: "16MB", Source: "session"},
		},
	}))
	must(repo.SaveObserverStart(ctx, id, 1, "client and database host", observe.Start{}))
	for i := range 12 {
		seq, f := i+1, float64(i%4)
		s := observe.Snapshot{Elapsed: time.Duration(seq) * 5 * time.Second, Length: 5 * time.Second, Samples: 50,
			Waits: []observe.Wait{
				{Class: "CPU", AAS: 3 + 0.2*f},
				{Class: "IO", Event: "DataFileRead", AAS: 0.6 - 0.1*f},
				{Class: "LWLock", Event: "WALWrite", AAS: 0.3},
				{Class: "Client", Event: "ClientRead", AAS: 0.2},
				{Class: "Lock", Event: "tuple", AAS: 0.05},
			},
			Counters: []observe.Counter{
				{Source: "pg_stat_database", Name: "xact_commit", Kind: observe.Delta, Value: 8000 + 100*f},
				{Source: "pg_stat_database", Name: "blks_hit", Kind: observe.Delta, Unit: "blocks", Value: 995000},
				{Source: "pg_stat_database", Name: "blks_read", Kind: observe.Delta, Unit: "blocks", Value: 5000},
				// The active sessions by kind: the VUs' and a mixed run's
				// analytic streams'.
				{Source: "pg_stat_activity application sledge vu", Name: "aas CPU", Kind: observe.Gauge, Unit: "sessions", Value: 3},
				{Source: "pg_stat_activity application sledge chbench analytic", Name: "aas IO", Kind: observe.Gauge, Unit: "sessions", Value: 0.5},
			},
		}
		if seq == 6 || seq == 7 {
			s.Waits = append(s.Waits, observe.Wait{Class: "Lock", Event: "transactionid", AAS: 2.5})
			s.Waits[0].AAS = 1.2
		}
		if seq == 4 {
			s.Counters = append(s.Counters, observe.Counter{Source: "pg_stat_checkpointer", Name: "num_requested", Kind: observe.Delta, Value: 1})
		}
		if seq == 9 {
			s.Samples, s.Gap = 20, "server went away: connection refused"
			for k := range s.Waits {
				s.Waits[k].AAS *= 0.4
			}
		}
		must(repo.AppendObserved(ctx, id, 0, seq, s))
		must(repo.AppendObserved(ctx, id, 1, seq, observe.Snapshot{Elapsed: s.Elapsed, Length: s.Length, Counters: []observe.Counter{
			{Source: observe.SourceOSCPU, Name: "user_pct", Kind: observe.Gauge, Unit: "%", Value: 52 + f},
			{Source: observe.SourceOSCPU, Name: "sys_pct", Kind: observe.Gauge, Unit: "%", Value: 14},
			{Source: observe.SourceOSCPU, Name: "iowait_pct", Kind: observe.Gauge, Unit: "%", Value: 3},
			{Source: observe.SourceOSDisk, Name: "mbps", Kind: observe.Gauge, Unit: "MB/s", Value: 38.5},
		}}))
	}
	must(repo.SaveObserverCost(ctx, id, 0, observe.Cost{Samples: 580, Queries: 640, QueryTime: 700 * time.Millisecond, Reconnects: 1, ServerShare: 0.003}))
	must(repo.SaveObserverCost(ctx, id, 1, observe.Cost{Samples: 12}))
}

// browserEnv is what a browser test needs: the web-tests directory,
// Chromium, node with playwright-core, and the screenshots' directory
// (emptied of an earlier run's failure.png). It skips the test when a tool
// cannot be had, or fails it when $CI is set.
func browserEnv(t *testing.T) (webTests, chromium, node, artifacts string) {
	t.Helper()
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
	if chromium, err = ensureChromium(t.Context(), t.Logf); err != nil {
		unavailable("Chromium is missing: %v", err)
	}
	if node, err = ensurePlaywright(t.Context(), webTests, t.Logf); err != nil {
		unavailable("playwright-core is missing: %v", err)
	}
	// A directory per test: the browser tests run at the same time.
	artifacts = filepath.Join(webTests, "artifacts", t.Name())
	if dir := os.Getenv("SLEDGE_TEST_ARTIFACTS"); dir != "" {
		artifacts = filepath.Join(dir, "webui", t.Name())
	}
	if err := os.MkdirAll(artifacts, 0o755); err != nil {
		t.Fatal(err)
	}
	_ = os.Remove(filepath.Join(artifacts, "failure.png")) // from an earlier run
	return webTests, chromium, node, artifacts
}
