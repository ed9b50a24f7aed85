package engine

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/sledge-bench/sledge/internal/db"
	"github.com/sledge-bench/sledge/internal/metrics"
	"github.com/sledge-bench/sledge/internal/workload"
)

// Three schedulers feed one execution path (transact): closed-loop VUs
// (each a session of its own, the next transaction when the last one
// ended), terminals over a pool of sessions (each terminal on its own
// keying and think schedule), and open-loop arrivals at a rate. Whichever
// decides when a transaction is due, transact runs it with the same
// retries, error classes, recording and reconnects, so the three report
// alike.

// Load models.
const (
	modelClosed = iota
	modelTerminals
	modelRate
)

// defaultMaxQueue is Config.MaxQueue's default; maxMaxQueue bounds it (an
// arrival waiting takes 32 bytes: 320 MB at most).
const (
	defaultMaxQueue = 100000
	maxMaxQueue     = 10000000
)

func hasPositive(v []float64) bool {
	for _, x := range v {
		if x > 0 {
			return true
		}
	}
	return false
}

func (c Config) model() int {
	switch {
	case c.Rate > 0 || len(c.RateByType) > 0:
		return modelRate
	case c.Terminals > 0:
		return modelTerminals
	}
	return modelClosed
}

// sessions is how many sessions (and recorders) the run has: the VUs of a
// closed-loop run (of its largest stage when staged), else the pool.
func (c Config) sessions() int {
	if c.model() != modelClosed {
		return c.Connections
	}
	n := c.VUs
	for _, st := range c.Stages {
		n = max(n, int(st.Target))
	}
	return n
}

// units is how many schedulable units the run has: VUs or terminals (of
// the largest stage).
func (c Config) units() int {
	if c.model() == modelTerminals {
		n := c.Terminals
		for _, st := range c.Stages {
			n = max(n, int(st.Target))
		}
		return n
	}
	return c.sessions()
}

func (c Config) validateLoad() error {
	m := c.model()
	switch {
	case m != modelClosed && c.Connections < 1:
		return fmt.Errorf("a terminal or rate run needs at least one connection (got %d)", c.Connections)
	case m != modelClosed && c.Iterations > 0:
		return errors.New("an iteration run is a run of closed-loop VUs, not of terminals or arrivals")
	case m != modelClosed && c.Partial:
		return errors.New("a run split over several processes runs closed-loop VUs")
	case m == modelRate && c.Pacing > 0:
		return errors.New("a rate run is not paced: its arrivals are its schedule")
	case m == modelRate && c.Rate <= 0:
		return fmt.Errorf("the rate must be positive (got %g)", c.Rate)
	case c.MaxQueue < 0 || c.MaxQueue > maxMaxQueue:
		return fmt.Errorf("the queue bound must be in 0..%d (got %d)", maxMaxQueue, c.MaxQueue)
	case m == modelRate && len(c.RateByType) > 0 && !hasPositive(c.RateByType):
		return errors.New("a rate per type needs one type with a positive rate")
	case len(c.Stages) > 0 && c.Iterations > 0:
		return errors.New("an iteration run has no stages")
	case c.units() > 100000:
		return fmt.Errorf("at most 100000 terminals (got %d)", c.units())
	case c.sessions() > 10000:
		return fmt.Errorf("at most 10000 sessions (got %d)", c.sessions())
	case len(c.Stages) > 0 && c.Partial:
		return errors.New("a run split over several processes has no stages")
	}
	for i, st := range c.Stages {
		if st.Duration <= 0 || !(st.Target > 0) {
			return fmt.Errorf("stage %d: its duration and target must be positive (got %s, %g)", i+1, st.Duration, st.Target)
		}
		if m != modelRate && st.Target != math.Trunc(st.Target) {
			return fmt.Errorf("stage %d: %g is not a whole number of VUs or terminals", i+1, st.Target)
		}
	}
	return nil
}

// executor runs a chosen transaction once (workload.Worker, onSession).
type executor interface {
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
	ex executor, rc reconnector, rec *metrics.Recorder, last bool) (metrics.Event, int) {
	var (
		err      error
		cls      db.ErrorClass
		retries  int
		retryCls db.ErrorClass
	)
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
		return metrics.Event{}, txCancelled // cancelled at stop: outside the window, not a result
	}
	e := metrics.Event{End: end.Sub(r.start), Latency: end.Sub(began), Lag: lag, Tx: uint8(tx), Retries: uint8(retries), RetryClass: retryCls}
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
		r.track.reconnected(ev, ok, r.clock(), attempts)
		if !ok {
			return e, txEnded
		}
		rec.SetState(metrics.VURunning)
	}
	return e, txDone
}

