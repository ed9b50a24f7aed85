package jobs

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sledge-bench/sledge/internal/testdb"
)

// The PostgreSQL backend's tests use the binary's private server.
func TestMain(m *testing.M) { testdb.Main(m) }

// backend is one kind of repository the same tests run against.
type backend struct {
	name string
	// fresh returns the location of a new, empty repository of this kind,
	// removed when the test ends: a SQLite file path (in a directory that
	// does not exist yet) or a PostgreSQL URL of a new database.
	fresh func(t *testing.T) string
}

// backends are SQLite and a sandboxed PostgreSQL (testdb: skipped without
// PostgreSQL installed, unless $CI is set).
var backends = []backend{
	{"sqlite", func(t *testing.T) string { return filepath.Join(t.TempDir(), "nested", "dir", "jobs.db") }},
	{"postgres", func(t *testing.T) string { return testdb.Postgres(t) }},
}

// forEachBackend runs test against every backend, as parallel subtests
// named after them (each opens a repository of its own).
func forEachBackend(t *testing.T, test func(t *testing.T, b backend)) {
	t.Helper()
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			t.Parallel()
			test(t, b)
		})
	}
}

// open opens a new repository of the backend, closed when the test ends.
func (b backend) open(t *testing.T) *Repo {
	t.Helper()
	return b.openAt(t, b.fresh(t))
}

// openAt opens the repository at location (from fresh), closed when the test
// ends.
func (b backend) openAt(t *testing.T, location string) *Repo {
	t.Helper()
	r, err := Open(context.Background(), location)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

// sqliteScript is the SQLite migration to version v+1.
func sqliteScript(t *testing.T, v int) string {
	t.Helper()
	s, err := schemaScript(migrations[v].sqlite)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// dumpTables returns every row of every table of the repository as text.
func dumpTables(t *testing.T, r *Repo) string {
	t.Helper()
	ctx := context.Background()
	var b strings.Builder
	for _, tbl := range append([]string{"job"}, childTables...) {
		rows, err := r.db.QueryContext(ctx, "SELECT * FROM "+tbl)
		if err != nil {
			t.Fatal(err)
		}
		cols, err := rows.Columns()
		if err != nil {
			t.Fatal(err)
		}
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		for rows.Next() {
			if err := rows.Scan(ptrs...); err != nil {
				t.Fatal(err)
			}
			fmt.Fprintf(&b, "%s:", tbl)
			for _, v := range vals {
				if bs, ok := v.([]byte); ok {
					v = string(bs)
				}
				fmt.Fprintf(&b, " %v", v)
			}
			b.WriteByte('\n')
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		rows.Close()
	}
	return b.String()
}
