package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	crand "crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"errors"
	"io"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// testServer runs the API on a fresh repository and embedded database.
func testServer(t *testing.T, token string) (*httptest.Server, *server) {
	t.Helper()
	e2eEnv(t)
	g := &globals{}
	repo, err := openRepo(context.Background(), g)
	if err != nil {
		t.Fatal(err)
	}
	s := newServer(g, repo, token)
	ts := httptest.NewServer(s.handler())
	t.Cleanup(func() {
		s.stopAll()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		s.wait(ctx)
		ts.Close()
		repo.Close()
	})
	return ts, s
}

type apiClient struct {
	t     *testing.T
	base  string
	token string
}

func (c apiClient) do(method, path, body string) (int, []byte) {
	c.t.Helper()
	req, err := http.NewRequest(method, c.base+path, strings.NewReader(body))
	if err != nil {
		c.t.Fatal(err)
	}
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b
}

func (c apiClient) json(method, path, body string, want int) map[string]any {
	c.t.Helper()
	code, b := c.do(method, path, body)
	if code != want {
		c.t.Fatalf("%s %s: %d %s, want %d", method, path, code, b, want)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		c.t.Fatalf("%s %s: %v in %s", method, path, err, b)
	}
	return m
}

func TestServeRunLifecycle(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs on SQLite")
	}
	ts, _ := testServer(t, "")
	c := apiClient{t: t, base: ts.URL}
	created := c.json("POST", "/api/jobs", `{"kind":"run","workload":"tprocc","vu":2,"rampup":"1s","duration":"4s","interval":"1s"}`, 201)
	id, _ := created["id"].(string)
	if id == "" {
		t.Fatalf("no id in %v", created)
	}
	if j := c.json("GET", "/api/jobs/"+id, "", 200); j["status"] != "running" || j["kind"] != "run" {
		t.Errorf("job while running: %v", j)
	}

	// Prometheus: the running job's live counters and latencies.
	deadline := time.Now().Add(20 * time.Second)
	for {
		code, b := c.do("GET", "/metrics", "")
		text := string(b)
		if code == 200 && strings.Contains(text, "sledge_jobs_running 1") &&
			strings.Contains(text, `sledge_job_transactions_total{job="`+id+`",transaction="new_order",workload="tprocc"}`) &&
			strings.Contains(text, `sledge_job_transaction_latency_seconds{job="`+id+`",quantile="0.95",transaction="new_order",workload="tprocc"}`) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("/metrics never showed the running job: %d\n%s", code, text)
		}
		time.Sleep(300 * time.Millisecond)
	}

	// The event stream: intervals while it runs, then the final status.
	resp, err := http.Get(ts.URL + "/api/jobs/" + id + "/events")
	if err != nil {
		t.Fatal(err)
	}
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Errorf("events content type %q", ct)
	}
	intervals, final := 0, ""
	sc := bufio.NewScanner(resp.Body)
	event := ""
	for sc.Scan() {
		line := sc.Text()
		if e, ok := strings.CutPrefix(line, "event: "); ok {
			event = e
		}
		if d, ok := strings.CutPrefix(line, "data: "); ok {
			var m map[string]any
			if err := json.Unmarshal([]byte(d), &m); err != nil {
				t.Fatalf("event data %q: %v", d, err)
			}
			switch event {
			case "interval":
				intervals++
				if _, ok := m["tpm"]; !ok {
					t.Errorf("interval without tpm: %v", m)
				}
			case "status":
				final, _ = m["status"].(string)
			}
		}
	}
	resp.Body.Close()
	if intervals < 3 || final != "completed" {
		t.Fatalf("event stream: %d intervals, final status %q", intervals, final)
	}

	res := c.json("GET", "/api/jobs/"+id+"/result", "", 200)
	requireKeys(t, "result", res, "status", "nopm", "tpm", "nopm_db_check", "vu", "duration_s", "transactions")
	if res["status"] != "completed" || res["vu"] != 2.0 {
		t.Errorf("result %v", res)
	}
	for _, p := range []string{"/series", "/output", "/audit"} {
		code, b := c.do("GET", "/api/jobs/"+id+p, "")
		if code != 200 || !strings.HasPrefix(strings.TrimSpace(string(b)), "[") || len(b) < 10 {
			t.Errorf("GET %s: %d %s", p, code, b)
		}
	}
	if timing := c.json("GET", "/api/jobs/"+id+"/timing", "", 200); timing["new_order"] == nil {
		t.Errorf("timing without new_order: %v", timing)
	}
	code, series := c.do("GET", "/api/jobs/"+id+"/series", "")
	if code != 200 || !strings.Contains(string(series), `"state": "running"`) {
		t.Errorf("series without per-VU state: %d", code)
	}
	if cfg := c.json("GET", "/api/jobs/"+id+"/config", "", 200); cfg["vu"] != "2" {
		t.Errorf("config %v", cfg)
	}
	code, b := c.do("GET", "/api/jobs?kind=run&workload=tprocc", "")
	if code != 200 || !strings.Contains(string(b), `"id": `+id) {
		t.Errorf("list: %d %s", code, b)
	}
	if code, b := c.do("DELETE", "/api/jobs/"+id, ""); code != 204 {
		t.Fatalf("delete: %d %s", code, b)
	}
	if code, _ := c.do("GET", "/api/jobs/"+id, ""); code != 404 {
		t.Errorf("after delete: %d", code)
	}
}

