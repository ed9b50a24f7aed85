package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/sledge-bench/sledge/internal/db"
	"github.com/sledge-bench/sledge/internal/db/mysql"
	"github.com/sledge-bench/sledge/internal/db/postgres"
	"github.com/sledge-bench/sledge/internal/db/sqlite"
	"github.com/sledge-bench/sledge/internal/jobs"
	"github.com/sledge-bench/sledge/internal/metrics"
	"github.com/sledge-bench/sledge/internal/testdb"
	"github.com/sledge-bench/sledge/internal/testdb/tpcctest"
)

// The job commands as a user (or a script) meets them: the exit status of
// an interrupted job, confirmation of destructive ones, what read-only
// commands leave on disk, the database a build creates, and what the
// drivers say.

// bgSledge is this test binary running as the sledge command in the
// background, its stdout and stderr collected together.
type bgSledge struct {
	cmd   *exec.Cmd
	mu    sync.Mutex
	out   bytes.Buffer
	done  chan struct{}
	err   error     // once done is closed
	ended time.Time // when it ended, once done is closed
}

func (p *bgSledge) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.out.Write(b)
}

func (p *bgSledge) output() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.out.String()
}

// start starts this test binary as the sledge command in the background,
// in e's environment; it is killed when the test ends (or the test binary
// dies) if it has not ended by then.
func (e *testEnv) start(args ...string) *bgSledge {
	t := e.t
	t.Helper()
	p := &bgSledge{done: make(chan struct{})}
	p.cmd = e.command(context.Background(), args...)
	p.cmd.Stdout, p.cmd.Stderr = p, p
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { p.err = p.cmd.Wait(); p.ended = time.Now(); close(p.done) }()
	t.Cleanup(func() {
		select {
		case <-p.done:
		default:
			p.cmd.Process.Kill()
			<-p.done
		}
	})
	return p
}

// waitFor waits until the output matches re (or the test's deadline).
func (p *bgSledge) waitFor(t *testing.T, re string) {
	t.Helper()
	rx := regexp.MustCompile(re)
	deadline := time.After(time.Until(testDeadline(t)))
	for !rx.MatchString(p.output()) {
		select {
		case <-p.done:
			if rx.MatchString(p.output()) {
				return
			}
			t.Fatalf("sledge %s ended (%v) before printing %q:\n%s", strings.Join(p.cmd.Args[1:], " "), p.err, re, p.output())
		case <-deadline:
			t.Fatalf("waited until the test's deadline for %q:\n%s", re, p.output())
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// exitCode waits for the process (until the test's deadline) and returns
// its exit status.
func (p *bgSledge) exitCode(t *testing.T) int {
	t.Helper()
	select {
	case <-p.done:
	case <-time.After(time.Until(testDeadline(t))):
		t.Fatalf("sledge %s still ran at the test's deadline:\n%s", strings.Join(p.cmd.Args[1:], " "), p.output())
	}
	return exitCodeOf(t, p.err)
}

func exitCodeOf(t *testing.T, err error) int {
	t.Helper()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ee):
		return ee.ExitCode()
	}
	t.Fatalf("not an exit status: %v", err)
	return -1
}

// Ctrl-C (SIGINT) during a run, SIGTERM during a build: the job stops
// cleanly, what it measured is printed and stored as interrupted, and the
// process exits with 130 so that a script can tell it from a completed job.
func TestInterruptedJobsExit130(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs")
	}
	t.Parallel()
	e := newEnv(t)
	e.tpcc() // the embedded default, as a first run leaves it

	p := e.start("run", "--vu", "2", "--rampup", "1s", "--duration", "1h", "--interval", "1s")
	p.waitFor(t, `measure +TPM`)
	if err := p.cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	if code := p.exitCode(t); code != exitInterrupted {
		t.Fatalf("interrupted run exited %d, want %d:\n%s", code, exitInterrupted, p.output())
	}
	run := e.latest(jobs.KindRun)
	out := p.output()
	if !strings.Contains(out, "TPROC-C result (job "+jobID(run)+"): interrupted") || !strings.Contains(out, "run job "+jobID(run)+" interrupted") {
		t.Errorf("interrupted run's output:\n%s", out)
	}
	if run["status"] != metrics.StatusInterrupted {
		t.Fatalf("run stored as %v", run["status"])
	}
	var res map[string]any
	if err := json.Unmarshal([]byte(e.ok("jobs", "show", jobID(run), "result", "--format", "json")), &res); err != nil {
		t.Fatal(err)
	}
	if res["status"] != metrics.StatusInterrupted || res["nopm"].(float64) <= 0 {
		t.Errorf("stored result %v", res)
	}

	p = e.start("build", "--db", "sqlite:"+filepath.Join(t.TempDir(), "b.db"), "--warehouses", "4", "--workers", "1")
	p.waitFor(t, `load: .* rows/s`)
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if code := p.exitCode(t); code != exitInterrupted {
		t.Fatalf("build stopped by SIGTERM exited %d, want %d:\n%s", code, exitInterrupted, p.output())
	}
	if b := e.latest(jobs.KindBuild); b["status"] != metrics.StatusInterrupted {
		t.Errorf("build stored as %v:\n%s", b["status"], p.output())
	}
}

