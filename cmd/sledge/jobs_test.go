package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sledge-bench/sledge/internal/jobs"
	"github.com/sledge-bench/sledge/internal/metrics"
)

// seeded is a temporary repository with one job of each shape.
type seeded struct {
	path                              string
	run, build, check, failed, noRows int64
}

func seedRepo(t *testing.T) seeded {
	t.Helper()
	ctx := context.Background()
	s := seeded{path: filepath.Join(t.TempDir(), "jobs.db")}
	r, err := jobs.Open(ctx, s.path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	create := func(kind string) int64 {
		t.Helper()
		id, err := r.Create(ctx, jobs.Job{Kind: kind, Workload: "tprocc", DBKind: "postgres",
			Target: "postgres://bench:hunter2@db.example:5432/tpcc"}, map[string]string{"vu": "8", "db": "postgres://bench@db.example/tpcc"})
		must(err)
		return id
	}

	s.build = create(jobs.KindBuild)
	must(r.SaveBuildResult(ctx, s.build, jobs.BuildResult{Warehouses: 2, Workers: 2, Rows: 1_000_000, Seconds: 10,
		RowsPerSec: 100_000, Tables: map[string]int64{"warehouse": 2, "stock": 200_000}}))
	must(r.Finish(ctx, s.build, metrics.StatusCompleted, ""))

	s.run = create(jobs.KindRun)
	must(r.SetDBVersion(ctx, s.run, "PostgreSQL 17.2"))
	must(r.SetSystem(ctx, s.run, map[string]string{"cpus": "8", "os": "linux/amd64"}))
	must(r.AppendOutput(ctx, s.run, "run job started"))
	names := []string{"new_order", "payment", "order_status", "delivery", "stock_level"}
	for seq := 1; seq <= 3; seq++ {
		iv := metrics.Interval{Seq: seq, Phase: metrics.PhaseMeasure, Elapsed: time.Duration(seq) * 10 * time.Second,
			Length: 10 * time.Second, TPM: 20000, NOPM: 9000, Errors: 1}
		for _, n := range names {
			iv.Tx = append(iv.Tx, metrics.IntervalTx{Name: n, Count: 100, P95: 2 * time.Millisecond})
		}
		must(r.AddInterval(ctx, s.run, iv))
	}
	res := &metrics.RunResult{Status: metrics.StatusCompleted, VUs: 8, Warehouses: 2, Mode: "procs", Isolation: "default",
		Rampup: 10 * time.Second, Duration: time.Minute, Measured: 60 * time.Second, NOPM: 9000, TPM: 20000,
		NewOrders: 9000, Commits: 20000, Errors: 3, RolledBack: 90, DBNewOrders: 9001, NOPMDBCheck: 9001,
		DBCheckAgree: true, ServerTPM: -1, ClientCPU: 2 * time.Second, ClientCPUPerTxUS: 100,
		Warnings: []string{"a warning"},
		Audit:    []metrics.AuditItem{{Name: "new_order %", Value: 45, Unit: "%", Target: "≈ 45", OK: true}}}
	for i, n := range names {
		tx := metrics.TxSummary{Name: n, Count: int64(1000 * (i + 1)), Mean: time.Millisecond, P50: time.Millisecond,
			P95: 2 * time.Millisecond, P99: 3 * time.Millisecond, Max: 9 * time.Millisecond,
			Errors: map[string]int64{}, Histogram: []byte("HISTFAAAAB" + n)}
		if i == 0 {
			tx.Errors["serialization"] = 3
		}
		res.Tx = append(res.Tx, tx)
	}
	must(r.SaveRunResult(ctx, s.run, res))
	must(r.Finish(ctx, s.run, metrics.StatusCompleted, ""))

	s.check = create(jobs.KindCheck)
	must(r.SaveCheck(ctx, s.check, []jobs.CheckItem{{Name: "3.3.2.1", Description: "W_YTD = sum(D_YTD)", Passed: true}}))
	must(r.Finish(ctx, s.check, metrics.StatusCompleted, ""))

	s.failed = create(jobs.KindRun)
	must(r.Finish(ctx, s.failed, metrics.StatusFailed, "connection refused"))

	s.noRows = create(jobs.KindDrop)
	must(r.Finish(ctx, s.noRows, metrics.StatusCompleted, ""))
	return s
}

func requireKeys(t *testing.T, what string, obj map[string]any, keys ...string) {
	t.Helper()
	for _, k := range keys {
		if _, ok := obj[k]; !ok {
			t.Errorf("%s: no key %q in %v", what, k, obj)
		}
	}
}

func TestJobsListJSON(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	s := seedRepo(t)
	out, err := e.run("--repo", s.path, "jobs", "--format", "json")
	if err != nil {
		t.Fatal(err)
	}
	var list []map[string]any
	if err := json.Unmarshal([]byte(out), &list); err != nil {
		t.Fatalf("not a JSON array: %v\n%s", err, out)
	}
	if len(list) != 5 {
		t.Fatalf("%d jobs, want 5", len(list))
	}
	for _, j := range list {
		requireKeys(t, "job", j, "id", "kind", "workload", "status", "started_at", "ended_at", "target", "db_version",
			"nopm", "tpm", "duration_s")
	}
	if id := list[0]["id"].(float64); int64(id) != s.noRows {
		t.Errorf("first job is %v, want the newest (%d)", id, s.noRows)
	}
	for _, j := range list {
		if strings.Contains(fmt.Sprint(j["target"]), "hunter2") {
			t.Errorf("target shows the password: %v", j["target"])
		}
		if int64(j["id"].(float64)) == s.run && (j["nopm"] != 9000.0 || j["db_version"] != "PostgreSQL 17.2") {
			t.Errorf("run job = %v", j)
		}
	}
}

func TestJobsListFiltersAndText(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	s := seedRepo(t)
	tests := []struct {
		args []string
		want []int64
	}{
		{[]string{"--kind", "run"}, []int64{s.failed, s.run}},
		{[]string{"--status", "failed"}, []int64{s.failed}},
		{[]string{"--limit", "2"}, []int64{s.noRows, s.failed}},
		{[]string{"--kind", "drop", "--status", "failed"}, []int64{}},
	}
	// Each case takes milliseconds: one after the other, in this test's
	// turn (parallel cases would wait for turns of their own).
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			out, err := e.run(append([]string{"--repo", s.path, "jobs", "--format", "json"}, tt.args...)...)
			if err != nil {
				t.Fatal(err)
			}
			var list []struct{ ID int64 }
			if err := json.Unmarshal([]byte(out), &list); err != nil {
				t.Fatal(err)
			}
			got := []int64{}
			for _, j := range list {
				got = append(got, j.ID)
			}
			if fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Fatalf("ids %v, want %v", got, tt.want)
			}
		})
	}

	out, err := e.run("--repo", s.path, "jobs")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"ID", "KIND", "NOPM", "TPM", "9,000", "20,000", "completed", "failed", "xxxxx"} {
		if !strings.Contains(out, want) {
			t.Errorf("text list lacks %q:\n%s", want, out)
		}
	}
}

