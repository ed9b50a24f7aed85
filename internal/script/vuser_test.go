package script

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/sledge-bench/sledge/internal/app"
	"github.com/sledge-bench/sledge/internal/config"
	"github.com/sledge-bench/sledge/internal/metrics"
	"github.com/sledge-bench/sledge/internal/workload"
)

// HammerDB's virtual users for each kind of job: a timed TPROC-C run has a
// monitor besides its VUs, a test-driver run does not, TPROC-H runs one VU
// per stream, a build a monitor only when several VUs load.
func TestVusers(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		s    config.Spec
		want int
	}{
		{"timed run", config.Spec{Kind: config.KindRun, Workload: "tprocc", VU: 4}, 5},
		{"test driver", config.Spec{Kind: config.KindRun, Workload: "tprocc", VU: 4, Iterations: 100}, 4},
		{"TPROC-H, one stream", config.Spec{Kind: config.KindRun, Workload: "tproch", VU: 1}, 1},
		{"TPROC-H streams", config.Spec{Kind: config.KindRun, Workload: "tproch", VU: 3, Streams: 3}, 3},
		{"build, one VU", config.Spec{Kind: config.KindBuild, Workload: "tprocc", Warehouses: 10, Workers: 1}, 1},
		{"build, four VUs", config.Spec{Kind: config.KindBuild, Workload: "tprocc", Warehouses: 10, Workers: 4}, 5},
		{"build, more VUs than warehouses", config.Spec{Kind: config.KindBuild, Workload: "tprocc", Warehouses: 2, Workers: 8}, 3},
		{"TPROC-H build", config.Spec{Kind: config.KindBuild, Workload: "tproch", Workers: 4}, 5},
		{"check", config.Spec{Kind: config.KindCheck, Workload: "tprocc", VU: 8}, 1},
	} {
		if got := vusers(tc.s); got != tc.want {
			t.Errorf("%s: %d virtual users, want %d", tc.name, got, tc.want)
		}
	}
}

// The job's lines are VU 1's, between every VU's RUNNING and FINISHED
// lines; lines may arrive in pieces; showoutput 0 hides the job's own lines
// but not the result lines; the log gets VU 1's lines whatever is shown.
func TestVuserOutput(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		show   bool
		status string
		want   string
	}{
		{"shown", true, metrics.StatusCompleted, "Vuser 1:RUNNING\nVuser 2:RUNNING\nVuser 1:run job 7\nVuser 1:\nVuser 1:measuring\n" +
			"Vuser 1:TEST RESULT : x\nVuser 1:tail\nVuser 1:FINISHED SUCCESS\nVuser 2:FINISHED SUCCESS\nALL VIRTUAL USERS COMPLETE\n"},
		{"hidden", false, metrics.StatusFailed, "Vuser 1:RUNNING\nVuser 2:RUNNING\nVuser 1:TEST RESULT : x\n" +
			"Vuser 1:FINISHED FAILED\nVuser 2:FINISHED FAILED\nALL VIRTUAL USERS COMPLETE\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var console bytes.Buffer
			log, path := testLog(t, false)
			v := newVuserOutput(&console, 2, tc.show, log)
			for _, p := range []string{"run job 7\n", "\nmeas", "uring\r\n"} {
				if n, err := v.Write([]byte(p)); n != len(p) || err != nil {
					t.Fatalf("Write(%q) = %d, %v", p, n, err)
				}
			}
			v.line("TEST RESULT : x")
			fmt.Fprint(v, "tail") // no newline: shown at the end
			v.finish(tc.status)
			if console.String() != tc.want {
				t.Errorf("console:\n%s\nwant:\n%s", console.String(), tc.want)
			}
			if err := log.Close(); err != nil {
				t.Fatal(err)
			}
			b, _ := os.ReadFile(path)
			if _, body, _ := strings.Cut(string(b), logSeparator+"\n"); body != "Vuser 1:run job 7\nVuser 1:\nVuser 1:measuring\nVuser 1:TEST RESULT : x\nVuser 1:tail\n" {
				t.Errorf("log:\n%s", b)
			}
		})
	}
	// A job that said nothing (it was never created) shows no VU lines.
	var console bytes.Buffer
	v := newVuserOutput(&console, 3, true, nil)
	v.finish(metrics.StatusFailed)
	if console.Len() != 0 {
		t.Errorf("silent job:\n%s", console.String())
	}
}

var logClock = time.Date(2026, 4, 5, 9, 7, 3, 0, time.UTC)

