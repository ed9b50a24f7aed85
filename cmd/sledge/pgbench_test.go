package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/sledge-bench/sledge/internal/testdb"
)

// TestPgbenchSettingsRefused: the pgbench settings of build and run are
// flags of those commands, and bad values are refused naming the flag,
// before any job is recorded.
func TestPgbenchSettingsRefused(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	db := "sqlite:" + filepath.Join(t.TempDir(), "p.db")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"build", "--workload", "pgbench", "--db", db, "--scale", "1.5"}, "--scale must be a whole number"},
		{[]string{"build", "--workload", "pgbench", "--db", db, "--fillfactor", "5"}, "--fillfactor must be in 10..100"},
		{[]string{"build", "--workload", "pgbench", "--db", db, "--fillfactor", "90"}, "--fillfactor applies to PostgreSQL only"},
		{[]string{"build", "--workload", "pgbench", "--db", db, "--partition-method", "list", "--partitions", "2"}, "--partition-method \"list\": want range or hash"},
		{[]string{"build", "--workload", "pgbench", "--db", db, "--foreign-keys"}, "--foreign-keys: SQLite cannot"},
		{[]string{"run", "--workload", "pgbench", "--db", db, "--query-mode", "fast"}, "--query-mode \"fast\": want simple, extended or prepared"},
		{[]string{"run", "--workload", "pgbench", "--db", db, "--script", "builtin:nope"}, "--script"},
		{[]string{"run", "--workload", "pgbench", "--db", db, "--define", "x"}, "--define"},
		{[]string{"run", "--workload", "pgbench", "--db", "duckdb:" + filepath.Join(t.TempDir(), "p.duckdb")}, "pgbench has no SQL for duckdb"},
	} {
		if _, err := e.run(c.args...); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("sledge %s: %v, want an error saying %q", strings.Join(c.args, " "), err, c.want)
		}
	}
	if list := e.jobs(); len(list) != 0 {
		t.Errorf("refused commands recorded %d jobs: %v", len(list), list)
	}
}

// TestPgbenchCommandRefuses: pgbench's options that sledge pgbench does not
// take, and bad values, fail the command naming the option, before any job
// is recorded.
func TestPgbenchCommandRefuses(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"pgbench", "-x"}, "unknown option -x"},
		{[]string{"pgbench", "-C", "db"}, "-C/--connect is not supported"},
		{[]string{"pgbench", "-c", "0"}, "-c/--client: invalid number of clients 0"},
		{[]string{"pgbench", "-t", "3", "-T", "3"}, "not both"},
		{[]string{"pgbench", "-i", "-c", "2"}, "-c/--client is a run option"},
		{[]string{"pgbench", "--repo", filepath.Join(t.TempDir(), "r.db"), "-b", "nope"}, "-b nope"},
		// The service's field errors are worded as the options given, not
		// as sledge run's flags (--scripts).
		{[]string{"pgbench", "-f", filepath.Join(t.TempDir(), "none.sql"), "postgres://u@127.0.0.1:1/x"}, "-f/-b: "},
		{[]string{"pgbench", "-b", "tpcb-like@0", "postgres://u@127.0.0.1:1/x"}, "-f/-b: the scripts' weights add up to 0"},
	} {
		if _, err := e.run(c.args...); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("sledge %s: %v, want an error saying %q", strings.Join(c.args, " "), err, c.want)
		}
	}
	if list := e.jobs(); len(list) != 0 {
		t.Errorf("refused commands recorded %d jobs: %v", len(list), list)
	}
	out := e.ok("pgbench", "--help")
	if !strings.Contains(out, "pgbench's own command line") {
		t.Errorf("sledge pgbench --help:\n%s", out)
	}
}

