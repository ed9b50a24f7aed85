package report

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/sledge-bench/sledge/internal/jobs"
	"github.com/sledge-bench/sledge/internal/metrics"
)

// decode writes v as JSON with WriteJSON and decodes it into a generic
// value, so that tests see exactly the keys and nulls a program would.
func decode(t *testing.T, v any) any {
	t.Helper()
	var b strings.Builder
	if err := WriteJSON(&b, v); err != nil {
		t.Fatal(err)
	}
	var out any
	if err := json.Unmarshal([]byte(b.String()), &out); err != nil {
		t.Fatalf("invalid JSON: %v\n%s", err, b.String())
	}
	return out
}

// object decodes v, which must encode as a JSON object.
func object(t *testing.T, v any) map[string]any {
	t.Helper()
	m, ok := decode(t, v).(map[string]any)
	if !ok {
		t.Fatalf("%T does not encode as an object", v)
	}
	return m
}

// hasKeys fails unless m has every key; null values count.
func hasKeys(t *testing.T, m map[string]any, keys ...string) {
	t.Helper()
	for _, k := range keys {
		if _, ok := m[k]; !ok {
			t.Errorf("no key %q in %v", k, m)
		}
	}
}

func TestFloat(t *testing.T) {
	t.Parallel()
	cases := []struct {
		v    float64
		want string
	}{
		{1.5, "1.5"},
		{0, "0"},
		{math.NaN(), "null"},
		{math.Inf(1), "null"},
		{math.Inf(-1), "null"},
	}
	for _, c := range cases {
		got, err := json.Marshal(Float(c.v))
		if err != nil || string(got) != c.want {
			t.Errorf("Float(%v) = %s, %v; want %s", c.v, got, err, c.want)
		}
	}
}

func TestWriteJSON(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	if err := WriteJSON(&b, map[string]string{"target": "≈ 1.0 & <2>"}); err != nil {
		t.Fatal(err)
	}
	// Indented, unescaped, one final newline.
	if got, want := b.String(), "{\n  \"target\": \"≈ 1.0 & <2>\"\n}\n"; got != want {
		t.Errorf("WriteJSON = %q, want %q", got, want)
	}
}

func TestToJob(t *testing.T) {
	t.Parallel()
	m := object(t, ToJob(finishedJob()))
	hasKeys(t, m, "id", "kind", "workload", "status", "db_kind", "target", "db_version", "host", "pid",
		"created_at", "started_at", "ended_at", "duration_s", "error", "nopm", "tpm")
	if m["started_at"] != "2025-03-01T12:00:00Z" || m["duration_s"] != 90.5 || m["nopm"] != 9000.0 {
		t.Errorf("finished job: %v", m)
	}

	running := finishedJob()
	running.EndedAt, running.Headline = time.Time{}, nil
	m = object(t, ToJob(running))
	for _, k := range []string{"ended_at", "duration_s", "nopm", "tpm"} {
		if v, ok := m[k]; !ok || v != nil {
			t.Errorf("running job: %s = %v, want null", k, v)
		}
	}
}

func TestToResult(t *testing.T) {
	t.Parallel()
	r := runResult()
	r.NOPM, r.ClientCPUPerTxUS = math.NaN(), math.Inf(1)
	r.Tx[0].Errors = map[string]int64{"serialization": 2}
	r.Tx[0].Histogram = []byte("HISTFAAAAB")
	m := object(t, ToResult(7, r))
	hasKeys(t, m, "job_id", "status", "vu", "warehouses", "mode", "isolation", "rampup_s", "duration_s",
		"configured_duration_s", "nopm", "tpm", "new_orders", "commits", "errors", "rolled_back", "db_new_orders",
		"nopm_db_check", "db_check_agree", "server_tpm", "client_cpu_s", "client_cpu_per_tx_us", "warnings", "audit",
		"transactions", "transaction_order")
	for _, k := range []string{"nopm", "client_cpu_per_tx_us", "server_tpm"} {
		if m[k] != nil {
			t.Errorf("%s = %v, want null", k, m[k])
		}
	}
	// Empty lists are [] rather than null.
	for _, k := range []string{"warnings", "audit"} {
		if l, ok := m[k].([]any); !ok || len(l) != 0 {
			t.Errorf("%s = %#v, want []", k, m[k])
		}
	}
	if m["duration_s"] != 60.0 || m["configured_duration_s"] != 60.0 || m["tpm"] != 20000.0 {
		t.Errorf("durations or rates wrong: %v", m)
	}
	order, _ := m["transaction_order"].([]any)
	if len(order) != 2 || order[0] != "new_order" || order[1] != "payment" {
		t.Errorf("transaction_order = %v", m["transaction_order"])
	}
	tx := m["transactions"].(map[string]any)["new_order"].(map[string]any)
	hasKeys(t, tx, "count", "rolled_back", "retries", "retries_by_class", "retried", "failed_after_retries",
		"mean_ms", "p50_ms", "p95_ms", "p99_ms", "max_ms", "errors", "errors_by_class")
	if _, ok := tx["histogram"]; ok {
		t.Error("result carries histograms; only timing should")
	}
	if tx["errors"] != 2.0 || tx["p95_ms"] != 2.0 {
		t.Errorf("new_order = %v", tx)
	}
	if rbc, ok := tx["retries_by_class"].(map[string]any); !ok || len(rbc) != 0 {
		t.Errorf("retries_by_class = %#v, want {}", tx["retries_by_class"])
	}

	r.HasServerTPM, r.ServerTPM = true, 21000
	if m = object(t, ToResult(7, r)); m["server_tpm"] != 21000.0 {
		t.Errorf("server_tpm = %v, want 21000", m["server_tpm"])
	}
	// A timed run says iterations 0; an iteration run its count per VU,
	// with the elapsed time as its duration and no configured one.
	if m["iterations"] != 0.0 {
		t.Errorf("timed run: iterations = %v, want 0", m["iterations"])
	}
	r.Iterations, r.Rampup, r.Duration, r.Measured = 250, 0, 0, 12*time.Second
	m = object(t, ToResult(7, r))
	if m["iterations"] != 250.0 || m["duration_s"] != 12.0 || m["configured_duration_s"] != 0.0 || m["rampup_s"] != 0.0 {
		t.Errorf("iteration run: iterations %v, duration_s %v, configured_duration_s %v, rampup_s %v",
			m["iterations"], m["duration_s"], m["configured_duration_s"], m["rampup_s"])
	}
}

