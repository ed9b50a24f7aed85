package chbench

// The mixed run: TPROC-C's virtual users, driven by the engine exactly as
// a tprocc run's (PrepareRun is TPROC-C's), and beside them analytic query
// streams (PrepareBeside), which the job service starts on the run's
// clock and stops with it.

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/sledge-bench/sledge/internal/config"
	"github.com/sledge-bench/sledge/internal/db"
	"github.com/sledge-bench/sledge/internal/metrics"
	"github.com/sledge-bench/sledge/internal/report"
	"github.com/sledge-bench/sledge/internal/sqlfile"
	"github.com/sledge-bench/sledge/internal/workload"
	"github.com/sledge-bench/sledge/internal/workload/tprocc"
)

// AnalyticAppName is the analytic streams' session name (PostgreSQL's
// application_name): the server's session list and wait samples tell them
// from the TPROC-C virtual users by it.
const AnalyticAppName = "sledge chbench analytic"

// PrepareRun is TPROC-C's: the mixed run's transactional half is a TPROC-C
// run on the same schema, with every option of one.
func (Workload) PrepareRun(ctx context.Context, env workload.Env, p config.Plan) (workload.OLTPRun, error) {
	return tprocc.Workload{}.PrepareRun(ctx, env, p)
}

// PrepareBeside refuses a database without a finished CH-benCHmark build
// (PrepareRun, TPROC-C's, accepts a plain TPROC-C database, where every
// analytic query would fail at once for want of SUPPLIER, NATION and
// REGION), then readies the run's analytic streams (nil without any).
func (Workload) PrepareBeside(ctx context.Context, env workload.Env, p config.Plan) (workload.BesideRun, error) {
	if err := requireBuild(ctx, env); err != nil {
		return nil, err
	}
	if p.AnalyticStreams == 0 {
		return nil, nil
	}
	return newStreams(env, p)
}

// newStreams readies p's analytic streams on env's database.
func newStreams(env workload.Env, p config.Plan) (*streams, error) {
	queries, err := Queries(env.Target.Kind)
	if err != nil {
		return nil, err
	}
	list, err := statements(env.Target.Kind, "run")
	if err != nil {
		return nil, err
	}
	fresh := sqlfile.Map(list)["freshness"]
	if fresh == "" {
		return nil, fmt.Errorf("CH-benCHmark SQL for %s: no freshness statement", env.Target.Kind)
	}
	seed := int64(p.Seed)
	if seed == 0 {
		seed = time.Now().UnixNano() % 1e9
	}
	logf := env.Logf
	if logf == nil {
		logf = func(string, ...any) {}
	}
	window := p.Duration.D()
	if p.Stages != nil {
		window = config.StagesDuration(p.Stages)
	}
	order := "paper"
	if p.AnalyticShuffle {
		order = "shuffled"
	}
	return &streams{drv: env.Driver, target: env.Target, queries: queries,
		fresh: analyticTag + strings.TrimSuffix(strings.TrimSpace(fresh), ";"), logf: logf,
		rampup: p.Rampup.D(), window: window,
		pause: firstErrorPause, maxErrors: maxConsecutiveErrors, maxRuns: maxRunsKept,
		res: metrics.MixedResult{Streams: p.AnalyticStreams, Order: order, Seed: seed,
			Delay: p.AnalyticDelay.D(), Rampup: p.AnalyticRampup.D()}}, nil
}

// requireBuild is a workload.SchemaError unless the database holds a
// finished CH-benCHmark build (its record in sledge_meta).
func requireBuild(ctx context.Context, env workload.Env) error {
	c, err := env.Driver.Connect(ctx, env.Target, db.Options{AppName: AnalyticAppName, MustExist: true})
	if err != nil {
		return fmt.Errorf("connect to %s: %w", env.Target, err)
	}
	defer c.Close(context.Background())
	state, err := buildState(ctx, c, env.Target.Kind)
	switch {
	case err != nil:
		return fmt.Errorf("look for the CH-benCHmark build in %s: %w", env.Target, err)
	case state == "":
		return &workload.SchemaError{Err: workload.ErrNoSchema, Workload: Name,
			Msg: fmt.Sprintf("no CH-benCHmark schema found in %s (no chbench build record in sledge_meta)", env.Target)}
	case state != stateReady:
		return &workload.SchemaError{Err: workload.ErrSchemaUnusable, Workload: Name,
			Msg: fmt.Sprintf("the CH-benCHmark build in %s did not finish", env.Target)}
	}
	return nil
}

