package app

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sledge-bench/sledge/internal/config"
	"github.com/sledge-bench/sledge/internal/db"
	"github.com/sledge-bench/sledge/internal/metrics"
	"github.com/sledge-bench/sledge/internal/observe"
)

// fakeObserver records how the job service drives it.
type fakeObserver struct {
	name     string
	startErr error

	mu     sync.Mutex
	starts int
	cuts   []time.Duration
	closed int
}

func (f *fakeObserver) Name() string { return f.name }

func (f *fakeObserver) Start(context.Context) (observe.Start, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.starts++
	if f.startErr != nil {
		return observe.Start{}, f.startErr
	}
	return observe.Start{Server: "Fake 1.0", Uptime: time.Hour,
		Settings: []observe.Setting{{Name: "work_mem", Value: "64MB", Source: "configuration file"}},
		Notes:    []string{"only the benchmark's own sessions are seen"}}, nil
}

func (f *fakeObserver) Cut(elapsed time.Duration) observe.Snapshot {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.cuts = append(f.cuts, elapsed)
	return observe.Snapshot{Elapsed: elapsed, Samples: 5,
		Waits:    []observe.Wait{{Class: "CPU", AAS: 1.5}},
		Counters: []observe.Counter{{Source: "fake", Name: "cuts", Kind: observe.Delta, Value: float64(len(f.cuts))}}}
}

func (f *fakeObserver) Close() observe.Cost {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.closed++
	return observe.Cost{Samples: 5 * len(f.cuts), Queries: 7}
}

func (f *fakeObserver) record() (starts int, cuts []time.Duration, closed int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.starts, append([]time.Duration(nil), f.cuts...), f.closed
}

// TestRunObserved: a run's observers start before it, are cut once at the
// end of every interval with the run's elapsed time, and are closed after
// it; what they saw and cost is stored with the job. With metrics off no
// observer is built and nothing is stored; an observer that cannot start
// is left out with a line saying why, and the run completes.
func TestRunObserved(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs on SQLite")
	}
	parallel(t)
	svc, repo := newService(t)
	ctx := context.Background()
	target := tpccSQLite(t, "o.db")

	var (
		mu    sync.Mutex
		fakes []*fakeObserver
		built int
	)
	svc.opts.Observers = func(tg db.Target, sp config.Spec) []observe.Observer {
		mu.Lock()
		defer mu.Unlock()
		built++
		if tg.Kind != db.SQLite || sp.Kind != config.KindRun {
			t.Errorf("observers built for %v, %s", tg, sp.Kind)
		}
		obs := make([]observe.Observer, len(fakes))
		for i, f := range fakes {
			obs[i] = f
		}
		return obs
	}
	run := func(t *testing.T, metricsOn string, obs ...*fakeObserver) (Outcome, string) {
		t.Helper()
		mu.Lock()
		fakes, built = obs, 0
		mu.Unlock()
		sp := config.New(config.KindRun)
		sp.DB, sp.VU, sp.Metrics = target, 1, metricsOn
		sp.Rampup, sp.Duration, sp.Interval = 0, config.Duration(1500*time.Millisecond), config.Duration(500*time.Millisecond)
		var out bytes.Buffer
		o, err := svc.Run(ctx, Request{Spec: sp, Console: &out})
		if err != nil || o.Status != metrics.StatusCompleted {
			t.Fatalf("run: %+v %v\n%s", o, err, out.String())
		}
		return o, out.String()
	}
	near := func(a, b time.Duration) bool { return (a - b).Abs() < time.Millisecond }

	t.Run("on", func(t *testing.T) {
		server, host := &fakeObserver{name: "Fake sessions"}, &fakeObserver{name: "client host"}
		o, out := run(t, "on", server, host)
		ivs, err := repo.Intervals(ctx, o.ID)
		if err != nil || len(ivs) < 3 {
			t.Fatalf("%d intervals, %v", len(ivs), err)
		}
		for _, f := range []*fakeObserver{server, host} {
			starts, cuts, closed := f.record()
			if starts != 1 || closed != 1 || len(cuts) != len(ivs) {
				t.Errorf("%s: %d starts, %d cuts for %d intervals, %d closes", f.name, starts, len(cuts), len(ivs), closed)
				continue
			}
			for i, iv := range ivs {
				if !near(cuts[i], iv.Elapsed) {
					t.Errorf("%s: cut %d at %s, interval %d ended at %s", f.name, i, cuts[i], iv.Seq, iv.Elapsed)
				}
			}
		}
		if !strings.Contains(out, "metrics: Fake sessions: only the benchmark's own sessions are seen") {
			t.Errorf("no note from the start in the output:\n%s", out)
		}
		got, err := repo.Observations(ctx, o.ID)
		if err != nil || len(got) != 2 {
			t.Fatalf("observations %+v %v", got, err)
		}
		for i, ob := range got {
			if want := []string{"Fake sessions", "client host"}[i]; ob.Name != want {
				t.Errorf("observer %d is %q, want %q", i, ob.Name, want)
			}
			if ob.Start.Server != "Fake 1.0" || len(ob.Start.Settings) != 1 || len(ob.Start.Notes) != 1 {
				t.Errorf("%s: start %+v", ob.Name, ob.Start)
			}
			if len(ob.Intervals) != len(ivs) {
				t.Fatalf("%s: %d intervals stored, want %d", ob.Name, len(ob.Intervals), len(ivs))
			}
			for j, s := range ob.Intervals {
				if !near(s.Elapsed, ivs[j].Elapsed) || s.Samples != 5 || len(s.Waits) != 1 ||
					len(s.Counters) != 1 || s.Counters[0].Value != float64(j+1) {
					t.Errorf("%s: interval %d stored as %+v", ob.Name, j, s)
				}
			}
			if ob.Cost.Samples != 5*len(ivs) || ob.Cost.Queries != 7 {
				t.Errorf("%s: cost %+v", ob.Name, ob.Cost)
			}
		}
	})

	t.Run("off", func(t *testing.T) {
		f := &fakeObserver{name: "Fake sessions"}
		o, out := run(t, "off", f)
		mu.Lock()
		n := built
		mu.Unlock()
		if starts, _, _ := f.record(); n != 0 || starts != 0 {
			t.Errorf("metrics off: observers built %d times, started %d", n, starts)
		}
		if got, err := repo.Observations(ctx, o.ID); err != nil || len(got) != 0 {
			t.Errorf("metrics off stored %+v %v", got, err)
		}
		if strings.Contains(out, "metrics:") {
			t.Errorf("metrics off said something about metrics:\n%s", out)
		}
	})

	t.Run("start fails", func(t *testing.T) {
		bad := &fakeObserver{name: "Fake sessions", startErr: errors.New("permission denied for pg_stat_activity")}
		host := &fakeObserver{name: "client host"}
		o, out := run(t, "on", bad, host)
		if !strings.Contains(out, "metrics: Fake sessions: permission denied for pg_stat_activity; the run goes on without it") {
			t.Errorf("no line for the observer that did not start:\n%s", out)
		}
		if _, cuts, closed := bad.record(); len(cuts) != 0 || closed != 0 {
			t.Errorf("an observer that did not start was cut %d times, closed %d", len(cuts), closed)
		}
		got, err := repo.Observations(ctx, o.ID)
		if err != nil || len(got) != 1 || got[0].Name != "client host" || len(got[0].Intervals) == 0 {
			t.Errorf("observations %+v %v", got, err)
		}
	})
}

