package report

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/sledge-bench/sledge/internal/jobs"
	"github.com/sledge-bench/sledge/internal/metrics"
)

// Dash is s, or "-" when it is empty (an empty table cell reads as missing).
func Dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// LocalTime renders a time in the local zone to the second; "-" when zero.
func LocalTime(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.Local().Format("2006-01-02 15:04:05")
}

// JobDuration is how long a finished job ran, to a tenth of a second under a
// minute and to the second above; "-" while it runs.
func JobDuration(j jobs.Job) string {
	if j.EndedAt.IsZero() {
		return "-"
	}
	d := j.Duration()
	if d < time.Minute {
		return d.Round(100 * time.Millisecond).String()
	}
	return d.Round(time.Second).String()
}

// newTable is the tabwriter of every aligned block: two spaces between
// columns.
func newTable(w io.Writer, flags uint) *tabwriter.Writer {
	return tabwriter.NewWriter(w, 0, 0, 2, ' ', flags)
}

// JobsTable writes jobs as a table, one line each under a header (only the
// header for none: saying where no jobs were found is the caller's). A run's
// headline is NOPM and TPM for TPROC-C, the geometric mean of the power
// test's query times (GEOMEAN, n/a when not computed) for TPROC-H.
func JobsTable(w io.Writer, list []jobs.Job) error {
	tw := newTable(w, 0)
	// PART OF only when some job is part of a series or profile: a plain
	// listing keeps its columns.
	// IMPORTED FROM likewise, when some job was imported.
	grouped, imported := false, false
	for _, j := range list {
		grouped = grouped || PartOfText(j.PartOf) != ""
		imported = imported || j.Origin != nil
	}
	head := "ID\tKIND\tWORKLOAD\tSTATUS\tTARGET\tSTARTED\tDURATION\tNOPM\tTPM\tGEOMEAN"
	if grouped {
		head += "\tPART OF"
	}
	if imported {
		head += "\tIMPORTED FROM"
	}
	fmt.Fprintln(tw, head)
	for _, j := range list {
		nopm, tpm, geomean := "", "", ""
		if j.Headline != nil {
			nopm, tpm = Rate(j.Headline.NOPM), Rate(j.Headline.TPM)
		}
		if j.GeomeanS != nil {
			geomean = nanOr(*j.GeomeanS, "%.3f s")
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s", j.ID, j.Kind, Dash(j.Workload), j.Status,
			Dash(j.Target), LocalTime(j.StartedAt), JobDuration(j), nopm, tpm, geomean)
		if grouped {
			fmt.Fprintf(tw, "\t%s", PartOfText(j.PartOf))
		}
		if imported && j.Origin != nil {
			fmt.Fprintf(tw, "\tjob %d on %s", j.Origin.ID, Dash(j.Origin.Host))
		}
		fmt.Fprintln(tw)
	}
	return tw.Flush()
}

// OriginText says where an imported job was recorded: "job 7 of
// bench-01 (sqlite:jobs.db), exported 2026-11-28 01:02:03 by sledge 1.2.3;
// read-only".
func OriginText(o *jobs.Origin) string {
	return fmt.Sprintf("job %d of %s (%s), exported %s by sledge %s; read-only",
		o.ID, Dash(o.Host), Dash(o.Repository), LocalTime(o.ExportedAt), Dash(o.SledgeVersion))
}

// PartOfText places a job in its profile or series: "profile 12, 8 VUs,
// trial 2/3", "series 40, trial 1/5", "series 40" (a rebuild between its
// trials); "" for none.
func PartOfText(p jobs.PartOf) string {
	var parts []string
	switch {
	case p.Profile != "":
		parts = append(parts, "profile "+p.Profile)
		if p.ProfileVU != "" {
			parts = append(parts, p.ProfileVU+" VUs")
		}
	case p.Series != "":
		parts = append(parts, "series "+p.Series)
	case p.Trial != "":
		parts = append(parts, "series") // the first trial, until its id is recorded as the series'
	}
	if p.Trial != "" {
		parts = append(parts, "trial "+p.Trial)
	}
	return strings.Join(parts, ", ")
}

