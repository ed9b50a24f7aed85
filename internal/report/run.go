package report

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/sledge-bench/sledge/internal/jobs"
	"github.com/sledge-bench/sledge/internal/metrics"
	"github.com/sledge-bench/sledge/internal/workload"
)

// PacingLabel says how a run was paced, for its setup line and record.
func PacingLabel(p float64) string {
	switch {
	case p == 0:
		return "unpaced (no keying/thinking time)"
	case p == 1:
		return "paced (the specification's keying and think times)"
	}
	return fmt.Sprintf("paced with keying and think times scaled ×%g (not the specification's)", p)
}

// WindowText says what a run's measured window was: a timed run's length
// after its ramp-up, or an iteration run's elapsed time and its count.
func WindowText(r *metrics.RunResult) string {
	if r.Iterations > 0 {
		return fmt.Sprintf("%.1f s elapsed: iteration run, %s per VU (no ramp-up; from the start to the last VU's end)",
			r.Measured.Seconds(), Plural(r.Iterations, "transaction"))
	}
	return fmt.Sprintf("%.1f s measured (ramp-up %s not counted)", r.Measured.Seconds(), r.Rampup)
}

// warehousesText begins a result's setup line with its warehouses
// ("10 warehouses, "); a workload without warehouses (pgbench) is not said
// to have 0.
func warehousesText(r *metrics.RunResult) string {
	if r.Warehouses == 0 {
		return ""
	}
	return Plural(r.Warehouses, "warehouse") + ", "
}

// RunResult writes the final report of an OLTP run as it ends (title is the
// workload's, "TPROC-C"), against the database version at target. embedded
// says the database engine runs inside Sledge, so that its work counts as
// client CPU. The report starts with an empty line, to stand apart from the
// run's progress lines.
func RunResult(w io.Writer, title string, id int64, target, version string, r *metrics.RunResult, embedded bool) error {
	// Built whole, then written as lines: the tab-aligned blocks need their
	// flushes, and callers store the report line by line.
	var b strings.Builder
	tw := newTable(&b, 0)
	fmt.Fprintf(tw, "\n%s result (job %d): %s\n", title, id, r.Status)
	fmt.Fprintf(tw, "  database\t%s at %s\n", version, target)
	fmt.Fprintf(tw, "  setup\t%s%s, mode %s, isolation %s, %s\n",
		warehousesText(r), UsersText(r), r.Mode, r.Isolation, PacingLabel(r.Pacing))
	if r.Measured == 0 {
		fmt.Fprintf(tw, "  window\tnothing measured (stopped during ramp-up)\n")
		tw.Flush()
		_ = disruptionBlock(&b, r.Disruption)
		return writeLines(w, b.String())
	}
	fmt.Fprintf(tw, "  window\t%s\n", WindowText(r))
	// A check that could not be made is not available, with the reason:
	// never a disagreement.
	check := notAvailable("not available", r.DBCheckUnavailable)
	if r.HasDBCheck {
		check = fmt.Sprintf("database: %s from Δ sum(d_next_o_id), %d vs %d client-counted, ±%d allowed: %s",
			Int(r.NOPMDBCheck), r.DBNewOrders, r.NewOrders, r.DBCheckAllowance, checkVerdict(r))
	}
	fmt.Fprintf(tw, "  NOPM\t%s\t(%s)\n", Int(r.NOPM), check)
	if r.Pacing > 0 && r.PacedCeiling > 0 {
		// The workload computes the ceiling from its terminal model: 12.86
		// NOPM per ten terminals (a warehouse's) for TPROC-C (12.605 with
		// the 23-card deck), raised in proportion by scaled times.
		ceiling := r.PacedCeiling
		c := Int(ceiling)
		if ceiling < 1000 {
			c = fmt.Sprintf("%.2f", ceiling)
		}
		scaled := ""
		if r.Pacing != 1 {
			scaled = " ÷ the scale"
		}
		fmt.Fprintf(tw, "  efficiency\t%.1f%%\t(NOPM / %s, the paced ceiling of 12.86 per warehouse%s)\n",
			100*r.NOPM/ceiling, c, scaled)
	}
	fmt.Fprintf(tw, "  TPM\t%s\t(%s)\n", Int(r.TPM), serverTPMText(r, Int))
	fmt.Fprintf(tw, "  counted\t\t%s\n", countedText(r)) // in the explanations column
	engine := ""
	if embedded {
		engine = "; includes the embedded database engine"
	}
	fmt.Fprintf(tw, "  client CPU\t%.1f µs per transaction\t(%.2f s over the window%s)\n", r.ClientCPUPerTxUS, r.ClientCPU.Seconds(), engine)
	connectsLine(tw, r)
	loadLines(tw, r.Load)
	tw.Flush()
	_ = disruptionBlock(&b, r.Disruption)

	fmt.Fprintln(&b)
	tw = newTable(&b, tabwriter.AlignRight)
	fmt.Fprintln(tw, "  transaction\tcount\trollbacks\terrors\tretries\tmean ms\tp50 ms\tp95 ms\tp99 ms\tmax ms\t")
	for _, x := range r.Tx {
		fmt.Fprintf(tw, "  %s\t%d\t%d\t%d\t%d\t%.2f\t%.2f\t%.2f\t%.2f\t%.2f\t\n", x.Name, x.Count, x.RolledBack,
			x.ErrorCount(), x.Retries, MS(x.Mean), MS(x.P50), MS(x.P95), MS(x.P99), MS(x.Max))
	}
	tw.Flush()
	stagesBlock(&b, r)
	mixedBlock(&b, r)
	if r.Errors > 0 {
		fmt.Fprintln(&b, "\n  errors by class:")
		for _, x := range r.Tx {
			for _, cls := range metrics.SortedErrorClasses(x.Errors) {
				fmt.Fprintf(&b, "    %-14s %-14s %d\n", x.Name, cls, x.Errors[cls])
			}
		}
	}
	var retried int64
	for _, x := range r.Tx {
		retried += x.Retried
	}
	if retried > 0 {
		fmt.Fprintln(&b, "\n  retries (transactions retried, of them failed all the same; retries by cause):")
		for _, x := range r.Tx {
			if x.Retried == 0 {
				continue
			}
			fmt.Fprintf(&b, "    %-14s %d retried, %d failed after retries;", x.Name, x.Retried, x.FailedAfterRetries)
			for _, cls := range metrics.SortedErrorClasses(x.RetriesByClass) {
				fmt.Fprintf(&b, " %s %d", cls, x.RetriesByClass[cls])
			}
			fmt.Fprintln(&b)
		}
	}
	if len(r.Audit) > 0 {
		_ = auditBlock(&b, r.Audit)
	}
	for _, wn := range r.Warnings {
		fmt.Fprintf(&b, "\n  warning: %s", wn)
	}
	return writeLines(w, b.String())
}

