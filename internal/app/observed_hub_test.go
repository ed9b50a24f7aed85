package app

import (
	"bytes"
	"context"
	"sync"
	"testing"
	"time"

	"github.com/sledge-bench/sledge/internal/config"
	"github.com/sledge-bench/sledge/internal/db"
	"github.com/sledge-bench/sledge/internal/metrics"
	"github.com/sledge-bench/sledge/internal/observe"
	"github.com/sledge-bench/sledge/internal/output"
)

// hubProbe is a fake observer that, at each cut, looks at what the live hub
// holds of its job: the previous cut's snapshot must be there by then.
type hubProbe struct {
	*fakeObserver
	hub *output.Hub

	mu   sync.Mutex
	seen [][]output.Observed // at each cut, the job's observers in the hub
}

func (p *hubProbe) Cut(elapsed time.Duration) observe.Snapshot {
	var obs []output.Observed
	for _, j := range p.hub.Live() {
		obs = append(obs, j.Observed...)
	}
	p.mu.Lock()
	p.seen = append(p.seen, obs)
	p.mu.Unlock()
	return p.fakeObserver.Cut(elapsed)
}

// TestRunObservedPublishesToHub: while a job runs, the hub holds each
// observer's latest snapshot (for /metrics), under the observer's name and
// index; once the job has ended it holds nothing of it.
func TestRunObservedPublishesToHub(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs on SQLite")
	}
	parallel(t)
	svc, _ := newService(t)
	ctx := context.Background()
	target := tpccSQLite(t, "h.db")
	hub := svc.opts.Hub
	probe := &hubProbe{fakeObserver: &fakeObserver{name: "Fake sessions"}, hub: hub}
	host := &fakeObserver{name: "client host"}
	svc.opts.Observers = func(db.Target, config.Spec) []observe.Observer {
		return []observe.Observer{probe, host}
	}
	sp := config.New(config.KindRun)
	sp.DB, sp.VU, sp.Metrics = target, 1, "on"
	sp.Rampup, sp.Duration, sp.Interval = 0, config.Duration(1500*time.Millisecond), config.Duration(500*time.Millisecond)
	var out bytes.Buffer
	o, err := svc.Run(ctx, Request{Spec: sp, Console: &out})
	if err != nil || o.Status != metrics.StatusCompleted {
		t.Fatalf("run: %+v %v\n%s", o, err, out.String())
	}

	probe.mu.Lock()
	seen := probe.seen
	probe.mu.Unlock()
	if len(seen) < 3 {
		t.Fatalf("%d cuts, want at least 3", len(seen))
	}
	if len(seen[0]) != 0 {
		t.Errorf("before the first cut the hub held %+v", seen[0])
	}
	// At cut n (from 1), the hub holds cut n-1's snapshots: the fake's
	// counter is its number of cuts.
	for n := 1; n < len(seen); n++ {
		got := seen[n]
		if len(got) != 2 {
			t.Errorf("at cut %d the hub held %d observers, want 2: %+v", n+1, len(got), got)
			continue
		}
		for i, want := range []string{"Fake sessions", "client host"} {
			ob := got[i]
			if ob.Index != i || ob.Observer != want || ob.Snapshot.Samples != 5 ||
				len(ob.Snapshot.Counters) != 1 || ob.Snapshot.Counters[0].Value != float64(n) {
				t.Errorf("at cut %d, observer %d in the hub is %+v, want %q after cut %d", n+1, i, ob, want, n)
			}
		}
	}
	if live := hub.Live(); len(live) != 0 {
		t.Errorf("after the run the hub holds %+v", live)
	}
}
