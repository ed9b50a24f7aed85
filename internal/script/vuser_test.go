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
		{"TPROC-H streams", config.Spec{Kind: config.KindRun, Workload: "tproch", VU: 3, Streams: 3}, 4}, // after the power test
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

// The line HammerDB's schema actions print before their virtual users, with
// the numbers the job uses.
func TestHeader(t *testing.T) {
	t.Parallel()
	build := func(wl string, warehouses, workers int, scale float64) config.Spec {
		return config.Spec{Kind: config.KindBuild, Workload: wl, Warehouses: warehouses, Workers: workers, Scale: scale}
	}
	tests := []struct {
		name   string
		prefix string
		spec   config.Spec
		want   string
	}{
		{"one loading VU", "pg_", build("tprocc", 1, 1, 0), "Building 1 Warehouses(s) with 1 Virtual User"},
		{"VUs and a monitor", "maria_", build("tprocc", 4, 2, 0),
			"Building 4 Warehouses with 3 Virtual Users, 2 active + 1 Monitor VU(dict value maria_num_vu is set to 2)"},
		{"no more VUs than warehouses", "pg_", build("tprocc", 2, 4, 0),
			"Building 2 Warehouses with 3 Virtual Users, 2 active + 1 Monitor VU(dict value pg_num_vu is set to 2)"},
		{"TPROC-H", "mysql_", build("tproch", 0, 2, 0.01),
			"Building Scale Factor 0.01 with 3 Virtual Users, 2 active + 1 Monitor VU(dict value mysql_num_tpch_threads is set to 2)"},
		{"check", "pg_", config.Spec{Kind: config.KindCheck, Workload: "tprocc"}, "Checking schema with 1 Virtual User"},
		{"delete", "pg_", config.Spec{Kind: config.KindDrop, Workload: "tproch"}, "Deleting schema with 1 Virtual User"},
		{"run", "pg_", config.Spec{Kind: config.KindRun, Workload: "tprocc", VU: 2}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := (&hammer{prefix: tt.prefix}).header(tt.spec); got != tt.want {
				t.Errorf("header = %q, want %q", got, tt.want)
			}
		})
	}
}

// A TPROC-H run's queries are shown as they end, each stream as its VU:
// query lines as showoutput says, a set's end lines always, when its 22nd
// query ends or, for a set left unfinished, when the run ends.
func TestStreamConsole(t *testing.T) {
	t.Parallel()
	q := func(stream, pos, query int, secs float64, rows int64, errText string) metrics.AnalyticQuery {
		return metrics.AnalyticQuery{Stream: stream, Set: 1, Position: pos, Query: query, Seconds: secs, Rows: rows, Error: errText}
	}
	for _, show := range []bool{true, false} {
		var b strings.Builder
		out := newVuserOutput(&b, 2, show, nil)
		c := newStreamConsole(out)
		run := func(q metrics.AnalyticQuery) {
			c.started(metrics.AnalyticQuery{Stream: q.Stream, Set: q.Set, Position: q.Position, Query: q.Query})
			c.query(q)
		}
		run(q(1, 1, 21, 3, 5, ""))
		for pos := 1; pos <= 21; pos++ {
			run(q(0, pos, pos, 1, 1, ""))
		}
		run(q(0, 22, 22, 4, 0, "")) // no rows: not in the mean
		run(q(1, 2, 3, 0.25, 0, "canceled"))
		c.flush()
		c.flush() // nothing left
		out.finish(metrics.StatusFailed)
		got := b.String()
		ends := []string{
			"Vuser 1:Completed 1 query set(s) in 25 seconds\nVuser 1:Geometric mean of query times returning rows (21) is \"1.00000\"\n",
			"Vuser 2:Completed 1 query set(s) in 3 seconds\nVuser 2:Geometric mean of query times returning rows (1) is \"3.00000\"\nVuser 1:FINISHED FAILED\n",
		}
		for _, e := range ends {
			if strings.Count(got, e) != 1 {
				t.Errorf("show %v: want %q once:\n%s", show, e, got)
			}
		}
		queries := []string{"Vuser 2:Executing Query 21 (1 of 22)\nVuser 2:query 21 completed in 3.0 seconds\nVuser 1:Executing Query 1 (1 of 22)\n",
			"Vuser 1:Executing Query 22 (22 of 22)\nVuser 1:query 22 completed in 4.0 seconds\n" + ends[0],
			"Vuser 2:Executing Query 3 (2 of 22)\nVuser 2:Query Failed : query 3 : canceled\n" + ends[1]}
		for _, l := range queries {
			if strings.Contains(got, l) != show {
				t.Errorf("show %v: %q shown %v:\n%s", show, l, !show, got)
			}
		}
	}
}

// HammerDB's virtual user prints "Executing Query" before the query runs
// and its time when it has ended: while streams run at once, each query's
// first line is on the console before it ends, and the lines of the
// streams interleave as their queries start and end.
func TestStreamConsoleQueryStart(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	c := newStreamConsole(newVuserOutput(&b, 2, true, nil))
	start := func(stream, pos, query int) metrics.AnalyticQuery {
		q := metrics.AnalyticQuery{Stream: stream, Set: 1, Position: pos, Query: query}
		c.started(q)
		return q
	}
	end := func(q metrics.AnalyticQuery, secs float64) {
		q.Seconds, q.Rows = secs, 1
		c.query(q)
	}
	long := start(1, 1, 21)
	if want := "Vuser 1:RUNNING\nVuser 2:RUNNING\nVuser 2:Executing Query 21 (1 of 22)\n"; b.String() != want {
		t.Fatalf("a query started: got\n%s\nwant\n%s", b.String(), want)
	}
	short := start(0, 1, 14)
	end(short, 0.5)
	end(long, 2)
	want := "Vuser 1:RUNNING\nVuser 2:RUNNING\nVuser 2:Executing Query 21 (1 of 22)\nVuser 1:Executing Query 14 (1 of 22)\n" +
		"Vuser 1:query 14 completed in 0.5 seconds\nVuser 2:query 21 completed in 2.0 seconds\n"
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}

// A job's failure is shown as HammerDB shows a virtual user's error, before
// the FINISHED lines; a job that showed nothing shows no virtual users.
func TestVuserFailure(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	out := newVuserOutput(&b, 1, true, nil)
	if out.failure("nothing shown") || b.Len() != 0 {
		t.Errorf("failure before any line: %q", b.String())
	}
	fmt.Fprintln(out, "loading")
	if !out.failure("build: it broke") {
		t.Error("failure after a line: not shown")
	}
	out.finish(metrics.StatusFailed)
	if want := "Vuser 1:RUNNING\nVuser 1:loading\nError in Virtual User 1: build: it broke\nVuser 1:FINISHED FAILED\nALL VIRTUAL USERS COMPLETE\n"; b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}
