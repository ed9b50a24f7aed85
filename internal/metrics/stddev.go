package metrics

import (
	"math"
	"time"
)

// LatencySpread is the mean and standard deviation of the latencies of
// some transaction types, from their histograms merged (pgbench's
// "latency average" and "latency stddev"); ok is false when none has a
// histogram.
func LatencySpread(txs ...TxSummary) (mean, stddev time.Duration, ok bool, err error) {
	var m histMerge
	for _, t := range txs {
		if err := m.add(t.Histogram); err != nil {
			return 0, 0, false, err
		}
	}
	if m.h == nil || m.h.TotalCount() == 0 {
		return 0, 0, false, nil
	}
	return usFloat(m.h.Mean()), usFloat(m.h.StdDev()), true, nil
}

func usFloat(v float64) time.Duration {
	return time.Duration(math.Round(v * float64(time.Microsecond)))
}

// CountAbove is how many of the transactions' latencies exceed limit
// (pgbench's "transactions above the latency limit"), from their
// histograms at their precision.
func CountAbove(limit time.Duration, txs ...TxSummary) (int64, error) {
	var m histMerge
	for _, t := range txs {
		if err := m.add(t.Histogram); err != nil {
			return 0, err
		}
	}
	if m.h == nil {
		return 0, nil
	}
	var n int64
	lim := limit.Microseconds()
	for _, b := range m.h.Distribution() {
		if b.From > lim {
			n += b.Count
		}
	}
	return n, nil
}

// IntervalPercentile is the q-th percentile (0–100) of the latencies of an
// interval's completed transactions of every type together, from their
// histograms; ok is false when none completed (or none carries one).
func IntervalPercentile(q float64, txs ...IntervalTx) (p time.Duration, ok bool, err error) {
	var m histMerge
	for _, t := range txs {
		if err := m.add(t.Histogram); err != nil {
			return 0, false, err
		}
	}
	if m.h == nil || m.h.TotalCount() == 0 {
		return 0, false, nil
	}
	return time.Duration(m.h.ValueAtQuantile(q)) * time.Microsecond, true, nil
}
