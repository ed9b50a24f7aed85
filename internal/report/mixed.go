package report

import (
	"fmt"
	"io"
	"math"
	"text/tabwriter"

	"github.com/sledge-bench/sledge/internal/metrics"
)

// mixedBlock prints a mixed run's analytic half: the transactions without
// and with the analytic streams, the streams' throughput and freshness, and
// each query's latency. Nothing for any other run.
func mixedBlock(w io.Writer, r *metrics.RunResult) {
	m := r.Mixed
	if m == nil {
		return
	}
	fmt.Fprintf(w, "\n  analytic streams: %d, %s order, from %s into the window", m.Streams, m.Order, m.Delay)
	if m.Rampup > 0 {
		fmt.Fprintf(w, " over %s", m.Rampup)
	}
	fmt.Fprintln(w)
	tw := newTable(w, 0)
	if math.IsNaN(m.BaselineNOPM) {
		fmt.Fprintf(tw, "  baseline\tnone\t(the streams started with the window: give an analytic delay for one)\n")
	} else {
		fmt.Fprintf(tw, "  baseline\tNOPM %s, TPM %s\t(%.0f s without analytic load)\n", Int(m.BaselineNOPM), Int(m.BaselineTPM), m.BaselineSeconds)
	}
	if math.IsNaN(m.MixedNOPM) {
		fmt.Fprintf(tw, "  mixed\tnot measured\t(no whole interval after the streams started)\n")
	} else {
		fmt.Fprintf(tw, "  mixed\tNOPM %s, TPM %s\t(%.0f s with analytic load)\n", Int(m.MixedNOPM), Int(m.MixedTPM), m.MixedSeconds)
	}
	if !math.IsNaN(m.Interference) {
		fmt.Fprintf(tw, "  interference\t%.3f\t(mixed NOPM / baseline NOPM)\n", m.Interference)
	}
	sets := "not measured"
	if !math.IsNaN(m.QuerySetsPerHour) {
		sets = fmt.Sprintf("%.1f", m.QuerySetsPerHour)
	}
	fmt.Fprintf(tw, "  query sets/hour\t%s\t(%d queries completed, %d failed, %d whole sets, over %.0f s)\n",
		sets, m.Queries, m.QueryErrors, m.QuerySets, m.AnalyticSeconds)
	if !math.IsNaN(m.FreshnessP50) {
		fmt.Fprintf(tw, "  freshness\tp50 %.3f s, max %.3f s\t(age of the newest order at each query's start)\n", m.FreshnessP50, m.FreshnessMax)
	}
	tw.Flush()
	mixedTxTable(w, m)
	if len(m.PerQuery) == 0 {
		return
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "  query latencies (each query's HDR histogram, three significant digits):")
	tw = newTable(w, tabwriter.AlignRight)
	fmt.Fprintln(tw, "  query\tcount\terrors\tmean s\tp50 s\tp90 s\tp95 s\tp99 s\tmax s\t")
	for _, q := range m.PerQuery {
		// The figures of a histogram that would not decode are shown
		// as not measured, as those of a query that never completed.
		ps, mean, _ := q.Quantiles([]float64{90})
		p90 := math.NaN()
		if len(ps) == 1 {
			p90 = ps[0]
		}
		fmt.Fprintf(tw, "  Q%d\t%d\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t\n", q.Query, q.Count, q.Errors,
			qsecs(mean), qsecs(q.P50), qsecs(p90), qsecs(q.P95), qsecs(q.P99), qsecs(q.Max))
	}
	tw.Flush()
}

