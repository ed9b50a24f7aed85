package app

import (
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sledge-bench/sledge/internal/config"
	"github.com/sledge-bench/sledge/internal/jobs"
	"github.com/sledge-bench/sledge/internal/output"
)

// acceptCounter is a TCP listener on loopback that counts the connections
// it accepts (and closes them at once).
func acceptCounter(t *testing.T) (addr string, accepted *atomic.Int64) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	accepted = &atomic.Int64{}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			accepted.Add(1)
			c.Close()
		}
	}()
	return ln.Addr().String(), accepted
}

// policyService is a service with a target policy over a fresh data
// directory and repository (the repository inside the data directory, as
// by default, and reserved).
func policyService(t *testing.T, named map[string]string, allowAny bool) (*Service, *jobs.Repo, string) {
	t.Helper()
	dataDir := filepath.Join(t.TempDir(), "data")
	if err := os.MkdirAll(dataDir, 0o755); err != nil {
		t.Fatal(err)
	}
	repoPath := filepath.Join(dataDir, "jobs.db")
	repo, err := jobs.Open(context.Background(), repoPath)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { repo.Close() })
	policy := ServerPolicy(named, dataDir, repoPath, allowAny)
	return New(Options{Repo: repo, Version: "test", Hub: output.NewHub(), Targets: policy, DataDir: dataDir}), repo, dataDir
}

// TestTargetPolicyRefuses: every target outside the policy is refused with
// a *PolicyError naming db, before anything is created or dialled: no job,
// no file, no directory, no connection.
func TestTargetPolicyRefuses(t *testing.T) {
	// Not parallel: t.Chdir changes the whole binary's working directory.
	// Relative paths that escaped would land here, not in the source tree.
	t.Chdir(t.TempDir())
	addr, accepted := acceptCounter(t)
	svc, repo, dataDir := policyService(t, map[string]string{"pg": "postgres://u:pw@" + addr + "/x"}, false)
	outside := t.TempDir()
	if err := os.Symlink(outside, filepath.Join(dataDir, "link")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "nowhere.db"), filepath.Join(dataDir, "dangling.db")); err != nil {
		t.Fatal(err)
	}
	cwd, _ := os.Getwd()
	for _, tc := range []struct {
		db      string
		mustNot []string // paths that must not exist afterwards
	}{
		{"sqlite:" + filepath.Join(outside, "x", "new.db"), []string{filepath.Join(outside, "x")}},
		{"sqlite:/tmp/x/new.db", nil},
		{"sqlite:../../escape.db", []string{filepath.Join(dataDir, "..", "..", "escape.db"), filepath.Join(cwd, "..", "..", "escape.db")}},
		{"sqlite:sub/../../escape2.db", []string{filepath.Join(dataDir, "..", "escape2.db")}},
		{"sqlite://" + filepath.Join(dataDir, "..", "up.db"), []string{filepath.Join(dataDir, "..", "up.db")}},
		{"duckdb:/root/x.duckdb", []string{"/root/x.duckdb"}},
		{filepath.Join(outside, "bare.db"), []string{filepath.Join(outside, "bare.db")}},
		{"sqlite:link/through.db", []string{filepath.Join(outside, "through.db")}},
		{"sqlite:dangling.db", []string{filepath.Join(outside, "nowhere.db")}},
		{"sqlite:%2e%2e/pct.db", []string{filepath.Join(dataDir, "%2e%2e"), filepath.Join(dataDir, "..", "pct.db")}},
		{"sqlite:jobs.db", nil},
		{"sqlite:jobs.db-wal", nil},
		{"sqlite:sandbox/postgres/x.db", []string{filepath.Join(dataDir, "sandbox")}},
		{"sqlite:" + dataDir, nil},
		{"sqlite:", nil},
		{"postgres://10.0.0.1:5432/x", nil},
		{"postgres://u:secretpw@" + addr + "/x", nil},
		{"mysql://root@" + addr + "/x", nil},
		{"oracle://" + addr + "/x", nil},
		{"nosuch", nil},
		{"PG", nil},
	} {
		for _, kind := range []string{config.KindCheck, config.KindRun, config.KindBuild} {
			spec := config.New(kind)
			spec.DB = tc.db
			_, err := svc.Start(context.Background(), Request{Spec: spec})
			var pe *PolicyError
			if !errors.As(err, &pe) || pe.Field() != "db" {
				t.Errorf("%s %s: %v, want a PolicyError", kind, tc.db, err)
				continue
			}
			if strings.Contains(err.Error(), "secretpw") {
				t.Errorf("%s: the error shows the password: %v", tc.db, err)
			}
			if strings.Contains(err.Error(), "refused") || strings.Contains(err.Error(), "timeout") {
				t.Errorf("%s: the error says something about the network: %v", tc.db, err)
			}
		}
		for _, p := range tc.mustNot {
			if _, err := os.Lstat(p); err == nil {
				t.Errorf("%s: %s exists", tc.db, p)
			}
		}
	}
	if n := jobCount(t, repo); n != 0 {
		t.Errorf("%d jobs recorded for refused targets", n)
	}
	time.Sleep(100 * time.Millisecond)
	if n := accepted.Load(); n != 0 {
		t.Errorf("%d connections to %s for refused targets", n, addr)
	}
	entries, _ := os.ReadDir(dataDir)
	for _, e := range entries {
		switch e.Name() {
		case "jobs.db", "jobs.db-wal", "jobs.db-shm", "link", "dangling.db":
		default:
			t.Errorf("the data directory gained %s", e.Name())
		}
	}
	if entries, _ := os.ReadDir(outside); len(entries) != 0 {
		t.Errorf("the outside directory gained %d entries", len(entries))
	}

	// The named target is admitted (and dialled: the job fails on the
	// listener that closes at once, but it was tried).
	spec := config.New(config.KindCheck)
	spec.DB = "pg"
	j, err := svc.Start(context.Background(), Request{Spec: spec})
	if err != nil {
		t.Fatalf("named target: %v", err)
	}
	j.Wait()
	if accepted.Load() == 0 {
		t.Error("the named target was never dialled")
	}
	got, err := repo.Get(context.Background(), j.ID)
	if err != nil || strings.Contains(got.Target, "pw") || !strings.Contains(got.Target, addr) {
		t.Errorf("named job's target %q %v, want the URL without its password", got.Target, err)
	}
	if cfg, _ := repo.Config(context.Background(), j.ID); cfg["target"] != "pg" || strings.Contains(cfg["db"], ":pw@") {
		t.Errorf("named job's config %v", cfg)
	}
}

