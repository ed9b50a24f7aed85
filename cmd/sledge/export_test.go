package main

import (
	"encoding/json"
	"fmt"
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
