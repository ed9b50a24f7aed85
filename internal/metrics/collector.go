package metrics

import (
	"math"
	"sort"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/sledge-bench/sledge/internal/db"
)

// Histogram bounds: microsecond resolution, 3 significant digits, up to an
// hour (a transaction that takes longer is clamped and still counted).
const (
	histMinUS   = 1
	histMaxUS   = int64(time.Hour / time.Microsecond)
	histSigFigs = 3
)

func newHist() *hdrhistogram.Histogram { return hdrhistogram.New(histMinUS, histMaxUS, histSigFigs) }

// txStats accumulates one transaction type.
type txStats struct {
	hist       *hdrhistogram.Histogram
	count      int64
	rolledBack int64
	retries    int64
	retried    int64 // transactions retried at least once
	failedRetr int64 // of those, failed in the end
	retriesBy  [db.NumClasses]int64
	errors     [db.NumClasses]int64
}

func newTxStats() *txStats { return &txStats{hist: newHist()} }

func (s *txStats) add(e *Event) {
	s.retries += int64(e.Retries)
	if e.Retries > 0 {
		s.retried++
		s.retriesBy[e.RetryClass] += int64(e.Retries)
		if e.Outcome >= failedBase {
			s.failedRetr++
		}
	}
	switch {
	case e.Outcome == Committed || e.Outcome == RolledBack:
		if e.Outcome == Committed {
			s.count++
		} else {
			s.rolledBack++
		}
		us := int64(e.Latency / time.Microsecond)
		if us < histMinUS {
			us = histMinUS
		}
		if us > histMaxUS {
			us = histMaxUS
		}
		_ = s.hist.RecordValue(us)
	default:
		s.errors[e.Outcome-failedBase]++
	}
}

func (s *txStats) errorTotal() int64 {
	var n int64
	for _, v := range s.errors {
		n += v
	}
	return n
}

func (s *txStats) reset() {
	s.hist.Reset()
	s.count, s.rolledBack, s.retries = 0, 0, 0
	s.errors = [db.NumClasses]int64{}
}

func us(v int64) time.Duration { return time.Duration(v) * time.Microsecond }

// latency is what results say of a latency histogram (in microseconds).
type latency struct{ mean, p50, p95, p99, max time.Duration }

// latencyOf derives a histogram's mean and percentiles: the one derivation
// of the collector's intervals and summaries and of their merges, so that a
// merge of one part gives that part's numbers.
func latencyOf(h *hdrhistogram.Histogram) latency {
	return latency{
		mean: time.Duration(math.Round(h.Mean())) * time.Microsecond,
		p50:  us(h.ValueAtQuantile(50)), p95: us(h.ValueAtQuantile(95)),
		p99: us(h.ValueAtQuantile(99)), max: us(h.Max()),
	}
}

// Collector merges the VUs' events into interval and window statistics. It is
// used by the monitor goroutine only.
type Collector struct {
	names    []string
	headline int // tx type counted by NOPM; -1 for none
	recs     []*Recorder
	spares   [][]Event

	interval []*txStats
	window   []*txStats
	winStart time.Duration
	winEnd   time.Duration // 0 = open
	measured bool
	seq      int
	lastTick time.Duration
	// carry holds events drained early: they ended after the tick that
	// drained them, so they belong to the next interval.
	carry []carried

	// The schedule lag of terminal and rate runs (TrackLag): per interval,
	// over the window and over the current stage.
	lag                     bool
	lagIv, lagWin, lagStage *hdrhistogram.Histogram
	lateIv, lateWin         int64
	// stage accumulates the measured events of the current stage of a
	// staged run (TrackStages); nil otherwise.
	stage []*txStats
	// bands count the headline commits that end within them (EdgeBand).
	bands []*EdgeBand
	// perVU is each VU's window statistics per transaction type, [VU][tx],
	// an entry made at the type's first completed transaction (TrackVUs);
	// nil when the run keeps no per-VU timing.
	perVU [][]*vuTx
}

// vuTx is one VU's completed transactions of one type over the window.
type vuTx struct {
	hist  *hdrhistogram.Histogram // at vuSigFigs
	total time.Duration           // the latencies' exact sum
}