// emptySQLite creates an SQLite file with no schema in it.
func emptySQLite(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "c.db")
	c, err := sqlite.Driver{}.Connect(context.Background(), db.Target{Kind: db.SQLite, DSN: path}, db.Options{})
	if err != nil {
		t.Fatal(err)
	}
	c.Close(context.Background())
	return path
}

// Without a terminal nobody can answer: drop and build --force need --yes,
// whatever stdin holds ("echo y | sledge drop" included), and nothing is
// recorded; with --yes they run.
func TestDestructiveJobsNeedYesWithoutTerminal(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	path := emptySQLite(t)
	for _, c := range []struct {
		stdin string
		args  []string
		want  string
	}{
		{"n\n", []string{"drop", "--db", "sqlite:" + path}, "drop asks for confirmation: run it with --yes when there is no terminal"},
		{"y\n", []string{"drop", "--db", "sqlite:" + path}, "drop asks for confirmation: run it with --yes when there is no terminal"},
		{"", []string{"drop", "--db", "sqlite:" + path}, "drop asks for confirmation"}, // stdin /dev/null
		{"y\n", []string{"build", "--force", "--db", "sqlite:" + path}, "build --force asks for confirmation: run it with --yes when there is no terminal"},
	} {
		out, err := e.process(c.stdin, c.args...)
		if code := exitCodeOf(t, err); code == 0 || !strings.Contains(out, c.want) {
			t.Errorf("stdin %q, sledge %s: exit %d, want an error saying %q:\n%s", c.stdin, strings.Join(c.args, " "), code, c.want, out)
		}
	}
	if list := e.jobs(); len(list) != 0 {
		t.Errorf("refused commands recorded %d jobs: %v", len(list), list)
	}
	// In process too (stdin made a pipe, whatever runs the tests).
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	w.WriteString("yes\n")
	w.Close()
	sledgeIn := func(args ...string) (string, error) { // sledge, stdin the pipe
		gs := e.state()
		gs.stdin = r
		return runSledge(context.Background(), gs, args...)
	}
	if _, err := sledgeIn("build", "--force", "--warehouses", "-1"); err == nil || !strings.Contains(err.Error(), "build --force asks for confirmation") {
		t.Errorf("build --force without --yes: %v", err)
	}
	// --yes is the confirmation the spec needs: what fails now is the
	// warehouses, not the confirmation.
	if _, err := sledgeIn("build", "--force", "--yes", "--warehouses", "-1"); err == nil ||
		!strings.Contains(err.Error(), "--warehouses") || strings.Contains(err.Error(), "--yes") || strings.Contains(err.Error(), "confirm") {
		t.Errorf("build --force --yes: %v", err)
	}
	out, err := e.process("n\n", "drop", "--yes", "--db", "sqlite:"+path)
	if err != nil || !strings.Contains(out, "dropped the TPROC-C schema") {
		t.Fatalf("drop --yes: %v\n%s", err, out)
	}
	if d := e.latest(jobs.KindDrop); d["status"] != metrics.StatusCompleted {
		t.Errorf("drop job %v", d)
	}
}

