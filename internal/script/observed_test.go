package script_test

import (
	"math"
	"reflect"
	"testing"
	"time"

	"github.com/sledge-bench/sledge/internal/jobs"
	"github.com/sledge-bench/sledge/internal/observe"
	"github.com/sledge-bench/sledge/internal/script"
)

// hostObservation is a host observer's one interval, ending 10 s into the
// run, with CPU shares cpu (user, sys, irq, idle) and disk figures.
func hostObservation(name string, cpu [4]float64, iops, mbps float64) jobs.Observation {
	g := func(source, n string, v float64) observe.Counter {
		return observe.Counter{Source: source, Name: n, Kind: observe.Gauge, Value: v}
	}
	return jobs.Observation{Name: name, Intervals: []observe.Snapshot{{Elapsed: 10 * time.Second, Length: 10 * time.Second,
		Counters: []observe.Counter{g("os.cpu", "user_pct", cpu[0]), g("os.cpu", "sys_pct", cpu[1]), g("os.cpu", "irq_pct", cpu[2]),
			g("os.cpu", "idle_pct", cpu[3]), g("os.disk", "iops", iops), g("os.disk", "mbps", mbps)}}}}
}

func TestObservedSamples(t *testing.T) {
	t.Parallel()
	start := time.Date(2025, 4, 14, 17, 9, 41, 0, time.UTC)
	server := jobs.Observation{Name: "PostgreSQL sessions and statistics", Intervals: []observe.Snapshot{{Elapsed: 10 * time.Second,
		Counters: []observe.Counter{{Source: "pg_stat_database", Name: "xact_commit", Kind: observe.Delta, Value: 5}}}}}
	client := hostObservation("client host", [4]float64{10, 2, 0.5, 87.5}, 5, 0.5)
	dbHost := hostObservation("database host", [4]float64{60, 9, 1, 30}, 800, 40)
	at := start.Add(10 * time.Second)
	cases := []struct {
		name string
		obs  []jobs.Observation
		want []script.MetricSample
	}{
		{"none", nil, nil},
		{"a server only", []jobs.Observation{server}, nil},
		// A remote database: the client's host is not what HammerDB's
		// metrics describe.
		{"the client host alone", []jobs.Observation{server, client}, nil},
		{"the database host preferred", []jobs.Observation{client, server, dbHost},
			[]script.MetricSample{{At: at, Usr: 60, Sys: 9, Irq: 1, Idle: 30, IOPS: 800, MBps: 40}}},
		{"an unmeasured figure leaves the interval out", []jobs.Observation{hostObservation("client and database host", [4]float64{1, 1, 0, 98}, 1, math.NaN())}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := script.ObservedSamples(c.obs, start); !reflect.DeepEqual(got, c.want) {
				t.Errorf("samples = %+v, want %+v", got, c.want)
			}
		})
	}
}
