package script

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/sledge-bench/sledge/internal/jobs"
	"github.com/sledge-bench/sledge/internal/metrics"
	"github.com/sledge-bench/sledge/internal/metrics/metricstest"
)

// fixture is a repository with the jobs of a small HammerDB-style session:
// a build, two runs under profile 1 and one under profile 2, a failed run, a
// run started outside `sledge cli`, and a TPROC-H run.
type fixture struct {
	repo                               *jobs.Repo
	build, run1, run2, run3, failed, h int64
	plain                              int64
	stamp                              func(id int64) string
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	ctx := context.Background()
	repo, err := jobs.Open(ctx, filepath.Join(t.TempDir(), "jobs.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { repo.Close() })
	f := &fixture{repo: repo}
	create := func(kind, workload string, cfg map[string]string, status string) int64 {
		id, err := repo.Create(ctx, jobs.Job{Kind: kind, Workload: workload, DBKind: "postgres",
			Target: "postgres://tpcc:secret@db1:5433/tpcc"}, cfg)
		if err != nil {
			t.Fatal(err)
		}
		if err := repo.SetDBVersion(ctx, id, "PostgreSQL 15.18 (Debian 15.18-0+deb12u1)"); err != nil {
			t.Fatal(err)
		}
		if err := repo.SetSystem(ctx, id, map[string]string{"host": "vm", "cpus": "2", "os": "linux/amd64",
			"cpu_model": "Test CPU @ 2.0GHz", "sledge_version": "dev", "go_version": "go1.26.8"}); err != nil {
			t.Fatal(err)
		}
		if status != metrics.StatusRunning {
			errText := ""
			if status == metrics.StatusFailed {
				errText = "connection refused"
			}
			if err := repo.Finish(ctx, id, status, errText); err != nil {
				t.Fatal(err)
			}
		}
		return id
	}
	run := func(vus int, nopm float64, profile string) int64 {
		cfg := map[string]string{"vu": fmt.Sprint(vus), "mode": "procs", "rampup": "0s", "duration": "3s", "warehouses": "2"}
		if profile != "" { // started from `sledge cli`
			cfg[ConfigProfileID] = profile
			cfg[ConfigPrefix+"tpcc.pg_count_ware"] = "2"
			cfg[ConfigPrefix+"tpcc.pg_pass"] = "secret"
			cfg[ConfigPrefix+"connection.pg_host"] = "db1"
		}
		id := create(jobs.KindRun, "tprocc", cfg, metrics.StatusRunning)
		res := &metrics.RunResult{Status: metrics.StatusCompleted, VUs: vus, Warehouses: 2, Mode: "procs",
			Duration: 3 * time.Second, Measured: 3 * time.Second, TPM: 2.3 * nopm,
			// HammerDB's NOPM is the database's count (the cross-check's),
			// everywhere it gives one; the client saw a little fewer.
			NOPM: nopm - 3, HasDBCheck: true, NOPMDBCheck: nopm, DBCheckAgree: true,
			Tx: []metrics.TxSummary{
				{Name: "new_order", Count: 4, Histogram: metricstest.Histogram(t, 1000, 2000, 3000, 4000)},
				{Name: "payment", Count: 4, Histogram: metricstest.Histogram(t, 500, 500, 500, 500)},
				{Name: "stock_level", Count: 1, Histogram: metricstest.Histogram(t, 9000)},
			}}
		if err := repo.SaveRunResult(ctx, id, res); err != nil {
			t.Fatal(err)
		}
		for i := 1; i <= 3; i++ {
			if err := repo.AddInterval(ctx, id, metrics.Interval{Seq: i, Phase: metrics.PhaseMeasure,
				Elapsed: time.Duration(i) * time.Second, Length: time.Second, TPM: float64(1000 * i)}); err != nil {
				t.Fatal(err)
			}
		}
		if err := repo.AppendOutput(ctx, id, "run job: TPROC-C"); err != nil {
			t.Fatal(err)
		}
		if err := repo.Finish(ctx, id, metrics.StatusCompleted, ""); err != nil {
			t.Fatal(err)
		}
		return id
	}
	f.build = create(jobs.KindBuild, "tprocc", map[string]string{"warehouses": "2", "workers": "2"}, metrics.StatusCompleted)
	f.run1 = run(1, 10000, "1")
	f.run2 = run(2, 18000, "1")
	f.run3 = run(2, 19800, "2")
	f.failed = create(jobs.KindRun, "tprocc", map[string]string{"vu": "4"}, metrics.StatusFailed)
	f.plain = run(4, 20000, "")
	f.h = create(jobs.KindRun, "tproch", nil, metrics.StatusRunning)
	ares := &metrics.AnalyticResult{Status: metrics.StatusCompleted, SF: 1, Streams: 1, QuerySets: 1, GeomeanS: 0.5}
	for q := 1; q <= 22; q++ {
		rows := int64(q)
		if q == 22 {
			rows = 0 // an empty answer does not count in HammerDB's geometric mean
		}
		ares.Queries = append(ares.Queries, metrics.AnalyticQuery{Stream: 0, Position: q, Set: 1, Query: q, Seconds: 2, Rows: rows})
	}
	if err := repo.SaveAnalyticResult(ctx, f.h, ares); err != nil {
		t.Fatal(err)
	}
	if err := repo.Finish(ctx, f.h, metrics.StatusCompleted, ""); err != nil {
		t.Fatal(err)
	}
	f.stamp = func(id int64) string {
		j, err := repo.Get(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		return j.StartedAt.In(time.UTC).Format("2006-01-02 15:04:05")
	}
	return f
}

func (f *fixture) run(t *testing.T, s Session, args ...string) Outcome {
	t.Helper()
	out, err := (&Command{Repo: f.repo, Loc: time.UTC}).Run(context.Background(), s, args)
	if err != nil {
		t.Fatalf("jobs %v: %v", args, err)
	}
	return out
}

func TestJobsAnswers(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	id := func(n int64) string { return fmt.Sprint(n) }
	text := Session{Format: FormatText}
	for _, tc := range []struct {
		name    string
		s       Session
		args    []string
		printed string // exact, unless re is set
		re      string
	}{
		{"result", Session{}, []string{id(f.run2), "result"}, "[\n  \"" + id(f.run2) + "\",\n  \"" + f.stamp(f.run2) +
			"\",\n  \"2 Active Virtual Users configured\",\n  \"TEST RESULT : System achieved 18000 NOPM from 41400 PostgreSQL TPM\"\n]\n", ""},
		{"result text", text, []string{id(f.run2), "result"}, id(f.run2) + "\n" + f.stamp(f.run2) +
			"\n2 Active Virtual Users configured\nTEST RESULT : System achieved 18000 NOPM from 41400 PostgreSQL TPM\n", ""},
		// HammerDB reads results from VU 1's rows: the build has none.
		{"no result", Session{}, []string{id(f.build), "result"}, "Jobid " + id(f.build) + " for virtual user 1 does not exist\n", ""},
		{"TPROC-H result", Session{}, []string{id(f.h), "result"}, "", `(?s)^\[\n  "` + id(f.h) + `",\n  "[-0-9: ]+",\n  "Geometric mean of query times returning rows \(21\) is \\"2.00000\\"",\n  "Completed 1 query set\(s\) in 44 seconds"\n\]\n$`},
		{"bm", Session{}, []string{id(f.h), "bm"}, "[\"TPROC-H\"]\n", ""},
		{"db", Session{}, []string{id(f.run1), "db"}, "[\"PostgreSQL\"]\n", ""},
		{"db text", text, []string{id(f.run1), "db"}, "PostgreSQL\n", ""},
		{"timestamp", Session{}, []string{id(f.run1), "timestamp"}, "{\"" + id(f.run1) + "\": \"" + f.stamp(f.run1) + "\"}\n", ""},
		{"timestamp text", text, []string{id(f.run1), "timestamp"}, id(f.run1) + " {" + f.stamp(f.run1) + "}\n", ""},
		{"tcount", Session{}, []string{id(f.run1), "tcount"}, "", `^\{"PostgreSQL tpm": \{\n    "0": "[-0-9: ]+",\n    "1000": "[-0-9: ]+",\n    "2000": "[-0-9: ]+",\n    "3000": "[-0-9: ]+"\n  \}\}\n$`},
		{"tcount text", text, []string{id(f.run1), "tcount"}, "", `^\{PostgreSQL tpm\} \{0 \{[-0-9: ]+\} 1000 \{[-0-9: ]+\} 2000 \{[-0-9: ]+\} 3000 \{[-0-9: ]+\}\}\n$`},
		{"no timing", Session{}, []string{id(f.h), "timing"}, "{\"" + id(f.h) + "\": {\n    \"Jobid\": \"has\",\n    \"no\": \"timing\",\n    \"data\": \"\"\n  }}\n", ""},
		{"no timing text", text, []string{id(f.h), "timing"}, id(f.h) + " {Jobid has no timing data}\n", ""},
		{"metrics", Session{}, []string{id(f.run1), "metrics"}, "", `"no": "metric"`},
		{"vu timing", Session{}, []string{id(f.run1), "timing", "vu=2"}, "", `^No Timing Data for VU 2 for JOB \d+`},
		{"status", Session{}, []string{id(f.failed), "status"}, "[\n  \"0\",\n  \"Vuser 1:RUNNING\",\n  \"0\",\n  \"Vuser 2:RUNNING\",\n  \"0\",\n  \"Vuser 3:RUNNING\",\n  \"0\",\n  \"Vuser 4:RUNNING\",\n  \"0\",\n  \"Vuser 5:RUNNING\",\n  \"0\",\n  \"Error: connection refused\",\n  \"0\",\n  \"Vuser 1:FINISHED FAILED\",\n  \"0\",\n  \"Vuser 2:FINISHED FAILED\",\n  \"0\",\n  \"Vuser 3:FINISHED FAILED\",\n  \"0\",\n  \"Vuser 4:FINISHED FAILED\",\n  \"0\",\n  \"Vuser 5:FINISHED FAILED\",\n  \"0\",\n  \"ALL VIRTUAL USERS COMPLETE\"\n]\n", ""},
		{"rows text", text, []string{id(f.run1)}, "Virtual User 0: Vuser 1:RUNNING\nVirtual User 0: Vuser 2:RUNNING\nVirtual User 1: run job: TPROC-C\n" +
			"Virtual User 1: 1 Active Virtual Users configured\nVirtual User 1: TEST RESULT : System achieved 10000 NOPM from 23000 PostgreSQL TPM\n" +
			"Virtual User 0: Vuser 1:FINISHED SUCCESS\nVirtual User 0: Vuser 2:FINISHED SUCCESS\nVirtual User 0: ALL VIRTUAL USERS COMPLETE\n", ""},
		{"vu 1 rows", Session{}, []string{id(f.run1), "1"}, "[\n  \"1\",\n  \"run job: TPROC-C\",\n  \"1\",\n  \"1 Active Virtual Users configured\",\n" +
			"  \"1\",\n  \"TEST RESULT : System achieved 10000 NOPM from 23000 PostgreSQL TPM\"\n]\n", ""},
		{"no vu 3", Session{}, []string{id(f.run1), "3"}, "Jobid " + id(f.run1) + " for virtual user 3 does not exist\n", ""},
		{"system", Session{}, []string{id(f.run1), "system"}, "{\n  \"jobid\": \"" + id(f.run1) + "\",\n  \"hostname\": \"vm\",\n  \"cpumodel\": \"Test CPU @ 2.0GHz\",\n  \"cpucount\": \"2\",\n  \"other_software\": \"Sledge dev, go1.26.8\",\n  \"extra\": \"platform linux\\/amd64\"\n}\n", ""},
		// The whole dictionary with HammerDB's defaults, the recorded settings over them, in HammerDB's order.
		{"stored dict, passwords redacted", Session{}, []string{id(f.run1), "dict"}, "", `^\{\n  "connection": \{\n    "pg_host": "db1",\n    "pg_port": "5432",\n    "pg_sslmode": "prefer"\n  \},\n` +
			`  "tpcc": \{\n    "pg_count_ware": "2",\n    "pg_num_vu": "1",\n    "pg_superuser": "postgres",\n    "pg_superuserpass": "xxxxx",\n    "pg_defaultdbase": "postgres",\n` +
			`    "pg_user": "tpcc",\n    "pg_pass": "xxxxx",\n(?:    "pg_\w+": "[^"]*",\n){20}    "pg_connect_pool": "false"\n  \}\n\}\n$`},
		{"derived dict", Session{}, []string{id(f.plain), "dict"}, "", `(?s)^\{\n  "connection": \{\n    "pg_host": "db1",\n    "pg_port": "5433",\n    "pg_sslmode": "prefer"\n  \},\n` +
			`  "tpcc": \{\n    "pg_count_ware": "2",\n.*    "pg_user": "tpcc",\n    "pg_pass": "xxxxx",\n    "pg_dbase": "tpcc",\n.*    "pg_storedprocs": "false",\n.*` +
			`    "pg_driver": "timed",\n    "pg_rampup": "0.0",\n    "pg_duration": "0.05",\n.*    "pg_connect_pool": "false"\n  \}\n\}\n$`},
		{"unknown job", Session{}, []string{"999", "result"}, "Jobid 999 for virtual user 1 does not exist\n", ""},
		{"not a job id", Session{}, []string{"abc"}, "Jobid abc does not exist\n", ""},
		{"bad sub-command", Session{}, []string{id(f.run1), "frob"}, twoWordUsage + "\n", ""},
		{"bad three words", Session{}, []string{id(f.run1), "result", "x"}, "", `^Error: Jobs Three Parameter Usage`},
		{"too many", Session{}, []string{"1", "2", "3", "4"}, "", `^Error: Too many arguments to jobs\nError: Usage: \[ jobs \|`},
		{"all results", Session{}, []string{"result"}, "", `"` + id(f.build) + `": "Jobid has no test result",\n  "` + id(f.run1) + `": \{\n    "db": "PostgreSQL",\n    "bm": "TPROC-C",\n    "tstamp": "[-0-9: ]+",\n    "activevu": "1",\n    "nopm": "10000",\n    "tpm": "23000"\n  \},`},
		{"all results TPROC-H", Session{}, []string{"result"}, "", `"` + id(f.h) + `": \{\n    "db": "PostgreSQL",\n    "bm": "TPROC-H",\n    "tstamp": "[-0-9: ]+",\n    "queries": "21",\n    "querysets": "1",\n    "geomean": "2.00000",\n    "querytime": "44"\n  \}\n\}`},
		{"all timestamps text", text, []string{"timestamp"}, "", `^` + id(f.build) + ` \{[-0-9: ]+\} ` + id(f.run1) + ` \{`},
		{"profile", Session{}, []string{"profile", "1"}, "", `^\{\n  "` + id(f.run1) + `": \{[^}]*"activevu": "1",\n    "nopm": "10000"[^}]*\},\n  "` + id(f.run2) + `": \{[^}]*"nopm": "18000"`},
		{"no profile", Session{}, []string{"profile", "9"}, "Error: No jobs found with performance profile id of 9\n", ""},
		{"profile ids", Session{}, []string{"profileid", "all"}, "[\n  \"1\",\n  \"2\"\n]\n", ""},
		{"bad profile id", Session{}, []string{"profileid", "x"}, "Error: Performance profile id should be an integer\n", ""},
		{"format usage", Session{}, []string{"format", "xml"}, "Error: Usage: jobs format [ text | JSON ]\n", ""},
		{"disable", Session{}, []string{"disable", "1"}, "", `^Notice: jobs disable 1: Sledge always keeps its jobs repository`},
		{"metrics chart", Session{}, []string{id(f.run1), "getchart", "metrics"}, "Chart for jobid " + id(f.run1) + " not available, Jobid has insufficient metrics data\n", ""},
		{"no result chart", Session{}, []string{id(f.build), "getchart", "result"}, "Chart for jobid " + id(f.build) + " not available, Jobid has no test result\n", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := f.run(t, tc.s, tc.args...)
			if tc.re != "" {
				if !regexp.MustCompile(tc.re).MatchString(out.Printed) {
					t.Errorf("jobs %v printed\n%s\nwant match of %s", tc.args, out.Printed, tc.re)
				}
			} else if out.Printed != tc.printed {
				t.Errorf("jobs %v printed\n%q\nwant\n%q", tc.args, out.Printed, tc.printed)
			}
			if out.Returned != "" {
				t.Errorf("jobs %v returned %q, want it printed", tc.args, out.Returned)
			}
			if tc.s.Format != FormatText && (strings.HasPrefix(out.Printed, "{") || strings.HasPrefix(out.Printed, "[")) {
				if !json.Valid([]byte(out.Printed)) {
					t.Errorf("jobs %v: not JSON:\n%s", tc.args, out.Printed)
				}
			}
		})
	}
}

func TestJobsTiming(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	out := f.run(t, Session{}, fmt.Sprint(f.run1), "timing")
	var timing map[string]map[string]string
	if err := json.Unmarshal([]byte(out.Printed), &timing); err != nil {
		t.Fatalf("%v\n%s", err, out.Printed)
	}
	// 1 VU for 3 s: 3000 ms of VU time; New-Order took 10 ms of it (as the
	// histogram's 3 significant digits give it: 10.002).
	no := timing["NEWORD"]
	for k, want := range map[string]string{"elapsed_ms": "3000.0", "calls": "4", "min_ms": "1.0", "max_ms": "4.001",
		"total_ms": "10.002", "avg_ms": "2.501", "p50_ms": "2.0", "p25_ms": "1.0", "p75_ms": "3.001", "p99_ms": "4.001", "ratio_pct": "0.333"} {
		if no[k] != want {
			t.Errorf("NEWORD %s = %q, want %q (%v)", k, no[k], want, no)
		}
	}
	// Keys in HammerDB's order of fields, transactions by ratio_pct.
	order := regexp.MustCompile(`"(\w+)": \{`).FindAllStringSubmatch(out.Printed, -1)
	var names []string
	for _, m := range order {
		names = append(names, m[1])
	}
	if strings.Join(names, " ") != "NEWORD SLEV PAYMENT" {
		t.Errorf("transactions in order %v, want by ratio_pct: NEWORD SLEV PAYMENT", names)
	}
	fields := regexp.MustCompile(`(?s)"NEWORD": \{(.*?)\}`).FindStringSubmatch(out.Printed)[1]
	var keys []string
	for _, m := range regexp.MustCompile(`"(\w+)":`).FindAllStringSubmatch(fields, -1) {
		keys = append(keys, m[1])
	}
	if got := strings.Join(keys, " "); got != "elapsed_ms calls min_ms avg_ms max_ms total_ms p99_ms p95_ms p75_ms p50_ms p25_ms sd ratio_pct" {
		t.Errorf("fields %s", got)
	}
}

func TestJobsSummaryAndReturns(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	out := f.run(t, Session{})
	if out.Printed != "" {
		t.Errorf("jobs printed %q: the summary is returned", out.Printed)
	}
	lines := strings.Split(out.Returned, "\n")
	if lines[0] != "TPROC-C Jobs" || !strings.HasPrefix(lines[1], "Jobid                      Database           Date                Workload       NOPM       Status") ||
		lines[2] != strings.Repeat("-", 100) {
		t.Fatalf("summary header:\n%s", out.Returned)
	}
	row := func(id int64) string {
		for _, l := range lines {
			if strings.HasPrefix(l, fmt.Sprint(id)+" ") {
				return l
			}
		}
		t.Fatalf("no row for job %d:\n%s", id, out.Returned)
		return ""
	}
	want := map[int64]string{
		f.build:  `Schema Build   --         SUCCESS `,
		f.run1:   `Benchmark Run  10000      SUCCESS `,
		f.plain:  `Benchmark Run  20000      TOP     `,
		f.failed: `Benchmark Run  --         FAILED  `,
	}
	for id, w := range want {
		r := row(id)
		if !strings.Contains(r, "PostgreSQL (15.18) ") || !strings.HasSuffix(r, w) {
			t.Errorf("row %q, want … %q", r, w)
		}
	}
	if !strings.Contains(out.Returned, "\n\nTPROC-H Jobs\nJobid                      Database           Date                Workload       Geomean    Status") ||
		!strings.HasSuffix(row(f.h), "Benchmark Run  2.00       TOP     ") { // the first stream's geometric mean
		t.Errorf("TPROC-H table:\n%s", out.Returned)
	}
	if out = f.run(t, Session{}, "joblist"); out.Returned != fmt.Sprintf("%d %d %d %d %d %d %d", f.build, f.run1, f.run2, f.run3, f.failed, f.plain, f.h) || out.Printed != "" {
		t.Errorf("joblist: %+v", out)
	}
	out = f.run(t, Session{}, fmt.Sprint(f.run1), "getchart", "tcount")
	if !strings.HasPrefix(out.Returned, "<!DOCTYPE html>") || !strings.Contains(out.Returned, "<polyline") || strings.Contains(out.Returned, "<script") {
		t.Errorf("tcount chart: %.300s", out.Returned)
	}
	for _, kind := range []string{"result", "timing"} {
		if out = f.run(t, Session{}, fmt.Sprint(f.run1), "getchart", kind); !strings.Contains(out.Returned, "<rect") {
			t.Errorf("%s chart: %.300s", kind, out.Returned)
		}
	}
	if out = f.run(t, Session{}, "1", "getchart", "diff:2"); !strings.Contains(out.Returned, "profile 2 NOPM") {
		t.Errorf("diff chart: %.300s", out.Returned)
	}
	// diff: profile 2 has one run at 2 VUs (19800) against profile 1's 18000.
	out = f.run(t, Session{}, "diff", "1", "2")
	if out.Printed != "Profiles compared (unweighted): matched=1, avg_base=18000, avg_comp=19800\n" || out.Returned != "+0.10" {
		t.Errorf("diff: %+v", out)
	}
	if out = f.run(t, Session{}, "diff", "1", "9"); out.Returned != "null" {
		t.Errorf("diff with an unknown profile: %+v", out)
	}
}

func TestJobsSessionAndDelete(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	out := f.run(t, Session{}, "format", "text")
	if out.Session.Format != FormatText || out.Printed != "Setting jobs output format to text\n" {
		t.Errorf("format text: %+v", out)
	}
	out = f.run(t, out.Session, "profileid", "3")
	if out.Session.ProfileID != 3 || out.Session.Format != FormatText || out.Printed != "Setting performance profile id to 3\n" {
		t.Errorf("profileid 3: %+v", out)
	}
	if out = f.run(t, out.Session, "profileid"); out.Printed != "Performance profile id set to 3\n" {
		t.Errorf("profileid: %+v", out)
	}
	if out = f.run(t, Session{}, fmt.Sprint(f.run1), "delete"); out.Printed != fmt.Sprintf("Deleted Jobid %d\n", f.run1) {
		t.Errorf("delete: %+v", out)
	}
	if out = f.run(t, Session{}, fmt.Sprint(f.run1)); out.Printed != fmt.Sprintf("Jobid %d does not exist\n", f.run1) {
		t.Errorf("after delete: %+v", out)
	}
}

// TestDiffRatio: jobs diff returns the difference as HammerDB writes it.
func TestDiffRatio(t *testing.T) {
	t.Parallel()
	for d, want := range map[float64]string{0.1: "+0.10", -0.034: "-0.03", 0: "0.00", 0.0012: "+0.0012",
		-0.0012: "-0.0012", 0.00001: "0.0000", 1.5: "+1.50"} {
		if got := diffRatio(d); got != want {
			t.Errorf("diffRatio(%v) = %q, want %q", d, got, want)
		}
	}
}

// TestJobsDiffErrors: HammerDB's messages for profiles that cannot be
// compared; the command returns "null".
func TestJobsDiffErrors(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	for _, tc := range []struct {
		args    []string
		printed string
	}{
		{[]string{"diff", "x", "1"}, "Error: good profile id must be an integer > 0\n"},
		{[]string{"diff", "1", "0"}, "Error: bad profile id must be an integer > 0\n"},
		{[]string{"diff", "9", "1"}, "Error: no jobs found for good profile id 9\n"},
		{[]string{"diff", "1", "9"}, "Error: no jobs found for bad profile id 9\n"},
	} {
		out := f.run(t, Session{}, tc.args...)
		if out.Printed != tc.printed || out.Returned != "null" {
			t.Errorf("jobs %v: %+v, want %q and null", tc.args, out, tc.printed)
		}
	}
}
