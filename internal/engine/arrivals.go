package engine

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sledge-bench/sledge/internal/metrics"
	"github.com/sledge-bench/sledge/internal/workload"
)

// arrivals is open-loop arrivals at a rate: transactions scheduled by a
// Poisson process on the clock, whatever the sessions are doing, queued for
// a pool of sessions, their latency counted from their scheduled start. A
// staged run's stages are rates.
type arrivals struct {
	r     *run
	pool  workload.Pool
	conns int

	// The arrivals scheduled and dropped since the last tick (the arrival
	// process adds, the monitor swaps), and in the window (the monitor's).
	scheduled, dropped   atomic.Int64
	winSched, winDropped int64
	// The arrivals skipped as too late (Config.SkipLate), likewise.
	skipped    atomic.Int64
	winSkipped int64
}

// arrival is one scheduled transaction of a rate run.
type arrival struct {
	at time.Time
	tx int // -1: the terminal draws it
}

func newArrivals(r *run, pool workload.Pool) executor {
	return &arrivals{r: r, pool: pool, conns: r.cfg.Connections}
}

func (a *arrivals) sessions() int { return a.conns }
func (a *arrivals) unit() string  { return "transactions per second" }
func (a *arrivals) describe() string {
	rate := a.r.cfg.Rate
	if len(a.r.cfg.Stages) > 0 {
		rate = a.r.cfg.Stages[0].Target
	}
	return fmt.Sprintf("arrivals at %g transactions per second over %d sessions", rate, a.conns)
}

// tick adds the interval's arrivals and drops to it (and to the window's).
func (a *arrivals) tick(iv *metrics.Interval, measuring bool) {
	iv.Scheduled, iv.Dropped = a.scheduled.Swap(0), a.dropped.Swap(0)
	skipped := a.skipped.Swap(0)
	if measuring {
		a.winSched += iv.Scheduled
		a.winDropped += iv.Dropped
		a.winSkipped += skipped
	}
}

func (a *arrivals) maxQueue() int {
	if a.r.cfg.MaxQueue == 0 {
		return defaultMaxQueue
	}
	return a.r.cfg.MaxQueue
}

// account is the rate run's load account: the rate asked and achieved, the
// arrivals scheduled and dropped, the schedule lag; with a warning for any
// drop and for an achieved rate below the asked beyond chance.
func (a *arrivals) account(res *metrics.RunResult) {
	l := &metrics.LoadResult{Model: metrics.LoadRate, Connections: a.conns,
		AskedRate: askedRate(a.r.cfg.Rate, res.Stages), Scheduled: a.winSched, Dropped: a.winDropped, MaxQueue: a.maxQueue(),
		SkipLate: a.r.cfg.SkipLate, Skipped: a.winSkipped}
	if s := res.Measured.Seconds(); s > 0 {
		l.AchievedRate = float64(res.Commits+res.RolledBack+res.Errors) / s
	}
	a.r.lagAccount(l)
	res.Load = l
	if l.Dropped > 0 {
		res.Warnings = append(res.Warnings, fmt.Sprintf(
			"%d scheduled transactions were dropped: %d were already waiting for a session (more sessions, a larger queue bound or a lower rate)",
			l.Dropped, l.MaxQueue))
	}
	// Poisson arrivals miss their mean by chance: n expected stray by √n.
	// Warn beyond 5 % or 3.3 standard deviations, whichever is wider.
	expected := l.AskedRate * res.Measured.Seconds()
	if l.Scheduled == 0 && expected > 0 {
		// At the lowest rate allowed (config.MinRate: one arrival
		// expected), a window goes without any e⁻¹ of the time.
		res.Warnings = append(res.Warnings, fmt.Sprintf(
			"no transaction arrived in the measured window: %.2g were expected at %g per second, and a Poisson process can miss so few by chance; nothing was measured (a higher rate or a longer window)",
			expected, l.AskedRate))
		return
	}
	if expected > 0 && l.AchievedRate < (1-max(0.05, 3.3/math.Sqrt(expected)))*l.AskedRate {
		res.Warnings = append(res.Warnings, fmt.Sprintf(
			"the achieved rate, %.1f per second, is below the %.1f asked: the sessions could not keep up", l.AchievedRate, l.AskedRate))
	}
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

// start opens the pool, starts one worker per session and the arrival
// process.
func (a *arrivals) start(ctx context.Context, recs []*metrics.Recorder, fatal chan<- error, wg *sync.WaitGroup) {
	r := a.r
	r.withPool(ctx, a.pool, recs, fatal, wg, func(sessions []*pooled) {
		queue := make(chan arrival, a.maxQueue())
		// The arrivals' inputs come from Terminals terminals (at least one
		// per session), dealt round-robin to the sessions: with fewer
		// sessions than a workload's terminals, every home still gets its
		// share of the arrivals.
		terms := make([][]workload.Terminal, len(sessions))
		for j := range max(r.cfg.Terminals, len(sessions)) {
			terms[j%len(sessions)] = append(terms[j%len(sessions)], a.pool.NewTerminal(r.cfg.FirstVU+j))
		}
		var workers sync.WaitGroup
		for i, p := range sessions {
			workers.Add(1)
			go func() {
				defer workers.Done()
				a.worker(ctx, p, terms[i], queue)
			}()
		}
		a.schedule(ctx, queue)
		workers.Wait()
	})
}

// schedule schedules the rate run's transactions until the run stops: a
// Poisson process at the current level's rate (exponential gaps), each
// arrival's type drawn in proportion to RateByType when given. An arrival
// that finds the queue full is dropped and counted. Arrivals are scheduled
// on the clock, not on when the previous one was taken: a slow database
// makes the queue grow, never the schedule slip.
func (a *arrivals) schedule(ctx context.Context, queue chan<- arrival) {
	r := a.r
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
		rate := r.level.current()
		next = next.Add(interArrival(rng.ExpFloat64(), rate))
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
		arr := arrival{at: next, tx: -1}
		if cum != nil {
			u := rng.Float64() * total
			arr.tx = len(cum) - 1
			for i, c := range cum {
				if u < c {
					arr.tx = i
					break
				}
			}
		}
		a.scheduled.Add(1)
		select {
		case queue <- arr:
		default:
			a.dropped.Add(1)
		}
	}
}

