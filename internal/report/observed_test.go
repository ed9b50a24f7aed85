package report

import (
	"context"
	"math"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/sledge-bench/sledge/internal/jobs"
	"github.com/sledge-bench/sledge/internal/metrics"
	"github.com/sledge-bench/sledge/internal/observe"
)

// observedRun is a run of one ramp-up interval and two measured ones.
func observedRun() []metrics.Interval {
	return []metrics.Interval{
		{Seq: 1, Phase: metrics.PhaseRampup, Elapsed: 10 * time.Second, Length: 10 * time.Second},
		{Seq: 2, Phase: metrics.PhaseMeasure, Elapsed: 20 * time.Second, Length: 10 * time.Second},
		{Seq: 3, Phase: metrics.PhaseMeasure, Elapsed: 30 * time.Second, Length: 10 * time.Second},
	}
}

func delta(source, name string, v float64) observe.Counter {
	return observe.Counter{Source: source, Name: name, Kind: observe.Delta, Value: v}
}

func gauge(source, name string, v float64) observe.Counter {
	return observe.Counter{Source: source, Name: name, Kind: observe.Gauge, Value: v}
}

// observedPG is a PostgreSQL observer whose ramp-up interval is all Lock
// waits (which the window must not count) and whose second measured
// interval lost half its samples.
func observedPG() jobs.Observation {
	return jobs.Observation{
		Name:  "PostgreSQL sessions and statistics",
		Start: observe.Start{Server: "PostgreSQL 15.8", Settings: []observe.Setting{{Name: "shared_buffers", Value: "128MB", Source: "configuration file"}}, Notes: []string{"no pg_monitor role"}},
		Intervals: []observe.Snapshot{
			{Elapsed: sec(10), Length: sec(10), Samples: 100, Waits: []observe.Wait{{Class: "Lock", Event: "tuple", AAS: 9}},
				Counters: []observe.Counter{delta("pg_stat_database", "xact_commit", 1e6), delta("pg_stat_bgwriter", "checkpoints_req", 5)}},
			{Elapsed: sec(20), Length: sec(10), Samples: 100,
				Waits: []observe.Wait{{Class: "CPU", AAS: 1.6}, {Class: "Lock", Event: "relation", AAS: 0.8}, {Class: "LWLock", Event: "WALWrite", AAS: 0.2}},
				Counters: []observe.Counter{delta("pg_stat_database", "xact_commit", 23000), delta("pg_stat_database", "blks_hit", 990),
					delta("pg_stat_database", "blks_read", 10), delta("pg_stat_bgwriter", "checkpoints_req", 1), delta("pg_stat_bgwriter", "checkpoints_timed", 0)}},
			{Elapsed: sec(30), Length: sec(10), Samples: 50, Gap: "connection refused",
				Waits:    []observe.Wait{{Class: "CPU", AAS: 1.6}, {Class: "Lock", Event: "relation", AAS: 0.9}},
				Counters: []observe.Counter{delta("pg_stat_database", "xact_commit", 11600), delta("sledge observe", "xact_commit", 100)}},
		},
		Cost: observe.Cost{Samples: 250, Queries: 260, QueryTime: 800 * time.Millisecond, Reconnects: 1, ServerShare: 0.008},
	}
}

func observedHost() jobs.Observation {
	return jobs.Observation{
		Name: "client and database host",
		Intervals: []observe.Snapshot{
			{Elapsed: sec(10), Length: sec(10), Counters: []observe.Counter{gauge("os.cpu", "user_pct", 99)}},
			{Elapsed: sec(20), Length: sec(10), Counters: []observe.Counter{gauge("os.cpu", "user_pct", 40), gauge("os.cpu", "sys_pct", 5),
				gauge("os.cpu", "iowait_pct", 1), gauge("os.cpu", "steal_pct", 0), gauge("os.disk", "mbps", 10)}},
			{Elapsed: sec(30), Length: sec(10), Counters: []observe.Counter{gauge("os.cpu", "user_pct", 60), gauge("os.cpu", "sys_pct", 7),
				gauge("os.cpu", "iowait_pct", 3), gauge("os.cpu", "steal_pct", 0), gauge("os.disk", "mbps", math.NaN())}},
		},
	}
}