func TestServeStop(t *testing.T) {
	if testing.Short() {
		t.Skip("runs on SQLite")
	}
	ts, _ := testServer(t, "")
	c := apiClient{t: t, base: ts.URL}
	id := c.json("POST", "/api/jobs", `{"kind":"run","vu":1,"rampup":"0s","duration":"10m","interval":"1s"}`, 201)["id"].(string)
	time.Sleep(1500 * time.Millisecond)
	if code, b := c.do("DELETE", "/api/jobs/"+id, ""); code != 409 {
		t.Errorf("delete while running: %d %s", code, b)
	}
	c.json("POST", "/api/jobs/"+id+"/stop", "", 202)
	deadline := time.Now().Add(30 * time.Second)
	for {
		j := c.json("GET", "/api/jobs/"+id, "", 200)
		if j["status"] == "interrupted" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("job still %v after stop", j["status"])
		}
		time.Sleep(200 * time.Millisecond)
	}
	if res := c.json("GET", "/api/jobs/"+id+"/result", "", 200); res["status"] != "interrupted" {
		t.Errorf("result after stop: %v", res["status"])
	}
	if code, _ := c.do("POST", "/api/jobs/"+id+"/stop", ""); code != 409 {
		t.Errorf("stopping a finished job: %d", code)
	}
}