// A stream that fails waits before its next query, firstErrorPause after
// its first failure and twice as long after each further one in a row (at
// most maxErrorPause), and stops after maxConsecutiveErrors in a row: a
// query that fails in microseconds (a missing table) must not spin and
// fill the result. A run keeps at most maxRunsKept query executions.
const (
	firstErrorPause      = 100 * time.Millisecond
	maxErrorPause        = 5 * time.Second
	maxConsecutiveErrors = 10
	maxRunsKept          = 50_000
)

// streams is a mixed run's analytic streams.
type streams struct {
	drv     db.Driver
	target  db.Target
	queries [22]string
	fresh   string
	logf    func(string, ...any)
	// rampup and window are the run's: the window opens rampup after the
	// clock's start and lasts window.
	rampup, window time.Duration
	// pause, maxErrors and maxRuns are firstErrorPause,
	// maxConsecutiveErrors and maxRunsKept (tests make them small).
	pause     time.Duration
	maxErrors int
	maxRuns   int

	mu      sync.Mutex // guards res and dropped while the streams run
	res     metrics.MixedResult
	dropped int // executions past maxRuns, not kept
}

func (s *streams) Describe() string {
	d := fmt.Sprintf("%s in the paper's order", report.Plural(s.res.Streams, "analytic stream"))
	if s.res.Order != "paper" {
		d = fmt.Sprintf("%s, each in its own order (seed %d)", report.Plural(s.res.Streams, "analytic stream"), s.res.Seed)
	}
	if s.res.Delay > 0 {
		d += fmt.Sprintf(" from %s into the window (before: the baseline)", s.res.Delay)
	} else {
		d += " from the window's start (no baseline)"
	}
	if s.res.Rampup > 0 && s.res.Streams > 1 {
		d += fmt.Sprintf(", starting over %s", s.res.Rampup)
	}
	return d
}

func (s *streams) Settings() map[string]string {
	return map[string]string{
		"analytic_streams": strconv.Itoa(s.res.Streams), "analytic_order": s.res.Order,
		"analytic_seed": strconv.FormatInt(s.res.Seed, 10), "analytic_delay": s.res.Delay.String(),
		"analytic_rampup": s.res.Rampup.String(),
	}
}

// start is stream i's (0-based) start on the run's clock: the delay after
// the window opens, the streams' starts spread evenly over their ramp-up.
func (s *streams) start(i int) time.Duration {
	return s.rampup + s.res.Delay + s.res.Rampup*time.Duration(i)/time.Duration(s.res.Streams)
}

// Run runs the streams until the window's planned end: a query still
// running then is cancelled and not counted (it did not complete in the
// window).
func (s *streams) Run(ctx context.Context, t0 time.Time) {
	end := s.rampup + s.window
	if s.start(0) >= end {
		s.warn(fmt.Sprintf("the analytic streams were to start %s into the window, which lasts %s: none ran", s.res.Delay, s.window))
		return
	}
	ctx, cancel := context.WithDeadline(ctx, t0.Add(end))
	defer cancel()
	var wg sync.WaitGroup
	for i := range s.res.Streams {
		wg.Go(func() { s.stream(ctx, t0, i+1, t0.Add(s.start(i))) })
	}
	wg.Wait()
	// The streams' time is what they had: a run interrupted, or streams
	// that all stopped, had less than the planned window.
	s.mu.Lock()
	defer s.mu.Unlock()
	s.res.AnalyticSeconds = max(min(time.Since(t0), end)-s.start(0), 0).Seconds()
}

// keep adds r to the runs kept, or counts it dropped past maxRuns.
func (s *streams) keep(r metrics.MixedRun) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.res.Runs) >= s.maxRuns {
		s.dropped++
		return
	}
	s.res.Runs = append(s.res.Runs, r)
}

func (s *streams) warn(w string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.res.Warnings) < 20 {
		s.res.Warnings = append(s.res.Warnings, w)
	}
}

