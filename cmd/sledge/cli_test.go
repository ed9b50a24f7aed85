package main

import (
	"encoding/json"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sledge-bench/sledge/internal/testdb"
	"github.com/sledge-bench/sledge/internal/testdb/tpcctest"
)

// Scripting tests: HammerDB-style Tcl scripts (and their Python equivalents)
// run through `sledge cli`, against the private PostgreSQL and MariaDB
// servers, and leave their jobs with results in the repository.

func needTclsh(t *testing.T) {
	t.Helper()
	testdb.Command(t, "tclsh", "tcl")
}

// hammerConnection turns a test database URL into HammerDB settings.
func hammerConnection(t *testing.T, raw, prefix string) []string {
	t.Helper()
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	pass, _ := u.User.Password()
	return []string{
		"diset connection " + prefix + "host " + u.Hostname(),
		"diset connection " + prefix + "port " + u.Port(),
		"diset tpcc " + prefix + "user " + u.User.Username(),
		"diset tpcc " + prefix + "pass {" + pass + "}",
		"diset tpcc " + prefix + "dbase " + strings.TrimPrefix(u.Path, "/"),
	}
}

var jobLine = regexp.MustCompile(`(?m)^job (\d+): (.*)$`)

// hammerResult is a `jobs ID result` answer in JSON after a "JOB ANSWER"
// line, ANSWER being vurun's (HammerDB's "Benchmark Run jobid=ID").
var hammerResult = regexp.MustCompile(`JOB Benchmark Run jobid=(\d+)\n(\[\n(?:.*\n)*?\])\n`)

