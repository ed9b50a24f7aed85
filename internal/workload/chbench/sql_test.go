package chbench

import (
	"io/fs"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/sledge-bench/sledge/internal/db"
	"github.com/sledge-bench/sledge/internal/sqlfile"
)

// The embedded sql/ follows the layout sql.go describes (TPROC-H's).
func TestSQLLayout(t *testing.T) {
	t.Parallel()
	sqlDir, err := fs.Sub(sqlFiles, "sql")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range sqlfile.LayoutProblems(sqlDir, []string{"postgres", "mysql", "sqlite"}) {
		t.Error(p)
	}
}

// Every database has every statement, in the base's order, without the
// layout's directives; DuckDB has none.
func TestSQLNames(t *testing.T) {
	t.Parallel()
	var queries []string
	for i := 1; i <= 22; i++ {
		queries = append(queries, "q"+strconv.Itoa(i))
	}
	want := map[string][]string{
		"schema":  {"region", "nation", "supplier"},
		"drop":    {"supplier", "nation", "region"},
		"checks":  {"supplier keys", "supplier nations", "nation regions", "customer nations"},
		"queries": queries,
	}
	for _, k := range []db.Kind{db.Postgres, db.MySQL, db.SQLite} {
		for kind, names := range want {
			list, err := statements(k, kind)
			if err != nil {
				t.Errorf("%s %s: %v", k, kind, err)
				continue
			}
			var got []string
			for _, s := range list {
				got = append(got, s.Name)
				if strings.Contains(s.SQL, "-- overridden:") || strings.Contains(s.SQL, "-- differs:") {
					t.Errorf("%s %s %s: a layout directive is left in the SQL", k, kind, s.Name)
				}
			}
			if !slices.Equal(got, names) {
				t.Errorf("%s %s: statements %v, want %v", k, kind, got, names)
			}
		}
		qs, err := Queries(k)
		if err != nil || qs[21] == "" {
			t.Errorf("%s: Queries: %v", k, err)
		}
		// The observer of MySQL/MariaDB tells the streams' sessions by
		// the comment that leads their statements.
		for i, q := range qs {
			if !strings.HasPrefix(q, "/* sledge chbench analytic */ ") {
				t.Errorf("%s Q%d does not begin with the streams' comment: %.60q", k, i+1, q)
			}
		}
	}
	if _, err := Queries(db.DuckDB); err == nil || !strings.Contains(err.Error(), "no SQL for") {
		t.Errorf("DuckDB queries: %v, want an error saying there is no SQL", err)
	}
}
