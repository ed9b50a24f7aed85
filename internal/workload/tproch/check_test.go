package tproch

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sledge-bench/sledge/internal/db"
	"github.com/sledge-bench/sledge/internal/db/duckdb"
	"github.com/sledge-bench/sledge/internal/db/mysql"
	"github.com/sledge-bench/sledge/internal/db/postgres"
	"github.com/sledge-bench/sledge/internal/testdb"
	"github.com/sledge-bench/sledge/internal/workload"
)

// checkSF is the scale of the check's tests: they need a built schema, not
// much data.
const checkSF = testSF

// buildFor fills an empty database at a testdb URL with TPROC-H at checkSF
// (the template of PostgresFrom and MariaDBFrom).
func buildFor(drv db.Driver) testdb.BuildFunc {
	return func(ctx context.Context, url string) error {
		tg, err := db.ParseTarget(url)
		if err != nil {
			return err
		}
		_, err = Build(ctx, drv, tg, BuildOptions{SF: checkSF, Workers: 2})
		return err
	}
}

// duckDBFrom is a copy of one DuckDB build at checkSF per test binary.
// testdb's SQLite templates are files copied whole, which serves DuckDB as
// well: its build ends with a checkpoint, so the file holds everything.
func duckDBFrom(t *testing.T) db.Target {
	t.Helper()
	path := filepath.Join(t.TempDir(), "h.duckdb")
	testdb.CopySQLite(t, "tproch duckdb sf0.01", path, func(ctx context.Context, url string) error {
		_, err := Build(ctx, duckdb.Driver{}, db.Target{Kind: db.DuckDB, DSN: strings.TrimPrefix(url, "sqlite:")},
			BuildOptions{SF: checkSF, Workers: 2})
		return err
	})
	return db.Target{Kind: db.DuckDB, DSN: path}
}

// TestCheckEngines checks a clean build on every engine TPROC-H builds on,
// then breaks one thing at a time: exactly the conditions that depend on
// it fail (or are skipped, where what they look at is gone).
func TestCheckEngines(t *testing.T) {
	if testing.Short() {
		t.Skip("builds TPROC-H on three engines")
	}
	t.Parallel()
	type engineCase struct {
		drv db.Driver
		tg  func(t *testing.T) db.Target
	}
	engines := map[string]engineCase{
		"duckdb": {duckdb.Driver{}, duckDBFrom},
		"postgres": {postgres.Driver{}, func(t *testing.T) db.Target {
			return parse(t, testdb.PostgresFrom(t, "tproch sf0.01", buildFor(postgres.Driver{})))
		}},
		"mariadb": {mysql.Driver{}, func(t *testing.T) db.Target {
			return parse(t, testdb.MariaDBFrom(t, "tproch sf0.01", buildFor(mysql.Driver{})))
		}},
	}
	skippedEverywhere := map[string]string{"answers": "scale factor 1"}
	for _, tc := range []struct {
		name    string
		engines []string
		// breakIt is run on the built schema (nothing when empty).
		breakIt     map[string]string
		wantFailed  []string
		wantSkipped []string // beyond the answers (and DuckDB's keys)
	}{
		{name: "clean build", engines: []string{"duckdb", "postgres", "mariadb"}},
		{name: "rows deleted", engines: []string{"duckdb", "postgres", "mariadb"},
			breakIt: map[string]string{
				"duckdb":   "DELETE FROM customer WHERE c_custkey <= 3",
				"postgres": "DELETE FROM customer WHERE c_custkey <= 3",
				"mariadb":  "DELETE FROM customer WHERE c_custkey <= 3",
			},
			wantFailed: []string{"rows customer"}},
		{name: "index dropped", engines: []string{"postgres", "mariadb"},
			breakIt: map[string]string{
				"postgres": "DROP INDEX orders_orderdate",
				"mariadb":  "ALTER TABLE orders DROP INDEX orders_orderdate",
			},
			wantFailed: []string{"index orders_orderdate"}},
		{name: "primary key dropped", engines: []string{"postgres"},
			breakIt:    map[string]string{"postgres": "ALTER TABLE region DROP CONSTRAINT region_pkey"},
			wantFailed: []string{"key region"}},
		{name: "table dropped", engines: []string{"duckdb", "postgres", "mariadb"},
			breakIt: map[string]string{
				"duckdb":   "DROP TABLE region",
				"postgres": "DROP TABLE region CASCADE",
				"mariadb":  "DROP TABLE region",
			},
			wantFailed:  []string{"tables"},
			wantSkipped: []string{"rows region", "key region"}},
	} {
		for _, name := range tc.engines {
			e := engines[name]
			t.Run(name+"/"+tc.name, func(t *testing.T) {
				t.Parallel()
				ctx := context.Background()
				tg := e.tg(t)
				c, err := e.drv.Connect(ctx, tg, db.Options{})
				if err != nil {
					t.Fatal(err)
				}
				defer c.Close(ctx)
				if q := tc.breakIt[name]; q != "" {
					if _, err := c.Exec(ctx, q); err != nil {
						t.Fatalf("%s: %v", q, err)
					}
				}
				rep, err := Check(ctx, c, tg.Kind)
				if err != nil {
					t.Fatal(err)
				}
				var failed, skipped []string
				for _, cond := range rep.Conditions {
					switch {
					case cond.Skipped:
						skipped = append(skipped, cond.Name)
						if want, ok := skippedEverywhere[cond.Name]; ok && !strings.Contains(cond.Note, want) {
							t.Errorf("%s skipped: note %q, want it to say %q", cond.Name, cond.Note, want)
						}
					case !cond.Passed:
						failed = append(failed, cond.Name)
						if cond.Violations == 0 || cond.Note == "" {
							t.Errorf("%s failed without violations or a note: %+v", cond.Name, cond)
						}
					}
				}
				wantSkipped := append([]string{"answers"}, tc.wantSkipped...)
				if name == "duckdb" {
					wantSkipped = append(wantSkipped, "keys")
					wantSkipped = slices.DeleteFunc(wantSkipped, func(s string) bool { return strings.HasPrefix(s, "key ") })
				}
				slices.Sort(failed)
				slices.Sort(skipped)
				slices.Sort(wantSkipped)
				if !slices.Equal(failed, tc.wantFailed) || !slices.Equal(skipped, wantSkipped) || rep.Failed() != len(tc.wantFailed) {
					t.Errorf("failed %v, skipped %v; want failed %v, skipped %v\n%+v", failed, skipped, tc.wantFailed, wantSkipped, rep.Conditions)
				}
				// Every table is counted, and every key and index the build
				// creates has its condition.
				wantConds := 1 + 8 + 1 // tables, rows per table, answers
				if name == "duckdb" {
					wantConds++ // one skipped "keys"
				} else {
					idx, err := buildIndexes(map[db.Kind]string{db.Postgres: "postgres", db.MySQL: "mysql"}[tg.Kind])
					if err != nil {
						t.Fatal(err)
					}
					wantConds += len(idx)
				}
				if len(rep.Conditions) != wantConds {
					t.Errorf("%d conditions, want %d", len(rep.Conditions), wantConds)
				}
			})
		}
	}
}

