package engine

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sledge-bench/sledge/internal/db"
	"github.com/sledge-bench/sledge/internal/metrics"
	"github.com/sledge-bench/sledge/internal/workload"
)

// fakeWorkload is a unit-level stand-in for a database workload: it lets the
// tests script outcomes that a real database produces only by chance.
type fakeWorkload struct {
	failFirst   db.ErrorClass // first attempt of every transaction fails with this (ClassNone: never)
	rollbackTx1 bool          // transaction type 1 always rolls back by design
	connectErr  error
	executed    atomic.Int64 // attempts
	reconnects  atomic.Int64
	headline    atomic.Int64 // committed type-0 transactions, as a database would count them
}

type classErr struct{ c db.ErrorClass }

func (e classErr) Error() string { return "fake " + e.c.String() }

func (f *fakeWorkload) TxNames() []string { return []string{"a", "b"} }
func (f *fakeWorkload) Classify(err error) db.ErrorClass {
	var ce classErr
	if errors.As(err, &ce) {
		return ce.c
	}
	return db.ClassOther
}
func (f *fakeWorkload) Close(context.Context) error { return nil }
func (f *fakeWorkload) NewWorker(ctx context.Context, vu int) (workload.Worker, error) {
	if f.connectErr != nil {
		return nil, f.connectErr
	}
	return &fakeWorker{f: f}, nil
}
func (f *fakeWorkload) HeadlineTx() int { return 0 }
func (f *fakeWorkload) Probe(context.Context) (workload.Probe, error) {
	return workload.Probe{Headline: f.headline.Load()}, nil
}

type fakeWorker struct {
	f       *fakeWorkload
	n       int
	tx      int
	attempt int
}

func (w *fakeWorker) Next() int {
	w.n++
	w.tx = w.n % 2
	w.attempt = 0
	return w.tx
}

func (w *fakeWorker) Execute(ctx context.Context) error {
	w.f.executed.Add(1)
	w.attempt++
	time.Sleep(time.Millisecond)
	if w.f.failFirst != db.ClassNone && w.attempt == 1 {
		return classErr{w.f.failFirst}
	}
	if w.tx == 1 && w.f.rollbackTx1 {
		return workload.ErrRolledBack
	}
	if w.tx == 0 {
		w.f.headline.Add(1)
	}
	return nil
}

func (w *fakeWorker) Reconnect(context.Context) error { w.f.reconnects.Add(1); return nil }
func (w *fakeWorker) Close(context.Context) error     { return nil }

type captureOutput struct {
	mu        sync.Mutex
	lines     []string
	intervals []metrics.Interval
}

func (c *captureOutput) Logf(format string, args ...any) {
	c.mu.Lock()
	c.lines = append(c.lines, fmt.Sprintf(format, args...))
	c.mu.Unlock()
}
func (c *captureOutput) Interval(iv metrics.Interval) {
	c.mu.Lock()
	c.intervals = append(c.intervals, iv)
	c.mu.Unlock()
}

func testConfig() Config {
	return Config{VUs: 3, Rampup: 300 * time.Millisecond, Duration: 600 * time.Millisecond, Interval: 200 * time.Millisecond}
}