// checkHammerJobs checks the jobs commands of the Tcl run script: HammerDB's
// shapes for result (JSON and text), timing, profile, dict, joblist and the
// summary.
func checkHammerJobs(t *testing.T, out, product string) {
	t.Helper()
	section := func(name, next string) string {
		_, rest, ok := strings.Cut(out, "\n"+name+"\n")
		if !ok {
			t.Fatalf("no %s section:\n%s", name, out)
		}
		body, _, _ := strings.Cut(rest, "\n"+next)
		return body
	}
	results := hammerResult.FindAllStringSubmatch(out, -1)
	if len(results) != 3 {
		t.Fatalf("%d jobs ID result answers, want 3:\n%s", len(results), out)
	}
	var ids []string
	nopm := map[string]string{} // job → the NOPM its result line says
	for i, m := range results {
		var lines []string
		if err := json.Unmarshal([]byte(m[2]), &lines); err != nil {
			t.Fatalf("jobs %s result: %v in %q", m[1], err, m[2])
		}
		vu := []int{1, 2, 4}[i]
		if len(lines) != 4 || lines[0] != m[1] ||
			!regexp.MustCompile(`^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$`).MatchString(lines[1]) ||
			lines[2] != strconv.Itoa(vu)+" Active Virtual Users configured" ||
			// (A run of 1.2 s at one VU on a busy machine may commit no
			// New-Order: the server's TPM counts every session.)
			!regexp.MustCompile(`^TEST RESULT : System achieved \d+ NOPM from [1-9]\d* `+product+` TPM$`).MatchString(lines[3]) {
			t.Errorf("jobs %s result: %q", m[1], lines)
		}
		ids = append(ids, m[1])
		if n := regexp.MustCompile(`achieved (\d+) NOPM`).FindStringSubmatch(lines[3]); n != nil {
			nopm[m[1]] = n[1]
		}
	}
	// timing: HammerDB's procedure names and fields, every value a string,
	// ordered by ratio_pct.
	var timing map[string]map[string]string
	if err := json.Unmarshal([]byte(section("TIMING", "PROFILE")), &timing); err != nil {
		t.Fatalf("jobs timing: %v\n%s", err, out)
	}
	fields := []string{"elapsed_ms", "calls", "min_ms", "avg_ms", "max_ms", "total_ms", "p99_ms", "p95_ms", "p75_ms", "p50_ms", "p25_ms", "sd", "ratio_pct"}
	for _, name := range []string{"NEWORD", "PAYMENT", "DELIVERY", "SLEV", "OSTAT"} {
		tx := timing[name]
		if len(tx) != len(fields) {
			t.Errorf("timing %s: %v", name, tx)
			continue
		}
		for _, f := range fields {
			if _, err := strconv.ParseFloat(tx[f], 64); err != nil {
				t.Errorf("timing %s %s = %q", name, f, tx[f])
			}
		}
		if n, _ := strconv.Atoi(tx["calls"]); n <= 0 {
			t.Errorf("timing %s: no calls", name)
		}
	}
	// profile 1: the three runs, with their virtual users and NOPM.
	var profile map[string]map[string]string
	if err := json.Unmarshal([]byte(section("PROFILE", "DICT")), &profile); err != nil {
		t.Fatalf("jobs profile: %v\n%s", err, out)
	}
	for i, id := range ids {
		p := profile[id]
		if p["activevu"] != strconv.Itoa([]int{1, 2, 4}[i]) || p["bm"] != "TPROC-C" || p["db"] != product || p["nopm"] != nopm[id] {
			t.Errorf("profile 1, job %s: %v (its result line: NOPM %s)", id, p, nopm[id])
		}
	}
	if len(profile) != 3 {
		t.Errorf("profile 1 has %d jobs, want 3: %v", len(profile), profile)
	}
	// dict: the HammerDB settings the run was started with.
	var dict map[string]map[string]string
	if err := json.Unmarshal([]byte(section("DICT", "Setting jobs output format")), &dict); err != nil {
		t.Fatalf("jobs dict: %v\n%s", err, out)
	}
	prefix := map[string]string{"PostgreSQL": "pg_", "MariaDB": "maria_"}[product]
	if dict["tpcc"][prefix+"duration"] != "0.02" || dict["tpcc"][prefix+"driver"] != "timed" || dict["connection"][prefix+"host"] == "" {
		t.Errorf("jobs dict: %v", dict)
	}
	// text format: the result one element per line.
	text := section("TEXT", "LIST ")
	last := ids[2]
	if !regexp.MustCompile(`^` + last + `\n\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\n4 Active Virtual Users configured\nTEST RESULT : System achieved \d+ NOPM`).MatchString(text) {
		t.Errorf("jobs ID result in text:\n%s", text)
	}
	if l := regexp.MustCompile(`\nLIST (.*)\n`).FindStringSubmatch(out); l == nil || !strings.Contains(" "+l[1]+" ", " "+strings.Join(ids, " ")+" ") {
		t.Errorf("jobs joblist %q lacks %v", l, ids)
	}
	if !regexp.MustCompile(`TPROC-C Jobs\nJobid +Database +Date +Workload +NOPM +Status *\n-{100}\n`).MatchString(out) ||
		!regexp.MustCompile(`(?m)^`+last+` +`+product+` \(\S+\) +\d{4}-\d\d-\d\d \d\d:\d\d:\d\d Benchmark Run +\d+ +(SUCCESS|TOP)`).MatchString(out) {
		t.Errorf("jobs summary:\n%s", out)
	}
}