func TestServeRejectsBadRequests(t *testing.T) {
	ts, _ := testServer(t, "")
	c := apiClient{t: t, base: ts.URL}
	for _, tc := range []struct {
		body, field string
	}{
		{`{"kind":"run","vu":-1}`, "vu"},
		{`{"kind":"run","vu":"two"}`, "vu"},
		{`{"kind":"run","duration":"forever"}`, "duration"},
		{`{"kind":"run","rampup":"-3s"}`, "rampup"},
		{`{"kind":"explode"}`, "kind"},
		{`{}`, "kind"},
		{`{"kind":"run","turbo":true}`, "turbo"},
		{`{"kind":"run","workload":"tpcx"}`, "workload"},
		{`{"kind":"build","warehouses":-2}`, "warehouses"},
		{`{"kind":"run","max_retries":1000}`, "max_retries"},
		{`not json`, ""},
	} {
		code, b := c.do("POST", "/api/jobs", tc.body)
		var m map[string]string
		_ = json.Unmarshal(b, &m)
		if code != 400 || m["error"] == "" || m["field"] != tc.field {
			t.Errorf("POST %s: %d %s, want 400 naming field %q", tc.body, code, b, tc.field)
		}
	}
	// A job that cannot even be recorded (no such database) is 422, not 201.
	if code, b := c.do("POST", "/api/jobs", `{"kind":"run","db":"oracle://x/y"}`); code != 422 {
		t.Errorf("unsupported database: %d %s", code, b)
	}
	for _, tc := range []struct {
		method, path string
		want         int
	}{
		{"GET", "/api/jobs/abc", 400},
		{"GET", "/api/jobs/0", 400},
		{"GET", "/api/jobs/4242", 404},
		{"GET", "/api/jobs/4242/result", 404},
		{"GET", "/api/jobs?kind=bogus", 400},
		{"GET", "/api/jobs?limit=-1", 400},
		{"GET", "/api/nothing", 404},
		// GET never changes state: the state-changing endpoints refuse it.
		{"GET", "/api/jobs/1/stop", 405},
		{"PUT", "/api/jobs", 405},
	} {
		if code, b := c.do(tc.method, tc.path, ""); code != tc.want {
			t.Errorf("%s %s: %d %s, want %d", tc.method, tc.path, code, b, tc.want)
		}
	}
	if code, b := c.do("GET", "/api/jobs", ""); code != 200 || strings.TrimSpace(string(b)) != "[]" {
		t.Errorf("empty list: %d %s", code, b)
	}
}

func TestServeAuth(t *testing.T) {
	ts, _ := testServer(t, "s3cret")
	for _, tc := range []struct {
		token string
		path  string
		want  int
	}{
		{"", "/api/jobs", 401},
		{"wrong", "/api/jobs", 401},
		{"s3cret", "/api/jobs", 200},
		{"", "/api/openapi.json", 200},
		{"", "/metrics", 401},
		{"s3cret", "/metrics", 200},
		{"", "/", 200},
	} {
		c := apiClient{t: t, base: ts.URL, token: tc.token}
		if code, b := c.do("GET", tc.path, ""); code != tc.want {
			t.Errorf("GET %s with token %q: %d %s, want %d", tc.path, tc.token, code, b, tc.want)
		}
	}
	c := apiClient{t: t, base: ts.URL}
	if code, _ := c.do("POST", "/api/jobs", `{"kind":"run"}`); code != 401 {
		t.Errorf("POST without token: %d", code)
	}
}

func TestOpenAPIDocumentCoversTheRoutes(t *testing.T) {
	var doc struct {
		OpenAPI string                    `json:"openapi"`
		Paths   map[string]map[string]any `json:"paths"`
	}
	if err := json.Unmarshal(openAPIDoc, &doc); err != nil {
		t.Fatal(err)
	}
	want := map[string][]string{
		"/api/jobs": {"get", "post"}, "/api/jobs/{id}": {"get", "delete"}, "/api/jobs/{id}/stop": {"post"},
		"/api/jobs/{id}/result": {"get"}, "/api/jobs/{id}/timing": {"get"}, "/api/jobs/{id}/series": {"get"},
		"/api/jobs/{id}/audit": {"get"}, "/api/jobs/{id}/config": {"get"}, "/api/jobs/{id}/output": {"get"},
		"/api/jobs/{id}/events": {"get"},
	}
	for p, methods := range want {
		for _, m := range methods {
			if _, ok := doc.Paths[p][m]; !ok {
				t.Errorf("OpenAPI document lacks %s %s", m, p)
			}
		}
	}
	if !strings.HasPrefix(doc.OpenAPI, "3.") {
		t.Errorf("openapi %q", doc.OpenAPI)
	}
}