func TestJobsShowResultJSON(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	s := seedRepo(t)
	out, err := e.run("--repo", s.path, "jobs", "show", fmt.Sprint(s.run), "result", "--format", "json")
	if err != nil {
		t.Fatal(err)
	}
	var res map[string]any
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("not a JSON object: %v\n%s", err, out)
	}
	requireKeys(t, "result", res, "status", "nopm", "tpm", "nopm_db_check", "db_check_agree", "server_tpm", "vu",
		"warehouses", "duration_s", "rampup_s", "client_cpu_per_tx_us", "warnings", "audit", "transactions")
	if res["duration_s"] != 60.0 || res["server_tpm"] != nil || res["vu"] != 8.0 {
		t.Errorf("duration_s = %v, server_tpm = %v, vu = %v", res["duration_s"], res["server_tpm"], res["vu"])
	}
	if a, ok := res["audit"].([]any); !ok || len(a) != 1 {
		t.Errorf("audit = %v", res["audit"])
	}
	txs, ok := res["transactions"].(map[string]any)
	if !ok || len(txs) != 5 {
		t.Fatalf("transactions = %v", res["transactions"])
	}
	for name, v := range txs {
		tx := v.(map[string]any)
		requireKeys(t, name, tx, "count", "rolled_back", "retries", "mean_ms", "p50_ms", "p95_ms", "p99_ms", "max_ms",
			"errors", "errors_by_class")
		if _, ok := tx["errors_by_class"].(map[string]any); !ok {
			t.Errorf("%s: errors_by_class = %v, want an object", name, tx["errors_by_class"])
		}
	}
	no := txs["new_order"].(map[string]any)
	if no["errors"] != 3.0 || no["errors_by_class"].(map[string]any)["serialization"] != 3.0 || no["p95_ms"] != 2.0 {
		t.Errorf("new_order = %v", no)
	}
}

