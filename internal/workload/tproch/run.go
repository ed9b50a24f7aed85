package tproch

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/sledge-bench/sledge/internal/db"
	"github.com/sledge-bench/sledge/internal/metrics"
)

// RunOptions configure a TPROC-H run: a power test and, with Streams > 0, a
// throughput test after it.
type RunOptions struct {
	// Streams is the number of query streams of the throughput test; 0 runs
	// the power test only.
	Streams int
	// QuerySets is how many times each throughput stream runs its 22
	// queries (default 1).
	QuerySets int
	// Refresh runs the refresh functions: RF1 and RF2 around the power test,
	// and one refresh stream of Streams pairs in the throughput test.
	Refresh bool
	// Seed is seed0 of the query parameters (stream s uses Seed+s); 0 takes
	// the time, mmddhhmmss, as the specification does. Jobs have theirs
	// chosen when they are created (Workload.AnalyticSettings), so that it
	// is recorded with them.
	Seed int64
	// Validate runs every query with the specification's validation
	// parameters instead of random ones.
	Validate bool
	// Logf reports progress lines.
	Logf func(format string, args ...any)
	// Query, when set, is called with each stream query as it ends, from
	// the stream's goroutine.
	Query func(metrics.AnalyticQuery)
	// QueryStart, when set, is called with each stream query (its stream,
	// set, position and number; no times yet) as it starts, from the
	// stream's goroutine.
	QueryStart func(metrics.AnalyticQuery)
}

// Run runs a TPROC-H test against t.
func Run(ctx context.Context, drv db.Driver, t db.Target, o RunOptions) (*metrics.AnalyticResult, error) {
	dl, err := dialect(drv.Kind())
	if err != nil {
		return nil, err
	}
	if o.Streams < 0 {
		return nil, fmt.Errorf("streams must not be negative (got %d)", o.Streams)
	}
	if o.QuerySets == 0 {
		o.QuerySets = 1
	}
	if o.QuerySets < 0 {
		return nil, fmt.Errorf("query sets must be at least 1 (got %d)", o.QuerySets)
	}
	if o.Logf == nil {
		o.Logf = func(string, ...any) {}
	}
	var minStreams int
	templates, err := LoadQueries(dl)
	if err != nil {
		return nil, err
	}
	main, err := drv.Connect(ctx, t, db.Options{AppName: "sledge tproch"})
	if err != nil {
		return nil, err
	}
	defer main.Close(context.Background())
	meta, err := ReadMeta(ctx, main, drv.Kind())
	if err != nil {
		return nil, err
	}
	g, err := NewGenerator(meta.SF)
	if err != nil {
		return nil, err
	}
	if o.Seed == 0 {
		o.Seed = defaultSeed(time.Now())
	}
	if o.Streams > 0 {
		minStreams = MinStreams(meta.SF)
	}
	r := &runner{drv: drv, target: t, dialect: dl, templates: templates, g: g, opts: o, meta: meta,
		res: &metrics.AnalyticResult{SF: meta.SF, Streams: o.Streams, QuerySets: o.QuerySets, Seed: o.Seed,
			Refresh: o.Refresh, Validation: o.Validate, Status: metrics.StatusCompleted}}
	if o.Streams > 0 && o.Streams < minStreams {
		r.res.Warnings = append(r.res.Warnings, fmt.Sprintf("the specification asks for at least %d query streams at scale factor %g; this run used %d", minStreams, meta.SF, o.Streams))
	}
	if o.Refresh && g.RefreshRows() == 0 {
		o.Logf("the refresh functions insert and delete no orders at scale factor %g (they act from scale factor %g): no power or composite metric", meta.SF, MinRefreshSF)
	}
	err = r.power(ctx, main)
	if err == nil && o.Streams > 0 {
		err = r.throughput(ctx, main)
	}
	res := r.res
	switch {
	case err != nil && ctx.Err() != nil:
		res.Status = metrics.StatusInterrupted
	case err != nil:
		res.Status = metrics.StatusFailed
		res.Warnings = append(res.Warnings, err.Error())
	}
	computeMetrics(res)
	validation(res)
	if ctx.Err() != nil {
		return res, ctx.Err()
	}
	return res, err
}

