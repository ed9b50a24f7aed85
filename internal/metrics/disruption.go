package metrics

import "time"

// Monitor probe edges (MonitorGap.Edge).
const (
	EdgeWindowStart = "window start"
	EdgeWindowEnd   = "window end"
)

// Disruption is the account of what kept a run from measuring a healthy
// database: when virtual users lost their database sessions and got them
// back, how long service took to resume and what failed meanwhile (outages);
// spans in which sessions were connected and waiting but nothing completed
// (stalls); spans in which the client itself did not run (pauses); which
// measured intervals had no commits; and which of the monitor's probes of
// the database could not be read. Times are since the run started, like
// Interval.Elapsed.
type Disruption struct {
	// WindowStart and WindowEnd place the measured window on the run's
	// clock (WindowEnd is 0 when the run ended before the window opened).
	WindowStart, WindowEnd time.Duration
	// Outages in order: each from a first connection error to the first
	// commit after every virtual user that lost its session had a new one.
	Outages []Outage
	// Connections is every loss of a virtual user's session, in order.
	Connections []ConnectionEvent
	// Sessions is how many sessions the run had (the VUs, or a pool's
	// connections): the share of them an outage touched.
	Sessions int
	// StallAfter is the threshold: no completion for longer than this, with
	// transactions waiting, is a stall; the client not running for longer,
	// a pause. 0 when not recorded (a job stored before stalls were).
	StallAfter time.Duration
	// Stalls in order: each a span with sessions connected and
	// transactions in hand, in which none completed.
	Stalls []Stall
	// Pauses in order: spans in which the client process did not run.
	Pauses []Pause
	// IdleIntervals are the measured intervals in which nothing committed.
	IdleIntervals []IdleInterval
	// MonitorGaps are the window-edge probes of the database's counters that
	// could not be read (the cross-check and the server's TPM are then
	// absent).
	MonitorGaps []MonitorGap
}

// Outage is a stretch of the run during which virtual users had lost their
// database sessions.
type Outage struct {
	// Start is the first connection error.
	Start time.Duration
	// AllBack is when the last virtual user that lost its session had a new
	// one; valid when Reconnected.
	AllBack     time.Duration
	Reconnected bool
	// Resumed is the end of the first commit after AllBack: service was back.
	// Valid when Recovered; an outage still going on when the run ended is
	// not recovered.
	Resumed   time.Duration
	Recovered bool
	// VUs is how many virtual users lost their session in it.
	VUs int
	// Lost counts the transactions that failed from Start to Resumed (to the
	// end of the run when not recovered), by error class ("connection", …).
	Lost map[string]int64
}

// TimeToRecover is Resumed − Start: from the first connection error to the
// first commit after the outage. Valid when Recovered.
func (o Outage) TimeToRecover() time.Duration { return o.Resumed - o.Start }

// Overlaps reports whether the outage touched the window [start, end].
func (o Outage) Overlaps(start, end time.Duration) bool {
	if end <= start || o.Start > end {
		return false
	}
	return !o.Recovered || o.Resumed > start
}

// LostTotal is the sum of Lost.
func (o Outage) LostTotal() int64 {
	var n int64
	for _, v := range o.Lost {
		n += v
	}
	return n
}

// Stall is a span in which the database completed no transaction while
// sessions were connected and waiting on it: from the last completion (or
// the start of the oldest wait, when later) to the next completion.
type Stall struct {
	Start, End time.Duration
	// Ended: a transaction completed at End. Otherwise the run stopped at
	// End with the stall still on.
	Ended bool
	// VUs is the most sessions seen waiting at once.
	VUs int
	// LongestWait is the longest a transaction was seen in hand during the
	// stall (at least End − Start).
	LongestWait time.Duration
}

// Duration is End − Start.
func (s Stall) Duration() time.Duration { return s.End - s.Start }

// Pause is a span in which the client process did not run (stopped, a
// paused VM), or in which the machine slept (Suspended): the database may
// have run on, but nothing the client measured covers it.
type Pause struct {
	// Start and End are on the run's clock. The run's clock stops while the
	// machine sleeps: a suspend's span is the watchdog's wake that saw it,
	// and Slept says how long the machine slept.
	Start, End time.Duration
	Suspended  bool
	Slept      time.Duration
}