// testLog opens a log in a new directory at a fixed time.
func testLog(t *testing.T, timestamps bool) (*hammerLog, string) {
	t.Helper()
	dir := t.TempDir()
	l, err := openHammerLog(dir, false, timestamps, func() time.Time { return logClock })
	if err != nil {
		t.Fatal(err)
	}
	return l, filepath.Join(dir, "hammerdb.log")
}

// HammerDB's log: hammerdb.log, appended to; hammerdb_GUID.log with vuset
// unique 1; a header with Tcl's date; "Vuser N:" lines, each after a
// "Timestamp N @ DATE" line with vuset timestamps 1.
func TestHammerLog(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	now := func() time.Time { return logClock }
	for i, timestamps := range []bool{false, true} {
		l, err := openHammerLog(dir, false, timestamps, now)
		if err != nil {
			t.Fatal(err)
		}
		if l.path != filepath.Join(dir, "hammerdb.log") {
			t.Errorf("path %s", l.path)
		}
		l.line(1, fmt.Sprintf("line %d", i))
		if err := l.Close(); err != nil {
			t.Fatal(err)
		}
	}
	b, err := os.ReadFile(filepath.Join(dir, "hammerdb.log"))
	if err != nil {
		t.Fatal(err)
	}
	header := "Hammerdb Log @ Sun Apr 05 09:07:03 UTC 2026\n+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-\n"
	want := header + "Vuser 1:line 0\n" + header + "Timestamp 1 @ Sun Apr 05 09:07:03 UTC 2026\nVuser 1:line 1\n"
	if string(b) != want {
		t.Errorf("log:\n%s\nwant:\n%s", b, want)
	}

	l, err := openHammerLog(dir, true, false, now)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	m := regexp.MustCompile(`^hammerdb_([0-9A-F]{24})\.log$`).FindStringSubmatch(filepath.Base(l.path))
	if m == nil || filepath.Dir(l.path) != dir || !strings.HasPrefix(m[1], fmt.Sprintf("%08X", logClock.Unix())) {
		t.Errorf("unique log %s", l.path)
	}
	if other := logGUID(logClock); other == m[1] {
		t.Errorf("two unique names alike: %s", other)
	}
	var nilLog *hammerLog
	nilLog.line(1, "nothing")
	if err := nilLog.Close(); err != nil {
		t.Error(err)
	}
}

