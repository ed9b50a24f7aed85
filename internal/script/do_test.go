package script

import (
	"bytes"
	"context"
	"fmt"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/sledge-bench/sledge/internal/jobs"
	"github.com/sledge-bench/sledge/internal/metrics"
	"github.com/sledge-bench/sledge/internal/testdb"
)

// hammerState is a session on the server of a test database URL, with the
// benchmark's database named dbase (created by buildschema if missing).
func hammerState(t *testing.T, raw, dbset, prefix, dbase string, kv ...string) *State {
	t.Helper()
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	pass, _ := u.User.Password()
	settings := []string{"connection." + prefix + "host", u.Hostname(), "connection." + prefix + "port", u.Port(),
		"tpcc." + prefix + "dbase", dbase}
	if prefix == "pg_" {
		// The cluster's superuser creates the benchmark's owner.
		settings = append(settings, "tpcc.pg_superuser", u.User.Username(), "tpcc.pg_superuserpass", pass,
			"tpcc.pg_defaultdbase", strings.TrimPrefix(u.Path, "/"), "tpcc.pg_user", "bench_owner", "tpcc.pg_pass", "owner's pw")
	} else {
		settings = append(settings, "tpcc."+prefix+"user", u.User.Username(), "tpcc."+prefix+"pass", pass)
	}
	return state(dbset, "TPROC-C", "1", append(settings, kv...)...)
}

var jobLineRE = regexp.MustCompile(`(?m)^SLEDGE-JOB (\d+) (\S+)\n\z`)

