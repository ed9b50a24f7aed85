package app

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/sledge-bench/sledge/internal/jobs"
	"github.com/sledge-bench/sledge/internal/metrics"
	"github.com/sledge-bench/sledge/internal/spool"
)

// thisHost is the host name a job store writes in its spool files'
// headers.
func thisHost(t *testing.T) string {
	t.Helper()
	host, err := os.Hostname()
	if err != nil {
		t.Skipf("no host name: %v", err)
	}
	return host
}

// deadPID is the pid of a process that has ended.
func deadPID(t *testing.T) int {
	t.Helper()
	c := exec.Command("true")
	if err := c.Run(); err != nil {
		t.Skipf("no process to end: %v", err)
	}
	return c.Process.Pid
}

// TestRecoverSpool: a process that could not write its job to the
// repository left a spool (lines, intervals 1, 2 and 4, its result, its
// end) and died; the job was reaped as abandoned meanwhile. Recover hands
// it all in: the job is completed with its result and series, interval 3
// is marked missing with a reason, the file is gone; a second Recover
// changes nothing. A spool of another repository is left alone.
func TestRecoverSpool(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	repoPath := filepath.Join(dir, "jobs.db")
	repo, err := jobs.Open(ctx, repoPath)
	if err != nil {
		t.Fatal(err)
	}
	defer repo.Close()
	pid := deadPID(t)
	id, err := repo.Create(ctx, jobs.Job{Kind: jobs.KindRun, Workload: "tprocc", PID: pid}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if j, _ := repo.Get(ctx, id); j.Status != metrics.StatusAbandoned {
		t.Fatalf("job of a dead process is %s, want abandoned before the hand-in", j.Status)
	}
	spoolDir := SpoolDir(dir)
	f, err := spool.Create(spoolDir, spool.Header{Repo: repoPath, Job: id, Host: thisHost(t), PID: pid})
	if err != nil {
		t.Fatal(err)
	}
	at := time.Now()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(f.Append(spool.KindLines, 0, []jobs.OutputLine{{At: at, Line: "run job"}, {At: at, Line: "[ 10s] …"}}))
	for _, seq := range []int{1, 2, 4} {
		must(f.Append(spool.KindInterval, seq, metrics.Interval{Seq: seq, Phase: metrics.PhaseMeasure, Length: time.Second,
			TPM: float64(60 * seq), Tx: []metrics.IntervalTx{{Name: "new_order", Count: int64(seq)}}}))
	}
	res := &metrics.RunResult{Status: metrics.StatusCompleted, VUs: 2, NOPM: 123, TPM: 456, Commits: 7,
		Measured: 4 * time.Second, NOPMDBCheck: 0}
	must(f.Append(spool.KindResult, 0, res))
	must(f.Append(spool.KindFinish, 0, finishRecord{Status: metrics.StatusCompleted}))
	f.Close()
	other, err := spool.Create(spoolDir, spool.Header{Repo: "/elsewhere/jobs.db", Job: id, PID: pid + 1})
	must(err)
	other.Close()

	for round := range 2 {
		rec, err := Recover(ctx, repo, repoPath, spoolDir)
		must(err)
		wantFiles := 1
		if round == 1 {
			wantFiles = 0
		}
		if len(rec.Files) != wantFiles || (wantFiles == 1 && rec.Files[0].Err != nil) {
			t.Fatalf("round %d: %+v", round, rec.Files)
		}
		j, err := repo.Get(ctx, id)
		must(err)
		if j.Status != metrics.StatusCompleted || j.Headline == nil || j.Headline.NOPM != 123 {
			t.Fatalf("round %d: job %s, headline %+v; want completed with NOPM 123", round, j.Status, j.Headline)
		}
		ivs, err := repo.Intervals(ctx, id)
		must(err)
		var seqs []int
		for _, iv := range ivs {
			seqs = append(seqs, iv.Seq)
		}
		if !reflect.DeepEqual(seqs, []int{1, 2, 4}) {
			t.Errorf("round %d: intervals %v, want 1 2 4 once each", round, seqs)
		}
		out, _ := repo.Output(ctx, id)
		if len(out) != 2 {
			t.Errorf("round %d: %d output lines, want 2", round, len(out))
		}
		missing, _ := repo.MissingIntervals(ctx, id)
		if len(missing) != 1 || missing[0].Seq != 3 || missing[0].Reason == "" {
			t.Errorf("round %d: missing %v, want interval 3 with a reason", round, missing)
		}
	}
	if _, err := os.Stat(f.Path()); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("handed-in spool still there: %v", err)
	}
	if _, err := os.Stat(other.Path()); err != nil {
		t.Errorf("another repository's spool: %v", err)
	}
}