func observedMySQL() jobs.Observation {
	return jobs.Observation{
		Name: "MariaDB status", Start: observe.Start{Server: "MariaDB 11.4"},
		Intervals: []observe.Snapshot{{Elapsed: sec(20), Length: sec(10), Counters: []observe.Counter{
			delta("global_status", "Com_commit", 5000), delta("global_status", "Innodb_buffer_pool_read_requests", 1000),
			delta("global_status", "Innodb_buffer_pool_reads", 10)}}},
	}
}

func near(a, b float64) bool {
	if math.IsNaN(a) || math.IsNaN(b) {
		return math.IsNaN(a) && math.IsNaN(b)
	}
	return math.Abs(a-b) < 1e-9*math.Max(1, math.Abs(b))
}

func TestSummarize(t *testing.T) {
	t.Parallel()
	nan := math.NaN()
	sum := Summarize([]jobs.Observation{observedPG(), observedHost(), observedMySQL()}, observedRun())
	if sum == nil || len(sum.Observers) != 3 {
		t.Fatalf("summary: %+v", sum)
	}
	pg, host, my := sum.Observers[0], sum.Observers[1], sum.Observers[2]
	// Waits weighted by samples: 150 samples in the window.
	total := 1.6 + (0.8*100+0.9*50)/150 + 0.2*100/150
	cases := []struct {
		name      string
		got, want float64
	}{
		{"pg intervals", float64(pg.Intervals), 2},
		{"pg window", pg.Window.Seconds(), 20},
		{"pg samples", float64(pg.Samples), 150},
		{"pg AAS", pg.AAS, total},
		{"pg CPU AAS", pg.CPU.AAS, 1.6},
		{"pg CPU share", pg.CPU.Share, 1.6 / total},
		{"pg top wait AAS", pg.Waits[0].AAS, 125.0 / 150},
		{"pg top wait share", pg.Waits[0].Share, 125.0 / 150 / total},
		{"pg waits", float64(len(pg.Waits)), 2},
		{"pg commits/s", pg.CommitsPerS, 34500.0 / 20},
		{"pg hit %", pg.HitPct, 99},
		{"pg checkpoints (ramp-up's not counted)", pg.Checkpoints, 1},
		{"pg host CPU", pg.CPUUser, nan},
		{"pg gap missed s", pg.Gaps[0].Missed.Seconds(), 5},
		{"host user %", host.CPUUser, 50},
		{"host sys %", host.CPUSys, 6},
		{"host iowait %", host.CPUIOWait, 2},
		{"host steal %", host.CPUSteal, 0},
		{"host MB/s (the unmeasured interval left out)", host.DiskMBps, 10},
		{"host AAS", host.AAS, nan},
		{"host commits", host.CommitsPerS, nan},
		{"mysql Com_commit/s", my.CommitsPerS, 500},
		{"mysql hit %", my.HitPct, 99},
		{"mysql checkpoints", my.Checkpoints, nan},
	}
	for _, c := range cases {
		if !near(c.got, c.want) {
			t.Errorf("%s = %g, want %g", c.name, c.got, c.want)
		}
	}
	if got := pg.Waits[0].Label() + " " + pg.Waits[1].Label(); got != "Lock:relation LWLock:WALWrite" {
		t.Errorf("waits = %s, want Lock:relation then LWLock:WALWrite (the ramp-up's Lock:tuple left out)", got)
	}
	if g := pg.Gaps[0]; g.From != sec(20) || g.To != sec(30) || g.Reason != "connection refused" {
		t.Errorf("gap = %+v", g)
	}
	if my.CommitsName != "Com_commit" || pg.CommitsName != "xact_commit" {
		t.Errorf("commit counters: %q, %q", pg.CommitsName, my.CommitsName)
	}
	if Summarize(nil, observedRun()) != nil {
		t.Error("a job without observations has a summary")
	}
	// Without an interval series every snapshot counts.
	if s := Summarize([]jobs.Observation{observedPG()}, nil); s.Observers[0].Intervals != 3 {
		t.Errorf("without intervals: %d intervals counted, want 3", s.Observers[0].Intervals)
	}
}