// Every section renders in both formats for the job that has it.
func TestJobsShowSections(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	s := seedRepo(t)
	tests := []struct {
		id      int64
		section string
		want    string // in the text output
	}{
		{s.run, "", "TPROC-C result"},
		{s.run, "result", "new_order"},
		{s.run, "timing", "p95 ms"},
		{s.run, "tcount", "stock_level"},
		{s.run, "config", "vu"},
		{s.run, "status", "PostgreSQL 17.2"},
		{s.run, "output", "run job started"},
		{s.run, "system", "linux/amd64"},
		{s.build, "", "1,000,000 rows"},
		{s.build, "build", "stock"},
		{s.check, "", "all conditions hold"},
		{s.check, "check", "W_YTD"},
		{s.failed, "", "connection refused"},
	}
	for _, tt := range tests {
		args := []string{"--repo", s.path, "jobs", "show", fmt.Sprint(tt.id)}
		if tt.section != "" {
			args = append(args, tt.section)
		}
		// Each case takes milliseconds: one after the other (see
		// TestJobsListFiltersAndText).
		t.Run(fmt.Sprintf("%d %s", tt.id, tt.section), func(t *testing.T) {
			out, err := e.run(args...)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(out, tt.want) {
				t.Errorf("text output lacks %q:\n%s", tt.want, out)
			}
			out, err = e.run(append(args, "--format", "json")...)
			if err != nil {
				t.Fatal(err)
			}
			if !json.Valid([]byte(out)) {
				t.Errorf("invalid JSON:\n%s", out)
			}
		})
	}

	out, err := e.run("--repo", s.path, "jobs", "show", fmt.Sprint(s.run), "tcount", "--format", "json")
	if err != nil {
		t.Fatal(err)
	}
	var ivs []map[string]any
	if err := json.Unmarshal([]byte(out), &ivs); err != nil || len(ivs) != 3 {
		t.Fatalf("tcount = %v, %v", ivs, err)
	}
	requireKeys(t, "interval", ivs[0], "seq", "phase", "elapsed_s", "tpm", "nopm", "errors", "transactions")
}

func TestJobsErrors(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	s := seedRepo(t)
	tests := []struct {
		name string
		args []string
		want string // in the error
	}{
		{"bad id", []string{"jobs", "show", "abc"}, `bad job id "abc"`},
		{"zero id", []string{"jobs", "show", "0"}, `bad job id "0"`},
		{"missing job", []string{"jobs", "show", "999"}, "no job 999"},
		{"unknown section", []string{"jobs", "show", fmt.Sprint(s.run), "bogus"}, `section "bogus"`},
		{"no result", []string{"jobs", "show", fmt.Sprint(s.build), "result"}, "has no run result"},
		{"failed run has no result", []string{"jobs", "show", fmt.Sprint(s.failed), "result", "--format", "json"}, "it is failed"},
		{"no build", []string{"jobs", "show", fmt.Sprint(s.run), "build"}, "has no build result"},
		{"bad format", []string{"jobs", "--format", "xml"}, `--format: "xml": want text or json`},
		{"bad status", []string{"jobs", "--status", "done"}, `--status "done"`},
		{"bad kind", []string{"jobs", "--kind", "load"}, `--kind "load"`},
		{"too many args", []string{"jobs", "show", "1", "result", "extra"}, "accepts between 1 and 2 arg(s)"},
		{"delete bad id", []string{"jobs", "delete", fmt.Sprint(s.run), "x"}, `bad job id "x"`},
		{"delete missing", []string{"jobs", "delete", "999"}, "no job 999"},
	}
	// Each case takes milliseconds: one after the other (see
	// TestJobsListFiltersAndText).
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := e.run(append([]string{"--repo", s.path}, tt.args...)...)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want one containing %q", err, tt.want)
			}
		})
	}
	// A bad id in the list deleted nothing.
	if _, err := e.run("--repo", s.path, "jobs", "show", fmt.Sprint(s.run)); err != nil {
		t.Fatalf("job %d was deleted despite the bad id: %v", s.run, err)
	}
	_, err := e.run("--repo", s.path, "jobs", "show", "999")
	if !errors.Is(err, jobs.ErrNotFound) {
		t.Fatalf("err = %v, want ErrNotFound", err)
	}
}