// testTclScripts runs a Tcl script of three runs (1, 2 and 4 VUs) and jobs
// queries on dbURL, which holds TPROC-C (a copy of the test binary's
// template: the corpus builds through buildschema, corpusTcl).
func testTclScripts(e *testEnv, dbset, prefix, product, dbURL string) {
	t := e.t
	dir := t.TempDir()
	conn := strings.Join(hammerConnection(t, dbURL, prefix), "\n")
	run := "dbset db " + dbset + "\n" + conn + "\n" +
		"diset tpcc " + prefix + "driver timed\ndiset tpcc " + prefix + "rampup 0\ndiset tpcc " + prefix + "duration 0.02\n" +
		"diset tpcc " + prefix + "allwarehouse false\n" +
		"diset tpcc " + prefix + "async_delay {a b {c} $d \"e\"}\n" +
		"jobs profileid 1\n" +
		"foreach z {1 2 4} {\n  vuset vu $z\n  vucreate\n  set jobid [vurun]\n  vudestroy\n" +
		"  puts \"JOB $jobid\"\n  jobs $jobid result\n}\n" +
		"puts TIMING\njobs $jobid timing\nputs PROFILE\njobs profile 1\nputs DICT\njobs $jobid dict\n" +
		"jobs format text\nputs TEXT\njobs $jobid result\nputs \"LIST [jobs joblist]\"\nputs \"SUMMARY\n[jobs]\"\n"
	if err := os.WriteFile(filepath.Join(dir, "run.tcl"), []byte(run), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := e.process("", "cli", "auto", filepath.Join(dir, "run.tcl"))
	if err != nil {
		t.Fatalf("run script: %v\n%s", err, out)
	}
	runOut, _, _ := strings.Cut(out, "\nTIMING\n")
	if n := len(regexp.MustCompile(`(?m)^Vuser 1:TEST RESULT : System achieved `).FindAllString(runOut, -1)); n != 3 {
		t.Errorf("%d TEST RESULT lines, want 3:\n%s", n, out)
	}
	if !regexp.MustCompile(`TEST RESULT : System achieved \d+ NOPM from \d+ ` + product + ` TPM`).MatchString(out) {
		t.Errorf("TEST RESULT line not in HammerDB's shape:\n%s", out)
	}
	// The odd value went through Tcl, JSON and Go and came back intact.
	if !strings.Contains(out, "Notice: diset tpcc "+prefix+`async_delay a b {c} $d "e": the terminals start together`) {
		t.Errorf("quoting lost:\n%s", out)
	}
	checkHammerJobs(t, out, product)
	// The same jobs through the repository.
	list := e.jobs()
	runs := 0
	for _, j := range list {
		if j["kind"] == "run" && j["status"] == "completed" && strings.HasPrefix(j["db_version"].(string), product) {
			runs++
		}
	}
	if runs != 3 {
		t.Errorf("%d completed %s runs in the repository, want 3", runs, product)
	}
}

func TestTclScriptsPostgres(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs")
	}
	needTclsh(t)
	t.Parallel()
	e := newEnv(t)
	testTclScripts(e, "pg", "pg_", "PostgreSQL", tpcctest.Postgres(t, tpcctest.Options{Warehouses: 2}))
}

func TestTclScriptsMariaDB(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs")
	}
	needTclsh(t)
	t.Parallel()
	e := newEnv(t)
	// One warehouse: MariaDB copies a template row by row, which costs.
	testTclScripts(e, "maria", "maria_", "MariaDB", tpcctest.MariaDB(t, tpcctest.Options{}))
}

