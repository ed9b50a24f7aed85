package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/sledge-bench/sledge/internal/jobs"
	"github.com/sledge-bench/sledge/internal/metrics"
	"github.com/sledge-bench/sledge/internal/observe"
	"github.com/sledge-bench/sledge/internal/testdb"
)

// End-to-end: the real commands against real databases, and what they leave
// in the jobs repository.

func jobID(j map[string]any) string { return strconv.Itoa(int(j["id"].(float64))) }

// requireRunResult checks a stored run result and returns it.
// starvedOnly reports whether a run is degraded only by what a machine
// too busy to run the client or the database on time does to it: stalls
// and pauses, no session lost. (A run degraded so on a loaded CI machine
// says so truthfully; the tests of stalls and pauses are elsewhere.)
func starvedOnly(res map[string]any) bool {
	d, ok := res["disruption"].(map[string]any)
	if res["status"] != metrics.StatusDegraded || !ok {
		return false
	}
	outages, _ := d["outages"].([]any)
	lost, _ := d["lost"].(map[string]any)
	stalls, _ := d["stalls"].([]any)
	pauses, _ := d["pauses"].([]any)
	return len(outages) == 0 && len(lost) == 0 && d["first_error_s"] == nil && len(stalls)+len(pauses) > 0
}

// noNewOrder reports whether run job id stored a result without a New-Order
// in its window.
func (e *testEnv) noNewOrder(id string) bool {
	var res struct {
		NOPM float64 `json:"nopm"`
	}
	if err := json.Unmarshal([]byte(e.ok("jobs", "show", id, "result", "--format", "json")), &res); err != nil {
		e.t.Fatal(err)
	}
	return res.NOPM <= 0
}

func (e *testEnv) requireRunResult(id string, vus int) map[string]any {
	t := e.t
	t.Helper()
	var res map[string]any
	if err := json.Unmarshal([]byte(e.ok("jobs", "show", id, "result", "--format", "json")), &res); err != nil {
		t.Fatal(err)
	}
	requireKeys(t, "result", res, "status", "nopm", "tpm", "nopm_db_check", "vu", "duration_s", "transactions")
	if res["status"] != metrics.StatusCompleted {
		if !starvedOnly(res) {
			t.Fatalf("status %v: %v", res["status"], res["disruption"])
		}
		t.Logf("job %s was degraded by a busy machine: %v", id, res["disruption"].(map[string]any)["headline"])
	}
	if res["vu"].(float64) != float64(vus) {
		t.Errorf("vu %v, want %d", res["vu"], vus)
	}
	nopm, check := res["nopm"].(float64), res["nopm_db_check"].(float64)
	if nopm <= 0 || check <= 0 {
		t.Fatalf("nopm %v, nopm_db_check %v", nopm, check)
	}
	if res["db_check_agree"] != true {
		t.Errorf("NOPM cross-check does not agree: %v vs %v", nopm, check)
	}
	txs := res["transactions"].(map[string]any)
	names := []string{"new_order", "payment", "order_status", "delivery", "stock_level"}
	var total float64
	for _, name := range names {
		if tx, ok := txs[name].(map[string]any); ok {
			n, _ := tx["count"].(float64)
			total += n
		}
	}
	// Each VU deals its transactions from a deck of 23 cards with one
	// Order-Status, Delivery and Stock-Level each: a window is sure to hold
	// every type only once each VU has gone through two decks (it may
	// begin just after a type's card). A short run on a busy machine may
	// not get so far.
	everyType := total >= float64(2*23*vus)
	for _, name := range names {
		tx, ok := txs[name].(map[string]any)
		if !ok {
			t.Fatalf("no transaction %s in %v", name, txs)
		}
		requireKeys(t, name, tx, "count", "p50_ms", "p95_ms", "p99_ms", "errors")
		if tx["count"].(float64) <= 0 && (everyType || name == "new_order" || name == "payment") {
			t.Errorf("%s count %v (%v transactions in all)", name, tx["count"], total)
		}
		if tx["errors"].(float64) != 0 {
			t.Errorf("%s errors %v", name, tx["errors"])
		}
	}
	return res
}

