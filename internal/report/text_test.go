package report

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/sledge-bench/sledge/internal/jobs"
	"github.com/sledge-bench/sledge/internal/metrics"
)

// finishedJob is a completed run of 90.5 s.
func finishedJob() jobs.Job {
	start := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	return jobs.Job{ID: 7, Kind: jobs.KindRun, Workload: "tprocc", Status: metrics.StatusCompleted, DBKind: "postgres",
		Target: "postgres://bench:xxxxx@db/tpcc", DBVersion: "PostgreSQL 17.2", Host: "bench1", PID: 42,
		CreatedAt: start, StartedAt: start, EndedAt: start.Add(90*time.Second + 500*time.Millisecond),
		Headline: &jobs.Headline{NOPM: 9000, TPM: 20000}}
}

func TestStoredRunResult(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		edit    func(*metrics.RunResult)
		want    []string
		notWant []string
	}{
		{
			name: "measured",
			want: []string{
				"FAKE-C result (job 7): completed\n",
				"setup 10 warehouses, 8 VUs, mode procs, isolation default\n",
				"NOPM 9,000 (database: 9,001, 9001 vs 9000 New-Orders client-counted: agrees)\n",
				"TPM 20,000 (server counter not available)\n",
				"committed 20,000 (9,000 New-Orders, 90 rolled back, 0 errors)\n",
				" transaction count rollbacks errors retries mean ms p50 ms p95 ms p99 ms max ms\n",
			},
			// The live report's extras are not stored.
			notWant: []string{"efficiency", "database PostgreSQL", "errors by class"},
		},
		{
			name:    "no warehouses",
			edit:    func(r *metrics.RunResult) { r.Warehouses = 0 },
			want:    []string{"setup 8 VUs, mode procs, isolation default\n"},
			notWant: []string{"0 warehouses"},
		},
		{
			name: "iteration run",
			edit: func(r *metrics.RunResult) {
				r.Iterations, r.Rampup, r.Duration, r.Measured = 1, 0, 0, 1500*time.Millisecond
			},
			want: []string{"window 1.5 s elapsed: iteration run, 1 transaction per VU (no ramp-up; from the start to the last VU's end)\n"},
		},
		{
			name:    "nothing measured",
			edit:    func(r *metrics.RunResult) { r.Measured = 0 },
			want:    []string{"window nothing measured (stopped during ramp-up)\n"},
			notWant: []string{"NOPM", "transaction"},
		},
		{
			name: "disagreeing cross-check and NaN rates",
			edit: func(r *metrics.RunResult) {
				r.DBCheckAgree, r.NOPM, r.HasServerTPM, r.ServerTPM = false, math.NaN(), true, 21000
			},
			want: []string{"NOPM - (database: 9,001, 9001 vs 9000 New-Orders client-counted: DISAGREES)\n",
				"(server-wide commits+rollbacks: 21,000/min)"},
		},
		{
			name:    "no cross-check",
			edit:    func(r *metrics.RunResult) { r.HasDBCheck, r.DBNewOrders, r.NOPMDBCheck = false, 0, 0 },
			want:    []string{"(database cross-check not available)"},
			notWant: []string{"agrees"},
		},
		{
			name: "errors, audit, warnings",
			edit: func(r *metrics.RunResult) {
				r.Errors = 3
				r.Tx[0].Errors = map[string]int64{"serialization": 3}
				r.Audit = []metrics.AuditItem{{Name: "remote %", Value: 0.5, Unit: "%", Target: ">= 1", OK: false}}
				r.Warnings = []string{"short run"}
			},
			want: []string{"\n errors by class:\n new_order serialization 3\n", "\n audit:\n remote % 0.50% (expected >= 1) OFF\n",
				"\n warning: short run\n"},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := runResult()
			if c.edit != nil {
				c.edit(r)
			}
			var b strings.Builder
			if err := StoredRunResult(&b, "FAKE-C", finishedJob(), r); err != nil {
				t.Fatal(err)
			}
			checkText(t, b.String(), c.want, c.notWant)
		})
	}
}

func TestTimingErrorsByClass(t *testing.T) {
	t.Parallel()
	// The block shows when any transaction has errors, even if the run's
	// total says none (the two come from different counters).
	cases := []struct {
		name   string
		total  int64
		errors map[string]int64
		want   bool
	}{
		{"none", 0, nil, false},
		{"counted in the total", 2, nil, true},
		{"counted per transaction", 0, map[string]int64{"deadlock": 1}, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := runResult()
			r.Errors = c.total
			r.Tx[1].Errors = c.errors
			var b strings.Builder
			if err := Timing(&b, r); err != nil {
				t.Fatal(err)
			}
			if got := strings.Contains(b.String(), "errors by class:"); got != c.want {
				t.Errorf("errors by class shown = %v, want %v:\n%s", got, c.want, b.String())
			}
		})
	}
}

