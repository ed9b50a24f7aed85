package tproch

import (
	"io/fs"
	"slices"
	"strconv"
	"strings"
	"testing"

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
	for _, p := range sqlfile.LayoutProblems(sqlDir, Dialects()) {
		t.Error(p)
	}
}
