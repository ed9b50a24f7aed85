package postgres

import (
	"context"
	"errors"
	"fmt"
	"io"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/sledge-bench/sledge/internal/db"
)

// TestClassify covers every class a benchmark's PostgreSQL errors fall in,
// and which of them --max-retries retries.
func TestClassify(t *testing.T) {
	t.Parallel()
	pg := func(code string) error {
		return fmt.Errorf("payment: %w", &pgconn.PgError{Severity: "ERROR", Code: code, Message: "x"})
	}
	cases := []struct {
		err   error
		want  db.ErrorClass
		retry bool
	}{
		{pg("40001"), db.ClassSerialization, true},
		{pg("40P01"), db.ClassDeadlock, true},
		{pg("55P03"), db.ClassTimeout, false}, // lock_timeout, NOWAIT
		{pg("57014"), db.ClassTimeout, false}, // statement_timeout, cancel
		{pg("25P03"), db.ClassConnection, false},
		{pg("57P01"), db.ClassConnection, false},
		{pg("08006"), db.ClassConnection, false},
		{pg("23505"), db.ClassConstraint, false},
		{pg("23503"), db.ClassConstraint, false},
		{pg("SLIIV"), db.ClassOther, false}, // the designed rollback, told apart by the workload
		{pg("42P01"), db.ClassOther, false},
		{fmt.Errorf("read: %w", io.ErrUnexpectedEOF), db.ClassConnection, false},
		{fmt.Errorf("x: %w", context.DeadlineExceeded), db.ClassTimeout, false},
		{errors.New("x"), db.ClassOther, false},
	}
	for _, c := range cases {
		got := (Driver{}).Classify(c.err)
		if got != c.want || got.Retryable() != c.retry {
			t.Errorf("Classify(%v) = %s (retried %v), want %s (retried %v)", c.err, got, got.Retryable(), c.want, c.retry)
		}
	}
}
