package server

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sledge-bench/sledge/internal/app"
	"github.com/sledge-bench/sledge/internal/jobs"
	"github.com/sledge-bench/sledge/internal/output"
)

// jobsIn lists the repository's jobs.
func jobsIn(t *testing.T, repo *jobs.Repo) []jobs.Job {
	t.Helper()
	list, err := repo.List(context.Background(), jobs.ListFilter{})
	if err != nil {
		t.Fatal(err)
	}
	return list
}

// errorBody decodes an error answer; it fails unless it is one.
func errorBody(t *testing.T, what string, b []byte) ErrorBody {
	t.Helper()
	var e ErrorBody
	if err := json.Unmarshal(b, &e); err != nil || e.Error == "" {
		t.Errorf("%s: not an error body: %s", what, b)
	}
	return e
}

// TestCrossSiteRequestsRefused: what a page of another site can make a
// browser send — forms (urlencoded, multipart, text/plain), no-cors fetches,
// requests carrying a foreign Origin or Sec-Fetch-Site, or a rebound DNS
// name in Host — is refused with 403 and changes nothing: no job is
// started, the running job is not stopped, none is deleted.
func TestCrossSiteRequestsRefused(t *testing.T) {
	if testing.Short() {
		t.Skip("runs on SQLite")
	}
	t.Parallel()
	ts, _, repo := testServerStore(t, "", nil)
	c := apiClient{t: t, base: ts.URL}
	id := c.json("POST", "/api/jobs", `{"kind":"run","vu":1,"rampup":"0s","duration":"10m","interval":"1s"}`, 201)["id"].(string)
	if st := c.json("GET", "/api/jobs/"+id, "", 200)["status"]; st != "running" {
		t.Fatalf("job %s: %v", id, st)
	}
	before := jobsIn(t, repo)
	u, _ := url.Parse(ts.URL)
	_, port, _ := net.SplitHostPort(u.Host)
	spec := `{"kind":"run","vu":1,"duration":"1m"}`
	// The classic JSON-in-a-form: name={"kind":"run",…,"x":" value="}
	plainJSON := `{"kind":"run","vu":1,"duration":"1m","x":"="}`
	multipart := "--b\r\nContent-Disposition: form-data; name=\"kind\"\r\n\r\nrun\r\n--b--\r\n"
	type H = http.Header
	asJSON := func(more H) H {
		h := H{"Content-Type": {"application/json"}}
		for k, v := range more {
			h[k] = v
		}
		return h
	}
	browser := func(ct string) H { // what Chromium sends with a cross-site form
		return H{"Content-Type": {ct}, "Origin": {"http://evil.example"}, "Sec-Fetch-Site": {"cross-site"}, "Sec-Fetch-Mode": {"navigate"}}
	}
	attacks := []struct {
		name, method, path, body string
		header                   H
		field                    string
	}{
		{"form urlencoded", "POST", "/api/jobs", "kind=run&vu=1", H{"Content-Type": {"application/x-www-form-urlencoded"}}, "Content-Type"},
		{"form text/plain", "POST", "/api/jobs", plainJSON, H{"Content-Type": {"text/plain"}}, "Content-Type"},
		{"form multipart", "POST", "/api/jobs", multipart, H{"Content-Type": {"multipart/form-data; boundary=b"}}, "Content-Type"},
		{"no content type", "POST", "/api/jobs", spec, nil, "Content-Type"},
		{"json look-alike", "POST", "/api/jobs", spec, H{"Content-Type": {"application/json-seq"}}, "Content-Type"},
		{"browser form urlencoded", "POST", "/api/jobs", "kind=run", browser("application/x-www-form-urlencoded"), "Sec-Fetch-Site"},
		{"browser form text/plain", "POST", "/api/jobs", plainJSON, browser("text/plain"), "Sec-Fetch-Site"},
		{"browser form multipart", "POST", "/api/jobs", multipart, browser("multipart/form-data; boundary=b"), "Sec-Fetch-Site"},
		{"no-cors fetch", "POST", "/api/jobs", spec, H{"Content-Type": {"text/plain;charset=UTF-8"}, "Origin": {"http://evil.example"}, "Sec-Fetch-Site": {"cross-site"}, "Sec-Fetch-Mode": {"no-cors"}}, "Sec-Fetch-Site"},
		{"foreign Origin", "POST", "/api/jobs", spec, asJSON(H{"Origin": {"http://evil.example"}}), "Origin"},
		{"Origin null", "POST", "/api/jobs", spec, asJSON(H{"Origin": {"null"}}), "Origin"},
		{"Origin on another port", "POST", "/api/jobs", spec, asJSON(H{"Origin": {"http://127.0.0.1:1"}}), "Origin"},
		{"Origin https same host", "POST", "/api/jobs", spec, asJSON(H{"Origin": {"https://127.0.0.1:" + port}}), "Origin"},
		{"Sec-Fetch-Site cross-site", "POST", "/api/jobs", spec, asJSON(H{"Sec-Fetch-Site": {"cross-site"}}), "Sec-Fetch-Site"},
		{"Sec-Fetch-Site same-site", "POST", "/api/jobs", spec, asJSON(H{"Sec-Fetch-Site": {"same-site"}}), "Sec-Fetch-Site"},
		{"Host rebound", "POST", "/api/jobs", spec, asJSON(H{"Host": {"evil.example"}}), "Host"},
		{"Host rebound with port", "POST", "/api/jobs", spec, asJSON(H{"Host": {"evil.example:" + port}}), "Host"},
		{"Host on another port", "POST", "/api/jobs", spec, asJSON(H{"Host": {"127.0.0.1:1"}}), "Host"},

		{"stop: form urlencoded", "POST", "/api/jobs/" + id + "/stop", "", H{"Content-Type": {"application/x-www-form-urlencoded"}}, "Content-Type"},
		{"stop: form text/plain", "POST", "/api/jobs/" + id + "/stop", "x=y", H{"Content-Type": {"text/plain"}}, "Content-Type"},
		{"stop: form multipart", "POST", "/api/jobs/" + id + "/stop", multipart, H{"Content-Type": {"multipart/form-data; boundary=b"}}, "Content-Type"},
		{"stop: empty, no content type", "POST", "/api/jobs/" + id + "/stop", "", nil, "Content-Type"},
		{"stop: browser form", "POST", "/api/jobs/" + id + "/stop", "", browser("application/x-www-form-urlencoded"), "Sec-Fetch-Site"},
		{"stop: foreign Origin", "POST", "/api/jobs/" + id + "/stop", "", asJSON(H{"Origin": {"http://evil.example"}}), "Origin"},
		{"stop: Sec-Fetch-Site cross-site", "POST", "/api/jobs/" + id + "/stop", "", asJSON(H{"Sec-Fetch-Site": {"cross-site"}}), "Sec-Fetch-Site"},
		{"stop: Host rebound", "POST", "/api/jobs/" + id + "/stop", "", asJSON(H{"Host": {"evil.example"}}), "Host"},
		{"delete: text/plain", "DELETE", "/api/jobs/" + strconv.FormatInt(before[len(before)-1].ID, 10), "", H{"Content-Type": {"text/plain"}}, "Content-Type"},
		{"delete: foreign Origin", "DELETE", "/api/jobs/" + id, "", asJSON(H{"Origin": {"http://evil.example"}}), "Origin"},
		{"PUT form", "PUT", "/api/jobs", "kind=run", H{"Content-Type": {"application/x-www-form-urlencoded"}}, "Content-Type"},
		{"POST to the UI", "POST", "/", plainJSON, H{"Content-Type": {"text/plain"}}, "Content-Type"},
		{"POST to /metrics", "POST", "/metrics", "", asJSON(H{"Origin": {"http://evil.example"}}), "Origin"},
		// DNS rebinding reads: every request's Host is checked.
		{"read: jobs", "GET", "/api/jobs", "", H{"Host": {"evil.example"}}, "Host"},
		{"read: config", "GET", "/api/jobs/" + id + "/config", "", H{"Host": {"evil.example:" + port}}, "Host"},
		{"read: targets", "GET", "/api/targets", "", H{"Host": {"evil.example"}}, "Host"},
		{"read: metrics", "GET", "/metrics", "", H{"Host": {"evil.example"}}, "Host"},
		{"read: events", "GET", "/api/jobs/" + id + "/events", "", H{"Host": {"evil.example"}}, "Host"},
		{"read: UI", "GET", "/", "", H{"Host": {"evil.example"}}, "Host"},
		{"read: openapi", "HEAD", "/api/openapi.json", "", H{"Host": {"localhost.evil.example"}}, "Host"},
	}
	for _, a := range attacks {
		code, b := c.doWith(a.method, a.path, a.body, a.header)
		if code != http.StatusForbidden {
			t.Errorf("%s: %s %s: %d %s, want 403", a.name, a.method, a.path, code, b)
			continue
		}
		if a.method == "HEAD" {
			continue
		}
		if e := errorBody(t, a.name, b); e.Field != a.field {
			t.Errorf("%s: refused naming %q (%s), want %q", a.name, e.Field, e.Error, a.field)
		}
	}
	after := jobsIn(t, repo)
	if len(after) != len(before) {
		t.Errorf("refused requests changed the jobs: %d before, %d after", len(before), len(after))
	}
	if st := c.json("GET", "/api/jobs/"+id, "", 200)["status"]; st != "running" {
		t.Errorf("the running job is %v after the refused requests", st)
	}

	// What the server's own pages and its clients send passes.
	for _, host := range []string{"127.0.0.1:" + port, "localhost:" + port, "LOCALHOST:" + port, "[::1]:" + port} {
		if code, b := c.doWith("GET", "/api/jobs", "", H{"Host": {host}}); code != 200 {
			t.Errorf("GET with Host %s: %d %s", host, code, b)
		}
	}
	same := H{"Content-Type": {"application/json; charset=utf-8"}, "Origin": {ts.URL}, "Sec-Fetch-Site": {"same-origin"}, "Sec-Fetch-Mode": {"cors"}}
	if code, b := c.doWith("POST", "/api/jobs", `{"kind":"run","vu":-1}`, same); code != 400 {
		t.Errorf("same-origin POST: %d %s, want 400 from the handler", code, b)
	}
	if code, b := c.doWith("POST", "/api/jobs/"+id+"/stop", "", same); code != 202 {
		t.Fatalf("same-origin stop: %d %s", code, b)
	}
	if st := c.waitEnd(id, 30*time.Second); st != "interrupted" {
		t.Errorf("stopped job: %s", st)
	}
}

