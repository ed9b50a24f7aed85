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

// start opens the pool, then starts the terminals, spread over the first
// half of the ramp-up.
func (t *terminals) start(ctx context.Context, recs []*metrics.Recorder, fatal chan<- error, wg *sync.WaitGroup) {
	r := t.r
	r.withPool(ctx, t.pool, recs, fatal, wg, func(sessions []*pooled) {
		free := make(chan *pooled, len(sessions))
		for _, p := range sessions {
			free <- p
		}
		step := staggerStep(r.cfg.Rampup, t.n)
		var terms sync.WaitGroup
		for i := range t.n {
			term := t.pool.NewTerminal(r.cfg.FirstVU + i)
			terms.Add(1)
			go func() {
				defer terms.Done()
				t.terminal(ctx, i, term, time.Duration(i)*step, free)
			}()
		}
		terms.Wait()
	})
}

// terminal is one terminal's life: key, wait for a session, run, think.
func (t *terminals) terminal(ctx context.Context, unit int, term workload.Terminal, delay time.Duration, free chan *pooled) {
	r := t.r
	if !r.wait(ctx, delay) {
		return
	}
	pace := r.newPacing(r.cfg.FirstVU + unit)
	staged := len(r.cfg.Stages) > 0
	for !r.stop.Load() {
		if staged && !r.awaitTurn(ctx, unit, nil) {
			return
		}
		tx := term.Next()
		due, ok := pace.key(ctx, tx, time.Now())
		if !ok {
			return
		}
		var p *pooled
		select {
		case p = <-free:
		case <-r.stopped:
			return
		case <-ctx.Done():
			return
		}
		if r.stop.Load() {
			// Stopped while it waited: select picks at random among ready
			// cases, so the session may have come with the stop.
			free <- p
			return
		}
		lag := time.Since(due)
		p.on.term = term
		_, st := r.transact(ctx, p.id, tx, due, lag, &p.on, p.on.sess, p.rec, false)
		p.on.term = nil
		if st != txDone {
			// Cancelled at the stop, or its session is lost for good: it
			// goes back to no one.
			return
		}
		free <- p
		if !pace.think(ctx, tx) {
			return
		}
	}
}