// TestBuildIndexes reads the keys and indexes of every dialect's build: the
// eight primary keys and seven secondary indexes on PostgreSQL and
// MariaDB/MySQL, none on DuckDB. A statement the check does not understand
// fails here before any check meets it.
func TestBuildIndexes(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		dialect            string
		primary, secondary int
	}{{"postgres", 8, 7}, {"mysql", 8, 7}, {"duckdb", 0, 0}} {
		idx, err := buildIndexes(tc.dialect)
		if err != nil {
			t.Fatalf("%s: %v", tc.dialect, err)
		}
		var primary, secondary int
		for _, i := range idx {
			if _, ok := ParseTable(i.table); !ok || len(i.cols) == 0 || i.cols[0] == "" {
				t.Errorf("%s: %+v", tc.dialect, i)
			}
			if i.primary {
				primary++
			} else {
				secondary++
			}
		}
		if primary != tc.primary || secondary != tc.secondary {
			t.Errorf("%s: %d primary keys and %d indexes, want %d and %d", tc.dialect, primary, secondary, tc.primary, tc.secondary)
		}
	}
}

// TestCheckAnswersCompare runs the answer sample on data that is not SF 1:
// the comparison must find the answers wrong (Q1's counts are a hundred
// times smaller), which shows it compares rather than passes.
func TestCheckAnswersCompare(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	tg := duckDBFrom(t)
	c, err := duckdb.Driver{}.Connect(ctx, tg, db.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	cond, err := compareSample(ctx, c, "duckdb", workload.Condition{Name: "answers"})
	if err != nil {
		t.Fatal(err)
	}
	if cond.Passed || cond.Violations < 1 || cond.Violations > int64(len(answerSample)) || !strings.Contains(cond.Note, "Q1:") {
		t.Errorf("answers of SF %g compared with SF 1's: %+v", checkSF, cond)
	}
}

// TestCheckNoSchema: a database without TPROC-H is the workload's
// SchemaError, which each front end words in its own terms.
func TestCheckNoSchema(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	tg := db.Target{Kind: db.DuckDB, DSN: filepath.Join(t.TempDir(), "empty.duckdb")}
	c, err := duckdb.Driver{}.Connect(ctx, tg, db.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	_, err = Check(ctx, c, db.DuckDB)
	var se *workload.SchemaError
	if !errors.As(err, &se) || !errors.Is(err, workload.ErrNoSchema) {
		t.Errorf("Check of an empty database: %v", err)
	}
}
