package engine

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/sledge-bench/sledge/internal/db"
	"github.com/sledge-bench/sledge/internal/metrics"
	"github.com/sledge-bench/sledge/internal/workload"
)

// countWorkload is fakeWorkload that counts each VU's iterations (the
// transactions it drew) and notes when the last transaction of all ended.
// Its probe, like a database's, takes a round trip and says when it read.
type countWorkload struct {
	fakeWorkload
	mu      sync.Mutex
	perVU   map[int]int
	lastEnd time.Time
}

func (f *countWorkload) Probe(context.Context) (workload.Probe, error) {
	time.Sleep(probeReadDelay)
	p := workload.Probe{Headline: f.headline.Load(), At: time.Now()}
	time.Sleep(10 * time.Millisecond)
	p.RTT = probeReadDelay + 10*time.Millisecond
	return p, nil
}

// probeReadDelay is how long countWorkload's probe takes to read: long
// enough that a window closed where the database was read, not where the
// last transaction ended, is told apart on a busy machine.
const probeReadDelay = 300 * time.Millisecond

func newCountWorkload() *countWorkload { return &countWorkload{perVU: map[int]int{}} }

func (f *countWorkload) NewWorker(ctx context.Context, vu int) (workload.Worker, error) {
	return &countWorker{fakeWorker: fakeWorker{f: &f.fakeWorkload}, c: f, vu: vu}, nil
}

type countWorker struct {
	fakeWorker
	c  *countWorkload
	vu int
}

func (w *countWorker) Next() int {
	w.c.mu.Lock()
	w.c.perVU[w.vu]++
	w.c.mu.Unlock()
	return w.fakeWorker.Next()
}

func (w *countWorker) Execute(ctx context.Context) error {
	err := w.fakeWorker.Execute(ctx)
	w.c.mu.Lock()
	w.c.lastEnd = time.Now()
	w.c.mu.Unlock()
	return err
}

func iterationConfig(vus, n int) Config {
	return Config{VUs: vus, Iterations: n, Interval: 100 * time.Millisecond}
}

// TestIterationsEachVURunsN: every VU runs exactly N transactions, the run
// ends when the last is done, and the window is the elapsed time from the
// start to the last transaction's end, the rates over it.
func TestIterationsEachVURunsN(t *testing.T) {
	t.Parallel()
	const vus, n = 3, 120 // about 120 ms per VU: a few intervals
	f := newCountWorkload()
	var start time.Time
	out := &captureOutput{}
	noise := measureNoise(t)
	began := time.Now()
	cfg := iterationConfig(vus, n)
	cfg.Started = func(t time.Time) { start = t }
	res, err := Run(context.Background(), f, cfg, out)
	if err != nil {
		t.Fatal(err)
	}
	wall := time.Since(began)
	if res.Status != metrics.StatusCompleted || res.Iterations != n || res.Duration != 0 || res.Rampup != 0 {
		t.Fatalf("status %s, iterations %d, duration %s, rampup %s", res.Status, res.Iterations, res.Duration, res.Rampup)
	}
	for vu := range vus {
		if got := f.perVU[vu]; got != n {
			t.Errorf("VU %d ran %d transactions, want %d", vu+1, got, n)
		}
	}
	if got := res.Commits + res.RolledBack + res.Errors; got != vus*n {
		t.Errorf("%d transactions counted (commits %d, rolled back %d, errors %d), want %d", got, res.Commits, res.RolledBack, res.Errors, vus*n)
	}
	// The window ends with the last transaction (recorded just after its
	// Execute returned), not when the database was read after it.
	want := f.lastEnd.Sub(start)
	if res.Measured < want || res.Measured > want+min(noise.bound(5*time.Millisecond), probeReadDelay/2) {
		t.Errorf("measured %s, want the elapsed time to the last transaction's end, %s", res.Measured, want)
	}
	if res.Measured > wall {
		t.Errorf("measured %s, longer than the run (%s)", res.Measured, wall)
	}
	if nopm := float64(res.NewOrders) / res.Measured.Minutes(); res.NOPM != nopm || res.TPM != float64(res.Commits)/res.Measured.Minutes() {
		t.Errorf("NOPM %g TPM %g, want %g and commits/minutes over the window", res.NOPM, res.TPM, nopm)
	}
	// Nothing runs at the end: the database counted what the client did.
	if !res.HasDBCheck || res.DBNewOrders != res.NewOrders {
		t.Errorf("cross-check: database %d, client %d (%s)", res.DBNewOrders, res.NewOrders, res.DBCheckUnavailable)
	}
	// Intervals every 100 ms from the start, the last one ending with the
	// window, all measured, together holding every transaction.
	var sum int64
	for i, iv := range out.intervals {
		if iv.Phase != metrics.PhaseMeasure {
			t.Errorf("interval %d in phase %s", iv.Seq, iv.Phase)
		}
		if i < len(out.intervals)-1 && iv.Elapsed != time.Duration(i+1)*100*time.Millisecond {
			t.Errorf("interval %d ends at %s, want %s", iv.Seq, iv.Elapsed, time.Duration(i+1)*100*time.Millisecond)
		}
		for _, tx := range iv.Tx {
			sum += tx.Count
		}
	}
	if len(out.intervals) < 2 || out.intervals[len(out.intervals)-1].Elapsed != res.Measured {
		t.Errorf("%d intervals, the last ending at %v; want it at the window's end %s", len(out.intervals), out.intervals, res.Measured)
	}
	if sum != res.Commits {
		t.Errorf("intervals hold %d commits, the result %d", sum, res.Commits)
	}
}