// levels is the load a staged run offers now: the VUs or terminals in use
// and the rate. The monitor sets it at each stage's start; the VUs,
// terminals and the arrival process read it.
type levels struct {
	units atomic.Int64  // VUs or terminals in use
	rate  atomic.Uint64 // transactions per second, as float64 bits
	// changed is closed (and replaced) when the level changes: it wakes
	// the idle VUs and the arrival process. Read on every transaction of a
	// staged run: an atomic, not a lock.
	changed atomic.Pointer[chan struct{}]
}

func newLevels(cfg Config) *levels {
	l := &levels{}
	ch := make(chan struct{})
	l.changed.Store(&ch)
	l.units.Store(int64(cfg.units()))
	l.rate.Store(math.Float64bits(cfg.Rate))
	if len(cfg.Stages) > 0 {
		l.set(cfg, cfg.Stages[0].Target)
	}
	return l
}

// set makes target the level of the model's units or rate.
func (l *levels) set(cfg Config, target float64) {
	if cfg.model() == modelRate {
		l.rate.Store(math.Float64bits(target))
	} else {
		l.units.Store(int64(target))
	}
	// Only the monitor sets levels: the swap needs no lock.
	next := make(chan struct{})
	close(*l.changed.Swap(&next))
}

func (l *levels) watch() <-chan struct{} { return *l.changed.Load() }

func (l *levels) currentRate() float64 { return math.Float64frombits(l.rate.Load()) }

