package engine

import (
	"slices"
	"testing"
	"time"
)

// The wake timer fires once per set, a reset replaces the time set before
// (an hour becomes a millisecond, and a millisecond an hour), and a reset
// to zero fires at once: on the kernel's timer and on the runtime's alone.
func TestWakeTimerResets(t *testing.T) {
	t.Parallel()
	kernel, err := newKernelTimer()
	if err != nil {
		kernel = nil
		t.Logf("no kernel timer here (%v): the runtime's alone", err)
	}
	for _, tc := range []struct {
		name string
		k    *kernelTimer
	}{{"kernel", kernel}, {"runtime", nil}} {
		if tc.name == "kernel" && tc.k == nil {
			continue
		}
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			w := newWakeTimerOn(tc.k)
			defer w.stop()
			waited := make(chan bool)
			wait := func() {
				go func() { waited <- w.wait() }()
			}
			w.reset(time.Hour)
			w.reset(time.Millisecond)
			wait()
			if !<-waited {
				t.Fatal("wait: stopped")
			}
			// Set for a millisecond, then an hour: it must not fire.
			w.reset(time.Millisecond)
			w.reset(time.Hour)
			wait()
			select {
			case <-waited:
				t.Fatal("fired after a reset to an hour")
			case <-time.After(50 * time.Millisecond):
			}
			w.reset(0)
			if !<-waited {
				t.Fatal("wait: stopped")
			}
		})
	}
}

// The kernel's timer wakes an idle process nearer its time than the
// runtime's, whose wake-ups go by epoll_wait's whole milliseconds: over
// the same waits, interleaved, its median lateness is the smaller. Not
// parallel: a busy process checks the runtime's timers on every switch,
// which would hide the difference.
func TestWakeTimerFinerThanRuntime(t *testing.T) {
	k, err := newKernelTimer()
	if err != nil {
		t.Skipf("no kernel timer here: %v", err)
	}
	kernel, runtime := newWakeTimerOn(k), newWakeTimerOn(nil)
	defer kernel.stop()
	defer runtime.stop()
	late := func(w *wakeTimer, d time.Duration) time.Duration {
		start := time.Now()
		w.reset(d)
		w.wait()
		return time.Since(start) - d
	}
	var lk, lr []time.Duration
	for i := range 40 {
		d := 2*time.Millisecond + time.Duration(i)*37*time.Microsecond // across the millisecond
		lk = append(lk, late(kernel, d))
		lr = append(lr, late(runtime, d))
	}
	slices.Sort(lk)
	slices.Sort(lr)
	mk, mr := lk[len(lk)/2], lr[len(lr)/2]
	t.Logf("median lateness: kernel %s, runtime %s", mk, mr)
	if mk >= mr {
		t.Errorf("median lateness %s on the kernel's timer, %s on the runtime's: want the kernel's the smaller", mk, mr)
	}
}
