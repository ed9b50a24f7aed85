package chbench

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sledge-bench/sledge/internal/db"
	"github.com/sledge-bench/sledge/internal/db/mysql"
	"github.com/sledge-bench/sledge/internal/db/postgres"
	"github.com/sledge-bench/sledge/internal/db/sqlite"
	"github.com/sledge-bench/sledge/internal/testdb"
	"github.com/sledge-bench/sledge/internal/workload"
)

// TestMain runs the package's tests with testdb's private servers (started
// on first use, stopped afterwards).
func TestMain(m *testing.M) { testdb.Main(m) }

type engine struct {
	name   string
	drv    db.Driver
	target func(t *testing.T) db.Target
}

func serverTarget(url func(testing.TB) string) func(t *testing.T) db.Target {
	return func(t *testing.T) db.Target {
		tg, err := db.ParseTarget(url(t))
		if err != nil {
			t.Fatal(err)
		}
		return tg
	}
}

var engines = []engine{
	{"postgres", postgres.Driver{}, serverTarget(testdb.Postgres)},
	{"mariadb", mysql.Driver{}, serverTarget(testdb.MariaDB)},
	{"sqlite", sqlite.Driver{}, func(t *testing.T) db.Target {
		return db.Target{Kind: db.SQLite, DSN: filepath.Join(t.TempDir(), "chbench.sqlite")}
	}},
}

func connect(t *testing.T, drv db.Driver, tg db.Target) db.Conn {
	t.Helper()
	c, err := drv.Connect(context.Background(), tg, db.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close(context.Background()) })
	return c
}

// TestEndToEnd builds the validation build (1 warehouse) once per database
// and, on it: checks it, runs the 22 queries against the stored answers,
// refuses a second build without force, and drops everything.
func TestEndToEnd(t *testing.T) {
	t.Parallel()
	for _, e := range engines {
		t.Run(e.name, func(t *testing.T) {
			t.Parallel()
			ctx := t.Context()
			tg := e.target(t)
			rep, err := Build(ctx, e.drv, tg, ValidationBuild(2))
			if err != nil {
				t.Fatal(err)
			}
			for tb, want := range map[string]int64{"supplier": 10000, "nation": 62, "region": 5, "stock": 100000} {
				if rep.Tables[tb] != want {
					t.Errorf("build report: %s has %d rows, want %d", tb, rep.Tables[tb], want)
				}
			}
			c := connect(t, e.drv, tg)
			w := Workload{}

			t.Run("check", func(t *testing.T) {
				crep, err := w.Check(ctx, workload.Env{Target: tg}, c)
				if err != nil {
					t.Fatal(err)
				}
				names := map[string]bool{}
				for _, cond := range crep.Conditions {
					names[cond.Name] = true
					if !cond.Passed || cond.Skipped {
						t.Errorf("condition %s (%s): passed %v skipped %v, %d violations %s",
							cond.Name, cond.Description, cond.Passed, cond.Skipped, cond.Violations, cond.Note)
					}
				}
				for _, n := range []string{"C1", "C12", "rows order_line", "rows supplier", "rows nation", "rows region",
					"supplier keys", "supplier nations", "nation regions", "customer nations", "supplier distinct keys"} {
					if !names[n] {
						t.Errorf("no condition %q in %v", n, names)
					}
				}
			})

			t.Run("queries", func(t *testing.T) {
				for q := 1; q <= 22; q++ {
					start := time.Now()
					got, err := RunQuery(ctx, c, tg.Kind, q)
					t.Logf("Q%d: %d rows in %s", q, len(got), time.Since(start).Round(time.Millisecond))
					if err != nil {
						t.Errorf("Q%d: %v", q, err)
						continue
					}
					if err := CompareAnswer(q, got); err != nil {
						t.Errorf("Q%d: %v", q, err)
					}
				}
			})

			t.Run("a broken condition fails the check", func(t *testing.T) {
				// The last supplier in a nation that does not exist: the
				// condition counts it, then the row is put back. (Only the
				// added tables' conditions run: TPROC-C's are its own tests'.)
				var was int
				if err := c.QueryRow(ctx, "SELECT su_nationkey FROM supplier WHERE su_suppkey = 9999").Scan(&was); err != nil {
					t.Fatal(err)
				}
				if _, err := c.Exec(ctx, "UPDATE supplier SET su_nationkey = 1 WHERE su_suppkey = 9999"); err != nil {
					t.Fatal(err)
				}
				crep, err := addedConditions(ctx, c, tg.Kind)
				if err != nil {
					t.Fatal(err)
				}
				var saw bool
				for _, cond := range crep.Conditions {
					if cond.Name == "supplier nations" {
						saw = true
						if cond.Passed || cond.Violations != 1 {
							t.Errorf("supplier nations: passed %v with %d violations, want 1", cond.Passed, cond.Violations)
						}
					}
				}
				if !saw || crep.Failed() != 1 {
					t.Errorf("%d conditions failed, want 1 (supplier nations)", crep.Failed())
				}
				if _, err := c.Exec(ctx, fmt.Sprintf("UPDATE supplier SET su_nationkey = %d WHERE su_suppkey = 9999", was)); err != nil {
					t.Fatal(err)
				}
			})

			t.Run("a second build is refused without force", func(t *testing.T) {
				_, err := Build(ctx, e.drv, tg, ValidationBuild(1))
				if !errors.Is(err, workload.ErrSchemaExists) {
					t.Fatalf("second build: %v, want ErrSchemaExists", err)
				}
			})

			t.Run("drop", func(t *testing.T) {
				if ok, err := w.BuildRecorded(ctx, c, tg.Kind); err != nil || !ok {
					t.Fatalf("BuildRecorded before drop: %v, %v", ok, err)
				}
				if err := w.Drop(ctx, workload.Env{Target: tg}, c); err != nil {
					t.Fatal(err)
				}
				if ok, err := w.SchemaExists(ctx, c, tg.Kind); err != nil || ok {
					t.Errorf("SchemaExists after drop: %v, %v", ok, err)
				}
				if _, err := w.Check(ctx, workload.Env{Target: tg}, c); !errors.Is(err, workload.ErrNoSchema) {
					t.Errorf("check after drop: %v, want ErrNoSchema", err)
				}
			})
		})
	}
}

