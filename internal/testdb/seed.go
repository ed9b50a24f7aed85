package testdb

// Seeds: a directory made once per test binary and key, for tests that
// start a private server of their own (to stop, pause or kill it) and need
// it to hold a built schema. The seed is such a server, stopped after its
// build; each test copies it (CopyTree) and starts the copy, which costs a
// file copy instead of a build on a fresh server.

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// seed is one key's directory, made once.
type seed struct {
	once sync.Once
	dir  string
	err  error
}

var (
	seedsMu    sync.Mutex
	seeds      = map[string]*seed{}
	seedDir    string // the parent of every seed (removed by Main)
	seedDirErr error
)

// SeedDir returns a directory that make filled once per test binary and key
// (callers that come meanwhile wait for it); its error fails every test
// that asked for that key. The directory and its parents can be entered by
// every user (a sandbox server runs as an account of its own); Main removes
// it. ctx ends with the test binary's deadline.
func SeedDir(t testing.TB, key string, make func(ctx context.Context, dir string) error) string {
	t.Helper()
	if !mainCalled.Load() {
		t.Fatal("testdb: call testdb.Main(m) from the package's TestMain to use testdb.SeedDir")
	}
	seedsMu.Lock()
	if seedDir == "" && seedDirErr == nil {
		if seedDir, seedDirErr = os.MkdirTemp("", "sledge-testdb-seed-"); seedDirErr == nil {
			seedDirErr = os.Chmod(seedDir, 0o755)
		}
	}
	s, ok := seeds[key]
	if !ok {
		s = &seed{dir: filepath.Join(seedDir, fmt.Sprintf("s%d_%s", len(seeds)+1, sanitize(key, 40)))}
		seeds[key] = s
	}
	parentErr := seedDirErr
	seedsMu.Unlock()
	if parentErr != nil {
		t.Fatalf("testdb: %v", parentErr)
	}
	s.once.Do(func() {
		ctx, cancel := buildContext(t)
		defer cancel()
		if s.err = os.Mkdir(s.dir, 0o755); s.err == nil {
			s.err = make(ctx, s.dir)
		}
		if s.err != nil {
			s.err = fmt.Errorf("seed %q: %w", key, s.err)
		}
	})
	if s.err != nil {
		t.Fatalf("testdb: %v", s.err)
	}
	return s.dir
}

// CopyTree copies the contents of directory src into directory dst (made if
// missing), keeping owners, modes and links: a copy of a stopped sandbox is
// the same server with its data, ready to start elsewhere.
func CopyTree(ctx context.Context, src, dst string) error {
	if err := os.MkdirAll(dst, 0o755); err != nil {
		return err
	}
	// cp -a keeps what a data directory needs (owners, modes, links) in one
	// pass; Go's os.CopyFS keeps neither owners nor modes.
	out, err := exec.CommandContext(ctx, "cp", "-a", src+"/.", dst).CombinedOutput()
	if err != nil {
		return fmt.Errorf("copy %s to %s: %w: %s", src, dst, err, strings.TrimSpace(string(out)))
	}
	return nil
}

// removeSeeds removes every seed.
func removeSeeds() error {
	if seedDir == "" {
		return nil
	}
	return os.RemoveAll(seedDir)
}