func TestIntervals(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	if err := Intervals(&b, nil); err != nil || b.Len() != 0 {
		t.Errorf("no intervals: %q, %v; want nothing", b.String(), err)
	}
	ivs := []metrics.Interval{
		{Seq: 1, Phase: metrics.PhaseRampup, Elapsed: 10 * time.Second, TPM: 12000, NOPM: math.NaN(),
			Tx: []metrics.IntervalTx{{Name: "new_order", Count: 50, P95: 2 * time.Millisecond}, {Name: "payment", Count: 60}}},
		// A transaction missing from an interval shows as zeros.
		{Seq: 2, Phase: metrics.PhaseMeasure, Elapsed: 75 * time.Second, TPM: 24000, NOPM: 10500, Errors: 2,
			Tx: []metrics.IntervalTx{{Name: "payment", Count: 70, P95: 1500 * time.Microsecond}}},
	}
	if err := Intervals(&b, ivs); err != nil {
		t.Fatal(err)
	}
	checkText(t, b.String(), []string{
		"seq phase elapsed TPM NOPM errors new_order p95 ms payment p95 ms\n",
		"1 rampup 10s 12,000 - 0 50 2.00 60 0.00\n",
		"2 measure 1m15s 24,000 10,500 2 0 0.00 70 1.50\n",
	}, nil)
}

func TestKV(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	if err := KV(&b, map[string]string{"vu": "8", "db": "postgres://db/tpcc", "duration": "5m"}); err != nil {
		t.Fatal(err)
	}
	if got, want := squeeze(b.String()), "db postgres://db/tpcc\nduration 5m\nvu 8\n"; got != want {
		t.Errorf("KV = %q, want %q", got, want)
	}
}

func TestBuild(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	err := Build(&b, &jobs.BuildResult{Warehouses: 2, Workers: 4, Rows: 1_000_000, Seconds: 10, RowsPerSec: math.NaN(),
		Tables: map[string]int64{"warehouse": 2, "stock": 200_000}})
	if err != nil {
		t.Fatal(err)
	}
	checkText(t, b.String(), []string{
		"build: 2 warehouses with 4 workers: 1,000,000 rows in 10.0 s (- rows/s)\n\n",
		" table rows\n stock 200000\n warehouse 2\n", // sorted by name
	}, nil)
}

func TestCheckItems(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name  string
		items []jobs.CheckItem
		want  []string
	}{
		{"all hold", []jobs.CheckItem{{Name: "1", Description: "a", Passed: true}, {Name: "11", Description: "b", Skipped: true, Note: "n"}},
			[]string{" 1 PASS a\n", " 11 skip b — n\n", "\nall conditions hold\n"}},
		{"failures", []jobs.CheckItem{{Name: "1", Description: "a", Violations: 4}},
			[]string{" 1 FAIL (4 violations) a\n", "\n1 conditions failed\n"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var b strings.Builder
			if err := CheckItems(&b, c.items); err != nil {
				t.Fatal(err)
			}
			checkText(t, b.String(), c.want, nil)
		})
	}
}

func TestJob(t *testing.T) {
	t.Parallel()
	running := finishedJob()
	running.EndedAt, running.Status, running.DBVersion, running.Host = time.Time{}, metrics.StatusRunning, "", ""
	failed := finishedJob()
	failed.Status, failed.Error = metrics.StatusFailed, "connection refused"
	cases := []struct {
		name    string
		j       jobs.Job
		want    []string
		notWant []string
	}{
		{"finished", finishedJob(),
			[]string{"job 7\n", "kind run tprocc\n", "status completed\n", "target postgres://bench:xxxxx@db/tpcc\n",
				"database PostgreSQL 17.2\n", "(1m31s)\n", "host bench1 (pid 42)\n"},
			[]string{"error"}},
		{"running", running, []string{"status running\n", "host - (pid 42)\n"}, []string{"ended", "database"}},
		{"failed", failed, []string{"error connection refused\n"}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var b strings.Builder
			if err := Job(&b, c.j); err != nil {
				t.Fatal(err)
			}
			checkText(t, b.String(), c.want, c.notWant)
		})
	}
}

