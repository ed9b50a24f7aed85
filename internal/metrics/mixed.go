package metrics

import (
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// MixedResult is the analytic half of a mixed run (CH-benCHmark): query
// streams running beside the virtual users over the same measured window,
// and how the transactions fared without and with them. Figures that could
// not be measured are NaN (a run whose streams start with the window has
// no baseline, hence no interference ratio).
type MixedResult struct {
	Streams int
	// Order is "paper" (Q1 … Q22) or "shuffled" (each stream its own order,
	// drawn from Seed+stream).
	Order string
	Seed  int64
	// Delay is how long after the window opened the streams started; the
	// window's part before is the baseline. Rampup is how long their
	// starts were spread over.
	Delay, Rampup time.Duration

	// The transactions' rates over the baseline (the window's intervals
	// that ended before the streams started) and over the mixed part (the
	// intervals that began once all had, after their ramp-up), from the
	// client's counts, and
	// the seconds each covers. Interference is MixedNOPM / BaselineNOPM.
	BaselineSeconds, BaselineNOPM, BaselineTPM float64
	MixedSeconds, MixedNOPM, MixedTPM          float64
	Interference                               float64
	// BaselineTx and MixedTx are each transaction type's latencies over
	// the two parts (their intervals' histograms merged), in the run's
	// order of types; nil for a part not measured.
	BaselineTx, MixedTx []MixedTxLatency

	// AnalyticSeconds is the streams' time: from the first stream's start
	// to the window's end, or to the streams' end when the run was
	// interrupted or they all stopped before it. Queries completed in it (with an answer, not
	// cut off by the window's end), QueryErrors failed; QuerySets is the
	// query sets every query of which completed, QuerySetsPerHour the
	// completed queries per hour divided by 22 (partial sets count in
	// proportion, so that a window shorter than a set still has a rate).
	AnalyticSeconds  float64
	Queries          int64
	QueryErrors      int64
	QuerySets        int64
	QuerySetsPerHour float64
	// Freshness: the age, at each query's start, of the newest order the
	// query could read (FreshnessP50 and FreshnessMax over the queries, in
	// seconds; NaN when none was read).
	FreshnessP50, FreshnessMax float64
	// PerQuery is each of the 22 queries' figures over the window.
	PerQuery []MixedQuery
	// Runs is every query execution, in the order they ended.
	Runs     []MixedRun
	Warnings []string
}

// MixedTxLatency is one transaction type's latencies over one part of a
// mixed run's window: how the analytic load moved them.
type MixedTxLatency struct {
	Name               string
	Count              int64 // completed (commits and designed rollbacks)
	P50, P95, P99, Max time.Duration
}

// MixedQuery is one analytic query's figures over a mixed run: its
// latencies' percentiles are read from Histogram, as a transaction type's
// are from its.
type MixedQuery struct {
	Query              int
	Count, Errors      int64
	P50, P95, P99, Max float64 // seconds; NaN when none completed
	// Histogram is the HDR histogram (hdrhistogram-go V2 compressed,
	// base64) of its completed executions' latencies in microseconds (1 µs
	// to 24 h, three significant digits); nil when none completed.
	Histogram []byte
}

// queryHistMaxUS is the longest query latency a histogram holds: a day
// (a longer one is recorded as a day); transactions' end at an hour.
const queryHistMaxUS = int64(24 * time.Hour / time.Microsecond)

func newQueryHist() *hdrhistogram.Histogram {
	return hdrhistogram.New(histMinUS, queryHistMaxUS, histSigFigs)
}

// MixedRun is one analytic query execution of a mixed run.
type MixedRun struct {
	Stream, Set, Position, Query int
	// Start and End are on the run's clock (since it started, ramp-up
	// included), as the intervals' Elapsed.
	Start, End time.Duration
	Seconds    float64
	Rows       int64
	// Freshness is the age in seconds of the newest order visible at the
	// query's start (NaN: not read).
	Freshness float64
	Error     string
}

// CompleteMixed derives m's figures from its Runs and the run's intervals:
// the window opened at windowStart on the run's clock, the streams started
// at windowStart+m.Delay and had all started by windowStart+m.Delay+
// m.Rampup. The baseline ends at the first, the mixed part begins at the
// second: the streams' ramp-up, with only some of them running, is in
// neither.
func CompleteMixed(m *MixedResult, ivs []Interval, windowStart time.Duration) {
	baseEnd := windowStart + m.Delay
	mixedFrom := baseEnd + m.Rampup
	var base, mixed rates
	for _, iv := range ivs {
		if iv.Phase != PhaseMeasure || iv.Length <= 0 {
			continue
		}
		// An interval cut by either bound (a delay or ramp-up that is not a
		// multiple of the interval) is in neither part; a tenth of an
		// interval's slack absorbs the monitor's timing.
		slack := iv.Length / 10
		switch start := iv.Elapsed - iv.Length; {
		case iv.Elapsed <= baseEnd+slack:
			base.add(iv)
		case start >= mixedFrom-slack:
			mixed.add(iv)
		}
	}
	m.BaselineSeconds, m.BaselineNOPM, m.BaselineTPM = base.get()
	m.MixedSeconds, m.MixedNOPM, m.MixedTPM = mixed.get()
	m.BaselineTx, m.MixedTx = base.latencies(), mixed.latencies()
	m.Interference = math.NaN()
	if m.BaselineNOPM > 0 && !math.IsNaN(m.MixedNOPM) {
		m.Interference = m.MixedNOPM / m.BaselineNOPM
	}

	SummarizeMixedRuns(m)
}

// SummarizeMixedRuns derives m's query figures (counts, query sets and
// their rate, freshness, per-query latencies) from its Runs.
func SummarizeMixedRuns(m *MixedResult) {
	m.Queries, m.QueryErrors, m.QuerySets = 0, 0, 0
	byQuery := make([]*hdrhistogram.Histogram, 22)
	errs := make([]int64, 22)
	var fresh []float64
	sets := map[[2]int]int{}
	for _, r := range m.Runs {
		if r.Query < 1 || r.Query > 22 {
			continue
		}
		if r.Error != "" {
			m.QueryErrors++
			errs[r.Query-1]++
			continue
		}
		m.Queries++
		h := byQuery[r.Query-1]
		if h == nil {
			h = newQueryHist()
			byQuery[r.Query-1] = h
		}
		us := int64(math.Round(r.Seconds * 1e6))
		_ = h.RecordValue(min(max(us, histMinUS), queryHistMaxUS))
		if !math.IsNaN(r.Freshness) {
			fresh = append(fresh, r.Freshness)
		}
		sets[[2]int{r.Stream, r.Set}]++
	}
	for _, n := range sets {
		if n == 22 {
			m.QuerySets++
		}
	}
	m.QuerySetsPerHour = math.NaN()
	if m.AnalyticSeconds > 0 {
		m.QuerySetsPerHour = float64(m.Queries) / 22 / m.AnalyticSeconds * 3600
	}
	m.FreshnessP50, m.FreshnessMax = math.NaN(), math.NaN()
	if len(fresh) > 0 {
		slices.Sort(fresh)
		m.FreshnessP50, m.FreshnessMax = quantile(fresh, 0.5), fresh[len(fresh)-1]
	}
	m.PerQuery = m.PerQuery[:0]
	for i, h := range byQuery {
		if h == nil && errs[i] == 0 {
			continue
		}
		q := MixedQuery{Query: i + 1, Errors: errs[i]}
		if h != nil {
			// Encoding a histogram of known range cannot fail.
			q.Histogram, _ = h.Encode(hdrhistogram.V2CompressedEncodingCookieBase)
		}
		_ = q.readHistogram() // just encoded: it decodes
		m.PerQuery = append(m.PerQuery, q)
	}
}

// readHistogram sets q's count and percentiles from its histogram (none:
// no count, NaN percentiles).
func (q *MixedQuery) readHistogram() error {
	q.Count, q.P50, q.P95, q.P99, q.Max = 0, math.NaN(), math.NaN(), math.NaN(), math.NaN()
	if q.Histogram == nil {
		return nil
	}
	h, err := hdrhistogram.Decode(q.Histogram)
	if err != nil {
		return fmt.Errorf("Q%d's latency histogram: %w", q.Query, err)
	}
	l := latencyOf(h)
	q.Count = h.TotalCount()
	q.P50, q.P95, q.P99, q.Max = l.p50.Seconds(), l.p95.Seconds(), l.p99.Seconds(), l.max.Seconds()
	return nil
}

// Quantiles are the latencies in seconds at each percentile of ps
// (0–100; 100 is the maximum), read from q's histogram, and its mean; nil
// and NaN when it has none.
func (q MixedQuery) Quantiles(ps []float64) (secs []float64, mean float64, err error) {
	if q.Histogram == nil {
		return nil, math.NaN(), nil
	}
	h, err := hdrhistogram.Decode(q.Histogram)
	if err != nil {
		return nil, math.NaN(), fmt.Errorf("Q%d's latency histogram: %w", q.Query, err)
	}
	secs = make([]float64, len(ps))
	for i, p := range ps {
		v := h.ValueAtQuantile(p)
		if p >= 100 {
			v = h.Max()
		}
		secs[i] = us(v).Seconds()
	}
	return secs, h.Mean() / 1e6, nil
}

// SetQueryHistograms puts the stored per-query histograms (by query
// number) in m's per-query figures in place of those derived from its
// runs, and reads the figures from them: the histograms are the job's
// record of the queries' latencies.
func SetQueryHistograms(m *MixedResult, hists map[int][]byte) error {
	for i := range m.PerQuery {
		q := &m.PerQuery[i]
		if h, ok := hists[q.Query]; ok {
			q.Histogram = h
			if err := q.readHistogram(); err != nil {
				return err
			}
		}
	}
	return nil
}

// quantile is the nearest-rank quantile of sorted values.
func quantile(sorted []float64, q float64) float64 {
	i := int(math.Ceil(q*float64(len(sorted)))) - 1
	return sorted[min(max(i, 0), len(sorted)-1)]
}

// rates sums intervals' counts and lengths.
type rates struct {
	seconds, newOrders, commits float64
	names                       []string // the types in the order met
	hists                       map[string]*histMerge
	counts                      map[string]int64
	broken                      bool // a histogram would not merge: no latencies
}

func (r *rates) add(iv Interval) {
	s := iv.Length.Seconds()
	r.seconds += s
	r.newOrders += iv.NOPM * s / 60
	r.commits += iv.TPM * s / 60
	if r.hists == nil {
		r.hists, r.counts = map[string]*histMerge{}, map[string]int64{}
	}
	for _, tx := range iv.Tx {
		h := r.hists[tx.Name]
		if h == nil {
			h = &histMerge{}
			r.hists[tx.Name] = h
			r.names = append(r.names, tx.Name)
		}
		r.counts[tx.Name] += tx.Count
		if err := h.add(tx.Histogram); err != nil {
			r.broken = true
		}
	}
}

// latencies is each type's latencies over the part, nil when it has no
// interval or a histogram that would not merge (a figure from part of
// the part would mislead).
func (r rates) latencies() []MixedTxLatency {
	if r.seconds <= 0 || r.broken {
		return nil
	}
	out := make([]MixedTxLatency, 0, len(r.names))
	for _, name := range r.names {
		l := MixedTxLatency{Name: name, Count: r.counts[name]}
		if h := r.hists[name].h; h != nil {
			lat := latencyOf(h)
			l.P50, l.P95, l.P99, l.Max = lat.p50, lat.p95, lat.p99, lat.max
		}
		out = append(out, l)
	}
	return out
}

// get is the seconds covered and the NOPM and TPM over them (NaN when none).
func (r rates) get() (seconds, nopm, tpm float64) {
	if r.seconds <= 0 {
		return 0, math.NaN(), math.NaN()
	}
	return r.seconds, r.newOrders / r.seconds * 60, r.commits / r.seconds * 60
}