// mixedTxTable prints each transaction type's latencies over the
// baseline and the mixed part: how the analytic load moved them.
func mixedTxTable(w io.Writer, m *metrics.MixedResult) {
	if len(m.BaselineTx) == 0 && len(m.MixedTx) == 0 {
		return
	}
	var names []string
	base, mixed := map[string]metrics.MixedTxLatency{}, map[string]metrics.MixedTxLatency{}
	for _, part := range []struct {
		txs []metrics.MixedTxLatency
		to  map[string]metrics.MixedTxLatency
	}{{m.BaselineTx, base}, {m.MixedTx, mixed}} {
		for _, l := range part.txs {
			if _, seen := base[l.Name]; !seen {
				if _, seen := mixed[l.Name]; !seen {
					names = append(names, l.Name)
				}
			}
			part.to[l.Name] = l
		}
	}
	cell := func(l metrics.MixedTxLatency, ok bool) string {
		if !ok || l.Count == 0 {
			return "-"
		}
		return fmt.Sprintf("%.2f / %.2f / %.2f", MS(l.P50), MS(l.P95), MS(l.P99))
	}
	fmt.Fprintln(w)
	tw := newTable(w, 0)
	fmt.Fprintln(tw, "  latency ms\tbaseline p50 / p95 / p99\tmixed p50 / p95 / p99")
	for _, n := range names {
		b, bok := base[n]
		x, xok := mixed[n]
		fmt.Fprintf(tw, "  %s\t%s\t%s\n", n, cell(b, bok), cell(x, xok))
	}
	tw.Flush()
}

func qsecs(s float64) string {
	if math.IsNaN(s) {
		return "-"
	}
	return fmt.Sprintf("%.3f", s)
}

// MixedJSON is a mixed run's analytic half (metrics.MixedResult) in the
// API: figures that could not be measured are null.
type MixedJSON struct {
	Streams          int     `json:"streams"`
	Order            string  `json:"order"` // paper | shuffled
	Seed             int64   `json:"seed"`
	DelayS           float64 `json:"delay_s"`
	RampupS          float64 `json:"rampup_s"`
	BaselineS        float64 `json:"baseline_s"`
	BaselineNOPM     Float   `json:"baseline_nopm"`
	BaselineTPM      Float   `json:"baseline_tpm"`
	MixedS           float64 `json:"mixed_s"`
	MixedNOPM        Float   `json:"mixed_nopm"`
	MixedTPM         Float   `json:"mixed_tpm"`
	Interference     Float   `json:"interference"` // mixed NOPM / baseline NOPM
	AnalyticS        float64 `json:"analytic_s"`
	Queries          int64   `json:"queries"`
	QueryErrors      int64   `json:"query_errors"`
	QuerySets        int64   `json:"query_sets"`
	QuerySetsPerHour Float   `json:"query_sets_per_hour"`
	FreshnessP50S    Float   `json:"freshness_p50_s"`
	FreshnessMaxS    Float   `json:"freshness_max_s"`
	// BaselineTx and MixedTx are each transaction type's latencies over
	// the two parts; empty for a part not measured.
	BaselineTx []MixedTxJSON    `json:"baseline_tx"`
	MixedTx    []MixedTxJSON    `json:"mixed_tx"`
	PerQuery   []MixedQueryJSON `json:"per_query"`
	// Runs is every query execution; start_s and end_s are on the run's
	// clock, as the intervals' elapsed_s.
	Runs []MixedRunJSON `json:"runs"`
}

// MixedTxJSON is one transaction type's latencies over one part of a
// mixed run's window.
type MixedTxJSON struct {
	Tx    string  `json:"tx"`
	Count int64   `json:"count"`
	P50MS float64 `json:"p50_ms"`
	P95MS float64 `json:"p95_ms"`
	P99MS float64 `json:"p99_ms"`
	MaxMS float64 `json:"max_ms"`
}

// MixedQueryJSON is one query's figures over a mixed run, read from its
// latency histogram.
type MixedQueryJSON struct {
	Query  int   `json:"query"`
	Count  int64 `json:"count"`
	Errors int64 `json:"errors"`
	MeanS  Float `json:"mean_s"`
	P50S   Float `json:"p50_s"`
	P95S   Float `json:"p95_s"`
	P99S   Float `json:"p99_s"`
	MaxS   Float `json:"max_s"`
	// Percentiles are the latencies at QueryPercentiles (the latency
	// distribution, for a chart); empty when none completed.
	Percentiles []QueryPercentileJSON `json:"percentiles"`
	// Histogram is the HDR histogram of its latencies in µs
	// (hdrhistogram-go V2 compressed, base64), as a transaction type's in
	// timing; null when none completed.
	Histogram *string `json:"histogram"`
}

