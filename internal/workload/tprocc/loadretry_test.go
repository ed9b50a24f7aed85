package tprocc

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"testing"

	gomysql "github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/sledge-bench/sledge/internal/db"
	"github.com/sledge-bench/sledge/internal/db/mysql"
	"github.com/sledge-bench/sledge/internal/db/postgres"
)

// flakyCopier is a loading session whose first loads fail with the given
// server errors after reading their whole input, as a LOAD DATA or a COPY
// that the server rolls back at its end does. It keeps what each load
// sent.
type flakyCopier struct {
	fail   []error
	sent   [][]byte
	cancel context.CancelFunc // if set, called as the first load fails
}

func (f *flakyCopier) CopyText(_ context.Context, _ string, r io.Reader) (int64, error) {
	b, err := io.ReadAll(r)
	if err != nil {
		return 0, err
	}
	f.sent = append(f.sent, b)
	if len(f.fail) > 0 {
		err, f.fail = f.fail[0], f.fail[1:]
		if f.cancel != nil {
			f.cancel()
		}
		return 0, err
	}
	return int64(bytes.Count(b, []byte{'\n'})), nil
}

func mysqlErr(n uint16, state string) error {
	e := &gomysql.MySQLError{Number: n, Message: "x"}
	copy(e.SQLState[:], state)
	return fmt.Errorf("LOAD DATA into new_order: %w", e)
}

func pgErr(code string) error {
	return fmt.Errorf("COPY new_order: %w", &pgconn.PgError{Code: code, Message: "x"})
}

// TestCopyUnitRetriesTransientConflicts: a unit whose load hit a deadlock
// or a lock wait timeout is loaded again with the same rows, the rows of
// the failed attempt are not counted twice, and the retry is counted; any
// other error fails the unit at once.
func TestCopyUnitRetriesTransientConflicts(t *testing.T) {
	t.Parallel()
	g := NewGenerator(7, CLoadFor(7))
	u := unit{t: TableNewOrder, w: 2}
	want := g.Rows(u.t, u.w)
	cases := []struct {
		name    string
		drv     db.Driver
		fail    []error
		ok      bool
		calls   int
		retries int64
	}{
		{"clean", mysql.Driver{}, nil, true, 1, 0},
		{"MariaDB deadlock", mysql.Driver{}, []error{mysqlErr(1213, "40001")}, true, 2, 1},
		{"MariaDB lock wait timeout, then deadlock", mysql.Driver{},
			[]error{mysqlErr(1205, "HY000"), mysqlErr(1213, "40001")}, true, 3, 2},
		{"MariaDB conflict 1020", mysql.Driver{}, []error{mysqlErr(1020, "HY000")}, true, 2, 1},
		{"MariaDB duplicate key", mysql.Driver{}, []error{mysqlErr(1062, "23000")}, false, 1, 0},
		{"MariaDB statement timeout", mysql.Driver{}, []error{mysqlErr(1969, "70100")}, false, 1, 0},
		{"PostgreSQL deadlock", postgres.Driver{}, []error{pgErr("40P01")}, true, 2, 1},
		{"PostgreSQL lock timeout", postgres.Driver{}, []error{pgErr("55P03")}, true, 2, 1},
		{"PostgreSQL statement timeout", postgres.Driver{}, []error{pgErr("57014")}, false, 1, 0},
		{"PostgreSQL unique violation", postgres.Driver{}, []error{pgErr("23505")}, false, 1, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			conn := &flakyCopier{fail: c.fail}
			ctr := &loadCounters{}
			n, err := copyUnit(context.Background(), c.drv, conn, g, NewCopyEncoder("2026-01-02 03:04:05"), u, ctr)
			if (err == nil) != c.ok || len(conn.sent) != c.calls || ctr.retries.Load() != c.retries {
				t.Fatalf("err %v, %d loads, %d retries; want ok %v, %d loads, %d retries",
					err, len(conn.sent), ctr.retries.Load(), c.ok, c.calls, c.retries)
			}
			if !c.ok {
				if !errors.Is(err, c.fail[0]) {
					t.Errorf("err %v, want the load's %v", err, c.fail[0])
				}
				return
			}
			if n != want || ctr.rows[u.t].Load() != want || ctr.total.Load() != want {
				t.Errorf("loaded %d, counted %d rows of %s and %d in all; want %d",
					n, ctr.rows[u.t].Load(), u.t, ctr.total.Load(), want)
			}
			// A unit loaded again is the same rows: its source is
			// deterministic.
			for i, b := range conn.sent[1:] {
				if !bytes.Equal(b, conn.sent[0]) {
					t.Errorf("load %d sent %d bytes unlike the first load's %d", i+2, len(b), len(conn.sent[0]))
				}
			}
		})
	}
}

// TestCopyUnitCancelled: a load that failed as the build was cancelled is
// not retried, and the error says it was cancelled.
func TestCopyUnitCancelled(t *testing.T) {
	t.Parallel()
	g := NewGenerator(7, CLoadFor(7))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	conn := &flakyCopier{fail: []error{mysqlErr(1213, "40001")}, cancel: cancel}
	ctr := &loadCounters{}
	_, err := copyUnit(ctx, mysql.Driver{}, conn, g, NewCopyEncoder("2026-01-02 03:04:05"), unit{t: TableDistrict, w: 1}, ctr)
	if !errors.Is(err, context.Canceled) || len(conn.sent) != 1 || ctr.retries.Load() != 0 {
		t.Fatalf("err %v, %d loads, %d retries; want context.Canceled after 1 load, no retry", err, len(conn.sent), ctr.retries.Load())
	}
}
