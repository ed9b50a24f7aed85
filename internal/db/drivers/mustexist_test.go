package drivers

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

// TestMustExist, one table over the embedded engines: MustExist opens only a
// file that exists — a missing one is an error matching fs.ErrNotExist, and
// neither the file nor its directory appear; without it the file and its
// directory are created, as a build needs; a file opened with it is
// writable.
func TestMustExist(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		kind db.Kind
		file string
	}{{db.SQLite, "new.db"}, {db.DuckDB, "h.duckdb"}} {
		t.Run(string(c.kind), func(t *testing.T) {
			drv, err := For(c.kind)
			if err != nil {
				t.Skip(err) // DuckDB without cgo
			}
			ctx := context.Background()
			root := t.TempDir()
			path := filepath.Join(root, "sub", c.file)
			tg := db.Target{Kind: c.kind, DSN: path}
			_, err = drv.Connect(ctx, tg, db.Options{MustExist: true})
			if !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), "no database at "+path) {
				t.Fatalf("Connect(MustExist) on a missing file: %v", err)
			}
			if ents, _ := os.ReadDir(root); len(ents) != 0 {
				t.Fatalf("MustExist left %v in %s", ents, root)
			}
			conn, err := drv.Connect(ctx, tg, db.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := conn.Exec(ctx, "CREATE TABLE t (k INTEGER)"); err != nil {
				t.Fatal(err)
			}
			conn.Close(ctx)
			conn, err = drv.Connect(ctx, tg, db.Options{MustExist: true})
			if err != nil {
				t.Fatalf("Connect(MustExist) on an existing file: %v", err)
			}
			defer conn.Close(ctx)
			if _, err := conn.Exec(ctx, "INSERT INTO t VALUES (1)"); err != nil {
				t.Errorf("the file is not writable with MustExist: %v", err)
			}
		})
	}
}
