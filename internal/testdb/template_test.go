package testdb

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/jackc/pgx/v5"
)

// TestPostgresFrom: copies of a template hold what the build made, apart
// from each other and from the template; the build runs once per key
// however many tests ask at once, and a failed build fails each of them.
func TestPostgresFrom(t *testing.T) {
	t.Parallel()
	var builds atomic.Int32
	build := func(ctx context.Context, url string) error {
		builds.Add(1)
		c, err := pgx.Connect(ctx, url)
		if err != nil {
			return err
		}
		defer c.Close(ctx)
		_, err = c.Exec(ctx, `CREATE TABLE t (x int PRIMARY KEY); INSERT INTO t SELECT generate_series(1, 1000);
			CREATE FUNCTION twice(x int) RETURNS int LANGUAGE sql AS 'SELECT 2 * x'`)
		return err
	}
	key := "postgres from " + t.Name()
	urls := make([]string, 4)
	var wg sync.WaitGroup
	t.Run("group", func(t *testing.T) {
		for i := range urls {
			wg.Add(1)
			t.Run("copy", func(t *testing.T) {
				t.Parallel()
				defer wg.Done()
				urls[i] = PostgresFrom(t, key, build)
				c := connect(t, urls[i])
				var n, two int
				if err := c.QueryRow(context.Background(), "SELECT count(*), twice(1) FROM t").Scan(&n, &two); err != nil || n != 1000 || two != 2 {
					t.Errorf("copy %d: %d rows, twice(1) = %d, %v; want the template's 1000 rows and its function", i, n, two, err)
				}
				// Each copy is the test's own.
				if _, err := c.Exec(context.Background(), "DELETE FROM t WHERE x > $1", 10*(i+1)); err != nil {
					t.Fatal(err)
				}
				if err := c.QueryRow(context.Background(), "SELECT count(*) FROM t").Scan(&n); err != nil || n != 10*(i+1) {
					t.Errorf("copy %d after its delete: %d rows, %v", i, n, err)
				}
			})
		}
	})
	wg.Wait()
	if n := builds.Load(); n != 1 {
		t.Errorf("the template was built %d times for %d copies, want once", n, len(urls))
	}
	seen := map[string]bool{}
	for _, u := range urls {
		if seen[u] {
			t.Errorf("%s handed out twice", u)
		}
		seen[u] = true
	}
	// Another test's copy is whole again: the deletes touched copies only.
	var n int
	if err := connect(t, PostgresFrom(t, key, build)).QueryRow(context.Background(), "SELECT count(*) FROM t").Scan(&n); err != nil || n != 1000 {
		t.Errorf("a later copy holds %d rows (%v), want 1000", n, err)
	}
	// A failed build fails every test that asks for its key, and is not
	// tried again.
	var tries atomic.Int32
	for range 2 {
		_, err := templateFor("postgres", "failing "+t.Name(), func(string) error {
			tries.Add(1)
			return os.ErrPermission
		})
		if err == nil || !strings.Contains(err.Error(), "permission denied") {
			t.Errorf("a failed template build: %v", err)
		}
	}
	if tries.Load() != 1 {
		t.Errorf("a failed template build was tried %d times", tries.Load())
	}
}

// TestMariaDBFrom: a copy holds the template's tables (keys, rows) and
// stored routines, callable in the copy.
func TestMariaDBFrom(t *testing.T) {
	t.Parallel()
	build := func(ctx context.Context, url string) error {
		db, err := openMySQL(url)
		if err != nil {
			return err
		}
		defer db.Close()
		for _, q := range []string{
			"CREATE TABLE t (x INT PRIMARY KEY, y VARCHAR(10), KEY (y)) ENGINE=InnoDB",
			"INSERT INTO t VALUES (1, 'a'), (2, 'b'), (3, 'c')",
			"CREATE PROCEDURE bump(p INT) BEGIN UPDATE t SET x = x + 100 WHERE x = p; END",
			"CREATE FUNCTION twice(x INT) RETURNS INT DETERMINISTIC RETURN 2 * x",
		} {
			if _, err := db.ExecContext(ctx, q); err != nil {
				return err
			}
		}
		return nil
	}
	url := MariaDBFrom(t, "mariadb from", build)
	db := openMariaDB(t, url)
	if _, err := db.Exec("CALL bump(2)"); err != nil {
		t.Fatalf("the copied procedure: %v", err)
	}
	var sum, two int
	if err := db.QueryRow("SELECT SUM(x), twice(1) FROM t").Scan(&sum, &two); err != nil || sum != 1+102+3 || two != 2 {
		t.Errorf("sum %d, twice(1) %d, %v", sum, two, err)
	}
	var create string
	var name string
	if err := db.QueryRow("SHOW CREATE TABLE t").Scan(&name, &create); err != nil || !strings.Contains(create, "KEY `y`") {
		t.Errorf("the copy's table: %s, %v", create, err)
	}
	var n int
	if err := openMariaDB(t, MariaDBFrom(t, "mariadb from", build)).QueryRow("SELECT SUM(x) FROM t").Scan(&n); err != nil || n != 6 {
		t.Errorf("a second copy: sum %d, %v (want the template's 6)", n, err)
	}
}

// TestSQLiteFrom: a copy is a file of the test's own, under the name asked.
func TestSQLiteFrom(t *testing.T) {
	t.Parallel()
	var builds atomic.Int32
	build := func(_ context.Context, url string) error {
		builds.Add(1)
		return os.WriteFile(strings.TrimPrefix(url, "sqlite:"), []byte("data"), 0o644)
	}
	a := SQLiteFrom(t, "sqlite from", "a.db", build)
	b := SQLiteFrom(t, "sqlite from", "", build)
	if filepath.Base(a) != "a.db" || filepath.Base(b) != "tpcc.db" || a == b {
		t.Errorf("copies %s and %s", a, b)
	}
	for _, u := range []string{a, b} {
		if got, err := os.ReadFile(strings.TrimPrefix(u, "sqlite:")); err != nil || string(got) != "data" {
			t.Errorf("%s: %q, %v", u, got, err)
		}
	}
	if builds.Load() != 1 {
		t.Errorf("built %d times", builds.Load())
	}
}