// Job writes a job's record: status, times, target, host, error.
func Job(w io.Writer, j jobs.Job) error {
	tw := newTable(w, 0)
	fmt.Fprintf(tw, "job\t%d\n", j.ID)
	fmt.Fprintf(tw, "kind\t%s %s\n", j.Kind, j.Workload)
	fmt.Fprintf(tw, "status\t%s\n", j.Status)
	fmt.Fprintf(tw, "target\t%s\n", Dash(j.Target))
	if j.DBVersion != "" {
		fmt.Fprintf(tw, "database\t%s\n", j.DBVersion)
	}
	fmt.Fprintf(tw, "started\t%s\n", LocalTime(j.StartedAt))
	if !j.EndedAt.IsZero() {
		fmt.Fprintf(tw, "ended\t%s (%s)\n", LocalTime(j.EndedAt), JobDuration(j))
	}
	fmt.Fprintf(tw, "host\t%s (pid %d)\n", Dash(j.Host), j.PID)
	if j.Origin != nil {
		fmt.Fprintf(tw, "imported\t%s\n", OriginText(j.Origin))
	}
	if j.Error != "" {
		fmt.Fprintf(tw, "error\t%s\n", j.Error)
	}
	return tw.Flush()
}

// StoredRunResult writes job j's stored OLTP result (title is the
// workload's, "TPROC-C"). Unlike RunResult it has no database line (the job
// record has it) and no efficiency line (the paced ceiling is not stored).
func StoredRunResult(w io.Writer, title string, j jobs.Job, r *metrics.RunResult) error {
	tw := newTable(w, 0)
	fmt.Fprintf(tw, "%s result (job %d): %s\n", title, j.ID, r.Status)
	fmt.Fprintf(tw, "  setup\t%s%s, mode %s, isolation %s\n", warehousesText(r), UsersText(r), r.Mode, r.Isolation)
	if r.Measured == 0 {
		fmt.Fprintf(tw, "  window\tnothing measured (stopped during ramp-up)\n")
		if err := tw.Flush(); err != nil {
			return err
		}
		return disruptionBlock(w, r.Disruption)
	}
	fmt.Fprintf(tw, "  window\t%s\n", WindowText(r))
	// A check that could not be made is not available, with the reason:
	// never a disagreement.
	check := notAvailable("database cross-check not available", r.DBCheckUnavailable)
	if r.HasDBCheck {
		check = fmt.Sprintf("database: %s, %d vs %d New-Orders client-counted: %s",
			Rate(r.NOPMDBCheck), r.DBNewOrders, r.NewOrders, checkVerdict(r))
	}
	fmt.Fprintf(tw, "  NOPM\t%s\t(%s)\n", Rate(r.NOPM), check)
	fmt.Fprintf(tw, "  TPM\t%s\t(%s)\n", Rate(r.TPM), serverTPMText(r, Rate))
	fmt.Fprintf(tw, "  counted\t\t%s\n", countedText(r)) // in the explanations column
	fmt.Fprintf(tw, "  committed\t%s\t(%s New-Orders, %d rolled back, %d errors)\n",
		Int(float64(r.Commits)), Int(float64(r.NewOrders)), r.RolledBack, r.Errors)
	fmt.Fprintf(tw, "  client CPU\t%.1f µs per transaction\t(%.2f s over the window)\n", r.ClientCPUPerTxUS, r.ClientCPU.Seconds())
	connectsLine(tw, r)
	loadLines(tw, r.Load)
	if err := tw.Flush(); err != nil {
		return err
	}
	if err := disruptionBlock(w, r.Disruption); err != nil {
		return err
	}
	fmt.Fprintln(w)
	if err := Timing(w, r); err != nil {
		return err
	}
	stagesBlock(w, r)
	mixedBlock(w, r)
	if len(r.Audit) > 0 {
		if err := auditBlock(w, r.Audit); err != nil {
			return err
		}
	}
	for _, wn := range r.Warnings {
		fmt.Fprintf(w, "\n  warning: %s\n", wn)
	}
	return nil
}