// vuSigFigs is the precision of the per-VU histograms: two significant
// digits (1 %) keep one VU's five types in about 130 KB, where the run's
// three digits would take 0.9 MB per VU, however many VUs a run has.
const vuSigFigs = 2

// TrackVUs makes the collector keep each VU's latencies per transaction
// type over the window besides the run's (VUTimings). The VUs' recording
// is unchanged: the collector sorts their events by VU as it drains them.
// Call it before NewRecorder.
func (c *Collector) TrackVUs() {
	if c.perVU == nil {
		c.perVU = make([][]*vuTx, len(c.recs))
		for i := range c.perVU {
			c.perVU[i] = make([]*vuTx, len(c.names))
		}
	}
}

// addToVU adds completed event e to VU index vu's statistics.
func (c *Collector) addToVU(vu int, e *Event) {
	if c.perVU == nil || (e.Outcome != Committed && e.Outcome != RolledBack) {
		return
	}
	s := c.perVU[vu][e.Tx]
	if s == nil {
		s = &vuTx{hist: hdrhistogram.New(histMinUS, histMaxUS, vuSigFigs)}
		c.perVU[vu][e.Tx] = s
	}
	recordUS(s.hist, e.Latency)
	s.total += e.Latency
}

// VUTimings returns each VU's latencies per transaction type over the
// window, in VU then type order, with the types a VU completed none of
// left out; nil unless TrackVUs. firstVU is the number (0-based) of the
// process's first VU in the run (engine.Config.FirstVU).
func (c *Collector) VUTimings(firstVU int) []VUTiming {
	var out []VUTiming
	for vu, txs := range c.perVU {
		for i, s := range txs {
			if s == nil {
				continue
			}
			t := VUTiming{VU: firstVU + vu + 1, Tx: c.names[i], Calls: s.hist.TotalCount(), Total: s.total}
			if enc, err := s.hist.Encode(hdrhistogram.V2CompressedEncodingCookieBase); err == nil {
				t.Histogram = enc
			}
			out = append(out, t)
		}
	}
	return out
}

// EdgeBand counts the headline commits that end within [From, To] on the
// run's clock: around a window's edge, the span in which the database read
// its count, the commits that the client and the database may place on
// different sides of the edge.
type EdgeBand struct {
	From, To time.Duration
	n        int64
}

// Count is how many headline commits ended within the band (0 for none).
func (b *EdgeBand) Count() int64 {
	if b == nil {
		return 0
	}
	return b.n
}

// EdgeBand starts counting the headline commits that end within [from,
// to] among the events Tick and Drain take in from now on (those not taken
// in yet: an earlier tick's are not counted).
func (c *Collector) EdgeBand(from, to time.Duration) *EdgeBand {
	b := &EdgeBand{From: from, To: to}
	c.bands = append(c.bands, b)
	return b
}

// band counts e in the bands it ends within.
func (c *Collector) band(e *Event) {
	if int(e.Tx) != c.headline || e.Outcome != Committed {
		return
	}
	for _, b := range c.bands {
		if e.End >= b.From && e.End <= b.To {
			b.n++
		}
	}
}

// TrackLag makes the collector keep the events' schedule lag (terminal and
// rate runs).
func (c *Collector) TrackLag() {
	c.lag = true
	c.lagIv, c.lagWin, c.lagStage = newHist(), newHist(), newHist()
}

// TrackStages makes the collector keep the current stage's statistics
// (StageTotals), from the window's start.
func (c *Collector) TrackStages() {
	for range c.names {
		c.stage = append(c.stage, newTxStats())
	}
	if c.lagStage == nil {
		c.lagStage = newHist()
	}
}

// StageTotals returns the current stage's figures — commits, headline
// commits, errors, the headline type's latencies (all types' when there is
// no headline) and the lag's p99 — and starts the next stage. Call it at the
// stage's last tick. The caller fills in the stage's place and rates.
func (c *Collector) StageTotals() StageResult {
	var st StageResult
	h := newHist()
	for i, s := range c.stage {
		st.Commits += s.count
		st.Errors += s.errorTotal()
		if i == c.headline {
			st.NewOrders = s.count
		}
		if c.headline < 0 || i == c.headline {
			h.Merge(s.hist)
		}
		s.reset()
	}
	l := latencyOf(h)
	st.P50, st.P95, st.P99 = l.p50, l.p95, l.p99
	if c.lag {
		st.LagP99 = us(c.lagStage.ValueAtQuantile(99))
	}
	c.lagStage.Reset()
	return st
}

