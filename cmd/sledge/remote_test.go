package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/sledge-bench/sledge/internal/jobs"
)

// TestRemoteSameOutput runs each command that reads jobs both ways, on the
// repository here and with --server on a server over the same repository,
// and wants the same stdout byte for byte and the same error: the remote
// commands never read a local repository (theirs does not exist).
func TestRemoteSameOutput(t *testing.T) {
	if testing.Short() {
		t.Skip("runs on SQLite")
	}
	t.Parallel()
	e := newEnv(t)
	e.tpcc()
	// 1 s windows: the jobs are what the commands read, and any will do
	// (the five are unpaced: they take all the CPU they get).
	short := []string{"--rampup", "0s", "--duration", "1s", "--interval", "1s"}
	e.ok(append([]string{"run", "--vu", "2"}, short...)...)                        // job 1
	e.ok(append([]string{"profile", "--vu", "1,2"}, short...)...)                  // jobs 2, 3
	e.ok(append([]string{"profile", "--vu", "1,2", "--mode", "sql"}, short...)...) // jobs 4, 5
	e.ok("check")                                                                  // job 6
	ts := testServer(e, "")
	// The remote side's own repository does not exist: whatever it reads
	// comes from the server.
	remote := func(args ...string) (string, error) {
		gs := e.state()
		gs.env["SLEDGE_REPO"] = filepath.Join(t.TempDir(), "none.db")
		return runSledge(context.Background(), gs, append([]string{"--server", ts.URL}, args...)...)
	}
	cases := [][]string{
		{"jobs", "show", "1"},
		{"jobs", "show", "1", "--format", "json"},
		{"jobs", "show", "6"},
		{"jobs", "show", "1", "build"}, // no such section
		{"jobs", "show", "99"},         // no such job
		{"jobs", "diff", "1", "2"},
		{"jobs", "diff", "1", "2", "--format", "json"},
		{"jobs", "hlog", "1"},
		{"jobs", "hlog", "1", "--tx", "nonesuch"},
		{"compare", "2", "4"},
		{"compare", "2", "4", "--format", "json"},
		{"compare", "1", "3"},
		{"profile", "show", "3"},
		{"profile", "show", "2", "--format", "json"},
		{"profile", "show", "1"}, // not a profile
		{"profile", "list"},
		{"profile", "list", "--format", "json"},
		{"jobs"},
		{"jobs", "list", "--kind", "run", "-n", "2", "--format", "json"},
		{"jobs", "--status", "nonsense"}, // the filter's error, worded as the flag
		{"jobs", "delete", "99"},
	}
	for _, s := range []string{"result", "timing", "tcount", "config", "status", "output", "system", "metrics", "settings", "agents"} {
		cases = append(cases, []string{"jobs", "show", "1", s}, []string{"jobs", "show", "1", s, "--format", "json"})
	}
	for _, args := range cases {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			t.Parallel()
			local, lerr := e.run(args...)
			got, rerr := remote(args...)
			if got != local {
				t.Errorf("remote stdout differs from the local one:\n--- local\n%s--- remote\n%s", local, got)
			}
			if errText(lerr) != errText(rerr) {
				t.Errorf("remote error %q, local %q", errText(rerr), errText(lerr))
			}
			if local == "" && lerr == nil {
				t.Errorf("prints nothing")
			}
		})
	}

	// --html writes the same page both ways.
	for _, args := range [][]string{{"profile", "show", "2"}, {"compare", "2", "4"}} {
		var pages [2]string
		for i, run := range []func(...string) (string, error){e.run, remote} {
			path := filepath.Join(t.TempDir(), "p.html")
			if _, err := run(append(args, "--html", path)...); err != nil {
				t.Fatal(err)
			}
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			pages[i] = string(b)
		}
		if pages[0] != pages[1] || !strings.Contains(pages[0], "<svg") {
			t.Errorf("%v --html: the remote page differs from the local one", args)
		}
	}
	_, lerr := e.run("compare", "1", "2", "--html", filepath.Join(t.TempDir(), "x.html"))
	_, rerr := remote("compare", "1", "2", "--html", filepath.Join(t.TempDir(), "x.html"))
	if errText(lerr) != errText(rerr) || !strings.HasPrefix(errText(lerr), "--html: only for two profiles") {
		t.Errorf("compare --html of jobs: local %q, remote %q", errText(lerr), errText(rerr))
	}

	// A job run both ways prints the same: a check of the same database to
	// the byte, a run the same lines but for its numbers.
	if local, got := e.ok("check"), remoteOK(t, remote, "check"); got != local || !strings.Contains(local, "C1 ") {
		t.Errorf("remote check differs:\n--- local\n%s--- remote\n%s", local, got)
	}
	// A check that finds a condition violated: the same report, and exit
	// status 1 both ways.
	db, err := sql.Open("sqlite", "file:"+filepath.Join(e.home(), "tprocc.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec("UPDATE warehouse SET w_ytd = w_ytd + 1"); err != nil {
		t.Fatal(err)
	}
	db.Close()
	local, lerr := e.run("check")
	got, rerr := remote("check")
	if code, _ := ownExitCode(lerr); got != local || code != 1 || errText(rerr) != errText(lerr) || !strings.Contains(local, "FAIL") {
		t.Errorf("failing check: local %v, remote %v:\n--- local\n%s--- remote\n%s", lerr, rerr, local, got)
	}
	// Deleting: the same words.
	list := e.jobs()
	last := int(list[0]["id"].(float64))
	local = e.ok("jobs", "delete", strconv.Itoa(last))
	if got := remoteOK(t, remote, "jobs", "delete", strconv.Itoa(last-1)); strings.ReplaceAll(local, strconv.Itoa(last), strconv.Itoa(last-1)) != got {
		t.Errorf("delete: local %q, remote %q", local, got)
	}
	// What works on this machine only refuses a server, never reading the
	// local repository instead.
	for _, args := range [][]string{{"cli", "auto", "x.tcl"}, {"jobs", "recover"}, {"profile", "--vu", "1,2"}, {"run", "--repeat", "2"}} {
		if _, err := remote(args...); err == nil || !strings.Contains(err.Error(), "not through --server") {
			t.Errorf("sledge --server %s: %v", strings.Join(args, " "), err)
		}
	}
	// A run's numbers differ from run to run: each side prints exactly the
	// console its job recorded (jobs show ID output), the header, the
	// intervals and the result table.
	run := append([]string{"run", "--vu", "1"}, short...)
	jobID := regexp.MustCompile(`^run job (\d+): `)
	for side, out := range []string{e.ok(run...), remoteOK(t, remote, run...)} {
		m := jobID.FindStringSubmatch(out)
		if m == nil || !strings.Contains(out, "TPROC-C result (job "+m[1]+"): completed") {
			t.Errorf("side %d: run prints no result table:\n%s", side, out)
			continue
		}
		if stored := e.ok("jobs", "show", m[1], "output"); out != stored {
			t.Errorf("side %d: run prints other lines than its job recorded:\n--- printed\n%s--- recorded\n%s", side, out, stored)
		}
	}
	// --format json: the job's summary on stdout, as jobs show ID --format json.
	for _, out := range []string{e.ok(append(run, "--format", "json")...), remoteOK(t, remote, append(run, "--format", "json")...)} {
		var sum map[string]any
		if err := json.Unmarshal([]byte(out), &sum); err != nil || sum["job"] == nil || sum["result"] == nil {
			t.Errorf("run --format json: %v\n%s", err, out)
		}
	}

	// A job that fails on its workload's schema says what to do about it
	// alike both ways: the server's job record keeps the error's kind.
	empty := filepath.Join(e.home(), "empty.sqlite")
	db, err = sql.Open("sqlite", "file:"+empty)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec("CREATE TABLE other (a integer)"); err != nil {
		t.Fatal(err)
	}
	db.Close()
	jobN := regexp.MustCompile(`job \d+`)
	for _, c := range []struct {
		args   []string
		advice string
	}{
		{append([]string{"run", "--db", "sqlite:" + empty}, short...), ": run `sledge build` first"},
		{[]string{"check", "--db", "sqlite:" + empty}, ": run `sledge build` first"},
		{[]string{"build", "--warehouses", "1"}, ": use --force to drop it and build again"},
	} {
		local, lerr := e.run(c.args...)
		got, rerr := remote(c.args...)
		if lerr == nil || errText(rerr) != errText(lerr) || !strings.Contains(errText(lerr), c.advice) {
			t.Errorf("%v: remote error %q, local %q; want both with %q", c.args, errText(rerr), errText(lerr), c.advice)
		}
		if jobN.ReplaceAllString(got, "job N") != jobN.ReplaceAllString(local, "job N") {
			t.Errorf("%v: remote stdout differs from the local one:\n--- local\n%s--- remote\n%s", c.args, local, got)
		}
	}
}

