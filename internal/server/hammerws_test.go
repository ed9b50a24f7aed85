package server

import (
	"encoding/json"
	"flag"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sledge-bench/sledge/internal/jobs"
	"github.com/sledge-bench/sledge/internal/script/scripttest"
)

var updateHammerWS = flag.Bool("update", false, "rewrite the golden files of HammerDB's web service answers")

// hammerServer serves the scripttest fixture (with server metrics for its
// TPROC-C run) in UTC, HammerDB's local time here.
func hammerServer(t *testing.T, token string) (*httptest.Server, scripttest.Fixture) {
	t.Helper()
	local := time.Local
	time.Local = time.UTC
	t.Cleanup(func() { time.Local = local })
	var f scripttest.Fixture
	ts, _, _ := testServerStore(t, token, func(repo *jobs.Repo) Store {
		f = scripttest.Build(t, repo)
		return scripttest.WithMetrics{Repo: repo, Run: f.Run}
	})
	return ts, f
}

type hammerAnswer struct {
	code   int
	ctype  string
	header http.Header
	body   string
}

func hammerGet(t *testing.T, method, url string, header http.Header) hammerAnswer {
	t.Helper()
	req, err := http.NewRequest(method, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range header {
		if k == "Host" {
			req.Host = v[0]
			continue
		}
		req.Header[k] = v
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return hammerAnswer{resp.StatusCode, resp.Header.Get("Content-Type"), resp.Header, string(b)}
}

func hammerGolden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", "hammerws", name)
	if *updateHammerWS {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to write it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs:\n--- got\n%s\n--- want\n%s", name, got, want)
	}
}

const (
	jsonType = "application/json"
	htmlType = "text/html; charset=utf-8"
)

// TestHammerWebService asks every form of HammerDB's jobs web service:
// the status, the content type, and for the JSON data forms the exact body
// (golden files; HammerDB's shapes: a dictionary of dictionaries for the
// data forms, one-line {"jobid","section","value"} for raw sections,
// {"error": {"message"}} for errors). Unknown forms are 4xx, never the web
// UI's page.
func TestHammerWebService(t *testing.T) {
	t.Parallel()
	ts, f := hammerServer(t, "")
	run, h, build := strconv.FormatInt(f.Run, 10), strconv.FormatInt(f.Analytic, 10), strconv.FormatInt(f.Build, 10)
	for _, tc := range []struct {
		query  string
		code   int
		ctype  string
		golden string   // exact body
		has    []string // else: parts of the body
	}{
		{"", 200, htmlType, "", []string{"TPROC-C Jobs", `href="?jobid=` + run + `&amp;index"`, "TPROC-H Jobs"}},
		{"?jobid=" + run, 200, htmlType, "", []string{"VU 0", "VU 1", "TEST RESULT : System achieved 1000 NOPM from 2300 MySQL TPM"}},
		{"?jobid=" + run + "&index", 200, htmlType, "", []string{`href="?jobid=` + run + `&amp;summary"`, `&amp;tcount"`, `&amp;metrics"`}},
		{"?jobid=" + run + "&raw=1", 200, jsonType, "raw-output.json", nil},
		{"?jobid=" + run + "&bm&raw=1", 200, jsonType, "raw-bm.json", nil},
		{"?jobid=" + run + "&db&raw=1", 200, jsonType, "raw-db.json", nil},
		{"?jobid=" + run + "&status&raw=1", 200, jsonType, "raw-status.json", nil},
		{"?jobid=" + run + "&system&raw=1", 200, jsonType, "raw-system.json", nil},
		{"?jobid=" + run + "&timestamp&raw=1", 200, jsonType, "raw-timestamp.json", nil},
		{"?jobid=" + run + "&dict&raw=1", 200, jsonType, "", []string{`{"jobid":"` + run + `","section":"dict","value":"connection {`}},
		{"?jobid=" + run + "&bm", 200, htmlType, "", []string{"<pre", "TPROC-C</pre>", "&amp;bm&amp;raw=1"}},
		{"?jobid=" + run + "&status", 200, htmlType, "", []string{"Vuser 1:RUNNING\nVuser 2:RUNNING\nVuser 3:RUNNING\nVuser 1:FINISHED SUCCESS\nVuser 2:FINISHED SUCCESS\nVuser 3:FINISHED SUCCESS\nALL VIRTUAL USERS COMPLETE"}},
		{"?jobid=" + run + "&system", 200, htmlType, "", []string{"hostname: vm1"}},
		{"?jobid=" + run + "&result", 200, htmlType, "", []string{"<svg", "&amp;resultdata"}},
		{"?jobid=" + run + "&timing", 200, htmlType, "", []string{"<svg", "&amp;timingdata"}},
		{"?jobid=" + run + "&tcount", 200, htmlType, "", []string{"<polyline", "&amp;tcountdata"}},
		{"?jobid=" + run + "&metrics", 200, htmlType, "", []string{"<polyline", "&amp;metricsdata"}},
		{"?jobid=" + build + "&tcount", 200, htmlType, "", []string{"Chart for jobid " + build + " not available, Jobid has no transaction counter data"}},
		{"?jobid=" + run + "&resultdata", 200, jsonType, "resultdata.json", nil},
		{"?jobid=" + run + "&timingdata", 200, jsonType, "timingdata.json", nil},
		{"?jobid=" + run + "&tcountdata", 200, jsonType, "tcountdata.json", nil},
		{"?jobid=" + run + "&metricsdata", 200, jsonType, "metricsdata.json", nil},
		{"?jobid=" + h + "&resultdata", 200, jsonType, "resultdata-tproch.json", nil},
		{"?jobid=" + h + "&timingdata", 200, jsonType, "timingdata-tproch.json", nil},
		{"?jobid=" + build + "&resultdata", 200, jsonType, "resultdata-none.json", nil},
		{"?jobid=" + build + "&timingdata", 200, jsonType, "timingdata-none.json", nil},
		{"?jobid=" + build + "&tcountdata", 200, jsonType, "tcountdata-none.json", nil},
		{"?jobid=" + h + "&metricsdata", 200, jsonType, "metricsdata-none.json", nil},
		{"?jobid=" + run + "&vu=1", 200, htmlType, "", []string{"VU 1", "measured 60 s"}},
		{"?jobid=" + h + "&vu=2", 200, htmlType, "", []string{"Executing Query 21 (1 of 22)"}},
		{"?jobid=" + run + "&vu=7", 404, jsonType, "no-vu.json", nil},
		{"?jobid=" + run + "&vu=x", 400, jsonType, "", []string{"Usage: jobs?jobid=JOBID&vu=INTEGER"}},
		{"?jobid=" + run + "&timing&vu=2", 404, jsonType, "timing-vu.json", nil},
		{"?jobid=" + run + "&timing&vuid=2", 404, jsonType, "", []string{"No Timing Data for VU 2"}},
		{"?jobid=" + run + "&summary", 200, htmlType, "", []string{"NOPM", "1000", "<svg", "&amp;summaryjson"}},
		{"?jobid=" + h + "&summary", 200, htmlType, "", []string{"Geomean", "1.58114"}},
		{"?jobid=" + build + "&summary", 404, jsonType, "", []string{"Jobid has no test result"}},
		{"?jobid=" + run + "&summaryjson", 200, jsonType, "summary.json", nil},
		{"?jobid=" + h + "&summaryjson", 200, jsonType, "summary-tproch.json", nil},
		{"?jobid=" + run + "&getchart&chart=tcount", 200, htmlType, "", []string{"<!DOCTYPE html>", "<polyline"}},
		{"?jobid=" + run + "&getchart&chart=result", 200, htmlType, "", []string{"<rect"}},
		{"?jobid=" + build + "&getchart&chart=result", 404, jsonType, "", []string{"Chart for jobid " + build + " not available, Jobid has no test result"}},
		{"?jobid=" + run + "&getchart&chart=bogus", 400, jsonType, "", []string{"Usage: jobs?jobid=JOBID&getchart&chart="}},
		{"?jobid=1&getchart&chart=profile", 200, htmlType, "", []string{"profile 1 NOPM"}},
		{"?profileid=1", 200, htmlType, "", []string{"profile 1 NOPM", "profileid=1&amp;profiledata"}},
		{"?profileid=1&profiledata", 200, jsonType, "profiledata.json", nil},
		{"?profileid=9&profiledata", 404, jsonType, "", []string{"No jobs found with performance profile id of 9"}},
		{"?cmd=profilediff&base_pid=1&new_pid=1", 400, jsonType, "", []string{"Base and New profiles must be different."}},
		{"?cmd=profilediff&base_pid=1", 400, jsonType, "", []string{"Please select one Base profile and one New profile to compare."}},
		{"?cmd=profilediff&base_pid=1&new_pid=2", 404, jsonType, "", []string{"No jobs found with performance profile id of 2"}},
		{"?jobid=999", 404, jsonType, "unknown-job.json", nil},
		{"?jobid=999&resultdata", 404, jsonType, "unknown-job.json", nil},
		{"?jobid=" + run + "&frob", 400, jsonType, "usage.json", nil},
		{"?frob", 400, jsonType, "", []string{"Usage: /jobs or jobs?jobid=JOBID or jobs?profileid=ID"}},
		{"?cmd=frob", 400, jsonType, "", []string{"Usage: /jobs |"}},
		{"?tailworkload=1", 400, jsonType, "", []string{"tailworkload"}},
		{"?cireset", 405, jsonType, "", []string{"never changes anything on a GET"}},
	} {
		t.Run(tc.query, func(t *testing.T) {
			a := hammerGet(t, "GET", ts.URL+"/jobs"+tc.query, nil)
			if a.code != tc.code || a.ctype != tc.ctype {
				t.Fatalf("%d %s, want %d %s:\n%.600s", a.code, a.ctype, tc.code, tc.ctype, a.body)
			}
			if tc.ctype == jsonType && !json.Valid([]byte(a.body)) {
				t.Errorf("not JSON:\n%s", a.body)
			}
			if strings.Contains(a.body, `id="app"`) || strings.Contains(a.body, "app.js") {
				t.Errorf("the web UI's page answered:\n%.300s", a.body)
			}
			if tc.golden != "" {
				hammerGolden(t, tc.golden, a.body)
			}
			text := a.body
			if tc.ctype == jsonType {
				text = strings.ReplaceAll(text, `\/`, "/") // HammerDB's JSON writes "/" as "\/"
			}
			for _, part := range tc.has {
				if !strings.Contains(text, part) {
					t.Errorf("answer lacks %q:\n%.2000s", part, a.body)
				}
			}
			if tc.ctype == htmlType && !strings.Contains(a.header.Get("Content-Security-Policy"), "default-src 'none'") {
				t.Errorf("page without its CSP: %v", a.header)
			}
		})
	}
}

// TestHammerWebServiceNoStateChange: HammerDB deletes a job on a GET
// (&delete, &DELETE); Sledge refuses both, names its DELETE API, and the
// job is still there.
func TestHammerWebServiceNoStateChange(t *testing.T) {
	t.Parallel()
	ts, f := hammerServer(t, "")
	id := strconv.FormatInt(f.Run, 10)
	for _, form := range []string{"delete", "DELETE"} {
		a := hammerGet(t, "GET", ts.URL+"/jobs?jobid="+id+"&"+form, nil)
		if a.code != http.StatusMethodNotAllowed || a.ctype != jsonType || !strings.Contains(a.body, `DELETE \/api\/jobs\/ID`) {
			t.Errorf("&%s: %d %s %s", form, a.code, a.ctype, a.body)
		}
		if allow, ok := a.header["Allow"]; !ok || strings.Join(allow, "") != "" {
			t.Errorf("&%s: Allow %q, want empty (no method deletes here)", form, allow)
		}
	}
	if a := hammerGet(t, "GET", ts.URL+"/api/jobs/"+id, nil); a.code != http.StatusOK {
		t.Errorf("the job is gone after the refused delete: %d %s", a.code, a.body)
	}
	if a := hammerGet(t, "GET", ts.URL+"/jobs?jobid="+id+"&bm&raw=1", nil); a.code != http.StatusOK {
		t.Errorf("the service no longer finds the job: %d %s", a.code, a.body)
	}
	// Another method on /jobs is not the service (and not allowed).
	a := hammerGet(t, "POST", ts.URL+"/jobs?jobid="+id+"&delete", http.Header{"Content-Type": {"application/json"}})
	if a.code != http.StatusMethodNotAllowed {
		t.Errorf("POST /jobs: %d %s", a.code, a.body)
	}
}

// TestHammerWebServiceRules: the service is behind the server's own rules:
// the token when one is set, the Host guard; HEAD answers without a body;
// the web UI keeps every other path.
func TestHammerWebServiceRules(t *testing.T) {
	t.Parallel()
	ts, f := hammerServer(t, "s3cret")
	id := strconv.FormatInt(f.Run, 10)
	if a := hammerGet(t, "GET", ts.URL+"/jobs?jobid="+id+"&resultdata", nil); a.code != http.StatusUnauthorized {
		t.Errorf("without the token: %d %s", a.code, a.body)
	}
	bearer := http.Header{"Authorization": {"Bearer s3cret"}}
	if a := hammerGet(t, "GET", ts.URL+"/jobs?jobid="+id+"&resultdata", bearer); a.code != http.StatusOK {
		t.Errorf("with the token: %d %s", a.code, a.body)
	}
	if a := hammerGet(t, "GET", ts.URL+"/jobs", http.Header{"Authorization": {"Bearer s3cret"}, "Host": {"evil.example"}}); a.code != http.StatusForbidden {
		t.Errorf("a foreign Host: %d %s", a.code, a.body)
	}
	if a := hammerGet(t, "HEAD", ts.URL+"/jobs?jobid="+id+"&resultdata", bearer); a.code != http.StatusOK || a.body != "" || a.ctype != jsonType {
		t.Errorf("HEAD: %d %s %q", a.code, a.ctype, a.body)
	}
	// "/jobs/" is HammerDB's service, as "/jobs": with the token, a form's
	// data; without, 401, never the web UI's page.
	if a := hammerGet(t, "GET", ts.URL+"/jobs/?jobid="+id+"&resultdata", bearer); a.code != http.StatusOK || a.ctype != jsonType || !strings.Contains(a.body, "Active Virtual Users") {
		t.Errorf("/jobs/?…&resultdata: %d %s %.200s", a.code, a.ctype, a.body)
	}
	if a := hammerGet(t, "GET", ts.URL+"/jobs/?jobid="+id+"&nosuchform", bearer); a.code != http.StatusBadRequest {
		t.Errorf("/jobs/?…&nosuchform: %d %s %.200s", a.code, a.ctype, a.body)
	}
	if a := hammerGet(t, "GET", ts.URL+"/jobs/?jobid="+id+"&resultdata", nil); a.code != http.StatusUnauthorized {
		t.Errorf("/jobs/ without the token: %d %.200s", a.code, a.body)
	}
	for _, p := range []string{"/", "/jobs/1"} {
		if a := hammerGet(t, "GET", ts.URL+p, nil); a.code != http.StatusOK || !strings.HasPrefix(a.ctype, "text/html") ||
			strings.Contains(a.body, "TPROC-C Jobs") {
			t.Errorf("GET %s is the web UI's: %d %s %.200s", p, a.code, a.ctype, a.body)
		}
	}
}