// Bounds of the inter-arrival draw. maxExpDraw caps the unit exponential
// draw: beyond 40 lies e⁻⁴⁰ of its mass, so the mean gap shrinks by a
// share of 10⁻¹⁷ — no rate is exceeded by it. maxGap is where a gap
// saturates: beyond any run (146 years), and small enough that adding it
// to an instant of the schedule never overflows the clock's nanoseconds.
const (
	maxExpDraw = 40.0
	maxGap     = time.Duration(1 << 62)
)

// interArrival is the gap before the next arrival of a Poisson process at
// rate per second, given e, a draw of the unit exponential: e/rate seconds,
// never negative and saturating at maxGap. A rate that is not a positive
// finite number schedules nothing (maxGap) rather than arrivals without
// end: the float-to-Duration conversion of a gap beyond int64 is
// undefined, and came out as a negative gap — arrivals as fast as the loop
// turns — for a rate of 1e-12.
func interArrival(e, rate float64) time.Duration {
	if !(rate > 0) || math.IsInf(rate, 1) {
		return maxGap
	}
	ns := min(max(e, 0), maxExpDraw) / rate * float64(time.Second)
	if !(ns < float64(maxGap)) {
		return maxGap
	}
	return time.Duration(math.Round(ns)) // rounded, not truncated: no bias to a faster rate
}

// worker runs the queued arrivals on one session, taking its terminals'
// inputs in turn.
func (a *arrivals) worker(ctx context.Context, p *pooled, terms []workload.Terminal, queue <-chan arrival) {
	r := a.r
	for k := 0; !r.stop.Load(); k++ {
		term := terms[k%len(terms)]
		p.on.term = term
		var arr arrival
		select {
		case arr = <-queue:
		case <-r.stopped:
			return
		case <-ctx.Done():
			return
		}
		lag := time.Since(arr.at)
		if a.r.cfg.SkipLate > 0 && lag > a.r.cfg.SkipLate {
			// Too late to be worth sending: skipped and counted, as
			// pgbench's --latency-limit skips it.
			a.skipped.Add(1)
			k--
			continue
		}
		tx := arr.tx
		if tx >= 0 {
			term.Choose(tx)
		} else {
			tx = term.Next()
		}
		if _, st := r.transact(ctx, p.id, tx, arr.at, lag, &p.on, p.on.sess, p.rec, false); st != txDone {
			return
		}
	}
}