func TestTransactions(t *testing.T) {
	t.Parallel()
	r := runResult()
	r.Tx[0].Histogram = []byte("HISTFAAAAB")
	for _, withHistogram := range []bool{false, true} {
		m, order := Transactions(r.Tx, withHistogram)
		if len(m) != 2 || len(order) != 2 || order[0] != "new_order" {
			t.Fatalf("Transactions = %v, %v", m, order)
		}
		h := m["new_order"].Histogram
		if withHistogram != (h != nil) || (h != nil && *h != "HISTFAAAAB") {
			t.Errorf("withHistogram %v: histogram %v", withHistogram, h)
		}
	}
}

func TestToIntervals(t *testing.T) {
	t.Parallel()
	if got := decode(t, ToIntervals(nil)); got == nil {
		t.Error("no intervals encode as null, want []")
	}
	ivs := []metrics.Interval{{Seq: 1, Phase: metrics.PhaseMeasure, Elapsed: 10 * time.Second, Length: 10 * time.Second,
		TPM: 100, NOPM: math.NaN(), Tx: []metrics.IntervalTx{{Name: "payment", Count: 3, P95: time.Millisecond}},
		VUs: []metrics.VUInterval{{VU: 1, State: "running", Commits: 3}}}}
	l := decode(t, ToIntervals(ivs)).([]any)
	iv := l[0].(map[string]any)
	hasKeys(t, iv, "seq", "phase", "elapsed_s", "length_s", "tpm", "nopm", "errors", "transactions", "vus")
	if iv["nopm"] != nil {
		t.Errorf("nopm = %v, want null", iv["nopm"])
	}
	tx := iv["transactions"].(map[string]any)["payment"].(map[string]any)
	hasKeys(t, tx, "count", "errors", "p50_ms", "p95_ms", "p99_ms", "max_ms")
	vu := iv["vus"].([]any)[0].(map[string]any)
	hasKeys(t, vu, "vu", "state", "commits", "errors")
}

func TestToBuildCheckOutput(t *testing.T) {
	t.Parallel()
	b := object(t, ToBuild(&jobs.BuildResult{Warehouses: 1, Rows: 10, Seconds: math.NaN()}))
	hasKeys(t, b, "warehouses", "workers", "rows", "seconds", "rows_per_s", "tables")
	if b["seconds"] != nil || b["tables"] == nil {
		t.Errorf("build = %v: want null seconds and {} tables", b)
	}

	if decode(t, ToCheck(nil)) == nil {
		t.Error("no check items encode as null, want []")
	}
	c := decode(t, ToCheck([]jobs.CheckItem{{Name: "1", Violations: 2}})).([]any)[0].(map[string]any)
	hasKeys(t, c, "name", "description", "passed", "skipped", "violations", "note")

	at := time.Date(2025, 3, 1, 12, 0, 0, 0, time.FixedZone("CET", 3600))
	o := decode(t, ToOutput([]jobs.OutputLine{{Seq: 1, At: at, Line: "hello"}})).([]any)[0].(map[string]any)
	if o["seq"] != 1.0 || o["at"] != "2025-03-01T11:00:00Z" || o["line"] != "hello" {
		t.Errorf("output line = %v", o)
	}
}
