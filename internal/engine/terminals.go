package engine

import (
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
// session, the most recently freed session first: the few a light load
// needs stay warm (their server processes too) instead of all of them
// taking turns from cold. Ten thousand terminals then cost ten thousand small records and
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
	at   time.Duration // due, from the scheduler's base: the heap's key (an integer compare)
	key  time.Duration // tx's keying time, within due (the pacing audit's)
}

// termSched is the terminals' scheduler: a heap of terminals by due time
// under one timer, waited by one goroutine (schedule), which hands each due
// terminal to the free session freed last or, with none free, to the ready
// queue; a session (serve) that ran a terminal's transaction puts it back
// with its next due time and takes the ready queue's first, in due order,
// before it waits as free. A staged run's terminals that the current stage
// does not use wait on the idle list until a stage does.
type termSched struct {
	r      *run
	staged bool
	base   time.Time // the terminals' due times count from here (terminal.at)

	mu    sync.Mutex
	due   dueHeap
	ready []*terminal // due, in due order, while no session is free
	// free are the free sessions' hands, the most recently freed last
	// (each holds one terminal: a send never blocks).
	free []chan *terminal
	idle []*terminal
	// timer is the one thing the scheduler waits on: set for the heap's
	// first terminal, earlier by a session that put back one due before
	// then (timerAt, zero: not set), and at once (poke) when the run stops
	// or a stage's level changes.
	timer   *wakeTimer
	timerAt time.Time
}

// newTermSched makes n terminals, the first transaction of each drawn and
// due after its keying time from its start: from, then one staggerStep
// later for each terminal before it.
func newTermSched(r *run, pool workload.Pool, n int, from time.Time) *termSched {
	s := &termSched{r: r, staged: len(r.cfg.Stages) > 0, base: from, timer: newWakeTimer(), due: make(dueHeap, 0, n)}
	step := staggerStep(r.cfg.Rampup, n)
	for i := range n {
		t := &terminal{unit: i, term: pool.NewTerminal(r.cfg.FirstVU + i), pace: r.newPacing(r.cfg.FirstVU + i)}
		t.tx = t.term.Next()
		t.key = t.pace.keying(t.tx)
		s.setDue(t, from.Add(time.Duration(i)*step+t.key))
		s.due = append(s.due, dueEntry{t.at, t})
	}
	s.due.init()
	return s
}

// schedule hands terminals to the sessions as they fall due, until the
// run stops.
func (s *termSched) schedule(ctx context.Context) {
	r := s.r
	staged := s.staged
	done := make(chan struct{})
	defer func() {
		close(done)
		s.mu.Lock()
		s.timer.stop()
		s.mu.Unlock()
	}()
	go s.watch(ctx, done)
	level := r.level.current() // the level the idle list was last resumed at
	for {
		s.mu.Lock()
		if r.stop.Load() || ctx.Err() != nil {
			s.mu.Unlock()
			return
		}
		now := time.Now()
		if lvl := r.level.current(); staged && lvl != level {
			// Only a new level can put idle terminals back in turn: the
			// idle list is not scanned on every wake.
			level = lvl
			s.resume(now)
		}
		for since := now.Sub(s.base); len(s.due) > 0 && s.due[0].at <= since; {
			t := s.due.pop()
			if staged && !s.inTurn(t) {
				s.idle = append(s.idle, t)
				continue
			}
			t.pace.keyed(t.tx, t.key)
			s.dispatch(t)
		}
		s.timerAt = time.Time{}
		if len(s.due) > 0 {
			s.timerAt = s.due[0].t.due
			s.timer.reset(s.timerAt.Sub(now))
		}
		s.mu.Unlock()
		s.timer.wait()
	}
}

// watch pokes the scheduler when the run stops or ctx ends, and in a
// staged run when the level changes, until done.
func (s *termSched) watch(ctx context.Context, done <-chan struct{}) {
	for {
		var changed <-chan struct{}
		if s.staged {
			// Watched, then poked: the scheduler reads the level after
			// this channel was taken, and a change after closes it.
			changed = s.r.level.watch()
			s.poke()
		}
		select {
		case <-changed:
			continue
		case <-s.r.stopped:
		case <-ctx.Done():
		case <-done:
			return
		}
		s.poke()
		return
	}
}

