package engine

import (
	"context"
	"fmt"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/sledge-bench/sledge/internal/metrics"
	"github.com/sledge-bench/sledge/internal/workload"
)

// The session pool of the executors whose units share sessions (terminals,
// arrivals): opened as the load starts, closed when it ends.

// pooled is one session of a pool, with the recorder of what runs on it.
type pooled struct {
	id  int // its number in the whole run (0-based)
	rec *metrics.Recorder
	on  onSession
}

// openPool opens the run's sessions, up to 16 at a time (as closed-loop VUs
// log in together, but without a burst of thousands), and says when they
// were not all open by the end of the ramp-up: the window then opened with
// part of the pool.
func (r *run) openPool(ctx context.Context, pool workload.Pool, recs []*metrics.Recorder) ([]*pooled, error) {
	out := make([]*pooled, len(recs))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(16)
	for i, rec := range recs {
		g.Go(func() error {
			if r.stop.Load() {
				return nil
			}
			opening := time.Now()
			s, err := pool.NewSession(gctx)
			if err != nil {
				return fmt.Errorf("session %d of %d: %w", i+1, len(recs), err)
			}
			r.connects.add(time.Since(opening))
			rec.SetState(metrics.VURunning)
			out[i] = &pooled{id: r.cfg.FirstVU + i, rec: rec, on: onSession{sess: s}}
			return nil
		})
	}
	err := g.Wait()
	opened := out[:0]
	for _, p := range out {
		if p != nil {
			opened = append(opened, p)
		}
	}
	if err != nil {
		closePool(opened)
		return nil, err
	}
	if took := r.clock.now(); r.cfg.Rampup > 0 && took > r.cfg.Rampup {
		r.out.Logf("warning: opening the %d sessions took %.1f s, longer than the %s ramp-up: the window opened before the pool was ready",
			len(recs), took.Seconds(), r.cfg.Rampup)
	}
	return opened, nil
}

func closePool(ps []*pooled) {
	for _, p := range ps {
		p.rec.SetState(metrics.VUStopped)
		_ = p.on.sess.Close(context.Background())
	}
}

// withPool runs use in a goroutine of wg's with the run's pool open, and
// closes it when use returns; a pool that cannot be opened is fatal.
func (r *run) withPool(ctx context.Context, pool workload.Pool, recs []*metrics.Recorder, fatal chan<- error, wg *sync.WaitGroup,
	use func(sessions []*pooled)) {
	wg.Add(1)
	go func() {
		defer wg.Done()
		sessions, err := r.openPool(ctx, pool, recs)
		if err != nil {
			fatal <- err
			return
		}
		defer closePool(sessions)
		if len(sessions) == 0 {
			return // stopped before any session opened: nothing to run
		}
		use(sessions)
	}()
}

// lagAccount is the schedule figures every pooled executor reports: the
// lag of its transactions from due to sent, and how many were late.
func (r *run) lagAccount(l *metrics.LoadResult) {
	l.LagP50, l.LagP99, l.LagMax, l.Late = r.col.Lag()
}