func TestEndToEndSQLiteDefault(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs")
	}
	t.Parallel()
	e := newEnv(t)
	// Two intervals of 1 s, as two of 2 s did (too few for a trend to be
	// judged): the window is unpaced and takes all the CPU it gets.
	out := e.ok("run", "--vu", "2", "--rampup", "1s", "--duration", "2s", "--interval", "1s")
	for _, want := range []string{"building 1 warehouse first", "TPROC-C result", "NOPM", "new_order"} {
		if !strings.Contains(out, want) {
			t.Errorf("run output lacks %q:\n%s", want, out)
		}
	}
	// A newcomer's first run ends clean: the defaults suit the embedded
	// database (it works inside the client, which keeps all cores for it).
	// Whether this shared test machine was quiet is not the defaults'
	// doing: its warnings are left out.
	for line := range strings.Lines(out) {
		if strings.Contains(strings.ToLower(line), "warning") && !strings.Contains(line, observe.NoiseWarningPrefix) {
			t.Errorf("the first run on the embedded default warns: %s\n%s", line, out)
		}
	}
	build, run := e.latest(jobs.KindBuild), e.latest(jobs.KindRun)
	for _, j := range []map[string]any{build, run} {
		requireKeys(t, "job", j, "id", "kind", "workload", "status", "started_at")
		if j["status"] != metrics.StatusCompleted || j["workload"] != "tprocc" {
			t.Errorf("job %v", j)
		}
	}
	e.requireRunResult(jobID(run), 2)
	// The series and the output are stored with the job.
	var series []map[string]any
	if err := json.Unmarshal([]byte(e.ok("jobs", "show", jobID(run), "tcount", "--format", "json")), &series); err != nil {
		t.Fatal(err)
	}
	if len(series) < 2 {
		t.Errorf("%d intervals stored", len(series))
	}
	if o := e.ok("jobs", "show", jobID(run), "output"); !strings.Contains(o, "TPROC-C result") {
		t.Errorf("stored output lacks the result:\n%s", o)
	}
	// A second run reuses the database; check still holds after both.
	e.ok("run", "--vu", "2", "--rampup", "0s", "--duration", "2s")
	if n := len(e.jobs()); n != 3 {
		t.Errorf("%d jobs, want build + 2 runs", n)
	}
	if out := e.ok("check"); !strings.Contains(out, "all conditions hold") {
		t.Errorf("check:\n%s", out)
	}
}

func TestEndToEndPostgres(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs")
	}
	t.Parallel()
	e := newEnv(t)
	endToEndServer(e, testdb.Postgres(t), "PostgreSQL ")
}

func TestEndToEndMariaDB(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs")
	}
	t.Parallel()
	e := newEnv(t)
	endToEndServer(e, testdb.MariaDB(t), "MariaDB ")
}