// On a terminal drop and build --force ask, and only "y" or "yes" (any
// case) proceeds; any other answer ends with an error and no job.
func TestDestructiveJobsAskOnTerminal(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	path := emptySQLite(t)
	answer := func(answer string, args ...string) (string, int) {
		t.Helper()
		s := e.startTTY(args...)
		s.waitFor(`\[y/N\] $`, 1)
		if answer == "\x03" {
			s.send(answer)
		} else {
			s.send(answer + "\r")
		}
		err := s.wait()
		return s.output(), exitCodeOf(t, err)
	}
	drop := []string{"drop", "--db", "sqlite:" + path}
	for _, no := range []string{"n", "", "no", "yess", "sure"} {
		out, code := answer(no, drop...)
		if code != 1 || !strings.Contains(out, "Drop all TPROC-C tables in sqlite:"+path+"? [y/N]") || !strings.Contains(out, "drop not confirmed: nothing done") {
			t.Errorf("answer %q: exit %d\n%s", no, code, out)
		}
	}
	out, code := answer("n", "build", "--force", "--db", "sqlite:"+path)
	if code != 1 || !strings.Contains(out, "Drop any TPROC-C schema in sqlite:"+path+" and build it again? [y/N]") ||
		!strings.Contains(out, "build --force not confirmed") {
		t.Errorf("build --force, answer n: exit %d\n%s", code, out)
	}
	// Ctrl-C at the question: nothing done, exit 130.
	out, code = answer("\x03", drop...)
	if code != exitInterrupted || !strings.Contains(out, "drop not confirmed: interrupted") {
		t.Errorf("Ctrl-C at the question: exit %d\n%s", code, out)
	}
	if list := e.jobs(); len(list) != 0 {
		t.Fatalf("refusals recorded %d jobs: %v", len(list), list)
	}
	for i, yes := range []string{"y", "YES", "Yes"} {
		out, code := answer(yes, drop...)
		if code != 0 || !strings.Contains(out, "dropped the TPROC-C schema") {
			t.Errorf("answer %q: exit %d\n%s", yes, code, out)
		}
		if n := len(e.jobs()); n != i+1 {
			t.Errorf("%d jobs after %d confirmed drops", n, i+1)
		}
	}
}

// Check, drop and run on an embedded database that does not exist fail
// saying how to build it, and create no file (nor directory); the default
// embedded database is not created by them either.
func TestJobsOnMissingEmbeddedDatabaseCreateNothing(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	root := t.TempDir()
	path := filepath.Join(root, "sub", "new.db")
	want := "no database at " + path + ": build it first with `sledge build --db sqlite:" + path + "`"
	for _, args := range [][]string{
		{"check", "--db", path},
		{"drop", "--yes", "--db", "sqlite:" + path},
		{"run", "--db", path, "--duration", "1s", "--rampup", "0s"},
	} {
		if _, err := e.run(args...); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("sledge %s: %v, want %q", strings.Join(args, " "), err, want)
		}
	}
	if ents, _ := os.ReadDir(root); len(ents) != 0 {
		t.Errorf("check, drop and run created %v in %s", ents, root)
	}
	home := e.home()
	if _, err := e.run("check"); err == nil || !strings.Contains(err.Error(), "build it first with `sledge build`") {
		t.Errorf("check of the missing default database: %v", err)
	}
	if _, err := e.run("drop", "--yes", "--workload", "tproch"); err == nil ||
		!(strings.Contains(err.Error(), "build it first with `sledge build --workload tproch`") || strings.Contains(err.Error(), "cgo")) {
		t.Errorf("drop of the missing default DuckDB database: %v", err)
	}
	for _, f := range []string{"tprocc.sqlite", "tproch.duckdb"} {
		if _, err := os.Stat(filepath.Join(home, f)); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s was created: %v", f, err)
		}
	}
	for _, j := range e.jobs() {
		if j["status"] != metrics.StatusFailed {
			t.Errorf("job %v", j)
		}
	}
}

// withDatabase is a server URL with another database name.
func withDatabase(t *testing.T, raw, name string) string {
	t.Helper()
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	u.Path = "/" + name
	return u.String()
}

