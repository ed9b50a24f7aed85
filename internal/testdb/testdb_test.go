package testdb

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"strings"
	"testing"

	_ "github.com/go-sql-driver/mysql" // registers "mysql" with database/sql
	"github.com/jackc/pgx/v5"
)

func TestMain(m *testing.M) { Main(m) }

func connect(t *testing.T, dsn string) *pgx.Conn {
	t.Helper()
	conn, err := pgx.Connect(context.Background(), dsn)
	if err != nil {
		t.Fatalf("connect to %s: %v", dsn, err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	return conn
}

func dbOf(t *testing.T, dsn string) string {
	t.Helper()
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimPrefix(u.Path, "/")
}

func TestDatabasesAreFreshAndSeparate(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	a, b := Postgres(t), Postgres(t)
	if a == b {
		t.Fatalf("two calls returned the same database %s", a)
	}
	ca, cb := connect(t, a), connect(t, b)
	for _, c := range []*pgx.Conn{ca, cb} {
		var n int
		if err := c.QueryRow(ctx, "SELECT count(*) FROM pg_tables WHERE schemaname = 'public'").Scan(&n); err != nil || n != 0 {
			t.Fatalf("fresh database has %d tables (%v)", n, err)
		}
	}
	if _, err := ca.Exec(ctx, "CREATE TABLE only_in_a (x int)"); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := cb.QueryRow(ctx, "SELECT count(*) FROM pg_tables WHERE tablename = 'only_in_a'").Scan(&n); err != nil || n != 0 {
		t.Fatalf("a table created in one database shows in the other (%d, %v)", n, err)
	}
}

func TestDatabaseDroppedAfterTest(t *testing.T) {
	t.Parallel()
	var name string
	t.Run("user", func(t *testing.T) {
		dsn := Postgres(t)
		name = dbOf(t, dsn)
		connect(t, dsn) // still open when the database is dropped
	})
	admin := connect(t, PostgresAdminURL(t))
	var exists bool
	if err := admin.QueryRow(context.Background(), "SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)", name).Scan(&exists); err != nil {
		t.Fatal(err)
	}
	if exists {
		t.Errorf("database %s survived its test", name)
	}
}

func TestParallelTests(t *testing.T) {
	seen := make(chan string, 8)
	t.Run("group", func(t *testing.T) {
		for range cap(seen) {
			t.Run("p", func(t *testing.T) {
				t.Parallel()
				dsn := Postgres(t)
				var one int
				if err := connect(t, dsn).QueryRow(context.Background(), "SELECT 1").Scan(&one); err != nil {
					t.Fatal(err)
				}
				seen <- dbOf(t, dsn)
			})
		}
	})
	close(seen)
	names := map[string]bool{}
	for n := range seen {
		if names[n] {
			t.Errorf("database %s handed out twice", n)
		}
		names[n] = true
	}
}

func TestDBName(t *testing.T) {
	t.Parallel()
	long := dbName("TestSomething/with_a_very_long_subtest_name_that_goes_on_and_on_and_on#01")
	if len(long) > 63 {
		t.Errorf("%q is longer than 63 bytes", long)
	}
	if a, b := dbName("TestX"), dbName("TestX"); a == b || strings.Trim(a, "abcdefghijklmnopqrstuvwxyz0123456789_") != "" {
		t.Errorf("dbName: %q, %q: want distinct names of [a-z0-9_]", a, b)
	}
}

// openMariaDB connects to a testdb.MariaDB URL, turned into the driver's DSN
// form (root@tcp(127.0.0.1:PORT)/db) here rather than with the project's
// driver package, so that this test checks testdb alone.
func openMariaDB(t *testing.T, rawURL string) *sql.DB {
	t.Helper()
	u, err := url.Parse(rawURL)
	if err != nil {
		t.Fatal(err)
	}
	if u.Scheme != "mysql" || u.User == nil || u.Port() == "" {
		t.Fatalf("%s: want mysql://USER@HOST:PORT/DB", rawURL)
	}
	dsn := fmt.Sprintf("%s@tcp(%s)/%s", u.User.Username(), u.Host, strings.TrimPrefix(u.Path, "/"))
	db, err := sql.Open("mysql", dsn)
	if err != nil {
		t.Fatalf("open %s: %v", dsn, err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func TestMariaDB(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dsn := MariaDB(t)
	db := openMariaDB(t, dsn)
	var version string
	if err := db.QueryRowContext(ctx, "SELECT VERSION()").Scan(&version); err != nil {
		t.Fatalf("SELECT VERSION() on %s: %v", dsn, err)
	}
	if !strings.Contains(version, "MariaDB") {
		t.Errorf("VERSION() = %q, want a MariaDB server", version)
	}
	t.Logf("%s: %s", dsn, version)
	var current string
	var tables int
	if err := db.QueryRowContext(ctx, "SELECT DATABASE(), (SELECT COUNT(*) FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE())").Scan(&current, &tables); err != nil {
		t.Fatal(err)
	}
	if current != dbOf(t, dsn) || tables != 0 {
		t.Errorf("connected to database %q holding %d tables; want the fresh, empty %s", current, tables, dbOf(t, dsn))
	}
}

func TestMariaDBDroppedAfterTest(t *testing.T) {
	t.Parallel()
	var name string
	t.Run("user", func(t *testing.T) {
		dsn := MariaDB(t)
		name = dbOf(t, dsn)
		db := openMariaDB(t, dsn)
		// A session still open, in a transaction, when the database is dropped.
		tx, err := db.Begin()
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tx.Exec("CREATE TABLE t (x int)"); err != nil {
			t.Fatal(err)
		}
		if _, err := tx.Exec("INSERT INTO t VALUES (1)"); err != nil {
			t.Fatal(err)
		}
	})
	var n int
	if err := openMariaDB(t, MariaDB(t)).QueryRow("SELECT COUNT(*) FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = ?", name).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 0 {
		t.Errorf("database %s survived its test", name)
	}
}
