package main

import (
	"context"
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
)

// Scripting tests: HammerDB-style Tcl scripts (and their Python equivalents)
// run through `sledge cli`, against the private PostgreSQL and MariaDB
// servers, and leave their jobs with results in the repository.

// sledgeProcess runs this test binary as the sledge command.
func sledgeProcess(t *testing.T, stdin string, args ...string) (string, error) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, exe, args...)
	cmd.Env = append(os.Environ(), "SLEDGE_TEST_AS_MAIN=1", "SLEDGE_NO_REEXEC=1")
	if stdin != "" {
		cmd.Stdin = strings.NewReader(stdin)
	}
	out, err := cmd.CombinedOutput()
	return string(out), err
}

func needTclsh(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("tclsh"); err == nil {
		return
	}
	if os.Geteuid() == 0 {
		if out, err := exec.Command("flock", "/tmp/sledge-apt.lock", "/bin/sh", "-c",
			"command -v tclsh || (apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q tcl)").CombinedOutput(); err != nil {
			t.Logf("installing tcl: %v\n%s", err, out)
		}
	}
	if _, err := exec.LookPath("tclsh"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("CI is set but tclsh is missing")
		}
		t.Skip("tclsh not installed")
	}
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

func testTclScripts(t *testing.T, dbset, prefix, product, dbURL string) {
	dir := t.TempDir()
	conn := strings.Join(hammerConnection(t, dbURL, prefix), "\n")
	build := "dbset db " + dbset + "\ndbset bm TPROC-C\n" + conn + "\n" +
		"diset tpcc " + prefix + "count_ware 2\ndiset tpcc " + prefix + "num_vu 2\nbuildschema\n"
	if err := os.WriteFile(filepath.Join(dir, "build.tcl"), []byte(build), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := sledgeProcess(t, "", "cli", "auto", filepath.Join(dir, "build.tcl"))
	if err != nil || !strings.Contains(out, "built 2 warehouses") {
		t.Fatalf("build script: %v\n%s", err, out)
	}
	run := "dbset db " + dbset + "\n" + conn + "\n" +
		"diset tpcc " + prefix + "driver timed\ndiset tpcc " + prefix + "rampup 0\ndiset tpcc " + prefix + "duration 0.05\n" +
		"diset tpcc " + prefix + "allwarehouse false\n" +
		"diset tpcc " + prefix + "odd_key {a b {c} $d \"e\"}\n" +
		"set results {}\n" +
		"foreach z {1 2 4} {\n  vuset vu $z\n  vucreate\n  set jobid [vurun]\n  vudestroy\n" +
		"  puts \"job $jobid: [string map {\\n { }} [jobs $jobid result]]\"\n}\n" +
		""
	if err := os.WriteFile(filepath.Join(dir, "run.tcl"), []byte(run), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err = sledgeProcess(t, "", "cli", "auto", filepath.Join(dir, "run.tcl"))
	if err != nil {
		t.Fatalf("run script: %v\n%s", err, out)
	}
	if n := strings.Count(out, "TEST RESULT : System achieved "); n != 3 {
		t.Errorf("%d TEST RESULT lines, want 3:\n%s", n, out)
	}
	if !regexp.MustCompile(`TEST RESULT : System achieved \d+ NOPM from \d+ ` + product + ` TPM`).MatchString(out) {
		t.Errorf("TEST RESULT line not in HammerDB's shape:\n%s", out)
	}
	if !strings.Contains(out, "accepted but not honoured") {
		t.Errorf("no notice for allwarehouse:\n%s", out)
	}
	// The odd value went through Tcl, JSON and Go and came back intact.
	if !strings.Contains(out, "tpcc."+prefix+`odd_key = a b {c} $d "e" is accepted but not honoured`) {
		t.Errorf("quoting lost:\n%s", out)
	}
	matches := jobLine.FindAllStringSubmatch(out, -1)
	if len(matches) != 3 {
		t.Fatalf("%d job lines, want 3:\n%s", len(matches), out)
	}
	for i, m := range matches {
		var res map[string]any
		if err := json.Unmarshal([]byte(m[2]), &res); err != nil {
			t.Fatalf("jobs %s result: %v in %q", m[1], err, m[2])
		}
		if res["status"] != "completed" || res["vu"] != float64([]int{1, 2, 4}[i]) || res["nopm"].(float64) <= 0 {
			t.Errorf("job %s: status %v vu %v nopm %v", m[1], res["status"], res["vu"], res["nopm"])
		}
	}
	// The same jobs through the repository.
	list := jobsJSON(t)
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
	e2eEnv(t)
	testTclScripts(t, "pg", "pg_", "PostgreSQL", testdb.Postgres(t))
}

func TestTclScriptsMariaDB(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs")
	}
	needTclsh(t)
	e2eEnv(t)
	testTclScripts(t, "maria", "maria_", "MariaDB", testdb.MariaDB(t))
}

func TestTclErrorsAndPrompt(t *testing.T) {
	needTclsh(t)
	e2eEnv(t)
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.tcl")
	if err := os.WriteFile(bad, []byte("dbset db oracle\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := sledgeProcess(t, "", "cli", "auto", bad)
	if err == nil || !strings.Contains(out, "Sledge drives pg, maria and mysql") {
		t.Errorf("unsupported database: %v\n%s", err, out)
	}
	// The interactive prompt: help, a command, plain Tcl.
	out, err = sledgeProcess(t, "help\ndbset db maria\nprint db\nset x [expr {6*7}]\n", "cli")
	if err != nil || !strings.Contains(out, "sledge> ") || !strings.Contains(out, "vurun (returns the job id)") ||
		!strings.Contains(out, "Database set to maria") || !strings.Contains(out, "42") {
		t.Errorf("prompt: %v\n%s", err, out)
	}
	out, err = sledgeProcess(t, "", "cli", "auto", filepath.Join(dir, "missing.tcl"))
	if err == nil || !strings.Contains(out, "missing.tcl") {
		t.Errorf("missing script: %v\n%s", err, out)
	}
}

// testPythonScripts is testTclScripts in Python: `sledge cli py auto`, the
// HammerDB commands as functions, the build and a VU sweep.
func testPythonScripts(t *testing.T, dbset, prefix, product, dbURL string) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 not installed")
	}
	u, err := url.Parse(dbURL)
	if err != nil {
		t.Fatal(err)
	}
	pass, _ := u.User.Password()
	script := `import json
dbset('db', '` + dbset + `')
diset('connection', '` + prefix + `host', '` + u.Hostname() + `')
diset('connection', '` + prefix + `port', ` + u.Port() + `)
diset('tpcc', '` + prefix + `user', '` + u.User.Username() + `')
diset('tpcc', '` + prefix + `pass', ` + strconv.Quote(pass) + `)
diset('tpcc', '` + prefix + `dbase', '` + strings.TrimPrefix(u.Path, "/") + `')
diset('tpcc', '` + prefix + `count_ware', 2)
diset('tpcc', '` + prefix + `num_vu', 2)
diset('tpcc', '` + prefix + `odd_key', 'a b {c} $d "e"')
buildschema()
diset('tpcc', '` + prefix + `driver', 'timed')
diset('tpcc', '` + prefix + `rampup', 0)
diset('tpcc', '` + prefix + `duration', 0.05)
for z in (1, 2):
    vuset('vu', z)
    vucreate()
    jobid = vurun()
    vudestroy()
    res = jobs(jobid, 'result')
    print('job %s: %s' % (jobid, json.dumps({'status': res['status'], 'vu': res['vu'], 'nopm': res['nopm']})))
`
	path := filepath.Join(t.TempDir(), "sweep.py")
	if err := os.WriteFile(path, []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := sledgeProcess(t, "", "cli", "py", "auto", path)
	if err != nil {
		t.Fatalf("python script: %v\n%s", err, out)
	}
	if !strings.Contains(out, "built 2 warehouses") || strings.Count(out, "TEST RESULT : System achieved ") != 2 ||
		!strings.Contains(out, " "+product+" TPM") {
		t.Errorf("python script output:\n%s", out)
	}
	if !strings.Contains(out, "tpcc."+prefix+`odd_key = a b {c} $d "e" is accepted but not honoured`) {
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
	e2eEnv(t)
	testPythonScripts(t, "pg", "pg_", "PostgreSQL", testdb.Postgres(t))
}

func TestPythonScriptsMariaDB(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs")
	}
	e2eEnv(t)
	testPythonScripts(t, "maria", "maria_", "MariaDB", testdb.MariaDB(t))
}

// TestPythonPackageUnitTests runs the package's own pytest suite (a fake
// engine binary and a fake HTTP server).
func TestPythonPackageUnitTests(t *testing.T) {
	if err := exec.Command("python3", "-c", "import pytest").Run(); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("CI is set but python3 with pytest is missing")
		}
		t.Skip("python3 with pytest not installed")
	}
	cmd := exec.Command("python3", "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests")
	cmd.Dir = filepath.Join("..", "..", "python")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("pytest: %v\n%s", err, out)
	}
	t.Logf("%s", strings.TrimSpace(string(out)))
}
