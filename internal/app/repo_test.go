package app

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sledge-bench/sledge/internal/config"
	"github.com/sledge-bench/sledge/internal/jobs"
	"github.com/sledge-bench/sledge/internal/metrics"
	"github.com/sledge-bench/sledge/internal/spool"
)

func TestRepoName(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ path, workDir, want string }{
		{"jobs.db", "/home/u", "/home/u/jobs.db"},
		{"sub/../jobs.db", "/home/u", "/home/u/jobs.db"},
		{"/var/lib/sledge//jobs.db", "/home/u", "/var/lib/sledge/jobs.db"},
		{"postgres://sledge:xxxxx@db1/jobs", "/home/u", "postgres://sledge:xxxxx@db1/jobs"},
	} {
		if got := RepoName(tc.path, tc.workDir); got != tc.want {
			t.Errorf("RepoName(%q, %q) = %q, want %q", tc.path, tc.workDir, got, tc.want)
		}
	}
}

// spoolEndedJob creates a job of a process that has ended and a spool file
// that ends it as completed, kept for the repository named repoName.
func spoolEndedJob(ctx context.Context, t *testing.T, repo *jobs.Repo, repoName, dir string) int64 {
	t.Helper()
	pid := deadPID(t)
	id, err := repo.Create(ctx, jobs.Job{Kind: jobs.KindRun, Workload: "tprocc", PID: pid}, nil)
	if err != nil {
		t.Fatal(err)
	}
	f, err := spool.Create(dir, spool.Header{Repo: repoName, Job: id, PID: pid})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := f.Append(spool.KindFinish, 0, finishRecord{Status: metrics.StatusCompleted}); err != nil {
		t.Fatal(err)
	}
	return id
}

// makeRepo creates the repository at path and, with spool, a job of it
// that a spool file in spoolDir ends (spoolEndedJob), whose id it returns.
func makeRepo(ctx context.Context, t *testing.T, path, spoolDir string, spool bool) int64 {
	t.Helper()
	repo, err := jobs.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer repo.Close()
	if !spool {
		return 0
	}
	return spoolEndedJob(ctx, t, repo, path, spoolDir)
}

// TestOpenRepo: OpenRepo creates a repository only when not asked for an
// existing one, and hands in the spool files kept for it (named by its
// path), saying so; a process without a spool directory hands in nothing.
func TestOpenRepo(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, tc := range []struct {
		name     string
		existing bool // open with existing
		create   bool // the repository is there before
		spool    bool // a spool file kept for it; with no SpoolDir when false
		wantErr  error
		wantOut  string
	}{
		{name: "created", wantOut: ""},
		{name: "existing missing", existing: true, wantErr: jobs.ErrNoRepository},
		{name: "existing", existing: true, create: true},
		{name: "hand-in", create: true, spool: true, wantOut: "handed in what it kept in"},
		{name: "hand-in existing", existing: true, create: true, spool: true, wantOut: "handed in what it kept in"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			path := filepath.Join(dir, "jobs.db")
			var id int64
			if tc.create {
				id = makeRepo(ctx, t, path, SpoolDir(dir), tc.spool)
			}
			p := RepoPlace{Path: path, WorkDir: "/elsewhere"}
			if tc.spool {
				p.SpoolDir = SpoolDir(dir)
			}
			var out bytes.Buffer
			repo, err := OpenRepo(ctx, p, tc.existing, &out)
			if !errors.Is(err, tc.wantErr) || (tc.wantErr == nil) != (err == nil) {
				t.Fatalf("OpenRepo: %v, want %v", err, tc.wantErr)
			}
			if err != nil {
				if _, serr := os.Stat(path); !errors.Is(serr, os.ErrNotExist) {
					t.Errorf("a failed open of an existing repository created %s (%v)", path, serr)
				}
				return
			}
			defer repo.Close()
			if tc.wantOut == "" && out.Len() != 0 || !strings.Contains(out.String(), tc.wantOut) {
				t.Errorf("said %q, want %q", out.String(), tc.wantOut)
			}
			if tc.spool {
				if j, _ := repo.Get(ctx, id); j.Status != metrics.StatusCompleted {
					t.Errorf("spooled job is %s after the hand-in, want completed", j.Status)
				}
			}
		})
	}
}

