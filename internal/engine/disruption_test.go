package engine

import (
	"context"
	"errors"
	"math"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sledge-bench/sledge/internal/db"
	"github.com/sledge-bench/sledge/internal/metrics"
	"github.com/sledge-bench/sledge/internal/workload"
)

// flakyWorkload is a database that can be taken down and brought back: while
// down, sessions fail with connection errors, reconnects are refused and the
// monitor's probes cannot read (they retry until their deadline, as the
// TPROC-C runner does). Bringing it back is a restart: the server's commit
// counter starts again from zero and the monitor needs a new session.
type flakyWorkload struct {
	fakeWorkload
	down      atomic.Bool
	probeDown atomic.Bool  // only the monitor's probes fail
	workers   atomic.Int64 // sessions opened by NewWorker
	restarts  atomic.Uint64
	server    atomic.Int64 // the server's commit counter
}

var errRefused = classErr{db.ClassConnection}

func (f *flakyWorkload) NewWorker(ctx context.Context, vu int) (workload.Worker, error) {
	if f.down.Load() {
		return nil, errRefused
	}
	f.workers.Add(1)
	return &flakyWorker{fakeWorker: fakeWorker{f: &f.fakeWorkload}, fl: f}, nil
}

// stopOnceConnected takes the database down once n VUs have their
// sessions (a busy machine may start them late).
func (f *flakyWorkload) stopOnceConnected(n int64) {
	for f.workers.Load() < n {
		time.Sleep(time.Millisecond)
	}
	f.stop()
}

func (f *flakyWorkload) Probe(ctx context.Context) (workload.Probe, error) {
	for f.down.Load() || f.probeDown.Load() {
		select {
		case <-ctx.Done():
			return workload.Probe{}, errors.New("connection refused (gave up at the probe's deadline)")
		case <-time.After(10 * time.Millisecond):
		}
	}
	// Stamped when read, as a database's probe is: a monitor late to its
	// boundary (a busy machine) moves the edge, and the count holds there.
	return workload.Probe{Headline: f.headline.Load(), ServerCommits: f.server.Load(), HasServerCommits: true,
		Session: f.restarts.Load() + 1, Attempts: 1, At: time.Now()}, nil
}

// stop takes the database down; start brings it back as a restarted server.
func (f *flakyWorkload) stop() { f.down.Store(true) }
func (f *flakyWorkload) start() {
	f.server.Store(0)
	f.restarts.Add(1)
	f.down.Store(false)
}

type flakyWorker struct {
	fakeWorker
	fl *flakyWorkload
}

func (w *flakyWorker) Execute(ctx context.Context) error {
	if w.fl.down.Load() {
		time.Sleep(time.Millisecond)
		return errRefused
	}
	err := w.fakeWorker.Execute(ctx)
	if err == nil {
		w.fl.server.Add(1)
	}
	return err
}

func (w *flakyWorker) Reconnect(context.Context) error {
	w.fl.reconnects.Add(1)
	if w.fl.down.Load() {
		return errRefused
	}
	return nil
}

// at runs f when the run's clock reads t.
type clockStart struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clockStart) at(t time.Duration, f func()) {
	go func() {
		for {
			c.mu.Lock()
			s := c.t
			c.mu.Unlock()
			if !s.IsZero() {
				time.Sleep(time.Until(s.Add(t)))
				f()
				return
			}
			time.Sleep(time.Millisecond)
		}
	}()
}

func (c *clockStart) since(t time.Time) time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return t.Sub(c.t)
}

// started is Config.Started for a test's clockStart.
func (c *clockStart) started(s time.Time) { c.mu.Lock(); c.t = s; c.mu.Unlock() }

