package engine

import "time"

// wakeTimer is a one-shot timer that one goroutine waits on, firing at a
// set time to within tens of microseconds where the kernel has a timer to
// wait for through the netpoller (Linux: a timerfd). The runtime's own
// timers wake an idle process through epoll_wait, whose timeout is whole
// milliseconds, so they fire up to a millisecond late: on a paced run that
// is half a millisecond of every transaction's schedule lag and a
// millisecond of its p99. A kernel timer makes its descriptor readable
// when due, and epoll wakes on that at once. The waiter blocks on the
// descriptor itself: no goroutine between them adds a hand-off to every
// wake-up.
//
// A runtime timer is set to the same time all the same: while the process
// is idle, the runtime's monitor thread (sysmon) sleeps until the next
// runtime timer, and a system call that finds it asleep wakes it to poll
// every 20 µs for a millisecond or more — with no runtime timer near,
// each paced transaction's first write would, at about twice its client
// CPU. Woken by the timer, it sleeps on. Where there is no kernel timer,
// the runtime's timer is the one waited for.
type wakeTimer struct {
	k       *kernelTimer // nil: the runtime's timer, which fires on c
	t       *time.Timer
	c       chan struct{}
	stopped bool
}

// newWakeTimer makes a timer that is not set, on a kernel timer where one
// can be made.
func newWakeTimer() *wakeTimer {
	k, err := newKernelTimer()
	if err != nil {
		k = nil
	}
	return newWakeTimerOn(k)
}

// newWakeTimerOn makes a timer that is not set, on k (nil: the runtime's
// timer alone).
func newWakeTimerOn(k *kernelTimer) *wakeTimer {
	w := &wakeTimer{k: k, c: make(chan struct{}, 1)}
	if k != nil {
		// For sysmon alone: a runtime timer with a func is in the
		// runtime's heap whether or not anyone waits for it (one with a
		// channel is only while a goroutine is blocked on the channel).
		w.t = time.AfterFunc(time.Hour, func() {})
	} else {
		w.t = time.AfterFunc(time.Hour, func() {
			select {
			case w.c <- struct{}{}:
			default: // a fire not yet taken wakes the waiter as well
			}
		})
	}
	w.t.Stop()
	return w
}

// reset sets the timer to fire in d (at once when d ≤ 0), replacing any
// time set before; after stop, it does nothing (the timerfd's number may
// be another file's by then). Its callers serialize resets and stop.
func (w *wakeTimer) reset(d time.Duration) {
	if w.stopped {
		return
	}
	w.t.Reset(d)
	if w.k != nil {
		w.k.set(d)
	}
}

// wait waits for the timer to fire; false when it was stopped. A fire may
// be stale — set before a reset — so the waiter checks what is due.
func (w *wakeTimer) wait() bool {
	if w.k != nil {
		return w.k.wait()
	}
	<-w.c
	return true
}

// stop releases the timer. It is not meant to end a wait (reset(0) does
// that): the waiter stops it.
func (w *wakeTimer) stop() {
	w.stopped = true
	w.t.Stop()
	if w.k != nil {
		w.k.close()
	}
}
