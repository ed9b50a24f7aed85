package engine

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"sync/atomic"
	"time"

	"github.com/sledge-bench/sledge/internal/db"
	"github.com/sledge-bench/sledge/internal/metrics"
	"github.com/sledge-bench/sledge/internal/workload"
)

// The one execution path every executor hands its transactions to: the
// keying and think times of paced units, then transact — the attempts and
// retries, the error classes, the recording, and the reconnects of a lost
// session — so that every load model reports alike.

// attempter runs a chosen transaction once (workload.Worker, onSession).
type attempter interface {
	Execute(ctx context.Context) error
}

// reconnector re-opens a lost session (workload.Worker, workload.Session).
type reconnector interface {
	Reconnect(ctx context.Context) error
}

// onSession is a terminal's transaction bound to a pool session.
type onSession struct {
	term workload.Terminal
	sess workload.Session
}

func (o *onSession) Execute(ctx context.Context) error { return o.term.ExecuteOn(ctx, o.sess) }

// What became of a transaction (transact).
const (
	txDone      = iota // recorded
	txCancelled        // cut off at the run's stop: not a result
	txEnded            // its session was lost and could not be re-opened before the stop
)

// transact runs transaction tx (already chosen) on ex, retrying per policy,
// records it on rec — its latency from began, its schedule lag lag — and
// deals with its failure: a lost session is re-opened through rc, unless
// last says nothing follows it. id is the session's number in the run (logs
// and outages).
func (r *run) transact(ctx context.Context, id, tx int, began time.Time, lag time.Duration,
	ex attempter, rc reconnector, rec *metrics.Recorder, last bool) (metrics.Event, int) {
	var (
		err      error
		cls      db.ErrorClass
		retries  int
		retryCls db.ErrorClass
	)
	slot := id - r.cfg.FirstVU
	// (A scheduled transaction's latency counts from when it was due; its
	// wait on the database, from now: began + its lag.)
	r.watch.begin(slot, began.Add(lag))
	for {
		err = ex.Execute(ctx)
		if err == nil || errors.Is(err, workload.ErrRolledBack) {
			break
		}
		cls = r.wl.Classify(err)
		if !cls.Retryable() || retries >= r.cfg.MaxRetries || r.stop.Load() {
			break
		}
		retries++
		retryCls = cls
	}
	end := time.Now()
	if ctx.Err() != nil {
		r.watch.release(slot)
		return metrics.Event{}, txCancelled // cancelled at stop: outside the window, not a result
	}
	e := metrics.Event{End: end.Sub(r.clock.t0), Latency: end.Sub(began), Lag: lag, Tx: uint8(tx), Retries: uint8(retries), RetryClass: retryCls}
	r.watch.done(slot, e.End)
	switch {
	case err == nil:
		e.Outcome = metrics.Committed
	case errors.Is(err, workload.ErrRolledBack):
		e.Outcome = metrics.RolledBack
	default:
		e.Outcome = metrics.Failed(cls)
	}
	rec.Record(e)
	switch {
	case e.Outcome == metrics.Committed:
		r.track.committed(e.End)
	case e.Outcome != metrics.RolledBack:
		r.logError(id, tx, cls, err)
		if cls != db.ClassConnection {
			r.track.failed(e.End, cls)
			break
		}
		ev := r.track.lost(id, e.End, cls)
		if last {
			break // its work is done: it needs no new session
		}
		rec.SetState(metrics.VUReconnecting)
		ok, attempts := r.reconnect(ctx, id, rc)
		r.track.reconnected(ev, ok, r.clock.now(), attempts)
		if !ok {
			return e, txEnded
		}
		rec.SetState(metrics.VURunning)
	}
	return e, txDone
}

// logError logs a failed transaction of VU vu (its number in the whole run).
func (r *run) logError(vu, tx int, cls db.ErrorClass, err error) {
	n := r.logged[cls].Add(1)
	if n <= errorsLoggedPerClass {
		r.out.Logf("vu %d: %s failed (%s): %v", vu+1, r.wl.TxNames()[tx], cls, err)
		if n == errorsLoggedPerClass {
			r.out.Logf("(further %s errors are counted but not printed)", cls)
		}
	}
}

// reconnect re-opens the session of VU vu (its number in the whole run) with
// exponential backoff until it works or the run stops. It reports false
// when the VU should end, and how many attempts it made. The backoff is
// capped at half an interval (within 100 ms and 5 s, jittered), so that a VU
// is back within about an interval of the database and the outage's end is
// seen at that resolution.
func (r *run) reconnect(ctx context.Context, vu int, w reconnector) (bool, int) {
	backoff := 100 * time.Millisecond
	ceiling := min(max(r.cfg.Interval/2, 100*time.Millisecond), 5*time.Second)
	attempt := 0
	for !r.stop.Load() {
		attempt++
		err := w.Reconnect(ctx)
		if err == nil {
			if attempt > 1 {
				r.out.Logf("vu %d: reconnected after %d attempts", vu+1, attempt)
			}
			return true, attempt
		}
		if ctx.Err() != nil {
			return false, attempt
		}
		if attempt == 1 || attempt%10 == 0 {
			r.out.Logf("vu %d: reconnect attempt %d failed: %v", vu+1, attempt, err)
		}
		// ±20% jitter: VUs that lost their sessions together do not all
		// knock at once.
		if !r.wait(ctx, time.Duration(float64(backoff)*(0.8+0.4*rand.Float64()))) {
			return false, attempt
		}
		backoff = min(2*backoff, ceiling)
	}
	return false, attempt
}