// MinStreams is the specification's minimum number of throughput streams
// for a scale factor (Table 11); fractional scale factors take SF 1's.
func MinStreams(sf float64) int {
	limits := []struct {
		sf      float64
		streams int
	}{{100000, 11}, {30000, 10}, {10000, 9}, {3000, 8}, {1000, 7}, {300, 6}, {100, 5}, {30, 4}, {10, 3}}
	for _, l := range limits {
		if sf >= l.sf {
			return l.streams
		}
	}
	return 2
}

// defaultSeed is seed0 in the specification's form: the time formatted
// mmddhhmmss, read as a number.
func defaultSeed(t time.Time) int64 {
	n, _ := strconv.ParseInt(t.Format("0102150405"), 10, 64)
	return n
}

type runner struct {
	drv       db.Driver
	target    db.Target
	dialect   string
	templates [22]string
	g         *Generator
	opts      RunOptions
	meta      Meta
	mu        sync.Mutex // guards res and meta.RefreshPairs during the throughput test
	res       *metrics.AnalyticResult
}

// query runs one query of a stream: parameters, text, execution, every row
// fetched. Its time covers sending the text to receiving the last row.
func (r *runner) query(ctx context.Context, c db.Conn, stream, position, set, q int) metrics.AnalyticQuery {
	res := metrics.AnalyticQuery{Stream: stream, Position: position, Set: set, Query: q}
	params := ValidationParams(q)
	if !r.opts.Validate {
		params = QueryParams(q, r.opts.Seed+int64(stream), r.meta.SF)
	}
	text, err := Substitute(r.templates[q-1], params)
	if err != nil {
		res.Error = err.Error()
		return res
	}
	// The power test's answers are checked where stored answers exist: the
	// rows are read as normalised values, inside the timing as any client
	// reads them.
	check := r.opts.Validate && stream == 0 && r.meta.SF == 1
	var got []string
	start := time.Now()
	rows, err := c.Query(ctx, text)
	if err == nil {
		if check {
			got, err = ReadAnswer(rows)
			res.Rows = int64(len(got))
		} else {
			for rows.Next() {
				res.Rows++
			}
			err = rows.Err()
		}
		rows.Close()
	}
	res.Seconds = time.Since(start).Seconds()
	if err != nil {
		res.Error = err.Error()
		return res
	}
	if check {
		res.Check = "ok"
		if err := CompareAnswer(q, got); err != nil {
			res.Check = err.Error()
		}
	}
	return res
}

// stream runs the queries of one stream in its order, sets times.
func (r *runner) stream(ctx context.Context, c db.Conn, stream, sets int) error {
	order := StreamOrder(stream)
	for set := 1; set <= sets; set++ {
		for pos, q := range order {
			if err := ctx.Err(); err != nil {
				return err
			}
			if r.opts.QueryStart != nil {
				r.opts.QueryStart(metrics.AnalyticQuery{Stream: stream, Position: pos + 1, Set: set, Query: q})
			}
			qr := r.query(ctx, c, stream, pos+1, set, q)
			r.mu.Lock()
			r.res.Queries = append(r.res.Queries, qr)
			r.mu.Unlock()
			if r.opts.Query != nil {
				r.opts.Query(qr)
			}
			status := fmt.Sprintf("%d rows", qr.Rows)
			if qr.Error != "" {
				status = "FAILED: " + qr.Error
			}
			if qr.Check != "" && qr.Check != "ok" {
				status += "; answer differs: " + qr.Check
			}
			r.opts.Logf("stream %d  Q%-2d %8.2f s  %s", stream, q, RoundInterval(qr.Seconds), status)
		}
	}
	return nil
}

func (r *runner) power(ctx context.Context, c db.Conn) error {
	r.opts.Logf("power test: scale factor %g, seed %d%s", r.meta.SF, r.opts.Seed, map[bool]string{true: ", validation parameters"}[r.opts.Validate])
	set := r.meta.RefreshPairs + 1
	start := time.Now()
	if r.opts.Refresh {
		if err := r.refresh(ctx, c, 0, set, 1); err != nil {
			return err
		}
	}
	if err := r.stream(ctx, c, 0, 1); err != nil {
		return err
	}
	if r.opts.Refresh {
		if err := r.refresh(ctx, c, 0, set, 2); err != nil {
			return err
		}
		if err := r.pairDone(ctx, c); err != nil {
			return err
		}
	}
	r.res.PowerSeconds = time.Since(start).Seconds()
	return nil
}

