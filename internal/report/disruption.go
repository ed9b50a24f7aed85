package report

import (
	"fmt"
	"io"
	"maps"
	"strings"

	"github.com/sledge-bench/sledge/internal/metrics"
)

// maxSessionLines bounds the lost sessions listed one per line; the rest
// are summed up.
const maxSessionLines = 12

// notAvailable words a value that could not be measured: label, and the
// reason when there is one.
func notAvailable(label, reason string) string {
	if reason == "" {
		return label
	}
	return label + ": " + reason
}

// reasonOr is why a value is absent, "not available" when nobody said.
func reasonOr(reason string) string {
	if reason == "" {
		return "not available"
	}
	return reason
}

// checkVerdict words the cross-check's verdict.
func checkVerdict(r *metrics.RunResult) string {
	if r.DBCheckAgree {
		return "agrees"
	}
	return "DISAGREES"
}

// serverTPMText is the server's TPM as the TPM line gives it, or why there
// is none.
func serverTPMText(r *metrics.RunResult, rate func(float64) string) string {
	if r.HasServerTPM {
		if m := r.ServerTPMMargin; m >= 0.5 {
			// Its edges' uncertainty: a figure within it of the client's
			// TPM (even below it) agrees with it.
			return fmt.Sprintf("server-wide commits+rollbacks: %s ± %s/min", rate(r.ServerTPM), rate(m))
		}
		return fmt.Sprintf("server-wide commits+rollbacks: %s/min", rate(r.ServerTPM))
	}
	return notAvailable("server counter not available", r.ServerTPMUnavailable)
}

// secs renders a time on the run's clock.
func secs(d interface{ Seconds() float64 }) string { return fmt.Sprintf("%.1f s", d.Seconds()) }

// lostText words lost transactions by class, largest first: "connection 8,
// other 2".
func lostText(lost map[string]int64) string {
	if len(lost) == 0 {
		return "none"
	}
	var parts []string
	for _, cls := range metrics.SortedErrorClasses(lost) {
		parts = append(parts, fmt.Sprintf("%s %d", cls, lost[cls]))
	}
	return strings.Join(parts, ", ")
}

// DisruptionHeadline sums a disruption up in one line, for the block's
// head and for front ends that show one line.
func DisruptionHeadline(d *metrics.Disruption) string {
	window := ""
	if d.WindowEnd > 0 {
		window = fmt.Sprintf(" (window %.1f–%.1f s)", d.WindowStart.Seconds(), d.WindowEnd.Seconds())
	}
	var what []string
	if d.OutageInWindow() {
		if lost := d.VUsAffected(); d.Sessions > 0 && lost < d.Sessions {
			what = append(what, fmt.Sprintf("%d of %d sessions lost their connection", lost, d.Sessions))
		} else {
			what = append(what, "the database was out of service")
		}
	}
	if n := len(d.StallsInWindow()); n > 0 {
		what = append(what, "the database stalled"+times(n))
	}
	if n := len(d.PausesInWindow()); n > 0 {
		what = append(what, "the client was paused"+times(n))
	}
	switch {
	case len(what) > 0:
		return strings.Join(what, "; ") + " during the measured window" + window
	case len(d.Outages) > 0 || len(d.Stalls) > 0 || len(d.Pauses) > 0:
		return "sessions were lost, or the database or the client stood still, outside the measured window" + window
	}
	return "the monitor could not read the database's counters" + window
}

// times says how many times, after a verb: "", " twice", " 3 times".
func times(n int) string {
	switch n {
	case 1:
		return ""
	case 2:
		return " twice"
	}
	return fmt.Sprintf(" %d times", n)
}