// TestAllowedHosts: --host names (a reverse proxy's) are answered to and
// their origins accepted; bad names are refused at start.
func TestAllowedHosts(t *testing.T) {
	t.Parallel()
	svc, repo, hub := testService(t)
	defer repo.Close()
	s := New(svc, repo, hub, "")
	if err := s.SetAllowedHosts([]string{"Sledge.Example.com", "proxy.lan:8443"}); err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(s.Handler())
	defer ts.Close()
	c := apiClient{t: t, base: ts.URL}
	type H = http.Header
	for _, tc := range []struct {
		method string
		header H
		want   int
	}{
		{"GET", H{"Host": {"sledge.example.com"}}, 200},
		{"GET", H{"Host": {"sledge.example.com:443"}}, 200},
		{"GET", H{"Host": {"proxy.lan:8443"}}, 200},
		{"GET", H{"Host": {"proxy.lan"}}, 403},
		{"GET", H{"Host": {"proxy.lan:8444"}}, 403},
		{"GET", H{"Host": {"example.com"}}, 403},
		{"GET", H{"Host": {"sledge.example.com.evil.example"}}, 403},
		// The proxy keeps the Host; the browser sends its origin.
		{"POST", H{"Host": {"sledge.example.com"}, "Origin": {"https://sledge.example.com"}, "Sec-Fetch-Site": {"same-origin"}, "Content-Type": {"application/json"}}, 400},
		// The proxy rewrites the Host to the backend's address.
		{"POST", H{"Origin": {"https://sledge.example.com"}, "Content-Type": {"application/json"}}, 400},
		{"POST", H{"Origin": {"https://proxy.lan:8443"}, "Content-Type": {"application/json"}}, 400},
		{"POST", H{"Origin": {"https://proxy.lan"}, "Content-Type": {"application/json"}}, 403},
		{"POST", H{"Origin": {"https://evil.example"}, "Content-Type": {"application/json"}}, 403},
	} {
		code, b := c.doWith(tc.method, "/api/jobs", `{"kind":"run","vu":-1}`, tc.header)
		if code != tc.want {
			t.Errorf("%s %v: %d %s, want %d", tc.method, tc.header, code, b, tc.want)
		}
	}
	for _, bad := range []string{"", "http://sledge.example.com", "a/b", "x:0", "x:http", "[::1", "::1", "[nohost]", "a b", "a@b"} {
		if err := New(svc, repo, hub, "").SetAllowedHosts([]string{bad}); err == nil {
			t.Errorf("--host %q accepted", bad)
		}
	}
	for _, good := range []string{"[::1]:8080", "[fe80::1]", "10.0.0.5", "localhost"} {
		if err := New(svc, repo, hub, "").SetAllowedHosts([]string{good}); err != nil {
			t.Errorf("--host %q: %v", good, err)
		}
	}
	if err := Serve(context.Background(), &syncBuffer{}, svc, repo, hub, Config{Listen: "127.0.0.1:0", AllowedHosts: []string{"https://x"}}); err == nil {
		t.Error("Serve accepted a bad --host")
	}
}