func TestJobsDelete(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	s := seedRepo(t)
	out, err := e.run("--repo", s.path, "jobs", "delete", fmt.Sprint(s.run), fmt.Sprint(s.build))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, fmt.Sprintf("deleted job %d", s.run)) || !strings.Contains(out, fmt.Sprintf("deleted job %d", s.build)) {
		t.Fatalf("output = %q", out)
	}
	out, err = e.run("--repo", s.path, "jobs", "--format", "json")
	if err != nil {
		t.Fatal(err)
	}
	var list []struct{ ID int64 }
	if err := json.Unmarshal([]byte(out), &list); err != nil || len(list) != 3 {
		t.Fatalf("after delete: %s (%v)", out, err)
	}

	// A running job (this process) is refused without --force.
	r, err := jobs.Open(context.Background(), s.path)
	if err != nil {
		t.Fatal(err)
	}
	running, err := r.Create(context.Background(), jobs.Job{Kind: jobs.KindRun}, nil)
	r.Close()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.run("--repo", s.path, "jobs", "delete", fmt.Sprint(running)); err == nil || !strings.Contains(err.Error(), "still running") {
		t.Fatalf("deleting a running job: err = %v", err)
	}
	if _, err := e.run("--repo", s.path, "jobs", "delete", "--force", fmt.Sprint(running)); err != nil {
		t.Fatal(err)
	}
}

// A repository that does not exist has no jobs: listing says so (exit 0),
// show and delete fail, and none of them creates the file or its
// directory.
func TestJobsEmptyRepo(t *testing.T) {
	t.Parallel()
	e := newEnv(t).set("SLEDGE_REPO", "")
	root := t.TempDir()
	path := filepath.Join(root, "sub", "jobs.db")
	out, err := e.run("--repo", path, "jobs", "--format", "json")
	if err != nil || strings.TrimSpace(out) != "[]" {
		t.Fatalf("missing repo JSON = %q, %v; want []", out, err)
	}
	out, err = e.run("--repo", path, "jobs")
	if err != nil || strings.TrimSpace(out) != "no jobs repository at "+path {
		t.Fatalf("missing repo text = %q, %v", out, err)
	}
	if _, err := e.run("--repo", path, "jobs", "list", "--kind", "run"); err != nil {
		t.Fatalf("jobs list: %v", err)
	}
	for _, args := range [][]string{{"jobs", "show", "1"}, {"jobs", "show", "1", "result"}, {"jobs", "delete", "1"}} {
		_, err := e.run(append([]string{"--repo", path}, args...)...)
		if !errors.Is(err, jobs.ErrNoRepository) || !strings.Contains(fmt.Sprint(err), "no jobs repository at "+path) {
			t.Errorf("%v on a missing repository: %v", args, err)
		}
	}
	if ents, _ := os.ReadDir(root); len(ents) != 0 {
		t.Errorf("jobs commands created %v in %s", ents, root)
	}
	// The default repository (in the data directory) is not created either.
	out, err = e.run("jobs")
	if err != nil || !strings.HasPrefix(out, "no jobs repository at ") {
		t.Errorf("default repository: %q, %v", out, err)
	}
	if ents, _ := os.ReadDir(e.home()); len(ents) != 0 {
		t.Errorf("jobs created %v in the data directory", ents)
	}
}