// TestRemoteCLI drives a server from the CLI: `sledge --server URL run` and
// `sledge --server URL jobs`.
func TestRemoteCLI(t *testing.T) {
	if testing.Short() {
		t.Skip("runs on SQLite")
	}
	ts, _ := testServer(t, "tok")
	t.Setenv("SLEDGE_TOKEN", "tok")
	out := sledgeOK(t, "--server", ts.URL, "run", "--vu", "2", "--rampup", "1s", "--duration", "3s", "--interval", "1s")
	for _, want := range []string{"run job", "started on " + ts.URL, "measure", `"nopm"`, ": completed"} {
		if !strings.Contains(out, want) {
			t.Errorf("remote run output lacks %q:\n%s", want, out)
		}
	}
	out = sledgeOK(t, "--server", ts.URL, "jobs", "--format", "json", "--kind", "run")
	var list []map[string]any
	if err := json.Unmarshal([]byte(out), &list); err != nil || len(list) != 1 || list[0]["status"] != "completed" {
		t.Errorf("remote jobs: %v %s", err, out)
	}
	t.Setenv("SLEDGE_TOKEN", "wrong")
	if _, err := sledge(t, "--server", ts.URL, "jobs"); err == nil || !strings.Contains(err.Error(), "token") {
		t.Errorf("wrong token: %v", err)
	}
	if _, err := sledge(t, "--server", "ftp://x", "jobs"); err == nil || !strings.Contains(err.Error(), "--server") {
		t.Errorf("bad server URL: %v", err)
	}
}

// syncBuffer is a bytes.Buffer safe for one writer and one reader.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}
func (s *syncBuffer) String() string { s.mu.Lock(); defer s.mu.Unlock(); return s.b.String() }

// selfSignedCert writes a certificate and key for 127.0.0.1 into dir.
func selfSignedCert(t *testing.T, dir string) (certFile, keyFile string) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), crand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "sledge test"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, KeyUsage: x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(crand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	kb, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	certFile, keyFile = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	if err := os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kb}), 0o600); err != nil {
		t.Fatal(err)
	}
	return certFile, keyFile
}

// TestServeTLSAndGeneratedToken runs the real serve command: beyond loopback
// it generates and prints a token, and with a certificate it speaks HTTPS.
func TestServeTLSAndGeneratedToken(t *testing.T) {
	e2eEnv(t)
	certFile, keyFile := selfSignedCert(t, t.TempDir())
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	out := &syncBuffer{}
	done := make(chan error, 1)
	go func() {
		done <- runServe(ctx, out, &globals{}, &serveFlags{listen: "0.0.0.0:0", tlsCert: certFile, tlsKey: keyFile})
	}()
	var addr, token string
	deadline := time.Now().Add(10 * time.Second)
	for addr == "" {
		if time.Now().After(deadline) {
			t.Fatalf("no address printed: %q", out.String())
		}
		time.Sleep(50 * time.Millisecond)
		text := out.String()
		if _, rest, ok := strings.Cut(text, "(shown once): "); ok {
			token, _, _ = strings.Cut(rest, "\n")
		}
		if _, rest, ok := strings.Cut(text, "https://"); ok {
			addr, _, _ = strings.Cut(rest, " ")
		}
	}
	if len(token) < 32 {
		t.Fatalf("no generated token in %q", out.String())
	}
	_, port, _ := net.SplitHostPort(addr)
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}}
	get := func(tok string) int {
		req, _ := http.NewRequest("GET", "https://127.0.0.1:"+port+"/api/jobs", nil)
		if tok != "" {
			req.Header.Set("Authorization", "Bearer "+tok)
		}
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if code := get(""); code != 401 {
		t.Errorf("beyond loopback without token: %d, want 401", code)
	}
	if code := get(token); code != 200 {
		t.Errorf("with the generated token: %d, want 200", code)
	}
	cancel()
	if err := <-done; err != nil && !errors.Is(err, http.ErrServerClosed) {
		t.Errorf("serve ended with %v", err)
	}
	if err := runServe(context.Background(), io.Discard, &globals{}, &serveFlags{listen: "127.0.0.1:0", tlsCert: certFile}); err == nil {
		t.Error("--tls-cert without --tls-key accepted")
	}
}