func TestRunPhasesAndWindow(t *testing.T) {
	t.Parallel()
	f := &fakeWorkload{}
	out := &captureOutput{}
	res, err := Run(context.Background(), f, testConfig(), out)
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != metrics.StatusCompleted {
		t.Fatalf("status %s", res.Status)
	}
	if res.Measured != 600*time.Millisecond {
		t.Fatalf("measured %s, want the configured 600ms window", res.Measured)
	}
	if res.Commits == 0 || res.Commits >= f.executed.Load() {
		t.Fatalf("commits %d of %d executed: ramp-up must not count", res.Commits, f.executed.Load())
	}
	// Every interval reports each VU; mid-run they are running, and they
	// commit.
	cfg := testConfig()
	mid := out.intervals[len(out.intervals)/2]
	for i, v := range mid.VUs {
		if v.VU != i+1 || v.State != "running" {
			t.Errorf("interval %d VU %+v: want VU %d running", mid.Seq, v, i+1)
		}
	}
	if len(mid.VUs) != cfg.VUs {
		t.Errorf("interval %d: %d VUs, want %d", mid.Seq, len(mid.VUs), cfg.VUs)
	}
	var all int64 // (one 200 ms interval of a busy machine may see none)
	for _, iv := range out.intervals {
		for _, v := range iv.VUs {
			all += v.Commits
		}
	}
	if all == 0 {
		t.Errorf("no VU committed in any interval")
	}
	// Interval phases: ramp-up ticks, then measured ticks ending at the window's end.
	var phases []string
	var last time.Duration
	for _, iv := range out.intervals {
		phases = append(phases, iv.Phase)
		if iv.Elapsed < last {
			t.Fatalf("intervals out of order: %v", out.intervals)
		}
		last = iv.Elapsed
	}
	want := []string{"rampup", "rampup", "measure", "measure", "measure"}
	if fmt.Sprint(phases) != fmt.Sprint(want) {
		t.Fatalf("phases %v, want %v", phases, want)
	}
	// The window opens at the first tick at or after 300ms and lasts exactly 600ms.
	if end := out.intervals[len(out.intervals)-1].Elapsed; end < 900*time.Millisecond || end > 950*time.Millisecond {
		t.Fatalf("last interval ends at %s, want 900ms plus timer latency", end)
	}
	// The window's commits equal the sum of the measured intervals' counts.
	var sum int64
	for _, iv := range out.intervals {
		if iv.Phase == metrics.PhaseMeasure {
			for _, tx := range iv.Tx {
				sum += tx.Count
			}
		}
	}
	if d := sum - res.Commits; d < 0 || d > int64(res.VUs) {
		t.Fatalf("measured intervals count %d, result %d", sum, res.Commits)
	}
	if !res.DBCheckAgree {
		t.Fatalf("headline cross-check disagrees: db %d client %d", res.DBNewOrders, res.NewOrders)
	}
	if res.ClientCPUPerTxUS <= 0 {
		t.Fatalf("client CPU per transaction %v", res.ClientCPUPerTxUS)
	}
}

