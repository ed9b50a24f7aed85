package engine

import (
	"maps"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sledge-bench/sledge/internal/db"
	"github.com/sledge-bench/sledge/internal/metrics"
)

// tracker keeps the account of lost sessions as the VUs report them. An
// outage opens at the first connection error and closes at the first commit
// that ends after every VU that lost its session has a new one: that commit
// is service resumed. Failures in between are the outage's lost
// transactions.
//
// The VUs report every commit, so the common case — no outage — is one
// atomic load; the mutex is taken only while an outage is open and for the
// rare connection events.
type tracker struct {
	out  Output
	open atomic.Bool // an outage is open: failures and commits must report

	mu      sync.Mutex
	outages []metrics.Outage
	events  []metrics.ConnectionEvent
	cur     int          // index of the open outage in outages; -1 when none
	down    int          // VUs of the open outage still without a session
	vus     map[int]bool // VUs that lost their session in the open outage
}

func newTracker(out Output) *tracker { return &tracker{out: out, cur: -1} }

// lost records that VU vu's transaction failed at `at` with a connection
// error (class cls): its session is gone. It returns the event's index, for
// reconnected.
func (t *tracker) lost(vu int, at time.Duration, cls db.ErrorClass) int {
	t.mu.Lock()
	opened := t.cur < 0
	if opened {
		t.outages = append(t.outages, metrics.Outage{Start: at, Lost: map[string]int64{}})
		t.cur = len(t.outages) - 1
		t.vus = map[int]bool{}
		t.open.Store(true)
	}
	o := &t.outages[t.cur]
	o.Lost[cls.String()]++
	if !t.vus[vu] {
		t.vus[vu] = true
		o.VUs++
	}
	o.Reconnected = false
	t.down++
	t.events = append(t.events, metrics.ConnectionEvent{VU: vu + 1, LostAt: at})
	ev := len(t.events) - 1
	t.mu.Unlock()
	if opened {
		t.out.Logf("outage: vu %d lost its database session at %.1f s; counting until service resumes", vu+1, at.Seconds())
	}
	return ev
}

// reconnected records how VU event ev's reconnect ended at `at`: ok when the
// VU has a new session, after attempts tries.
func (t *tracker) reconnected(ev int, ok bool, at time.Duration, attempts int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	e := &t.events[ev]
	e.Attempts = attempts
	if !ok {
		return // the run stopped first: the outage stays open
	}
	e.Reconnected, e.ReconnectedAt = true, at
	t.down--
	if t.cur >= 0 && t.down == 0 {
		o := &t.outages[t.cur]
		o.AllBack, o.Reconnected = at, true
	}
}

// failed counts a transaction that failed at `at` with class cls (not a lost
// session) against the open outage, if any.
func (t *tracker) failed(at time.Duration, cls db.ErrorClass) {
	if !t.open.Load() {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.cur >= 0 && at >= t.outages[t.cur].Start {
		t.outages[t.cur].Lost[cls.String()]++
	}
}

// committed closes the open outage when this commit, ending at `at`, is the
// first after every VU got its session back.
func (t *tracker) committed(at time.Duration) {
	if !t.open.Load() {
		return
	}
	t.mu.Lock()
	if t.cur < 0 || t.down > 0 || at < t.outages[t.cur].AllBack {
		t.mu.Unlock()
		return
	}
	o := &t.outages[t.cur]
	o.Resumed, o.Recovered = at, true
	ttr := o.TimeToRecover()
	t.cur = -1
	t.open.Store(false)
	t.mu.Unlock()
	t.out.Logf("outage: service resumed at %.1f s, %.1f s after the first connection error", at.Seconds(), ttr.Seconds())
}

// account returns a copy of what was recorded: outages and connection
// events.
func (t *tracker) account() *metrics.Disruption {
	t.mu.Lock()
	defer t.mu.Unlock()
	d := &metrics.Disruption{
		Outages:     append([]metrics.Outage(nil), t.outages...),
		Connections: append([]metrics.ConnectionEvent(nil), t.events...),
	}
	for i := range d.Outages {
		d.Outages[i].Lost = maps.Clone(t.outages[i].Lost)
	}
	return d
}
