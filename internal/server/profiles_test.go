package server

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sledge-bench/sledge/internal/app"
	"github.com/sledge-bench/sledge/internal/config"
	"github.com/sledge-bench/sledge/internal/jobs"
	"github.com/sledge-bench/sledge/internal/metrics"
	"github.com/sledge-bench/sledge/internal/report"
)

// TestOpenAPIProfiles: the profile and compare routes are documented, and
// their schemas are the JSON the server sends.
func TestOpenAPIProfiles(t *testing.T) {
	t.Parallel()
	doc := parseOpenAPI(t)
	for path, schema := range map[string]reflect.Type{
		"/api/profiles/{id}": reflect.TypeOf(report.ProfileJSON{}),
		"/api/compare":       reflect.TypeOf(report.CompareJSON{}),
	} {
		resp, ok := doc.Paths[path]["get"].Responses["200"].Content["application/json"]
		if !ok {
			t.Fatalf("OpenAPI document lacks GET %s", path)
		}
		checkSameFields(t, "the schema of GET "+path, doc.resolve(t, resp.Schema), schema)
	}
	if _, ok := doc.Paths["/api/profiles"]["get"]; !ok {
		t.Error("OpenAPI document lacks GET /api/profiles")
	}
	for name, typ := range map[string]reflect.Type{
		"ProfileStep": reflect.TypeOf(report.ProfileStepJSON{}),
		"CompareStep": reflect.TypeOf(report.ProfileCompareRowJSON{}),
		"Verdict":     reflect.TypeOf(report.VerdictJSON{}),
		// GET /api/compare's settings_differ and servers_differ.
		"JobSettingDiff": reflect.TypeOf(report.JobSettingDiff{}),
	} {
		checkSameFields(t, "the "+name+" schema", doc.Components.Schemas[name], typ)
	}
}

// TestProfileAPI runs a tiny profile (1 and 2 VUs) through the job service
// and reads it back: the list, the profile by its first job and by another
// of its jobs, 404 for a job of no profile, and the compare verdicts.
func TestProfileAPI(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs on SQLite")
	}
	t.Parallel()
	ts, s, repo := testServerStore(t, "", nil)
	c := apiClient{t: t, base: ts.URL}
	// A build job (of no profile), as the first run on an embedded
	// database would make (the test's has been built already).
	buildID, err := repo.Create(context.Background(), jobs.Job{Kind: jobs.KindBuild, Workload: "tprocc", DBKind: "sqlite"}, map[string]string{"warehouses": "1"})
	if err != nil {
		t.Fatal(err)
	}
	if err := repo.Finish(context.Background(), buildID, metrics.StatusCompleted, ""); err != nil {
		t.Fatal(err)
	}
	spec := config.New(config.KindRun)
	spec.Rampup, spec.Duration, spec.Interval = 0, config.Duration(2*time.Second), config.Duration(time.Second)
	outs, err := s.svc.RunProfile(context.Background(), app.Request{Spec: spec}, []int{1, 2}, 1)
	if err != nil || len(outs) != 2 {
		t.Fatalf("profile: %d jobs, %v", len(outs), err)
	}
	root, member := fmt.Sprint(outs[0].ID), fmt.Sprint(outs[1].ID)

	code, b := c.do("GET", "/api/profiles", "")
	var list []map[string]any
	if code != 200 || json.Unmarshal(b, &list) != nil || len(list) != 1 || list[0]["id"] != root {
		t.Fatalf("GET /api/profiles: %d %s", code, b)
	}
	for _, id := range []string{root, member} {
		p := c.json("GET", "/api/profiles/"+id, "", 200)
		steps, _ := p["steps"].([]any)
		if p["id"] != root || len(steps) != 2 || p["knee_rule"] == "" {
			t.Errorf("GET /api/profiles/%s: %v", id, p)
		}
	}
	// The profile's HTML page, as sledge profile show --html writes it: a
	// page without script, which a browser opening it from the API runs
	// sandboxed (never in the web UI's origin, with its stored token).
	resp, err := http.Get(ts.URL + "/api/view/profile?format=html&id=" + root)
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if csp := resp.Header.Get("Content-Security-Policy"); resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") ||
		!strings.Contains(csp, "sandbox") || !strings.Contains(csp, "default-src 'none'") || resp.Header.Get("X-Content-Type-Options") != "nosniff" ||
		!strings.Contains(string(page), "<svg") || strings.Contains(string(page), "<script") {
		t.Errorf("GET /api/view/profile?format=html: %d, %v\n%.300s", resp.StatusCode, resp.Header, page)
	}
	build := fmt.Sprint(buildID)
	if code, b := c.do("GET", "/api/profiles/"+build, ""); code != 404 {
		t.Errorf("the build as a profile: %d %s", code, b)
	}
	for _, bad := range []string{"/api/profiles/x", "/api/compare?a=1", "/api/compare?a=x&b=1"} {
		if code, b := c.do("GET", bad, ""); code != 400 {
			t.Errorf("GET %s: %d %s, want 400", bad, code, b)
		}
	}
	if code, b := c.do("GET", "/api/profiles/999", ""); code != 404 {
		t.Errorf("an unknown profile: %d %s", code, b)
	}
	if code, b := c.do("GET", "/api/compare?a="+root+"&b=999", ""); code != 404 {
		t.Errorf("compare with an unknown job: %d %s", code, b)
	}

	cmp := c.json("GET", "/api/compare?a="+root+"&b="+root, "", 200)
	if steps, _ := cmp["steps"].([]any); cmp["kind"] != "profiles" || len(steps) != 2 || cmp["verdict"] != nil {
		t.Errorf("compare of two profiles: %v", cmp)
	}
	if d, _ := cmp["settings_differ"].([]any); d == nil || len(d) != 0 || cmp["settings_compared"].(float64) < 5 || cmp["machine_differs"] != false {
		t.Errorf("compare of a profile with itself: settings %v (%v compared), machine %v", cmp["settings_differ"], cmp["settings_compared"], cmp["machine_differs"])
	}
	cmp = c.json("GET", "/api/compare?a="+root+"&b="+member, "", 200)
	if cmp["kind"] != "jobs" || cmp["text"] == "" {
		t.Errorf("compare of two jobs: %v", cmp)
	}
	// What explains a difference comes with it: the first step's job ran 1
	// VU, the second's 2 (and draws a seed of its own), on one machine
	// and one server.
	var names []string
	diffs, _ := cmp["settings_differ"].([]any)
	for _, d := range diffs {
		m, _ := d.(map[string]any)
		names = append(names, fmt.Sprint(m["name"], "=", m["a"], "|", m["b"]))
	}
	if !slices.Contains(names, "vu=1|2") || slices.ContainsFunc(names, func(n string) bool { return strings.HasPrefix(n, "client ") }) ||
		cmp["machine_differs"] != false || fmt.Sprint(cmp["servers_differ"]) != "[]" || fmt.Sprint(cmp["notes"]) != "[]" {
		t.Errorf("compare of two jobs: settings_differ %v, machine_differs %v, servers_differ %v, notes %v",
			names, cmp["machine_differs"], cmp["servers_differ"], cmp["notes"])
	}
	if cmp["verdict"] == nil && cmp["text"] != report.NotJudgedText {
		t.Errorf("compare of two jobs without a verdict: %v", cmp)
	}
}