// serverExec runs statements on a server as the URL's login.
func serverExec(t *testing.T, raw string, stmts ...string) {
	t.Helper()
	tg, err := db.ParseTarget(raw)
	if err != nil {
		t.Fatal(err)
	}
	var drv db.Driver = postgres.Driver{}
	if tg.Kind == db.MySQL {
		drv = mysql.Driver{}
	}
	ctx := context.Background()
	c, err := drv.Connect(ctx, tg, db.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	for _, s := range stmts {
		if _, err := c.Exec(ctx, s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
}

// sledge build creates a PostgreSQL database that does not exist yet, as
// the target's own login (here a superuser) through the postgres database;
// a login that may not create databases is told what to run instead. A
// failed connection's error carries no "tls error" from pgx's first
// (TLS) attempt.
func TestBuildCreatesTheDatabasePostgres(t *testing.T) {
	if testing.Short() {
		t.Skip("builds")
	}
	t.Parallel()
	e := newEnv(t)
	admin := testdb.PostgresAdminURL(t)
	name := "created_by_build_" + strconv.Itoa(os.Getpid())
	target := withDatabase(t, admin, name)
	t.Cleanup(func() { serverExec(t, admin, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)") })

	out := e.ok("build", "--db", target, "--warehouses", "1")
	if !strings.Contains(out, "created database "+name+"\n") || !strings.Contains(out, "built 1 warehouse") {
		t.Fatalf("build into a missing database:\n%s", out)
	}
	if o := e.ok("jobs", "show", jobID(e.latest(jobs.KindBuild)), "output"); !strings.Contains(o, "created database "+name) {
		t.Errorf("the job's output lacks the creation:\n%s", o)
	}
	if out := e.ok("check", "--db", target); !strings.Contains(out, "all conditions hold") {
		t.Errorf("check:\n%s", out)
	}
	// It exists now: a second build creates nothing (and is refused for --force).
	out, err := e.run("build", "--db", target)
	if err == nil || strings.Contains(out, "created database") || !strings.Contains(err.Error(), "--force") {
		t.Errorf("second build: %v\n%s", err, out)
	}

	role := "no_createdb_" + strconv.Itoa(os.Getpid())
	serverExec(t, admin, "CREATE ROLE "+role+" LOGIN NOCREATEDB")
	t.Cleanup(func() { serverExec(t, admin, "DROP ROLE IF EXISTS "+role) })
	u, _ := url.Parse(withDatabase(t, admin, "not_creatable"))
	u.User = url.User(role)
	_, err = e.run("build", "--db", u.String())
	want := "database not_creatable does not exist and user " + role + " cannot create it"
	run := "as a superuser, run `CREATE DATABASE not_creatable OWNER " + role + ";`, then run the build again"
	if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), run) {
		t.Errorf("build as a role without CREATEDB: %v", err)
	}
	if b := e.latest(jobs.KindBuild); b["status"] != metrics.StatusFailed {
		t.Errorf("build job %v", b)
	}

	// pgx's default sslmode (prefer) on a server without TLS: the error is
	// the plain attempt's.
	u, _ = url.Parse(withDatabase(t, admin, "no_such_database"))
	u.RawQuery = ""
	_, err = e.run("check", "--db", u.String())
	if err == nil || strings.Contains(err.Error(), "tls error") || !strings.Contains(err.Error(), `database "no_such_database" does not exist`) {
		t.Errorf("check of a missing database: %v", err)
	}
}

// The same on MariaDB, through information_schema as the target's login.
func TestBuildCreatesTheDatabaseMariaDB(t *testing.T) {
	if testing.Short() {
		t.Skip("builds")
	}
	t.Parallel()
	e := newEnv(t)
	own := testdb.MariaDB(t)
	name := "created_by_build_" + strconv.Itoa(os.Getpid())
	target := withDatabase(t, own, name)
	t.Cleanup(func() { serverExec(t, own, "DROP DATABASE IF EXISTS "+name) })
	out := e.ok("build", "--db", target, "--warehouses", "1", "--workers", "1")
	if !strings.Contains(out, "created database "+name+"\n") || !strings.Contains(out, "built 1 warehouse") {
		t.Fatalf("build into a missing database:\n%s", out)
	}
	if out := e.ok("check", "--db", target); !strings.Contains(out, "all conditions hold") {
		t.Errorf("check:\n%s", out)
	}
}

// What go-sql-driver/mysql logs when the server kills a run's connections
// ("[mysql] … packets.go:58 unexpected EOF" on stderr) never reaches the
// output: the run counts it ("driver messages: N (connection closed by the
// server)") and goes on with reconnected sessions.
func TestMariaDBDriverMessagesAreCounted(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs")
	}
	t.Parallel()
	e := newEnv(t)
	target := tpcctest.MariaDB(t, tpcctest.Options{})
	tg, err := db.ParseTarget(target)
	if err != nil {
		t.Fatal(err)
	}
	name, _, _, _ := tg.Login()
	p := e.start("run", "--db", target, "--vu", "3", "--rampup", "0s", "--duration", "10s", "--interval", "1s", "--pacing", "spec", "--pacing-scale", "0.01")
	p.waitFor(t, `measure +TPM`)

	ctx := context.Background()
	killer, err := mysql.Driver{}.Connect(ctx, tg, db.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer killer.Close(ctx)
	killed := 0
	for range 3 {
		rows, err := killer.Query(ctx, "SELECT ID FROM information_schema.PROCESSLIST WHERE DB = $1 AND ID <> CONNECTION_ID() AND COMMAND = 'Sleep'", name)
		if err != nil {
			t.Fatal(err)
		}
		var ids []int64
		for rows.Next() {
			var id int64
			if err := rows.Scan(&id); err != nil {
				t.Fatal(err)
			}
			ids = append(ids, id)
		}
		rows.Close()
		for _, id := range ids {
			if _, err := killer.Exec(ctx, "KILL CONNECTION "+strconv.FormatInt(id, 10)); err == nil {
				killed++
			}
		}
		time.Sleep(1500 * time.Millisecond)
	}
	code := p.exitCode(t)
	out := p.output()
	t.Logf("killed %d sessions; the run's output:\n%s", killed, out)
	if killed == 0 {
		t.Fatal("no session was killed")
	}
	if strings.Contains(out, "[mysql]") || strings.Contains(out, "packets.go") {
		t.Errorf("the driver's log reached the output")
	}
	if !regexp.MustCompile(`driver messages: \d+ \(connection closed by the server`).MatchString(out) {
		t.Errorf("no count of the driver's messages")
	}
	// The run itself goes on through the outages (how it rates them is
	// the engine's business): it is neither failed nor interrupted.
	if code == exitInterrupted {
		t.Errorf("run exited %d", code)
	}
	if r := e.latest(jobs.KindRun); r["status"] == metrics.StatusFailed || r["status"] == metrics.StatusInterrupted {
		t.Errorf("run stored as %v", r["status"])
	}
}

// TestRunPerVUTiming: `sledge run --per-vu-timing` keeps each VU's timing
// with the job (the flag was once bound to `sledge build` instead, where it
// meant nothing, and `sledge run` refused it).
func TestRunPerVUTiming(t *testing.T) {
	if testing.Short() {
		t.Skip("runs")
	}
	t.Parallel()
	e := newEnv(t)
	e.tpcc()
	// An iteration run: every VU does its transactions however busy the
	// machine (a 1 s window under two copies of the suite left VU 2 none).
	e.ok("run", "--vu", "2", "--iterations", "5", "--interval", "1s", "--per-vu-timing")
	run := e.latest(jobs.KindRun)
	if cfg := e.ok("jobs", "show", jobID(run), "config"); !regexp.MustCompile(`per_vu_timing\s+true`).MatchString(cfg) {
		t.Errorf("the run's settings lack per_vu_timing true:\n%s", cfg)
	}
	repo, err := jobs.Open(context.Background(), e.repo())
	if err != nil {
		t.Fatal(err)
	}
	defer repo.Close()
	id, _ := strconv.ParseInt(jobID(run), 10, 64)
	for vu := 1; vu <= 2; vu++ {
		if got, err := repo.VUTiming(context.Background(), id, vu); err != nil || len(got) == 0 {
			t.Errorf("VU %d's timing: %v, %v", vu, got, err)
		}
	}
	if _, err := e.run("build", "--per-vu-timing"); err == nil || !strings.Contains(err.Error(), "unknown flag") {
		t.Errorf("build --per-vu-timing: %v, want an unknown flag", err)
	}
}
