package duckdb

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sledge-bench/sledge/internal/db"
)

func TestSessionsShareOneInstance(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	tg := db.Target{Kind: db.DuckDB, DSN: filepath.Join(t.TempDir(), "sub", "t.duckdb")}
	d := Driver{}
	a, err := d.Connect(ctx, tg, db.Options{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := d.Connect(ctx, tg, db.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if v, err := d.Version(ctx, a); err != nil || !strings.HasPrefix(v, "DuckDB v1.") {
		t.Errorf("version %q %v", v, err)
	}
	if _, err := a.Exec(ctx, "CREATE TABLE t (k INTEGER PRIMARY KEY, name VARCHAR, price DECIMAL(15,2), day DATE)"); err != nil {
		t.Fatal(err)
	}
	app, err := a.(db.BulkAppender).Appender(ctx, "t")
	if err != nil {
		t.Fatal(err)
	}
	day := time.Date(1995, 6, 17, 0, 0, 0, 0, time.UTC)
	for i := int64(1); i <= 1000; i++ {
		// Decimals are appended as their unscaled integer (hundredths).
		if err := app.AppendRow(i, []byte("name"), i*100+5, day); err != nil {
			t.Fatal(err)
		}
	}
	if err := app.Close(); err != nil {
		t.Fatal(err)
	}
	var n int64
	var sum, first string
	if err := b.QueryRow(ctx, "SELECT count(*), sum(price)::VARCHAR, min(day)::VARCHAR FROM t").Scan(&n, &sum, &first); err != nil {
		t.Fatal(err)
	}
	if n != 1000 || sum != "500550.00" || first != "1995-06-17" {
		t.Errorf("read back %d rows, sum %s, day %s", n, sum, first)
	}
	_, err = b.Exec(ctx, "INSERT INTO t VALUES (1, 'dup', 1, DATE '2000-01-01')")
	if d.Classify(err) != db.ClassConstraint {
		t.Errorf("duplicate key: %v classified %s", err, d.Classify(err))
	}
	if _, err := d.Connect(ctx, tg, db.Options{Isolation: db.ReadCommitted}); err == nil {
		t.Error("read committed accepted")
	}
	for _, c := range []db.Conn{a, b} {
		if err := c.Close(ctx); err != nil {
			t.Fatal(err)
		}
	}
	// All sessions closed: the file is released and opens again.
	c, err := d.Connect(ctx, tg, db.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.QueryRow(ctx, "SELECT count(*) FROM t").Scan(&n); err != nil || n != 1000 {
		t.Errorf("after reopen: %d rows, %v", n, err)
	}
	c.Close(ctx)
}