// TestLocalDatabase: the host observer is the database's host too when the
// database is embedded or reached over a Unix socket or loopback.
func TestLocalDatabase(t *testing.T) {
	parallel(t)
	for _, c := range []struct {
		dsn   string
		local bool
	}{
		{"sqlite:/tmp/x.db", true},
		{"duckdb:/tmp/x.duckdb", true},
		{"postgres://u@127.0.0.1:5432/d", true},
		{"postgres://u@127.3.4.5/d", true},
		{"postgres://u@localhost/d", true},
		{"postgres://u@[::1]:5432/d", true},
		{"postgres://u@db.example.com/d", false},
		{"postgres://u@10.0.0.7:5432/d", false},
		{"postgres://u@x/d?host=/var/run/postgresql", true},
		{"postgres://u@x/d?host=/tmp,10.0.0.7", false},
		{"mysql://root@127.0.0.1:3306/d", true},
		{"mysql://root@/d?socket=/run/mysqld/mysqld.sock", true},
		{"mariadb://root@db.example.com:3306/d", false},
	} {
		tg, err := db.ParseTarget(c.dsn)
		if err != nil {
			t.Fatalf("%s: %v", c.dsn, err)
		}
		if got := localDatabase(tg); got != c.local {
			t.Errorf("localDatabase(%s) = %v, want %v", c.dsn, got, c.local)
		}
	}
}

// TestLocalServer: the host observer finds a local server by the TCP port
// of its connection string (the engine's default when there is none), and
// says why it cannot when the server is reached over a Unix socket.
func TestLocalServer(t *testing.T) {
	parallel(t)
	for _, c := range []struct {
		dsn     string
		port    int
		unknown string
	}{
		{"sqlite:/tmp/x.db", 0, ""},
		{"postgres://u@127.0.0.1:5433/d", 5433, ""},
		{"postgres://u@localhost/d", 5432, ""},
		{"postgres://u@[::1]:6000/d", 6000, ""},
		{"postgres://u@x:7000/d?host=127.0.0.1", 7000, ""},
		{"postgres://u@x/d?host=localhost&port=7001", 7001, ""},
		{"postgres://u@x/d?host=/var/run/postgresql", 0, "Unix socket"},
		{"postgres://u@x/d?host=127.0.0.1,localhost", 0, "several hosts"},
		{"mysql://root@127.0.0.1:3307/d", 3307, ""},
		{"mysql://root@localhost/d", 3306, ""},
		{"mysql://root@/d?socket=/run/mysqld/mysqld.sock", 0, "Unix socket"},
	} {
		tg, err := db.ParseTarget(c.dsn)
		if err != nil {
			t.Fatalf("%s: %v", c.dsn, err)
		}
		got := localServer(tg)
		if got.Port != c.port || (c.unknown == "") != (got.Unknown == "") || !strings.Contains(got.Unknown, c.unknown) {
			t.Errorf("localServer(%s) = %+v, want port %d, unknown %q", c.dsn, got, c.port, c.unknown)
		}
	}
}