// Duration is how long the client stood still: End − Start, or the time
// slept.
func (p Pause) Duration() time.Duration {
	if p.Suspended {
		return p.Slept
	}
	return p.End - p.Start
}

// TouchesWindow reports whether the span [start, end) touched the measured
// window.
func (d *Disruption) TouchesWindow(start, end time.Duration) bool {
	return d.WindowEnd > d.WindowStart && start < d.WindowEnd && end > d.WindowStart
}

// ConnectionEvent is one virtual user's loss of its session.
type ConnectionEvent struct {
	VU     int           // 1-based
	LostAt time.Duration // when its transaction failed with a connection error
	// ReconnectedAt is when its new session was open; valid when Reconnected
	// (a VU still reconnecting when the run stopped is not).
	ReconnectedAt time.Duration
	Reconnected   bool
	Attempts      int // reconnect attempts made, the successful one included
}

// IdleInterval is a measured interval with no commits.
type IdleInterval struct {
	Seq        int
	Start, End time.Duration
}

// MonitorGap is a window-edge probe of the database that could not be read,
// even after re-opening the monitor's session for as long as the probe was
// allowed.
type MonitorGap struct {
	Edge  string        // EdgeWindowStart or EdgeWindowEnd
	At    time.Duration // when the probe was made
	Error string
}

// FirstError is the first connection error of the run; false when no
// virtual user lost its session.
func (d *Disruption) FirstError() (time.Duration, bool) {
	if d == nil || len(d.Outages) == 0 {
		return 0, false
	}
	return d.Outages[0].Start, true
}

// Recovered reports whether every outage ended with service resumed.
func (d *Disruption) Recovered() bool {
	if d == nil {
		return true
	}
	for _, o := range d.Outages {
		if !o.Recovered {
			return false
		}
	}
	return true
}

// Resumed is when service resumed after the last outage; false when it did
// not (or there was no outage).
func (d *Disruption) Resumed() (time.Duration, bool) {
	if d == nil || len(d.Outages) == 0 || !d.Recovered() {
		return 0, false
	}
	return d.Outages[len(d.Outages)-1].Resumed, true
}

// LongestTimeToRecover is the longest outage's time to recover; false when
// an outage did not recover (or there was none).
func (d *Disruption) LongestTimeToRecover() (time.Duration, bool) {
	if d == nil || len(d.Outages) == 0 || !d.Recovered() {
		return 0, false
	}
	var longest time.Duration
	for _, o := range d.Outages {
		longest = max(longest, o.TimeToRecover())
	}
	return longest, true
}

// VUsAffected is how many distinct virtual users lost their session.
func (d *Disruption) VUsAffected() int {
	if d == nil {
		return 0
	}
	seen := map[int]bool{}
	for _, c := range d.Connections {
		seen[c.VU] = true
	}
	return len(seen)
}

// Lost adds up the outages' lost transactions by error class.
func (d *Disruption) Lost() map[string]int64 {
	out := map[string]int64{}
	if d == nil {
		return out
	}
	for _, o := range d.Outages {
		for k, v := range o.Lost {
			out[k] += v
		}
	}
	return out
}

// InWindow reports whether an outage, a stall or a pause touched the
// measured window: a run with one is degraded.
func (d *Disruption) InWindow() bool {
	return d.OutageInWindow() || len(d.StallsInWindow()) > 0 || len(d.PausesInWindow()) > 0
}

// OutageInWindow reports whether an outage touched the measured window.
func (d *Disruption) OutageInWindow() bool {
	if d == nil {
		return false
	}
	for _, o := range d.Outages {
		if o.Overlaps(d.WindowStart, d.WindowEnd) {
			return true
		}
	}
	return false
}

// StallsInWindow are the stalls that touched the measured window.
func (d *Disruption) StallsInWindow() []Stall {
	if d == nil {
		return nil
	}
	var in []Stall
	for _, s := range d.Stalls {
		if d.TouchesWindow(s.Start, s.End) {
			in = append(in, s)
		}
	}
	return in
}

// PausesInWindow are the client's pauses that touched the measured window.
func (d *Disruption) PausesInWindow() []Pause {
	if d == nil {
		return nil
	}
	var in []Pause
	for _, p := range d.Pauses {
		if d.TouchesWindow(p.Start, p.End) {
			in = append(in, p)
		}
	}
	return in
}
