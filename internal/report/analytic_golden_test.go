package report

import (
	"bytes"
	"encoding/json"
	"flag"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/sledge-bench/sledge/internal/metrics"
	"github.com/sledge-bench/sledge/internal/workload/tproch"
)

// The -update flag rewrites the golden files (go test ./internal/report/
// -run Golden -update). Other golden tests of this package may define it
// too: it is defined here only when it is not yet (package-level variables,
// such as a flag.Bool, are set before init functions run) and read by name.
func init() {
	if flag.Lookup("update") == nil {
		flag.Bool("update", false, "rewrite the golden files in testdata")
	}
}

// goldenAnalytic compares got with testdata/name, or rewrites the file
// under -update.
func goldenAnalytic(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if f := flag.Lookup("update"); f != nil && f.Value.String() == "true" {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs (run with -update if the change is meant):\n--- got\n%s\n--- want\n%s", path, got, want)
	}
}

// goldenAnalyticResult is a fully specified TPROC-H run at SF 1 with the
// validation parameters: a power test of the 22 queries in stream 0's order
// with RF1 and RF2 (some faster than 0.01 s), and a throughput test of two
// streams with a refresh stream. Its metrics are fixed figures: the report
// prints what it is given (tproch's tests check how they are computed).
func goldenAnalyticResult() *metrics.AnalyticResult {
	r := &metrics.AnalyticResult{Status: metrics.StatusCompleted, SF: 1, Streams: 2, QuerySets: 1, Seed: 1124093807,
		Refresh: true, Validation: true, Validated: "passed", PowerSeconds: 3.4567, ThroughputSeconds: 7.891,
		TsS: 7.9, GeomeanS: 0.061, Power: 51234.5, Throughput: 20050.6, Composite: 32051.7,
		Warnings: []string{"RF1 ran before the queries: the answers may differ from the stored ones (validate without --refresh)"}}
	times := []float64{0.004, 0.0151, 0.2, 1.234, 0.05, 0.009, 0.3, 0.12, 0.45, 0.081, 0.006, 0.07, 0.33, 0.04,
		0.025, 0.11, 0.0049, 0.6, 0.09, 0.16, 0.7, 0.013}
	rows := []int64{4, 1, 0, 100, 5, 1, 4, 2, 175, 20, 1048, 2, 42, 1, 1, 18314, 1, 57, 1, 186, 100, 7}
	for i, q := range tproch.StreamOrder(0) {
		r.Queries = append(r.Queries, metrics.AnalyticQuery{Stream: 0, Position: i + 1, Set: 1, Query: q,
			Seconds: times[q-1], Rows: rows[q-1], Check: "ok"})
	}
	for s := 1; s <= 2; s++ {
		for i, q := range tproch.StreamOrder(s) {
			r.Queries = append(r.Queries, metrics.AnalyticQuery{Stream: s, Position: i + 1, Set: 1, Query: q,
				Seconds: 1.5 * times[q-1], Rows: rows[q-1]})
		}
	}
	r.Refreshes = []metrics.AnalyticRefresh{
		{Stream: 0, Set: 1, Function: "RF1", Seconds: 0.0042, Rows: 7512},
		{Stream: 0, Set: 1, Function: "RF2", Seconds: 0.2345, Rows: 7512},
		{Stream: 3, Set: 2, Function: "RF1", Seconds: 0.05, Rows: 7510},
		{Stream: 3, Set: 2, Function: "RF2", Seconds: 0.21, Rows: 7510},
		{Stream: 3, Set: 3, Function: "RF1", Seconds: 0.06, Rows: 7520},
		{Stream: 3, Set: 3, Function: "RF2", Seconds: 0.22, Rows: 7520},
	}
	return r
}

// TestAnalyticGolden pins what `sledge run --workload tproch` prints at the
// end of a run (and `sledge jobs show ID result` for it), and its JSON.
func TestAnalyticGolden(t *testing.T) {
	t.Parallel()
	failed := goldenAnalyticResult()
	failed.Status, failed.SF, failed.Streams, failed.Validation, failed.Validated = metrics.StatusFailed, 0.01, 0, false, ""
	failed.Refresh, failed.Refreshes, failed.Queries = false, nil, failed.Queries[:22]
	failed.Queries[5].Error, failed.Queries[5].Rows = "canceling statement due to statement timeout", 0
	for i := range failed.Queries {
		failed.Queries[i].Check = ""
	}
	failed.TsS, failed.ThroughputSeconds = math.NaN(), 0
	failed.GeomeanS, failed.Power, failed.Throughput, failed.Composite = math.NaN(), math.NaN(), math.NaN(), math.NaN()
	failed.Warnings = []string{"the power test did not run all 22 queries successfully: no geometric mean or metrics"}

	// Below scale factor 0.007 the update sets are empty: RF1 and RF2 ran
	// and changed nothing, and power and composite are left out.
	idle := goldenAnalyticResult()
	idle.SF, idle.Validation, idle.Validated = 0.001, false, ""
	for i := range idle.Queries {
		idle.Queries[i].Check = ""
	}
	for i := range idle.Refreshes {
		idle.Refreshes[i].Rows = 0
	}
	idle.Power, idle.Composite = math.NaN(), math.NaN()
	idle.Warnings = []string{
		"RF1 and RF2 changed no rows (at scale factor 0.001 the update sets are empty: the refresh functions act from scale factor 0.007): no power or composite metric",
		"the throughput test's refresh stream: RF1 and RF2 changed no rows (at scale factor 0.001 the update sets are empty: the refresh functions act from scale factor 0.007)"}

	for _, c := range []struct {
		name string
		r    *metrics.AnalyticResult
	}{{"tproch_result", goldenAnalyticResult()}, {"tproch_result_failed", failed}, {"tproch_result_refresh_idle", idle}} {
		t.Run(c.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := Analytic(&b, 42, "duckdb:/data/tproch.duckdb", c.r); err != nil {
				t.Fatal(err)
			}
			goldenAnalytic(t, c.name+".golden", b.Bytes())
			js, err := json.MarshalIndent(ToAnalytic(42, c.r), "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			goldenAnalytic(t, c.name+".json.golden", append(js, '\n'))
		})
	}
}