func (r *runner) throughput(ctx context.Context, main db.Conn) error {
	s := r.opts.Streams
	r.opts.Logf("throughput test: %d query streams%s", s, map[bool]string{true: " and a refresh stream"}[r.opts.Refresh])
	conns := make([]db.Conn, s)
	for i := range conns {
		c, err := r.drv.Connect(ctx, r.target, db.Options{AppName: "sledge tproch stream " + strconv.Itoa(i+1)})
		if err != nil {
			for _, c := range conns[:i] {
				c.Close(context.Background())
			}
			return fmt.Errorf("open query stream %d: %w", i+1, err)
		}
		conns[i] = c
	}
	defer func() {
		for _, c := range conns {
			c.Close(context.Background())
		}
	}()
	start := time.Now()
	n := s
	if r.opts.Refresh {
		n++
	}
	g, ctx := errgroup.WithContext(ctx)
	for i := range n {
		g.Go(func() error {
			if i < s {
				return r.stream(ctx, conns[i], i+1, r.opts.QuerySets)
			}
			// The refresh stream: S pairs, one after the other.
			for p := 0; p < s; p++ {
				set := r.currentPairs() + 1
				if err := r.refresh(ctx, main, s+1, set, 1); err != nil {
					return err
				}
				if err := r.refresh(ctx, main, s+1, set, 2); err != nil {
					return err
				}
				if err := r.pairDone(ctx, main); err != nil {
					return err
				}
			}
			return nil
		})
	}
	err := g.Wait()
	r.res.ThroughputSeconds = time.Since(start).Seconds()
	return err
}

func (r *runner) currentPairs() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.meta.RefreshPairs
}

// pairDone records a finished refresh pair in the database, which evolves:
// the next run continues with the next update set.
func (r *runner) pairDone(ctx context.Context, c db.Conn) error {
	r.mu.Lock()
	r.meta.RefreshPairs++
	n := r.meta.RefreshPairs
	r.mu.Unlock()
	_, err := c.Exec(ctx, `UPDATE `+metaTable+` SET value = '`+strconv.Itoa(n)+`' WHERE "key" = 'refresh_pairs'`)
	if err != nil {
		return fmt.Errorf("record refresh pair %d: %w", n, err)
	}
	return nil
}

// refresh runs RF1 (fn 1: insert update set's new orders and lines) or RF2
// (fn 2: delete the set's old orders and their lines), each as one
// transaction, and records its time.
func (r *runner) refresh(ctx context.Context, c db.Conn, stream, set, fn int) error {
	stmts, err := refreshStatements(r.g, set, fn)
	if err != nil {
		return err
	}
	start := time.Now()
	rows, err := execRefresh(ctx, c, stmts)
	rr := metrics.AnalyticRefresh{Stream: stream, Set: set, Function: "RF" + strconv.Itoa(fn),
		Seconds: time.Since(start).Seconds(), Rows: rows}
	if err != nil {
		rr.Error = err.Error()
	}
	r.mu.Lock()
	r.res.Refreshes = append(r.res.Refreshes, rr)
	r.mu.Unlock()
	r.opts.Logf("stream %d  %s set %d %6.2f s  %d rows", stream, rr.Function, set, RoundInterval(rr.Seconds), rows)
	if err != nil {
		return fmt.Errorf("%s of update set %d: %w", rr.Function, set, err)
	}
	return nil
}

// validation sums up the answer checks of the power test.
func validation(res *metrics.AnalyticResult) {
	if !res.Validation {
		return
	}
	if res.SF != 1 {
		res.Warnings = append(res.Warnings, "answers are stored for scale factor 1 only: results not validated")
		return
	}
	if res.Refresh {
		res.Warnings = append(res.Warnings, "RF1 ran before the queries: the answers may differ from the stored ones (validate without --refresh)")
	}
	res.Validated = "passed"
	for _, q := range res.Queries {
		if q.Stream == 0 && q.Check != "ok" {
			res.Validated = "failed"
		}
	}
}

