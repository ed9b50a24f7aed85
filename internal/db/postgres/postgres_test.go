package postgres

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/sledge-bench/sledge/internal/db"
	"github.com/sledge-bench/sledge/internal/testdb"
)

func TestMain(m *testing.M) { testdb.Main(m) }

func connect(t *testing.T) *Conn {
	t.Helper()
	target, err := db.ParseTarget(testdb.Postgres(t))
	if err != nil {
		t.Fatal(err)
	}
	c, err := Driver{}.Connect(context.Background(), target, db.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close(context.Background()) })
	return c.(*Conn)
}

// Exec's own bind path encodes what pgx would: NULLs, text, numbers,
// numeric, arrays, a type that changes between calls, and falls back to pgx
// (with its error) for what pgtype cannot plan.
func TestExecBindsArguments(t *testing.T) {
	ctx := context.Background()
	c := connect(t)
	if _, err := c.Exec(ctx, `CREATE TABLE t (i int, b bigint, s varchar(20), n numeric(8,2), a int[], d date)`); err != nil {
		t.Fatal(err)
	}
	ins := `INSERT INTO t VALUES ($1, $2, $3, $4, $5, $6)`
	for _, args := range [][]any{
		{1, int64(1) << 40, "one", 12.5, []int32{1, 2, 3}, nil},
		{int64(2), 7, "two two", float32(0.25), []int32{}, time.Date(2026, 11, 23, 0, 0, 0, 0, time.UTC)},
		{nil, nil, nil, nil, nil, nil},
		{int32(3), int16(4), "ünï'cødé", "3.10", []int32{-5}, "2026-01-02"},
	} {
		n, err := c.Exec(ctx, ins, args...)
		if err != nil || n != 1 {
			t.Fatalf("insert %v: %d, %v", args, n, err)
		}
	}
	var got string
	err := c.QueryRow(ctx, `SELECT string_agg(concat_ws('|', coalesce(i::text,'-'), coalesce(b::text,'-'), coalesce(s,'-'),
		coalesce(n::text,'-'), coalesce(a::text,'-'), coalesce(d::text,'-')), ';' ORDER BY i NULLS LAST) FROM t`).Scan(&got)
	if err != nil {
		t.Fatal(err)
	}
	want := "1|1099511627776|one|12.50|{1,2,3}|-;2|7|two two|0.25|{}|2026-11-23;3|4|ünï'cødé|3.10|{-5}|2026-01-02;-|-|-|-|-|-"
	if got != want {
		t.Errorf("stored\n%s\nwant\n%s", got, want)
	}
	if n, err := c.Exec(ctx, `UPDATE t SET s = $1 WHERE i < $2`, "x", 3); err != nil || n != 2 {
		t.Errorf("update: %d rows, %v", n, err)
	}
	// An integer out of the parameter's range is refused, not wrapped.
	if _, err := c.Exec(ctx, `UPDATE t SET i = $1 WHERE false`, int64(1)<<40); err == nil {
		t.Error("2^40 was sent as an int4")
	}
	if _, err := c.Exec(ctx, `UPDATE t SET i = $1 WHERE i = $2`, int64(-2147483648), int16(-1)); err != nil {
		t.Errorf("int4 minimum: %v", err)
	}
	// Wrong argument count, and a value pgtype cannot encode: errors, and
	// the session is still usable.
	if _, err := c.Exec(ctx, ins, 1, 2); err == nil || !strings.Contains(err.Error(), "6 parameters, 2 arguments") {
		t.Errorf("argument count: %v", err)
	}
	if _, err := c.Exec(ctx, ins, struct{ x int }{1}, 1, "a", 1, nil, nil); err == nil {
		t.Error("a struct was encoded as an int")
	}
	if _, err := c.Exec(ctx, `UPDATE t SET s = $1 WHERE i = $2`, "y", 1); err != nil {
		t.Errorf("after errors: %v", err)
	}
	// A server error (here a violated check) comes back as the PgError.
	if _, err := c.Exec(ctx, `INSERT INTO t (i) VALUES ($1::int / 0)`, 1); db.SQLState(err) != "22012" {
		t.Errorf("division by zero: %v (state %q)", err, db.SQLState(err))
	}
}

// Cancelling the context a statement runs under interrupts it; a context
// cancelled after its statement finished leaves the session alone.
func TestExecCancellation(t *testing.T) {
	c := connect(t)
	ctx1, cancel1 := context.WithCancel(context.Background())
	if _, err := c.Exec(ctx1, `SELECT pg_sleep($1)`, 0.01); err != nil {
		t.Fatal(err)
	}
	cancel1()
	if _, err := c.Exec(ctx1, `SELECT pg_sleep($1)`, 0.01); !errors.Is(err, context.Canceled) {
		t.Errorf("statement under a cancelled context: %v", err)
	}
	ctx2, cancel2 := context.WithCancel(context.Background())
	defer cancel2()
	if _, err := c.Exec(ctx2, `SELECT pg_sleep($1)`, 0.01); err != nil {
		t.Fatalf("after an earlier context was cancelled: %v", err)
	}
	time.AfterFunc(200*time.Millisecond, cancel2)
	start := time.Now()
	_, err := c.Exec(ctx2, `SELECT pg_sleep($1)`, 30)
	if d := time.Since(start); err == nil || d > 10*time.Second || !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled after %v: %v", d, err)
	}
}
