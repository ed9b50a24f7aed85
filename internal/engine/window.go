package engine

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/sledge-bench/sledge/internal/db"
	"github.com/sledge-bench/sledge/internal/metrics"
	"github.com/sledge-bench/sledge/internal/workload"
)

// window is the measured window as the monitor opens and closes it: its
// edges on the run's clock, the database's counters read at each (the
// cross-check's), and what went wrong with them (the disruption account's
// monitor gaps and idle intervals).
type window struct {
	prober  workload.Prober // nil: nothing to read at the edges
	partial bool            // Config.Partial: the edges stay on their boundaries
	timeout time.Duration   // a probe's (probeTimeout)
	out     Output
	clock   *clock

	open       bool
	start, end time.Duration
	p0, p1     workload.Probe
	err0, err1 error // the probes' failures
	cpu0       time.Duration
	// bands count the headline commits around each edge that the client and
	// the database may place on different sides of it (edgeBand).
	bands [2]*metrics.EdgeBand

	gaps []metrics.MonitorGap
	idle []metrics.IdleInterval
}

// probeTimeout is how long a window-edge probe may take, re-opening a lost
// monitor session as it goes: about an interval, within 2 s and 10 s. A
// probe that succeeds late moves its edge (the window keeps its length); one
// that fails leaves the edge at the boundary and its values missing.
func probeTimeout(cfg Config) time.Duration {
	return min(max(cfg.Interval, 2*time.Second), 10*time.Second)
}

// openWindow opens the measured window at the boundary at (on the run's
// clock) — or, when the database is probed, at the instant its count was
// read, unless fixed says the edge stays at at (a window opened before the
// load starts).
func (r *run) openWindow(ctx context.Context, at time.Duration, fixed bool) {
	w := &r.win
	w.open, w.start = true, at
	w.cpu0 = processCPU()
	if w.prober != nil {
		var returned time.Time
		if w.p0, returned, w.err0 = w.probe(ctx, metrics.EdgeWindowStart, at); w.err0 == nil {
			if !fixed {
				// (A window opened before the load starts has no commit
				// on either side of its edge: no band.)
				w.start = w.edge(at, w.p0.At)
				w.bands[0] = r.edgeBand(w.start, w.p0, returned)
			}
		}
	}
	if a, ok := r.wl.(workload.Auditor); ok {
		a.MarkAudit()
	}
	r.col.StartWindow(w.start)
	if f, ok := r.x.(finite); ok {
		r.out.Logf("%s", f.plan())
		return
	}
	r.out.Logf("measuring for %s", r.cfg.Duration)
}

// closeWindow ends the measured window at the boundary at — or, when the
// database is probed, at the instant its count was read — and returns the
// window's end. The end is probed only when the start was: the check needs
// both. settled says nothing runs any more (every VU of an iteration run is
// done, its last at at): the window then ends at at, and the probe, made
// after it, reads the count at that end.
func (r *run) closeWindow(ctx context.Context, at time.Duration, settled bool) time.Duration {
	w := &r.win
	end := at
	if w.prober != nil && w.err0 == nil {
		var returned time.Time
		if w.p1, returned, w.err1 = w.probe(ctx, metrics.EdgeWindowEnd, at); w.err1 == nil {
			if !settled {
				end = w.edge(at, w.p1.At)
			}
			w.bands[1] = r.edgeBand(end, w.p1, returned)
		}
	}
	w.end = end
	r.col.EndWindow(end)
	return end
}

// probe reads the database's counters at a window edge (at, on the run's
// clock), recording a failure as a monitor gap. It also returns the instant
// the read returned: a probe that does not say when it read did so between
// the boundary and then.
func (w *window) probe(ctx context.Context, edge string, at time.Duration) (workload.Probe, time.Time, error) {
	pctx, cancel := context.WithTimeout(ctx, w.timeout)
	defer cancel()
	p, err := w.prober.Probe(pctx)
	returned := time.Now()
	if err != nil {
		w.out.Logf("warning: cannot read the database's counters at the %s: %v", edge, err)
		w.gaps = append(w.gaps, metrics.MonitorGap{Edge: edge, At: at, Error: err.Error()})
		return workload.Probe{}, returned, err
	}
	if p.Attempts > 1 {
		w.out.Logf("monitor: read the database's counters at the %s after %d attempts (its session was re-opened)", edge, p.Attempts)
	}
	return p, returned, nil
}

// edge is where a window edge due at the boundary at falls when the
// database's counters were read at the instant probed: there, when later, so
// that the count holds at the edge. In a partial run the edge stays on the
// boundary, an instant shared by every process of the run.
func (w *window) edge(at time.Duration, probed time.Time) time.Duration {
	if w.partial {
		return at
	}
	return max(at, w.clock.since(probed, at))
}