// buildschema creates the missing database (through db.Admin) and builds;
// vurun runs, prints HammerDB's TEST RESULT line and records the HammerDB
// settings with the job; each ends with its SLEDGE-JOB line.
func testDoBuildAndRun(t *testing.T, raw, dbset, prefix, product string) {
	svc, repo := newService(t)
	ctx := context.Background()
	dbase := "script_created_" + strings.TrimSuffix(prefix, "_")
	st := hammerState(t, raw, dbset, prefix, dbase, "tpcc."+prefix+"count_ware", "1", "tpcc."+prefix+"num_vu", "1",
		"tpcc."+prefix+"odd_key", `a b {c} $d "e"`)
	var out bytes.Buffer
	if err := Do(ctx, &out, svc, Env{}, "buildschema", st); err != nil {
		t.Fatalf("buildschema: %v\n%s", err, out.String())
	}
	if !strings.Contains(out.String(), "created database "+dbase+"\n") || !strings.Contains(out.String(), "built 1 warehouse") ||
		!strings.Contains(out.String(), "Notice: diset tpcc "+prefix+`odd_key a b {c} $d "e": not a HammerDB key of `+product+": ignored\n") {
		t.Errorf("buildschema output:\n%s", out.String())
	}
	t.Logf("buildschema:\n%s", out.String())
	m := jobLineRE.FindStringSubmatch(out.String())
	if m == nil || m[2] != metrics.StatusCompleted {
		t.Fatalf("buildschema: no SLEDGE-JOB line at the end:\n%s", out.String())
	}

	// The database exists now: a second build is refused by the schema
	// check, not by creating the database again, saying what a script can
	// do about it (never a CLI flag), as HammerDB shows a virtual user's
	// error: before the FINISHED lines, which end the job's lines.
	out.Reset()
	err := Do(ctx, &out, svc, Env{}, "buildschema", st)
	t.Logf("second buildschema:\n%s", out.String())
	refusal := "Error in Virtual User 1: build: database already holds a TPROC-C schema (1 warehouse): " +
		"run deleteschema first to drop it, or diset tpcc " + prefix + "dbase a new or empty database\n"
	if err == nil || strings.Contains(out.String(), "created database") ||
		!regexp.MustCompile(`(?m)^`+regexp.QuoteMeta(refusal+"Vuser 1:FINISHED FAILED\nALL VIRTUAL USERS COMPLETE\n")+`SLEDGE-JOB [1-9]\d* failed\n\z`).MatchString(out.String()) ||
		strings.Contains(out.String(), "--") || strings.Contains(out.String(), "Error: ") {
		t.Errorf("second buildschema: %v\n%s", err, out.String())
	}

	st.VU["vu"] = "2"
	st.ProfileID = 4
	for k, v := range map[string]string{"driver": "timed", "rampup": "0", "duration": "0.05"} {
		st.Dicts["tpcc"][prefix+k] = v
	}
	out.Reset()
	if err := Do(ctx, &out, svc, Env{}, "vurun", st); err != nil {
		t.Fatalf("vurun: %v\n%s", err, out.String())
	}
	t.Logf("vurun:\n%s", out.String())
	m = jobLineRE.FindStringSubmatch(out.String())
	if m == nil || m[2] != metrics.StatusCompleted {
		t.Fatalf("vurun: no SLEDGE-JOB line at the end:\n%s", out.String())
	}
	// HammerDB's shape: the RUNNING lines of the monitor and the two VUs,
	// VU 1's output, its result lines, every VU's end.
	if !regexp.MustCompile(`(?m)^Vuser 1:RUNNING\nVuser 2:RUNNING\nVuser 3:RUNNING\nVuser 1:run job `).MatchString(out.String()) ||
		!regexp.MustCompile(`(?m)^Vuser 1:2 Active Virtual Users configured\nVuser 1:TEST RESULT : System achieved [1-9]\d* NOPM from [1-9]\d* `+product+` TPM\n`+
			`Vuser 1:FINISHED SUCCESS\nVuser 2:FINISHED SUCCESS\nVuser 3:FINISHED SUCCESS\nALL VIRTUAL USERS COMPLETE\n`+m[0]+`\z`).MatchString(out.String()) {
		t.Errorf("vurun: not in HammerDB's shape:\n%s", out.String())
	}
	var id int64
	fmt.Sscan(m[1], &id)
	j, err := repo.Get(ctx, id)
	if err != nil || j.Kind != jobs.KindRun || j.Status != metrics.StatusCompleted {
		t.Errorf("job %d: %+v, %v", id, j, err)
	}
	// The TEST RESULT line's figures are HammerDB's: NOPM from the
	// database's own count of New-Orders, TPM from the server-wide counter
	// (both servers measure them), not the client-counted ones.
	res, err := repo.RunResult(ctx, id)
	if err != nil || res == nil || !res.HasServerTPM || !res.HasDBCheck {
		t.Fatalf("run result: %+v, %v", res, err)
	}
	if want := fmt.Sprintf("Vuser 1:TEST RESULT : System achieved %.0f NOPM from %.0f %s TPM\n", res.NOPMDBCheck, res.ServerTPM, product); !strings.Contains(out.String(), want) {
		t.Errorf("vurun: want %q (client-counted NOPM %.0f, TPM %.0f):\n%s", want, res.NOPM, res.TPM, out.String())
	}
	cfg, err := repo.Config(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if cfg[ConfigPrefix+"tpcc."+prefix+"duration"] != "0.05" || cfg[ConfigProfileID] != "4" || cfg["vu"] != "2" || cfg[ConfigDB] != product {
		t.Errorf("recorded settings: %v", cfg)
	}
	// The stored output ends with the result lines (jobs ID 1), unprefixed.
	stored, err := repo.Output(ctx, id)
	if n := len(stored); err != nil || n < 2 || stored[n-2].Line != "2 Active Virtual Users configured" ||
		!strings.HasPrefix(stored[n-1].Line, "TEST RESULT : System achieved ") || strings.HasPrefix(stored[0].Line, "Vuser") {
		t.Errorf("stored output: %v, %v", stored, err)
	}

	// showoutput 0 hides the job's output, not the result and job lines.
	st.VU["showoutput"] = "0"
	st.VU["vu"] = "1"
	out.Reset()
	if err := Do(ctx, &out, svc, Env{}, "vurun", st); err != nil {
		t.Fatalf("vurun: %v\n%s", err, out.String())
	}
	if strings.Contains(out.String(), "run job") || !strings.Contains(out.String(), "Vuser 1:TEST RESULT") || !jobLineRE.MatchString(out.String()) {
		t.Errorf("vurun with showoutput 0:\n%s", out.String())
	}

	out.Reset()
	if err := Do(ctx, &out, svc, Env{}, "checkschema", st); err != nil || !jobLineRE.MatchString(out.String()) {
		t.Errorf("checkschema: %v\n%s", err, out.String())
	}
	out.Reset()
	if err := Do(ctx, &out, svc, Env{}, "deleteschema", st); err != nil || !strings.Contains(out.String(), "dropped the TPROC-C schema") {
		t.Errorf("deleteschema: %v\n%s", err, out.String())
	}

	// librarycheck reaches the server and names the driver.
	out.Reset()
	if err := Do(ctx, &out, svc, Env{}, "librarycheck", st); err != nil ||
		!strings.Contains(out.String(), "Success ... connected to "+product) {
		t.Errorf("librarycheck: %v\n%s", err, out.String())
	}
}

func TestDoPostgres(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs")
	}
	t.Parallel()
	testDoBuildAndRun(t, testdb.Postgres(t), "pg", "pg_", "PostgreSQL")
}

func TestDoMariaDB(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs")
	}
	t.Parallel()
	testDoBuildAndRun(t, testdb.MariaDB(t), "maria", "maria_", "MariaDB")
}

