package engine

import (
	"container/heap"
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/sledge-bench/sledge/internal/metrics"
	"github.com/sledge-bench/sledge/internal/workload"
)

// terminals is paced terminals over a pool of sessions: each terminal
// keys and thinks on its own schedule, and one that is due waits for a
// free session. Its transaction's latency counts from when it was due, so
// that the wait is part of its response time. A staged run starts the
// largest stage's terminals; those the current stage does not use wait
// idle.
//
// Terminals are data, not goroutines: a scheduler keeps them in a heap by
// due time and hands each due one to the pool's sessions, one goroutine per
// session. Ten thousand terminals then cost ten thousand small records and
// one timer, not ten thousand parked goroutines each woken by its own
// timers and by a channel of free sessions (which made a paced terminal's
// transaction cost several times a closed-loop VU's client CPU).
type terminals struct {
	r     *run
	pool  workload.Pool
	n     int // terminals
	conns int // sessions
}

func newTerminals(r *run, pool workload.Pool) executor {
	return &terminals{r: r, pool: pool, n: r.cfg.units(), conns: r.cfg.Connections}
}

func (t *terminals) sessions() int { return t.conns }
func (t *terminals) unit() string  { return "terminals" }
func (t *terminals) describe() string {
	return fmt.Sprintf("%d terminals over %d sessions", t.n, t.conns)
}

func (t *terminals) account(res *metrics.RunResult) {
	res.Load = &metrics.LoadResult{Model: metrics.LoadTerminals, Terminals: t.n, Connections: t.conns}
	t.r.lagAccount(res.Load)
}

// start opens the pool, then runs the terminals on its sessions, their
// first transactions spread over the first half of the ramp-up.
func (t *terminals) start(ctx context.Context, recs []*metrics.Recorder, fatal chan<- error, wg *sync.WaitGroup) {
	r := t.r
	r.withPool(ctx, t.pool, recs, fatal, wg, func(sessions []*pooled) {
		s := newTermSched(r, t.pool, t.n, time.Now())
		var workers sync.WaitGroup
		for _, p := range sessions {
			workers.Add(1)
			go func() {
				defer workers.Done()
				s.serve(ctx, p)
			}()
		}
		s.schedule(ctx)
		workers.Wait()
	})
}

// terminal is one terminal as the scheduler holds it: its inputs, its
// pacing and its next transaction, due at due. A terminal is in one place
// at a time — the heap, the idle list, the ready queue or a session — and
// whoever holds it is the only one to touch it.
type terminal struct {
	unit int // 0-based in this process (a stage's target counts these)
	term workload.Terminal
	pace *pacing
	tx   int           // its next transaction, drawn (term.Next)
	due  time.Time     // when tx is due: its think and keying times waited
	key  time.Duration // tx's keying time, within due (the pacing audit's)
}

// termSched is the terminals' scheduler: a heap of terminals by due time
// under one timer, waited by one goroutine (schedule), which moves each due
// terminal to the ready queue; the sessions (serve) take from it in due
// order, run the terminal's transaction and put it back with its next due
// time. A staged run's terminals that the current stage does not use wait
// on the idle list until a stage does.
type termSched struct {
	r     *run
	ready chan *terminal // due terminals: room for all, so a send never blocks

	mu   sync.Mutex
	due  dueHeap
	idle []*terminal
	// timerAt is when the scheduler's timer fires (zero: not set); wake
	// tells it of a terminal due before then.
	timerAt time.Time
	wake    chan struct{}
}

// newTermSched makes n terminals, the first transaction of each drawn and
// due after its keying time from its start: from, then one staggerStep
// later for each terminal before it.
func newTermSched(r *run, pool workload.Pool, n int, from time.Time) *termSched {
	s := &termSched{r: r, ready: make(chan *terminal, n), wake: make(chan struct{}, 1), due: make(dueHeap, 0, n)}
	step := staggerStep(r.cfg.Rampup, n)
	for i := range n {
		t := &terminal{unit: i, term: pool.NewTerminal(r.cfg.FirstVU + i), pace: r.newPacing(r.cfg.FirstVU + i)}
		t.tx = t.term.Next()
		t.key = t.pace.keying(t.tx)
		t.due = from.Add(time.Duration(i)*step + t.key)
		s.due = append(s.due, t)
	}
	heap.Init(&s.due)
	return s
}

