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

	busy     []busySlot   // per session (slot = id − FirstVU)
	lastDone atomic.Int64 // run-clock ns of the latest completion
	// While a stall is open, completions report: the first stores its end
	// (ns + 1, so that 0 means none yet).
	open       atomic.Bool
	firstAfter atomic.Int64

	mu     sync.Mutex // guards stalls and pauses (the goroutine writes, account reads)
	stalls []metrics.Stall
	pauses []metrics.Pause
}

// busySlot is one session's transaction in hand: run-clock ns of its start
// + 1, 0 when the session has none. Padded so that sessions do not share a
// cache line.
type busySlot struct {
	began atomic.Int64
	_     [56]byte
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

// begin marks the transaction slot's session starts at began.
func (w *watchdog) begin(slot int, began time.Time) {
	w.busy[slot].began.Store(int64(began.Sub(w.clock.t0)) + 1)
}

// done marks that slot's transaction ended at end (on the run's clock).
func (w *watchdog) done(slot int, end time.Duration) {
	w.busy[slot].began.Store(0)
	w.lastDone.Store(int64(end))
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
	prev, prevWall := w.clock.now(), time.Now().Round(0)
	var cur *metrics.Stall // the open stall
	// The end of the client's last pause: its sessions' silence before
	// then is the client's, not the database's (the VUs resume some time
	// after the process does, on a busy machine).
	var resumed time.Duration
	for {
		select {
		case <-stop:
			now := w.clock.now()
			if cur != nil {
				w.closeStall(cur, now, false)
			}
			return
		case <-t.C:
		}
		now, wall := w.clock.now(), time.Now().Round(0)
		// The monotonic clock runs on while a process is stopped (a late
		// wake), not while the machine sleeps (the wall clock jumps).
		late := now - prev - p
		asleep := wall.Sub(prevWall) - (now - prev)
		paused := false
		if late > w.after || asleep > w.after {
			gap := max(late, asleep)
			w.notePause(metrics.Pause{Start: now - gap, End: now, Suspended: asleep > late})
			paused, resumed = true, now
		}
		prev, prevWall = now, wall
		if !detectStalls {
			continue
		}
		if cur != nil {
			if first := w.firstAfter.Load(); first > 0 {
				w.closeStall(cur, time.Duration(first-1), true)
				cur = nil
			} else {
				waiting, oldest := w.waiting()
				cur.VUs = max(cur.VUs, waiting)
				if waiting > 0 {
					cur.LongestWait = max(cur.LongestWait, now-oldest)
				}
			}
			continue
		}
		if paused {
			// The client did not run: its sessions' silence is its own,
			// not the database's. Judge again at the next wake.
			continue
		}
		last := time.Duration(w.lastDone.Load())
		if now-max(last, resumed) <= w.after {
			continue
		}
		waiting, oldest := w.waiting()
		if waiting == 0 || now-max(oldest, resumed) <= w.after {
			continue // nothing waited that long: idle (paced), not stalled
		}
		cur = &metrics.Stall{Start: max(last, oldest, resumed), VUs: waiting, LongestWait: now - oldest}
		w.firstAfter.Store(0)
		w.open.Store(true)
		if again := time.Duration(w.lastDone.Load()); again > last {
			// A transaction completed between the reads, before the
			// completions reported to the open stall: it ended there.
			w.closeStall(cur, again, true)
			cur = nil
			continue
		}
		w.out.Logf("stall: no transaction has completed for %.1f s while %d sessions wait on the database (since %.1f s)",
			(now - cur.Start).Seconds(), waiting, cur.Start.Seconds())
	}
}

// waiting counts the sessions with a transaction in hand and returns the
// oldest one's start.
func (w *watchdog) waiting() (n int, oldest time.Duration) {
	for i := range w.busy {
		if b := w.busy[i].began.Load(); b > 0 {
			at := time.Duration(b - 1)
			if n == 0 || at < oldest {
				oldest = at
			}
			n++
		}
	}
	return n, oldest
}

// closeStall ends stall s at end: when a transaction completed (ended), or
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
		w.out.Logf("stall: transactions complete again at %.1f s, after %.1f s without one", end.Seconds(), s.Duration().Seconds())
	} else {
		w.out.Logf("stall: still no transaction completing when the run stopped at %.1f s (%.1f s without one)", end.Seconds(), s.Duration().Seconds())
	}
}

func (w *watchdog) notePause(p metrics.Pause) {
	w.mu.Lock()
	w.pauses = append(w.pauses, p)
	w.mu.Unlock()
	how := "did not run"
	if p.Suspended {
		how = "was suspended (the machine slept)"
	}
	w.out.Logf("pause: this client %s for %.1f s, from %.1f s: the numbers include it", how, p.Duration().Seconds(), p.Start.Seconds())
}

// account returns the stalls and pauses noted so far; a stall still open is
// not among them (watch closes it when it stops).
func (w *watchdog) account() ([]metrics.Stall, []metrics.Pause) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]metrics.Stall(nil), w.stalls...), append([]metrics.Pause(nil), w.pauses...)
}
