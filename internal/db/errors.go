package db

import (
	"context"
	"errors"
	"strings"
)

// ErrorClass is the kind of a failed transaction, the unit in which errors are
// counted and reported.
type ErrorClass uint8

const (
	ClassNone ErrorClass = iota
	ClassSerialization
	ClassDeadlock
	ClassConstraint
	ClassConnection
	ClassTimeout
	ClassOther
	NumClasses // number of classes, for fixed-size counters
)

var classNames = [NumClasses]string{"none", "serialization", "deadlock", "constraint", "connection", "timeout", "other"}

func (c ErrorClass) String() string {
	if c < NumClasses {
		return classNames[c]
	}
	return "unknown"
}

// Retryable reports whether running the same transaction again may succeed
// (the pgbench rule: serialization failures — snapshot conflicts among them —
// and deadlocks). A timeout is not retried: the time is already spent, and a
// retry would hide a stall the run should report.
func (c ErrorClass) Retryable() bool { return c == ClassSerialization || c == ClassDeadlock }

// ClassifySQLState maps a five-character SQLSTATE to a class. Several
// databases (PostgreSQL, MySQL/MariaDB) report standard SQLSTATE values.
func ClassifySQLState(state string) ErrorClass {
	switch {
	case state == "40001":
		// serialization_failure (PostgreSQL SSI and REPEATABLE READ
		// update conflicts)
		return ClassSerialization
	case state == "40P01":
		return ClassDeadlock
	case strings.HasPrefix(state, "23"), state == "40002":
		// integrity constraint violations, also when deferred to COMMIT
		return ClassConstraint
	case strings.HasPrefix(state, "08"), strings.HasPrefix(state, "57P"), state == "53300",
		state == "25P03", state == "25P04":
		// connection exceptions; admin/crash shutdown, cannot connect now,
		// idle session timeout; too many connections; the idle-in-transaction
		// and transaction timeouts, which end the session (FATAL): it must
		// be re-opened, so they are connection losses, not statement timeouts
		return ClassConnection
	case state == "57014", state == "55P03":
		// query canceled (statement_timeout, a cancel request); lock not
		// available (lock_timeout, NOWAIT)
		return ClassTimeout
	}
	return ClassOther
}

// ClassifyCommon handles what every driver shares: context errors and
// network-level failures that never reached the database.
func ClassifyCommon(err error) (ErrorClass, bool) {
	switch {
	case err == nil:
		return ClassNone, true
	case errors.Is(err, context.DeadlineExceeded):
		return ClassTimeout, true
	case errors.Is(err, context.Canceled):
		return ClassOther, true
	}
	var netErr interface{ Timeout() bool }
	if errors.As(err, &netErr) {
		if netErr.Timeout() {
			return ClassTimeout, true
		}
		return ClassConnection, true
	}
	return ClassOther, false
}

// SQLState returns the SQLSTATE carried by err, if any driver error in its
// chain exposes one.
func SQLState(err error) string {
	var se interface{ SQLState() string }
	if errors.As(err, &se) {
		return se.SQLState()
	}
	return ""
}
