package app

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"net"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/sledge-bench/sledge/internal/config"
	"github.com/sledge-bench/sledge/internal/db"
	"github.com/sledge-bench/sledge/internal/jobs"
	"github.com/sledge-bench/sledge/internal/metrics"
	"github.com/sledge-bench/sledge/internal/observe"
	"github.com/sledge-bench/sledge/internal/output"
	"github.com/sledge-bench/sledge/internal/report"
)

// RunObservers are the observers of a run on target, the default of
// Options.Observers: the database server's by its kind (an embedded engine
// runs inside this process, which the host observer covers), the database
// host's node_exporter when the spec names one (Scrape), and always this
// host's, named for what it is to the run.
func RunObservers(target db.Target, spec config.Spec) []observe.Observer {
	opts := observe.Options{Rate: spec.MetricsRate}
	var obs []observe.Observer
	switch target.Kind {
	case db.Postgres:
		obs = append(obs, observe.NewPostgres(target, opts))
	case db.MySQL:
		obs = append(obs, observe.NewMySQL(target, opts))
	}
	name := "client host"
	host := observe.HostOptions{ProcRoot: "/proc", SysRoot: "/sys"}
	switch {
	case spec.Scrape != "":
		// The exporter is the database host, whatever the target's
		// address says (a tunnel, a proxy on loopback): this host is the
		// client only, and one observer only is the "database host".
		obs = append(obs, observe.NewScrape("database host", spec.Scrape))
	case localDatabase(target):
		name = "client and database host"
		host.Server = localServer(target)
	}
	return append(obs, observe.NewHost(name, host))
}

// localServer says how the host observer finds the processes of target's
// server, which runs on this machine (localDatabase): by the loopback TCP
// port it listens on. An embedded engine runs inside this process (the
// zero value: nothing else to find); a server reached over a Unix socket
// cannot be found by its socket's path in /proc without walking every
// process's files, and is left unknown.
func localServer(target db.Target) observe.LocalServer {
	if target.Kind != db.Postgres && target.Kind != db.MySQL {
		return observe.LocalServer{}
	}
	u, err := url.Parse(target.DSN)
	if err != nil {
		return observe.LocalServer{Unknown: "the connection string is not a URL"}
	}
	q := u.Query()
	host, port := u.Hostname(), u.Port()
	switch {
	case target.Kind == db.MySQL && q.Get("socket") != "":
		return observe.LocalServer{Unknown: "the server is reached over a Unix socket"}
	case target.Kind == db.Postgres && q.Get("host") != "":
		hosts := strings.Split(q.Get("host"), ",")
		if len(hosts) > 1 {
			return observe.LocalServer{Unknown: "the connection string names several hosts"}
		}
		host = hosts[0]
		port = cmp.Or(q.Get("port"), port)
	}
	if strings.HasPrefix(host, "/") {
		return observe.LocalServer{Unknown: "the server is reached over a Unix socket"}
	}
	if port == "" {
		port = map[db.Kind]string{db.Postgres: "5432", db.MySQL: "3306"}[target.Kind]
	}
	n, err := strconv.Atoi(port)
	if err != nil || n <= 0 || n > 65535 {
		return observe.LocalServer{Unknown: fmt.Sprintf("the connection string's port %q is not a TCP port", port)}
	}
	return observe.LocalServer{Port: n}
}

// localDatabase reports whether target's database runs on this machine: an
// embedded engine, a server reached over a Unix socket or on a loopback
// address. Then the host observer sees the database's load too.
func localDatabase(target db.Target) bool {
	if target.Kind != db.Postgres && target.Kind != db.MySQL {
		return true
	}
	u, err := url.Parse(target.DSN)
	if err != nil {
		return false
	}
	q := u.Query()
	hosts := []string{u.Hostname()}
	switch {
	case target.Kind == db.MySQL && q.Get("socket") != "":
		return true
	case target.Kind == db.Postgres && q.Get("host") != "":
		// A host parameter overrides the URL's (as pgx reads it) and may
		// list several hosts: local only when all of them are.
		hosts = strings.Split(q.Get("host"), ",")
	}
	for _, h := range hosts {
		if !localHost(h) {
			return false
		}
	}
	return true
}

