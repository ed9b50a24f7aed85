package engine

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync/atomic"
	"time"

	"github.com/sledge-bench/sledge/internal/metrics"
)

// clock is the run's one time base: the executors' events, the monitor's
// intervals, the window's edges and the stages' ends are all durations
// since its start, t0. It also knows where the phases' and the intervals'
// boundaries fall.
type clock struct {
	cfg Config
	t0  time.Time
	// stageEnd are the stages' ends from the window's start.
	stageEnd []time.Duration
}

func newClock(cfg Config) *clock {
	c := &clock{cfg: cfg}
	var t time.Duration
	for _, st := range cfg.Stages {
		t += st.Duration
		c.stageEnd = append(c.stageEnd, t)
	}
	return c
}

// now is the run's time.
func (c *clock) now() time.Duration { return time.Since(c.t0) }

// since converts an instant to run time; a zero instant falls back to def.
func (c *clock) since(t time.Time, def time.Duration) time.Duration {
	if t.IsZero() {
		return def
	}
	return t.Sub(c.t0)
}

// errNotStarted is awaitStart's when the run was stopped before its shared
// start: nothing was measured.
var errNotStarted = errors.New("stopped before the shared start")

// awaitStart waits for a shared start (Config.StartAt), every process's
// run time 0: an error when it passed more than an interval ago (too late
// to join), errNotStarted when ctx ended first. Without a shared start it
// returns at once.
func (c *clock) awaitStart(ctx context.Context) error {
	at := c.cfg.StartAt
	if at.IsZero() {
		return nil
	}
	if late := time.Since(at); late > c.cfg.Interval {
		return fmt.Errorf("the shared start %s passed %s ago: too late to join (more than an interval, %s)",
			at.Local().Format("15:04:05.000"), late.Round(time.Millisecond), c.cfg.Interval)
	}
	if d := time.Until(at); d > 0 {
		timer := time.NewTimer(d)
		defer timer.Stop()
		select {
		case <-timer.C:
		case <-ctx.Done():
			return errNotStarted
		}
	}
	if ctx.Err() != nil {
		return errNotStarted
	}
	return nil
}

// begin starts the clock: t0 is now — after before, which runs on a clock
// started just before it (a window opened at 0 reads the database's count
// there, and the count must hold at run time 0) — or, with a shared start,
// the StartAt instant as this process's monotonic clock has it, so that a
// step of the wall clock mid-run does not move the ticks.
func (c *clock) begin(before func()) {
	c.t0 = time.Now()
	before()
	c.t0 = time.Now()
	if !c.cfg.StartAt.IsZero() {
		c.t0 = time.Now().Add(-time.Since(c.cfg.StartAt))
	}
}

// next is the boundary after now (clock.go's boundaries: nextBoundary).
func (c *clock) next(now time.Duration, w *window) time.Duration {
	return nextBoundary(now, w.open, w.start, c.cfg)
}

// nextBoundary returns the next monitor tick: every Interval from the start
// during ramp-up, with a tick exactly at the window's start, then every
// Interval from there and one exactly at the window's end; a stage's end
// is a boundary too, so that every interval lies in one stage.
func nextBoundary(now time.Duration, measuring bool, winStart time.Duration, cfg Config) time.Duration {
	if !measuring {
		n := (now/cfg.Interval + 1) * cfg.Interval
		return min(n, cfg.Rampup)
	}
	k := (now-winStart)/cfg.Interval + 1
	if cfg.Iterations > 0 {
		return winStart + k*cfg.Interval // the VUs' end closes the window, not a boundary
	}
	next := min(winStart+k*cfg.Interval, winStart+cfg.Duration)
	var end time.Duration
	for _, st := range cfg.Stages {
		end += st.Duration
		if winStart+end > now {
			next = min(next, winStart+end)
			break
		}
	}
	return next
}

// staggerStep spreads n units' starts over the first half of the ramp-up,
// at most 100ms apart, so logins do not arrive as one burst.
func staggerStep(rampup time.Duration, n int) time.Duration {
	if rampup == 0 || n <= 1 {
		return 0
	}
	return min(rampup/2/time.Duration(n), 100*time.Millisecond)
}

// stageState is where a staged run is: the current stage (0-based) and the
// rows of the stages done. The monitor owns it.
type stageState struct {
	cur  int
	done []metrics.StageResult
}

// levels is the load a staged run offers now: the VUs or terminals in use,
// or the rate, by the model — the current stage's target. The monitor sets
// it at each stage's start; the units and the arrival process read it.
type levels struct {
	target atomic.Uint64 // float64 bits
	// changed is closed (and replaced) when the level changes: it wakes
	// the idle units and the arrival process. Read on every transaction of
	// a staged run: an atomic, not a lock.
	changed atomic.Pointer[chan struct{}]
}

// newLevels starts at the first stage's target; an unstaged run's level is
// its rate (read by a rate run only: the other models use every unit).
func newLevels(cfg Config) *levels {
	l := &levels{}
	ch := make(chan struct{})
	l.changed.Store(&ch)
	l.target.Store(math.Float64bits(cfg.Rate))
	if len(cfg.Stages) > 0 {
		l.target.Store(math.Float64bits(cfg.Stages[0].Target))
	}
	return l
}

// set makes target the level; only the monitor sets levels, so the swap
// needs no lock.
func (l *levels) set(target float64) {
	l.target.Store(math.Float64bits(target))
	next := make(chan struct{})
	close(*l.changed.Swap(&next))
}

func (l *levels) watch() <-chan struct{} { return *l.changed.Load() }

func (l *levels) current() float64 { return math.Float64frombits(l.target.Load()) }

// awaitTurn waits while unit (a VU or terminal, 0-based in this process)
// is not used by the current stage; false when the run stopped meanwhile.
// rec, when not nil, shows the unit idle meanwhile.
func (r *run) awaitTurn(ctx context.Context, unit int, rec *metrics.Recorder) bool {
	idle := false
	defer func() {
		if idle {
			rec.SetState(metrics.VURunning)
		}
	}()
	for {
		ch := r.level.watch()
		if float64(unit) < r.level.current() {
			return true
		}
		if !idle && rec != nil {
			rec.SetState(metrics.VUIdle)
			idle = true
		}
		select {
		case <-ch:
		case <-r.stopped:
			return false
		case <-ctx.Done():
			return false
		}
	}
}