// edgeBand starts counting the headline commits that end between a window
// edge and the span in which the database read its count for it: a commit
// there may be on one side of the edge for the client and on the other for
// the database. The span is the probe's round trip when the probe says when
// it read; else the edge stays on its boundary and the read came somewhere
// between it and the probe's return (returned): the monitor reaches a
// boundary late on a busy machine, tens of milliseconds, and the database
// counts that time's commits at the window's end (its start: the client
// does).
func (r *run) edgeBand(edge time.Duration, p workload.Probe, returned time.Time) *metrics.EdgeBand {
	if p.At.IsZero() {
		return r.col.EdgeBand(edge, max(edge, r.clock.since(returned, edge)))
	}
	read := r.clock.since(p.At, edge)
	return r.col.EdgeBand(min(edge, read-p.RTT/2), max(edge, read+p.RTT/2))
}

// noteIdle records a measured interval [start, end) without a commit, for
// the disruption account.
func (w *window) noteIdle(seq int, start, end time.Duration) {
	w.idle = append(w.idle, metrics.IdleInterval{Seq: seq, Start: start, End: end})
}

// crossCheck compares the client's count of the headline transaction with the
// database's over the window, and computes the server's TPM; either is
// absent, with the reason, when it could not be measured. sessions is how
// many transactions may be in flight at an edge.
func (w *window) crossCheck(res *metrics.RunResult, sessions int) {
	switch {
	case w.prober == nil:
		res.DBCheckUnavailable = "the workload has no database count to check against"
	case w.err0 != nil:
		res.DBCheckUnavailable = "the database's counters could not be read at the window start: " + w.err0.Error()
	case w.err1 != nil:
		res.DBCheckUnavailable = "the database's counters could not be read at the window end: " + w.err1.Error()
	case res.Measured <= 0:
		res.DBCheckUnavailable = "the window has no length"
	}
	if res.DBCheckUnavailable != "" {
		res.ServerTPMUnavailable = res.DBCheckUnavailable
		return
	}
	res.HasDBCheck = true
	res.DBNewOrders = w.p1.Headline - w.p0.Headline
	res.NOPMDBCheck = float64(res.DBNewOrders) / res.Measured.Minutes()
	// A transaction whose session was lost may have committed without the
	// client hearing of it: each is in doubt.
	var inDoubt int64
	for _, t := range res.Tx {
		inDoubt += t.Errors[db.ClassConnection.String()]
	}
	allowed := checkAllowance(sessions, max(res.DBNewOrders, res.NewOrders), res.Measured, w.p0.RTT, w.p1.RTT)
	// The commits counted around the edges are exact where the average
	// rate is not (a busy client completes its transactions in bursts).
	b := w.bands[0].Count() + w.bands[1].Count()
	if w.partial && res.NewOrders > 0 && res.DBNewOrders > res.NewOrders {
		// A part's edges stay on their boundaries while its probe reads
		// the database later (a busy machine: seconds later), and the
		// database counts every process's commits in between, this client
		// only its own: scale its band by its share of the database's count.
		b = int64(math.Ceil(float64(b) * float64(res.DBNewOrders) / float64(res.NewOrders)))
	}
	if b > allowed-int64(sessions) {
		allowed = int64(sessions) + b
	}
	allowed += inDoubt
	res.DBCheckAllowance = allowed
	res.DBCheckAgree = abs64(res.DBNewOrders-res.NewOrders) <= allowed
	if !res.DBCheckAgree && !w.partial {
		// (A part's count is not the database's: the merge judges it.)
		res.Warnings = append(res.Warnings, fmt.Sprintf(
			"the database counted %d New-Orders in the window, the client %d: more apart than the %d that in-flight transactions and the probes' timing explain",
			res.DBNewOrders, res.NewOrders, allowed))
	}
	switch {
	case !w.p0.HasServerCommits || !w.p1.HasServerCommits:
		res.ServerTPMUnavailable = "the database keeps no server-wide commit counter"
	case w.p0.Session != w.p1.Session:
		res.ServerTPMUnavailable = "the monitor's session was lost between the window's edges (a server restart resets the server's counters)"
	case w.p1.ServerCommits < w.p0.ServerCommits:
		res.ServerTPMUnavailable = "the server's commit counter went backwards over the window (it was reset)"
	default:
		res.HasServerTPM = true
		res.ServerTPM = float64(w.p1.ServerCommits-w.p0.ServerCommits) / res.Measured.Minutes()
		// The counter was read with the headline count: the commits around
		// the edges are the headline's there, in the run's mix of all
		// transactions; at least the rate over half the probes' round trips.
		// It was read after the headline, in a query of its own: the
		// commits of that while, at each edge, may be on either side too
		// (TestEndToEndMariaDB once found the server 9 commits short of
		// the client over a 5 s window without them).
		tpm := max(res.ServerTPM, res.TPM)
		around := tpm / 60 * (w.p0.RTT + w.p1.RTT).Seconds() / 2
		if res.NOPM > 0 {
			around = max(around, float64(b)*res.TPM/res.NOPM)
		}
		around += tpm / 60 * (w.p0.ServerCommitsAfter + w.p1.ServerCommitsAfter).Seconds()
		res.ServerTPMMargin = serverTPMMargin(tpm, max(w.p0.ServerCommitsLag, w.p1.ServerCommitsLag), sessions, around, res.Measured)
	}
}

