package server

import (
	"fmt"
	"maps"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"github.com/sledge-bench/sledge/internal/metrics"
	"github.com/sledge-bench/sledge/internal/observe"
	"github.com/sledge-bench/sledge/internal/output"
)

// TestMetricsExportObserved: a running job's observers' latest snapshots
// reach /metrics as gauges with the right values; only the allow-listed
// counters are exported, a NaN has no series, and two observers of the
// same name stay two series.
func TestMetricsExportObserved(t *testing.T) {
	t.Parallel()
	hub := output.NewHub()
	sink := hub.Open(7, "tprocc")
	defer sink.Close()
	hub.Observed(7, 0, "PostgreSQL sessions and statistics", observe.Snapshot{Length: 10 * time.Second, Samples: 100,
		Waits: []observe.Wait{{Class: "CPU", AAS: 2}, {Class: "Lock", Event: "transactionid", AAS: 0.5}, {Class: "Lock", Event: "tuple", AAS: 0.25}},
		Counters: []observe.Counter{
			{Source: "pg_stat_database", Name: "xact_commit", Kind: observe.Delta, Value: 5000},
			{Source: "pg_stat_database", Name: "tup_fetched", Kind: observe.Delta, Value: 123}, // not exported
			{Source: "pg_stat_wal", Name: "wal_bytes", Kind: observe.Delta, Unit: "bytes", Value: 1e7},
			{Source: "pg_stat_activity", Name: "active_sessions", Kind: observe.Gauge, Value: 3}, // not a delta
		}})
	// A first snapshot replaced by the latest.
	hub.Observed(7, 1, "database host", observe.Snapshot{Length: time.Second, Counters: []observe.Counter{
		{Source: observe.SourceOSCPU, Name: "user_pct", Kind: observe.Gauge, Unit: "%", Value: 99}}})
	hub.Observed(7, 1, "database host", observe.Snapshot{Length: 5 * time.Second, Counters: []observe.Counter{
		{Source: observe.SourceOSCPU, Name: "user_pct", Kind: observe.Gauge, Unit: "%", Value: 40},
		{Source: observe.SourceOSCPU, Name: "sys_pct", Kind: observe.Gauge, Unit: "%", Value: 10},
		{Source: observe.SourceOSCPU, Name: "cpus", Kind: observe.Gauge, Value: 8}, // not a mode
		{Source: observe.SourceOSDisk, Name: "mbps", Kind: observe.Gauge, Unit: "MB/s", Value: 2.5},
		{Source: observe.SourceOSMem, Name: "used", Kind: observe.Gauge, Unit: "bytes", Value: 3e9},
		{Source: "global_status", Name: "Com_commit", Kind: observe.Delta, Value: 50},
	}})
	hub.Observed(7, 2, "database host", observe.Snapshot{Length: 5 * time.Second, Counters: []observe.Counter{
		{Source: observe.SourceOSDisk, Name: "mbps", Kind: observe.Gauge, Unit: "MB/s", Value: math.NaN()},
		{Source: observe.SourceOSMem, Name: "used", Kind: observe.Gauge, Unit: "bytes", Value: 1e9},
	}})

	got := gather(t, newJobCollector(hub))
	const pg, host = `job="7",observer="PostgreSQL sessions and statistics"`, `job="7",observer="database host"`
	tests := []struct {
		metric string
		want   map[string]float64 // by labels
	}{
		{"sledge_server_active_sessions", map[string]float64{
			`class="CPU",` + pg: 2, `class="Lock",` + pg: 0.75}},
		{"sledge_server_observed_samples", map[string]float64{
			pg: 100, host: 0, `job="7",observer="database host #2"`: 0}},
		{"sledge_host_cpu_percent", map[string]float64{
			`job="7",mode="sys",observer="database host"`: 10, `job="7",mode="user",observer="database host"`: 40}},
		{"sledge_host_disk_bytes_per_second", map[string]float64{host: 2.5e6}},
		{"sledge_host_memory_used_bytes", map[string]float64{host: 3e9, `job="7",observer="database host #2"`: 1e9}},
		{"sledge_server_counter_per_second", map[string]float64{
			`job="7",name="Com_commit",observer="database host",source="global_status"`:                          10,
			`job="7",name="wal_bytes",observer="PostgreSQL sessions and statistics",source="pg_stat_wal"`:        1e6,
			`job="7",name="xact_commit",observer="PostgreSQL sessions and statistics",source="pg_stat_database"`: 500,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.metric, func(t *testing.T) {
			f, ok := got[tt.metric]
			if !ok {
				t.Fatalf("no %s in the exposition", tt.metric)
			}
			if f.help == "" || f.typ != dto.MetricType_GAUGE {
				t.Errorf("help %q, type %v: want a help text and a gauge", f.help, f.typ)
			}
			if !maps.Equal(f.series, tt.want) {
				t.Errorf("series\n%v\nwant\n%v", f.series, tt.want)
			}
		})
	}
}

// family is one metric of a scrape: its help, type and series (value by
// labels, name="value" sorted by name and joined by commas).
type family struct {
	help   string
	typ    dto.MetricType
	series map[string]float64
}

// gather scrapes c as /metrics does (a registry checks what a collector
// sends against what it describes, and refuses duplicate series).
func gather(t *testing.T, c prometheus.Collector) map[string]family {
	t.Helper()
	reg := prometheus.NewPedanticRegistry()
	if err := reg.Register(c); err != nil {
		t.Fatal(err)
	}
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]family{}
	for _, mf := range mfs {
		f := family{help: mf.GetHelp(), typ: mf.GetType(), series: map[string]float64{}}
		for _, m := range mf.GetMetric() {
			var labels []string
			for _, l := range m.GetLabel() { // sorted by name by the registry
				labels = append(labels, fmt.Sprintf("%s=%q", l.GetName(), l.GetValue()))
			}
			v := m.GetGauge().GetValue()
			if m.GetCounter() != nil {
				v = m.GetCounter().GetValue()
			}
			f.series[strings.Join(labels, ",")] = v
		}
		out[mf.GetName()] = f
	}
	return out
}

