// Package scripttest fills a jobs repository with jobs of known data, for
// the golden tests of HammerDB's jobs command and web service: every time
// is fixed and every number is chosen, so the answers are byte-stable.
package scripttest

import (
	"context"
	"testing"
	"time"

	"github.com/sledge-bench/sledge/internal/jobs"
	"github.com/sledge-bench/sledge/internal/metrics"
	"github.com/sledge-bench/sledge/internal/metrics/metricstest"
	"github.com/sledge-bench/sledge/internal/observe"
	"github.com/sledge-bench/sledge/internal/script"
)

// Start is when the first job started (UTC); the others start an hour
// apart.
var Start = time.Date(2025, 4, 14, 17, 9, 41, 0, time.UTC)

// Latencies are the TPROC-C run's transaction times in microseconds, which
// its histograms record.
var Latencies = map[string][]int64{
	"new_order":    {1000, 2000, 3000, 4000},
	"payment":      {500, 500, 700, 900},
	"delivery":     {8000, 12000},
	"stock_level":  {1500},
	"order_status": {300, 400},
}

// The TPROC-C run's shape: RunVUs virtual users measured for RunMeasured.
const (
	RunVUs      = 2
	RunMeasured = 60 * time.Second
)

// Fixture is the ids of the jobs Build records.
type Fixture struct {
	// Run is a TPROC-C run from `sledge cli` with dbset db mysql on a
	// MariaDB server, under performance profile 1, with intervals (two
	// ending in the same second), latencies, console lines and system data.
	Run int64
	// Analytic is a TPROC-H run on PostgreSQL with two query streams of one
	// set: a query without rows and one that failed.
	Analytic int64
	// Build is a TPROC-C schema build; Failed a run that failed at once
	// (no output, no result).
	Build, Failed int64
}

// Build records the fixture's jobs in repo, which must be empty.
func Build(t testing.TB, repo *jobs.Repo) Fixture {
	t.Helper()
	ctx := context.Background()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	n := 0
	create := func(j jobs.Job, version string, cfg map[string]string, sys map[string]string) int64 {
		t.Helper()
		j.CreatedAt = Start.Add(time.Duration(n) * time.Hour)
		n++
		id, err := repo.Create(ctx, j, cfg)
		must(err)
		must(repo.SetDBVersion(ctx, id, version))
		if sys != nil {
			must(repo.SetSystem(ctx, id, sys))
		}
		return id
	}
	sys := map[string]string{"host": "vm1", "cpus": "4", "cpu_model": "Test CPU @ 2.0GHz", "os": "linux/amd64",
		"sledge_version": "1.2.3", "go_version": "go1.26.0"}
	var f Fixture

	f.Run = create(jobs.Job{Kind: jobs.KindRun, Workload: "tprocc", DBKind: "mysql", Target: "mysql://root:secret@db1:3306/tpcc"},
		"MariaDB 10.11.6", map[string]string{
			"vu": "2", "warehouses": "2", "rampup": "1m0s", "duration": "1m0s", "mode": "procs",
			script.ConfigPrefix + "tpcc.mysql_count_ware": "2",
			script.ConfigPrefix + "connection.mysql_host": "db1",
			script.ConfigProfileID:                        "1",
		}, sys)
	res := &metrics.RunResult{Status: metrics.StatusCompleted, VUs: RunVUs, Warehouses: 2, Mode: "procs",
		Rampup: time.Minute, Duration: time.Minute, Measured: RunMeasured, NOPM: 1000, TPM: 2300}
	for _, name := range []string{"new_order", "payment", "delivery", "stock_level", "order_status"} {
		res.Tx = append(res.Tx, metrics.TxSummary{Name: name, Count: int64(len(Latencies[name])), Histogram: metricstest.Histogram(t, Latencies[name]...)})
	}
	must(repo.SaveRunResult(ctx, f.Run, res))
	for i, iv := range []struct {
		at    time.Duration
		phase string
		tpm   float64
	}{
		{10 * time.Second, metrics.PhaseRampup, 1800},
		{20 * time.Second, metrics.PhaseRampup, 2300},
		{30 * time.Second, metrics.PhaseMeasure, 2300},
		{40 * time.Second, metrics.PhaseMeasure, 2400},
		{60 * time.Second, metrics.PhaseMeasure, 500},
		{60*time.Second + 500*time.Millisecond, metrics.PhaseMeasure, 0}, // the same second as the last
	} {
		must(repo.AddInterval(ctx, f.Run, metrics.Interval{Seq: i + 1, Phase: iv.phase, Elapsed: iv.at, Length: 10 * time.Second, TPM: iv.tpm}))
	}
	must(repo.AppendOutput(ctx, f.Run, "run job 1: TPROC-C on mysql://root:xxxxx@db1:3306/tpcc (MariaDB 10.11.6)"))
	must(repo.AppendOutput(ctx, f.Run, "measured 60 s"))
	must(repo.Finish(ctx, f.Run, metrics.StatusCompleted, ""))

	f.Analytic = create(jobs.Job{Kind: jobs.KindRun, Workload: "tproch", DBKind: "postgres", Target: "postgres://tpch:secret@db2:5432/tpch"},
		"PostgreSQL 15.18 (Debian 15.18-0+deb12u1)", map[string]string{
			"query_sets": "1", script.ConfigPrefix + "tpch.pg_scale_fact": "1",
		}, sys)
	ares := &metrics.AnalyticResult{Status: metrics.StatusCompleted, SF: 1, Streams: 1, QuerySets: 1, GeomeanS: 1.58114}
	for _, q := range []metrics.AnalyticQuery{
		{Stream: 0, Position: 1, Set: 1, Query: 14, Seconds: 1.25, Rows: 5},
		{Stream: 0, Position: 2, Set: 1, Query: 2, Seconds: 0.5, Rows: 0}, // no rows: not in the geometric mean
		{Stream: 0, Position: 3, Set: 1, Query: 9, Seconds: 2, Rows: 3},
		{Stream: 1, Position: 1, Set: 1, Query: 21, Seconds: 3, Rows: 7},
		{Stream: 1, Position: 2, Set: 1, Query: 3, Seconds: 1, Rows: 2},
		{Stream: 1, Position: 3, Set: 1, Query: 18, Error: "canceling statement due to statement timeout"},
	} {
		ares.Queries = append(ares.Queries, q)
	}
	must(repo.SaveAnalyticResult(ctx, f.Analytic, ares))
	must(repo.AppendOutput(ctx, f.Analytic, "power test: scale factor 1, seed 1"))
	must(repo.Finish(ctx, f.Analytic, metrics.StatusCompleted, ""))

	f.Build = create(jobs.Job{Kind: jobs.KindBuild, Workload: "tprocc", DBKind: "postgres", Target: "postgres://tpcc:secret@db1:5432/tpcc"},
		"PostgreSQL 15.18 (Debian 15.18-0+deb12u1)", map[string]string{"warehouses": "2", "workers": "2"}, nil)
	must(repo.AppendOutput(ctx, f.Build, "built 2 warehouses"))
	must(repo.Finish(ctx, f.Build, metrics.StatusCompleted, ""))

	f.Failed = create(jobs.Job{Kind: jobs.KindRun, Workload: "tprocc", DBKind: "postgres", Target: "postgres://tpcc:secret@db1:5432/tpcc"},
		"", map[string]string{"vu": "4"}, nil)
	must(repo.Finish(ctx, f.Failed, metrics.StatusFailed, "connection refused"))
	return f
}

