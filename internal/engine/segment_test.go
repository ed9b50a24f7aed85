package engine

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sledge-bench/sledge/internal/metrics"
	"github.com/sledge-bench/sledge/internal/workload"
)

// numberedWorkload is the fake workload recording the VU numbers its
// workers are created with, and when the first was.
type numberedWorkload struct {
	fakeWorkload
	mu    sync.Mutex
	vus   []int
	first time.Time
}

func (f *numberedWorkload) NewWorker(ctx context.Context, vu int) (workload.Worker, error) {
	f.mu.Lock()
	f.vus = append(f.vus, vu)
	if f.first.IsZero() {
		f.first = time.Now()
	}
	f.mu.Unlock()
	return f.fakeWorkload.NewWorker(ctx, vu)
}

func (f *numberedWorkload) created() ([]int, time.Time) {
	f.mu.Lock()
	defer f.mu.Unlock()
	vus := slices.Clone(f.vus)
	slices.Sort(vus)
	return vus, f.first
}

// timedOutput records when each interval was reported.
type timedOutput struct {
	captureOutput
	mu sync.Mutex
	at []time.Time
}

func (o *timedOutput) Interval(iv metrics.Interval) {
	o.mu.Lock()
	o.at = append(o.at, time.Now())
	o.mu.Unlock()
	o.captureOutput.Interval(iv)
}

func TestFirstVUNumbersGlobally(t *testing.T) {
	t.Parallel()
	f := &numberedWorkload{}
	out := &captureOutput{}
	cfg := testConfig()
	cfg.FirstVU = 7
	res, err := Run(context.Background(), f, cfg, out)
	if err != nil {
		t.Fatal(err)
	}
	if res.VUs != 3 || res.Commits == 0 {
		t.Fatalf("VUs %d, commits %d", res.VUs, res.Commits)
	}
	if vus, _ := f.created(); !slices.Equal(vus, []int{7, 8, 9}) {
		t.Errorf("workers created for VUs %v, want 7, 8, 9 (0-based, the run's numbers)", vus)
	}
	if len(out.intervals) == 0 {
		t.Fatal("no intervals")
	}
	for _, iv := range out.intervals {
		var got []int
		for _, v := range iv.VUs {
			got = append(got, v.VU)
		}
		if !slices.Equal(got, []int{8, 9, 10}) {
			t.Errorf("interval %d numbers its VUs %v, want 8, 9, 10 (1-based, the run's numbers)", iv.Seq, got)
		}
	}
	// FirstVU 0 is the whole run's numbering, as before.
	f0, out0 := &numberedWorkload{}, &captureOutput{}
	if _, err := Run(context.Background(), f0, testConfig(), out0); err != nil {
		t.Fatal(err)
	}
	if vus, _ := f0.created(); !slices.Equal(vus, []int{0, 1, 2}) || out0.intervals[0].VUs[0].VU != 1 {
		t.Errorf("FirstVU 0: workers %v, first row VU %d", vus, out0.intervals[0].VUs[0].VU)
	}
	bad := testConfig()
	bad.FirstVU = -1
	if err := bad.Validate(); err == nil {
		t.Error("a negative FirstVU validates")
	}
}

// TestSharedStartAligns: two runs given the same StartAt — as two agents
// of one run — start then, not before, and tick on the same boundaries,
// reported at the same wall-clock instants.
func TestSharedStartAligns(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name string
		cfg  Config
	}{
		{"ramp-up", Config{VUs: 2, Rampup: 300 * time.Millisecond, Duration: 500 * time.Millisecond, Interval: 200 * time.Millisecond}},
		{"no ramp-up", Config{VUs: 2, Duration: 500 * time.Millisecond, Interval: 200 * time.Millisecond}},
		{"iterations", Config{VUs: 2, Iterations: 300, Interval: 200 * time.Millisecond}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			noise := measureNoise(t)
			start := time.Now().Add(400 * time.Millisecond)
			type agent struct {
				f   *numberedWorkload
				out *timedOutput
				res *metrics.RunResult
				err error
			}
			agents := make([]*agent, 2)
			var wg sync.WaitGroup
			for i := range agents {
				a := &agent{f: &numberedWorkload{}, out: &timedOutput{}}
				agents[i] = a
				cfg := c.cfg
				cfg.StartAt, cfg.FirstVU, cfg.Partial = start, i*cfg.VUs, true
				wg.Go(func() { a.res, a.err = Run(context.Background(), a.f, cfg, a.out) })
			}
			wg.Wait()
			var elapsed [2][]time.Duration
			for i, a := range agents {
				if a.err != nil {
					t.Fatalf("agent %d: %v", i, a.err)
				}
				if a.res.Status != metrics.StatusCompleted {
					t.Fatalf("agent %d: status %s", i, a.res.Status)
				}
				_, first := a.f.created()
				if d := first.Sub(start); d < 0 || d > noise.bound(100*time.Millisecond) {
					t.Errorf("agent %d: first VU started %s after the shared start, want within a few ms of it (never before)", i, d)
				}
				for j, iv := range a.out.intervals {
					elapsed[i] = append(elapsed[i], iv.Elapsed)
					// Reported when its boundary came, on the shared clock.
					if late := a.out.at[j].Sub(start.Add(iv.Elapsed)); late < 0 || late > noise.bound(250*time.Millisecond) {
						t.Errorf("agent %d: interval %d (ends %s) reported %s after its instant", i, iv.Seq, iv.Elapsed, late)
					}
				}
			}
			if c.cfg.Iterations > 0 {
				// The VUs' own end closes an iteration run's window; the
				// boundaries before it are shared.
				n := min(len(elapsed[0]), len(elapsed[1])) - 1
				if n < 0 || !slices.Equal(elapsed[0][:n], elapsed[1][:n]) {
					t.Errorf("interval ends %v and %v differ before the last", elapsed[0], elapsed[1])
				}
				for _, e := range elapsed[0][:max(n, 0)] {
					if e%c.cfg.Interval != 0 {
						t.Errorf("interval end %s is off the %s boundaries", e, c.cfg.Interval)
					}
				}
				return
			}
			if !slices.Equal(elapsed[0], elapsed[1]) {
				t.Fatalf("interval ends %v and %v differ", elapsed[0], elapsed[1])
			}
			for _, e := range elapsed[0] {
				off := e - c.cfg.Rampup
				if e > c.cfg.Rampup && off%c.cfg.Interval != 0 && off != c.cfg.Duration || e < c.cfg.Rampup && e%c.cfg.Interval != 0 {
					t.Errorf("interval end %s is off the boundaries (ramp-up %s, interval %s, window %s)", e, c.cfg.Rampup, c.cfg.Interval, c.cfg.Duration)
				}
			}
			if last := elapsed[0][len(elapsed[0])-1]; last != c.cfg.Rampup+c.cfg.Duration {
				t.Errorf("last interval ends at %s, want the window's end %s", last, c.cfg.Rampup+c.cfg.Duration)
			}
		})
	}
}

