package app

import (
	"flag"
	"sync"
	"testing"
)

// machine lets a test that measures what the machine achieves (a rate, a
// schedule kept) have it to itself for that part: every other test of the
// package counts itself in while it runs (parallel); the measuring test runs
// its setup (a build) alongside the others, then waits until none runs and
// keeps the others out (alone). Waiting tests never keep a running one from
// ending: a test counted in is never held up, so its parallel subtests (and
// the slots they need) always go on; the measuring tests may come last.
//
// A test waiting in alone holds one of go test's parallel slots. Should
// every slot be held so, no other test's body runs (a body needs a slot)
// and none can start: the tests still counted in are parents waiting for
// subtests that need a slot. Waiting for them then would never end (seen
// with -parallel 1), and the machine is as good as idle: one of the waiting
// tests goes on.
var machine = struct {
	sync.Mutex
	changed *sync.Cond
	running int  // tests counted in by parallel
	waiting int  // tests waiting in alone
	alone   bool // a test has the machine to itself
}{}

func init() { machine.changed = sync.NewCond(&machine.Mutex) }

// parallel is t.Parallel for this package's tests: the test runs alongside
// the others, but never during a test's alone part.
func parallel(t *testing.T) {
	t.Parallel()
	machine.Lock()
	for machine.alone {
		machine.changed.Wait()
	}
	machine.running++
	machine.Unlock()
	t.Cleanup(func() {
		machine.Lock()
		machine.running--
		machine.changed.Broadcast()
		machine.Unlock()
	})
}

// alone waits until no other test of the package runs and keeps the machine
// to t until t ends (tests that start meanwhile wait). t must be parallel by
// t.Parallel, not parallel(t).
func alone(t *testing.T) {
	t.Helper()
	slots := parallelSlots()
	machine.Lock()
	machine.waiting++
	machine.changed.Broadcast() // a waiting test may now hold the last slot
	for machine.alone || machine.running > 0 && machine.waiting < slots {
		machine.changed.Wait()
	}
	machine.waiting--
	machine.alone = true
	machine.Unlock()
	t.Cleanup(func() {
		machine.Lock()
		machine.alone = false
		machine.changed.Broadcast()
		machine.Unlock()
	})
}

// parallelSlots is go test's -parallel (the tests that run at once).
func parallelSlots() int {
	if f := flag.Lookup("test.parallel"); f != nil {
		if g, ok := f.Value.(flag.Getter); ok {
			if n, ok := g.Get().(int); ok && n > 0 {
				return n
			}
		}
	}
	return 1
}
