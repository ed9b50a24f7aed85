package tproch

import (
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/sledge-bench/sledge/internal/sqlfile"
)

// The statement names each dialect runs, in the order the code runs them.
func TestSQLNames(t *testing.T) {
	t.Parallel()
	var queries, tables, reversed, pks []string
	for i := 1; i <= 22; i++ {
		queries = append(queries, "q"+strconv.Itoa(i))
	}
	for _, tb := range Tables() {
		tables = append(tables, tb.String())
		reversed = append([]string{tb.String()}, reversed...)
		pks = append(pks, tb.String()+"_pk")
	}
	secondary := []string{"supplier_nationkey", "customer_nationkey", "partsupp_suppkey", "orders_custkey",
		"orders_orderdate", "lineitem_partkey_suppkey", "lineitem_shipdate"}
	want := map[string]map[string][]string{
		"duckdb": {"queries": queries, "schema": tables, "drop": reversed, "indexes": nil,
			"vacuum": {"analyze"}, "checkpoint": {"checkpoint"}},
		"postgres": {"queries": queries, "schema": tables, "drop": reversed, "indexes": append(pks, secondary...),
			"vacuum": {"vacuum"}, "checkpoint": {"checkpoint"}},
		"mysql": {"queries": queries, "schema": tables, "drop": reversed, "indexes": secondary,
			"vacuum": {"analyze"}, "checkpoint": {"flush", "unlock"}},
	}
	if len(want) != len(Dialects()) {
		t.Fatalf("want covers %d dialects, Dialects() has %d", len(want), len(Dialects()))
	}
	for _, d := range Dialects() {
		for kind, names := range want[d] {
			list, err := readStatements(d, kind)
			if err != nil {
				t.Errorf("%s %s: %v", d, kind, err)
				continue
			}
			var got []string
			for _, s := range list {
				got = append(got, s.Name)
				// The layout's directives never reach a database.
				for _, line := range strings.Split(s.SQL, "\n") {
					l := strings.TrimSpace(line)
					if strings.HasPrefix(l, "-- overridden:") || strings.HasPrefix(l, "-- differs:") {
						t.Errorf("%s %s %s: directive %q left in the SQL", d, kind, s.Name, l)
					}
				}
			}
			if !slices.Equal(got, names) {
				t.Errorf("%s %s: statements %v, want %v", d, kind, got, names)
			}
		}
	}
}

// The embedded sql/ follows the layout queries.go describes.
func TestSQLLayout(t *testing.T) {
	t.Parallel()
	sqlDir, err := fs.Sub(sqlFiles, "sql")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range sqlLayoutProblems(sqlDir, Dialects()) {
		t.Error(p)
	}
}

// Each rule of sqlLayoutProblems can fail.
func TestSQLLayoutProblems(t *testing.T) {
	t.Parallel()
	base := "-- base\n\n-- name: a\n-- overridden: pg (why)\nSELECT 1;\n\n-- name: b\nSELECT 2;\n"
	over := "-- pg\n\n-- name: a\n-- differs: pg needs 10\nSELECT 10;\n"
	files := func(kv ...string) fstest.MapFS {
		m := fstest.MapFS{}
		for i := 0; i+1 < len(kv); i += 2 {
			m[kv[i]] = &fstest.MapFile{Data: []byte(kv[i+1])}
		}
		return m
	}
	cases := []struct {
		name string
		fsys fstest.MapFS
		want string // in the one problem reported; "" = none
	}{
		{"sound", files("k.sql", base, "pg/k.sql", over, "pg/own.sql", "-- name: x\nVACUUM;\n", "my/own.sql", "-- name: y\nANALYZE;\n"), ""},
		{"identical override", files("k.sql", strings.Replace(base, "-- name: b\n", "-- name: b\n-- overridden: pg\n", 1), "pg/k.sql", over+"\n-- name: b\n-- differs: no reason\nSELECT 2;\n"), "pg/k.sql b is identical to the base"},
		{"override without a reason", files("k.sql", base, "pg/k.sql", "-- name: a\nSELECT 10;\n"), "pg/k.sql a has no -- differs: line"},
		{"base names a dialect that does not override", files("k.sql", base), "k.sql a: -- overridden: names [pg], overridden by []"},
		{"base leaves out a dialect that overrides", files("k.sql", strings.Replace(base, "pg (why)", "my", 1), "pg/k.sql", over), "k.sql a: -- overridden: names [my], overridden by [pg]"},
		{"override file with nothing in it", files("k.sql", "-- name: a\nSELECT 1;\n", "my/k.sql", "-- nothing\n"), "my/k.sql overrides nothing"},
		{"override of no base statement", files("k.sql", base, "pg/k.sql", over+"\n-- name: c\n-- differs: typo\nSELECT 3;\n"), "names no statement of the base"},
		{"directive in a file with no base", files("pg/own.sql", "-- name: x\n-- differs: of what?\nVACUUM;\n"), "pg/own.sql x: -- differs: without a base"},
		{"unknown dialect directory", files("k.sql", "-- name: a\nSELECT 1;\n", "sqlite/k.sql", "-- name: a\n-- differs: x\nSELECT 9;\n"), "sqlite/k.sql: not a base file nor a known dialect's"},
	}
	for _, c := range cases {
		got := sqlLayoutProblems(c.fsys, []string{"pg", "my"})
		switch {
		case c.want == "" && len(got) != 0:
			t.Errorf("%s: problems %q, want none", c.name, got)
		case c.want != "" && (len(got) != 1 || !strings.Contains(got[0], c.want)):
			t.Errorf("%s: problems %q, want one containing %q", c.name, got, c.want)
		}
	}
}