// awaitTurn waits while unit (a VU or terminal, 0-based in this process)
// is not used by the current stage; false when the run stopped meanwhile.
func (r *run) awaitTurn(ctx context.Context, unit int, rec *metrics.Recorder) bool {
	idle := false
	defer func() {
		if idle {
			rec.SetState(metrics.VURunning)
		}
	}()
	for {
		ch := r.level.watch()
		if int64(unit) < r.level.units.Load() {
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

// pooled is one session of a terminal or rate run's pool, with the
// recorder of what runs on it.
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
			s, err := pool.NewSession(gctx)
			if err != nil {
				return fmt.Errorf("session %d of %d: %w", i+1, len(recs), err)
			}
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
	if took := r.clock(); r.cfg.Rampup > 0 && took > r.cfg.Rampup {
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

// startTerminals starts a terminal run: it opens the pool, then starts the
// terminals, spread over the first half of the ramp-up.
func (r *run) startTerminals(ctx context.Context, pool workload.Pool, recs []*metrics.Recorder, fatal chan<- error, wg *sync.WaitGroup) {
	r.withPool(ctx, pool, recs, fatal, wg, func(sessions []*pooled) {
		free := make(chan *pooled, len(sessions))
		for _, p := range sessions {
			free <- p
		}
		n := r.cfg.units()
		step := time.Duration(0)
		if r.cfg.Rampup > 0 && n > 1 {
			step = min(r.cfg.Rampup/2/time.Duration(n), 100*time.Millisecond)
		}
		var terms sync.WaitGroup
		for i := 0; i < n; i++ {
			term := pool.NewTerminal(r.cfg.FirstVU + i)
			terms.Add(1)
			go func() {
				defer terms.Done()
				r.terminal(ctx, i, term, time.Duration(i)*step, free)
			}()
		}
		terms.Wait()
	})
}

// terminal is one terminal's life: key, wait for a session, run, think.
func (r *run) terminal(ctx context.Context, unit int, term workload.Terminal, delay time.Duration, free chan *pooled) {
	if delay > 0 && !r.wait(ctx, delay) {
		return
	}
	pacer, paced := r.wl.(workload.Pacer)
	paced = paced && r.cfg.Pacing > 0
	var rng *rand.Rand
	if paced {
		rng = rand.New(rand.NewPCG(uint64(r.cfg.FirstVU+unit), uint64(time.Now().UnixNano())))
	}
	staged := len(r.cfg.Stages) > 0
	for !r.stop.Load() {
		if staged && !r.awaitTurn(ctx, unit, nil) {
			return
		}
		tx := term.Next()
		due := time.Now()
		var thinkMean time.Duration
		if paced {
			var keying time.Duration
			keying, thinkMean = pacer.Pacing(tx)
			k := r.scaled(keying)
			due = due.Add(k)
			if !r.wait(ctx, time.Until(due)) {
				return
			}
			r.pace[tx].keying.Add(int64(k))
			r.pace[tx].keyingN.Add(1)
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
		if paced {
			th := r.scaled(thinkTime(rng, thinkMean))
			if !r.wait(ctx, th) {
				return
			}
			r.pace[tx].think.Add(int64(th))
			r.pace[tx].thinkN.Add(1)
		}
	}
}

// arrival is one scheduled transaction of a rate run.
type arrival struct {
	at time.Time
	tx int // -1: the terminal draws it
}

// startRate starts a rate run: it opens the pool, starts one worker per
// session and the arrival process.
func (r *run) startRate(ctx context.Context, pool workload.Pool, recs []*metrics.Recorder, fatal chan<- error, wg *sync.WaitGroup) {
	r.withPool(ctx, pool, recs, fatal, wg, func(sessions []*pooled) {
		limit := r.cfg.MaxQueue
		if limit == 0 {
			limit = defaultMaxQueue
		}
		queue := make(chan arrival, limit)
		// The arrivals' inputs come from Terminals terminals (at least one
		// per session), dealt round-robin to the sessions: with fewer
		// sessions than a workload's terminals, every home still gets its
		// share of the arrivals.
		terms := make([][]workload.Terminal, len(sessions))
		for j := 0; j < max(r.cfg.Terminals, len(sessions)); j++ {
			terms[j%len(sessions)] = append(terms[j%len(sessions)], pool.NewTerminal(r.cfg.FirstVU+j))
		}
		var workers sync.WaitGroup
		for i, p := range sessions {
			workers.Add(1)
			go func() {
				defer workers.Done()
				r.rateWorker(ctx, p, terms[i], queue)
			}()
		}
		r.arrivals(ctx, queue)
		workers.Wait()
	})
}

// arrivals schedules the rate run's transactions until the run stops: a
// Poisson process at the current level's rate (exponential gaps), each
// arrival's type drawn in proportion to RateByType when given. An arrival
// that finds the queue full is dropped and counted. Arrivals are scheduled
// on the clock, not on when the previous one was taken: a slow database
// makes the queue grow, never the schedule slip.
func (r *run) arrivals(ctx context.Context, queue chan<- arrival) {
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), uint64(r.cfg.FirstVU)))
	var cum []float64 // cumulative type weights
	var total float64
	for _, v := range r.cfg.RateByType {
		total += v
		cum = append(cum, total)
	}
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	next := time.Now()
	for !r.stop.Load() {
		changed := r.level.watch()
		rate := r.level.currentRate()
		next = next.Add(time.Duration(rng.ExpFloat64() / rate * float64(time.Second)))
		if d := time.Until(next); d > 0 {
			timer.Reset(d)
			select {
			case <-timer.C:
			case <-changed:
				// A new stage's rate from now: the process is memoryless,
				// so the next gap is drawn afresh.
				if !timer.Stop() {
					<-timer.C
				}
				next = time.Now()
				continue
			case <-r.stopped:
				return
			case <-ctx.Done():
				return
			}
		}
		a := arrival{at: next, tx: -1}
		if cum != nil {
			u := rng.Float64() * total
			a.tx = len(cum) - 1
			for i, c := range cum {
				if u < c {
					a.tx = i
					break
				}
			}
		}
		select {
		case queue <- a:
			r.scheduled.Add(1)
		default:
			r.scheduled.Add(1)
			r.dropped.Add(1)
		}
	}
}

// rateWorker runs the queued arrivals on one session, taking its
// terminals' inputs in turn.
func (r *run) rateWorker(ctx context.Context, p *pooled, terms []workload.Terminal, queue <-chan arrival) {
	for k := 0; !r.stop.Load(); k++ {
		term := terms[k%len(terms)]
		p.on.term = term
		var a arrival
		select {
		case a = <-queue:
		case <-r.stopped:
			return
		case <-ctx.Done():
			return
		}
		lag := time.Since(a.at)
		tx := a.tx
		if tx >= 0 {
			term.Choose(tx)
		} else {
			tx = term.Next()
		}
		if _, st := r.transact(ctx, p.id, tx, a.at, lag, &p.on, p.on.sess, p.rec, false); st != txDone {
			return
		}
	}
}

// stageEnds are the stages' ends from the window's start.
func stageEnds(cfg Config) []time.Duration {
	ends := make([]time.Duration, len(cfg.Stages))
	var t time.Duration
	for i, st := range cfg.Stages {
		t += st.Duration
		ends[i] = t
	}
	return ends
}

// askedRate is a rate run's asked rate over the window: the stages'
// targets weighted by the time each was measured, else rate.
func askedRate(rate float64, stages []metrics.StageResult) float64 {
	var sum, secs float64
	for _, st := range stages {
		d := (st.End - st.Start).Seconds()
		sum += st.Target * d
		secs += d
	}
	if secs <= 0 {
		return rate
	}
	return sum / secs
}