// endToEndServer builds, checks, runs in both modes, checks and drops through
// the CLI, and reads the jobs back from the repository.
func endToEndServer(e *testEnv, url, product string) {
	t := e.t
	e.ok("build", "--db", url, "--warehouses", "1", "--workers", "2")
	if b := e.latest(jobs.KindBuild); !strings.HasPrefix(fmt.Sprint(b["db_version"]), product) {
		t.Errorf("build job's db_version %v, want %s…", b["db_version"], product)
	}
	if _, err := e.run("build", "--db", url, "--warehouses", "2"); err == nil || !strings.Contains(err.Error(), "--force") {
		t.Fatalf("second build: %v, want a refusal naming --force", err)
	}
	if b := e.latest(jobs.KindBuild); b["status"] != metrics.StatusFailed {
		t.Errorf("refused build recorded as %v", b["status"])
	}
	if out := e.ok("check", "--db", url); !strings.Contains(out, "all conditions hold") {
		t.Fatalf("check after build:\n%s", out)
	}
	// Unpaced windows take all the CPU they get: 3 s (three intervals) hold
	// thousands of transactions, and what is checked is relative (the
	// cross-checks and their margins) or tolerates a busy machine's few.
	for _, mode := range []string{"procs", "sql"} {
		out := e.ok("run", "--db", url, "--vu", "3", "--rampup", "1s", "--duration", "3s", "--mode", mode, "--interval", "1s")
		if !strings.Contains(out, "mode "+mode) || !strings.Contains(out, "server-wide") {
			t.Errorf("%s run output:\n%s", mode, out)
		}
		res := e.requireRunResult(jobID(e.latest(jobs.KindRun)), 3)
		if res["server_tpm"].(float64) <= 0 {
			t.Errorf("%s: no server-wide TPM from the server's counters", mode)
		}
		// The server counts every session's commits and rollbacks: with
		// its edges' margin it never falls below the client's commits.
		if m, ok := res["server_tpm_margin"].(float64); !ok || m <= 0 || res["server_tpm"].(float64)+m < res["tpm"].(float64) {
			t.Errorf("%s: server TPM %v ± %v below the client's %v", mode, res["server_tpm"], res["server_tpm_margin"], res["tpm"])
		}
	}
	var cfg map[string]any
	if err := json.Unmarshal([]byte(e.ok("jobs", "show", jobID(e.latest(jobs.KindRun)), "config", "--format", "json")), &cfg); err != nil {
		t.Fatal(err)
	}
	if cfg["mode"] != "sql" || cfg["c_load"] == nil || cfg["seed"] == nil {
		t.Errorf("config %v", cfg)
	}
	if out := e.ok("check", "--db", url); !strings.Contains(out, "all conditions hold") {
		t.Fatalf("check after runs:\n%s", out)
	}
	e.ok("drop", "--db", url, "--yes")
	if _, err := e.run("check", "--db", url); err == nil {
		t.Fatal("check after drop succeeded")
	}
}

func TestRunRejectsBadInput(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"run", "--vu", "0"}, "--vu"},
		{[]string{"run", "--mode", "turbo"}, "--mode"},
		{[]string{"run", "--isolation", "chaos"}, "--isolation"},
		{[]string{"run", "--exec-mode", "fast"}, "--exec-mode"},
		{[]string{"run", "--duration", "0s"}, "--duration"},
		{[]string{"run", "--db", "oracle://u@127.0.0.1/x"}, "unsupported"},
		{[]string{"run", "--db", "mysql://u@127.0.0.1:1/x", "--duration", "1s"}, "connect"},
		{[]string{"run", "--db", "mysql://u@127.0.0.1:1/"}, "database name"},
		{[]string{"build", "--db", "sqlite:" + filepath.Join(t.TempDir(), "e.db"), "--engine", "InnoDB"}, "--engine"},
		{[]string{"build", "--db", "sqlite:" + filepath.Join(t.TempDir(), "l.db"), "--loader", "stream"}, "--loader stream: sqlite cannot load streams"},
		{[]string{"build", "--loader", "bulk"}, "unknown loader"},
		{[]string{"run", "--db", "sqlite:" + filepath.Join(t.TempDir(), "empty.db")}, "sledge build"},
		{[]string{"run", "--db", "postgres://nobody@127.0.0.1:1/x", "--duration", "1s"}, "connect"},
		{[]string{"build", "--warehouses", "0"}, "warehouses"},
		{[]string{"check", "--db", "sqlite:" + filepath.Join(t.TempDir(), "none.db")}, "sledge build"},
	}
	for _, c := range cases {
		_, err := e.run(c.args...)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("sledge %s: error %v, want one mentioning %q", strings.Join(c.args, " "), err, c.want)
		}
	}
}