// Consecutive intervals with the same reason are one gap; an observer
// that does not sample missed the whole interval.
func TestGaps(t *testing.T) {
	t.Parallel()
	got := gaps([]observe.Snapshot{
		{Elapsed: sec(10), Length: sec(10), Gap: "down"},
		{Elapsed: sec(20), Length: sec(10), Gap: "down"},
		{Elapsed: sec(30), Length: sec(10)},
		{Elapsed: sec(40), Length: sec(10), Gap: "query failed"},
	})
	want := []Gap{{From: 0, To: sec(20), Missed: sec(20), Reason: "down"}, {From: sec(30), To: sec(40), Missed: sec(10), Reason: "query failed"}}
	if len(got) != len(want) {
		t.Fatalf("gaps = %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("gap %d = %+v, want %+v", i, got[i], want[i])
		}
	}
}

func TestObservedBlock(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	if err := ObservedBlock(&b, Summarize([]jobs.Observation{observedPG(), observedHost(), observedMySQL()}, observedRun())); err != nil {
		t.Fatal(err)
	}
	checkText(t, b.String(), []string{
		"\n server (what the observers saw over the measured window):\n",
		" PostgreSQL 15.8: PostgreSQL sessions and statistics, 2 intervals over 20.0 s\n",
		" active sessions 2.57 AAS (150 samples)\n",
		" CPU 1.60 AAS (62%)\n",
		" waits Lock:relation 0.83 AAS (32%), LWLock:WALWrite 0.13 AAS (5%)\n",
		" statistics xact_commit 1,725/s, buffer hits 99.00%, 1 checkpoint begun\n",
		" gap not observed for 5.0 s (20–30 s): connection refused\n",
		" observer 250 samples, 260 queries taking 0.80 s, 0.8% of one server CPU, 1 reconnect\n",
		" note no pg_monitor role\n",
		" client and database host, 2 intervals over 20.0 s\n",
		" host CPU user 50.0%, sys 6.0%, iowait 2.0%, steal 0.0%\n",
		" disk 10.0 MB/s\n",
		" statistics Com_commit 500/s, buffer hits 99.00%\n",
	}, []string{"Lock:tuple", "NaN", "TPC-"})

	b.Reset()
	if err := ObservedBlock(&b, nil); err != nil || b.Len() != 0 {
		t.Errorf("no observations wrote %q, %v", b.String(), err)
	}
}

func TestResultJSONObserved(t *testing.T) {
	t.Parallel()
	r := ToResult(7, runResult())
	m := object(t, r)
	if m["observed"] != nil || m["observed_unavailable"] != NotObserved {
		t.Errorf("not observed: observed %v, reason %v", m["observed"], m["observed_unavailable"])
	}
	r.WithObserved([]jobs.Observation{observedPG(), observedHost()}, observedRun())
	m = object(t, r)
	if m["observed_unavailable"] != nil {
		t.Errorf("observed, yet a reason: %v", m["observed_unavailable"])
	}
	obs := m["observed"].(map[string]any)["observers"].([]any)
	pg, host := obs[0].(map[string]any), obs[1].(map[string]any)
	hasKeys(t, pg, "name", "server", "window_s", "intervals", "samples", "aas", "cpu_aas", "cpu_share", "waits",
		"commits_per_s", "commits_counter", "buffer_hit_pct", "checkpoints", "host_cpu_user_pct", "host_cpu_sys_pct",
		"host_cpu_iowait_pct", "host_cpu_steal_pct", "host_disk_mbps", "gaps", "cost", "notes")
	w := pg["waits"].([]any)[0].(map[string]any)
	if w["class"] != "Lock" || w["event"] != "relation" || !near(w["share"].(float64), 125.0/150/(1.6+125.0/150+20.0/150)) {
		t.Errorf("top wait = %v", w)
	}
	if pg["host_cpu_user_pct"] != nil || host["commits_per_s"] != nil || host["aas"] != nil {
		t.Errorf("unmeasured figures are not null: %v %v %v", pg["host_cpu_user_pct"], host["commits_per_s"], host["aas"])
	}
	if host["host_cpu_user_pct"] != 50.0 || host["cost"].(map[string]any)["server_cpu_share"] != nil {
		t.Errorf("host: %v", host)
	}
}

