package report

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"

	"github.com/sledge-bench/sledge/internal/metrics"
)

// goldenRunResult is a fully specified TPROC-C run of 8 VUs on 10
// warehouses: a 60 s window after a 10 s ramp-up, a cross-check that agrees,
// the server's counter, errors and retries, audit items of every verdict
// (two sharing a note) and a warning. Its figures are fixed: the report
// prints what it is given (the engine's tests check how they are computed).
func goldenRunResult() *metrics.RunResult {
	ms := func(f float64) time.Duration { return time.Duration(f * float64(time.Millisecond)) }
	r := &metrics.RunResult{Status: metrics.StatusCompleted, VUs: 8, Warehouses: 10, Mode: "procs",
		Isolation: "read-committed", Rampup: 10 * time.Second, Duration: time.Minute, Measured: 60020 * time.Millisecond,
		NOPM: 9012.3, TPM: 20027.4, NewOrders: 9015, Commits: 20034, Errors: 6, RolledBack: 91,
		HasDBCheck: true, DBNewOrders: 9017, NOPMDBCheck: 9014.3, DBCheckAgree: true, DBCheckAllowance: 8,
		HasServerTPM: true, ServerTPM: 21456.7, ServerTPMMargin: 361.2, ClientCPU: 2345 * time.Millisecond, ClientCPUPerTxUS: 117.05,
		Connects: metrics.Connects{Count: 4, Total: 10 * time.Millisecond, Max: 3500 * time.Microsecond},
		Warnings: []string{"not steady: the trend fell from 21.3k to 19.8k TPM (−7 %) over the measured window"}}
	r.Tx = []metrics.TxSummary{
		{Name: "new_order", Count: 9015, RolledBack: 91, Errors: map[string]int64{"serialization": 3, "deadlock": 1},
			Retries: 5, RetriesByClass: map[string]int64{"serialization": 4, "deadlock": 1}, Retried: 4, FailedAfterRetries: 1,
			Mean: ms(2.345), P50: ms(1.9), P95: ms(5.12), P99: ms(9.876), Max: ms(123.4)},
		{Name: "payment", Count: 9020, Errors: map[string]int64{"serialization": 2}, Mean: ms(1.2), P50: ms(0.95),
			P95: ms(2.5), P99: ms(4.75), Max: ms(80)},
		{Name: "order_status", Count: 801, Errors: map[string]int64{}, Mean: ms(0.61), P50: ms(0.5), P95: ms(1.1),
			P99: ms(1.9), Max: ms(7.25)},
		{Name: "delivery", Count: 799, Errors: map[string]int64{}, Mean: ms(12.5), P50: ms(11), P95: ms(21.3),
			P99: ms(30.1), Max: ms(1250)},
		{Name: "stock_level", Count: 399, Errors: map[string]int64{}, Mean: ms(3.33), P50: ms(3), P95: ms(6),
			P99: ms(8.5), Max: ms(15)},
	}
	r.Audit = []metrics.AuditItem{
		{Name: "mix new_order", Value: 45.0, Unit: "%", Target: "≈ 43.48 (deck)", Low: 42.9, High: 44.1, N: 20040,
			Verdict: metrics.VerdictOff, Note: "more New-Orders than the deck deals: retried ones are drawn again"},
		{Name: "mix payment", Value: 45.01, Unit: "%", Target: ">= 43.0", Low: 43, High: 100, N: 20040, OK: true, Verdict: metrics.VerdictOK},
		{Name: "new_order rollbacks", Value: 1.0, Unit: "%", Target: "≈ 1", Low: 0.79, High: 1.21, N: 9106, OK: true, Verdict: metrics.VerdictOK},
		{Name: "remote order lines", Value: 0.9, Unit: "%", Target: "≈ 1", Low: 0.2, High: 1.8, N: 412, OK: true,
			Verdict: metrics.VerdictNA, Note: "too few to judge: 412, 1,000 needed"},
		{Name: "remote payments", Value: 14.2, Unit: "%", Target: "≈ 15", Low: 10, High: 20, N: 150, OK: true,
			Verdict: metrics.VerdictNA, Note: "too few to judge: 412, 1,000 needed"},
	}
	return r
}

// TestRunResultGolden pins what `sledge run` prints at the end of a
// TPROC-C run, what `sledge jobs show ID result` prints for it, and its
// JSON, byte for byte (go test ./internal/report/ -run Golden -update
// rewrites them). Nothing in them depends on the time, the locale or the
// order of a map.
func TestRunResultGolden(t *testing.T) {
	t.Parallel()
	unavailable := goldenRunResult()
	unavailable.Status, unavailable.Iterations, unavailable.Rampup, unavailable.Duration = metrics.StatusInterrupted, 500, 0, 0
	unavailable.HasDBCheck, unavailable.DBNewOrders, unavailable.NOPMDBCheck, unavailable.DBCheckAgree, unavailable.DBCheckAllowance =
		false, 0, 0, false, 0
	unavailable.DBCheckUnavailable = "the probe at the window's end failed: connection refused"
	unavailable.HasServerTPM, unavailable.ServerTPM = false, 0
	unavailable.ServerTPMUnavailable = "the database keeps no server-wide commit counter"
	unavailable.Pacing, unavailable.PacedCeiling = 0.01, 12860 // the ceiling of 10 warehouses ÷ the scale
	unavailable.Audit, unavailable.Warnings = nil, nil
	unavailable.Disruption = &metrics.Disruption{WindowStart: 0, WindowEnd: 60020 * time.Millisecond,
		Outages: []metrics.Outage{{Start: 41 * time.Second, AllBack: 44500 * time.Millisecond, Reconnected: true,
			VUs: 2, Lost: map[string]int64{"connection": 2, "other": 1}}},
		Connections: []metrics.ConnectionEvent{
			{VU: 3, LostAt: 41 * time.Second, ReconnectedAt: 43 * time.Second, Reconnected: true, Attempts: 2},
			{VU: 5, LostAt: 41200 * time.Millisecond, ReconnectedAt: 44500 * time.Millisecond, Reconnected: true, Attempts: 3}},
		MonitorGaps: []metrics.MonitorGap{{Edge: metrics.EdgeWindowEnd, At: 60020 * time.Millisecond, Error: "connection refused"}}}

	for _, c := range []struct {
		name     string
		r        *metrics.RunResult
		embedded bool
	}{
		{name: "tprocc_result", r: goldenRunResult()},
		{name: "tprocc_result_unavailable", r: unavailable, embedded: true},
	} {
		t.Run(c.name, func(t *testing.T) {
			var live, stored bytes.Buffer
			if err := RunResult(&live, "TPROC-C", 7, "postgres://bench:xxxxx@db/tpcc", "PostgreSQL 17.2", c.r, c.embedded); err != nil {
				t.Fatal(err)
			}
			goldenAnalytic(t, c.name+".golden", live.Bytes())
			if err := StoredRunResult(&stored, "TPROC-C", finishedJob(), c.r); err != nil {
				t.Fatal(err)
			}
			goldenAnalytic(t, c.name+"_stored.golden", stored.Bytes())
			js, err := json.MarshalIndent(ToResult(7, c.r), "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			goldenAnalytic(t, c.name+".json.golden", append(js, '\n'))
		})
	}
}
