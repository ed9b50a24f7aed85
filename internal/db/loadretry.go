package db

import (
	"context"
	"math/rand/v2"
	"time"
)

// LockTimeouter is implemented by drivers that can tell a lock wait timeout
// (MariaDB/MySQL 1205, PostgreSQL 55P03) from the other timeouts: a wait
// on another session's lock, not a statement time limit. Find it with a
// type assertion on a Driver.
type LockTimeouter interface{ LockTimeout(err error) bool }

// MaxLoadAttempts bounds how often one part of a bulk load is attempted.
const MaxLoadAttempts = 5

// RetryLoad runs load, one part of a bulk load (a COPY or a LOAD DATA in
// its own transaction), until it succeeds or fails with an error that is
// not worth another attempt, and returns that last error. Parallel loaders
// into one InnoDB table can deadlock (1213) or time out on each other's
// locks (1205) now and then, and PostgreSQL's can too (40P01, 55P03): that
// is no reason to fail a build, and the failed statement left nothing
// behind. So a part that failed with a retryable class (deadlock,
// serialization) or a lock wait timeout is loaded again, up to
// MaxLoadAttempts in all; anything else — and a load cut off by ctx —
// fails at once. Before each wait retried is called: the caller takes back
// what the failed attempt counted and counts the retry. load must start
// the part from its first row each time. A cancellation during the wait
// returns the failed attempt's error.
func RetryLoad(ctx context.Context, d Driver, load func() error, retried func()) error {
	lt, _ := d.(LockTimeouter)
	for attempt := 1; ; attempt++ {
		err := load()
		if err == nil {
			return nil
		}
		wait, again := loadRetry(d.Classify(err), lt != nil && lt.LockTimeout(err), attempt, ctx.Err() != nil)
		if !again {
			return err
		}
		retried()
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
		case <-t.C:
		}
		t.Stop()
		if ctx.Err() != nil {
			// Also when the timer won the race: cancelled is cancelled.
			return err
		}
	}
}

// loadRetry decides whether a load part that failed with cls (attempt 1
// the first) is loaded again, and after how long. The wait doubles from
// 100 ms, jittered by up to half so that the two sides of a deadlock do
// not meet again; its base stays within 5 s.
func loadRetry(cls ErrorClass, lockTimeout bool, attempt int, cancelled bool) (time.Duration, bool) {
	if cancelled || attempt >= MaxLoadAttempts || !(cls.Retryable() || lockTimeout) {
		return 0, false
	}
	base := min(100*time.Millisecond<<(attempt-1), 5*time.Second)
	return base + rand.N(base/2), true
}