// acceptCounter is a loopback TCP listener counting the connections it
// accepts: a database no refused target may reach.
func acceptCounter(t *testing.T) (string, *atomic.Int64) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	n := &atomic.Int64{}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			n.Add(1)
			c.Close()
		}
	}()
	return ln.Addr().String(), n
}

// policyServer runs the API over a service with a target policy: the named
// targets, the test's data directory, the repository reserved.
func policyServer(t *testing.T, named map[string]string) (*httptest.Server, *jobs.Repo, string) {
	t.Helper()
	dataDir := t.TempDir()
	repoPath := filepath.Join(dataDir, "jobs.db")
	repo, err := jobs.Open(context.Background(), repoPath)
	if err != nil {
		t.Fatal(err)
	}
	hub := output.NewHub()
	svc := app.New(app.Options{Repo: repo, Hub: hub, Version: "test", DataDir: dataDir, Targets: &app.TargetPolicy{
		Named: named, DataDir: dataDir, Reserved: []string{repoPath, filepath.Join(dataDir, "sandbox")}}})
	s := New(svc, repo, hub, "")
	ts := httptest.NewServer(s.Handler())
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		s.Shutdown(ctx)
		ts.Close()
		repo.Close()
	})
	return ts, repo, dataDir
}

// TestTargetPolicyOverAPI: a server with a target policy refuses every
// target outside it with 403 (field db) — no job, no file, no directory,
// no connection — lists its named targets without their URLs, and runs
// jobs on a named target and on the embedded default.
func TestTargetPolicyOverAPI(t *testing.T) {
	// Not parallel: t.Chdir changes the whole binary's working directory.
	if testing.Short() {
		t.Skip("builds and runs on SQLite")
	}
	t.Chdir(t.TempDir()) // where an escaping relative path would land
	addr, accepted := acceptCounter(t)
	elsewhere := t.TempDir()
	named := filepath.Join(elsewhere, "named", "scratch.db")
	ts, repo, dataDir := policyServer(t, map[string]string{
		"scratch": "sqlite:" + named,
		"pg":      "postgres://bench:secretpw@" + addr + "/tpcc",
	})
	c := apiClient{t: t, base: ts.URL}

	// GET /api/targets: names and kinds, never URLs.
	code, b := c.do("GET", "/api/targets", "")
	var tl Targets
	if code != 200 || json.Unmarshal(b, &tl) != nil {
		t.Fatalf("GET /api/targets: %d %s", code, b)
	}
	if len(tl.Targets) != 2 || tl.Targets[0] != (app.NamedTarget{Name: "pg", Kind: "postgres"}) ||
		tl.Targets[1] != (app.NamedTarget{Name: "scratch", Kind: "sqlite"}) || tl.AllowAny || !tl.Embedded {
		t.Errorf("targets %+v", tl)
	}
	for _, secret := range []string{"secretpw", "bench", addr, elsewhere, "postgres://", "sqlite:"} {
		if strings.Contains(string(b), secret) {
			t.Errorf("GET /api/targets shows %q: %s", secret, b)
		}
	}

	tmpX := "/tmp/x"
	_, statErr := os.Stat(tmpX)
	tmpXExisted := statErr == nil
	outside := t.TempDir()
	cwd, _ := os.Getwd()
	for _, tc := range []struct {
		db      string
		mustNot []string
	}{
		{"sqlite:/tmp/x/new.db", []string{"/tmp/x/new.db"}},
		{"sqlite:" + filepath.Join(outside, "x", "new.db"), []string{filepath.Join(outside, "x")}},
		{"sqlite:../../escape.db", []string{filepath.Join(dataDir, "..", "..", "escape.db"), filepath.Join(cwd, "..", "..", "escape.db")}},
		{"duckdb:/root/x.duckdb", []string{"/root/x.duckdb"}},
		{"postgres://10.0.0.1:5432/x", nil},
		{"postgres://u:p@" + addr + "/x", nil},
		{"mysql://root@" + addr + "/x", nil},
		{"nosuch", nil},
		{"sqlite:", nil},
	} {
		for _, kind := range []string{"build", "run", "check"} {
			body := `{"kind":"` + kind + `","db":` + quote(tc.db) + `,"duration":"2s","rampup":"0s"}`
			code, b := c.do("POST", "/api/jobs", body)
			if code != http.StatusForbidden {
				t.Errorf("%s on %s: %d %s, want 403", kind, tc.db, code, b)
				continue
			}
			if e := errorBody(t, tc.db, b); e.Field != "db" || strings.Contains(e.Error, "refused") {
				t.Errorf("%s on %s: %+v, want field db and nothing about the network", kind, tc.db, e)
			}
		}
		for _, p := range tc.mustNot {
			if _, err := os.Lstat(p); err == nil {
				t.Errorf("%s: %s was created", tc.db, p)
			}
		}
	}
	if _, err := os.Stat(tmpX); err == nil && !tmpXExisted {
		t.Errorf("%s was created", tmpX)
	}
	if n := len(jobsIn(t, repo)); n != 0 {
		t.Errorf("%d jobs recorded for refused targets", n)
	}
	if entries, _ := os.ReadDir(outside); len(entries) != 0 {
		t.Errorf("%s gained %d entries", outside, len(entries))
	}
	if entries, _ := os.ReadDir(elsewhere); len(entries) != 0 {
		t.Errorf("the named target's directory was touched before its job: %d entries", len(entries))
	}
	time.Sleep(100 * time.Millisecond)
	if n := accepted.Load(); n != 0 {
		t.Errorf("%d connections to %s for refused targets", n, addr)
	}

	// A named target works: built at its URL, recorded by name.
	id := c.json("POST", "/api/jobs", `{"kind":"build","db":"scratch"}`, 201)["id"].(string)
	if st := c.waitEnd(id, 2*time.Minute); st != "completed" {
		t.Fatalf("build on the named target: %s", st)
	}
	if _, err := os.Stat(named); err != nil {
		t.Errorf("the named target's file: %v", err)
	}
	j := c.json("GET", "/api/jobs/"+id, "", 200)
	if j["target"] != "sqlite:"+named {
		t.Errorf("named job's target %v", j["target"])
	}
	if cfg := c.json("GET", "/api/jobs/"+id+"/config", "", 200); cfg["target"] != "scratch" {
		t.Errorf("named job's config %v", cfg)
	}
	// The named server target is dialled (and fails: the listener closes).
	c.json("POST", "/api/jobs", `{"kind":"check","db":"pg"}`, 201)
	deadline := time.Now().Add(10 * time.Second)
	for accepted.Load() == 0 && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	if accepted.Load() == 0 {
		t.Error("the named server target was never dialled")
	}

	// The default embedded target works (the first run builds it).
	id = c.json("POST", "/api/jobs", `{"kind":"run","vu":1,"rampup":"0s","duration":"2s","interval":"1s"}`, 201)["id"].(string)
	if st := c.waitEnd(id, 2*time.Minute); st != "completed" {
		t.Fatalf("run on the default target: %s", st)
	}
	if j := c.json("GET", "/api/jobs/"+id, "", 200); !strings.HasPrefix(j["target"].(string), "sqlite:"+dataDir) {
		t.Errorf("default target %v, want inside %s", j["target"], dataDir)
	}
	// An embedded database inside the data directory, by a relative path.
	id = c.json("POST", "/api/jobs", `{"kind":"check","db":"sqlite:mine/bench.db"}`, 201)["id"].(string)
	c.waitEnd(id, time.Minute)
	if j := c.json("GET", "/api/jobs/"+id, "", 200); j["target"] != "sqlite:"+filepath.Join(dataDir, "mine", "bench.db") {
		t.Errorf("relative embedded target %v", j["target"])
	}
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// TestDestructiveJobsNeedConfirm: a drop, or a build with force, without
// "confirm": true is 400 naming confirm, and no job.
func TestDestructiveJobsNeedConfirm(t *testing.T) {
	t.Parallel()
	ts, _, repo := testServerStore(t, "", nil)
	c := apiClient{t: t, base: ts.URL}
	for _, body := range []string{
		`{"kind":"drop"}`,
		`{"kind":"drop","confirm":false}`,
		`{"kind":"drop","workload":"tproch"}`,
		`{"kind":"build","force":true}`,
		`{"kind":"build","force":true,"confirm":false,"warehouses":2}`,
	} {
		code, b := c.do("POST", "/api/jobs", body)
		e := errorBody(t, body, b)
		if code != 400 || e.Field != "confirm" {
			t.Errorf("POST %s: %d %s, want 400 naming confirm", body, code, b)
		}
	}
	if n := len(jobsIn(t, repo)); n != 0 {
		t.Errorf("%d jobs recorded without confirm", n)
	}
	// Confirmed, the drop runs (on the empty embedded default: nothing to drop).
	id := c.json("POST", "/api/jobs", `{"kind":"drop","confirm":true}`, 201)["id"].(string)
	c.waitEnd(id, time.Minute)
}

// TestClientSendsJSON: the remote client's state-changing requests pass
// the guard, the stop with its empty body too.
func TestClientSendsJSON(t *testing.T) {
	if testing.Short() {
		t.Skip("runs on SQLite")
	}
	t.Parallel()
	ts, _ := testServer(t, "")
	c := apiClient{t: t, base: ts.URL}
	id := c.json("POST", "/api/jobs", `{"kind":"run","vu":1,"rampup":"0s","duration":"10m","interval":"1s"}`, 201)["id"].(string)
	cl, err := NewClient(ts.URL, "")
	if err != nil {
		t.Fatal(err)
	}
	if err := cl.call(context.Background(), "POST", "/api/jobs/"+id+"/stop", nil, nil); err != nil {
		t.Fatalf("client stop: %v", err)
	}
	if st := c.waitEnd(id, 30*time.Second); st != "interrupted" {
		t.Errorf("after the client's stop: %s", st)
	}
}