func TestRetriesCountOnce(t *testing.T) {
	t.Parallel()
	f := &fakeWorkload{failFirst: db.ClassSerialization}
	cfg := testConfig()
	cfg.MaxRetries = 2
	res, err := Run(context.Background(), f, cfg, &captureOutput{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Errors != 0 {
		t.Fatalf("%d errors despite retries", res.Errors)
	}
	var retries int64
	for _, tx := range res.Tx {
		retries += tx.Retries
	}
	if retries < res.Commits-int64(cfg.VUs) || retries > res.Commits+int64(cfg.VUs) {
		t.Fatalf("retries %d for %d commits: each transaction retried once", retries, res.Commits)
	}
	for _, tx := range res.Tx {
		if tx.Retried != tx.Retries || tx.RetriesByClass["serialization"] != tx.Retries || tx.FailedAfterRetries != 0 {
			t.Errorf("%s: %d retries, %d retried, by class %v, %d failed after retries: want every retry one serialization retry of its own transaction, none failed",
				tx.Name, tx.Retries, tx.Retried, tx.RetriesByClass, tx.FailedAfterRetries)
		}
	}
	if res.Tx[0].P50 < 2*time.Millisecond {
		t.Fatalf("p50 %s: latency must include the failed attempt", res.Tx[0].P50)
	}
}

func TestErrorsWithoutRetryAreNotCommits(t *testing.T) {
	t.Parallel()
	f := &fakeWorkload{failFirst: db.ClassDeadlock}
	res, err := Run(context.Background(), f, testConfig(), &captureOutput{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Commits != 0 {
		t.Fatalf("%d commits although every transaction failed", res.Commits)
	}
	if res.Tx[0].Errors["deadlock"] == 0 || res.Errors == 0 {
		t.Fatalf("deadlocks not counted: %+v", res.Tx[0].Errors)
	}
}

func TestDesignedRollbacks(t *testing.T) {
	t.Parallel()
	f := &fakeWorkload{rollbackTx1: true}
	res, err := Run(context.Background(), f, testConfig(), &captureOutput{})
	if err != nil {
		t.Fatal(err)
	}
	b := res.Tx[1]
	if b.Count != 0 || b.RolledBack == 0 || b.ErrorCount() != 0 {
		t.Fatalf("rolled-back type: count %d rolledBack %d errors %d", b.Count, b.RolledBack, b.ErrorCount())
	}
	if res.RolledBack != b.RolledBack || res.Commits != res.Tx[0].Count {
		t.Fatalf("totals: commits %d rolled back %d", res.Commits, res.RolledBack)
	}
}

func TestConnectionErrorsReconnect(t *testing.T) {
	t.Parallel()
	f := &fakeWorkload{failFirst: db.ClassConnection}
	cfg := testConfig()
	cfg.MaxRetries = 3 // connection errors are not retried in place
	res, err := Run(context.Background(), f, cfg, &captureOutput{})
	if err != nil {
		t.Fatal(err)
	}
	if f.reconnects.Load() == 0 {
		t.Fatal("no reconnect after connection errors")
	}
	if res.Tx[0].Errors["connection"] == 0 {
		t.Fatal("connection errors not counted")
	}
}

func TestInterruptKeepsMeasurement(t *testing.T) {
	t.Parallel()
	f := &fakeWorkload{}
	ctx, cancel := context.WithCancel(context.Background())
	cfg := testConfig()
	cfg.Duration = time.Hour
	// Ctrl-C at 700 ms on the run's clock.
	cfg.Started = func(s time.Time) { time.AfterFunc(time.Until(s.Add(700*time.Millisecond)), cancel) }
	noise := measureNoise(t)
	res, err := Run(ctx, f, cfg, &captureOutput{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != metrics.StatusInterrupted {
		t.Fatalf("status %s", res.Status)
	}
	if res.Measured < 300*time.Millisecond || res.Measured > noise.bound(600*time.Millisecond) {
		t.Fatalf("measured %s, want ≈ 400ms (interrupt at 700ms, window from 300ms)", res.Measured)
	}
	if res.Commits == 0 {
		t.Fatal("nothing kept")
	}
}

func TestConnectFailureFailsRun(t *testing.T) {
	t.Parallel()
	f := &fakeWorkload{connectErr: errors.New("too many connections")}
	_, err := Run(context.Background(), f, testConfig(), &captureOutput{})
	if err == nil || !errors.Is(err, f.connectErr) {
		t.Fatalf("err = %v", err)
	}
}

func TestValidate(t *testing.T) {
	t.Parallel()
	bad := []Config{
		{VUs: 0, Duration: time.Second, Interval: time.Second},
		{VUs: 1, Duration: 0, Interval: time.Second},
		{VUs: 1, Duration: time.Second, Interval: time.Millisecond},
		{VUs: 1, Duration: time.Second, Interval: time.Second, Rampup: -1},
		{VUs: 1, Duration: time.Second, Interval: time.Second, MaxRetries: -1},
	}
	for _, c := range bad {
		if c.Validate() == nil {
			t.Errorf("%+v accepted", c)
		}
	}
	if err := testConfig().Validate(); err != nil {
		t.Fatal(err)
	}
}

func TestNextBoundary(t *testing.T) {
	t.Parallel()
	cfg := Config{Rampup: 25 * time.Second, Duration: 35 * time.Second, Interval: 10 * time.Second}
	cases := []struct {
		now       time.Duration
		measuring bool
		winStart  time.Duration
		want      time.Duration
	}{
		{0, false, 0, 10 * time.Second},
		{10 * time.Second, false, 0, 20 * time.Second},
		{20 * time.Second, false, 0, 25 * time.Second}, // a tick exactly at the window start
		{25 * time.Second, true, 25 * time.Second, 35 * time.Second},
		{55 * time.Second, true, 25 * time.Second, 60 * time.Second}, // and exactly at its end
	}
	for _, c := range cases {
		if got := nextBoundary(c.now, c.measuring, c.winStart, cfg); got != c.want {
			t.Errorf("nextBoundary(%s, %v) = %s, want %s", c.now, c.measuring, got, c.want)
		}
	}
}

func TestCheckAllowance(t *testing.T) {
	t.Parallel()
	cases := []struct {
		vus        int
		count      int64
		window     time.Duration
		rtt0, rtt1 time.Duration
		want       int64
	}{
		{4, 1000, 10 * time.Second, 0, 0, 4},
		// 100/s with 10ms + 30ms round trips: half of 40ms at 100/s = 2 more.
		{4, 1000, 10 * time.Second, 10 * time.Millisecond, 30 * time.Millisecond, 6},
		{8, 0, 0, time.Second, time.Second, 8},
	}
	for _, c := range cases {
		if got := checkAllowance(c.vus, c.count, c.window, c.rtt0, c.rtt1); got != c.want {
			t.Errorf("checkAllowance(%d, %d, %s, %s, %s) = %d, want %d", c.vus, c.count, c.window, c.rtt0, c.rtt1, got, c.want)
		}
	}
}

// pacedWorkload is fakeWorkload with operator times: keying 20 ms / 10 ms
// and mean think times 30 ms / 20 ms for transaction types a and b.
type pacedWorkload struct {
	fakeWorkload
	keying, think [2]time.Duration
}

func (p *pacedWorkload) Pacing(tx int) (time.Duration, time.Duration) {
	return p.keying[tx], p.think[tx]
}

func TestPacing(t *testing.T) {
	t.Parallel()
	p := &pacedWorkload{keying: [2]time.Duration{20 * time.Millisecond, 10 * time.Millisecond},
		think: [2]time.Duration{30 * time.Millisecond, 20 * time.Millisecond}}
	cfg := Config{VUs: 3, Duration: time.Second, Interval: 250 * time.Millisecond, Pacing: 1}
	res, err := Run(context.Background(), p, cfg, &captureOutput{})
	if err != nil {
		t.Fatal(err)
	}
	// A cycle of a and b takes about 20+30+10+20 ms plus two 1 ms executions:
	// about 24 transactions per VU per second, against ~900 unpaced.
	// (Fewer on a busy machine, whose waits end late: the ceiling is what
	// pacing decides.)
	if res.Commits < 1 || res.Commits > 150 {
		t.Errorf("%d commits in 1 s with 3 paced VUs, want about 72 and never more than the pacing allows", res.Commits)
	}
	got := map[string]metrics.AuditItem{}
	for _, a := range res.Audit {
		got[a.Name] = a
	}
	for name, want := range map[string]float64{"keying time a": 0.02, "keying time b": 0.01} {
		if a, ok := got[name]; !ok || math.Abs(a.Value-want) > 0.0005 || !a.OK {
			t.Errorf("%s: %+v, want %g s", name, a, want)
		}
	}
	if a, ok := got["think time a"]; !ok || a.Value <= 0 || a.Value > 0.1 {
		t.Errorf("think time a: %+v", a)
	}
	// Scaled: keying times halve.
	cfg.Pacing = 0.5
	res, err = Run(context.Background(), p, cfg, &captureOutput{})
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range res.Audit {
		if a.Name == "keying time a" && math.Abs(a.Value-0.01) > 0.0005 {
			t.Errorf("scaled keying time a: %g s, want 0.01", a.Value)
		}
	}
}

// Think times as long as the run: the ones its end cuts are the long ones,
// and the audited mean still is the drawn mean (all of them counted), not
// that of the short ones that ended in time (about half of it).
func TestThinkAuditUnbiasedByRunEnd(t *testing.T) {
	t.Parallel()
	const mean = 400 * time.Millisecond
	p := &pacedWorkload{think: [2]time.Duration{mean, mean}}
	cfg := Config{VUs: 300, Duration: time.Second, Interval: 500 * time.Millisecond, Pacing: 1}
	res, err := Run(context.Background(), p, cfg, &captureOutput{})
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"think time a", "think time b"} {
		var got *metrics.AuditItem
		for i := range res.Audit {
			if res.Audit[i].Name == name {
				got = &res.Audit[i]
			}
		}
		// About 500 draws of each: their mean strays by 4.5 % (SD/√n);
		// 20 % is over four of those.
		if got == nil || !got.OK || math.Abs(got.Value-mean.Seconds()) > 0.2*mean.Seconds() {
			t.Errorf("%s: %+v, want the drawn mean, about %s", name, got, mean)
		}
	}
}

// The end of the window wakes VUs in the middle of a long think time.
func TestPacingStopsWaits(t *testing.T) {
	t.Parallel()
	p := &pacedWorkload{think: [2]time.Duration{time.Hour, time.Hour}}
	cfg := Config{VUs: 2, Duration: 300 * time.Millisecond, Interval: 100 * time.Millisecond, Pacing: 1}
	start := time.Now()
	res, err := Run(context.Background(), p, cfg, &captureOutput{})
	if err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("run took %v: the VUs' think time was not cut at the end", d)
	}
	if res.Commits != 2 {
		t.Errorf("%d commits, want one per VU before its hour of thinking", res.Commits)
	}
	if err := (Config{VUs: 1, Duration: time.Second, Interval: time.Second, Pacing: -1}).Validate(); err == nil {
		t.Error("negative pacing accepted")
	}
}