func remoteOK(t *testing.T, remote func(...string) (string, error), args ...string) string {
	t.Helper()
	out, err := remote(args...)
	if err != nil {
		t.Fatalf("sledge --server %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return out
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// TestRemoteDeleteRunning: `jobs delete` of a running job is refused alike
// both ways, and --force deletes it both ways (the server passes it on).
func TestRemoteDeleteRunning(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ts := testServer(e, "")
	// Running jobs of a process that is alive (this one), as a run of
	// another process on the server's repository is.
	r, err := jobs.Open(context.Background(), e.repo())
	if err != nil {
		t.Fatal(err)
	}
	var ids [2]string
	for i := range ids {
		id, err := r.Create(context.Background(), jobs.Job{Kind: jobs.KindRun, Workload: "tprocc"}, nil)
		if err != nil {
			t.Fatal(err)
		}
		ids[i] = strconv.FormatInt(id, 10)
	}
	r.Close()
	remote := func(args ...string) (string, error) {
		gs := e.state()
		gs.env["SLEDGE_REPO"] = filepath.Join(t.TempDir(), "none.db")
		return runSledge(context.Background(), gs, append([]string{"--server", ts.URL}, args...)...)
	}
	for i, run := range []func(...string) (string, error){e.run, remote} {
		side := []string{"local", "remote"}[i]
		_, err := run("jobs", "delete", ids[0])
		if want := "job " + ids[0] + " is still running (pid "; err == nil || !strings.HasPrefix(err.Error(), want) || !strings.HasSuffix(err.Error(), "; use --force to delete it anyway") {
			t.Errorf("%s delete of a running job: %v", side, err)
		}
	}
	_, lerr := e.run("jobs", "delete", ids[0])
	_, rerr := remote("jobs", "delete", ids[0])
	if errText(lerr) != errText(rerr) {
		t.Errorf("refusals differ: local %q, remote %q", errText(lerr), errText(rerr))
	}
	for i, run := range []func(...string) (string, error){e.run, remote} {
		out, err := run("jobs", "delete", "--force", ids[i])
		if err != nil || out != "deleted job "+ids[i]+"\n" {
			t.Errorf("delete --force %s: %q, %v", ids[i], out, err)
		}
		if _, err := e.run("jobs", "show", ids[i]); !errors.Is(err, jobs.ErrNotFound) {
			t.Errorf("job %s after delete --force: %v", ids[i], err)
		}
	}
}