// QueryPercentileJSON is a query's latency at one percentile.
type QueryPercentileJSON struct {
	Percentile float64 `json:"percentile"`
	S          float64 `json:"s"`
}

// QueryPercentiles are the percentiles of a query's latency distribution
// in the API (100: the maximum).
var QueryPercentiles = []float64{0, 10, 25, 50, 75, 90, 95, 99, 99.9, 100}

// MixedRunJSON is one query execution of a mixed run.
type MixedRunJSON struct {
	Stream     int     `json:"stream"`
	Set        int     `json:"set"`
	Position   int     `json:"position"`
	Query      int     `json:"query"`
	StartS     float64 `json:"start_s"`
	EndS       float64 `json:"end_s"`
	Seconds    float64 `json:"seconds"`
	Rows       int64   `json:"rows"`
	FreshnessS Float   `json:"freshness_s"`
	Error      string  `json:"error,omitempty"`
}

// ToMixed is m in the API's form; nil for nil.
func ToMixed(m *metrics.MixedResult) *MixedJSON {
	if m == nil {
		return nil
	}
	out := &MixedJSON{Streams: m.Streams, Order: m.Order, Seed: m.Seed, DelayS: m.Delay.Seconds(), RampupS: m.Rampup.Seconds(),
		BaselineS: m.BaselineSeconds, BaselineNOPM: Float(m.BaselineNOPM), BaselineTPM: Float(m.BaselineTPM),
		MixedS: m.MixedSeconds, MixedNOPM: Float(m.MixedNOPM), MixedTPM: Float(m.MixedTPM), Interference: Float(m.Interference),
		AnalyticS: m.AnalyticSeconds, Queries: m.Queries, QueryErrors: m.QueryErrors, QuerySets: m.QuerySets,
		QuerySetsPerHour: Float(m.QuerySetsPerHour), FreshnessP50S: Float(m.FreshnessP50), FreshnessMaxS: Float(m.FreshnessMax),
		BaselineTx: mixedTxJSON(m.BaselineTx), MixedTx: mixedTxJSON(m.MixedTx),
		PerQuery: []MixedQueryJSON{}, Runs: []MixedRunJSON{}}
	for _, q := range m.PerQuery {
		j := MixedQueryJSON{Query: q.Query, Count: q.Count, Errors: q.Errors, MeanS: Float(math.NaN()),
			P50S: Float(q.P50), P95S: Float(q.P95), P99S: Float(q.P99), MaxS: Float(q.Max), Percentiles: []QueryPercentileJSON{}}
		// A histogram that would not decode has no distribution (its
		// figures are NaN already: metrics.SetQueryHistograms refuses it).
		if secs, mean, err := q.Quantiles(QueryPercentiles); err == nil && secs != nil {
			j.MeanS = Float(mean)
			for i, p := range QueryPercentiles {
				j.Percentiles = append(j.Percentiles, QueryPercentileJSON{Percentile: p, S: secs[i]})
			}
			h := string(q.Histogram) // already base64 text
			j.Histogram = &h
		}
		out.PerQuery = append(out.PerQuery, j)
	}
	for _, r := range m.Runs {
		out.Runs = append(out.Runs, MixedRunJSON{Stream: r.Stream, Set: r.Set, Position: r.Position, Query: r.Query,
			StartS: r.Start.Seconds(), EndS: r.End.Seconds(), Seconds: r.Seconds, Rows: r.Rows,
			FreshnessS: Float(r.Freshness), Error: r.Error})
	}
	return out
}

func mixedTxJSON(txs []metrics.MixedTxLatency) []MixedTxJSON {
	out := []MixedTxJSON{}
	for _, l := range txs {
		out = append(out, MixedTxJSON{Tx: l.Name, Count: l.Count, P50MS: MS(l.P50), P95MS: MS(l.P95), P99MS: MS(l.P99), MaxMS: MS(l.Max)})
	}
	return out
}
