package engine

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/sledge-bench/sledge/internal/metrics"
)

// closedLoop is closed-loop virtual users: each VU is a session of its
// own that runs its next transaction as soon as the last one ended (after
// its keying and think times when paced). A staged run opens the largest
// stage's VUs at the start; those the current stage does not use wait
// idle.
type closedLoop struct {
	r   *run
	vus int
}

// iterationVUs is closed-loop VUs that each run Config.Iterations
// transactions and stop (HammerDB's test driver): the run ends when the
// last VU is done (a finite executor).
type iterationVUs struct {
	*closedLoop
	// finished is when each VU ended its last iteration (0: it did not);
	// each VU writes its own slot, the monitor reads them once every VU has
	// returned.
	finished []time.Duration
}

func newClosedLoop(r *run) executor {
	c := &closedLoop{r: r, vus: r.cfg.sessions()}
	if r.cfg.Iterations > 0 {
		return &iterationVUs{closedLoop: c, finished: make([]time.Duration, c.vus)}
	}
	return c
}

func (c *closedLoop) sessions() int { return c.vus }
func (c *closedLoop) unit() string  { return "virtual users" }
func (c *closedLoop) describe() string {
	return fmt.Sprintf("%d virtual users", c.vus)
}
func (c *closedLoop) account(*metrics.RunResult) {}

func (c *closedLoop) start(ctx context.Context, recs []*metrics.Recorder, fatal chan<- error, wg *sync.WaitGroup) {
	c.spawn(ctx, recs, fatal, wg, nil)
}

func (it *iterationVUs) start(ctx context.Context, recs []*metrics.Recorder, fatal chan<- error, wg *sync.WaitGroup) {
	it.spawn(ctx, recs, fatal, wg, it.finished)
}

// spawn starts the VUs, spread over the first half of the ramp-up; with
// finished, each runs Config.Iterations transactions and notes its end.
func (c *closedLoop) spawn(ctx context.Context, recs []*metrics.Recorder, fatal chan<- error, wg *sync.WaitGroup, finished []time.Duration) {
	step := staggerStep(c.r.cfg.Rampup, c.vus)
	for i := range c.vus {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c.vu(ctx, i, time.Duration(i)*step, recs[i], fatal, finished)
		}()
	}
}

// vu is one virtual user's life: connect, then transactions until stopped
// or, in an iteration run (finished set), until it has run its iterations.
func (c *closedLoop) vu(ctx context.Context, vu int, delay time.Duration, rec *metrics.Recorder, fatal chan<- error, finished []time.Duration) {
	r := c.r
	defer rec.SetState(metrics.VUStopped)
	if !r.wait(ctx, delay) {
		return
	}
	id := r.cfg.FirstVU + vu // the VU's number in the whole run
	opening := time.Now()
	w, err := r.wl.NewWorker(ctx, id)
	if err != nil {
		fatal <- fmt.Errorf("virtual user %d: %w", id+1, err)
		return
	}
	r.connects.add(time.Since(opening))
	defer w.Close(context.Background())
	rec.SetState(metrics.VURunning)
	pace := r.newPacing(id)
	// An int compare per transaction: the hot path stays free of locks.
	iterations, done := r.cfg.Iterations, 0
	staged := len(r.cfg.Stages) > 0
	for !r.stop.Load() {
		if staged && !r.awaitTurn(ctx, vu, rec) {
			return
		}
		tx := w.Next()
		if pace != nil {
			if _, ok := pace.key(ctx, tx, time.Now()); !ok {
				return
			}
		}
		done++
		last := done == iterations // never in a timed run (iterations 0)
		e, st := r.transact(ctx, id, tx, time.Now(), 0, w, w, rec, last)
		if st != txDone {
			return
		}
		if last {
			// Its last think time is not waited: nothing follows it, and it
			// would only lengthen the elapsed time.
			finished[vu] = e.End
			return
		}
		if !pace.think(ctx, tx) {
			return
		}
	}
}

// lastEnd is when the last VU ended its last iteration.
func (it *iterationVUs) lastEnd() time.Duration {
	var end time.Duration
	for _, f := range it.finished {
		end = max(end, f)
	}
	return end
}

func (it *iterationVUs) plan() string {
	return fmt.Sprintf("iteration run: each of the %d virtual users runs %d transactions, then stops; no ramp-up, measuring until the last is done",
		it.vus, it.r.cfg.Iterations)
}
