package sqlite

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sledge-bench/sledge/internal/db"
)

// MustExist opens only a file that exists: a missing one is an error
// matching fs.ErrNotExist, and neither the file nor its directory appear.
// Without it the file and its directory are created, as a build needs.
func TestMustExist(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	path := filepath.Join(root, "sub", "new.db")
	tg := db.Target{Kind: db.SQLite, DSN: path}
	_, err := Driver{}.Connect(ctx, tg, db.Options{MustExist: true})
	if !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), "no database at "+path) {
		t.Fatalf("Connect(MustExist) on a missing file: %v", err)
	}
	if ents, _ := os.ReadDir(root); len(ents) != 0 {
		t.Fatalf("MustExist left %v in %s", ents, root)
	}

	c, err := Driver{}.Connect(ctx, tg, db.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Exec(ctx, "CREATE TABLE t (k INTEGER)"); err != nil {
		t.Fatal(err)
	}
	c.Close(ctx)
	c, err = Driver{}.Connect(ctx, tg, db.Options{MustExist: true})
	if err != nil {
		t.Fatalf("Connect(MustExist) on an existing file: %v", err)
	}
	defer c.Close(ctx)
	if _, err := c.Exec(ctx, "INSERT INTO t VALUES (1)"); err != nil {
		t.Errorf("the file is not writable with MustExist: %v", err)
	}
}