func TestTclErrorsAndPrompt(t *testing.T) {
	needTclsh(t)
	t.Parallel()
	e := newEnv(t)
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.tcl")
	if err := os.WriteFile(bad, []byte("dbset db oracle\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := e.process("", "cli", "auto", bad)
	if err == nil || !strings.Contains(out, "Sledge drives pg, maria and mysql") {
		t.Errorf("unsupported database: %v\n%s", err, out)
	}
	// The interactive prompt: help, a command, plain Tcl.
	out, err = e.process("help\ndbset db maria\nprint db\nset x [expr {6*7}]\n", "cli")
	if err != nil || !strings.Contains(out, "sledge> ") || !strings.Contains(out, `returns "Benchmark Run jobid=ID"`) ||
		!strings.Contains(out, "Database set to MariaDB") || !strings.Contains(out, "42") {
		t.Errorf("prompt: %v\n%s", err, out)
	}
	out, err = e.process("", "cli", "auto", filepath.Join(dir, "missing.tcl"))
	if err == nil || !strings.Contains(out, "missing.tcl") {
		t.Errorf("missing script: %v\n%s", err, out)
	}
}

// testPythonScripts is testTclScripts in Python: `sledge cli py auto`, the
// HammerDB commands as functions, a VU sweep on a database holding TPROC-C
// (a copy of the template: the corpus builds through Python's buildschema,
// corpusPython).
func testPythonScripts(e *testEnv, dbset, prefix, product, dbURL string) {
	t := e.t
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 not installed")
	}
	u, err := url.Parse(dbURL)
	if err != nil {
		t.Fatal(err)
	}
	pass, _ := u.User.Password()
	script := `import json
import sledge
dbset('db', '` + dbset + `')
diset('connection', '` + prefix + `host', '` + u.Hostname() + `')
diset('connection', '` + prefix + `port', ` + u.Port() + `)
diset('tpcc', '` + prefix + `user', '` + u.User.Username() + `')
diset('tpcc', '` + prefix + `pass', ` + strconv.Quote(pass) + `)
diset('tpcc', '` + prefix + `dbase', '` + strings.TrimPrefix(u.Path, "/") + `')
diset('tpcc', '` + prefix + `count_ware', 2)
diset('tpcc', '` + prefix + `num_vu', 2)
diset('tpcc', '` + prefix + `async_delay', 'a b {c} $d "e"')
diset('tpcc', '` + prefix + `driver', 'timed')
diset('tpcc', '` + prefix + `rampup', 0)
diset('tpcc', '` + prefix + `duration', 0.05)
for z in (1, 2):
    vuset('vu', z)
    vucreate()
    answer = vurun()  # HammerDB's "Benchmark Run jobid=ID"
    vudestroy()
    jobid = answer.split('=')[1]
    lines = jobs(answer, 'result')  # HammerDB's shape, printed and returned
    assert lines[0] == jobid and lines[2] == '%d Active Virtual Users configured' % z, lines
    assert lines[3].startswith('TEST RESULT : System achieved '), lines
    res = sledge.result(jobid)  # Sledge's own figures
    print('job %s: %s' % (jobid, json.dumps({'status': res.status, 'vu': res.raw['vu'], 'nopm': res.nopm})))
`
	path := filepath.Join(t.TempDir(), "sweep.py")
	if err := os.WriteFile(path, []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := e.process("", "cli", "py", "auto", path)
	if err != nil {
		t.Fatalf("python script: %v\n%s", err, out)
	}
	// The runs' lines, not the JSON that jobs printed.
	if len(regexp.MustCompile(`(?m)^(?:Vuser \d+:)?TEST RESULT : System achieved `).FindAllString(out, -1)) != 2 ||
		!strings.Contains(out, " "+product+" TPM") {
		t.Errorf("python script output:\n%s", out)
	}
	if !strings.Contains(out, "Notice: diset tpcc "+prefix+`async_delay a b {c} $d "e": the terminals start together`) {
		t.Errorf("quoting lost:\n%s", out)
	}
	matches := jobLine.FindAllStringSubmatch(out, -1)
	if len(matches) != 2 {
		t.Fatalf("%d job lines, want 2:\n%s", len(matches), out)
	}
	for i, m := range matches {
		var res map[string]any
		if err := json.Unmarshal([]byte(m[2]), &res); err != nil {
			t.Fatal(err)
		}
		if res["status"] != "completed" || res["vu"] != float64(i+1) || res["nopm"].(float64) <= 0 {
			t.Errorf("job %s: %v", m[1], res)
		}
	}
}

func TestPythonScriptsPostgres(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs")
	}
	t.Parallel()
	e := newEnv(t)
	testPythonScripts(e, "pg", "pg_", "PostgreSQL", tpcctest.Postgres(t, tpcctest.Options{Warehouses: 2}))
}

func TestPythonScriptsMariaDB(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs")
	}
	t.Parallel()
	e := newEnv(t)
	// One warehouse: MariaDB copies a template row by row, which costs.
	testPythonScripts(e, "maria", "maria_", "MariaDB", tpcctest.MariaDB(t, tpcctest.Options{}))
}