// Lag returns the schedule lag over the window: p50, p99, max and the late
// transactions (LateLag).
func (c *Collector) Lag() (p50, p99, maxLag time.Duration, late int64) {
	if !c.lag {
		return 0, 0, 0, 0
	}
	return us(c.lagWin.ValueAtQuantile(50)), us(c.lagWin.ValueAtQuantile(99)), us(c.lagWin.Max()), c.lateWin
}

func recordUS(h *hdrhistogram.Histogram, d time.Duration) {
	v := int64(d / time.Microsecond)
	_ = h.RecordValue(min(max(v, histMinUS), histMaxUS))
}

// carried is an event held over to the next interval, with its VU's index.
type carried struct {
	vu int
	e  Event
}

// NewCollector collects for the named transaction types; headline is the
// type whose commits are NOPM (-1 if none).
func NewCollector(names []string, headline int) *Collector {
	c := &Collector{names: names, headline: headline}
	for range names {
		c.interval = append(c.interval, newTxStats())
		c.window = append(c.window, newTxStats())
	}
	return c
}

// recorderStart is the events a recorder's buffers hold before they first
// grow: about what a VU records in an interval at 1,000 VUs. A busy VU's
// buffers grow to its interval's events once and keep that size (swapped,
// not freed); starting them at 1,024 cost 54 KiB per VU, nearly half of
// the client's heap at 1,000 VUs.
const recorderStart = 16

// NewRecorder registers a VU's recorder.
func (c *Collector) NewRecorder() *Recorder {
	r := &Recorder{buf: make([]Event, 0, recorderStart)}
	c.recs = append(c.recs, r)
	c.spares = append(c.spares, make([]Event, 0, recorderStart))
	if c.perVU != nil {
		c.perVU = append(c.perVU, make([]*vuTx, len(c.names)))
	}
	return r
}

// StartWindow opens the measured window at t: only events that end at or
// after t count towards the result.
func (c *Collector) StartWindow(t time.Duration) {
	c.measured = true
	c.winStart = t
}

// EndWindow closes the measured window at t.
func (c *Collector) EndWindow(t time.Duration) { c.winEnd = t }

// Tick drains every recorder and returns the interval that ends at now: the
// events that ended after the previous tick and at or before now. Events that
// ended after now (a VU may record while the monitor ticks late) are held
// over to the next interval, so an interval's counts and its length always
// cover the same time.
//
// An interval of no length is never made: when now is not after the previous
// tick, Tick drains nothing, returns false and leaves the events to the next
// tick.
func (c *Collector) Tick(now time.Duration, phase string) (Interval, bool) {
	if now <= c.lastTick {
		return Interval{}, false
	}
	vus := make([]VUInterval, len(c.recs))
	for i, r := range c.recs {
		vus[i] = VUInterval{VU: i + 1, State: VUState(r.state.Load()).String()}
	}
	held := c.carry
	c.carry = nil
	for _, h := range held {
		c.take(vus, h.vu, &h.e, now)
	}
	for i, r := range c.recs {
		evs := r.swap(c.spares[i])
		for j := range evs {
			c.take(vus, i, &evs[j], now)
		}
		c.spares[i] = evs
	}
	length := now - c.lastTick
	c.lastTick = now
	c.seq++
	iv := Interval{Seq: c.seq, Phase: phase, Elapsed: now, Length: length, VUs: vus}
	minutes := length.Minutes()
	var commits int64
	for i, s := range c.interval {
		commits += s.count
		iv.Errors += s.errorTotal()
		l := latencyOf(s.hist)
		t := IntervalTx{Name: c.names[i], Count: s.count, Errors: s.errorTotal(),
			P50: l.p50, P95: l.p95, P99: l.p99, Max: l.max}
		// Encoding costs a few hundred microseconds per type and tick; a
		// type with nothing completed has no histogram to encode.
		if s.hist.TotalCount() > 0 {
			if enc, err := s.hist.Encode(hdrhistogram.V2CompressedEncodingCookieBase); err == nil {
				t.Histogram = enc
			}
		}
		iv.Tx = append(iv.Tx, t)
		if i == c.headline {
			iv.NOPM = float64(s.count) / minutes
		}
		s.reset()
	}
	iv.TPM = float64(commits) / minutes
	if c.lag {
		if c.lagIv.TotalCount() > 0 {
			iv.LagP99 = us(c.lagIv.ValueAtQuantile(99))
		}
		iv.Late = c.lateIv
		c.lagIv.Reset()
		c.lateIv = 0
	}
	return iv, true
}