// TestEndToEndTPROCH builds and runs TPROC-H on the embedded DuckDB default
// through the CLI and reads the result back as JSON.
func TestEndToEndTPROCH(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs")
	}
	t.Parallel()
	e := newEnv(t)
	e.ok("build", "--workload", "tproch", "--scale", "0.01", "--workers", "2")
	if _, err := e.run("build", "--workload", "tproch", "--scale", "0.01"); err == nil || !strings.Contains(err.Error(), "--force") {
		t.Fatalf("second build: %v, want a refusal naming --force", err)
	}
	// sledge check --workload tproch: the check as TPROC-C's is shown and
	// recorded, its answers skipped below SF 1.
	out := e.ok("check", "--workload", "tproch")
	for _, want := range []string{"TPROC-H check of duckdb:", "rows lineitem", "keys ", "answers ", "scale factor 0.01", "all conditions hold"} {
		if !strings.Contains(out, want) {
			t.Errorf("check output lacks %q:\n%s", want, out)
		}
	}
	if chk := e.latest(jobs.KindCheck); chk["workload"] != "tproch" || chk["status"] != metrics.StatusCompleted {
		t.Errorf("check job %v", chk)
	}
	out = e.ok("run", "--workload", "tproch", "--refresh", "--streams", "2", "--seed", "42")
	for _, want := range []string{"not comparable with audited TPC results", "TPROC-H power", "TPROC-H throughput", "TPROC-H composite", "seed 42"} {
		if !strings.Contains(out, want) {
			t.Errorf("run output lacks %q:\n%s", want, out)
		}
	}
	run := e.latest(jobs.KindRun)
	if run["workload"] != "tproch" || !strings.HasPrefix(fmt.Sprint(run["db_version"]), "DuckDB") {
		t.Errorf("run job %v", run)
	}
	var res map[string]any
	if err := json.Unmarshal([]byte(e.ok("jobs", "show", jobID(run), "result", "--format", "json")), &res); err != nil {
		t.Fatal(err)
	}
	requireKeys(t, "result", res, "status", "geomean_s", "scale_factor", "queries", "power", "throughput", "composite", "stream_totals")
	if res["status"] != metrics.StatusCompleted || res["scale_factor"] != 0.01 || res["geomean_s"] == nil || res["power"] == nil {
		t.Errorf("result %v", res)
	}
	queries := res["queries"].([]any)
	if len(queries) != 3*22 {
		t.Fatalf("%d queries stored, want 66 (power stream and two throughput streams)", len(queries))
	}
	for _, q := range queries {
		q := q.(map[string]any)
		requireKeys(t, "query", q, "stream", "query", "seconds", "rows", "error")
		if q["error"] != nil || q["query"].(float64) < 1 || q["query"].(float64) > 22 {
			t.Errorf("query %v", q)
		}
	}
	// The refresh functions changed ORDERS and LINEITEM: still within the
	// check's bounds, and it says why they are bounds.
	if out := e.ok("check", "--workload", "tproch"); !strings.Contains(out, "refresh pair(s) have run since the load") ||
		!strings.Contains(out, "all conditions hold") {
		t.Errorf("check after refresh pairs:\n%s", out)
	}
	e.ok("drop", "--yes", "--workload", "tproch")
	if _, err := e.run("run", "--workload", "tproch"); err == nil || !strings.Contains(err.Error(), "sledge build --workload tproch") {
		t.Errorf("run after drop: %v", err)
	}
	if _, err := e.run("run", "--workload", "tpch"); err == nil || !strings.Contains(err.Error(), "--workload") {
		t.Errorf("unknown workload: %v", err)
	}

	dir := t.TempDir()
	out = e.ok("datagen", "--workload", "tproch", "--scale", "0.01", "--workers", "2", "--out", dir)
	if !strings.Contains(out, "86,805 rows") {
		t.Errorf("datagen: %s", out)
	}
	b, err := os.ReadFile(filepath.Join(dir, "nation.tbl"))
	if err != nil || !strings.HasPrefix(string(b), "0|ALGERIA|0|") || strings.Count(string(b), "\n") != 25 {
		t.Errorf("nation.tbl: %v %q", err, b)
	}
}