// countedText says, once, what each throughput figure of a result counts:
// TPM and NOPM are the client's commits, the server's counter every
// session's commits and rollbacks (said only when it is there).
func countedText(r *metrics.RunResult) string {
	server := ""
	if r.HasServerTPM {
		server = "; server-wide: commits+rollbacks of every session"
	}
	return "TPM: commits the client saw (no rollbacks or failures)" + server + "; NOPM: committed New-Orders"
}

// auditBlock writes a run's audit: each item's value, its target with the
// accepted range and the sample it was judged on, and its verdict (ok, OFF,
// or n/a when there was too little to judge); the items' notes follow,
// numbered, each once.
func auditBlock(w io.Writer, items []metrics.AuditItem) error {
	fmt.Fprintln(w, "\n  audit:")
	tw := newTable(w, 0)
	var notes []string
	noteRef := map[string]int{}
	for _, a := range items {
		expected := a.Target
		if a.HasRange() {
			expected += ", accepted " + a.Accepted()
			if a.N > 0 {
				expected += ", n=" + Int(float64(a.N))
			}
		}
		mark := ""
		if a.Note != "" {
			k, ok := noteRef[a.Note]
			if !ok {
				notes = append(notes, a.Note)
				k = len(notes)
				noteRef[a.Note] = k
			}
			mark = fmt.Sprintf(" [%d]", k)
		}
		fmt.Fprintf(tw, "    %s\t%.2f%s\t(expected %s)\t%s%s\n", a.Name, a.Value, a.Unit, expected, a.Status(), mark)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for i, n := range notes {
		if _, err := fmt.Fprintf(w, "    [%d] %s\n", i+1, n); err != nil {
			return err
		}
	}
	return nil
}

// Check writes a check of the schema at target (title is the workload's) —
// row counts, then each condition's verdict — and returns how many
// conditions failed.
func Check(w io.Writer, title, target string, rep workload.CheckReport) (failed int, err error) {
	var b strings.Builder
	fmt.Fprintf(&b, "%s check of %s\n\n", title, target)
	tw := newTable(&b, 0)
	fmt.Fprintln(tw, "  table\trows")
	for _, tc := range rep.Tables {
		fmt.Fprintf(tw, "  %s\t%d\n", tc.Name, tc.Rows)
	}
	tw.Flush()
	fmt.Fprintln(&b)
	items := make([]jobs.CheckItem, len(rep.Conditions))
	for i, c := range rep.Conditions {
		items[i] = jobs.CheckItem(c)
	}
	_ = CheckItems(&b, items)
	failed = rep.Failed()
	return failed, writeLines(w, b.String())
}

// connectsLine words how long the run's sessions took to open as its load
// started, and where that time lies; nothing for a result stored before
// that was measured.
func connectsLine(w io.Writer, r *metrics.RunResult) {
	c := r.Connects
	if c.Count == 0 {
		return
	}
	where := "in the ramp-up, before the window"
	if r.ConnectsInWindow() {
		where = "at the window's start: no ramp-up"
	}
	fmt.Fprintf(w, "  sessions\t%s ms to open\t(the mean of %d; the longest %s ms; %s)\n",
		strconv.FormatFloat(MS(c.Mean()), 'f', 3, 64), c.Count, strconv.FormatFloat(MS(c.Max), 'f', 3, 64), where)
}