// Samples are server metric samples of the TPROC-C run (the third in the
// same second as the second, which HammerDB does not keep).
func Samples() []script.MetricSample {
	return []script.MetricSample{
		{At: Start.Add(10 * time.Second), Usr: 20.5, Sys: 3, Irq: 0.1, Idle: 76.4, IOPS: 120, MBps: 4.5},
		{At: Start.Add(20 * time.Second), Usr: 35.25, Sys: 4.75, Irq: 0, Idle: 60, IOPS: 340, MBps: 12},
		{At: Start.Add(20*time.Second + 400*time.Millisecond), Usr: 99, Sys: 1, Idle: 0},
	}
}

// WithMetrics is a repository that also keeps server metrics: Samples for
// job run, none for the others.
type WithMetrics struct {
	*jobs.Repo
	Run int64
}

// Metrics implements script.MetricsRepository.
func (m WithMetrics) Metrics(_ context.Context, id int64) ([]script.MetricSample, error) {
	if id == m.Run {
		return Samples(), nil
	}
	return nil, nil
}

// Observe stores, for job id, what a run's observers saw: a database server
// with no OS figures, and the database's host with Samples' figures at
// their times (id must have started at Start, as Fixture.Run did), so that
// `jobs ID metrics` computed from the observations answers as from
// WithMetrics. The host's third interval lacks its disk figures, which
// leaves it out as HammerDB's same-second sample is left out.
func Observe(t testing.TB, repo *jobs.Repo, id int64) {
	t.Helper()
	ctx := context.Background()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(repo.SaveObserverStart(ctx, id, 0, "MariaDB status and sessions", observe.Start{Server: "MariaDB 10.11.6"}))
	must(repo.SaveObserverStart(ctx, id, 1, "database host", observe.Start{}))
	for i, m := range Samples() {
		seq := i + 1
		elapsed := m.At.Sub(Start)
		must(repo.AppendObserved(ctx, id, 0, seq, observe.Snapshot{Elapsed: elapsed, Length: 10 * time.Second, Samples: 100,
			Waits:    []observe.Wait{{Class: "CPU", AAS: 1}},
			Counters: []observe.Counter{{Source: "global_status", Name: "Com_commit", Kind: observe.Delta, Value: 380}}}))
		g := func(source, name, unit string, v float64) observe.Counter {
			return observe.Counter{Source: source, Name: name, Kind: observe.Gauge, Unit: unit, Value: v}
		}
		host := observe.Snapshot{Elapsed: elapsed, Length: 10 * time.Second, Counters: []observe.Counter{
			g(observe.SourceOSCPU, "user_pct", "%", m.Usr), g(observe.SourceOSCPU, "sys_pct", "%", m.Sys),
			g(observe.SourceOSCPU, "iowait_pct", "%", 0), g(observe.SourceOSCPU, "irq_pct", "%", m.Irq),
			g(observe.SourceOSCPU, "steal_pct", "%", 0), g(observe.SourceOSCPU, "idle_pct", "%", m.Idle),
		}}
		if i < 2 {
			host.Counters = append(host.Counters, g(observe.SourceOSDisk, "iops", "1/s", m.IOPS), g(observe.SourceOSDisk, "mbps", "MB/s", m.MBps))
		} else {
			host.Gap = "os.disk: cannot read /proc/diskstats"
		}
		must(repo.AppendObserved(ctx, id, 1, seq, host))
	}
}
