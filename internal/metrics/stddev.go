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