// TestOutageInWindow takes the database down in the middle of the window and
// restarts it: the run is degraded, its disruption account places the
// outage and its recovery, counts what was lost and lists the intervals
// without commits; the cross-check, read at the edges, is present and
// agrees; the server's counter, reset by the restart, is absent with the
// reason.
func TestOutageInWindow(t *testing.T) {
	t.Parallel()
	f := &flakyWorkload{}
	clk := &clockStart{}
	cfg := Config{VUs: 3, Rampup: 200 * time.Millisecond, Duration: 2 * time.Second, Interval: 200 * time.Millisecond, Started: clk.started}
	var downAt, upAt atomic.Int64
	clk.at(cfg.Rampup+500*time.Millisecond, func() { downAt.Store(int64(clk.since(time.Now()))); f.stop() })
	clk.at(cfg.Rampup+1100*time.Millisecond, func() { upAt.Store(int64(clk.since(time.Now()))); f.start() })
	out := &captureOutput{}
	noise := measureNoise(t)
	res, err := Run(context.Background(), f, cfg, out)
	if err != nil {
		t.Fatal(err)
	}
	down, up := time.Duration(downAt.Load()), time.Duration(upAt.Load())
	if res.Status != metrics.StatusDegraded {
		t.Errorf("status %s, want degraded", res.Status)
	}
	d := res.Disruption
	if d == nil || len(d.Outages) != 1 {
		t.Fatalf("disruption %+v, want one outage", d)
	}
	o := d.Outages[0]
	if o.Start < down || o.Start > down+lateness {
		t.Errorf("outage starts at %s, the database went down at %s", o.Start, down)
	}
	if !o.Recovered || !o.Reconnected || o.AllBack < up || o.Resumed < o.AllBack {
		t.Errorf("outage %+v: want every VU back after %s, then service resumed", o, up)
	}
	// (The first error comes a transaction after the database went down, the
	// resumed service a reconnect after it came back: a loaded machine may
	// delay the first more than the second by its noise.)
	if truth, ttr := up-down, o.TimeToRecover(); ttr < truth-noise.bound(time.Millisecond) || ttr > truth+cfg.Interval+lateness {
		t.Errorf("time to recover %s, the database was down for %s", ttr, truth)
	}
	if o.VUs != cfg.VUs || d.VUsAffected() != cfg.VUs || o.Lost["connection"] != int64(cfg.VUs) {
		t.Errorf("outage: %d VUs (%d affected), lost %v; want all %d VUs, one transaction each", o.VUs, d.VUsAffected(), o.Lost, cfg.VUs)
	}
	if len(d.Connections) != cfg.VUs {
		t.Errorf("%d connection events, want %d", len(d.Connections), cfg.VUs)
	}
	for _, c := range d.Connections {
		if !c.Reconnected || c.Attempts < 2 || c.LostAt < down || c.ReconnectedAt < up {
			t.Errorf("connection event %+v: want lost after %s, reconnected after %s, refused at least once", c, down, up)
		}
	}
	if d.WindowStart < cfg.Rampup || d.WindowEnd != d.WindowStart+res.Measured || !d.InWindow() {
		t.Errorf("window %s..%s in the account, measured %s", d.WindowStart, d.WindowEnd, res.Measured)
	}
	// The intervals without commits are the measured ones with none, and
	// the 600 ms outage covers at least two 200 ms intervals.
	var idle []int
	for _, iv := range out.intervals {
		var n int64
		for _, tx := range iv.Tx {
			n += tx.Count
		}
		if iv.Phase == metrics.PhaseMeasure && n == 0 {
			idle = append(idle, iv.Seq)
		}
	}
	if len(idle) < 2 || len(idle) != len(d.IdleIntervals) {
		t.Errorf("idle intervals %+v, the series has %v", d.IdleIntervals, idle)
	}
	for i, iv := range d.IdleIntervals {
		if i < len(idle) && iv.Seq != idle[i] || iv.End <= iv.Start || iv.Start < down-cfg.Interval || iv.End > up+cfg.Interval+lateness {
			t.Errorf("idle interval %+v: want one of %v within the outage %s..%s", iv, idle, down, up)
		}
	}
	if len(d.MonitorGaps) != 0 {
		t.Errorf("monitor gaps %+v: both edges were read", d.MonitorGaps)
	}
	if !res.HasDBCheck || !res.DBCheckAgree || res.DBCheckUnavailable != "" {
		t.Errorf("cross-check present %v agree %v (%q): db %d client %d ±%d", res.HasDBCheck, res.DBCheckAgree,
			res.DBCheckUnavailable, res.DBNewOrders, res.NewOrders, res.DBCheckAllowance)
	}
	if res.HasServerTPM || !strings.Contains(res.ServerTPMUnavailable, "restart") {
		t.Errorf("server TPM %v %.0f (%q): a restart resets the counter, want it absent with the reason",
			res.HasServerTPM, res.ServerTPM, res.ServerTPMUnavailable)
	}
	if !hasWarning(res, "out of service") {
		t.Errorf("warnings %q lack the outage", res.Warnings)
	}
}

