package pgbench

import (
	"strings"
	"testing"
	"time"

	"github.com/sledge-bench/sledge/internal/metrics"
	"github.com/sledge-bench/sledge/internal/metrics/metricstest"
	"github.com/sledge-bench/sledge/internal/workload"
)

// TestWriteRunReport: a run's result reads as pgbench's, line for line
// where pgbench has the line: totals, failures by kind, retries, the rate
// run's skipped transactions, and one section per script with its weight.
func TestWriteRunReport(t *testing.T) {
	t.Parallel()
	res := &metrics.RunResult{Status: "completed", VUs: 4, Duration: 10 * time.Second, Measured: 10 * time.Second,
		Tx: []metrics.TxSummary{
			{Name: "tpcb-like", Count: 300, Errors: map[string]int64{"serialization": 3, "deadlock": 1}, Retried: 20, Retries: 25,
				Histogram: metricstest.Histogram(t, 1000, 2000, 3000)},
			{Name: "lookup.sql", Count: 100, Histogram: metricstest.Histogram(t, 500, 500)},
		},
		Load:     &metrics.LoadResult{Model: metrics.LoadRate, AskedRate: 50, Scheduled: 500, SkipLate: 2500 * time.Microsecond, Skipped: 5},
		Connects: metrics.Connects{Count: 4, Total: 10 * time.Second, Max: 4 * time.Second},
		Commands: []metrics.CommandTiming{
			{Tx: "lookup.sql", Index: 0, Command: `\set aid random(1, 100)`, Count: 100, Total: 200 * time.Microsecond},
			{Tx: "lookup.sql", Index: 1, Command: "SELECT 1\nFROM t;", Count: 98, Total: 49 * time.Millisecond, Failures: 2},
		},
	}
	var b strings.Builder
	err := Workload{}.WriteRunReport(&b, workload.RunReport{ID: 7, Target: "postgres://h/db", Version: "PostgreSQL 15",
		Settings: map[string]string{"scripts": "tpcb-like@3, lookup.sql@1", "scale": "10", "query_mode": "prepared", "max_retries": "9", "per_statement": "true"},
		Result:   res})
	if err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"pgbench result (job 7): completed\n",
		"transaction type: multiple scripts\n",
		"scaling factor: 10\n",
		"query mode: prepared\n",
		"number of clients: 4\n",
		"maximum number of tries: 10\n",
		"duration: 10 s\n",
		"number of transactions actually processed: 400\n",
		"number of failed transactions: 4 (0.990%)\n",
		"number of deadlock failures: 1 (0.248%)\n",
		"number of serialization failures: 3 (0.743%)\n",
		"number of transactions retried: 20 (4.950%)\n",
		"total number of retries: 25\n",
		"number of transactions skipped: 5 (1.000%)\n",
		"number of transactions above the 2.5 ms latency limit: 1/405 (0.247%)\n",
		"latency average = 1.400 ms\n",
		// No ramp-up: the 10 s window holds the openings (2.5 s on
		// average), as pgbench's run time holds its connecting.
		"initial connection time = 2500.000 ms\n",
		"tps = 53.333333 (without initial connection time)\n",
		"tps = 40.000000 (including initial connection time)\n",
		"SQL script 1: <builtin: TPC-B (sort of)>\n - weight: 3 (targets 75.0% of total)\n - 300 transactions (75.0% of total, tps = 30.000000)\n" +
			" - number of failed transactions: 4 (1.316%)\n",
		" - latency average = 2.000 ms\n",
		"SQL script 2: lookup.sql\n - weight: 1 (targets 25.0% of total)\n - 100 transactions (25.0% of total, tps = 10.000000)\n",
		" - latency average = 0.500 ms\n - latency stddev = 0.000 ms\n - statement latencies in milliseconds and failures:\n" +
			"         0.002           0  \\set aid random(1, 100)\n" +
			"         0.500           2  SELECT 1\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the report lacks %q:\n%s", want, out)
		}
	}
	// With a ramp-up the sessions opened before the window: the window's
	// rate is the one without them.
	res.Rampup = 5 * time.Second
	b.Reset()
	_ = Workload{}.WriteRunReport(&b, workload.RunReport{ID: 7, Settings: map[string]string{"scripts": "tpcb-like@3, lookup.sql@1"}, Result: res})
	if out := b.String(); !strings.Contains(out, "tps = 40.000000 (without initial connection time)\ntps = 32.000000 (including initial connection time)\n") {
		t.Errorf("a run with a ramp-up: the window's rate is not the one without the openings:\n%s", out)
	}
	// One script, one try: no sections, no retry lines; a job stored
	// before the sessions' openings were timed says so.
	res.Tx, res.Load, res.Connects = res.Tx[:1], nil, metrics.Connects{}
	res.Tx[0].Errors = nil
	b.Reset()
	_ = Workload{}.WriteRunReport(&b, workload.RunReport{ID: 8, Settings: map[string]string{"scripts": "tpcb-like@1", "max_retries": "0"}, Result: res})
	out = b.String()
	for _, absent := range []string{"SQL script", "retried", "skipped", "multiple", "statement latencies"} {
		if strings.Contains(out, absent) {
			t.Errorf("a run of one script with one try says %q:\n%s", absent, out)
		}
	}
	if !strings.Contains(out, "initial connection time = not measured") || strings.Contains(out, "including initial") {
		t.Errorf("a result without connection timings claims one:\n%s", out)
	}
	if !strings.Contains(out, "transaction type: <builtin: TPC-B (sort of)>\n") {
		t.Errorf("the report does not name the built-in script:\n%s", out)
	}
}