func TestJobsTable(t *testing.T) {
	t.Parallel()
	build := finishedJob()
	build.ID, build.Kind, build.Headline, build.Workload, build.Target = 8, jobs.KindBuild, nil, "", ""
	nan := finishedJob()
	nan.ID, nan.Headline = 9, &jobs.Headline{NOPM: math.NaN(), TPM: 5}
	// TPROC-H runs: the geometric mean with its unit, n/a when a failed
	// query left it uncomputed.
	h, g := finishedJob(), 0.0394
	h.ID, h.Workload, h.Target, h.Headline, h.GeomeanS = 10, "tproch", "duckdb:h.duckdb", nil, &g
	hFailed, nanG := h, math.NaN()
	hFailed.ID, hFailed.Status, hFailed.GeomeanS = 11, metrics.StatusFailed, &nanG
	var b strings.Builder
	if err := JobsTable(&b, []jobs.Job{finishedJob(), build, nan, h, hFailed}); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(squeeze(b.String()), "\n"), "\n")
	started := LocalTime(finishedJob().StartedAt)
	want := []string{
		"ID KIND WORKLOAD STATUS TARGET STARTED DURATION NOPM TPM GEOMEAN",
		"7 run tprocc completed postgres://bench:xxxxx@db/tpcc " + started + " 1m31s 9,000 20,000 ",
		"8 build - completed - " + started + " 1m31s ", // no rates: blank cells
		"9 run tprocc completed postgres://bench:xxxxx@db/tpcc " + started + " 1m31s - 5 ",
		"10 run tproch completed duckdb:h.duckdb " + started + " 1m31s 0.039 s",
		"11 run tproch failed duckdb:h.duckdb " + started + " 1m31s n/a",
	}
	if len(lines) != len(want) {
		t.Fatalf("got %d lines, want %d:\n%s", len(lines), len(want), b.String())
	}
	for i := range want {
		if lines[i] != want[i] {
			t.Errorf("line %d = %q, want %q", i, lines[i], want[i])
		}
	}
}

func TestHelpers(t *testing.T) {
	t.Parallel()
	if Dash("") != "-" || Dash("x") != "x" {
		t.Error("Dash")
	}
	if LocalTime(time.Time{}) != "-" {
		t.Error("LocalTime of the zero time is not -")
	}
	at := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	if got, want := LocalTime(at), at.Local().Format("2006-01-02 15:04:05"); got != want {
		t.Errorf("LocalTime = %q, want %q", got, want)
	}
	cases := []struct {
		d    time.Duration
		want string
	}{
		{1234 * time.Millisecond, "1.2s"},
		{59*time.Second + 960*time.Millisecond, "1m0s"},
		{90*time.Second + 500*time.Millisecond, "1m31s"},
	}
	for _, c := range cases {
		j := jobs.Job{StartedAt: at, EndedAt: at.Add(c.d)}
		if got := JobDuration(j); got != c.want {
			t.Errorf("JobDuration(%v) = %q, want %q", c.d, got, c.want)
		}
	}
	if got := JobDuration(jobs.Job{StartedAt: at}); got != "-" {
		t.Errorf("JobDuration of a running job = %q, want -", got)
	}
}

func TestPartOfText(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		p    jobs.PartOf
		want string
	}{
		{jobs.PartOf{}, ""},
		{jobs.PartOf{Series: "40", Trial: "2/5"}, "series 40, trial 2/5"},
		{jobs.PartOf{Trial: "1/5"}, "series, trial 1/5"},
		{jobs.PartOf{Series: "40"}, "series 40"},
		{jobs.PartOf{Profile: "12", ProfileVU: "8"}, "profile 12, 8 VUs"},
		{jobs.PartOf{Profile: "12", ProfileVU: "8", Series: "14", Trial: "2/3"}, "profile 12, 8 VUs, trial 2/3"},
	} {
		if got := PartOfText(tc.p); got != tc.want {
			t.Errorf("PartOfText(%+v) = %q, want %q", tc.p, got, tc.want)
		}
	}
	// The column shows only when a job is part of something.
	var plain, grouped strings.Builder
	j := jobs.Job{ID: 1, Kind: "run", Workload: "tprocc", Status: "completed"}
	if err := JobsTable(&plain, []jobs.Job{j}); err != nil {
		t.Fatal(err)
	}
	k := j
	k.PartOf = jobs.PartOf{Series: "1", Trial: "2/2"}
	if err := JobsTable(&grouped, []jobs.Job{k, j}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(plain.String(), "PART OF") || !strings.Contains(grouped.String(), "PART OF") || !strings.Contains(grouped.String(), "series 1, trial 2/2") {
		t.Errorf("tables:\n%s\n%s", plain.String(), grouped.String())
	}
}

// TestRemoteJobsTableIsTheLocalOne: a listing through the API renders as the
// local one (FromJob undoes ToJob for what the table shows).
func TestRemoteJobsTableIsTheLocalOne(t *testing.T) {
	t.Parallel()
	g := 1.25
	j := finishedJob()
	j.Headline = &jobs.Headline{NOPM: 1234, TPM: 5678}
	j.GeomeanS = &g
	j.PartOf = jobs.PartOf{Series: "3", Trial: "2/2"}
	var local, remote strings.Builder
	if err := JobsTable(&local, []jobs.Job{j}); err != nil {
		t.Fatal(err)
	}
	if err := JobsJSONTable(&remote, []JobJSON{ToJob(j)}); err != nil {
		t.Fatal(err)
	}
	if local.String() != remote.String() {
		t.Errorf("local:\n%s\nremote:\n%s", local.String(), remote.String())
	}
}
