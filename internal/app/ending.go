package app

import (
	"errors"
	"fmt"

	"github.com/sledge-bench/sledge/internal/metrics"
	"github.com/sledge-bench/sledge/internal/report"
	"github.com/sledge-bench/sledge/internal/threshold"
	"github.com/sledge-bench/sledge/internal/workload"
)

// EndClass is the class of a job's or group's ending, which a front end
// maps to how it ends (the CLI: its exit status).
type EndClass int

const (
	// EndOK: it did all it was asked.
	EndOK EndClass = iota
	// EndInterrupted: stopped by the user (Ctrl-C); what it measured is
	// stored as such.
	EndInterrupted
	// EndFailed: it failed (Ending.Err says why), or it stopped or found
	// what it checks failing and its report says what (Err nil).
	EndFailed
	// EndNotStored: it measured its result, kept in a spool file and
	// handed in later.
	EndNotStored
	// EndNotKept: it measured its result but could neither store it nor
	// keep it in a spool file: the printed report is all there is.
	EndNotKept
	// EndThresholds: it ended but failed a threshold (a gate: a bound,
	// an SLO search: its goals at the start rate).
	EndThresholds
)

// Ending is how a job or a group of jobs (a series, a profile, a gate, an
// SLO search) ended, once its report is printed, decided in one place so
// that every front end ends alike: its class, the lines to tell the user
// first (without the front end's prefix) and, for EndFailed, the error that
// failed or stopped it.
type Ending struct {
	Class EndClass
	Notes []string
	// Err is why it failed; its field errors are the front end's to word.
	Err error
	// Stopped, when set, says what Err stopped ("series stopped"): the
	// front end reports "STOPPED: ERR".
	Stopped string
}

// Ending is how a job of this kind ("run", "build" …) with thresholds
// thresholds ended: interrupted; failed with its error, or without one (its
// report says what); measured but not (all) stored; a threshold failed.
// A job whose result is only spooled and that failed a threshold ends as
// failing its threshold: the spool keeps what it measured; one whose result
// is not even kept ends as such.
func (e End) Ending(kind string, thresholds int) Ending {
	switch {
	case e.Status == metrics.StatusInterrupted:
		var notes []string
		if e.NotStored != nil {
			notes = append(notes, e.NotStored.Error())
		}
		return Ending{Class: EndInterrupted, Notes: append(notes, fmt.Sprintf("%s job %d interrupted", kind, e.ID))}
	case e.Err != nil:
		return Ending{Class: EndFailed, Err: e.Err} // a job that failed on its schema gets the front end's advice
	case e.Failed:
		return Ending{Class: EndFailed}
	}
	var end Ending
	if e.NotStored != nil {
		end.Notes = append(end.Notes, e.NotStored.Error())
		if end.Class = notStored(e.NotStored); e.ThresholdsFailed == 0 || end.Class == EndNotKept {
			return end
		}
	}
	if e.ThresholdsFailed > 0 {
		what := fmt.Sprintf("%d of its %d thresholds", e.ThresholdsFailed, thresholds)
		if thresholds == 1 {
			what = "its threshold"
		}
		return Ending{Class: EndThresholds, Notes: append(end.Notes, fmt.Sprintf("%s job %d failed %s", kind, e.ID, what))}
	}
	return end
}

// notStored is the class of a job whose result is not (all) in the
// repository (a NotStoredError): kept in a spool file, or not.
func notStored(err error) EndClass {
	if ns, ok := errors.AsType[*NotStoredError](err); ok && ns.Unkept {
		return EndNotKept
	}
	return EndNotStored
}

// GroupEnding is how a series or profile (what) of total jobs (each a unit:
// trial, job) ended, of which outs ran: every job ran to its
// end; or err stopped it (a failed job or between step; interrupted: the
// user stopped it there, between two jobs); or its last job was
// interrupted or did not end with a result; or some of its jobs failed
// their thresholds — each judged on its own window. With no job run, err
// (or else the lack of any job) is the ending.
func GroupEnding(what, unit string, outs []Outcome, total int, err error, interrupted bool) Ending {
	if len(outs) == 0 {
		if err == nil {
			err = fmt.Errorf("no %s ran", unit)
		}
		if interrupted {
			return Ending{Class: EndInterrupted, Notes: []string{fmt.Sprintf("%s interrupted: %v", what, err)}}
		}
		return Ending{Class: EndFailed, Err: err, Stopped: what + " stopped"}
	}
	last := outs[len(outs)-1]
	switch {
	case err != nil && interrupted:
		// Stopped between two jobs (--between): the jobs so far are kept.
		return Ending{Class: EndInterrupted, Notes: []string{fmt.Sprintf("%s interrupted: %v", what, err)}}
	case err != nil:
		return Ending{Class: EndFailed, Err: err, Stopped: what + " stopped"} // err says where
	case last.Status == metrics.StatusInterrupted:
		return Ending{Class: EndInterrupted, Notes: []string{fmt.Sprintf("%s interrupted at %s %d of %d (job %d)", what, unit, len(outs), total, last.ID)}}
	case len(outs) < total || last.Run == nil:
		return Ending{Class: EndFailed, Notes: []string{fmt.Sprintf("%s stopped at %s %d of %d (job %d %s)", what, unit, len(outs), total, last.ID, last.Status)}}
	}
	failed := 0
	for _, o := range outs {
		if o.ThresholdsFailed() > 0 {
			failed++
		}
	}
	if failed > 0 {
		return Ending{Class: EndThresholds, Notes: []string{fmt.Sprintf("%s: %d of its %d %ss failed thresholds", what, failed, total, unit)}}
	}
	return Ending{}
}