// TestPgbenchCommandPostgres: `sledge pgbench -i` builds pgbench's tables
// and `sledge pgbench -c 2 -t 25 …` runs them as stored jobs, with
// pgbench's settings recorded.
func TestPgbenchCommandPostgres(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs pgbench on PostgreSQL")
	}
	t.Parallel()
	e := newEnv(t)
	url := testdb.Postgres(t)
	e.ok("pgbench", "-i", "-s", "1", url)
	if j := e.latest("build"); j["workload"] != "pgbench" || j["status"] != "completed" {
		t.Fatalf("build job %v", j)
	}
	st := e.state()
	out, err := runSledge(context.Background(), st, "pgbench", "-c", "2", "-j", "2", "-t", "25", "-M", "prepared", "--random-seed", "7", "-r", url)
	if err != nil {
		t.Fatalf("sledge pgbench: %v\n%s\n%s", err, out, testStderr(st))
	}
	t.Logf("sledge pgbench:\n%s\n%s", out, testStderr(st))
	if !strings.Contains(testStderr(st), "-j 2: ") {
		t.Errorf("no note on -j:\n%s", testStderr(st))
	}
	j := e.latest("run")
	if j["workload"] != "pgbench" || j["status"] != "completed" {
		t.Fatalf("run job %v\n%s", j, out)
	}
	// pgbench's vocabulary, as it ends and as stored.
	show := e.ok("jobs", "show", fmt.Sprint(j["id"]))
	for _, text := range []string{out, show} {
		for _, want := range []string{"transaction type: <builtin: TPC-B (sort of)>", "scaling factor: 1", "query mode: prepared",
			"number of clients: 2", "number of transactions per client: 25", "number of transactions actually processed: 50/50",
			"number of failed transactions: 0 (0.000%)", "latency average = ", "latency stddev = ", "tps = ",
			"statement latencies in milliseconds and failures:\n", "           0  UPDATE pgbench_accounts SET abalance = abalance + :delta WHERE aid = :aid;\n",
			fmt.Sprintf("stored as job %v", j["id"])} {
			if !strings.Contains(text, want) {
				t.Errorf("the report lacks %q:\n%s", want, text)
			}
		}
		// The sessions' openings were timed on the real server; without a
		// ramp-up the window holds them: the tps including them is the
		// stored window's, the tps without them over the window less
		// their mean (checked against the stored result below).
		m := regexp.MustCompile(`initial connection time = (\d+\.\d{3}) ms\ntps = (\S+) \(without initial connection time\)\ntps = (\S+) \(including initial connection time\)\n`).FindStringSubmatch(text)
		if m == nil {
			t.Fatalf("the report lacks the initial connection time and both tps:\n%s", text)
		}
		var res struct {
			DurationS float64 `json:"duration_s"`
			Commits   int64   `json:"commits"`
			Connects  *struct {
				Count  int64   `json:"count"`
				MeanMS float64 `json:"mean_ms"`
			} `json:"connects"`
		}
		if err := json.Unmarshal([]byte(e.ok("jobs", "show", fmt.Sprint(j["id"]), "result", "--format", "json")), &res); err != nil {
			t.Fatal(err)
		}
		if res.Connects == nil || res.Connects.Count != 2 || !(res.Connects.MeanMS > 0) {
			t.Fatalf("stored openings %+v: want the 2 clients' sessions, timed", res.Connects)
		}
		ct, without, with := atof(m[1]), atof(m[2]), atof(m[3])
		near := func(a, b float64) bool { return math.Abs(a-b) <= 1e-3*b }
		if !near(ct, res.Connects.MeanMS) || !near(with, float64(res.Commits)/res.DurationS) ||
			!near(without, float64(res.Commits)/(res.DurationS-res.Connects.MeanMS/1000)) {
			t.Errorf("initial connection time %s ms, tps %s without and %s with it; stored: %d commits over %.6f s, openings %+v",
				m[1], m[2], m[3], res.Commits, res.DurationS, *res.Connects)
		}
		if _, report, _ := strings.Cut(text, "pgbench result"); strings.Contains(report, "NOPM") {
			t.Errorf("the report speaks of NOPM:\n%s", text)
		}
	}
	// -R: arrivals at the rate over the clients' sessions.
	st = e.state()
	out, err = runSledge(context.Background(), st, "pgbench", "-c", "2", "-T", "1", "-R", "100", "-L", "50", "-P", "1", "-b", "select-only", url)
	if err != nil {
		t.Fatalf("sledge pgbench -R: %v\n%s\n%s", err, out, testStderr(st))
	}
	t.Logf("sledge pgbench -R:\n%s", out)
	// The progress lines of a workload without New-Orders speak of
	// transactions a second, not of NOPM.
	if !regexp.MustCompile(`(?m)^\[ +\d+s\] measure +TPS +\d+\.\d  p95 +\S+( ms)?  errors \d+`).MatchString(out) || strings.Contains(out, "NOPM") {
		t.Errorf("the progress lines are not pgbench-shaped:\n%s", out)
	}
	for _, want := range []string{"transaction type: <builtin: select only>", "duration: 1 s", "number of transactions skipped: ",
		"number of transactions above the 50.0 ms latency limit: ", "rate limit schedule lag: ", "rate        "} {
		if !strings.Contains(out, want) {
			t.Errorf("the report of a rate run lacks %q:\n%s", want, out)
		}
	}
	if show := e.ok("jobs", "show", fmt.Sprint(e.latest("run")["id"]), "result"); !strings.Contains(show, "above the 50.0 ms latency limit") {
		t.Errorf("the stored rate run lacks its latency limit:\n%s", show)
	}
	cfg := e.ok("jobs", "show", fmt.Sprint(j["id"]), "config")
	for _, want := range []string{"query_mode", "prepared", "seed", "7", "iterations", "25"} {
		if !strings.Contains(cfg, want) {
			t.Errorf("config of the run lacks %q:\n%s", want, cfg)
		}
	}
}