// take adds event e of VU index vu to the interval ending at now, or holds
// it over when it ended later.
func (c *Collector) take(vus []VUInterval, vu int, e *Event, now time.Duration) {
	if e.End > now {
		c.carry = append(c.carry, carried{vu: vu, e: *e})
		return
	}
	switch {
	case e.Outcome == Committed:
		vus[vu].Commits++
	case e.Outcome >= failedBase:
		vus[vu].Errors++
	}
	c.band(e)
	c.interval[e.Tx].add(e)
	if c.lag {
		recordUS(c.lagIv, e.Lag)
		if e.Lag > LateLag {
			c.lateIv++
		}
	}
	c.addToWindow(vu, e)
}

// addToWindow adds event e of VU index vu to the window's (and the
// stage's, and the VU's) statistics when it ended within the window.
func (c *Collector) addToWindow(vu int, e *Event) {
	if c.measured && e.End >= c.winStart && (c.winEnd == 0 || e.End <= c.winEnd) {
		c.window[e.Tx].add(e)
		c.addToVU(vu, e)
		if c.lag {
			recordUS(c.lagWin, e.Lag)
			if e.Lag > LateLag {
				c.lateWin++
			}
		}
		if c.stage != nil {
			c.stage[e.Tx].add(e)
			if c.lag {
				recordUS(c.lagStage, e.Lag)
			}
		}
	}
}

// Drain takes every event recorded so far into the window's statistics
// without making an interval: the last step of a run, for events that ended
// within the window but were recorded after its last tick.
func (c *Collector) Drain() {
	for _, h := range c.carry {
		c.band(&h.e)
		c.addToWindow(h.vu, &h.e)
	}
	c.carry = nil
	for i, r := range c.recs {
		evs := r.swap(c.spares[i])
		for j := range evs {
			c.band(&evs[j])
			c.addToWindow(i, &evs[j])
		}
		c.spares[i] = evs
	}
}

// Summaries returns the window's statistics per transaction type.
func (c *Collector) Summaries() []TxSummary {
	out := make([]TxSummary, 0, len(c.window))
	for i, s := range c.window {
		h := s.hist
		l := latencyOf(h)
		t := TxSummary{
			Name: c.names[i], Count: s.count, RolledBack: s.rolledBack, Retries: s.retries,
			Retried: s.retried, FailedAfterRetries: s.failedRetr,
			Errors: map[string]int64{}, RetriesByClass: map[string]int64{},
			Mean: l.mean, P50: l.p50, P95: l.p95, P99: l.p99, Max: l.max,
		}
		for cl, n := range s.errors {
			if n > 0 {
				t.Errors[db.ErrorClass(cl).String()] = n
			}
		}
		for cl, n := range s.retriesBy {
			if n > 0 {
				t.RetriesByClass[db.ErrorClass(cl).String()] = n
			}
		}
		if enc, err := h.Encode(hdrhistogram.V2CompressedEncodingCookieBase); err == nil {
			t.Histogram = enc
		}
		out = append(out, t)
	}
	return out
}

// Completed returns, per type, the window's completed transactions (commits
// plus designed rollbacks) and designed rollbacks.
func (c *Collector) Completed() (completed, rolledBack []int64) {
	for _, s := range c.window {
		completed = append(completed, s.count+s.rolledBack)
		rolledBack = append(rolledBack, s.rolledBack)
	}
	return completed, rolledBack
}

// SortedErrorClasses lists a summary's error classes by count, largest first.
func SortedErrorClasses(errs map[string]int64) []string {
	keys := make([]string, 0, len(errs))
	for k := range errs {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if errs[keys[i]] != errs[keys[j]] {
			return errs[keys[i]] > errs[keys[j]]
		}
		return keys[i] < keys[j]
	})
	return keys
}