// The log goes where HammerDB's goes: the first writable directory of
// $TMP, $TMPDIR, $TEMP, /tmp (Windows: $TEMP, $TMP, $TMPDIR, C:/TEMP, C:/).
func TestTempDir(t *testing.T) {
	t.Parallel()
	a, b := t.TempDir(), t.TempDir()
	missing := filepath.Join(a, "missing")
	file := filepath.Join(a, "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	env := func(kv map[string]string) func(string) string { return func(k string) string { return kv[k] } }
	for _, tc := range []struct {
		goos string
		env  map[string]string
		want string
	}{
		{"linux", map[string]string{"TMP": a, "TMPDIR": b}, a},
		{"linux", map[string]string{"TMP": missing, "TMPDIR": file, "TEMP": b}, b},
		{"linux", map[string]string{"TEMP": b, "TMPDIR": a}, a},
		{"windows", map[string]string{"TMP": a, "TEMP": b}, b},
		{"windows", map[string]string{"TMPDIR": a}, a},
	} {
		if got := tempDir(tc.goos, env(tc.env)); got != tc.want {
			t.Errorf("%s %v: %s, want %s", tc.goos, tc.env, got, tc.want)
		}
	}
	if fi, err := os.Stat("/tmp"); err == nil && fi.IsDir() {
		if got := tempDir("linux", env(nil)); got != "/tmp" {
			t.Errorf("no variables: %s, want /tmp", got)
		}
	}
}

// vuset logtotemp 1 opens the log in $TMP and says so as HammerDB does;
// without it there is no log.
func TestOpenLog(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	st := state("pg", "TPROC-C", "1")
	var out bytes.Buffer
	h, _ := newHammer(st, Env{TMP: dir})
	if l := h.openLog(&out); l != nil || out.Len() != 0 {
		t.Errorf("logtotemp 0: %v, %q", l, out.String())
	}
	st.VU["logtotemp"], st.VU["unique"] = "1", "1"
	l := h.openLog(&out)
	if l == nil {
		t.Fatalf("no log: %s", out.String())
	}
	defer l.Close()
	if !regexp.MustCompile(`^Logging activated to ` + regexp.QuoteMeta(dir+string(filepath.Separator)) + `hammerdb_[0-9A-F]{24}\.log\n$`).MatchString(out.String()) {
		t.Errorf("said %q", out.String())
	}
}

// What a job finds about its schema is worded for the script (HammerDB's
// commands and settings) and for the Python API (its keywords), never as
// CLI flags; field errors name the HammerDB setting.
func TestJobErrorWording(t *testing.T) {
	t.Parallel()
	exists := fmt.Errorf("build: %w", &workload.SchemaError{Err: workload.ErrSchemaExists, Workload: "tprocc",
		Msg: "database already holds a TPROC-C schema (2 warehouses)"})
	none := &workload.SchemaError{Err: workload.ErrNoSchema, Workload: "tprocc", Msg: "no TPROC-C schema found in tpcc"}
	holdsH := fmt.Errorf("check: %w", &workload.SchemaError{Err: workload.ErrNoSchema, Workload: "tprocc", Msg: "no TPROC-C schema found in tpcc", Holds: "tproch"})
	unusable := &workload.SchemaError{Err: workload.ErrSchemaUnusable, Workload: "tproch", Msg: "the TPROC-H build did not finish"}
	mode := fmt.Errorf("run: %w", config.FieldError{Field: "mode", Msg: "mode procs: sqlite has no server-side routines in Sledge; run in sql mode"})
	maria, _ := newHammer(state("maria", "TPROC-C", "1", "tpcc.maria_dbase", "bench"), Env{})
	tpch, _ := newHammer(state("pg", "TPROC-H", "1"), Env{})
	script := func(h *hammer) wording { return wording{name: h.setting, advice: h.schemaAdvice} }
	for _, tc := range []struct {
		name  string
		err   error
		words wording
		want  string
	}{
		{"script, schema exists", exists, script(maria), "Error: build: database already holds a TPROC-C schema (2 warehouses): " +
			"run deleteschema first to drop it, or diset tpcc maria_dbase a new or empty database\n"},
		{"script, TPROC-H", exists, script(tpch), "Error: build: database already holds a TPROC-C schema (2 warehouses): " +
			"run deleteschema first to drop it, or diset tpch pg_tpch_dbase a new or empty database\n"},
		{"script, no schema", none, script(maria), "Error: no TPROC-C schema found in tpcc: run buildschema first\n"},
		{"script, another workload's schema", holdsH, script(maria), "Error: check: no TPROC-C schema found in tpcc: the database holds a TPROC-H schema: dbset bm TPROC-H\n"},
		{"python, another workload's schema", holdsH, wording{advice: pythonAdvice}, "Error: check: no TPROC-C schema found in tpcc: the database holds a TPROC-H schema: name it with workload=\"tproch\"\n"},
		{"script, unfinished", unusable, script(maria), "Error: the TPROC-H build did not finish: run deleteschema, then buildschema\n"},
		{"script, field", mode, script(maria), "Error: diset tpcc maria_no_stored_procs: mode procs: sqlite has no server-side routines in Sledge; run in sql mode\n"},
		{"python", exists, wording{advice: pythonAdvice}, "Error: build: database already holds a TPROC-C schema (2 warehouses): " +
			"build(force=True) drops it and builds again\n"},
		{"python, field", mode, wording{advice: pythonAdvice}, "Error: mode: mode procs: sqlite has no server-side routines in Sledge; run in sql mode\n"},
		{"plain", errors.New("connection refused"), script(maria), "Error: connection refused\n"},
	} {
		var out bytes.Buffer
		err := finish(&out, app.Outcome{ID: 9, Status: metrics.StatusFailed}, tc.err, tc.words)
		want := tc.want + "SLEDGE-JOB 9 failed\n"
		if out.String() != want || err == nil {
			t.Errorf("%s: %v\n got %q\nwant %q", tc.name, err, out.String(), want)
		}
		if strings.Contains(out.String(), "--") {
			t.Errorf("%s: a CLI flag in a script's error: %s", tc.name, out.String())
		}
	}
}

// The TEST RESULT line names the database as the script chose it.
func TestTestResultNamesChosenDatabase(t *testing.T) {
	t.Parallel()
	res := &metrics.RunResult{NOPM: 1234.4, TPM: 2900.6}
	if got, want := TestResult("MySQL", res), "TEST RESULT : System achieved 1234 NOPM from 2901 MySQL TPM"; got != want {
		t.Errorf("%q, want %q", got, want)
	}
	for _, db := range []struct{ dbset, product string }{{"pg", "PostgreSQL"}, {"maria", "MariaDB"}, {"mysql", "MySQL"}} {
		h, err := newHammer(state(db.dbset, "TPROC-C", "1"), Env{})
		if err != nil || h.product != db.product {
			t.Errorf("dbset db %s: %v, %q, want %q", db.dbset, err, h.product, db.product)
		}
	}
}
