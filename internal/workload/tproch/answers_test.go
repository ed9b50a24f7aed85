package tproch

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sledge-bench/sledge/internal/db"
	"github.com/sledge-bench/sledge/internal/db/duckdb"
	"github.com/sledge-bench/sledge/internal/db/postgres"
	"github.com/sledge-bench/sledge/internal/testdb"
)

// TestWriteAnswersSF1 derives the stored SF 1 answers: it builds SF 1 on
// DuckDB and on PostgreSQL, runs the 22 queries with the validation
// parameters on both, requires them to agree and writes answers/sf1. It
// takes a few minutes, so it runs only when asked:
//
//	SLEDGE_WRITE_ANSWERS=1 go test -run TestWriteAnswersSF1 -timeout 30m ./internal/workload/tproch/
func TestWriteAnswersSF1(t *testing.T) {
	t.Parallel()
	if os.Getenv("SLEDGE_WRITE_ANSWERS") == "" {
		t.Skip("set SLEDGE_WRITE_ANSWERS=1 to rebuild answers/sf1")
	}
	ctx := context.Background()
	var results [][22][]string
	for _, e := range []struct {
		drv db.Driver
		tg  db.Target
	}{
		{duckdb.Driver{}, db.Target{Kind: db.DuckDB, DSN: filepath.Join(t.TempDir(), "sf1.duckdb")}},
		{postgres.Driver{}, parse(t, testdb.Postgres(t))},
	} {
		rep, err := Build(ctx, e.drv, e.tg, BuildOptions{SF: 1, Workers: 2})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: built SF 1 in %s", e.drv.Kind(), rep.Duration)
		c, err := e.drv.Connect(ctx, e.tg, db.Options{})
		if err != nil {
			t.Fatal(err)
		}
		dl, _ := dialect(e.drv.Kind())
		results = append(results, answers(t, ctx, c, dl))
		c.Close(ctx)
	}
	for q := 0; q < 22; q++ {
		a, b := results[0][q], results[1][q]
		if strings.Join(a, "\n") != strings.Join(b, "\n") {
			for i := range a {
				if i < len(b) && !cellsAgree(a[i], b[i]) {
					t.Fatalf("Q%d differs between DuckDB and PostgreSQL at row %d:\n%s\n%s", q+1, i+1, a[i], b[i])
				}
			}
			if len(a) != len(b) {
				t.Fatalf("Q%d: DuckDB %d rows, PostgreSQL %d", q+1, len(a), len(b))
			}
		}
		text := strings.Join(b, "\n") + "\n"
		if err := os.WriteFile(fmt.Sprintf("answers/sf1/q%02d.txt", q+1), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// cellsAgree allows the engines' last-digit differences in averages and
// ratios (DuckDB computes them in double precision).
func cellsAgree(a, b string) bool {
	x, y := strings.Split(a, "|"), strings.Split(b, "|")
	if len(x) != len(y) {
		return false
	}
	for i := range x {
		if x[i] != y[i] && !cellMatches(x[i], y[i]) {
			return false
		}
	}
	return true
}

// TestStoredAnswersMatchPublishedFigures checks the stored SF 1 answers
// against the figures of the specification's answer set that the reference
// sheet quotes (row counts and single values).
func TestStoredAnswersMatchPublishedFigures(t *testing.T) {
	t.Parallel()
	rows := map[int]int{1: 4, 2: 100, 3: 10, 4: 5, 5: 5, 6: 1, 7: 4, 8: 2, 9: 175, 10: 20, 11: 1048, 12: 2, 13: 42,
		14: 1, 15: 1, 16: 18314, 17: 1, 18: 57, 19: 1, 20: 186, 21: 100, 22: 7}
	for q, n := range rows {
		a, err := Answer(q)
		if err != nil {
			t.Fatal(err)
		}
		if len(a) != n {
			t.Errorf("Q%d: %d rows stored, the published answer has %d", q, len(a), n)
		}
	}
	single := map[int]string{6: "123141078.23", 14: "16.38", 17: "348406.02", 19: "3083843.06"}
	for q, want := range single {
		a, _ := Answer(q)
		if len(a) != 1 || !cellMatches(a[0], want) {
			t.Errorf("Q%d: stored %v, published %s", q, a, want)
		}
	}
	q1, _ := Answer(1)
	for _, want := range []string{"A|F|", "N|F|", "N|O|", "R|F|"} {
		found := false
		for _, r := range q1 {
			found = found || strings.HasPrefix(r, want)
		}
		if !found {
			t.Errorf("Q1 has no %s row: %v", want, q1)
		}
	}
	for _, c := range []struct{ flags, count string }{{"A|F|", "1478493.00"}, {"N|F|", "38854.00"}, {"N|O|", "2920374.00"}, {"R|F|", "1478870.00"}} {
		for _, r := range q1 {
			if strings.HasPrefix(r, c.flags) && !strings.HasSuffix(r, "|"+c.count) {
				t.Errorf("Q1 %s: %s, published count %s last", c.flags, r, c.count)
			}
		}
	}
}
