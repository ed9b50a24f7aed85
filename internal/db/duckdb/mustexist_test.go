package duckdb

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

// MustExist opens only a database file that exists, creating nothing.
func TestMustExist(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	path := filepath.Join(root, "sub", "h.duckdb")
	tg := db.Target{Kind: db.DuckDB, DSN: path}
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
	c.Close(ctx)
	c, err = Driver{}.Connect(ctx, tg, db.Options{MustExist: true})
	if err != nil {
		t.Fatalf("Connect(MustExist) on an existing file: %v", err)
	}
	c.Close(ctx)
}