func TestSharedStartTooLate(t *testing.T) {
	t.Parallel()
	f := &numberedWorkload{}
	cfg := testConfig()
	cfg.StartAt = time.Now().Add(-cfg.Interval - 300*time.Millisecond)
	_, err := Run(context.Background(), f, cfg, &captureOutput{})
	if err == nil || !strings.Contains(err.Error(), "too late to join") || !strings.Contains(err.Error(), "the shared start") {
		t.Fatalf("error %v, want too late to join", err)
	}
	if vus, _ := f.created(); len(vus) != 0 {
		t.Errorf("VUs %v started", vus)
	}
	// Less than an interval late: it joins, on the shared clock.
	cfg.StartAt = time.Now().Add(-cfg.Interval / 2)
	out := &captureOutput{}
	res, err := Run(context.Background(), f, cfg, out)
	if err != nil || res.Status != metrics.StatusCompleted {
		t.Fatalf("half an interval late: %v %v", res, err)
	}
	if last := out.intervals[len(out.intervals)-1].Elapsed; last != cfg.Rampup+cfg.Duration {
		t.Errorf("last interval ends at %s, want %s", last, cfg.Rampup+cfg.Duration)
	}
}

func TestSharedStartCancelledBefore(t *testing.T) {
	t.Parallel()
	f := &numberedWorkload{}
	cfg := testConfig()
	cfg.StartAt = time.Now().Add(10 * time.Second)
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	began := time.Now()
	out := &captureOutput{}
	res, err := Run(ctx, f, cfg, out)
	if took := time.Since(began); took > time.Second {
		t.Errorf("returned %s after the start, %s after the cancel", took, took-50*time.Millisecond)
	}
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != metrics.StatusInterrupted || res.Measured != 0 || res.Commits != 0 || res.DBCheckUnavailable == "" {
		t.Errorf("result %+v, want an interrupted one with nothing measured", res)
	}
	if vus, _ := f.created(); len(vus) != 0 || len(out.intervals) != 0 {
		t.Errorf("VUs %v started, %d intervals", vus, len(out.intervals))
	}
}

// TestPartialCrossCheck: an agent's client counts its own New-Orders, the
// database every agent's: the check's numbers are kept for the merge, but
// the part warns of no disagreement.
func TestPartialCrossCheck(t *testing.T) {
	t.Parallel()
	f := &fakeWorkload{}
	cfg := testConfig()
	cfg.Partial = true
	// Another agent's New-Orders, as the database counts them.
	stop := make(chan struct{})
	go func() {
		for {
			select {
			case <-stop:
				return
			case <-time.After(time.Millisecond):
				f.headline.Add(5)
			}
		}
	}()
	res, err := Run(context.Background(), f, cfg, &captureOutput{})
	close(stop)
	if err != nil {
		t.Fatal(err)
	}
	if !res.HasDBCheck || res.DBNewOrders <= res.NewOrders || res.NOPMDBCheck <= 0 || res.DBCheckAllowance <= 0 {
		t.Errorf("the check's numbers are not kept: has %v, database %d, client %d, allowance %d",
			res.HasDBCheck, res.DBNewOrders, res.NewOrders, res.DBCheckAllowance)
	}
	for _, w := range res.Warnings {
		if strings.Contains(w, "New-Orders") {
			t.Errorf("warning %q", w)
		}
	}
}