// Timing writes a run's per-transaction counts and latency percentiles, and
// its errors by class when there were any.
func Timing(w io.Writer, r *metrics.RunResult) error {
	tw := newTable(w, tabwriter.AlignRight)
	fmt.Fprintln(tw, "  transaction\tcount\trollbacks\terrors\tretries\tmean ms\tp50 ms\tp95 ms\tp99 ms\tmax ms\t")
	for _, x := range r.Tx {
		fmt.Fprintf(tw, "  %s\t%d\t%d\t%d\t%d\t%.2f\t%.2f\t%.2f\t%.2f\t%.2f\t\n", x.Name, x.Count, x.RolledBack,
			x.ErrorCount(), x.Retries, MS(x.Mean), MS(x.P50), MS(x.P95), MS(x.P99), MS(x.Max))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	anyErrors := slices.ContainsFunc(r.Tx, func(t metrics.TxSummary) bool { return t.ErrorCount() > 0 })
	if r.Errors == 0 && !anyErrors {
		return nil
	}
	fmt.Fprintln(w, "\n  errors by class:")
	tw = newTable(w, 0)
	for _, x := range r.Tx {
		for _, cls := range metrics.SortedErrorClasses(x.Errors) {
			fmt.Fprintf(tw, "    %s\t%s\t%d\n", x.Name, cls, x.Errors[cls])
		}
	}
	return tw.Flush()
}

// Intervals writes an interval series as a table, one line per interval;
// nothing for none.
func Intervals(w io.Writer, ivs []metrics.Interval) error {
	if len(ivs) == 0 {
		return nil
	}
	// Columns follow the first interval's transaction types; every interval
	// of a run has the same ones.
	var names []string
	for _, t := range ivs[0].Tx {
		names = append(names, t.Name)
	}
	tw := newTable(w, tabwriter.AlignRight)
	fmt.Fprint(tw, "seq\tphase\telapsed\tTPM\tNOPM\terrors\t")
	for _, n := range names {
		fmt.Fprintf(tw, "%s\tp95 ms\t", n)
	}
	fmt.Fprintln(tw)
	for _, iv := range ivs {
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%d\t", iv.Seq, iv.Phase, Elapsed(iv.Elapsed),
			Rate(iv.TPM), Rate(iv.NOPM), iv.Errors)
		byName := make(map[string]metrics.IntervalTx, len(iv.Tx))
		for _, t := range iv.Tx {
			byName[t.Name] = t
		}
		for _, n := range names {
			t := byName[n]
			fmt.Fprintf(tw, "%d\t%.2f\t", t.Count, MS(t.P95))
		}
		fmt.Fprintln(tw)
	}
	return tw.Flush()
}

// KV writes settings as "key value" lines sorted by key.
func KV(w io.Writer, kv map[string]string) error {
	tw := newTable(w, 0)
	for _, k := range slices.Sorted(maps.Keys(kv)) {
		fmt.Fprintf(tw, "%s\t%s\n", k, kv[k])
	}
	return tw.Flush()
}

// Build writes a build's result: rows loaded, speed, rows per table.
func Build(w io.Writer, b *jobs.BuildResult) error {
	fmt.Fprintf(w, "build: %d warehouses with %d workers: %s rows in %.1f s (%s rows/s)\n\n",
		b.Warehouses, b.Workers, Int(float64(b.Rows)), b.Seconds, Rate(b.RowsPerSec))
	tw := newTable(w, tabwriter.AlignRight)
	fmt.Fprintln(tw, "  table\trows\t")
	for _, name := range b.SortedTables() {
		fmt.Fprintf(tw, "  %s\t%d\t\n", name, b.Tables[name])
	}
	return tw.Flush()
}

// CheckItems writes a check's conditions and their verdicts (a live check's
// through Check, a stored one's directly).
func CheckItems(w io.Writer, items []jobs.CheckItem) error {
	tw := newTable(w, 0)
	failed := 0
	for _, c := range items {
		verdict := "PASS"
		switch {
		case c.Skipped:
			verdict = "skip"
		case !c.Passed:
			verdict = fmt.Sprintf("FAIL (%d violations)", c.Violations)
			failed++
		}
		note := ""
		if c.Note != "" {
			note = " — " + c.Note
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s%s\n", c.Name, verdict, c.Description, note)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	var err error
	if failed > 0 {
		_, err = fmt.Fprintf(w, "\n%d conditions failed\n", failed)
	} else {
		_, err = fmt.Fprintln(w, "\nall conditions hold")
	}
	return err
}
