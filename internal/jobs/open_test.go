package jobs

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// OpenExisting creates nothing: a missing repository (or directory) is
// ErrNoRepository, and the filesystem is left as it was; an existing one
// opens for reading and deleting.
func TestOpenExistingCreatesNothing(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "no", "such", "dir")
	path := filepath.Join(dir, "jobs.db")
	_, err := OpenExisting(ctx, path)
	if !errors.Is(err, ErrNoRepository) || !errors.Is(err, fs.ErrNotExist) || err.Error() != "no jobs repository at "+path {
		t.Fatalf("OpenExisting(missing) = %v, want ErrNoRepository naming the path", err)
	}
	if _, err := os.Stat(filepath.Join(t.TempDir(), "no")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a directory was created: %v", err)
	}
	// A missing file in an existing directory: nothing appears there either.
	empty := t.TempDir()
	if _, err := OpenExisting(ctx, filepath.Join(empty, "jobs.db")); !errors.Is(err, ErrNoRepository) {
		t.Fatalf("OpenExisting(missing file) = %v", err)
	}
	if ents, _ := os.ReadDir(empty); len(ents) != 0 {
		t.Errorf("OpenExisting left %v", ents)
	}

	r, path := openTemp(t)
	id := mustCreate(t, r, Job{Kind: KindRun, Workload: "tprocc"}, nil)
	r.Close()
	r2, err := OpenExisting(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer r2.Close()
	if j, err := r2.Get(ctx, id); err != nil || j.Kind != KindRun {
		t.Fatalf("Get = %+v, %v", j, err)
	}
	if err := r2.Delete(ctx, id); err != nil {
		t.Fatal(err)
	}
	if _, err := r2.Get(ctx, id); !errors.Is(err, ErrNotFound) {
		t.Errorf("after Delete: %v", err)
	}
	if _, err := OpenExisting(ctx, ""); err == nil || !strings.Contains(err.Error(), "no path") {
		t.Errorf("empty path: %v", err)
	}
}