// TestPythonPackageUnitTests runs the package's own pytest suite (a fake
// engine binary and a fake HTTP server).
func TestPythonPackageUnitTests(t *testing.T) {
	t.Parallel()
	if err := exec.Command("python3", "-c", "import pytest").Run(); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("CI is set but python3 with pytest is missing")
		}
		t.Skip("python3 with pytest not installed")
	}
	// tclpy's tests need tkinter: they skip without it, but fail under CI.
	installTkinter(t)
	ctx, cancel := testContext(t)
	defer cancel()
	cmd := exec.CommandContext(ctx, "python3", "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests")
	cmd.Dir = filepath.Join("..", "..", "python")
	cmd.WaitDelay = 10 * time.Second
	testdb.DieWithTest(cmd)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("pytest: %v\n%s", err, out)
	}
	t.Logf("%s", strings.TrimSpace(string(out)))
}

// librarycheck reports every configured database: its built-in driver, and
// the server's version, reached through the default database when the
// benchmark's database does not exist yet; an unreachable one fails it.
func TestTclLibrarycheck(t *testing.T) {
	needTclsh(t)
	t.Parallel()
	e := newEnv(t)
	pg, maria := testdb.Postgres(t), testdb.MariaDB(t)
	dir := t.TempDir()
	pgConn := hammerConnection(t, pg, "pg_")
	pgConn = append(pgConn, "diset tpcc pg_dbase not_built_yet")
	// Keys are per database, as in HammerDB: each is set while its
	// database is chosen, and kept when another is.
	script := "dbset db pg\n" + strings.Join(pgConn, "\n") + "\ndbset db maria\n" +
		strings.Join(hammerConnection(t, maria, "maria_"), "\n") + "\nlibrarycheck\nputs checked\n"
	ok := filepath.Join(dir, "ok.tcl")
	if err := os.WriteFile(ok, []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := e.process("", "cli", "auto", ok)
	if err != nil {
		t.Fatalf("librarycheck: %v\n%s", err, out)
	}
	for _, want := range []string{
		"Checking database library for PostgreSQL\nSuccess ... PostgreSQL driver built in (github.com/jackc/pgx/v5",
		"Checking database library for MariaDB\nSuccess ... MariaDB driver built in (github.com/go-sql-driver/mysql",
		"the benchmark's database is not reachable yet",
		"checked",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q:\n%s", want, out)
		}
	}
	if !regexp.MustCompile(`Success \.\.\. connected to PostgreSQL 15\.\d+[^\n]* at postgres://.*not_built_yet.* \(through database postgres as `).MatchString(out) ||
		!regexp.MustCompile(`Success \.\.\. connected to MariaDB \d+\.\d+\.\d+ at mysql://`).MatchString(out) {
		t.Errorf("versions not reported:\n%s", out)
	}
	if strings.Contains(out, "MySQL") {
		t.Errorf("MySQL was not configured but was checked:\n%s", out)
	}
	// A configured server that does not answer fails the command, which
	// prints why; the script carries on, as HammerDB's does.
	bad := filepath.Join(dir, "bad.tcl")
	if err := os.WriteFile(bad, []byte(script+"dbset db mysql\ndiset connection mysql_host 127.0.0.1\ndiset connection mysql_port 1\ndbset db maria\nlibrarycheck\nputs unreachable\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err = e.process("", "cli", "auto", bad)
	if err != nil || !strings.Contains(out, "Error: cannot reach the MySQL server") || !strings.Contains(out, "\nunreachable\n") {
		t.Errorf("unreachable MySQL: %v\n%s", err, out)
	}
}