// librarycheck before the benchmark's database exists reaches the server
// through the default database, and says so; an unreachable server fails it.
func TestLibrarycheckFallback(t *testing.T) {
	t.Parallel()
	raw := testdb.Postgres(t)
	svc, _ := newService(t)
	st := hammerState(t, raw, "pg", "pg_", "not_built_yet")
	var out bytes.Buffer
	if err := Do(context.Background(), &out, svc, Env{}, "librarycheck", st); err != nil {
		t.Fatalf("librarycheck: %v\n%s", err, out.String())
	}
	if !regexp.MustCompile(`Success \.\.\. connected to PostgreSQL \S+[^\n]* at postgres://.*not_built_yet.* \(through database \S+ as \S+; the benchmark's database is not reachable yet`).MatchString(out.String()) {
		t.Errorf("librarycheck:\n%s", out.String())
	}
	st.Dicts["connection"]["mysql_host"], st.Dicts["connection"]["mysql_port"] = "127.0.0.1", "1"
	out.Reset()
	err := Do(context.Background(), &out, svc, Env{}, "librarycheck", st)
	if ee, ok := err.(ExitError); !ok || ee.Code != 1 || !strings.Contains(out.String(), "Error: cannot reach the MySQL server") {
		t.Errorf("unreachable MySQL: %v\n%s", err, out.String())
	}
}

// hammerLineRE matches the lines HammerDB's TPROC-H virtual user prints for
// its stream, which log parsers grep for.
var hammerLineRE = regexp.MustCompile(`^(Executing Query \d+ \(\d+ of 22\)|query \d+ completed in [0-9.]+ seconds|Query Failed : .*|` +
	`Completed \d+ query set\(s\) in \d+ seconds|Geometric mean of query times returning rows \(\d+\) is "[0-9.]+")$`)

// A TPROC-H run through the HammerDB layer prints, on the console and as
// the run goes, the lines HammerDB's virtual user prints for its stream:
// every query's, then the query set's time and geometric mean, with
// Sledge's measured values (the ones jobs ID 1 shows afterwards, written
// from the stored result), before the virtual users finish; they are not
// stored a second time with the job's output.
func TestDoTPROCHConsole(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs")
	}
	t.Parallel()
	u, err := url.Parse(testdb.Postgres(t))
	if err != nil {
		t.Fatal(err)
	}
	pass, _ := u.User.Password()
	svc, repo := newService(t)
	ctx := context.Background()
	st := state("pg", "TPROC-H", "1", "connection.pg_host", u.Hostname(), "connection.pg_port", u.Port(),
		"tpch.pg_tpch_superuser", u.User.Username(), "tpch.pg_tpch_superuserpass", pass,
		"tpch.pg_tpch_defaultdbase", strings.TrimPrefix(u.Path, "/"), "tpch.pg_tpch_user", "h_owner", "tpch.pg_tpch_pass", "h pw",
		"tpch.pg_tpch_dbase", "script_tproch", "tpch.pg_scale_fact", "0.01", "tpch.pg_total_querysets", "1")
	var out bytes.Buffer
	if err := Do(ctx, &out, svc, Env{}, "buildschema", st); err != nil {
		t.Fatalf("buildschema: %v\n%s", err, out.String())
	}
	out.Reset()
	if err := Do(ctx, &out, svc, Env{}, "vurun", st); err != nil {
		t.Fatalf("vurun: %v\n%s", err, out.String())
	}
	t.Logf("vurun:\n%s", out.String())
	m := jobLineRE.FindStringSubmatch(out.String())
	if m == nil || m[2] != metrics.StatusCompleted {
		t.Fatalf("vurun: no SLEDGE-JOB line at the end:\n%s", out.String())
	}
	var id int64
	fmt.Sscan(m[1], &id)
	res, err := repo.AnalyticResult(ctx, id)
	if err != nil || res == nil {
		t.Fatalf("result: %v, %v", res, err)
	}
	streams := analyticStreams(res)
	if len(streams) != 1 || len(streams[0].sets) != 1 || len(streams[0].sets[0].queries) != 22 {
		t.Fatalf("want one stream of one query set of 22 queries: %+v", streams)
	}
	want := streams[0].lines()
	var got []string
	finished := false
	for _, l := range strings.Split(out.String(), "\n") {
		if l == "Vuser 1:FINISHED SUCCESS" {
			finished = true
		}
		text, ok := strings.CutPrefix(l, "Vuser 1:")
		if ok && hammerLineRE.MatchString(text) {
			if finished {
				t.Errorf("after the FINISHED line: %q", l)
			}
			got = append(got, text)
		}
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("console's stream lines:\n%s\nwant (jobs ID 1's):\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if n := len(want); n < 2 || !strings.HasPrefix(want[n-2], "Completed 1 query set(s) in ") || !strings.HasPrefix(want[n-1], "Geometric mean of query times returning rows (") {
		t.Errorf("want the set's time, then its geometric mean, last: %q", want)
	}
	stored, err := repo.Output(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range stored {
		if hammerLineRE.MatchString(l.Line) {
			t.Errorf("stored with the job's output (jobs ID 1 writes it from the result): %q", l.Line)
		}
	}
}