// TestWriteAnswers derives the stored answers from the validation build on
// PostgreSQL (TestEndToEnd then finds them equal on MariaDB and SQLite).
// It runs only when asked:
//
//	SLEDGE_WRITE_ANSWERS=1 go test -run TestWriteAnswers ./internal/workload/chbench/
func TestWriteAnswers(t *testing.T) {
	t.Parallel()
	if os.Getenv("SLEDGE_WRITE_ANSWERS") == "" {
		t.Skip("set SLEDGE_WRITE_ANSWERS=1 to rebuild answers/w1")
	}
	ctx := t.Context()
	e := engines[0]
	tg := e.target(t)
	if _, err := Build(ctx, e.drv, tg, ValidationBuild(2)); err != nil {
		t.Fatal(err)
	}
	c := connect(t, e.drv, tg)
	if err := os.MkdirAll("answers/w1", 0o755); err != nil {
		t.Fatal(err)
	}
	for q := 1; q <= 22; q++ {
		rows, err := RunQuery(ctx, c, tg.Kind, q)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("Q%d: %d rows", q, len(rows))
		if err := os.WriteFile(fmt.Sprintf("answers/w1/q%02d.txt", q), []byte(formatAnswer(rows)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestStoredAnswers keeps the answers meaningful: the queries the paper
// means to select rows from the fresh build do, in the paper's shape.
func TestStoredAnswers(t *testing.T) {
	t.Parallel()
	for q, want := range map[int]int{1: 15, 6: 1, 14: 1, 17: 1, 19: 1} {
		a, err := readAnswer(q)
		if err != nil {
			t.Fatal(err)
		}
		if a.count != want {
			t.Errorf("Q%d: %d rows stored, want %d", q, a.count, want)
		}
	}
	for _, q := range []int{2, 3, 4, 5, 7, 8, 9, 10, 12, 13, 15, 16, 18} {
		a, err := readAnswer(q)
		if err != nil {
			t.Fatal(err)
		}
		if a.count == 0 {
			t.Errorf("Q%d: the stored answer is empty: the query selects nothing from the validation build", q)
		}
	}
	// Q7 is trade between Germany (key 'G') and Cambodia ('C').
	q7, _ := readAnswer(7)
	for _, r := range q7.rows {
		if f := strings.Split(r, "|"); len(f) != 4 || !(f[0] == "71.00" && f[1] == "C" || f[0] == "67.00" && f[1] == "G") {
			t.Errorf("Q7 row %q is not Germany-Cambodia trade", r)
		}
	}
}

func TestCompareAnswer(t *testing.T) {
	t.Parallel()
	long := make([]string, answerRowsKept+5)
	for i := range long {
		long[i] = fmt.Sprintf("%05d|x", i)
	}
	stored := formatAnswer(long)
	if !strings.HasPrefix(stored, fmt.Sprintf("# rows %d\n# sha256 ", len(long))) || strings.Count(stored, "\n") != answerRowsKept+2 {
		t.Fatalf("a long answer is stored as %d lines starting %.60q", strings.Count(stored, "\n"), stored)
	}
	changed := append([]string(nil), long...)
	changed[len(changed)-1] = "99999|y"
	short := []string{"1|a", "2|b"}
	cases := []struct {
		name    string
		stored  []string
		got     []string
		wantErr string
	}{
		{"short, equal", short, short, ""},
		{"short, a number within tolerance", []string{"1|12345.67"}, []string{"1|12345.70"}, ""},
		{"short, other text", short, []string{"1|a", "2|c"}, "row 2 column 2"},
		{"short, a row missing", short, short[:1], "1 rows, want 2"},
		{"long, equal", long, long, ""},
		{"long, a row beyond the kept ones differs", long, changed, "differ from the stored answer"},
		{"long, a row missing", long, long[1:], fmt.Sprintf("%d rows, want %d", len(long)-1, len(long))},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			a := parseAnswer(formatAnswer(c.stored))
			err := a.compare(c.got)
			switch {
			case c.wantErr == "" && err != nil:
				t.Errorf("compare: %v", err)
			case c.wantErr != "" && (err == nil || !strings.Contains(err.Error(), c.wantErr)):
				t.Errorf("compare: %v, want an error with %q", err, c.wantErr)
			}
		})
	}
}

// TestNations checks the fixed lists against the paper's shape and what
// the queries name.
func TestNations(t *testing.T) {
	t.Parallel()
	keys := nationKeys()
	if len(keys) != numNations || len(nationRows(1)) != numNations || len(regionRows(1)) != numRegions {
		t.Fatalf("%d nation keys, want %d", len(keys), numNations)
	}
	seen := map[string]bool{}
	byName := map[string]int{}
	for i, n := range nations {
		if n.name == "" || seen[n.name] || n.region < 0 || n.region >= numRegions {
			t.Errorf("nation %d (key %d): %+v is empty, repeated or in no region", i, keys[i], n)
		}
		seen[n.name] = true
		byName[n.name] = keys[i]
	}
	// Customers' states are upper-case letters: the nations the queries
	// name by customer must be among theirs.
	for name, key := range map[string]int{"Germany": 'G', "Cambodia": 'C'} {
		if byName[name] != key {
			t.Errorf("%s has key %d, want %d (%c)", name, byName[name], key, key)
		}
	}
	europe := 0
	for _, k := range keys {
		if k >= 'A' && k <= 'Z' && nations[indexOf(keys, k)].region == 4 {
			europe++
		}
	}
	if europe < 3 {
		t.Errorf("%d customer nations in Europe, want several (Q5, Q8)", europe)
	}
	sup := supplierRows(1)
	if len(sup) != numSuppliers || sup[0][0] != "0" || sup[numSuppliers-1][0] != "9999" {
		t.Fatalf("suppliers: %d rows, keys %s … %s", len(sup), sup[0][0], sup[len(sup)-1][0])
	}
	bad := 0
	for _, r := range sup {
		for _, v := range r {
			if strings.Count(v, "'") > 2 || strings.Contains(strings.Trim(v, "'"), "'") {
				t.Fatalf("supplier value %s holds a quote", v)
			}
		}
		if strings.Contains(r[6], "bad") {
			bad++
		}
	}
	if bad < numSuppliers/40 || bad > numSuppliers/10 {
		t.Errorf("%d suppliers have complaints, want about one in twenty", bad)
	}
	if fmt.Sprint(supplierRows(1)) != fmt.Sprint(sup) || fmt.Sprint(supplierRows(2)) == fmt.Sprint(sup) {
		t.Error("the suppliers are not a function of the seed")
	}
}

func indexOf(keys []int, k int) int {
	for i, x := range keys {
		if x == k {
			return i
		}
	}
	return -1
}