// localHost reports whether a host of a connection string is this machine:
// a Unix socket's directory, localhost or a loopback address.
func localHost(h string) bool {
	h = strings.Trim(h, "[]")
	if strings.HasPrefix(h, "/") || strings.EqualFold(h, "localhost") {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}

// observation is a run's observers at work: started before the run's clock,
// cut at every interval of the run by a goroutine of its own, closed when
// the run has ended. It is an output.Sink, so that the run's monitor
// intervals reach it through the job's Fanout; the Fanout calls it under
// its lock, so Interval only queues the tick: Cut may query a server on
// the network, and storing may too.
type observation struct {
	repo *jobs.Repo
	id   int64
	obs  []observe.Observer // in the order of their idx in the repository
	// logf is a line of the job's output: a note, or an error storing
	// what was observed (never a reason to fail the run).
	logf func(format string, args ...any)
	// hub, when set (sledge serve), gets each observer's latest snapshot
	// for /metrics while the job runs.
	hub *output.Hub

	mu      sync.Mutex
	pending []tick
	stopped bool
	wake    chan struct{} // a tick is pending, or stop was asked (capacity 1)
	done    chan struct{} // the goroutine has ended and the observers are closed
}

// tick is one interval to cut.
type tick struct {
	seq     int
	elapsed time.Duration
}

// startObservers starts the observers built for a run, before the run's
// clock starts, and records what each found. An observer that cannot
// start is dropped with a line saying why: the run goes on without it.
// It returns nil when none started. ctx bounds the observers' sampling (a
// stopped job stops them).
func (e *execution) startObservers(ctx context.Context) *observation {
	sp := e.p.spec
	if sp.Metrics != "on" {
		return nil
	}
	build := e.s.opts.Observers
	if build == nil {
		build = RunObservers
	}
	o := &observation{repo: e.repo(), id: e.id, logf: e.out.Logf, hub: e.s.opts.Hub,
		wake: make(chan struct{}, 1), done: make(chan struct{})}
	store := context.WithoutCancel(ctx)
	for _, ob := range build(e.p.target, sp.Spec) {
		st, err := ob.Start(ctx)
		if err != nil {
			e.out.Logf("metrics: %s: %v; the run goes on without it", ob.Name(), err)
			continue
		}
		name := ob.Name() // an observer may name its server once it knows it
		for _, n := range st.Notes {
			e.out.Logf("metrics: %s: %s", name, n)
		}
		if err := o.repo.SaveObserverStart(store, o.id, len(o.obs), name, st); err != nil {
			e.out.Logf("metrics: %s: cannot store what it found at the start: %v", name, err)
		}
		o.obs = append(o.obs, ob)
	}
	if len(o.obs) == 0 {
		return nil
	}
	go o.loop(store)
	return o
}

// Line ignores the job's console lines.
func (o *observation) Line(string) {}

// Interval queues the end of a run's interval for the observers to cut:
// never blocking the Fanout, whatever the observers or the repository do.
func (o *observation) Interval(iv metrics.Interval) { o.cut(iv.Seq, iv.Elapsed) }

func (o *observation) cut(seq int, elapsed time.Duration) {
	o.mu.Lock()
	if !o.stopped {
		o.pending = append(o.pending, tick{seq, elapsed})
	}
	o.mu.Unlock()
	o.signal()
}

func (o *observation) signal() {
	select {
	case o.wake <- struct{}{}:
	default: // already signalled: the goroutine takes every pending tick
	}
}

// Close asks the observers to stop without waiting for them: the Fanout
// calls it under its lock, which the goroutine's lines need. The job
// service stops them itself (stop) when the run ends, before its result
// is printed; this is the backstop.
func (o *observation) Close() error {
	o.mu.Lock()
	o.stopped = true
	o.mu.Unlock()
	o.signal()
	return nil
}

// stop cuts what is still queued, closes the observers, records their cost
// and waits for all of it. It must not be called under the Fanout's lock.
func (o *observation) stop() {
	if o == nil {
		return
	}
	_ = o.Close()
	<-o.done
}

// loop cuts every queued interval on every observer, in order, and stores
// what they saw; once stopped and drained it closes them.
func (o *observation) loop(ctx context.Context) {
	defer close(o.done)
	for range o.wake {
		o.mu.Lock()
		ticks, stopped := o.pending, o.stopped
		o.pending = nil
		o.mu.Unlock()
		for _, t := range ticks {
			// Cut them all first, then store: the observers' intervals end
			// together, however long the repository takes.
			snaps := make([]observe.Snapshot, len(o.obs))
			for i, ob := range o.obs {
				snaps[i] = ob.Cut(t.elapsed)
			}
			for i, s := range snaps {
				if err := o.repo.AppendObserved(ctx, o.id, i, t.seq, s); err != nil {
					o.logf("metrics: %s: cannot store interval %d: %v", o.obs[i].Name(), t.seq, err)
				}
				if o.hub != nil {
					o.hub.Observed(o.id, i, o.obs[i].Name(), s)
				}
			}
		}
		if stopped {
			break
		}
	}
	for i, ob := range o.obs {
		if err := o.repo.SaveObserverCost(ctx, o.id, i, ob.Close()); err != nil {
			o.logf("metrics: %s: cannot store its cost: %v", ob.Name(), err)
		}
	}
}

// observeRun runs fn, a run without monitor intervals (an analytic run),
// with the observers started before it and cut once when it has ended. It
// returns the stopped observation (nil when nothing was observed).
func (e *execution) observeRun(ctx context.Context, fn func()) *observation {
	o := e.startObservers(ctx)
	start := time.Now()
	fn()
	if o != nil {
		o.cut(1, time.Since(start))
		o.stop()
	}
	return o
}

// observedBlock writes the server section of a run's result to w from what
// its observers stored, once they have stopped: nothing for a run not
// observed.
func (e *execution) observedBlock(ctx context.Context, w io.Writer, o *observation) {
	if o == nil && e.grp == nil {
		return // an agent merging a group run shows what the first segment's observed
	}
	ctx = context.WithoutCancel(ctx)
	ivs, err := e.repo().Intervals(ctx, e.id)
	if err == nil {
		var got []jobs.Observation
		if got, err = e.repo().Observations(ctx, e.id); err == nil {
			_ = report.ObservedBlock(w, report.Summarize(got, ivs))
			return
		}
	}
	fmt.Fprintf(w, "metrics: cannot read what was observed: %v\n", err)
}