// disruptionBlock writes a run's disruption account: each outage with when
// it began, when every VU was back and service resumed (its time to
// recover), the VUs it hit and what it lost; the measured intervals without
// commits; each lost session; and the monitor's probes that failed. Times are
// on the run's clock. Nothing for a run without one.
func disruptionBlock(w io.Writer, d *metrics.Disruption) error {
	if d == nil {
		return nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "\n  disruption: %s\n", DisruptionHeadline(d))
	tw := newTable(&b, 0)
	for i, o := range d.Outages {
		when := "lost at " + secs(o.Start)
		if d.WindowEnd > 0 && o.Start >= d.WindowStart && o.Start <= d.WindowEnd {
			when += fmt.Sprintf(" (%.1f s into the window)", (o.Start - d.WindowStart).Seconds())
		}
		switch {
		case o.Recovered:
			when += fmt.Sprintf(", every VU back at %s, service resumed at %s: time to recover %s",
				secs(o.AllBack), secs(o.Resumed), secs(o.TimeToRecover()))
		case o.Reconnected:
			when += fmt.Sprintf(", every VU back at %s, no commit after: not recovered", secs(o.AllBack))
		default:
			when += ", not recovered by the end of the run"
		}
		fmt.Fprintf(tw, "    outage %d\t%s\n", i+1, when)
		fmt.Fprintf(tw, "    \t%s lost their sessions; failed meanwhile: %s\n", Plural(o.VUs, "VU"), lostText(o.Lost))
	}
	for i, st := range d.Stalls {
		end := fmt.Sprintf("a transaction ended at %s", secs(st.End))
		if !st.Ended {
			end = fmt.Sprintf("still none at the run's stop at %s", secs(st.End))
		}
		fmt.Fprintf(tw, "    stall %d\tno transaction ended from %s for %s (%s); %d of %d sessions waited, the longest %s\n",
			i+1, secs(st.Start), secs(st.Duration()), end, st.VUs, d.Sessions, secs(st.LongestWait))
	}
	for i, p := range d.Pauses {
		what := fmt.Sprintf("the client did not run from %s for %s", secs(p.Start), secs(p.Duration()))
		if p.Suspended {
			what = fmt.Sprintf("the client's machine slept for %s at %s (the run's clock stood still)", secs(p.Duration()), secs(p.End))
		}
		if d.TouchesWindow(p.Start, p.End) {
			what += ": in the measured window"
		}
		fmt.Fprintf(tw, "    pause %d\t%s\n", i+1, what)
	}
	if n := len(d.IdleIntervals); n > 0 {
		// Runs of consecutive intervals as ranges: #13–#32 #40.
		var seqs []string
		for i := 0; i < n; {
			j := i
			for j+1 < n && d.IdleIntervals[j+1].Seq == d.IdleIntervals[j].Seq+1 {
				j++
			}
			a, z := d.IdleIntervals[i], d.IdleIntervals[j]
			if i == j {
				seqs = append(seqs, fmt.Sprintf("#%d (%.1f–%.1f s)", a.Seq, a.Start.Seconds(), a.End.Seconds()))
			} else {
				seqs = append(seqs, fmt.Sprintf("#%d–#%d (%.1f–%.1f s)", a.Seq, z.Seq, a.Start.Seconds(), z.End.Seconds()))
			}
			i = j + 1
		}
		fmt.Fprintf(tw, "    no commits\t%s: %s\n", Plural(n, "measured interval"), strings.Join(seqs, ", "))
	}
	for i, c := range d.Connections {
		label := ""
		if i == 0 {
			label = "sessions"
		}
		if i == maxSessionLines {
			fmt.Fprintf(tw, "    \t… and %d more\n", len(d.Connections)-i)
			break
		}
		back := fmt.Sprintf("not back (%s)", Plural(c.Attempts, "attempt"))
		if c.Reconnected {
			back = fmt.Sprintf("back at %s after %s", secs(c.ReconnectedAt), Plural(c.Attempts, "attempt"))
		}
		fmt.Fprintf(tw, "    %s\tvu %d lost at %s, %s\n", label, c.VU, secs(c.LostAt), back)
	}
	for i, g := range d.MonitorGaps {
		label := ""
		if i == 0 {
			label = "monitor"
		}
		fmt.Fprintf(tw, "    %s\t%s (%s): not read: %s\n", label, g.Edge, secs(g.At), g.Error)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// DisruptionJSON is a run's disruption account in `jobs show ID result
// --format json` and the API; times are seconds since the run started.
type DisruptionJSON struct {
	Headline     string  `json:"headline"`
	WindowStartS float64 `json:"window_start_s"`
	WindowEndS   float64 `json:"window_end_s"` // 0: the run ended before its window opened
	// InWindow says an outage, a stall or a pause touched the measured
	// window (the run is degraded).
	InWindow bool `json:"in_window"`
	// Sessions is how many sessions the run had; StallAfterS the stall
	// (and pause) threshold, null when not recorded.
	Sessions    int      `json:"sessions"`
	StallAfterS *float64 `json:"stall_after_s"`
	// FirstErrorS is the first connection error; null when no session was
	// lost (only the monitor's probes failed).
	FirstErrorS *float64 `json:"first_error_s"`
	// Recovered says every outage ended with service resumed;
	// ServiceResumedS is when, after the last (null when not recovered).
	Recovered       bool     `json:"recovered"`
	ServiceResumedS *float64 `json:"service_resumed_s"`
	// TimeToRecoverS is the longest outage's first commit after it minus its
	// first connection error; null when not recovered.
	TimeToRecoverS *float64           `json:"time_to_recover_s"`
	VUsAffected    int                `json:"vus_affected"`
	Lost           map[string]int64   `json:"lost"` // failed during the outages, by class
	Outages        []OutageJSON       `json:"outages"`
	IdleIntervals  []IdleIntervalJSON `json:"idle_intervals"` // measured intervals without commits
	Connections    []ConnectionJSON   `json:"connections"`
	MonitorGaps    []MonitorGapJSON   `json:"monitor_gaps"`
	Stalls         []StallJSON        `json:"stalls"`
	Pauses         []PauseJSON        `json:"pauses"`
}

// StallJSON is a span in which sessions waited on the database and no
// transaction completed.
type StallJSON struct {
	StartS       float64 `json:"start_s"`
	EndS         float64 `json:"end_s"`
	DurationS    float64 `json:"duration_s"`
	Ended        bool    `json:"ended"` // false: still on when the run stopped at end_s
	VUs          int     `json:"vus"`   // sessions waiting (at most at once)
	LongestWaitS float64 `json:"longest_wait_s"`
	InWindow     bool    `json:"in_window"`
}

// PauseJSON is a span in which the client process did not run.
type PauseJSON struct {
	StartS    float64 `json:"start_s"`
	EndS      float64 `json:"end_s"`
	DurationS float64 `json:"duration_s"`
	Suspended bool    `json:"suspended"` // the machine slept (else the process was stopped)
	InWindow  bool    `json:"in_window"`
}

// OutageJSON is one outage of a disruption.
type OutageJSON struct {
	StartS         float64          `json:"start_s"`
	AllBackS       *float64         `json:"all_back_s"` // every VU had a session again; null: not by the end
	ResumedS       *float64         `json:"resumed_s"`  // first commit after; null: not recovered
	Recovered      bool             `json:"recovered"`
	TimeToRecoverS *float64         `json:"time_to_recover_s"`
	VUs            int              `json:"vus"`
	Lost           map[string]int64 `json:"lost"`
}

// IdleIntervalJSON is a measured interval without commits.
type IdleIntervalJSON struct {
	Seq    int     `json:"seq"`
	StartS float64 `json:"start_s"`
	EndS   float64 `json:"end_s"`
}

// ConnectionJSON is one lost session of a virtual user.
type ConnectionJSON struct {
	VU           int      `json:"vu"`
	LostS        float64  `json:"lost_s"`
	ReconnectedS *float64 `json:"reconnected_s"` // null: not back when the run stopped
	Attempts     int      `json:"attempts"`
}

// MonitorGapJSON is a window-edge probe that could not be read.
type MonitorGapJSON struct {
	Edge  string  `json:"edge"` // window start | window end
	AtS   float64 `json:"at_s"`
	Error string  `json:"error"`
}

func optSeconds(ok bool, d interface{ Seconds() float64 }) *float64 {
	if !ok {
		return nil
	}
	s := d.Seconds()
	return &s
}

// ToDisruption is the JSON shape of a disruption account; nil for none.
func ToDisruption(d *metrics.Disruption) *DisruptionJSON {
	if d == nil {
		return nil
	}
	first, hasFirst := d.FirstError()
	resumed, hasResumed := d.Resumed()
	ttr, hasTTR := d.LongestTimeToRecover()
	out := &DisruptionJSON{
		Headline: DisruptionHeadline(d), WindowStartS: d.WindowStart.Seconds(), WindowEndS: d.WindowEnd.Seconds(),
		InWindow: d.InWindow(), FirstErrorS: optSeconds(hasFirst, first), Recovered: d.Recovered(),
		ServiceResumedS: optSeconds(hasResumed, resumed), TimeToRecoverS: optSeconds(hasTTR, ttr),
		VUsAffected: d.VUsAffected(), Lost: d.Lost(),
		Outages: []OutageJSON{}, IdleIntervals: []IdleIntervalJSON{}, Connections: []ConnectionJSON{}, MonitorGaps: []MonitorGapJSON{},
		Stalls: []StallJSON{}, Pauses: []PauseJSON{},
		Sessions: d.Sessions, StallAfterS: optSeconds(d.StallAfter > 0, d.StallAfter),
	}
	for _, st := range d.Stalls {
		out.Stalls = append(out.Stalls, StallJSON{StartS: st.Start.Seconds(), EndS: st.End.Seconds(), DurationS: st.Duration().Seconds(),
			Ended: st.Ended, VUs: st.VUs, LongestWaitS: st.LongestWait.Seconds(), InWindow: d.TouchesWindow(st.Start, st.End)})
	}
	for _, p := range d.Pauses {
		out.Pauses = append(out.Pauses, PauseJSON{StartS: p.Start.Seconds(), EndS: p.End.Seconds(), DurationS: p.Duration().Seconds(),
			Suspended: p.Suspended, InWindow: d.TouchesWindow(p.Start, p.End)})
	}
	for _, o := range d.Outages {
		lost := map[string]int64{}
		maps.Copy(lost, o.Lost)
		out.Outages = append(out.Outages, OutageJSON{StartS: o.Start.Seconds(), AllBackS: optSeconds(o.Reconnected, o.AllBack),
			ResumedS: optSeconds(o.Recovered, o.Resumed), Recovered: o.Recovered,
			TimeToRecoverS: optSeconds(o.Recovered, o.TimeToRecover()), VUs: o.VUs, Lost: lost})
	}
	for _, iv := range d.IdleIntervals {
		out.IdleIntervals = append(out.IdleIntervals, IdleIntervalJSON{Seq: iv.Seq, StartS: iv.Start.Seconds(), EndS: iv.End.Seconds()})
	}
	for _, c := range d.Connections {
		out.Connections = append(out.Connections, ConnectionJSON{VU: c.VU, LostS: c.LostAt.Seconds(),
			ReconnectedS: optSeconds(c.Reconnected, c.ReconnectedAt), Attempts: c.Attempts})
	}
	for _, g := range d.MonitorGaps {
		out.MonitorGaps = append(out.MonitorGaps, MonitorGapJSON{Edge: g.Edge, AtS: g.At.Seconds(), Error: g.Error})
	}
	return out
}