// TestRunObservedPostgres: a short TPROC-C run on the private PostgreSQL is
// observed for real: the server's sessions (wait events), its statistics
// and settings, and this host (the client's and, on loopback, the
// database's).
func TestRunObservedPostgres(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs on PostgreSQL")
	}
	parallel(t)
	url := tpccPostgres(t)
	svc, repo := newService(t)
	ctx := context.Background()
	sp := config.New(config.KindRun)
	sp.DB, sp.VU = url, 2
	sp.Rampup, sp.Duration, sp.Interval = 0, config.Duration(6*time.Second), config.Duration(2*time.Second)
	var out bytes.Buffer
	o, err := svc.Run(ctx, Request{Spec: sp, Console: &out})
	if err != nil || o.Status != metrics.StatusCompleted {
		t.Fatalf("run: %+v %v\n%s", o, err, out.String())
	}
	got, err := repo.Observations(ctx, o.ID)
	if err != nil || len(got) != 2 {
		t.Fatalf("observations %+v %v\n%s", got, err, out.String())
	}
	// The run's result, as printed, ends with what the observers saw.
	if !strings.Contains(out.String(), "server (what the observers saw over the measured window):") {
		t.Errorf("the result has no server section:\n%s", out.String())
	}
	pg, host := got[0], got[1]
	if !strings.HasPrefix(pg.Start.Server, "PostgreSQL") || len(pg.Start.Settings) == 0 {
		t.Errorf("PostgreSQL observer %q started as %+v", pg.Name, pg.Start)
	}
	if len(pg.Intervals) < 3 {
		t.Fatalf("%d PostgreSQL intervals\n%s", len(pg.Intervals), out.String())
	}
	var samples int
	var waits, commits bool
	for _, s := range pg.Intervals {
		samples += s.Samples
		waits = waits || len(s.Waits) > 0
		for _, c := range s.Counters {
			if c.Source == "pg_stat_database" && c.Name == "xact_commit" && c.Value > 0 {
				commits = true
			}
		}
	}
	if samples == 0 || !waits || !commits {
		t.Errorf("PostgreSQL observed %d samples, waits %v, commits %v: %+v", samples, waits, commits, pg.Intervals)
	}
	if pg.Cost.Samples == 0 || pg.Cost.Queries == 0 {
		t.Errorf("PostgreSQL observer's cost %+v", pg.Cost)
	}
	if host.Name != "client and database host" || len(host.Intervals) != len(pg.Intervals) {
		t.Errorf("host observer %q with %d intervals, want the client and database host's %d", host.Name, len(host.Intervals), len(pg.Intervals))
	}
	cpu := false
	for _, s := range host.Intervals {
		for _, c := range s.Counters {
			cpu = cpu || c.Source == observe.SourceOSCPU
		}
	}
	if !cpu {
		t.Errorf("no %s counters from the host: %+v", observe.SourceOSCPU, host.Intervals)
	}
}

// TestAnalyticRunObserved: an analytic run has no monitor intervals, so its
// observers are cut once, at its end, with the time it ran.
func TestAnalyticRunObserved(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs on DuckDB")
	}
	parallel(t)
	svc, repo := newService(t)
	ctx := context.Background()
	build := config.New(config.KindBuild)
	build.Workload, build.Scale = "tproch", 0.01
	if _, err := svc.Run(ctx, Request{Spec: build}); err != nil {
		if strings.Contains(err.Error(), "cgo") {
			t.Skip("DuckDB needs cgo:", err)
		}
		t.Fatal(err)
	}
	f := &fakeObserver{name: "client and database host"}
	svc.opts.Observers = func(db.Target, config.Spec) []observe.Observer { return []observe.Observer{f} }
	run := config.New(config.KindRun)
	run.Workload = "tproch"
	began := time.Now()
	o, err := svc.Run(ctx, Request{Spec: run})
	took := time.Since(began)
	if err != nil || o.Analytic == nil || !o.OK() {
		t.Fatalf("run: %+v %v", o, err)
	}
	starts, cuts, closed := f.record()
	if starts != 1 || closed != 1 || len(cuts) != 1 || cuts[0] <= 0 || cuts[0] > took {
		t.Errorf("%d starts, cuts %v (the run took %s), %d closes", starts, cuts, took, closed)
	}
	if got, err := repo.Observations(ctx, o.ID); err != nil || len(got) != 1 || len(got[0].Intervals) != 1 {
		t.Errorf("observations %+v %v", got, err)
	}
}
