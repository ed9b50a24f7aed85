package engine

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/sledge-bench/sledge/internal/metrics"
)

// watchdog watches the run for time in which it made no progress without
// any error to show for it: a stall — sessions connected, transactions in
// hand, none completing (a database that hangs: SIGSTOP, a full WAL disk, a
// lock held by someone else) — and a pause of the client itself (the
// process not running: SIGSTOP, a paused VM, a laptop asleep). Both are
// disruptions of their own kind, beside the tracker's outages (lost
// sessions).
//
// The execution path marks each session's transaction in hand (begin, done):
// two atomic stores per transaction, each session on its own cache line.
// The watchdog's goroutine wakes every few hundred milliseconds, and a wake
// that comes much later than it asked for is a pause of the process.
type watchdog struct {
	after time.Duration // no completion for longer than this is a stall; a wake this late, a pause
	clock *clock
	out   Output

	busy []busySlot // per session (slot = id − FirstVU)
	// While a stall is open, completions report: the first stores its end
	// (ns + 1, so that 0 means none yet). Read on every completion, written
	// only when a stall opens or closes: a line the sessions share for
	// reading.
	open       atomic.Bool
	firstAfter atomic.Int64

	mu     sync.Mutex // guards stalls and pauses (the goroutine writes, account reads)
	stalls []metrics.Stall
	pauses []metrics.Pause
}

// busySlot is one session's part: its transaction in hand (run-clock ns of
// its start + 1, 0 when it has none) and the end of its last one (ns). Each
// session writes only its own slot, padded to a cache line of its own; the
// watchdog reads them all.
type busySlot struct {
	began    atomic.Int64
	lastDone atomic.Int64
	_        [48]byte
}

// stallAfter is the stall (and pause) threshold of cfg: Config.StallAfter,
// else half an interval within 2 s and 30 s — long against any OLTP
// transaction's latency, short against a window; negative turns stall
// detection off (pauses are still watched, at the default threshold).
func stallAfter(cfg Config) time.Duration {
	if cfg.StallAfter > 0 {
		return cfg.StallAfter
	}
	return DefaultStallAfter(cfg.Interval)
}

// DefaultStallAfter is the stall threshold of a run with monitor interval
// interval when none is set: half an interval, within 2 s and 30 s.
func DefaultStallAfter(interval time.Duration) time.Duration {
	return min(max(interval/2, 2*time.Second), 30*time.Second)
}

func newWatchdog(cfg Config, c *clock, out Output, sessions int) *watchdog {
	return &watchdog{after: stallAfter(cfg), clock: c, out: out, busy: make([]busySlot, sessions)}
}

// begin marks that the slot's session sends a transaction now (at, on the
// wall clock with its monotonic reading): the wait on the database starts
// here, not at a schedule's due time.
func (w *watchdog) begin(slot int, at time.Time) {
	w.busy[slot].began.Store(int64(at.Sub(w.clock.t0)) + 1)
}

// done marks that slot's transaction ended at end (on the run's clock),
// whatever its outcome.
func (w *watchdog) done(slot int, end time.Duration) {
	b := &w.busy[slot]
	b.began.Store(0)
	b.lastDone.Store(int64(end))
	if w.open.Load() {
		w.firstAfter.CompareAndSwap(0, int64(end)+1)
	}
}

// release marks that slot's transaction was cancelled (at the run's stop):
// no longer in hand, and no sign of the database's progress.
func (w *watchdog) release(slot int) { w.busy[slot].began.Store(0) }

// period is how often the watchdog wakes: often enough to place a stall's
// start and a pause within a small part of the threshold.
func (w *watchdog) period() time.Duration {
	return min(max(w.after/20, 10*time.Millisecond), 250*time.Millisecond)
}

// watch runs until stop is closed: it notes pauses of the process and
// opens and closes stalls. detectStalls false watches for pauses only.
func (w *watchdog) watch(stop <-chan struct{}, detectStalls bool) {
	p := w.period()
	t := time.NewTicker(p)
	defer t.Stop()
	prev, prevBoot := w.clock.now(), bootClock()
	var cur *metrics.Stall // the open stall
	// The end of the client's last pause: its sessions' silence before
	// then is the client's, not the database's (the VUs resume some time
	// after the process does, on a busy machine).
	var resumed time.Duration
	for {
		select {
		case <-stop:
			if cur != nil {
				w.closeStall(cur, w.clock.now(), false)
			}
			return
		case <-t.C:
		}
		now, boot := w.clock.now(), bootClock()
		// The monotonic clock runs on while a process is stopped (a wake
		// comes late), not while the machine sleeps (the clock since boot
		// runs ahead of it).
		late, slept := now-prev-p, time.Duration(0)
		if prevBoot > 0 && boot > 0 {
			slept = (boot - prevBoot) - (now - prev)
		}
		paused := false
		switch {
		case slept > w.after:
			w.notePause(metrics.Pause{Start: prev, End: now, Suspended: true, Slept: slept})
			paused, resumed = true, now
		case late > w.after:
			w.notePause(metrics.Pause{Start: now - late, End: now})
			paused, resumed = true, now
		}
		if detectStalls {
			cur = w.judge(cur, now, paused, resumed)
		}
		// After the work of this wake (a log line may block on a slow
		// sink): the next wake's lateness is the process's, not ours.
		prev, prevBoot = w.clock.now(), bootClock()
	}
}