// schedule moves due terminals to the ready queue as they fall due, until
// the run stops.
func (s *termSched) schedule(ctx context.Context) {
	r := s.r
	staged := len(r.cfg.Stages) > 0
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	level := r.level.current() // the level the idle list was last resumed at
	for {
		var changed <-chan struct{}
		if staged {
			// Watched before the level is read: a change after the read
			// closes this channel.
			changed = r.level.watch()
		}
		s.mu.Lock()
		now := time.Now()
		if lvl := r.level.current(); staged && lvl != level {
			// Only a new level can put idle terminals back in turn: the
			// idle list is not scanned on every wake.
			level = lvl
			s.resume(now)
		}
		for len(s.due) > 0 && !s.due[0].due.After(now) {
			t := heap.Pop(&s.due).(*terminal)
			if staged && !s.inTurn(t) {
				s.idle = append(s.idle, t)
				continue
			}
			t.pace.keyed(t.tx, t.key)
			s.ready <- t
		}
		var fire <-chan time.Time
		s.timerAt = time.Time{}
		if len(s.due) > 0 {
			s.timerAt = s.due[0].due
			timer.Reset(s.timerAt.Sub(now))
			fire = timer.C
		}
		s.mu.Unlock()
		select {
		case <-fire:
		case <-s.wake:
		case <-changed:
		case <-r.stopped:
			return
		case <-ctx.Done():
			return
		}
	}
}

// inTurn says whether the current stage uses t.
func (s *termSched) inTurn(t *terminal) bool {
	return float64(t.unit) < s.r.level.current()
}

// resume puts the idle terminals the current stage uses back on the
// schedule: their transaction, drawn before they went idle, due after its
// keying time from now. Called with mu held.
func (s *termSched) resume(now time.Time) {
	kept := s.idle[:0]
	for _, t := range s.idle {
		if !s.inTurn(t) {
			kept = append(kept, t)
			continue
		}
		t.due = now.Add(t.key)
		heap.Push(&s.due, t)
	}
	clear(s.idle[len(kept):])
	s.idle = kept
}

// serve runs due terminals' transactions on session p until the run stops
// or p is lost for good.
func (s *termSched) serve(ctx context.Context, p *pooled) {
	r := s.r
	for !r.stop.Load() {
		var t *terminal
		select {
		case t = <-s.ready:
		case <-r.stopped:
			return
		case <-ctx.Done():
			return
		}
		if r.stop.Load() {
			// Stopped while it waited: select picks at random among ready
			// cases, so the terminal may have come with the stop.
			return
		}
		lag := time.Since(t.due)
		p.on.term = t.term
		_, st := r.transact(ctx, p.id, t.tx, t.due, lag, &p.on, p.on.sess, p.rec, false)
		p.on.term = nil
		if st != txDone {
			// Cancelled at the stop, or the session is lost for good: the
			// run is ending, and the terminal with it.
			return
		}
		s.next(t, time.Now())
	}
}

// next schedules t's next transaction, drawn now: due after a think time
// for the last one and the new one's keying time. An unpaced terminal of an
// unstaged run is due at once and goes straight to the ready queue.
func (s *termSched) next(t *terminal, now time.Time) {
	think := t.pace.drawThink(t.tx)
	t.tx = t.term.Next()
	t.key = t.pace.keying(t.tx)
	t.due = now.Add(think + t.key)
	if t.pace == nil && len(s.r.cfg.Stages) == 0 {
		s.ready <- t
		return
	}
	s.mu.Lock()
	heap.Push(&s.due, t)
	early := s.timerAt.IsZero() || t.due.Before(s.timerAt)
	s.mu.Unlock()
	if early {
		select {
		case s.wake <- struct{}{}:
		default: // the scheduler is told already
		}
	}
}

// dueHeap is terminals by due time (container/heap).
type dueHeap []*terminal

func (h dueHeap) Len() int           { return len(h) }
func (h dueHeap) Less(i, j int) bool { return h[i].due.Before(h[j].due) }
func (h dueHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *dueHeap) Push(x any)        { *h = append(*h, x.(*terminal)) }
func (h *dueHeap) Pop() any {
	old := *h
	t := old[len(old)-1]
	old[len(old)-1] = nil
	*h = old[:len(old)-1]
	return t
}