// serverTPMMargin is how far a server-wide commit rate over a window may
// stray from the commits made in it, per minute: a counter that lags by lag
// may leave out the last lag's commits at either edge (at most lag × the
// rate: the window holds too many or too few of them, not both); each
// session may have a transaction in flight at an edge, counted by the
// server on one side of it and by the client on the other; and the server
// read its counter when the probe reached it, not at the edge: the edge
// commits that end between the two (a busy machine delays the probe by
// a large part of a second) are on different sides for each.
func serverTPMMargin(tpm float64, lag time.Duration, sessions int, edgeCommits float64, window time.Duration) float64 {
	if window <= 0 {
		return 0
	}
	return (tpm*lag.Minutes() + float64(sessions) + edgeCommits) / window.Minutes()
}

// checkAllowance is how far the client's and the database's counts of the
// headline transaction may differ over a window. A transaction in flight at
// an edge may have committed in the database but not yet been seen by the
// client (or the other way round): at most one per session, since a session
// has one transaction at a time and the two edges err in opposite
// directions. And the database read its count somewhere within each probe's
// round trip, not exactly at its midpoint: commits during half of each round
// trip may fall on either side.
func checkAllowance(sessions int, count int64, window, rtt0, rtt1 time.Duration) int64 {
	if window <= 0 {
		return int64(sessions)
	}
	rate := float64(count) / window.Seconds()
	return int64(sessions) + int64(math.Ceil(rate*(rtt0+rtt1).Seconds()/2))
}

// disruption assembles the run's disruption account from the tracker's
// outages, the watchdog's stalls and pauses and the window's gaps; nil when
// none of them happened.
func (r *run) disruption() *metrics.Disruption {
	w := &r.win
	d := r.track.account()
	d.Stalls, d.Pauses = r.watch.account()
	if len(d.Outages) == 0 && len(w.gaps) == 0 && len(d.Stalls) == 0 && len(d.Pauses) == 0 {
		return nil
	}
	d.Sessions = r.x.sessions()
	if r.cfg.StallAfter >= 0 {
		d.StallAfter = r.watch.after // (0: stall detection was off)
	}
	d.MonitorGaps = w.gaps
	d.IdleIntervals = w.idle
	if w.open {
		d.WindowStart, d.WindowEnd = w.start, w.end
	}
	return d
}

// disruptionWarnings say, one line each, what in the measured window kept
// the numbers from being those of a healthy database and client: an outage
// (every session lost) or the loss of some sessions, stalls, pauses.
func disruptionWarnings(d *metrics.Disruption) []string {
	var out []string
	if d.OutageInWindow() {
		out = append(out, outageWarning(d))
	}
	for _, s := range d.StallsInWindow() {
		msg := fmt.Sprintf("the database stalled: no transaction ended for %.1f s from %.1f s while %d of %d sessions waited on it (the longest wait %.1f s)",
			s.Duration().Seconds(), s.Start.Seconds(), s.VUs, d.Sessions, s.LongestWait.Seconds())
		if !s.Ended {
			msg += ", and it had not ended when the run stopped"
		}
		out = append(out, msg+": the numbers are not those of a healthy database")
	}
	for _, p := range d.PausesInWindow() {
		if p.Suspended {
			out = append(out, fmt.Sprintf("the client's machine slept for %.1f s at %.1f s: the database may have run on meanwhile, unmeasured, and the window's clock stood still",
				p.Duration().Seconds(), p.End.Seconds()))
			continue
		}
		out = append(out, fmt.Sprintf("the client was paused for %.1f s at %.1f s (this process did not run): the window's numbers include the pause",
			p.Duration().Seconds(), p.Start.Seconds()))
	}
	return out
}

// outageWarning sums up the lost sessions of the window in one line: an
// outage of the database when every session was lost, else how many of how
// many were.
func outageWarning(d *metrics.Disruption) string {
	first, _ := d.FirstError()
	lost := d.VUsAffected()
	var msg string
	if d.Sessions > 0 && lost < d.Sessions {
		msg = fmt.Sprintf("%d of the %d sessions lost their connection to the database during the measured window (first at %.1f s)",
			lost, d.Sessions, first.Seconds())
		if ttr, ok := d.LongestTimeToRecover(); ok {
			msg += fmt.Sprintf(", all back %.1f s after the first loss", ttr.Seconds())
		} else {
			msg += ", not all back when the run ended"
		}
		return msg + ": the numbers include the time they were away"
	}
	msg = fmt.Sprintf("the database was out of service during the measured window: all %d sessions lost their connection (first at %.1f s)",
		lost, first.Seconds())
	if ttr, ok := d.LongestTimeToRecover(); ok {
		msg += fmt.Sprintf(", service resumed after %.1f s", ttr.Seconds())
	} else {
		msg += ", service had not resumed when the run ended"
	}
	if n := len(d.IdleIntervals); n > 0 {
		msg += fmt.Sprintf("; %d measured intervals without a commit", n)
	}
	return msg + ": the numbers are not those of a healthy database"
}

func abs64(v int64) int64 {
	if v < 0 {
		return -v
	}
	return v
}