// TestHandIn: `jobs recover` says when there is nothing to hand in, says
// what it handed in, and reports a spool file it cannot read as failed; it
// creates no repository.
func TestHandIn(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, tc := range []struct {
		name       string
		create     bool // the repository is there
		spool      bool // a spool file kept for it
		corrupt    bool // an unreadable spool file
		wantFailed bool
		wantErr    error
		wantOut    string
	}{
		{name: "no repository", wantErr: jobs.ErrNoRepository},
		{name: "nothing", create: true, wantOut: "nothing to hand in: no spool files of "},
		{name: "handed in", create: true, spool: true, wantOut: "handed in what it kept in"},
		{name: "corrupt", create: true, corrupt: true, wantFailed: true, wantOut: "cannot hand in "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			path := filepath.Join(dir, "jobs.db")
			sd := SpoolDir(dir)
			if tc.create {
				makeRepo(ctx, t, path, sd, tc.spool)
			}
			if tc.corrupt {
				if err := os.MkdirAll(sd, 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(sd, "job-1-pid-1.spool"), []byte("not a spool file"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			var out bytes.Buffer
			failed, err := HandIn(ctx, RepoPlace{Path: path, WorkDir: dir, SpoolDir: sd}, &out)
			if failed != tc.wantFailed || !errors.Is(err, tc.wantErr) || (tc.wantErr == nil) != (err == nil) {
				t.Fatalf("HandIn: failed %v, %v; want %v, %v", failed, err, tc.wantFailed, tc.wantErr)
			}
			if !strings.Contains(out.String(), tc.wantOut) {
				t.Errorf("said %q, want %q", out.String(), tc.wantOut)
			}
			if tc.wantErr != nil {
				if _, serr := os.Stat(path); !errors.Is(serr, os.ErrNotExist) {
					t.Errorf("HandIn created %s (%v)", path, serr)
				}
			}
		})
	}
}

// TestPlaceIn: the repository is the one named, else the environment's,
// else the data directory's jobs.db; the spool files are in the data
// directory when there is one, the spare ones in the user's own directory
// under the temporary one.
func TestPlaceIn(t *testing.T) {
	t.Parallel()
	home := config.Env{SledgeHome: "/data"}
	for _, tc := range []struct {
		name    string
		env     config.Env
		repo    string
		want    RepoPlace
		wantErr bool
	}{
		{"data dir", home, "", RepoPlace{Path: "/data/jobs.db", WorkDir: "/w", SpoolDir: "/data/spool", SpareSpoolDir: "/tmp/sledge-spool-1000"}, false},
		{"named", config.Env{SledgeHome: "/data", Repo: "/env.db"}, "r.db", RepoPlace{Path: "r.db", WorkDir: "/w", SpoolDir: "/data/spool", SpareSpoolDir: "/tmp/sledge-spool-1000"}, false},
		{"env", config.Env{SledgeHome: "/data", Repo: "/env.db"}, "", RepoPlace{Path: "/env.db", WorkDir: "/w", SpoolDir: "/data/spool", SpareSpoolDir: "/tmp/sledge-spool-1000"}, false},
		{"no data dir", config.Env{}, "r.db", RepoPlace{Path: "r.db", WorkDir: "/w", SpareSpoolDir: "/tmp/sledge-spool-1000"}, false},
		{"nowhere", config.Env{}, "", RepoPlace{WorkDir: "/w", SpareSpoolDir: "/tmp/sledge-spool-1000"}, true},
	} {
		got, err := PlaceIn(tc.env, tc.repo, "/w", "/tmp", 1000)
		if (err != nil) != tc.wantErr || got != tc.want {
			t.Errorf("%s: PlaceIn = %+v, %v; want %+v (error: %v)", tc.name, got, err, tc.want, tc.wantErr)
		}
	}
}
