package engine

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sledge-bench/sledge/internal/metrics"
	"github.com/sledge-bench/sledge/internal/workload"
)

// hangWorkload is a database that can hang: while hung, every statement
// waits (no error, no reply) until released or cancelled, as on a server
// stopped with SIGSTOP or blocked on a full disk.
type hangWorkload struct {
	fakeWorkload
	mu      sync.Mutex
	release chan struct{} // closed when the hang ends; nil: not hung
	hungAt  time.Time
	freedAt time.Time
}

func (h *hangWorkload) NewWorker(ctx context.Context, vu int) (workload.Worker, error) {
	return &hangWorker{fakeWorker: fakeWorker{f: &h.fakeWorkload}, h: h}, nil
}

func (h *hangWorkload) hang() {
	h.mu.Lock()
	h.release, h.hungAt = make(chan struct{}), time.Now()
	h.mu.Unlock()
}

func (h *hangWorkload) free() {
	h.mu.Lock()
	close(h.release)
	h.release, h.freedAt = nil, time.Now()
	h.mu.Unlock()
}

type hangWorker struct {
	fakeWorker
	h *hangWorkload
}

func (w *hangWorker) Execute(ctx context.Context) error {
	w.h.mu.Lock()
	release := w.h.release
	w.h.mu.Unlock()
	if release != nil {
		select {
		case <-release:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return w.fakeWorker.Execute(ctx)
}

// TestStallInWindow hangs the database in the middle of the window: the run
// is degraded, its disruption account has one stall that ended, as long as
// the hang (it starts at the last completion before it and ends at the first
// after), with every session waiting; no session was lost and no outage is
// reported.
func TestStallInWindow(t *testing.T) {
	t.Parallel()
	h := &hangWorkload{}
	var c clockStart
	cfg := Config{VUs: 3, Rampup: 200 * time.Millisecond, Duration: 3 * time.Second, Interval: 200 * time.Millisecond,
		StallAfter: 300 * time.Millisecond, Started: c.started}
	const hangFor = time.Second
	c.at(time.Second, func() {
		h.hang()
		time.Sleep(hangFor)
		h.free()
	})
	out := &captureOutput{}
	res, err := Run(context.Background(), h, cfg, out)
	if err != nil {
		t.Fatal(err)
	}
	d := res.Disruption
	if res.Status != metrics.StatusDegraded || d == nil || len(d.Stalls) != 1 || len(d.Outages) != 0 {
		t.Fatalf("status %s, disruption %+v, want degraded with one stall", res.Status, d)
	}
	s := d.Stalls[0]
	truth := h.freedAt.Sub(h.hungAt)
	if !s.Ended || s.Duration() < truth-time.Second || s.Duration() > truth+time.Second {
		t.Errorf("stall %+v (%.2f s), the hang lasted %.2f s", s, s.Duration().Seconds(), truth.Seconds())
	}
	// (Transactions in hand when it hung still complete: on a busy
	// machine, some milliseconds after.)
	if start := c.since(h.hungAt); s.Start > start+time.Second || s.Start < start-time.Second {
		t.Errorf("stall starts at %v, the hang at %v", s.Start, start)
	}
	if s.VUs != 3 || s.LongestWait < s.Duration() || d.Sessions != 3 || d.StallAfter != cfg.StallAfter {
		t.Errorf("stall %+v in %+v: want 3 of 3 sessions waiting, the longest wait at least the stall", s, d)
	}
	if !hasWarning(res, "the database stalled: no transaction ended for") || hasWarning(res, "out of service") {
		t.Errorf("warnings %q", res.Warnings)
	}
	if len(d.Pauses) != 0 {
		t.Errorf("pauses %+v: the client ran throughout", d.Pauses)
	}
}

// TestStallAcrossWindowEnd: a database that hangs until after the window's
// end (the VUs are cancelled at the stop grace) leaves a degraded run whose
// stall had not ended, and the window-end probe's failure does not skip the
// status decision.
func TestStallAcrossWindowEnd(t *testing.T) {
	t.Parallel()
	h := &hangWorkload{}
	var c clockStart
	cfg := Config{VUs: 2, Rampup: 200 * time.Millisecond, Duration: 1500 * time.Millisecond, Interval: 200 * time.Millisecond,
		StallAfter: 300 * time.Millisecond, StopGrace: 200 * time.Millisecond, Started: c.started}
	c.at(time.Second, h.hang)
	res, err := Run(context.Background(), h, cfg, &captureOutput{})
	if err != nil {
		t.Fatal(err)
	}
	d := res.Disruption
	if res.Status != metrics.StatusDegraded || d == nil || len(d.Stalls) != 1 || d.Stalls[0].Ended {
		t.Fatalf("status %s, disruption %+v, want degraded with a stall still on at the end", res.Status, d)
	}
	if !hasWarning(res, "had not ended when the run stopped") {
		t.Errorf("warnings %q", res.Warnings)
	}
}

// TestNoStall: the quiet spans of a healthy run are not stalls — paced VUs
// thinking longer than the threshold have nothing in hand — and a negative
// StallAfter turns detection off even through a hang.
func TestNoStall(t *testing.T) {
	t.Parallel()
	t.Run("thinking", func(t *testing.T) {
		t.Parallel()
		p := &pacedWorkload{think: [2]time.Duration{400 * time.Millisecond, 400 * time.Millisecond}}
		cfg := Config{VUs: 2, Duration: 1500 * time.Millisecond, Interval: 100 * time.Millisecond, Pacing: 1,
			StallAfter: 100 * time.Millisecond}
		res, err := Run(context.Background(), p, cfg, &captureOutput{})
		if err != nil {
			t.Fatal(err)
		}
		if res.Disruption != nil && len(res.Disruption.Stalls) > 0 {
			t.Errorf("stalls %+v in a run that only thought", res.Disruption.Stalls)
		}
	})
	t.Run("off", func(t *testing.T) {
		t.Parallel()
		h := &hangWorkload{}
		var c clockStart
		cfg := Config{VUs: 2, Duration: 1500 * time.Millisecond, Interval: 200 * time.Millisecond,
			StallAfter: -1, Started: c.started}
		c.at(300*time.Millisecond, func() {
			h.hang()
			time.Sleep(700 * time.Millisecond)
			h.free()
		})
		res, err := Run(context.Background(), h, cfg, &captureOutput{})
		if err != nil {
			t.Fatal(err)
		}
		if res.Disruption != nil && len(res.Disruption.Stalls) > 0 {
			t.Errorf("stalls %+v with stall detection off", res.Disruption.Stalls)
		}
	})
}

// TestDisruptionWarnings words each kind as what happened: some sessions
// lost are not an outage of the database.
func TestDisruptionWarnings(t *testing.T) {
	t.Parallel()
	s := func(f float64) time.Duration { return time.Duration(f * float64(time.Second)) }
	outage := func(vus int) metrics.Outage {
		return metrics.Outage{Start: s(5), AllBack: s(6), Reconnected: true, Resumed: s(6.5), Recovered: true, VUs: vus}
	}
	lost := func(n int) []metrics.ConnectionEvent {
		var out []metrics.ConnectionEvent
		for i := range n {
			out = append(out, metrics.ConnectionEvent{VU: i + 1, LostAt: s(5)})
		}
		return out
	}
	for _, tc := range []struct {
		name string
		d    metrics.Disruption
		want []string
	}{
		{"one session of four", metrics.Disruption{Sessions: 4, Outages: []metrics.Outage{outage(1)}, Connections: lost(1)},
			[]string{"1 of the 4 sessions lost their connection to the database during the measured window (first at 5.0 s), all back 1.5 s after the first loss"}},
		{"every session", metrics.Disruption{Sessions: 4, Outages: []metrics.Outage{outage(4)}, Connections: lost(4)},
			[]string{"the database was out of service during the measured window: all 4 sessions lost their connection (first at 5.0 s), service resumed after 1.5 s"}},
		{"stall", metrics.Disruption{Sessions: 4, Stalls: []metrics.Stall{{Start: s(3), End: s(13.25), Ended: true, VUs: 4, LongestWait: s(10.5)}}},
			[]string{"the database stalled: no transaction ended for 10.2 s from 3.0 s while 4 of 4 sessions waited on it (the longest wait 10.5 s)"}},
		{"pause", metrics.Disruption{Sessions: 4, Pauses: []metrics.Pause{{Start: s(20), End: s(40)}}},
			[]string{"the client was paused for 20.0 s at 20.0 s"}},
		{"outside the window", metrics.Disruption{Sessions: 4, Pauses: []metrics.Pause{{Start: s(61), End: s(70)}}}, nil},
	} {
		tc.d.WindowStart, tc.d.WindowEnd = s(1), s(60)
		got := disruptionWarnings(&tc.d)
		if len(got) != len(tc.want) {
			t.Errorf("%s: %q, want %d lines", tc.name, got, len(tc.want))
			continue
		}
		for i, w := range tc.want {
			if !strings.HasPrefix(got[i], w) {
				t.Errorf("%s: %q, want it to start %q", tc.name, got[i], w)
			}
		}
	}
}
