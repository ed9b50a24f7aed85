package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/sledge-bench/sledge/internal/jobs"
	"github.com/sledge-bench/sledge/internal/metrics"
	"github.com/sledge-bench/sledge/internal/sandbox"
	"github.com/sledge-bench/sledge/internal/testdb"
	"github.com/sledge-bench/sledge/internal/testdb/tpcctest"
)

// privateRepoServer starts a PostgreSQL server of the test's own for a
// jobs repository, so that the test can stop and start it; it is stopped
// and removed when the test ends (or the test binary dies).
func privateRepoServer(t *testing.T) *sandbox.Postgres {
	t.Helper()
	if _, err := sandbox.FindBinaries(testdb.PGBin()); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("$CI is set, so PostgreSQL tests must run, but: %v", err)
		}
		t.Skip(err)
	}
	// t.TempDir is mode 0700, closed to the server's user when tests run
	// as root.
	dir, err := os.MkdirTemp("", "sledge-repo-server-")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	p := startRepoServer(t, dir)
	stopNow, err := p.StopOnExit(false)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := stopNow(); err != nil {
			t.Errorf("stop the repository's server: %v", err)
		}
		os.RemoveAll(dir)
	})
	return p
}

func startRepoServer(t *testing.T, dir string) *sandbox.Postgres {
	t.Helper()
	ctx, cancel := testContext(t)
	defer cancel()
	p, err := sandbox.StartPostgres(ctx, dir, sandbox.Options{BinDir: testdb.PGBin(),
		Settings: map[string]string{"shared_buffers": "16MB"}})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// waitAll waits until every agent's output matches re.
func waitAll(t *testing.T, ps []*bgSledge, re string) {
	t.Helper()
	for _, p := range ps {
		p.waitFor(t, re)
	}
}

// TestGroupRunRepositoryStops: three agents with a PostgreSQL repository of
// their own, which stops mid-window and again across the window's end. The
// agents keep what they cannot store in spool files, hand it in when the
// repository is back, wait for it at their end rather than exit 1, and
// merge: the job is completed with every interval of every agent and a
// result that is the sum of the agents' parts.
func TestGroupRunRepositoryStops(t *testing.T) {
	if testing.Short() {
		t.Skip("runs three agents against PostgreSQL and stops their repository's server")
	}
	t.Parallel()
	srv := privateRepoServer(t)
	g := groupEnv{testEnv: newEnv(t), db: tpccPostgres(t), repo: srv.URL(sandbox.Database)}
	r, err := jobs.Open(context.Background(), g.repo)
	if err != nil {
		t.Fatal(err)
	}
	r.Close()
	ps := g.agents(3, "outage", "--vu", "6", "--rampup", "1s", "--duration", "14s", "--interval", "1s")
	ctx := context.Background()

	// Mid-window: stop it until every agent has kept something in its spool.
	waitAll(t, ps, `\[\s+4s\] measure`)
	if err := srv.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	waitAll(t, ps, `the jobs repository cannot be written .* kept in `)
	srv = startRepoServer(t, srv.Dir())
	waitAll(t, ps, `the jobs repository can be written again`)

	// Across the window's end: stop it before the end, start it once every
	// agent has measured its last interval (and so waits for the
	// repository to hand in its part, or to merge).
	waitAll(t, ps, `\[\s+11s\] measure`)
	if err := srv.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	waitAll(t, ps, `\[\s+15s\] measure`)
	startRepoServer(t, srv.Dir())

	merged := 0
	for i, p := range ps {
		if code := p.exitCode(t); code != 0 {
			t.Fatalf("agent %d/3 exited %d:\n%s", i, code, p.output())
		}
		if strings.Contains(p.output(), "merged the results of 3 agent(s)") {
			merged++
		}
	}
	if merged != 1 {
		t.Fatalf("%d agents merged, want 1:\n%s", merged, ps[0].output())
	}
	j, res, ivs, agents := g.groupJob(t)
	if j.Status != metrics.StatusCompleted {
		t.Fatalf("job %s (%s), want completed", j.Status, j.Error)
	}
	var commits int64
	for _, a := range agents {
		if a.State != jobs.AgentDone || a.Result == nil {
			t.Fatalf("agent %s is %s, want done with its part", a.Segment, a.State)
		}
		commits += a.Result.Commits
	}
	if res.Commits != commits || commits == 0 {
		t.Errorf("the job's commits %d, the agents' %d", res.Commits, commits)
	}
	// Every interval, each with all 6 VUs (every agent's part merged).
	for i, iv := range ivs {
		if iv.Seq != i+1 {
			t.Fatalf("interval %d at position %d: the series has a hole", iv.Seq, i+1)
		}
		if len(iv.VUs) != 6 {
			t.Errorf("interval %d has %d VUs, want 6 (all agents' parts)", iv.Seq, len(iv.VUs))
		}
	}
	if len(ivs) < 15 {
		t.Errorf("%d intervals, want the ramp-up's and the window's (15 or more)", len(ivs))
	}
	assertNoSpool(t, g.testEnv)
}

// tpccPostgres is a TPROC-C database (two warehouses) on the test cluster.
func tpccPostgres(t *testing.T) string {
	t.Helper()
	return tpcctest.Postgres(t, tpcctest.Options{Warehouses: 2})
}

// assertNoSpool fails the test when spool files are left.
func assertNoSpool(t *testing.T, e *testEnv) {
	t.Helper()
	left, _ := filepath.Glob(filepath.Join(e.home(), "spool", "*.spool"))
	if len(left) > 0 {
		t.Errorf("spool files left after everything was handed in: %v", left)
	}
}

// spoolNamed finds the spool file a command's output names.
var spoolNamed = regexp.MustCompile(`kept in (\S+\.spool)`)

// TestRunRepositoryDiskFull: the SQLite repository is on a small file
// system that fills up during a run. The run keeps what it cannot store
// in a spool file in the data directory, prints its result and exits 75
// naming the file; once space is freed, sledge jobs recover hands it in and
// the job is completed with its result and every interval.
func TestRunRepositoryDiskFull(t *testing.T) {
	if testing.Short() {
		t.Skip("runs TPROC-C with its repository on a file system that fills up")
	}
	t.Parallel()
	mnt := mountSmallFS(t, "2m")
	e := newEnv(t)
	e.tpcc()
	repo := filepath.Join(mnt, "jobs.db")
	p := e.start("--repo", repo, "run", "--vu", "2", "--rampup", "0s", "--duration", "8s", "--interval", "1s", "--pacing", "spec", "--pacing-scale", "0.01")
	p.waitFor(t, `\[\s+2s\] measure`)
	fill := filepath.Join(mnt, "fill")
	fillUp(t, fill)

	if code := p.exitCode(t); code != exitNotStored {
		t.Fatalf("exit status %d, want %d (measured, not stored):\n%s", code, exitNotStored, p.output())
	}
	out := p.output()
	m := spoolNamed.FindStringSubmatch(out[strings.LastIndex(out, "sledge: job"):])
	if !strings.Contains(out, "NOPM") || m == nil || !strings.HasPrefix(m[1], filepath.Join(e.home(), "spool")) {
		t.Fatalf("want the result printed and the last line naming the spool file in the data directory:\n%s", out)
	}
	if _, err := os.Stat(m[1]); err != nil {
		t.Fatalf("the named spool file: %v", err)
	}
	// While the file is there the job is not abandoned.
	if list := jobsIn(t, e, repo); list[0]["status"] == metrics.StatusAbandoned {
		t.Errorf("job with a spool to hand in listed as abandoned")
	}

	if err := os.Remove(fill); err != nil {
		t.Fatal(err)
	}
	rec := e.ok("--repo", repo, "jobs", "recover")
	if !strings.Contains(rec, "handed in what it kept in "+m[1]) {
		t.Fatalf("jobs recover:\n%s", rec)
	}
	if _, err := os.Stat(m[1]); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("spool file still there after the hand-in: %v", err)
	}
	r, err := jobs.Open(context.Background(), repo)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	ctx := context.Background()
	list, err := r.List(ctx, jobs.ListFilter{Kind: jobs.KindRun})
	if err != nil || len(list) != 1 {
		t.Fatalf("%d run jobs, %v", len(list), err)
	}
	j := list[0]
	res, err := r.RunResult(ctx, j.ID)
	if j.Status != metrics.StatusCompleted || err != nil || res == nil || res.Commits == 0 {
		t.Fatalf("job %s (%s), result %v %v; want completed with its result", j.Status, j.Error, res, err)
	}
	ivs, err := r.Intervals(ctx, j.ID)
	if err != nil {
		t.Fatal(err)
	}
	missing, _ := r.MissingIntervals(ctx, j.ID)
	for i, iv := range ivs {
		if iv.Seq != i+1 {
			t.Fatalf("intervals %v: a hole at %d (missing %v)", seqsOf(ivs), i+1, missing)
		}
	}
	if len(ivs) < 8 || len(missing) > 0 {
		t.Errorf("intervals %v, missing %v: want the window's 8 or more, none missing", seqsOf(ivs), missing)
	}
	lines, _ := r.Output(ctx, j.ID)
	if !slices.ContainsFunc(lines, func(l jobs.OutputLine) bool { return strings.Contains(l.Line, "NOPM") }) {
		t.Errorf("the stored output lacks the result's lines")
	}
	// Handing in again stores nothing twice.
	if again := e.ok("--repo", repo, "jobs", "recover"); !strings.Contains(again, "nothing to hand in") {
		t.Errorf("second jobs recover:\n%s", again)
	}
	if ivs2, _ := r.Intervals(ctx, j.ID); len(ivs2) != len(ivs) {
		t.Errorf("%d intervals after a second recover, %d before", len(ivs2), len(ivs))
	}
}