func TestShowObserved(t *testing.T) {
	t.Parallel()
	store := runStore()
	store.ivs = observedRun()
	store.obs = []jobs.Observation{observedPG(), observedHost()}
	cases := []struct {
		section string
		asJSON  bool
		want    []string
	}{
		{"", false, []string{"FAKE-C result (job 7)", " waits Lock:relation 0.83 AAS (32%)"}},
		{"", true, []string{`"observed": {`, `"class": "Lock"`, `"observed_unavailable": null`}},
		{"result", false, []string{" CPU 1.60 AAS (62%)\n"}},
		{"result", true, []string{`"observers": [`}},
		{"metrics", false, []string{
			"PostgreSQL 15.8: PostgreSQL sessions and statistics (3 intervals; 250 samples, 260 queries taking 0.80 s, 0.8% of one server CPU, 1 reconnect)\n",
			" note: no pg_monitor role\n",
			" elapsed samples AAS by class counters\n",
			" 10s 100 Lock 9.00 commits 1,000,000 checkpoints_req 5\n",
			" 20s 100 CPU 1.60 Lock 0.80 LWLock 0.20 commits 23,000 blks_read 10 checkpoints_req 1 checkpoints_timed 0\n",
			" 30s 50 CPU 1.60 Lock 0.90 commits 11,600; gap: connection refused\n",
			" 20s 0 - usr% 40 sys% 5 iowait% 1 steal% 0 disk MB/s 10\n",
			" 30s 0 - usr% 60 sys% 7 iowait% 3 steal% 0 disk MB/s n/a\n"}},
		{"metrics", true, []string{`"name": "PostgreSQL sessions and statistics"`, `"elapsed_s": 20,`, `"source": "pg_stat_database"`, `"value": null`}},
		{"settings", false, []string{"observer setting value source\n", "PostgreSQL sessions and statistics shared_buffers 128MB configuration file\n"}},
		{"settings", true, []string{`"name": "shared_buffers"`, `"source": "configuration file"`}},
	}
	for _, c := range cases {
		t.Run(c.section+map[bool]string{true: " json"}[c.asJSON], func(t *testing.T) {
			var b strings.Builder
			if err := Show(context.Background(), &b, store, oltpJob(), c.section, c.asJSON); err != nil {
				t.Fatal(err)
			}
			checkText(t, b.String(), c.want, nil)
		})
	}

	// A job without observations: no server section, "no metrics" for
	// the section, [] for programs.
	var b strings.Builder
	if err := Show(context.Background(), &b, runStore(), oltpJob(), "result", false); err != nil || strings.Contains(b.String(), "server (") {
		t.Errorf("result without observations: %v\n%s", err, b.String())
	}
	if err := Show(context.Background(), &b, runStore(), oltpJob(), "metrics", false); err == nil ||
		!strings.HasPrefix(err.Error(), "job 7 (run) has no server metrics (not observed") {
		t.Errorf("metrics of a job not observed: %v", err)
	}
	for _, section := range []string{"metrics", "settings"} {
		b.Reset()
		if err := Show(context.Background(), &b, runStore(), oltpJob(), section, true); err != nil || b.String() != "[]\n" {
			t.Errorf("%s as JSON without observations: %q, %v", section, b.String(), err)
		}
	}
}

