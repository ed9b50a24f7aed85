package db

import (
	"context"
	"errors"
	"testing"
	"time"
)

func TestLoadRetryPolicy(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name        string
		cls         ErrorClass
		lockTimeout bool
		attempt     int
		cancelled   bool
		again       bool
	}{
		{"deadlock", ClassDeadlock, false, 1, false, true},
		{"serialization", ClassSerialization, false, 2, false, true},
		{"lock wait timeout", ClassTimeout, true, 1, false, true},
		{"statement timeout", ClassTimeout, false, 1, false, false},
		{"constraint", ClassConstraint, false, 1, false, false},
		{"connection lost", ClassConnection, false, 1, false, false},
		{"other", ClassOther, false, 1, false, false},
		{"the build cancelled", ClassDeadlock, false, 1, true, false},
		{"last attempt", ClassDeadlock, false, MaxLoadAttempts, false, false},
		{"one before the last", ClassDeadlock, false, MaxLoadAttempts - 1, false, true},
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
	for a := 1; a < MaxLoadAttempts; a++ {
		base := min(100*time.Millisecond<<(a-1), 5*time.Second)
		wait, _ := loadRetry(ClassDeadlock, false, a, false)
		if wait < base || wait >= base+base/2 || wait < prev {
			t.Errorf("attempt %d: wait %s, want in [%s, %s) and not below %s", a, wait, base, base+base/2, prev)
		}
		prev = base
	}
}

// classErr is a driver error of a known class; lock marks a lock wait
// timeout.
type classErr struct {
	cls  ErrorClass
	lock bool
}

func (e classErr) Error() string { return "fake " + e.cls.String() }

// classDriver classifies classErr; it tells no lock wait timeout apart.
type classDriver struct{ Driver }

func (classDriver) Classify(err error) ErrorClass {
	var ce classErr
	if errors.As(err, &ce) {
		return ce.cls
	}
	c, _ := ClassifyCommon(err)
	return c
}

// lockDriver is a classDriver that tells lock wait timeouts apart.
type lockDriver struct{ classDriver }

func (lockDriver) LockTimeout(err error) bool {
	var ce classErr
	return errors.As(err, &ce) && ce.lock
}

var _ LockTimeouter = lockDriver{}

func TestRetryLoad(t *testing.T) {
	t.Parallel()
	deadlock := classErr{cls: ClassDeadlock}
	lockWait := classErr{cls: ClassTimeout, lock: true}
	cases := []struct {
		name    string
		drv     Driver
		fail    []error // the errors of the first attempts, in order
		ok      bool
		calls   int
		retries int
	}{
		{"clean", lockDriver{}, nil, true, 1, 0},
		{"deadlock once", lockDriver{}, []error{deadlock}, true, 2, 1},
		{"lock wait timeout, then serialization", lockDriver{},
			[]error{lockWait, classErr{cls: ClassSerialization}}, true, 3, 2},
		{"lock wait timeout, driver cannot tell", classDriver{}, []error{lockWait}, false, 1, 0},
		{"constraint", lockDriver{}, []error{classErr{cls: ClassConstraint}}, false, 1, 0},
		{"statement timeout", lockDriver{}, []error{classErr{cls: ClassTimeout}}, false, 1, 0},
		{"connection lost", lockDriver{}, []error{classErr{cls: ClassConnection}}, false, 1, 0},
		{"deadlock on every attempt", lockDriver{},
			[]error{deadlock, deadlock, deadlock, deadlock, deadlock, deadlock}, false, MaxLoadAttempts, MaxLoadAttempts - 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			calls, retries := 0, 0
			fail := c.fail
			err := RetryLoad(context.Background(), c.drv, func() error {
				calls++
				if len(fail) > 0 {
					err := fail[0]
					fail = fail[1:]
					return err
				}
				return nil
			}, func() { retries++ })
			if (err == nil) != c.ok || calls != c.calls || retries != c.retries {
				t.Fatalf("err %v, %d attempts, %d retries; want ok %v, %d attempts, %d retries",
					err, calls, retries, c.ok, c.calls, c.retries)
			}
			if !c.ok && !errors.Is(err, c.fail[len(c.fail)-len(fail)-1]) {
				t.Errorf("err %v, want the last attempt's", err)
			}
		})
	}
}

// TestRetryLoadCancelled: a load cut off by the cancellation is not
// retried, and a cancellation during the wait ends it without another
// attempt.
func TestRetryLoadCancelled(t *testing.T) {
	t.Parallel()
	t.Run("during the load", func(t *testing.T) {
		t.Parallel()
		ctx, cancel := context.WithCancel(context.Background())
		calls, retries := 0, 0
		err := RetryLoad(ctx, lockDriver{}, func() error {
			calls++
			cancel()
			return classErr{cls: ClassDeadlock}
		}, func() { retries++ })
		if err == nil || calls != 1 || retries != 0 {
			t.Fatalf("err %v, %d attempts, %d retries; want an error after 1 attempt, no retry", err, calls, retries)
		}
	})
	t.Run("during the wait", func(t *testing.T) {
		t.Parallel()
		ctx, cancel := context.WithCancel(context.Background())
		calls, retries := 0, 0
		err := RetryLoad(ctx, lockDriver{}, func() error {
			calls++
			return classErr{cls: ClassDeadlock}
		}, func() { retries++; cancel() })
		if !errors.Is(err, classErr{cls: ClassDeadlock}) || calls != 1 || retries != 1 {
			t.Fatalf("err %v, %d attempts, %d retries; want the deadlock after 1 attempt and 1 retry counted", err, calls, retries)
		}
	})
}