// RoundInterval applies the specification's timing rule to a query or
// refresh function's time in seconds: nearest 0.01 s, and never below
// 0.01 s. The metrics use these intervals and the text result prints them;
// the stored (and JSON) times keep the measured value.
func RoundInterval(s float64) float64 {
	return math.Max(0.01, math.Round(s*100)/100)
}

// computeMetrics fills the power, throughput and composite figures (in
// queries per hour × SF, to 0.1) and the power stream's geometric mean.
// Where a figure cannot be computed (a failed query, no refresh functions
// for the power metric) it stays NaN and a warning says why.
func computeMetrics(res *metrics.AnalyticResult) {
	res.GeomeanS, res.Power, res.Throughput, res.Composite, res.TsS = math.NaN(), math.NaN(), math.NaN(), math.NaN(), math.NaN()
	var power []float64
	failed := false
	for _, q := range res.Queries {
		if q.Stream != 0 {
			continue
		}
		if q.Error != "" {
			failed = true
		}
		power = append(power, RoundInterval(q.Seconds))
	}
	if failed || len(power) != 22 {
		res.Warnings = append(res.Warnings, "the power test did not run all 22 queries successfully: no geometric mean or metrics")
		return
	}
	res.GeomeanS = geomean(power)
	// Clamp: intervals below max/1000 are raised to it (queries only).
	maxQ := 0.0
	for _, v := range power {
		maxQ = math.Max(maxQ, v)
	}
	intervals := make([]float64, 0, 24)
	for _, v := range power {
		intervals = append(intervals, math.Max(v, maxQ/1000))
	}
	var (
		rf               []float64
		idle, streamIdle []string // refresh functions that changed no rows
	)
	for _, f := range res.Refreshes {
		if f.Error != "" && f.Stream == 0 {
			failed = true
		}
		if f.Error == "" && f.Rows == 0 {
			if f.Stream == 0 {
				idle = append(idle, f.Function)
			} else if !slices.Contains(streamIdle, f.Function) {
				streamIdle = append(streamIdle, f.Function)
			}
		}
		if f.Stream == 0 {
			rf = append(rf, RoundInterval(f.Seconds))
		}
	}
	if failed {
		res.Warnings = append(res.Warnings, "a refresh function failed: no metrics")
		return
	}
	switch {
	case len(rf) == 2 && len(idle) > 0:
		// Its time would be that of an empty transaction: a power figure
		// (and the composite) computed with it would measure nothing.
		res.Warnings = append(res.Warnings, fmt.Sprintf("%s changed no rows%s: no power or composite metric",
			strings.Join(idle, " and "), refreshIdleReason(res.SF)))
	case len(rf) == 2:
		res.Power = math.Round(3600*res.SF/geomean(append(intervals, rf...))*10) / 10
	default:
		res.Warnings = append(res.Warnings, "power metric needs the refresh functions (--refresh)")
	}
	if res.Streams > 0 && len(streamIdle) > 0 {
		res.Warnings = append(res.Warnings, fmt.Sprintf("the throughput test's refresh stream: %s changed no rows%s",
			strings.Join(streamIdle, " and "), refreshIdleReason(res.SF)))
	}
	if res.Streams > 0 && res.ThroughputSeconds > 0 {
		for _, q := range res.Queries {
			if q.Stream > 0 && q.Error != "" {
				res.Warnings = append(res.Warnings, "a throughput query failed: no throughput metric")
				return
			}
		}
		res.TsS = math.Ceil(res.ThroughputSeconds*100) / 100
		res.Throughput = math.Round(float64(res.Streams*22*res.QuerySets)*3600/res.TsS*res.SF*10) / 10
		if !math.IsNaN(res.Power) {
			res.Composite = math.Round(math.Sqrt(res.Power*res.Throughput)*10) / 10
		}
	}
}

// refreshIdleReason explains refresh functions that changed no rows where
// the scale factor is the cause: its update sets are empty.
func refreshIdleReason(sf float64) string {
	if g, err := NewGenerator(sf); err == nil && g.RefreshRows() == 0 {
		return fmt.Sprintf(" (at scale factor %g the update sets are empty: the refresh functions act from scale factor %g)", sf, MinRefreshSF)
	}
	return ""
}

func geomean(v []float64) float64 {
	s := 0.0
	for _, x := range v {
		s += math.Log(x)
	}
	return math.Exp(s / float64(len(v)))
}
