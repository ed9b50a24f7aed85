package main

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sledge-bench/sledge/internal/jobs"
	"github.com/sledge-bench/sledge/internal/metrics"
	"github.com/sledge-bench/sledge/internal/observe"
)

// diffRepo is a temporary repository with two observed PostgreSQL runs
// whose settings differ, and one run that was not observed.
type diffRepo struct {
	path              string
	a, b, notObserved int64
}

func seedDiffRepo(t *testing.T) diffRepo {
	t.Helper()
	ctx := context.Background()
	d := diffRepo{path: filepath.Join(t.TempDir(), "jobs.db")}
	r, err := jobs.Open(ctx, d.path)
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
	run := func(version string, nopm, tpm float64, p95 time.Duration, metricsOn string) int64 {
		t.Helper()
		id, err := r.Create(ctx, jobs.Job{Kind: jobs.KindRun, Workload: "tprocc", DBKind: "postgres",
			Target: "postgres://bench@db.example:5432/tpcc"}, map[string]string{"vu": "8", "metrics": metricsOn})
		must(err)
		must(r.SetDBVersion(ctx, id, version))
		must(r.AddInterval(ctx, id, metrics.Interval{Seq: 1, Phase: metrics.PhaseMeasure, Elapsed: 10 * time.Second,
			Length: 10 * time.Second, TPM: tpm, NOPM: nopm}))
		res := &metrics.RunResult{Status: metrics.StatusCompleted, VUs: 8, Warehouses: 4, Mode: "procs",
			Duration: time.Minute, Measured: time.Minute, NOPM: nopm, TPM: tpm, NewOrders: int64(nopm), Commits: int64(tpm),
			Errors: 2, ClientCPUPerTxUS: 50, ServerTPM: -1,
			Tx: []metrics.TxSummary{{Name: "new_order", Count: int64(nopm), P95: p95, Errors: map[string]int64{}}}}
		must(r.SaveRunResult(ctx, id, res))
		must(r.Finish(ctx, id, metrics.StatusCompleted, ""))
		return id
	}
	observed := func(id int64, server string, settings []observe.Setting, waits []observe.Wait) {
		t.Helper()
		must(r.SaveObserverStart(ctx, id, 0, "PostgreSQL sessions and statistics",
			observe.Start{Server: server, Settings: settings}))
		must(r.AppendObserved(ctx, id, 0, 1, observe.Snapshot{Elapsed: 10 * time.Second, Length: 10 * time.Second,
			Samples: 100, Waits: waits}))
	}
	type set = observe.Setting
	d.a = run("PostgreSQL 16.4", 10000, 23000, 4*time.Millisecond, "on")
	observed(d.a, "PostgreSQL 16.4",
		[]set{{Name: "shared_buffers", Value: "128MB"}, {Name: "work_mem", Value: "4MB"}, {Name: "max_connections", Value: "100"}},
		[]observe.Wait{{Class: "CPU", AAS: 3}, {Class: "LWLock", Event: "WALWrite", AAS: 1}})
	d.b = run("PostgreSQL 17.2", 12000, 27600, 2*time.Millisecond, "on")
	observed(d.b, "PostgreSQL 17.2",
		[]set{{Name: "shared_buffers", Value: "8GB"}, {Name: "max_connections", Value: "100"}, {Name: "effective_io_concurrency", Value: "200"}},
		[]observe.Wait{{Class: "CPU", AAS: 5}, {Class: "IO", Event: "DataFileRead", AAS: 0.5}})
	d.notObserved = run("PostgreSQL 17.2", 11000, 25000, 3*time.Millisecond, "off")
	return d
}