// judge opens or closes a stall at this wake (now): it returns the stall
// still open, nil for none.
func (w *watchdog) judge(cur *metrics.Stall, now time.Duration, paused bool, resumed time.Duration) *metrics.Stall {
	if cur != nil {
		if first := w.firstAfter.Load(); first > 0 {
			w.closeStall(cur, time.Duration(first-1), true)
			return nil
		}
		waiting, oldest, _ := w.scan()
		cur.VUs = max(cur.VUs, waiting)
		if waiting > 0 {
			cur.LongestWait = max(cur.LongestWait, now-oldest)
		}
		return cur
	}
	if paused {
		// The client did not run: its sessions' silence is its own, not
		// the database's. Judge again at the next wake.
		return nil
	}
	waiting, oldest, last := w.scan()
	if waiting == 0 || now-max(last, resumed) <= w.after || now-max(oldest, resumed) <= w.after {
		return nil // something completed lately, or nothing waited that long (paced: thinking)
	}
	cur = &metrics.Stall{Start: max(last, oldest, resumed), VUs: waiting, LongestWait: now - oldest}
	w.firstAfter.Store(0)
	w.open.Store(true)
	if _, _, again := w.scan(); again > last {
		// A transaction ended between the scans, before the completions
		// reported to the open stall: the stall ended there.
		w.closeStall(cur, again, true)
		return nil
	}
	w.out.Logf("stall: no transaction has ended for %.1f s while %d sessions wait on the database (since %.1f s)",
		(now - cur.Start).Seconds(), waiting, cur.Start.Seconds())
	return cur
}

// scan counts the sessions with a transaction in hand, and returns the
// oldest one's start and the latest end of any session's last transaction.
func (w *watchdog) scan() (waiting int, oldest, lastDone time.Duration) {
	for i := range w.busy {
		b := &w.busy[i]
		lastDone = max(lastDone, time.Duration(b.lastDone.Load()))
		if v := b.began.Load(); v > 0 {
			at := time.Duration(v - 1)
			if waiting == 0 || at < oldest {
				oldest = at
			}
			waiting++
		}
	}
	return waiting, oldest, lastDone
}

// closeStall ends stall s at end: when a transaction ended (ended), or
// when the run stopped with the stall still on.
func (w *watchdog) closeStall(s *metrics.Stall, end time.Duration, ended bool) {
	w.open.Store(false)
	s.End, s.Ended = end, ended
	// Some transaction was in hand from the stall's start to its end (the
	// stall starts at the last completion, or at the oldest wait's start
	// when later): it waited at least that long.
	s.LongestWait = max(s.LongestWait, end-s.Start)
	w.mu.Lock()
	w.stalls = append(w.stalls, *s)
	w.mu.Unlock()
	if ended {
		w.out.Logf("stall: a transaction ended again at %.1f s, after %.1f s without one", end.Seconds(), s.Duration().Seconds())
	} else {
		w.out.Logf("stall: still no transaction ending when the run stopped at %.1f s (%.1f s without one)", end.Seconds(), s.Duration().Seconds())
	}
}

func (w *watchdog) notePause(p metrics.Pause) {
	w.mu.Lock()
	w.pauses = append(w.pauses, p)
	w.mu.Unlock()
	if p.Suspended {
		w.out.Logf("pause: this client's machine slept for %.1f s, at %.1f s: the database may have run on unmeasured", p.Slept.Seconds(), p.End.Seconds())
		return
	}
	w.out.Logf("pause: this client did not run for %.1f s, from %.1f s: the numbers include it", p.Duration().Seconds(), p.Start.Seconds())
}

// account returns the stalls and pauses noted so far; a stall still open is
// not among them (watch closes it when it stops).
func (w *watchdog) account() ([]metrics.Stall, []metrics.Pause) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]metrics.Stall(nil), w.stalls...), append([]metrics.Pause(nil), w.pauses...)
}