// TestTargetPolicyAdmits: embedded paths inside the data directory
// (relative ones taken there, through links that stay inside), named
// targets, and with AllowAny anything.
func TestTargetPolicyAdmits(t *testing.T) {
	parallel(t)
	base := t.TempDir()
	real := filepath.Join(base, "real")
	if err := os.MkdirAll(filepath.Join(real, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	// The data directory itself is reached through a link.
	dataDir := filepath.Join(base, "data")
	if err := os.Symlink(real, dataDir); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(real, "sub"), filepath.Join(real, "inner")); err != nil {
		t.Fatal(err)
	}
	p := &TargetPolicy{DataDir: dataDir, Named: map[string]string{"pg": "postgres://u:pw@db.example/x", "scratch": "sqlite:/srv/scratch.db"},
		Reserved: []string{filepath.Join(dataDir, "jobs.db")}}
	for _, tc := range []struct{ in, dsn, name string }{
		{"sqlite:bench.db", "sqlite:" + filepath.Join(real, "bench.db"), ""},
		{"bench.sqlite3", "sqlite:" + filepath.Join(real, "bench.sqlite3"), ""},
		{"sqlite:new/dir/x.db", "sqlite:" + filepath.Join(real, "new", "dir", "x.db"), ""},
		{"sqlite:" + filepath.Join(dataDir, "sub", "a.db"), "sqlite:" + filepath.Join(real, "sub", "a.db"), ""},
		{"duckdb:inner/h.duckdb", "duckdb:" + filepath.Join(real, "sub", "h.duckdb"), ""},
		{"sqlite:sub/../ok.db", "sqlite:" + filepath.Join(real, "ok.db"), ""},
		{"pg", "postgres://u:pw@db.example/x", "pg"},
		{"scratch", "sqlite:/srv/scratch.db", "scratch"},
	} {
		dsn, name, err := p.admit(tc.in)
		if err != nil || dsn != tc.dsn || name != tc.name {
			t.Errorf("admit(%q) = %q %q %v, want %q %q", tc.in, dsn, name, err, tc.dsn, tc.name)
		}
	}
	if entries, _ := os.ReadDir(real); len(entries) != 2 {
		t.Errorf("admitting created files: %v", entries)
	}
	p.AllowAny = true
	for _, in := range []string{"postgres://10.0.0.1:5432/x", "sqlite:/tmp/x/new.db", "sqlite:../../escape.db"} {
		if dsn, _, err := p.admit(in); err != nil || dsn != in {
			t.Errorf("allow any: admit(%q) = %q %v", in, dsn, err)
		}
	}
	if dsn, name, err := p.admit("pg"); err != nil || name != "pg" || dsn != p.Named["pg"] {
		t.Errorf("allow any: a name is still a name: %q %q %v", dsn, name, err)
	}
}

// TestTargetPolicyAllowAnyDials: the control of TestTargetPolicyRefuses —
// with AllowAny the same URL is dialled, so a listener that sees nothing
// above means nothing was tried.
func TestTargetPolicyAllowAnyDials(t *testing.T) {
	parallel(t)
	addr, accepted := acceptCounter(t)
	svc, _, _ := policyService(t, nil, true)
	spec := config.New(config.KindCheck)
	spec.DB = "postgres://u@" + addr + "/x"
	j, err := svc.Start(context.Background(), Request{Spec: spec})
	if err != nil {
		t.Fatal(err)
	}
	j.Wait()
	if accepted.Load() == 0 {
		t.Error("allow any: the target was not dialled")
	}
}

// TestTargetPolicyDefaultEmbedded: a spec without db runs on the
// workload's embedded default, inside the data directory.
func TestTargetPolicyDefaultEmbedded(t *testing.T) {
	parallel(t)
	svc, _, dataDir := policyService(t, nil, false)
	_, target, err := svc.Resolve(config.New(config.KindRun))
	if err != nil || !strings.HasPrefix(target.DSN, dataDir+string(filepath.Separator)) {
		t.Errorf("default target %v %v, want inside %s", target, err, dataDir)
	}
	named, any := svc.Targets()
	if len(named) != 0 || any {
		t.Errorf("Targets() = %v %v", named, any)
	}
	open := New(Options{})
	if named, any := open.Targets(); len(named) != 0 || !any {
		t.Errorf("no policy: Targets() = %v %v, want anything", named, any)
	}
}

func TestReadTargets(t *testing.T) {
	parallel(t)
	in := `# bench targets
pg = postgres://bench:s3cretpw@10.0.0.5:5432/tpcc

maria=mysql://root@db2:3306/tpcc   
  # indented comment
local=sqlite:rel/bench.db
`
	named, err := ReadTargets(strings.NewReader(in), "targets.txt")
	if err != nil {
		t.Fatal(err)
	}
	abs, _ := filepath.Abs("rel/bench.db")
	want := map[string]string{"pg": "postgres://bench:s3cretpw@10.0.0.5:5432/tpcc", "maria": "mysql://root@db2:3306/tpcc", "local": "sqlite:" + abs}
	if len(named) != len(want) {
		t.Fatalf("named %v", named)
	}
	for k, v := range want {
		if named[k] != v {
			t.Errorf("%s = %q, want %q", k, named[k], v)
		}
	}
	p := &TargetPolicy{Named: named}
	list := p.Names()
	if len(list) != 3 || list[0] != (NamedTarget{"local", "sqlite"}) || list[1] != (NamedTarget{"maria", "mysql"}) || list[2] != (NamedTarget{"pg", "postgres"}) {
		t.Errorf("Names() = %v", list)
	}
	for _, tc := range []struct{ in, want string }{
		{"pg=postgres://u:s3cretpw@h/x\npg=postgres://h/y\n", "targets.txt:2: target pg is named twice"},
		{"# ok\nnourl\n", "targets.txt:2:"},
		{"bad name=postgres://h/x\n", "target name"},
		{"a/b=postgres://h/x\n", "target name"},
		{"x=oracle://u:s3cretpw@h/x\n", "targets.txt:1: target x:"},
		{"x=\n", "want NAME=URL"},
		// No NAME=: the name is cut at a parameter's '='.
		{"postgres://u:s3cretpw@h/x?sslmode=disable\n", "target name"},
		{"x=postgres://h:bad/x?sslpassword=s3cretpw\n", "targets.txt:1: target x:"},
	} {
		_, err := ReadTargets(strings.NewReader(tc.in), "targets.txt")
		if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "s3cretpw") {
			t.Errorf("ReadTargets(%q): %v, want an error with %q and no password", tc.in, err, tc.want)
		}
	}
	if _, _, err := ParseNamedTarget("pg:postgres://u:s3cretpw@h/x"); err == nil || strings.Contains(err.Error(), "s3cretpw") {
		t.Errorf("ParseNamedTarget without '=': %v", err)
	}
}