// wait sleeps d unless the run stops first; false when it did.
func (r *run) wait(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return !r.stop.Load()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return !r.stop.Load()
	case <-r.stopped:
		return false
	case <-ctx.Done():
		return false
	}
}

// paceSums adds up the keying and think times the units waited.
type paceSums struct {
	keying, think   atomic.Int64 // nanoseconds
	keyingN, thinkN atomic.Int64
}

// pacing is one paced unit's keying and think times (a VU or a terminal):
// nil for an unpaced one, whose waits are none.
type pacing struct {
	r   *run
	p   workload.Pacer
	rng *rand.Rand
}

// newPacing is unit's pacing (unit: its number in the whole run), nil when
// the run is unpaced or the workload has no operator times.
func (r *run) newPacing(unit int) *pacing {
	p, ok := r.wl.(workload.Pacer)
	if !ok || r.cfg.Pacing <= 0 {
		return nil
	}
	return &pacing{r: r, p: p, rng: rand.New(rand.NewPCG(uint64(unit), uint64(time.Now().UnixNano())))}
}

// key waits the keying time of tx from from and returns when the
// transaction is due (from itself when unpaced); false when the run
// stopped first.
func (p *pacing) key(ctx context.Context, tx int, from time.Time) (time.Time, bool) {
	if p == nil {
		return from, true
	}
	k := p.keying(tx)
	due := from.Add(k)
	if !p.r.wait(ctx, time.Until(due)) {
		return due, false
	}
	p.keyed(tx, k)
	return due, true
}

// keying is tx's keying time, scaled (none when unpaced).
func (p *pacing) keying(tx int) time.Duration {
	if p == nil {
		return 0
	}
	k, _ := p.p.Pacing(tx)
	return p.r.scaled(k)
}

// keyed counts keying time k of tx, waited out, in the audit.
func (p *pacing) keyed(tx int, k time.Duration) {
	if p == nil {
		return
	}
	p.r.pace[tx].keying.Add(int64(k))
	p.r.pace[tx].keyingN.Add(1)
}

// think waits a think time drawn for tx (none when unpaced); false when the
// run stopped first.
func (p *pacing) think(ctx context.Context, tx int) bool {
	if p == nil {
		return true
	}
	return p.r.wait(ctx, p.drawThink(tx))
}

// drawThink draws a think time for tx and counts it in the audit (none when
// unpaced).
func (p *pacing) drawThink(tx int) time.Duration {
	if p == nil {
		return 0
	}
	_, mean := p.p.Pacing(tx)
	th := p.r.scaled(thinkTime(p.rng, mean))
	// Counted when drawn, not when waited out: the think times the run's
	// end cuts are the long ones (a unit is the likelier to be in one the
	// longer it is), so leaving them out would bias the audited mean low.
	p.r.pace[tx].think.Add(int64(th))
	p.r.pace[tx].thinkN.Add(1)
	return th
}

// thinkTime draws Tt = −ln(u)·μ with u uniform in (0, 1], capped at 10μ and
// not rounded.
func thinkTime(rng *rand.Rand, mean time.Duration) time.Duration {
	u := 1 - rng.Float64()
	return time.Duration(min(-math.Log(u)*float64(mean), 10*float64(mean)))
}

func (r *run) scaled(d time.Duration) time.Duration {
	if r.cfg.Pacing == 1 {
		return d
	}
	return time.Duration(float64(d) * r.cfg.Pacing)
}

// paceAudit reports the keying times the units waited and the think times
// they drew (the last ones cut by the run's end), per transaction type, against the workload's (scaled) values. Keying times
// are constant; think times are random, so their mean is judged only once a
// type has 100 of them: within 10% of the mean (whose cap at ten times
// lowers it by a factor of 0.99995), or within 3.3 standard errors when
// that is wider — a negative exponential's standard deviation is its mean,
// so the mean of n draws strays by mean/√n (10% at n = 100): a tolerance of
// 10% alone would fail a correct run one time in three.
func (r *run) paceAudit() []metrics.AuditItem {
	pacer, ok := r.wl.(workload.Pacer)
	if !ok || r.cfg.Pacing <= 0 {
		return nil
	}
	var items []metrics.AuditItem
	names := r.wl.TxNames()
	for tx := range r.pace {
		p := &r.pace[tx]
		keying, thinkMean := pacer.Pacing(tx)
		wantK, wantT := r.scaled(keying).Seconds(), r.scaled(thinkMean).Seconds()*0.99995
		if n := p.keyingN.Load(); n > 0 {
			mean := time.Duration(p.keying.Load() / n).Seconds()
			items = append(items, metrics.AuditItem{Name: "keying time " + names[tx], Value: mean, Unit: " s",
				Target: fmt.Sprintf("= %.4g", wantK), OK: math.Abs(mean-wantK) <= 0.001})
		}
		if n := p.thinkN.Load(); n > 0 {
			mean := time.Duration(p.think.Load() / n).Seconds()
			items = append(items, metrics.AuditItem{Name: "think time " + names[tx], Value: mean, Unit: " s",
				Target: fmt.Sprintf("≈ %.4g (mean)", r.scaled(thinkMean).Seconds()),
				OK:     n < 100 || math.Abs(mean-wantT) <= max(0.1, 3.3/math.Sqrt(float64(n)))*wantT})
		}
	}
	return items
}