// sqlLayoutProblems checks a sql/ directory: every file is a base
// (<kind>.sql) or a dialect's (<dialect>/<kind>.sql); a dialect's file over a
// base holds at least one statement, each with a "-- differs:" reason and
// different from the base's; each base statement's "-- overridden:" line
// names exactly the dialects whose file replaces it; and a dialect's file
// with no base carries no directives.
func sqlLayoutProblems(sqlDir fs.FS, dialects []string) []string {
	var problems []string
	fail := func(format string, a ...any) { problems = append(problems, fmt.Sprintf(format, a...)) }
	parse := func(name string) []sqlfile.Statement {
		b, err := fs.ReadFile(sqlDir, name)
		if err != nil {
			fail("%s: %v", name, err)
			return nil
		}
		list, err := sqlfile.Parse(string(b))
		if err != nil {
			fail("%s: %v", name, err)
		}
		return list
	}
	files, err := fs.Glob(sqlDir, "*.sql")
	if err != nil {
		return []string{err.Error()}
	}
	more, err := fs.Glob(sqlDir, "*/*.sql")
	if err != nil {
		return []string{err.Error()}
	}
	bases := map[string][]sqlfile.Statement{}
	for _, name := range files {
		bases[strings.TrimSuffix(name, ".sql")] = parse(name)
	}
	for _, f := range more {
		d, kind := path.Dir(f), strings.TrimSuffix(path.Base(f), ".sql")
		if !slices.Contains(dialects, d) {
			fail("%s: not a base file nor a known dialect's", f)
			continue
		}
		if _, hasBase := bases[kind]; hasBase {
			continue
		}
		for _, s := range parse(f) {
			if _, ok := sqlfile.Differs(s); ok {
				fail("%s %s: -- differs: without a base to differ from", f, s.Name)
			}
			if sqlfile.OverriddenBy(s) != nil {
				fail("%s %s: -- overridden: without a base", f, s.Name)
			}
		}
	}
	for kind, base := range bases {
		plain, err := sqlfile.Overlay(base, nil)
		if err != nil {
			fail("%s.sql: %v", kind, err)
			continue
		}
		overriders := map[string][]string{} // statement → dialects replacing it
		for _, d := range dialects {
			f := d + "/" + kind + ".sql"
			if _, err := fs.Stat(sqlDir, f); err != nil {
				continue
			}
			over := parse(f)
			if len(over) == 0 {
				fail("%s overrides nothing: remove it", f)
			}
			for _, o := range over {
				overriders[o.Name] = append(overriders[o.Name], d)
			}
			if _, err := sqlfile.Overlay(base, over); err != nil {
				fail("%s over %s.sql: %v", f, kind, err)
				continue
			}
			for _, o := range over {
				if _, ok := sqlfile.Differs(o); !ok {
					fail("%s %s has no -- differs: line saying why", f, o.Name)
				}
				merged, _ := sqlfile.Overlay(base, []sqlfile.Statement{o})
				i := slices.IndexFunc(merged, func(s sqlfile.Statement) bool { return s.Name == o.Name })
				if merged[i].SQL == plain[i].SQL {
					fail("%s %s is identical to the base: remove it", f, o.Name)
				}
			}
		}
		for _, s := range base {
			listed := sqlfile.OverriddenBy(s)
			slices.Sort(listed)
			by := overriders[s.Name]
			slices.Sort(by)
			if !slices.Equal(listed, by) {
				fail("%s.sql %s: -- overridden: names %v, overridden by %v", kind, s.Name, listed, by)
			}
		}
	}
	return problems
}