// --pacing spec: VUs wait keying and think times (scaled here to keep the
// test short), the result says so and reports the efficiency.
func TestRunPaced(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.tpcc()
	out := e.ok("run", "--pacing", "spec", "--pacing-scale", "0.01", "--vu", "10", "--rampup", "0s",
		"--duration", "4s", "--interval", "2s")
	for _, want := range []string{"paced with keying and think times scaled ×0.01 (not the specification's)",
		"efficiency", "paced ceiling of 12.86 per warehouse", "keying time new_order", "think time payment"} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q:\n%s", want, out)
		}
	}
	// 10 terminals on 1 warehouse with times ×0.01: at most 1,286 NOPM.
	m := regexp.MustCompile(`efficiency\s+([\d.]+)%`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no efficiency:\n%s", out)
	}
	// Paced VUs cannot beat the ceiling; how far below it they stay is the
	// database's speed (a busy machine's SQLite: 14%), not the pacing's.
	if e, _ := strconv.ParseFloat(m[1], 64); e <= 0 || e > 110 {
		t.Errorf("efficiency %s%%: pacing not honoured?\n%s", m[1], out)
	}
	list := e.jobs()
	cfg := e.ok("jobs", "show", fmt.Sprint(list[0]["id"]), "config", "--format", "json")
	if !strings.Contains(cfg, `"pacing": "spec x0.01"`) {
		t.Errorf("pacing not recorded: %s", cfg)
	}
	if _, err := e.run("run", "--pacing", "fast", "--duration", "1s"); err == nil || !strings.Contains(err.Error(), "want off or spec") {
		t.Errorf("--pacing fast: %v", err)
	}
	if _, err := e.run("run", "--pacing", "spec", "--pacing-scale", "0", "--duration", "1s"); err == nil || !strings.Contains(err.Error(), "--pacing-scale") {
		t.Errorf("--pacing-scale 0: %v", err)
	}
}

// TestInvalidSpecCreatesNoJob: what the job spec refuses is refused before
// anything is recorded, whatever the command.
func TestInvalidSpecCreatesNoJob(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"build", "--warehouses", "-5"}, "--warehouses must be at least 1"},
		{[]string{"build", "--workers", "-1"}, "--workers"},
		{[]string{"build", "--workload", "tproch", "--scale", "0"}, "--scale"},
		{[]string{"build", "--engine", "InnoDB"}, "--engine"},
		{[]string{"run", "--vu", "0", "--max-retries", "999"}, "--max-retries"},
		{[]string{"run", "--pacing", "spec", "--pacing-scale", "0"}, "--pacing-scale"},
		{[]string{"run", "--metrics", "maybe"}, "--metrics \"maybe\": want on or off"},
		{[]string{"run", "--metrics-rate", "0"}, "--metrics-rate must be in (0, 100]"},
		{[]string{"run", "--metrics-rate", "500"}, "--metrics-rate must be in (0, 100]"},
		{[]string{"run", "--workload", "tpcx"}, "--workload"},
		{[]string{"drop", "--yes", "--db", "oracle://x/y"}, "--db"},
	} {
		_, err := e.run(c.args...)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("sledge %s: %v, want an error naming %q", strings.Join(c.args, " "), err, c.want)
		}
	}
	if list := e.jobs(); len(list) != 0 {
		t.Errorf("invalid specs left %d jobs: %v", len(list), list)
	}
}

// TestCheckTPROCHOnPostgres: sledge check names the workload it checks;
// without --workload, on a database holding TPROC-H, it checks TPROC-H and
// says so; --workload tprocc there finds no schema and says which workload
// to name.
func TestCheckTPROCHOnPostgres(t *testing.T) {
	if testing.Short() {
		t.Skip("builds TPROC-H on PostgreSQL")
	}
	t.Parallel()
	e := newEnv(t)
	url := testdb.Postgres(t)
	e.ok("build", "--workload", "tproch", "--scale", "0.01", "--workers", "2", "--db", url)
	_, err := e.run("check", "--db", url, "--workload", "tprocc")
	if err == nil || !strings.Contains(err.Error(), "no TPROC-C schema found") ||
		!strings.Contains(err.Error(), "the database holds a TPROC-H schema: name it with --workload tproch") ||
		strings.Contains(err.Error(), "sledge build") {
		t.Errorf("check of TPROC-C on a TPROC-H database: %v", err)
	}
	t.Logf("check of TPROC-C on a TPROC-H database: %v", err)
	out := e.ok("check", "--db", url)
	for _, want := range []string{"the database holds a TPROC-H schema: checking it\n", "TPROC-H check of postgres://", "key lineitem", "index lineitem_shipdate", "all conditions hold"} {
		if !strings.Contains(out, want) {
			t.Errorf("check output lacks %q:\n%s", want, out)
		}
	}
	if j := e.latest("check"); j["workload"] != "tproch" || j["status"] != "completed" {
		t.Errorf("the check without --workload is recorded as %v", j)
	}

	// HammerDB's checkschema with bm TPROC-H is the same check.
	needTclsh(t)
	tcl := "dbset db pg\ndbset bm TPROC-H\n"
	for _, l := range hammerConnection(t, url, "pg_") {
		tcl += strings.Replace(l, "diset tpcc pg_", "diset tpch pg_tpch_", 1) + "\n"
	}
	tcl += "puts \"CHECK <[checkschema]>\"\n"
	out = e.runScript("check.tcl", tcl)
	wantLines(t, "check.tcl", out, `CHECK <Schema Check jobid=\d+>`, `.*TPROC-H check of postgres://.*`, `.*index orders_orderdate +PASS .*`, `.*all conditions hold`)
}