// TestRecoverSpoolSchemaFailure: the end a job spooled keeps what it found
// about its workload's schema, as a direct Finish does.
func TestRecoverSpoolSchemaFailure(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	repoPath := filepath.Join(dir, "jobs.db")
	repo, err := jobs.Open(ctx, repoPath)
	if err != nil {
		t.Fatal(err)
	}
	defer repo.Close()
	pid := deadPID(t)
	id, err := repo.Create(ctx, jobs.Job{Kind: jobs.KindBuild, Workload: "tprocc", PID: pid}, nil)
	if err != nil {
		t.Fatal(err)
	}
	f, err := spool.Create(SpoolDir(dir), spool.Header{Repo: repoPath, Job: id, Host: thisHost(t), PID: pid})
	if err != nil {
		t.Fatal(err)
	}
	sf := jobs.SchemaFailure{Kind: "schema_exists", Workload: "tprocc"}
	if err := f.Append(spool.KindFinish, 0, finishRecord{Status: metrics.StatusFailed, Error: "build: it is there", Schema: sf}); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if _, err := Recover(ctx, repo, repoPath, SpoolDir(dir)); err != nil {
		t.Fatal(err)
	}
	if j, err := repo.Get(ctx, id); err != nil || j.Status != metrics.StatusFailed || j.SchemaFailure != sf {
		t.Errorf("job %s, schema failure %+v (%v); want failed with %+v", j.Status, j.SchemaFailure, err, sf)
	}
}

// TestRecoverKeepsBusySpool: the spool of a live process is left to it,
// and its job is not reaped as abandoned while it exists.
func TestRecoverKeepsBusySpool(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	repoPath := filepath.Join(dir, "jobs.db")
	repo, err := jobs.Open(ctx, repoPath)
	if err != nil {
		t.Fatal(err)
	}
	defer repo.Close()
	pid := deadPID(t)
	id, err := repo.Create(ctx, jobs.Job{Kind: jobs.KindRun, PID: pid}, nil)
	if err != nil {
		t.Fatal(err)
	}
	f, err := spool.Create(SpoolDir(dir), spool.Header{Repo: repoPath, Job: id, PID: pid})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rec, err := Recover(ctx, repo, repoPath, SpoolDir(dir))
	if err != nil || len(rec.Files) != 0 {
		t.Fatalf("%+v %v", rec, err)
	}
	if j, _ := repo.Get(ctx, id); j.Status != metrics.StatusRunning {
		t.Errorf("job with a spool being written is %s, want running", j.Status)
	}
}

// TestJobStoreKeepsWhereItCan: with the repository closed, a job store
// keeps what it cannot store in the first spool directory that takes it,
// the spare when the data directory's cannot; lost output lines are
// warned about but lose no result; a result neither stored nor kept makes
// the store Unkept; a spare directory open to others is not used.
func TestJobStoreKeepsWhereItCan(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	repo, err := jobs.Open(ctx, filepath.Join(dir, "jobs.db"))
	if err != nil {
		t.Fatal(err)
	}
	id, err := repo.Create(ctx, jobs.Job{Kind: jobs.KindRun, Workload: "tprocc", PID: os.Getpid()}, nil)
	if err != nil {
		t.Fatal(err)
	}
	repo.Close() // every write fails from here on
	primary, spare := filepath.Join(dir, "data", "spool"), filepath.Join(dir, "tmp", "sledge-spool")
	// A file where a directory should be: nothing can be created in it.
	block := func(path string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	unblock := func(path string) {
		t.Helper()
		if err := os.Remove(path); err != nil {
			t.Fatal(err)
		}
	}
	block(primary)
	block(spare)
	var warned strings.Builder // the store writes warnings under its lock
	s := &jobStore{t: storeTarget{repo: repo, id: id}, dirs: []string{primary, spare}, spare: spare, warn: &warned,
		head: spool.Header{Repo: "r", Job: id, PID: os.Getpid()}}

	if err := s.AppendOutputLines(ctx, id, []jobs.OutputLine{{At: time.Now(), Line: "x"}}); err == nil {
		t.Fatal("output lines kept with both directories blocked")
	}
	if err := s.Unkept(); err != nil {
		t.Errorf("lost output lines make the store unkept: %v", err)
	}
	if stored, err := s.SaveThresholds(ctx, nil); stored || err == nil {
		t.Fatalf("thresholds stored %v, kept %v with both directories blocked", stored, err == nil)
	}
	if err := s.Unkept(); err == nil || !strings.Contains(err.Error(), primary) || !strings.Contains(err.Error(), spare) {
		t.Errorf("unkept %v: want the reasons of both directories", err)
	}

	unblock(spare)
	res := &metrics.RunResult{Status: metrics.StatusCompleted, Commits: 7}
	if stored, err := s.SaveRunResult(ctx, res); stored || err != nil {
		t.Fatalf("result stored %v, %v: want it kept in the spare", stored, err)
	}
	unblock(primary)
	path, why := s.Close(ctx)
	if filepath.Dir(path) != spare || why == nil {
		t.Fatalf("kept in %q (%v), want a file in %s", path, why, spare)
	}
	c, err := spool.Read(path)
	if err != nil || len(c.Records) != 1 || c.Records[0].Kind != spool.KindResult {
		t.Fatalf("the spare's file: %+v, %v; want the result", c, err)
	}
	if !strings.Contains(warned.String(), "kept in "+path) {
		t.Errorf("warnings do not name %s:\n%s", path, warned.String())
	}

	// A spare another user could reach is not used.
	open := filepath.Join(t.TempDir(), "shared")
	if err := os.Mkdir(open, 0o777); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(open, 0o777); err != nil { // past the umask
		t.Fatal(err)
	}
	o := &jobStore{t: storeTarget{repo: repo, id: id}, dirs: []string{open}, spare: open,
		head: spool.Header{Repo: "r", Job: id, PID: os.Getpid()}}
	if _, err := o.SaveRunResult(ctx, res); err == nil || !strings.Contains(err.Error(), "open to other users") {
		t.Errorf("kept in a directory open to others: %v", err)
	}
}
