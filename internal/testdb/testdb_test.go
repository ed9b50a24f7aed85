package testdb

import (
	"context"
	"net/url"
	"strings"
	"testing"

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
	long := dbName("TestSomething/with_a_very_long_subtest_name_that_goes_on_and_on_and_on#01")
	if len(long) > 63 {
		t.Errorf("%q is longer than 63 bytes", long)
	}
	if a, b := dbName("TestX"), dbName("TestX"); a == b || strings.Trim(a, "abcdefghijklmnopqrstuvwxyz0123456789_") != "" {
		t.Errorf("dbName: %q, %q: want distinct names of [a-z0-9_]", a, b)
	}
}
