package tproch

import (
	"context"
	"fmt"
	"io"
	"sync/atomic"
	"testing"
	"time"

	gomysql "github.com/go-sql-driver/mysql"

	"github.com/sledge-bench/sledge/internal/db"
	"github.com/sledge-bench/sledge/internal/db/mysql"
)

func TestLoadRetry(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name        string
		cls         db.ErrorClass
		lockTimeout bool
		attempt     int
		cancelled   bool
		again       bool
	}{
		{"deadlock", db.ClassDeadlock, false, 1, false, true},
		{"serialization", db.ClassSerialization, false, 2, false, true},
		{"lock wait timeout", db.ClassTimeout, true, 1, false, true},
		{"statement timeout", db.ClassTimeout, false, 1, false, false},
		{"constraint", db.ClassConstraint, false, 1, false, false},
		{"connection lost", db.ClassConnection, false, 1, false, false},
		{"other", db.ClassOther, false, 1, false, false},
		{"the build cancelled", db.ClassDeadlock, false, 1, true, false},
		{"last attempt", db.ClassDeadlock, false, maxLoadAttempts, false, false},
		{"one before the last", db.ClassDeadlock, false, maxLoadAttempts - 1, false, true},
	}
	for _, c := range cases {
		wait, again := loadRetry(c.cls, c.lockTimeout, c.attempt, c.cancelled)
		if again != c.again {
			t.Errorf("%s: again %v, want %v", c.name, again, c.again)
		}
		if !again && wait != 0 {
			t.Errorf("%s: no retry but a wait of %s", c.name, wait)
		}
	}
	// The wait grows with the attempts, jittered within half of its base,
	// and is bounded.
	prev := time.Duration(0)
	for a := 1; a < maxLoadAttempts; a++ {
		base := min(100*time.Millisecond<<(a-1), 5*time.Second)
		wait, _ := loadRetry(db.ClassDeadlock, false, a, false)
		if wait < base || wait >= base+base/2 || wait < prev {
			t.Errorf("attempt %d: wait %s, want in [%s, %s) and not below %s", a, wait, base, base+base/2, prev)
		}
		prev = base
	}
}

// flakyCopier is a loading session whose first loads fail with the given
// server errors after reading their whole input, as a LOAD DATA that the
// server rolls back at its end does.
type flakyCopier struct {
	db.Conn
	fail  []error
	calls int
	rows  int64
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
	return f.rows, nil
}

// TestLoadUnitRetriesTransientConflicts: a table part whose LOAD DATA hit a
// deadlock or a lock wait timeout is loaded again from its first row, the
// rows of the failed attempt are not counted twice, and the retry is
// counted; any other error fails the part at once.
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
	}{
		{"clean", nil, true, 1, 0},
		{"deadlock", []error{mk(1213, "40001")}, true, 2, 1},
		{"lock wait timeout, then deadlock", []error{mk(1205, "HY000"), mk(1213, "40001")}, true, 3, 2},
		{"duplicate key", []error{mk(1062, "23000")}, false, 1, 0},
		{"statement timeout", []error{mk(1969, "70100")}, false, 1, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			b := &builder{drv: mysql.Driver{}, kind: db.MySQL, g: g}
			conn := &flakyCopier{fail: c.fail}
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
