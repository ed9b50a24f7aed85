package tproch

import (
	"context"
	"fmt"
	"io"
	"sync/atomic"
	"testing"

	gomysql "github.com/go-sql-driver/mysql"

	"github.com/sledge-bench/sledge/internal/db"
	"github.com/sledge-bench/sledge/internal/db/mysql"
)

// flakyCopier is a loading session whose first loads fail with the given
// server errors after reading their whole input, as a LOAD DATA that the
// server rolls back at its end does.
type flakyCopier struct {
	db.Conn
	fail  []error
	calls int
	rows  int64
	skip  int64 // rows a successful load leaves out, as LOAD DATA LOCAL does those whose key repeats
}

func (f *flakyCopier) CopyText(_ context.Context, _ string, r io.Reader) (int64, error) {
	f.calls++
	b, err := io.ReadAll(r)
	if err != nil {
		return 0, err
	}
	if len(f.fail) > 0 {
		err, f.fail = f.fail[0], f.fail[1:]
		return 0, err
	}
	for _, c := range b {
		if c == '\n' {
			f.rows++
		}
	}
	return f.rows - f.skip, nil
}

// TestLoadUnitRetriesTransientConflicts: a table part whose LOAD DATA hit a
// deadlock or a lock wait timeout is loaded again from its first row, the
// rows of the failed attempt are not counted twice, and the retry is
// counted; any other error fails the part at once, and so does a load
// that stored fewer rows than it was sent.
func TestLoadUnitRetriesTransientConflicts(t *testing.T) {
	t.Parallel()
	mk := func(n uint16, state string) error {
		e := &gomysql.MySQLError{Number: n, Message: "x"}
		copy(e.SQLState[:], state)
		return fmt.Errorf("LOAD DATA into nation: %w", e)
	}
	g, err := NewGenerator(0.01)
	if err != nil {
		t.Fatal(err)
	}
	want := g.Rows(TableNation)
	cases := []struct {
		name    string
		fail    []error
		ok      bool
		calls   int
		retries int64
		skip    int64
	}{
		{"clean", nil, true, 1, 0, 0},
		{"deadlock", []error{mk(1213, "40001")}, true, 2, 1, 0},
		{"lock wait timeout, then deadlock", []error{mk(1205, "HY000"), mk(1213, "40001")}, true, 3, 2, 0},
		{"duplicate key", []error{mk(1062, "23000")}, false, 1, 0, 0},
		{"statement timeout", []error{mk(1969, "70100")}, false, 1, 0, 0},
		{"rows skipped", nil, false, 1, 0, 3},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			b := &builder{drv: mysql.Driver{}, kind: db.MySQL, g: g}
			conn := &flakyCopier{fail: c.fail, skip: c.skip}
			var count atomic.Int64
			n, err := b.loadUnit(context.Background(), conn, unit{TableNation, 0, 1}, &count)
			if (err == nil) != c.ok || conn.calls != c.calls || b.retries.Load() != c.retries {
				t.Fatalf("err %v, %d loads, %d retries; want ok %v, %d loads, %d retries", err, conn.calls, b.retries.Load(), c.ok, c.calls, c.retries)
			}
			if c.ok && (n != want || count.Load() != want) {
				t.Errorf("loaded %d, counted %d rows; want %d", n, count.Load(), want)
			}
		})
	}
}