// SLOEnding is how an SLO search that made its job ended, given the error
// SLO returned: interrupted; stopped with what it measured not stored;
// stopped by a failed step; or, having run, with no rate found because the
// goals failed at the start rate.
func SLOEnding(o report.SLO, err error, interrupted bool) Ending {
	switch {
	case err != nil && interrupted:
		return Ending{Class: EndInterrupted}
	case errors.As(err, new(*NotStoredError)):
		return Ending{Class: notStored(err), Notes: []string{fmt.Sprintf("slo stopped: %v", err)}}
	case err != nil:
		return Ending{Class: EndFailed, Err: err, Stopped: "slo stopped"}
	case !o.Result.Found:
		return Ending{Class: EndThresholds}
	}
	return Ending{}
}

// GateEnding is how a gate that ran ended, given the error Gate returned:
// stopped before all its trials ran (interrupted, or by err, or as its
// report says); or with the number of its bounds that failed.
func GateEnding(g report.Gate, err error, interrupted bool) Ending {
	switch {
	case g.Stopped != "" && interrupted:
		return Ending{Class: EndInterrupted}
	case g.Stopped != "" && err != nil:
		return Ending{Class: EndFailed, Err: err, Stopped: "gate stopped"}
	case g.Stopped != "":
		return Ending{Class: EndFailed}
	}
	if n := g.Failed(); n > 0 {
		return Ending{Class: EndThresholds, Notes: []string{fmt.Sprintf("gate %d failed %d of its %d bounds", g.ID, n, len(g.Rows))}}
	}
	return Ending{}
}

// Outcome is how a job ended and what it produced.
type Outcome struct {
	ID int64
	// Status is metrics.StatusCompleted, StatusDegraded (a run whose window
	// saw the database out of service: Run.Disruption says how),
	// StatusInterrupted or StatusFailed.
	Status string
	// Err is why the job failed or stopped (nil when it completed).
	Err error
	// NotStored is set when what the job measured is not all in the
	// repository: it is kept in a spool file and handed in later (front
	// ends exit with status 75).
	NotStored *NotStoredError
	// One of these, by the job's kind and workload.
	Run      *metrics.RunResult
	Analytic *metrics.AnalyticResult
	Build    *workload.BuildReport
	Check    *workload.CheckReport
	// Thresholds are a run's thresholds judged on its result (none when it
	// has none, or no result).
	Thresholds []threshold.Verdict
}

// ThresholdsFailed counts the run's thresholds that failed.
func (o Outcome) ThresholdsFailed() int { return threshold.Failed(o.Thresholds) }

// End is how a job ended, as a front end tells its user and its script,
// whether it ran here (Outcome.End) or on a server (server.JobEnd.End).
type End struct {
	ID     int64
	Status string // metrics.Status*
	Err    error  // why it failed, nil when it did not
	// Failed: the job ended without doing all it was asked or found what
	// it checks failing (a check's condition, an analytic query): its
	// report says which.
	Failed bool
	// NotStored: what it measured is kept in a spool file, not (all) in
	// the repository yet.
	NotStored        error
	ThresholdsFailed int
}

// End is how the job ended; err is the one Run returned with it.
func (o Outcome) End(err error) End {
	e := End{ID: o.ID, Status: o.Status, Err: err, Failed: !o.OK(), ThresholdsFailed: o.ThresholdsFailed()}
	if o.NotStored != nil { // not a nil *NotStoredError in the interface
		e.NotStored = o.NotStored
	}
	return e
}

// OK reports whether the job did all it was asked and found nothing wrong:
// completed, no check condition failed, no analytic query failed. A
// degraded run is OK: it measured its whole window, and its result says
// how the database's outage shaped the numbers — resilience tests exist to
// produce exactly such runs.
func (o Outcome) OK() bool {
	if o.Status != metrics.StatusCompleted && o.Status != metrics.StatusDegraded {
		return false
	}
	if o.Check != nil && o.Check.Failed() > 0 {
		return false
	}
	if o.Analytic != nil {
		for _, q := range o.Analytic.Queries {
			if q.Error != "" {
				return false
			}
		}
	}
	return true
}