// TestIterationsCountAttempts: an iteration is a transaction run to its end
// whatever its outcome; retries stay within it, and after its last one a VU
// whose session was lost does not reconnect.
func TestIterationsCountAttempts(t *testing.T) {
	t.Parallel()
	const vus, n = 2, 20
	for _, c := range []struct {
		name       string
		fail       db.ErrorClass
		retries    int
		rollback   bool
		commits    int64
		errors     int64
		executed   int64
		reconnects int64
	}{
		{"failures count", db.ClassDeadlock, 0, false, 0, vus * n, vus * n, 0},
		{"retried once", db.ClassSerialization, 1, false, vus * n, 0, 2 * vus * n, 0},
		{"rollbacks count", db.ClassNone, 0, true, vus * n / 2, 0, vus * n, 0},
		{"lost sessions count", db.ClassConnection, 3, false, 0, vus * n, vus * n, vus * (n - 1)},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			f := newCountWorkload()
			f.failFirst, f.rollbackTx1 = c.fail, c.rollback
			cfg := iterationConfig(vus, n)
			cfg.MaxRetries = c.retries
			res, err := Run(context.Background(), f, cfg, &captureOutput{})
			if err != nil {
				t.Fatal(err)
			}
			for vu := range vus {
				if f.perVU[vu] != n {
					t.Errorf("VU %d ran %d, want %d", vu+1, f.perVU[vu], n)
				}
			}
			if res.Commits != c.commits || res.Errors != c.errors || res.Commits+res.RolledBack+res.Errors != vus*n {
				t.Errorf("commits %d rolled back %d errors %d, want %d commits, %d errors, %d in all",
					res.Commits, res.RolledBack, res.Errors, c.commits, c.errors, vus*n)
			}
			if got := f.executed.Load(); got != c.executed {
				t.Errorf("%d attempts executed, want %d", got, c.executed)
			}
			if got := f.reconnects.Load(); got != c.reconnects {
				t.Errorf("%d reconnects, want %d", got, c.reconnects)
			}
		})
	}
}

// TestIterationsPaced: each iteration is a paced transaction — keying time
// before it, think time after it — except that the last think time is not
// waited (an hour of it would hold the run).
func TestIterationsPaced(t *testing.T) {
	t.Parallel()
	const vus, n = 2, 6
	p := &pacedWorkload{keying: [2]time.Duration{10 * time.Millisecond, 10 * time.Millisecond},
		think: [2]time.Duration{5 * time.Millisecond, 5 * time.Millisecond}}
	cfg := iterationConfig(vus, n)
	cfg.Pacing = 1
	res, err := Run(context.Background(), p, cfg, &captureOutput{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Commits != vus*n {
		t.Fatalf("%d commits, want %d", res.Commits, vus*n)
	}
	if res.Measured < n*10*time.Millisecond {
		t.Errorf("measured %s: shorter than the %d keying times of 10 ms each VU waited", res.Measured, n)
	}
	got := map[string]bool{}
	for _, a := range res.Audit {
		got[a.Name] = true
	}
	if !got["keying time a"] || !got["think time a"] {
		t.Errorf("pacing audit %v: want keying and think times", res.Audit)
	}

	p.think = [2]time.Duration{time.Hour, time.Hour}
	began := time.Now()
	if res, err = Run(context.Background(), p, iterationConfig(vus, 1), &captureOutput{}); err != nil || res.Commits != vus {
		t.Fatalf("one iteration each: %v, %+v", err, res)
	}
	if d := time.Since(began); d > 5*time.Second {
		t.Errorf("one paced iteration took %s: the last think time was waited", d)
	}
}

// TestIterationsInterrupted: Ctrl-C stops an iteration run as any other,
// keeping what was measured.
func TestIterationsInterrupted(t *testing.T) {
	t.Parallel()
	f := newCountWorkload()
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(300*time.Millisecond, cancel)
	res, err := Run(ctx, f, iterationConfig(2, 1_000_000), &captureOutput{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != metrics.StatusInterrupted || res.Commits == 0 || res.Commits >= 2_000_000 {
		t.Fatalf("status %s with %d commits", res.Status, res.Commits)
	}
	if res.Measured < 250*time.Millisecond || res.Measured > 600*time.Millisecond {
		t.Errorf("measured %s, want about the 300 ms before the interrupt", res.Measured)
	}
}

func TestIterationsValidate(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		cfg Config
		ok  bool
	}{
		{Config{VUs: 1, Iterations: 5, Interval: time.Second}, true}, // no duration needed
		{Config{VUs: 1, Iterations: -1, Duration: time.Second, Interval: time.Second}, false},
		{Config{VUs: 1, Iterations: 5, Rampup: time.Second, Interval: time.Second}, false},
		{Config{VUs: 1, Duration: 0, Interval: time.Second}, false}, // a timed run needs one
	} {
		if err := c.cfg.Validate(); (err == nil) != c.ok {
			t.Errorf("%+v: %v, want ok %v", c.cfg, err, c.ok)
		}
	}
	// Boundaries go on every interval: the VUs' end closes the window.
	cfg := Config{Iterations: 5, Duration: time.Second, Interval: 10 * time.Second}
	if got := nextBoundary(30*time.Second, true, 0, cfg); got != 40*time.Second {
		t.Errorf("next boundary %s, want 40s (no duration caps it)", got)
	}
}