// TestDownAtWindowStart: the database goes down during ramp-up and stays down
// past the window-start probe's deadline. The run still has a result; the
// cross-check is absent with the reason, never "disagrees"; the monitor's gap
// is in the account; the window keeps its configured edges.
func TestDownAtWindowStart(t *testing.T) {
	t.Parallel()
	f := &flakyWorkload{}
	clk := &clockStart{}
	cfg := Config{VUs: 2, Rampup: time.Second, Duration: 3 * time.Second, Interval: 200 * time.Millisecond, Started: clk.started}
	clk.at(100*time.Millisecond, func() { f.stopOnceConnected(2) })
	clk.at(cfg.Rampup+probeTimeout(cfg)+300*time.Millisecond, f.start)
	res, err := Run(context.Background(), f, cfg, &captureOutput{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != metrics.StatusDegraded {
		t.Errorf("status %s, want degraded", res.Status)
	}
	if res.HasDBCheck || res.DBCheckAgree || res.DBNewOrders != 0 || !strings.Contains(res.DBCheckUnavailable, "window start") {
		t.Errorf("cross-check present %v agree %v db %d (%q): want absent because of the window start",
			res.HasDBCheck, res.DBCheckAgree, res.DBNewOrders, res.DBCheckUnavailable)
	}
	if res.HasServerTPM || res.ServerTPMUnavailable == "" {
		t.Errorf("server TPM present %v (%q)", res.HasServerTPM, res.ServerTPMUnavailable)
	}
	if hasWarning(res, "database counted") {
		t.Errorf("warnings %q: an absent check must not disagree", res.Warnings)
	}
	if res.Measured != cfg.Duration {
		t.Errorf("measured %s, want the configured %s (the edges stay at their boundaries)", res.Measured, cfg.Duration)
	}
	d := res.Disruption
	if d == nil || len(d.MonitorGaps) != 1 || d.MonitorGaps[0].Edge != metrics.EdgeWindowStart || d.MonitorGaps[0].Error == "" {
		t.Fatalf("disruption %+v: want the window start's monitor gap", d)
	}
	if len(d.Outages) != 1 || !d.Outages[0].Recovered || d.Outages[0].Start >= cfg.Rampup {
		t.Errorf("outages %+v: want one from the ramp-up, recovered in the window", d.Outages)
	}
}

// TestOutageNotRecovered: the database goes down in the window and stays
// down: the outage is not recovered, and the window-end probe fails.
func TestOutageNotRecovered(t *testing.T) {
	t.Parallel()
	f := &flakyWorkload{}
	clk := &clockStart{}
	cfg := Config{VUs: 2, Duration: time.Second, Interval: 200 * time.Millisecond, Started: clk.started}
	clk.at(300*time.Millisecond, f.stop)
	res, err := Run(context.Background(), f, cfg, &captureOutput{})
	if err != nil {
		t.Fatal(err)
	}
	d := res.Disruption
	if res.Status != metrics.StatusDegraded || d == nil || len(d.Outages) != 1 || d.Outages[0].Recovered || d.Recovered() {
		t.Fatalf("status %s, disruption %+v: want degraded with an outage not recovered", res.Status, d)
	}
	if _, ok := d.LongestTimeToRecover(); ok {
		t.Error("a time to recover for an outage that did not recover")
	}
	if res.HasDBCheck || !strings.Contains(res.DBCheckUnavailable, "window end") {
		t.Errorf("cross-check present %v (%q): want absent because of the window end", res.HasDBCheck, res.DBCheckUnavailable)
	}
	for _, c := range d.Connections {
		if c.Reconnected {
			t.Errorf("connection event %+v: reconnected to a database that stayed down", c)
		}
	}
	if !hasWarning(res, "had not resumed") {
		t.Errorf("warnings %q", res.Warnings)
	}
}

// TestMonitorGapAlone: only the monitor cannot read; the VUs are fine. The
// run completes, its cross-check absent with the reason and the gap in the
// account.
func TestMonitorGapAlone(t *testing.T) {
	t.Parallel()
	f := &flakyWorkload{}
	f.probeDown.Store(true)
	cfg := Config{VUs: 2, Rampup: 200 * time.Millisecond, Duration: 400 * time.Millisecond, Interval: 200 * time.Millisecond}
	res, err := Run(context.Background(), f, cfg, &captureOutput{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != metrics.StatusCompleted || res.HasDBCheck || res.Disruption == nil ||
		len(res.Disruption.MonitorGaps) != 1 || len(res.Disruption.Outages) != 0 {
		t.Fatalf("status %s, check %v, disruption %+v", res.Status, res.HasDBCheck, res.Disruption)
	}
}

// TestNoDisruption: a healthy run has no disruption account, and a present
// cross-check and server TPM.
func TestNoDisruption(t *testing.T) {
	t.Parallel()
	f := &flakyWorkload{}
	res, err := Run(context.Background(), f, testConfig(), &captureOutput{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != metrics.StatusCompleted || res.Disruption != nil || !res.HasDBCheck || !res.HasServerTPM || res.ServerTPM <= 0 {
		t.Fatalf("status %s, disruption %+v, check %v, server TPM %v %.0f (%q)", res.Status, res.Disruption,
			res.HasDBCheck, res.HasServerTPM, res.ServerTPM, res.ServerTPMUnavailable)
	}
}

func hasWarning(res *metrics.RunResult, s string) bool {
	for _, w := range res.Warnings {
		if strings.Contains(w, s) {
			return true
		}
	}
	return false
}

// TestCrossCheck: the check's verdict, its allowance (transactions whose
// session was lost may have committed unseen) and the server TPM's absence
// by reason.
func TestCrossCheck(t *testing.T) {
	t.Parallel()
	mk := func(p0, p1 workload.Probe, connErrs int64) *metrics.RunResult {
		w := &window{prober: &fakeWorkload{}, open: true, p0: p0, p1: p1}
		res := &metrics.RunResult{Measured: time.Minute, NewOrders: 1000,
			Tx: []metrics.TxSummary{{Name: "a", Errors: map[string]int64{"connection": connErrs}}}}
		w.crossCheck(res, 4)
		return res
	}
	p := func(h, sc int64, session uint64) workload.Probe {
		return workload.Probe{Headline: h, ServerCommits: sc, HasServerCommits: sc >= 0, Session: session}
	}
	// The database counted 1010: 4 in flight are allowed, plus 6 in doubt.
	if res := mk(p(0, 0, 1), p(1010, 5000, 1), 0); !res.HasDBCheck || res.DBCheckAgree || res.DBCheckAllowance != 4 {
		t.Errorf("10 apart with 4 allowed: %+v", res)
	}
	if res := mk(p(0, 0, 1), p(1010, 5000, 1), 6); !res.DBCheckAgree || res.DBCheckAllowance != 10 || !res.HasServerTPM || res.ServerTPM != 5000 {
		t.Errorf("10 apart with 6 in doubt: %+v", res)
	}
	// The commits that ended around the edges, counted, may be on either
	// side: 8 of them (with the 4 in flight) explain the 10.
	col := metrics.NewCollector([]string{"a"}, 0)
	rec := col.NewRecorder()
	bands := [2]*metrics.EdgeBand{col.EdgeBand(0, time.Second), col.EdgeBand(59*time.Second, time.Minute)}
	for i := range 8 {
		rec.Record(metrics.Event{End: time.Duration(i) * 100 * time.Millisecond})
	}
	col.Drain()
	w := &window{prober: &fakeWorkload{}, open: true, p0: p(0, 0, 1), p1: p(1010, 5000, 1), bands: bands}
	res := &metrics.RunResult{Measured: time.Minute, NewOrders: 1000, Tx: []metrics.TxSummary{{Name: "a"}}}
	if w.crossCheck(res, 4); !res.DBCheckAgree || res.DBCheckAllowance != 12 {
		t.Errorf("10 apart with 8 commits at the edges: %+v", res)
	}
	// The server read its commit counter with the same probes: the 8
	// New-Orders around the edges are 20 commits of a mix of 2.5 commits
	// per New-Order, on either side, with the 4 in flight (a minute's window).
	res = &metrics.RunResult{Measured: time.Minute, NewOrders: 1000, NOPM: 1000, TPM: 2500, Tx: []metrics.TxSummary{{Name: "a"}}}
	if w.crossCheck(res, 4); !res.HasServerTPM || math.Abs(res.ServerTPMMargin-24) > 1e-9 {
		t.Errorf("server TPM margin with 8 New-Orders at the edges: %g, want 24", res.ServerTPMMargin)
	}
	// Without counted edges, the rate over half the probes' round trips:
	// 5,000 a minute over (1 s + 2 s) / 2 is 125, with the 4 in flight.
	slow := func(pr workload.Probe, rtt time.Duration) workload.Probe { pr.RTT = rtt; return pr }
	w = &window{prober: &fakeWorkload{}, open: true, p0: slow(p(0, 0, 1), time.Second), p1: slow(p(1000, 5000, 1), 2*time.Second)}
	res = &metrics.RunResult{Measured: time.Minute, NewOrders: 1000, NOPM: 1000, TPM: 2500, Tx: []metrics.TxSummary{{Name: "a"}}}
	if w.crossCheck(res, 4); !res.HasServerTPM || math.Abs(res.ServerTPMMargin-129) > 1e-9 {
		t.Errorf("server TPM margin with probes of 1 and 2 s: %g, want 129", res.ServerTPMMargin)
	}
	// A counter read 3 s after the headline at the start and 1 s after it
	// at the end: the commits of those 4 s (5,000 a minute) may be on
	// either side, with the 4 in flight.
	late := func(pr workload.Probe, after time.Duration) workload.Probe { pr.ServerCommitsAfter = after; return pr }
	w = &window{prober: &fakeWorkload{}, open: true, p0: late(p(0, 0, 1), 3*time.Second), p1: late(p(1000, 5000, 1), time.Second)}
	res = &metrics.RunResult{Measured: time.Minute, NewOrders: 1000, NOPM: 1000, TPM: 2500, Tx: []metrics.TxSummary{{Name: "a"}}}
	if w.crossCheck(res, 4); !res.HasServerTPM || math.Abs(res.ServerTPMMargin-(4+5000.0/60*4)) > 1e-9 {
		t.Errorf("server TPM margin with the counter read 3 and 1 s late: %g, want %g", res.ServerTPMMargin, 4+5000.0/60*4)
	}
	for _, c := range []struct {
		p0, p1 workload.Probe
		reason string
	}{
		{p(0, 0, 1), p(1000, 5000, 2), "restart"},
		{p(0, 9000, 1), p(1000, 5000, 1), "backwards"},
		{p(0, -1, 1), p(1000, -1, 1), "no server-wide"},
	} {
		if res := mk(c.p0, c.p1, 0); !res.HasDBCheck || res.HasServerTPM || !strings.Contains(res.ServerTPMUnavailable, c.reason) {
			t.Errorf("%+v → %+v: server TPM %v (%q), want absent: %s", c.p0, c.p1, res.HasServerTPM, res.ServerTPMUnavailable, c.reason)
		}
	}
}

// TestTracker: outages open at a lost session and close at the first commit
// after every VU is back; what fails in between is lost.
func TestTracker(t *testing.T) {
	t.Parallel()
	tr := newTracker(&captureOutput{})
	ms := func(n int) time.Duration { return time.Duration(n) * time.Millisecond }
	tr.committed(ms(5)) // no outage: nothing
	a := tr.lost(0, ms(10), db.ClassConnection)
	b := tr.lost(1, ms(12), db.ClassConnection)
	tr.failed(ms(13), db.ClassDeadlock)
	tr.reconnected(a, true, ms(20), 3)
	tr.committed(ms(21)) // VU 2 is still without a session
	tr.reconnected(b, true, ms(30), 4)
	tr.committed(ms(29)) // ended before every VU was back
	tr.committed(ms(35))
	c := tr.lost(0, ms(50), db.ClassConnection)
	tr.reconnected(c, false, ms(60), 7) // the run stopped
	tr.committed(ms(70))
	d := tr.account()
	if len(d.Outages) != 2 {
		t.Fatalf("outages %+v", d.Outages)
	}
	o := d.Outages[0]
	if o.Start != ms(10) || o.AllBack != ms(30) || o.Resumed != ms(35) || !o.Recovered || o.VUs != 2 ||
		o.Lost["connection"] != 2 || o.Lost["deadlock"] != 1 || o.TimeToRecover() != ms(25) {
		t.Errorf("first outage %+v", o)
	}
	if o := d.Outages[1]; o.Recovered || o.Reconnected || o.Start != ms(50) {
		t.Errorf("second outage %+v: want open", o)
	}
	if len(d.Connections) != 3 || d.Connections[1].VU != 2 || d.Connections[1].Attempts != 4 || !d.Connections[1].Reconnected ||
		d.Connections[2].Reconnected || d.Connections[2].Attempts != 7 {
		t.Errorf("connections %+v", d.Connections)
	}
	if d.VUsAffected() != 2 || d.Recovered() {
		t.Errorf("affected %d, recovered %v", d.VUsAffected(), d.Recovered())
	}
}
