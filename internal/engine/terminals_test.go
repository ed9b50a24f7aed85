package engine

import (
	"runtime"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// Terminals are data, not goroutines: 2,000 paced terminals over 4
// sessions run on a handful of goroutines (a goroutine per terminal made
// every transaction wake parked ones). Not parallel: it counts the
// process's goroutines, which the parallel tests would add to.
func TestTerminalsAreNotGoroutines(t *testing.T) {
	const n = 2000
	f := &poolWorkload{service: time.Millisecond, keying: 100 * time.Millisecond, think: 100 * time.Millisecond}
	before := runtime.NumGoroutine()
	var peak atomic.Int64
	done, sampled := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(sampled)
		tick := time.NewTicker(5 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
				peak.Store(max(peak.Load(), int64(runtime.NumGoroutine())))
			}
		}
	}()
	res := runLoad(t, pacedPool{f}, Config{Terminals: n, Connections: 4, Duration: time.Second, Pacing: 1})
	close(done)
	<-sampled
	if f.terminalsN.Load() != n || f.sessions.Load() != 4 {
		t.Fatalf("%d terminals over %d sessions, want %d over 4", f.terminalsN.Load(), f.sessions.Load(), n)
	}
	if res.Commits == 0 {
		t.Fatal("no transaction committed")
	}
	if extra := peak.Load() - int64(before); extra >= n/10 {
		t.Errorf("%d goroutines more than before the run at its peak, for %d terminals over 4 sessions: want far fewer than one per terminal", extra, n)
	}
}

// The run's end cuts the terminals' think times: each terminal ran its
// first transaction, then thinks for about an hour, and the run still
// ends when its window does (a wait not cut would hold it for the hour).
func TestTerminalsStopInThinkTime(t *testing.T) {
	t.Parallel()
	f := &poolWorkload{service: time.Millisecond, think: time.Hour}
	res := runLoad(t, pacedPool{f}, Config{Terminals: 3, Connections: 2, Duration: 300 * time.Millisecond,
		Interval: 100 * time.Millisecond, Pacing: 1})
	if res.Commits < 3 {
		t.Errorf("%d commits, want one per terminal before its think time", res.Commits)
	}
	found := false
	for _, a := range res.Audit {
		found = found || strings.HasPrefix(a.Name, "think time ")
	}
	if !found {
		t.Errorf("audit %+v: want the think times drawn after the first transactions", res.Audit)
	}
}

// The due heap gives its terminals back in due order, whatever order they
// came in.
func TestDueHeapOrder(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		init []time.Duration // built by appending, then init
		push []time.Duration
	}{
		{"empty", nil, nil},
		{"pushed", nil, []time.Duration{5, 1, 4, 1, 9, 2, 6}},
		{"built", []time.Duration{9, 8, 7, 6, 5, 4, 3, 2, 1, 0}, nil},
		{"both", []time.Duration{3, 3, 1}, []time.Duration{2, 0, 7, 3}},
	} {
		var h dueHeap
		for _, at := range tc.init {
			h = append(h, dueEntry{at, &terminal{at: at}})
		}
		h.init()
		for _, at := range tc.push {
			h.push(&terminal{at: at})
		}
		var got []time.Duration
		for len(h) > 0 {
			got = append(got, h.pop().at)
		}
		if len(got) != len(tc.init)+len(tc.push) || !slices.IsSorted(got) {
			t.Errorf("%s: popped %v, want all of %v and %v in order", tc.name, got, tc.init, tc.push)
		}
	}
}