// TestTPROCHSmallScales: at small scales, on the embedded DuckDB and on
// PostgreSQL, the build announces the exact rows it loads and never reports
// a load of 0 rows, and below the smallest scale at which the refresh
// functions act the run says so, in its output and its stored result, and
// leaves out the power and composite figures.
func TestTPROCHSmallScales(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs")
	}
	t.Parallel()
	g := testdb.NewTogether(t)
	for _, tc := range []struct {
		engine string
		sf     string
		rows   string // loaded (the exact total)
		acts   bool   // the refresh functions change rows
	}{
		{"duckdb", "0.001", "8,695", false},
		{"postgres", "0.001", "8,695", false},
		{"duckdb", "0.01", "86,805", true},
	} {
		g.Run(tc.engine+"/"+tc.sf, func(t *testing.T) {
			e := newEnv(t)
			var db []string
			if tc.engine == "postgres" {
				db = []string{"--db", testdb.Postgres(t)}
			}
			out := e.ok(append([]string{"build", "--workload", "tproch", "--scale", tc.sf, "--workers", "2"}, db...)...)
			if !strings.Contains(out, "\nload: "+tc.rows+" rows\n") || !strings.Contains(out, ": "+tc.rows+" rows in ") {
				t.Errorf("build output lacks the load of %s rows:\n%s", tc.rows, out)
			}
			if strings.Contains(out, "load: 0 of") {
				t.Errorf("build output reports a load of 0 rows:\n%s", out)
			}
			out = e.ok(append([]string{"run", "--workload", "tproch", "--refresh", "--streams", "1", "--seed", "42"}, db...)...)
			said := strings.Contains(out, "the refresh functions insert and delete no orders at scale factor "+tc.sf+" (they act from scale factor 0.007)")
			warned := strings.Contains(out, "warning: RF1 and RF2 changed no rows (at scale factor "+tc.sf)
			power := !strings.Contains(out, "TPROC-H power       n/a") && !strings.Contains(out, "TPROC-H composite   n/a")
			if said == tc.acts || warned == tc.acts || power != tc.acts {
				t.Errorf("run output: says the refresh functions do nothing %v, warns %v, power and composite %v; want %v, %v, %v:\n%s",
					said, warned, power, !tc.acts, !tc.acts, tc.acts, out)
			}
			var res map[string]any
			if err := json.Unmarshal([]byte(e.ok("jobs", "show", jobID(e.latest(jobs.KindRun)), "result", "--format", "json")), &res); err != nil {
				t.Fatal(err)
			}
			stored := strings.Contains(fmt.Sprint(res["warnings"]), "RF1 and RF2 changed no rows")
			if stored == tc.acts || (res["power"] != nil) != tc.acts || (res["composite"] != nil) != tc.acts || res["throughput"] == nil {
				t.Errorf("stored result: power %v, composite %v, throughput %v, warnings %v", res["power"], res["composite"], res["throughput"], res["warnings"])
			}
		})
	}
	g.Wait()
}
