package testdb

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
)

// TestSeedDir: one make per key however many tests ask at once, a
// directory every user can enter, a failed make failing every asker, and
// a copy that keeps modes and links.
func TestSeedDir(t *testing.T) {
	t.Parallel()
	var made atomic.Int32
	fill := func(ctx context.Context, dir string) error {
		made.Add(1)
		if err := os.WriteFile(filepath.Join(dir, "data"), []byte("seeded"), 0o600); err != nil {
			return err
		}
		return os.Symlink("data", filepath.Join(dir, "link"))
	}
	var wg sync.WaitGroup
	dirs := make([]string, 4)
	for i := range dirs {
		wg.Go(func() { dirs[i] = SeedDir(t, "seed test", fill) })
	}
	wg.Wait()
	if n := made.Load(); n != 1 {
		t.Errorf("made %d times, want once", n)
	}
	for _, d := range dirs[1:] {
		if d != dirs[0] {
			t.Errorf("seed dirs %q and %q for one key", dirs[0], d)
		}
	}
	for p := dirs[0]; p != filepath.Dir(seedDir); p = filepath.Dir(p) {
		if fi, err := os.Stat(p); err != nil || fi.Mode().Perm()&0o005 != 0o005 {
			t.Errorf("%s: %v, %v: not open to every user", p, fi.Mode(), err)
		}
	}

	dst := filepath.Join(t.TempDir(), "copy")
	if err := CopyTree(t.Context(), dirs[0], dst); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(filepath.Join(dst, "data")); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("copied file: %v, %v; want mode 0600", fi, err)
	}
	if to, err := os.Readlink(filepath.Join(dst, "link")); err != nil || to != "data" {
		t.Errorf("copied link: %q, %v", to, err)
	}
	if err := CopyTree(t.Context(), filepath.Join(dirs[0], "missing"), dst); err == nil {
		t.Error("copying a missing directory did not fail")
	}

	// A make that fails fails the test that asked (seen through a fake
	// whose Fatalf records and unwinds).
	ft := &fatalRecorder{TB: t}
	func() {
		defer func() { recover() }()
		SeedDir(ft, "seed test fails", func(ctx context.Context, dir string) error { return errors.New("no server") })
	}()
	if !ft.failed {
		t.Error("a failed make did not fail the test")
	}
}

// fatalRecorder records Fatalf instead of ending the test.
type fatalRecorder struct {
	testing.TB
	failed bool
}

func (f *fatalRecorder) Fatalf(format string, args ...any) {
	f.failed = true
	panic("fatal")
}

func (f *fatalRecorder) Helper() {}