// TestMetricsObservedEndsWithTheJob: once the job has ended, its observers'
// series are gone.
func TestMetricsObservedEndsWithTheJob(t *testing.T) {
	t.Parallel()
	hub := output.NewHub()
	sink := hub.Open(3, "tprocc")
	hub.Observed(3, 0, "client host", observe.Snapshot{Length: time.Second, Counters: []observe.Counter{
		{Source: observe.SourceOSMem, Name: "used", Kind: observe.Gauge, Value: 1}}})
	c := newJobCollector(hub)
	if n := len(gather(t, c)["sledge_host_memory_used_bytes"].series); n != 1 {
		t.Fatalf("running: %d series, want 1", n)
	}
	if err := sink.Close(); err != nil {
		t.Fatal(err)
	}
	if n := len(gather(t, c)["sledge_host_memory_used_bytes"].series); n != 0 {
		t.Fatalf("ended: %d series, want 0", n)
	}
}

// TestMetricsAgentShare: this process's agent of a run driven by several
// exports its share as sledge_agent_* with its segment, never as the job's
// numbers, and the job's event stream is not the agent's.
func TestMetricsAgentShare(t *testing.T) {
	t.Parallel()
	hub := output.NewHub()
	sink := hub.OpenAgent(9, "tprocc", "1/3")
	defer sink.Close()
	sink.Interval(metrics.Interval{Seq: 1, Phase: metrics.PhaseMeasure, Elapsed: 10 * time.Second, Length: 10 * time.Second,
		TPM: 6000, NOPM: 2700, Tx: []metrics.IntervalTx{{Name: "new_order", Count: 450, Errors: 2, P95: time.Millisecond}}})
	got := gather(t, newJobCollector(hub))
	const agent = `job="9",segment="1/3",workload="tprocc"`
	for metric, want := range map[string]map[string]float64{
		"sledge_agent_tpm":                      {agent: 6000},
		"sledge_agent_nopm":                     {agent: 2700},
		"sledge_agent_transactions_total":       {`job="9",segment="1/3",transaction="new_order",workload="tprocc"`: 450},
		"sledge_agent_transaction_errors_total": {`job="9",segment="1/3",transaction="new_order",workload="tprocc"`: 2},
	} {
		if !maps.Equal(got[metric].series, want) {
			t.Errorf("%s = %v, want %v", metric, got[metric].series, want)
		}
	}
	for _, metric := range []string{"sledge_job_tpm", "sledge_job_nopm", "sledge_job_transaction_latency_seconds"} {
		if len(got[metric].series) != 0 {
			t.Errorf("an agent's share exported as the job's %s: %v", metric, got[metric].series)
		}
	}
	if _, _, cancel, ok := hub.Subscribe(9); ok {
		cancel()
		t.Error("the hub streams an agent's share as the job's events")
	}
}