func TestJobsDiffText(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	d := seedDiffRepo(t)
	out, err := e.run("--repo", d.path, "jobs", "diff", fmt.Sprint(d.a), fmt.Sprint(d.b))
	if err != nil {
		t.Fatal(err)
	}
	line := func(prefix string) string {
		for l := range strings.SplitSeq(out, "\n") {
			if strings.HasPrefix(strings.TrimSpace(l), prefix) {
				return strings.Join(strings.Fields(l), " ")
			}
		}
		t.Errorf("no line %q in:\n%s", prefix, out)
		return ""
	}
	for prefix, want := range map[string]string{
		"NOPM":                     "NOPM 10,000 12,000 +20.0%",
		"New-Order p95":            "New-Order p95 4.00 ms 2.00 ms -50.0%",
		"VUs":                      "VUs 8 8 0.0%",
		"database":                 "database PostgreSQL 16.4 PostgreSQL 17.2",
		"shared_buffers":           "shared_buffers 128MB 8GB",
		"work_mem":                 "work_mem 4MB —",
		"effective_io_concurrency": "effective_io_concurrency — 200",
		"server version":           "server version PostgreSQL 16.4 PostgreSQL 17.2",
		"note:":                    fmt.Sprintf("note: different servers (job %d on PostgreSQL 16.4, job %d on PostgreSQL 17.2): a difference may be the server's", d.a, d.b),
		"1 ":                       "1 CPU 3.00 AAS (75%) CPU 5.00 AAS (91%)",
	} {
		if got := line(prefix); got != want {
			t.Errorf("line %q = %q, want %q", prefix, got, want)
		}
	}
	if strings.Contains(out, "max_connections") {
		t.Errorf("a setting with the same value is listed:\n%s", out)
	}
	if strings.Contains(out, "geomean") {
		t.Errorf("TPROC-H figures for two TPROC-C runs:\n%s", out)
	}

	out, err = e.run("--repo", d.path, "jobs", "diff", fmt.Sprint(d.a), fmt.Sprint(d.notObserved))
	if err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("settings: not observed for job %d (metrics were off)", d.notObserved)
	if !strings.Contains(out, want) || strings.Contains(out, "Top waits") {
		t.Errorf("diff with a job not observed lacks %q or shows waits:\n%s", want, out)
	}
}

func TestJobsDiffJSON(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	d := seedDiffRepo(t)
	out, err := e.run("--repo", d.path, "jobs", "diff", fmt.Sprint(d.a), fmt.Sprint(d.b), "--format", "json")
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		A, B    struct{ ID int64 }
		Results []struct {
			Name      string
			A, B      *float64
			ChangePct *float64 `json:"change_pct"`
		}
		Settings []struct {
			Observer, Name string
			A, B           *string
		}
		Servers []struct{ A, B *string }
		Waits   []struct{ Observer string }
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	if got.A.ID != d.a || got.B.ID != d.b {
		t.Errorf("a, b = %d, %d; want %d, %d", got.A.ID, got.B.ID, d.a, d.b)
	}
	var tpm bool
	for _, r := range got.Results {
		if r.Name == "TPM" {
			tpm = true
			if r.A == nil || *r.A != 23000 || r.B == nil || *r.B != 27600 || r.ChangePct == nil || *r.ChangePct != 20 {
				t.Errorf("TPM row = %+v", r)
			}
		}
	}
	if !tpm {
		t.Errorf("no TPM row in %s", out)
	}
	settings := map[string][2]string{}
	for _, s := range got.Settings {
		v := func(p *string) string {
			if p == nil {
				return "null"
			}
			return *p
		}
		settings[s.Name] = [2]string{v(s.A), v(s.B)}
	}
	want := map[string][2]string{
		"shared_buffers": {"128MB", "8GB"}, "work_mem": {"4MB", "null"}, "effective_io_concurrency": {"null", "200"},
	}
	if fmt.Sprint(settings) != fmt.Sprint(want) {
		t.Errorf("settings = %v, want %v", settings, want)
	}
	if len(got.Servers) != 1 || len(got.Waits) != 1 {
		t.Errorf("servers %d, waits %d; want 1 each:\n%s", len(got.Servers), len(got.Waits), out)
	}
}

func TestJobsDiffUnknownJob(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	d := seedDiffRepo(t)
	for _, args := range [][]string{{fmt.Sprint(d.a), "999"}, {"999", fmt.Sprint(d.a)}} {
		_, err := e.run(append([]string{"--repo", d.path, "jobs", "diff"}, args...)...)
		if err == nil || !strings.Contains(err.Error(), "no job 999") {
			t.Errorf("jobs diff %v: err = %v, want no job 999", args, err)
		}
	}
	if _, err := e.run("--repo", d.path, "jobs", "diff", "1"); err == nil {
		t.Error("jobs diff with one id: no error")
	}
}