// poke wakes the scheduler at once.
func (s *termSched) poke() {
	s.mu.Lock()
	s.timerAt = time.Now()
	s.timer.reset(0)
	s.mu.Unlock()
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
		s.setDue(t, now.Add(t.key))
		s.due.push(t)
	}
	clear(s.idle[len(kept):])
	s.idle = kept
}

func (s *termSched) setDue(t *terminal, due time.Time) {
	t.due, t.at = due, due.Sub(s.base)
}

// dispatch hands due terminal t to the free session freed last, else to
// the ready queue. Called with mu held.
func (s *termSched) dispatch(t *terminal) {
	if n := len(s.free); n > 0 {
		hand := s.free[n-1]
		s.free[n-1] = nil
		s.free = s.free[:n-1]
		hand <- t
		return
	}
	s.ready = append(s.ready, t)
}

// serve runs due terminals' transactions on session p until the run stops
// or p is lost for good.
func (s *termSched) serve(ctx context.Context, p *pooled) {
	r := s.r
	hand := make(chan *terminal, 1)
	var ran *terminal
	for !r.stop.Load() {
		t := s.next(ran, hand)
		if t == nil {
			select {
			case t = <-hand:
			case <-r.stopped:
				return
			case <-ctx.Done():
				return
			}
			if r.stop.Load() {
				// Stopped while it waited: select picks at random among
				// ready cases, so the terminal may have come with the stop.
				return
			}
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
		ran = t
	}
}

// next puts ran, the terminal whose transaction a session ran (nil: none),
// back on the schedule — due after a think time for that transaction and
// the keying time of its next, drawn now — and returns the ready queue's
// first terminal for the session; with none ready, the session's hand is
// added to the free ones and next returns nil. A terminal due at once (an
// unpaced one) that the stage uses joins the ready queue, not the heap:
// the scheduler's hop would only delay it.
func (s *termSched) next(ran *terminal, hand chan *terminal) *terminal {
	now := time.Now()
	if ran != nil {
		think := ran.pace.drawThink(ran.tx)
		ran.tx = ran.term.Next()
		ran.key = ran.pace.keying(ran.tx)
		s.setDue(ran, now.Add(think+ran.key))
	}
	s.mu.Lock()
	switch {
	case ran == nil:
	case !ran.due.After(now) && (!s.staged || s.inTurn(ran)):
		// (A terminal out of turn goes by the heap: only the scheduler
		// parks terminals, so that a new level cannot miss one.)
		ran.pace.keyed(ran.tx, ran.key)
		s.ready = append(s.ready, ran)
	default:
		s.due.push(ran)
		if s.timerAt.IsZero() || ran.due.Before(s.timerAt) {
			// Due before the scheduler wakes: it wakes earlier.
			s.timerAt = ran.due
			s.timer.reset(ran.due.Sub(now))
		}
	}
	var t *terminal
	if len(s.ready) > 0 {
		t = s.ready[0]
		s.ready[0] = nil
		s.ready = s.ready[1:]
	} else {
		s.free = append(s.free, hand)
	}
	s.mu.Unlock()
	return t
}

// dueHeap is terminals by due time: a binary min-heap whose entries hold
// their key, so that sifting compares within the slice instead of reaching
// into each terminal (with 10,000 terminals a sift goes down 13 levels, a
// cache miss each on a process that mostly sleeps).
type dueHeap []dueEntry

type dueEntry struct {
	at time.Duration // t.at
	t  *terminal
}

// init orders a heap built by appending.
func (h dueHeap) init() {
	for i := len(h)/2 - 1; i >= 0; i-- {
		h.down(i)
	}
}

func (h *dueHeap) push(t *terminal) {
	*h = append(*h, dueEntry{t.at, t})
	q := *h
	for i := len(q) - 1; i > 0; {
		p := (i - 1) / 2
		if q[p].at <= q[i].at {
			break
		}
		q[p], q[i] = q[i], q[p]
		i = p
	}
}

// pop removes and returns the terminal due first; the heap is not empty.
func (h *dueHeap) pop() *terminal {
	q := *h
	t := q[0].t
	n := len(q) - 1
	q[0] = q[n]
	q[n] = dueEntry{}
	*h = q[:n]
	h.down(0)
	return t
}

func (h dueHeap) down(i int) {
	for n := len(h); ; {
		m := 2*i + 1
		if m >= n {
			return
		}
		if r := m + 1; r < n && h[r].at < h[m].at {
			m = r
		}
		if h[i].at <= h[m].at {
			return
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
}