// stream runs stream n (1-based): query sets one after another, from at.
func (s *streams) stream(ctx context.Context, t0 time.Time, n int, at time.Time) {
	if wait := time.Until(at); wait > 0 {
		select {
		case <-ctx.Done():
			return
		case <-time.After(wait):
		}
	}
	c, err := s.connect(ctx)
	if err != nil {
		// Unless the run was stopped (interrupted): a stream that never
		// ran, even one the window's end cut off while it connected.
		if !errors.Is(ctx.Err(), context.Canceled) {
			s.warn(fmt.Sprintf("analytic stream %d could not connect before the window's end: %v", n, err))
		}
		return
	}
	defer func() {
		if c != nil {
			c.Close(context.Background())
		}
	}()
	order := make([]int, 22)
	for i := range order {
		order[i] = i + 1
	}
	rng := rand.New(rand.NewPCG(uint64(s.res.Seed), uint64(n)))
	failed, pause := 0, s.pause // failures in a row, the wait after the next
	for set := 1; ; set++ {
		if s.res.Order != "paper" {
			rng.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
		}
		for pos, q := range order {
			if ctx.Err() != nil {
				return
			}
			r, qerr := s.query(ctx, c, t0, q)
			if ctx.Err() != nil {
				return // cut off by the window's end: not a completed query
			}
			r.Stream, r.Set, r.Position = n, set, pos+1
			s.keep(r)
			if qerr == nil {
				failed, pause = 0, s.pause
				continue
			}
			if failed++; failed >= s.maxErrors {
				s.warn(fmt.Sprintf("analytic stream %d stopped after %d failed queries in a row (the last, Q%d: %v)", n, failed, q, qerr))
				return
			}
			select {
			case <-ctx.Done():
				return
			case <-time.After(pause):
			}
			pause = min(2*pause, maxErrorPause)
			if s.drv.Classify(qerr) == db.ClassConnection {
				c.Close(context.Background())
				if c, err = s.connect(ctx); err != nil {
					s.warn(fmt.Sprintf("analytic stream %d lost its session and could not reconnect before the window's end: %v", n, err))
					return
				}
			}
		}
	}
}

// connect opens a stream's session, trying again with backoff until ctx
// ends (the window's end): a server restarting comes back.
// The error returned is the last attempt's that ctx did not cut short,
// when there was one: what kept the stream out.
func (s *streams) connect(ctx context.Context) (db.Conn, error) {
	var last error
	for wait := 100 * time.Millisecond; ; wait = min(2*wait, 2*time.Second) {
		c, err := s.drv.Connect(ctx, s.target, db.Options{AppName: AnalyticAppName})
		if err == nil {
			return c, nil
		}
		if last == nil || ctx.Err() == nil {
			last = err
		}
		select {
		case <-ctx.Done():
			return nil, last
		case <-time.After(wait):
		}
	}
}

// query reads the freshness of what query q can read, then runs q and
// fetches every row; its time covers sending the text to the last row,
// its start and end are on the run's clock (t0).
func (s *streams) query(ctx context.Context, c db.Conn, t0 time.Time, q int) (metrics.MixedRun, error) {
	r := metrics.MixedRun{Query: q, Freshness: math.NaN()}
	var age float64
	if err := c.QueryRow(ctx, s.fresh).Scan(&age); err == nil {
		r.Freshness = max(age, 0)
	}
	start := time.Now()
	rows, err := c.Query(ctx, s.queries[q-1])
	if err == nil {
		for rows.Next() {
			r.Rows++
		}
		err = rows.Err()
		rows.Close()
	}
	end := time.Now()
	r.Seconds = end.Sub(start).Seconds()
	r.Start, r.End = start.Sub(t0), end.Sub(t0)
	if err != nil {
		r.Error = err.Error()
	}
	return r, err
}

func (s *streams) Complete(res *metrics.RunResult, ivs []metrics.Interval) {
	s.mu.Lock()
	defer s.mu.Unlock()
	m := s.res
	m.Runs = append([]metrics.MixedRun(nil), s.res.Runs...)
	m.Warnings = append([]string(nil), s.res.Warnings...)
	if s.dropped > 0 {
		m.Warnings = append(m.Warnings, fmt.Sprintf("the analytic streams ran %d queries more than the %d kept: the query figures cover the first %d only",
			s.dropped, s.maxRuns, s.maxRuns))
	}
	metrics.CompleteMixed(&m, ivs, s.rampup)
	res.Mixed = &m
}