// TestSummarizeKinds: the active sessions by kind of session, PostgreSQL's
// (application_name) and MySQL's (a statement's leading comment) alike,
// averaged over the window's samples — an interval without a kind counts
// as none of it, the ramp-up's and an interval without samples not at all
// — in the block and in JSON; an observer that counted none has none.
func TestSummarizeKinds(t *testing.T) {
	t.Parallel()
	kind := func(source, class string, v float64) observe.Counter {
		return observe.Counter{Source: source, Name: "aas " + class, Kind: observe.Gauge, Unit: "sessions", Value: v}
	}
	for _, tc := range []struct{ engine, prefix string }{
		{"postgres", "pg_stat_activity application "}, {"mysql", "processlist application "},
	} {
		t.Run(tc.engine, func(t *testing.T) {
			t.Parallel()
			a, v := tc.prefix+"sledge chbench analytic", tc.prefix+"(unnamed)"
			o := jobs.Observation{Name: "sessions", Intervals: []observe.Snapshot{
				{Elapsed: sec(10), Length: sec(10), Samples: 100, Counters: []observe.Counter{kind(a, "IO", 9)}}, // ramp-up
				{Elapsed: sec(20), Length: sec(10), Samples: 100, Counters: []observe.Counter{kind(v, "CPU", 2), kind(v, "Lock", 1)}},
				{Elapsed: sec(30), Length: sec(10), Samples: 50, Counters: []observe.Counter{
					kind(v, "CPU", 2), kind(a, "CPU", 0.5), kind(a, "IO", 1.5)}},
				{Elapsed: sec(40), Length: sec(10), Gap: "down", Counters: []observe.Counter{kind(a, "IO", 7)}}, // no samples
			}}
			sum := Summarize([]jobs.Observation{o}, observedRun())
			ks := sum.Observers[0].Kinds
			if len(ks) != 2 {
				t.Fatalf("kinds %+v", ks)
			}
			vus, an := ks[0], ks[1]
			// Lock in the first interval only: 100 of 150 samples.
			if vus.Kind != "(unnamed)" || !near(vus.AAS, 8.0/3) || vus.Classes[0].Class != "CPU" || !near(vus.Classes[0].AAS, 2) ||
				!near(vus.Classes[1].AAS, 2.0/3) || !near(vus.Classes[1].Share, 0.25) {
				t.Errorf("the VUs' sessions %+v, want 8/3 AAS: CPU 2, Lock 2/3 (a quarter)", vus)
			}
			if an.Kind != "sledge chbench analytic" || !near(an.AAS, 2.0*50/150) || an.Classes[0].Class != "IO" || !near(an.Classes[0].AAS, 1.5*50/150) {
				t.Errorf("the streams' sessions %+v, want %g AAS, IO first", an, 2.0*50/150)
			}
			var b strings.Builder
			if err := ObservedBlock(&b, sum); err != nil {
				t.Fatal(err)
			}
			for _, want := range []string{
				`(?m)^      sessions \(unnamed\) +2\.67 AAS \(CPU 2\.00, Lock 0\.67\)$`,
				`(?m)^      sessions sledge chbench analytic +0\.67 AAS \(IO 0\.50, CPU 0\.17\)$`,
			} {
				if !regexp.MustCompile(want).MatchString(b.String()) {
					t.Errorf("the block lacks %s:\n%s", want, b.String())
				}
			}
			j := ToObserved(sum).Observers[0]
			if len(j.Sessions) != 2 || j.Sessions[1].Kind != "sledge chbench analytic" || len(j.Sessions[1].Waits) != 2 ||
				j.Sessions[1].Waits[0].Class != "IO" || j.Sessions[1].Waits[0].Share == nil {
				t.Errorf("JSON sessions %+v", j.Sessions)
			}
			// Only the VUs' sessions (a run without streams): no split,
			// which would repeat the active sessions and their waits.
			one := jobs.Observation{Name: "sessions", Intervals: o.Intervals[1:2]}
			b.Reset()
			if sum := Summarize([]jobs.Observation{one}, observedRun()); sum.Observers[0].Kinds != nil {
				t.Errorf("one kind of session split out: %+v", sum.Observers[0].Kinds)
			} else if err := ObservedBlock(&b, sum); err != nil || strings.Contains(b.String(), "sessions (unnamed)") {
				t.Errorf("one kind of session has a line (%v):\n%s", err, b.String())
			}
		})
	}
	if j := ToObserved(Summarize([]jobs.Observation{observedHost()}, observedRun())).Observers[0]; j.Sessions == nil || len(j.Sessions) != 0 {
		t.Errorf("an observer without kinds has sessions %v, want []", j.Sessions)
	}
}
