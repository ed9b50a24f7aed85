package report

import (
	"math"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/sledge-bench/sledge/internal/metrics"
)

// TestMixedTxLatencies: a mixed run's block has each transaction type's
// latencies without and with the analytic load, "-" where a part has none,
// and its JSON the same figures.
func TestMixedTxLatencies(t *testing.T) {
	t.Parallel()
	ms := time.Millisecond
	m := &metrics.MixedResult{Streams: 1, Order: "paper", Delay: 10 * time.Second,
		BaselineSeconds: 10, BaselineNOPM: 600, BaselineTPM: 1300, MixedSeconds: 20, MixedNOPM: 300, MixedTPM: 650,
		Interference: 0.5, QuerySetsPerHour: math.NaN(), FreshnessP50: math.NaN(), FreshnessMax: math.NaN(),
		BaselineTx: []metrics.MixedTxLatency{{Name: "new_order", Count: 100, P50: ms, P95: 2 * ms, P99: 3 * ms, Max: 9 * ms}},
		MixedTx: []metrics.MixedTxLatency{{Name: "new_order", Count: 50, P50: 4 * ms, P95: 8 * ms, P99: 16 * ms, Max: 40 * ms},
			{Name: "payment", Count: 40, P50: ms, P95: ms, P99: 2 * ms, Max: 2 * ms}}}
	var b strings.Builder
	mixedBlock(&b, &metrics.RunResult{Mixed: m})
	for _, want := range []string{
		`(?m)^  latency ms +baseline p50 / p95 / p99 +mixed p50 / p95 / p99$`,
		`(?m)^  new_order +1\.00 / 2\.00 / 3\.00 +4\.00 / 8\.00 / 16\.00$`,
		`(?m)^  payment +- +1\.00 / 1\.00 / 2\.00$`,
	} {
		if !regexp.MustCompile(want).MatchString(b.String()) {
			t.Errorf("the block lacks %s:\n%s", want, b.String())
		}
	}
	j := ToMixed(m)
	if len(j.BaselineTx) != 1 || j.BaselineTx[0] != (MixedTxJSON{Tx: "new_order", Count: 100, P50MS: 1, P95MS: 2, P99MS: 3, MaxMS: 9}) ||
		len(j.MixedTx) != 2 || j.MixedTx[1].Tx != "payment" || j.MixedTx[0].P99MS != 16 {
		t.Errorf("JSON baseline %+v, mixed %+v", j.BaselineTx, j.MixedTx)
	}
	if j := ToMixed(&metrics.MixedResult{}); j.BaselineTx == nil || len(j.BaselineTx) != 0 {
		t.Errorf("a part not measured is %v in JSON, want []", j.BaselineTx)
	}
}
