package output

import (
	"sort"
	"sync"

	"github.com/sledge-bench/sledge/internal/metrics"
	"github.com/sledge-bench/sledge/internal/observe"
)

// Hub holds the live state of the jobs running in this process and hands
// it to subscribers as it happens: the HTTP event stream and the Prometheus
// collector read it instead of polling the repository.
type Hub struct {
	mu   sync.Mutex
	live map[int64]*liveJob
}

// NewHub returns an empty hub.
func NewHub() *Hub { return &Hub{live: map[int64]*liveJob{}} }

// Event is what a subscriber receives.
type Event struct {
	// Interval is set for a monitor tick; nil for the end of the job.
	Interval *metrics.Interval
}

// subscriberBuffer is how many events a subscriber may fall behind before
// it is dropped (its channel closed without an end event; it can then read
// what it missed from the repository).
const subscriberBuffer = 256

type liveJob struct {
	id        int64
	workload  string
	segment   string // an agent's segment of a run of several; "" for a job of its own
	intervals []metrics.Interval
	totals    map[string]TxTotals
	subs      map[chan Event]struct{}
	// observed is each observer's latest snapshot, by its index in the run
	// (names may repeat: two hosts may both be "database host"). Only the
	// latest is kept: the repository holds the series.
	observed map[int]Observed
}

// maxObservers bounds the observers a job keeps in the hub: a run has a
// handful; an index beyond this is a bug upstream, not a reason to grow.
const maxObservers = 64

// Observed is one observer's latest snapshot in a running job.
type Observed struct {
	Index    int    // the observer's position in the run
	Observer string // what it observes, e.g. "client host"
	// Snapshot is shared, not copied: neither the hub nor its readers
	// modify it.
	Snapshot observe.Snapshot
}

// TxTotals are a transaction type's counts since the job started.
type TxTotals struct {
	Count, Errors int64
}

// LiveJob is a snapshot of one running job.
type LiveJob struct {
	ID       int64
	Workload string
	// Segment is set when this process runs one agent of a run driven by
	// several (config.Segment): the numbers are then the agent's share.
	Segment string
	// Last is the latest interval, nil before the first.
	Last *metrics.Interval
	// Totals by transaction name, ramp-up included.
	Totals map[string]TxTotals
	// Observed is each observer's latest snapshot, in the run's order;
	// empty before the first cut or when the job is not observed.
	Observed []Observed
}

// Open registers a running job and returns the sink that feeds the hub.
func (h *Hub) Open(id int64, workload string) Sink { return h.OpenAgent(id, workload, "") }

// OpenAgent registers this process's agent (segment) of running job id, a
// run driven by several processes: its numbers are its share, exported as
// the agent's, and the job's event stream is not the agent's (Subscribe
// refuses it: watchers follow the merged series in the repository).
func (h *Hub) OpenAgent(id int64, workload, segment string) Sink {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.live[id] = &liveJob{id: id, workload: workload, segment: segment, totals: map[string]TxTotals{},
		subs: map[chan Event]struct{}{}, observed: map[int]Observed{}}
	return hubSink{h: h, id: id}
}

// Subscribe returns a running job's intervals so far (the per-VU rows only
// in the latest) and a channel of what follows; the channel gets an end event (Interval nil) and is closed when
// the job ends. ok is false when the job is not running in this process.
// cancel unsubscribes.
func (h *Hub) Subscribe(id int64) (past []metrics.Interval, events <-chan Event, cancel func(), ok bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	j, ok := h.live[id]
	if !ok || j.segment != "" {
		return nil, nil, func() {}, false
	}
	ch := make(chan Event, subscriberBuffer)
	j.subs[ch] = struct{}{}
	past = append([]metrics.Interval(nil), j.intervals...)
	return past, ch, func() {
		h.mu.Lock()
		defer h.mu.Unlock()
		if _, still := j.subs[ch]; still {
			delete(j.subs, ch)
			close(ch)
		}
	}, true
}

// Live returns a snapshot of every running job, by id.
func (h *Hub) Live() []LiveJob {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := make([]LiveJob, 0, len(h.live))
	for _, j := range h.live {
		lj := LiveJob{ID: j.id, Workload: j.workload, Segment: j.segment, Totals: make(map[string]TxTotals, len(j.totals))}
		for k, v := range j.totals {
			lj.Totals[k] = v
		}
		if n := len(j.intervals); n > 0 {
			last := j.intervals[n-1]
			lj.Last = &last
		}
		for _, o := range j.observed {
			lj.Observed = append(lj.Observed, o)
		}
		sort.Slice(lj.Observed, func(a, b int) bool { return lj.Observed[a].Index < lj.Observed[b].Index })
		out = append(out, lj)
	}
	sort.Slice(out, func(a, b int) bool { return out[a].ID < out[b].ID })
	return out
}

func (h *Hub) publish(id int64, iv metrics.Interval) {
	h.mu.Lock()
	defer h.mu.Unlock()
	j, ok := h.live[id]
	if !ok {
		return
	}
	// History for late subscribers, without the per-VU rows: those matter
	// only for the latest interval, and kept for every interval they would
	// grow with VUs × the run's length (10,000 VUs for an hour: ~170 MB).
	if n := len(j.intervals); n > 0 {
		j.intervals[n-1].VUs = nil
	}
	j.intervals = append(j.intervals, iv)
	for _, t := range iv.Tx {
		tt := j.totals[t.Name]
		tt.Count += t.Count
		tt.Errors += t.Errors
		j.totals[t.Name] = tt
	}
	for ch := range j.subs {
		select {
		case ch <- Event{Interval: &iv}:
		default: // too far behind: drop it rather than stall the run
			delete(j.subs, ch)
			close(ch)
		}
	}
}

// Observed records observer idx's latest snapshot of running job id,
// replacing the one before. A job that is not running (not opened, or
// already ended: the observers' last cut may come after the job's end) is
// ignored, so the hub never holds a finished job's figures.
func (h *Hub) Observed(id int64, idx int, observer string, s observe.Snapshot) {
	if idx < 0 || idx >= maxObservers {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	j, ok := h.live[id]
	if !ok {
		return
	}
	j.observed[idx] = Observed{Index: idx, Observer: observer, Snapshot: s}
}

func (h *Hub) end(id int64) {
	h.mu.Lock()
	defer h.mu.Unlock()
	j, ok := h.live[id]
	if !ok {
		return
	}
	delete(h.live, id)
	for ch := range j.subs {
		select {
		case ch <- Event{}:
		default:
		}
		delete(j.subs, ch) // so that a later cancel does not close it again
		close(ch)
	}
}

type hubSink struct {
	h  *Hub
	id int64
}

func (s hubSink) Line(string)                  {}
func (s hubSink) Interval(iv metrics.Interval) { s.h.publish(s.id, iv) }
func (s hubSink) Close() error                 { s.h.end(s.id); return nil }
