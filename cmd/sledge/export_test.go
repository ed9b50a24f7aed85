package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/sledge-bench/sledge/internal/testdb"
	"github.com/sledge-bench/sledge/internal/testdb/tpcctest"
)

// withoutImported drops the line of `jobs show` that marks an imported job.
func withoutImported(show string) string {
	return regexp.MustCompile(`(?m)^imported +job .*\n`).ReplaceAllString(show, "")
}

// TestJobsExportImportRoundTrip: real runs (on the embedded SQLite, and on
// PostgreSQL with a password in --db) exported, then imported into a
// second repository of each kind, show the same as where they were
// recorded but for the imported line; imported back into the first, they
// diff to nothing; no password travels; a second import is refused.
func TestJobsExportImportRoundTrip(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.tpcc()
	e.ok("run", "--vu", "2", "--rampup", "0s", "--duration", "3s", "--interval", "1s")
	const secret = "S3cretPW42"
	pg := tpcctest.Postgres(t, tpcctest.Options{})
	withPassword := strings.Replace(pg, "postgres://sledge@", "postgres://sledge:"+secret+"@", 1)
	if withPassword == pg {
		t.Fatalf("no user in %s", pg)
	}
	e.ok("run", "--db", withPassword, "--vu", "1", "--rampup", "0s", "--duration", "2s", "--interval", "1s")
	ids := []string{"1", "2"}
	for _, j := range e.jobs() {
		if j["status"] != "completed" {
			t.Fatalf("source job: %v", j)
		}
	}

	file := filepath.Join(e.tmp(), "jobs.json.gz")
	e.ok("jobs", "export", "1", "2", "-o", file)
	raw := e.ok("jobs", "export", "1", "2")
	if strings.Contains(raw, secret) {
		t.Fatal("the export holds the password given in --db")
	}
	var head struct {
		Format  string `json:"format"`
		Version int    `json:"version"`
		Jobs    []struct {
			Tables []struct{ Name string } `json:"tables"`
		} `json:"jobs"`
	}
	if err := json.Unmarshal([]byte(raw), &head); err != nil || head.Format != "sledge-jobs" || head.Version != 1 || len(head.Jobs) != 2 {
		t.Fatalf("export: %v %+v", err, head)
	}
	has := map[string]bool{}
	for _, j := range head.Jobs {
		for _, tb := range j.Tables {
			has[tb.Name] = true
		}
	}
	for _, tbl := range []string{"job_config", "job_system", "job_output", "job_result", "job_timing", "job_interval_tx",
		"job_observer", "job_setting"} {
		if !has[tbl] {
			t.Errorf("the export of two real runs has no %s", tbl)
		}
	}

	shows := map[string]string{}
	for _, id := range ids {
		shows[id] = e.ok("jobs", "show", id)
	}
	for _, dst := range []struct{ name, repo string }{
		{"sqlite", filepath.Join(t.TempDir(), "other", "jobs.db")},
		{"postgres", testdb.Postgres(t)},
	} {
		out := e.ok("--repo", dst.repo, "jobs", "import", file)
		for _, id := range ids {
			if !strings.Contains(out, fmt.Sprintf("imported job %s of ", id)) {
				t.Errorf("%s: import says %q", dst.name, out)
			}
			got := e.ok("--repo", dst.repo, "jobs", "show", id)
			if !regexp.MustCompile(`(?m)^imported +job ` + id + ` of .*read-only$`).MatchString(got) {
				t.Errorf("%s: job %s does not say it is imported:\n%s", dst.name, id, got)
			}
			if withoutImported(got) != shows[id] {
				t.Errorf("%s: jobs show %s differs from the source's:\n--- source\n%s--- imported\n%s", dst.name, id, shows[id], got)
			}
		}
		if _, err := e.run("--repo", dst.repo, "jobs", "import", file); err == nil || !strings.Contains(err.Error(), "already imported as job") {
			t.Errorf("%s: second import: %v", dst.name, err)
		}
	}

	// Imported into the first repository too, each diffs to nothing
	// against its source.
	e.ok("jobs", "import", file)
	for i, id := range ids {
		copyID := fmt.Sprint(i + 3)
		var d struct {
			JobSettings []any `json:"job_settings"`
			Results     []struct {
				Name   string   `json:"name"`
				Change *float64 `json:"change_pct"`
			} `json:"results"`
			Settings []any `json:"settings"`
			Servers  []any `json:"servers"`
		}
		out := e.ok("jobs", "diff", id, copyID, "--format", "json")
		if err := json.Unmarshal([]byte(out), &d); err != nil {
			t.Fatal(err)
		}
		if len(d.JobSettings) != 0 || len(d.Settings) != 0 || len(d.Servers) != 0 || len(d.Results) == 0 {
			t.Errorf("diff %s %s is not zero:\n%s", id, copyID, out)
		}
		for _, r := range d.Results {
			if r.Change != nil && *r.Change != 0 {
				t.Errorf("diff %s %s: %s changed %v%%", id, copyID, r.Name, *r.Change)
			}
		}
		if out := e.ok("compare", id, copyID); !strings.Contains(out, "job "+copyID) {
			t.Errorf("compare %s %s:\n%s", id, copyID, out)
		}
	}
	list := e.ok("jobs")
	if !strings.Contains(list, "IMPORTED FROM") || !regexp.MustCompile(`(?m)^3 .*job 1 on `).MatchString(list) {
		t.Errorf("jobs does not show the imported jobs:\n%s", list)
	}
	e.ok("jobs", "delete", "3")

	// Not a file of ours, and a later version: refused, clearly.
	bad := filepath.Join(e.tmp(), "future.json")
	future := strings.Replace(raw, `"version":1`, `"version":99`, 1)
	if err := os.WriteFile(bad, []byte(future), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := e.run("jobs", "import", bad); err == nil || !strings.Contains(err.Error(), "file version 99 is newer than this sledge reads (1): upgrade sledge") {
		t.Errorf("import of a later version: %v", err)
	}
	if _, err := e.run("jobs", "export", "99"); err == nil || !strings.Contains(err.Error(), "no job 99") {
		t.Errorf("export of no job: %v", err)
	}
}

// TestJobsExportImportThroughServer: export from one server and import
// into another with --server (the second with a token), and the API's own
// routes: a download of one job, and refusals.
func TestJobsExportImportThroughServer(t *testing.T) {
	t.Parallel()
	src := newEnv(t)
	d := seedDiffRepo(t)
	src.set("SLEDGE_REPO", d.path)
	tsA := testServer(src, "")
	dst := newEnv(t)
	tsB := testServer(dst, "tok")

	client := newEnv(t) // its own repository does not exist: nothing is read here
	client.set("SLEDGE_TOKEN", "tok")
	raw := client.ok("--server", tsA.URL, "jobs", "export", fmt.Sprint(d.a), fmt.Sprint(d.b))
	if !strings.HasPrefix(raw, `{"format":"sledge-jobs","version":1,`) {
		t.Fatalf("export through the server: %.200s", raw)
	}
	if _, err := client.run("--server", tsA.URL, "jobs", "export", "99"); err == nil || err.Error() != "no job 99" {
		t.Errorf("export of no job through the server: %v", err)
	}
	file := filepath.Join(client.tmp(), "two.json")
	if err := os.WriteFile(file, []byte(raw), 0o644); err != nil {
		t.Fatal(err)
	}
	out := client.ok("--server", tsB.URL, "jobs", "import", file)
	if !strings.Contains(out, fmt.Sprintf("imported job %d of ", d.a)) || !strings.Contains(out, fmt.Sprintf("imported job %d of ", d.b)) {
		t.Errorf("import through the server says %q", out)
	}
	if _, err := client.run("--server", tsB.URL, "jobs", "import", file); err == nil || !strings.Contains(err.Error(), "already imported as job 1") {
		t.Errorf("second import through the server: %v", err)
	}
	if _, err := os.Stat(client.repo()); !os.IsNotExist(err) {
		t.Errorf("the client's own repository: %v", err)
	}
	// The imported jobs are the server's, marked.
	show := dst.ok("jobs", "show", "2")
	if !regexp.MustCompile(fmt.Sprintf(`(?m)^imported +job %d of `, d.b)).MatchString(show) {
		t.Errorf("jobs show of the imported job:\n%s", show)
	}

	// GET /api/jobs/{id}/export: the file as a download.
	resp, err := http.Get(tsA.URL + fmt.Sprintf("/api/jobs/%d/export", d.a))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(resp.Header.Get("Content-Disposition"), fmt.Sprintf("sledge-job-%d.json", d.a)) ||
		!strings.HasPrefix(string(body), `{"format":"sledge-jobs"`) {
		t.Errorf("GET export: %d %v %.100s", resp.StatusCode, resp.Header, body)
	}
	for _, c := range []struct {
		name, token, body string
		code              int
		want              string
	}{
		{"no token", "", raw, 401, ""},
		{"not an export", "tok", `{"hello":1}`, 400, "not a sledge jobs export"},
		{"a later version", "tok", strings.Replace(raw, `"version":1`, `"version":2`, 1), 400, "file version 2 is newer"},
		{"a duplicate", "tok", raw, 409, "already imported"},
	} {
		req, _ := http.NewRequest("POST", tsB.URL+"/api/jobs/import", strings.NewReader(c.body))
		req.Header.Set("Content-Type", "application/json")
		if c.token != "" {
			req.Header.Set("Authorization", "Bearer "+c.token)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != c.code || !strings.Contains(string(b), c.want) {
			t.Errorf("%s: %d %s, want %d with %q", c.name, resp.StatusCode, b, c.code, c.want)
		}
	}
}

// TestJobsExportImportTPROCH: a TPROC-H build and run (on the embedded
// DuckDB) round-trip into a second repository with the same jobs show (the
// summary and the query times) but the imported line.
func TestJobsExportImportTPROCH(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs TPROC-H on DuckDB")
	}
	t.Parallel()
	e := newEnv(t)
	e.ok("build", "--workload", "tproch", "--scale", "0.01", "--workers", "2") // job 1
	e.ok("run", "--workload", "tproch")                                        // job 2
	file := filepath.Join(e.tmp(), "tproch.json")
	e.ok("jobs", "export", "1", "2", "-o", file)
	other := filepath.Join(t.TempDir(), "jobs.db")
	e.ok("--repo", other, "jobs", "import", file)
	for _, args := range [][]string{{"jobs", "show", "1"}, {"jobs", "show", "2"}, {"jobs", "show", "2", "result"}, {"jobs", "show", "2", "result", "--format", "json"}, {"jobs", "show", "2", "--format", "json"}} {
		want := e.ok(args...)
		got := e.ok(append([]string{"--repo", other}, args...)...)
		if args[len(args)-1] == "json" {
			// The imported marker is the only difference.
			var w, g map[string]any
			if err := json.Unmarshal([]byte(want), &w); err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal([]byte(got), &g); err != nil {
				t.Fatal(err)
			}
			if j, ok := g["job"].(map[string]any); ok {
				delete(j, "imported_from")
			}
			if fmt.Sprint(w) != fmt.Sprint(g) {
				t.Errorf("%v differs:\n--- source\n%s\n--- imported\n%s", args, want, got)
			}
			continue
		}
		if withoutImported(got) != want {
			t.Errorf("%v differs:\n--- source\n%s--- imported\n%s", args, want, got)
		}
	}
	if !strings.Contains(e.ok("jobs", "show", "2", "result"), "geometric mean") {
		t.Error("the TPROC-H result shows no geometric mean")
	}
}