// TestPgbenchCommandOtherDatabases: the built-in scripts run on MariaDB and
// SQLite as they are, in every query mode, and leave the balances
// consistent (the run's check after built-in scripts would warn).
func TestPgbenchCommandOtherDatabases(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs pgbench on MariaDB and SQLite")
	}
	t.Parallel()
	for _, c := range []struct {
		name string
		url  func(t *testing.T) string
	}{
		{"mariadb", func(t *testing.T) string { return testdb.MariaDB(t) }},
		{"sqlite", func(t *testing.T) string {
			// An empty file: a database without pgbench's tables, as the
			// MariaDB one.
			path := filepath.Join(t.TempDir(), "pgbench.sqlite")
			if err := os.WriteFile(path, nil, 0o600); err != nil {
				t.Fatal(err)
			}
			return "sqlite:" + path
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t)
			url := c.url(t)
			// What deals with pgbench's tables is said in pgbench's terms.
			for _, tc := range []struct {
				args []string
				want string
			}{
				{[]string{"pgbench", "-t", "1", url}, "initialize it first: `sledge pgbench -i` (-s for the scale) with the same database"},
				{[]string{"pgbench", "-i", url}, ""},
				{[]string{"pgbench", "-i", "-I", "tgp", url}, "put d (drop) in -I's steps, or leave -I out"},
			} {
				out, err := e.run(tc.args...)
				if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
					t.Fatalf("sledge %s: %v, want %q\n%s", strings.Join(tc.args, " "), err, tc.want, out)
				}
			}
			for _, mode := range []string{"simple", "prepared"} {
				st := e.state()
				out, err := runSledge(context.Background(), st, "pgbench", "-c", "2", "-t", "20", "-M", mode, "--max-tries", "20",
					"-b", "tpcb-like", "-b", "simple-update", "-b", "select-only", "-r", url)
				if err != nil {
					t.Fatalf("sledge pgbench -M %s: %v\n%s\n%s", mode, err, out, testStderr(st))
				}
				for _, want := range []string{"transaction type: multiple scripts", "number of transactions actually processed: 40/40",
					"number of failed transactions: 0 (0.000%)", "SQL script 3: <builtin: select only>", "statement latencies in milliseconds"} {
					if !strings.Contains(out, want) {
						t.Errorf("-M %s: the report lacks %q:\n%s", mode, want, out)
					}
				}
				if strings.Contains(out, "balances disagree") || strings.Contains(out, "could not be read") {
					t.Errorf("-M %s: the balances after the run:\n%s", mode, out)
				}
			}
			if out := e.ok("check", "--workload", "pgbench", "--db", url); strings.Contains(out, "FAIL") {
				t.Errorf("check after the runs:\n%s", out)
			}
		})
	}
}

// atof is s as a number, NaN when it is none (so that no "ok" comparison holds).
func atof(s string) float64 {
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return math.NaN()
	}
	return f
}