func seqsOf(ivs []metrics.Interval) []int {
	var out []int
	for _, iv := range ivs {
		out = append(out, iv.Seq)
	}
	return out
}

// jobsIn is `sledge jobs --format json` of repository repo.
func jobsIn(t *testing.T, e *testEnv, repo string) []map[string]any {
	t.Helper()
	saved := e.getenv("SLEDGE_REPO")
	e.set("SLEDGE_REPO", repo)
	defer e.set("SLEDGE_REPO", saved)
	list := e.jobs()
	if len(list) == 0 {
		t.Fatal("no jobs")
	}
	return list
}

// fillUp writes zeros to path until its file system is full.
func fillUp(t *testing.T, path string) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	buf := make([]byte, 4096)
	for {
		if _, err := f.Write(buf); err != nil {
			break
		}
	}
	f.Sync()
}

// TestRunDataDirDiskFull: the repository and the data directory share a
// small file system that fills up during a run, so the data directory
// cannot take the spool file either. With a temporary directory elsewhere
// the spool file goes there: the run exits 75 naming it, and sledge jobs
// recover hands it in once there is space. With the temporary directory
// full too, nothing can be kept: the run prints its result and exits 74
// saying so (it exited 0 before, as if the result were stored).
func TestRunDataDirDiskFull(t *testing.T) {
	if testing.Short() {
		t.Skip("runs TPROC-C with its data directory on a file system that fills up")
	}
	t.Parallel()
	for _, tc := range []struct {
		name       string
		spareOnMnt bool
		code       int
	}{
		{"temporary directory elsewhere", false, exitNotStored},
		{"temporary directory full too", true, exitNotKept},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			mnt := mountSmallFS(t, "2m")
			e := newEnv(t)
			e.tpcc()
			target := filepath.Join(e.home(), "tprocc.sqlite")
			home := filepath.Join(mnt, "home")
			tmp := t.TempDir()
			if tc.spareOnMnt {
				tmp = filepath.Join(mnt, "tmp")
			}
			// The child process's temporary directory is $TMPDIR's, an
			// in-process command's the state's.
			e.set("SLEDGE_HOME", home).set("SLEDGE_REPO", filepath.Join(home, "jobs.db")).set("TMPDIR", tmp)
			e.gs.tempDir = tmp
			p := e.start("run", "--db", target, "--vu", "2", "--rampup", "0s", "--duration", "8s", "--interval", "1s", "--pacing", "spec", "--pacing-scale", "0.01")
			p.waitFor(t, `\[\s+2s\] measure`)
			fill := filepath.Join(mnt, "fill")
			fillUp(t, fill)

			code := p.exitCode(t)
			out := p.output()
			if code != tc.code {
				t.Fatalf("exit status %d, want %d:\n%s", code, tc.code, out)
			}
			if !strings.Contains(out, "NOPM") {
				t.Fatalf("the result is not printed:\n%s", out)
			}
			last := out[strings.LastIndex(out, "sledge: job"):]
			if tc.code == exitNotKept {
				if !strings.Contains(last, "neither stored in the jobs repository nor kept in a spool file") {
					t.Fatalf("want the last line to say the result is neither stored nor kept:\n%s", out)
				}
				return
			}
			m := spoolNamed.FindStringSubmatch(last)
			if m == nil || !strings.HasPrefix(m[1], tmp+string(filepath.Separator)) {
				t.Fatalf("want the last line naming a spool file in the temporary directory %s:\n%s", tmp, out)
			}
			if err := os.Remove(fill); err != nil {
				t.Fatal(err)
			}
			if rec := e.ok("jobs", "recover"); !strings.Contains(rec, "handed in what it kept in "+m[1]) {
				t.Fatalf("jobs recover:\n%s", rec)
			}
			if _, err := os.Stat(m[1]); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("spool file still there after the hand-in: %v", err)
			}
			list := jobsIn(t, e, e.repo())
			if list[0]["status"] != metrics.StatusCompleted || !strings.Contains(e.ok("jobs", "show", fmt.Sprint(list[0]["id"])), "NOPM") {
				t.Errorf("the job after the hand-in: %v", list[0])
			}
		})
	}
}
