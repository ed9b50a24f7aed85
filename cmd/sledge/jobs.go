package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/sledge-bench/sledge/internal/config"
	"github.com/sledge-bench/sledge/internal/jobs"
	"github.com/sledge-bench/sledge/internal/metrics"
)

// openRepo opens the jobs repository named by --repo (else $SLEDGE_REPO, else
// the data directory's jobs.db), creating it on first use.
func openRepo(ctx context.Context, g *globals) (*jobs.Repo, error) {
	path, err := config.RepoPath(g.repo)
	if err != nil {
		return nil, err
	}
	return jobs.Open(ctx, path)
}

const (
	formatText = "text"
	formatJSON = "json"
)

func checkFormat(f string) error {
	if f != formatText && f != formatJSON {
		return fmt.Errorf("--format %q: want text or json", f)
	}
	return nil
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false) // URLs with & and targets like "≈ 1.0" stay readable
	return enc.Encode(v)
}

func parseJobID(s string) (int64, error) {
	id, err := strconv.ParseInt(s, 10, 64)
	if err != nil || id <= 0 {
		return 0, fmt.Errorf("bad job id %q: want a positive number (see `sledge jobs`)", s)
	}
	return id, nil
}

// ---------------------------------------------------------------- list

type listFlags struct {
	format string
	kind   string
	status string
	limit  int
}

var (
	jobKinds    = []string{jobs.KindBuild, jobs.KindRun, jobs.KindCheck, jobs.KindDrop}
	jobStatuses = []string{metrics.StatusRunning, metrics.StatusCompleted, metrics.StatusInterrupted,
		metrics.StatusFailed, metrics.StatusAbandoned}
)

func oneOf(flag, v string, valid []string) error {
	if v == "" {
		return nil
	}
	for _, x := range valid {
		if v == x {
			return nil
		}
	}
	return fmt.Errorf("%s %q: want one of %s", flag, v, strings.Join(valid, ", "))
}

func addListFlags(cmd *cobra.Command, f *listFlags) {
	fl := cmd.Flags()
	fl.StringVar(&f.format, "format", formatText, "output format: text or json")
	fl.StringVar(&f.kind, "kind", "", "only jobs of this kind: "+strings.Join(jobKinds, ", "))
	fl.StringVar(&f.status, "status", "", "only jobs with this status: "+strings.Join(jobStatuses, ", "))
	fl.IntVarP(&f.limit, "limit", "n", 0, "show at most this many jobs, newest first (0: all)")
}

func newJobsCmd(g *globals) *cobra.Command {
	f := &listFlags{}
	cmd := &cobra.Command{
		Use:   "jobs",
		Short: "List, show and delete the recorded jobs",
		Long: `Every build, run, check and drop is recorded in the jobs repository with its
settings, console output, interval series and results. With no subcommand,
list the jobs, newest first.

A job still marked running whose process no longer exists on this host is
shown as abandoned.

--format json prints an array of objects with the keys id, kind, workload,
status, db_kind, target, db_version, host, pid, created_at, started_at,
ended_at (null while running), duration_s (null while running), error, and
nopm and tpm (null unless the job is a run with a result). Times are RFC 3339
in UTC.`,
		Example: `  sledge jobs
  sledge jobs --kind run --status completed --limit 10
  sledge jobs show 12
  sledge jobs show 12 result --format json
  sledge jobs delete 3 4 5`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runJobsList(cmd, g, f) },
	}
	addListFlags(cmd, f)

	lf := &listFlags{}
	list := &cobra.Command{
		Use:     "list",
		Aliases: []string{"ls"},
		Short:   "List the recorded jobs (the same as `sledge jobs`)",
		Args:    cobra.NoArgs,
		RunE:    func(cmd *cobra.Command, _ []string) error { return runJobsList(cmd, g, lf) },
	}
	addListFlags(list, lf)

	cmd.AddCommand(list, newJobsShowCmd(g), newJobsDeleteCmd(g))
	return cmd
}

func runJobsList(cmd *cobra.Command, g *globals, f *listFlags) error {
	if err := checkFormat(f.format); err != nil {
		return err
	}
	if err := oneOf("--kind", f.kind, jobKinds); err != nil {
		return err
	}
	if err := oneOf("--status", f.status, jobStatuses); err != nil {
		return err
	}
	if f.limit < 0 {
		return fmt.Errorf("--limit %d: want 0 (all) or more", f.limit)
	}
	ctx := cmd.Context()
	if r, ok, err := remoteFor(g); ok {
		if err != nil {
			return err
		}
		return remoteJobsList(ctx, cmd.OutOrStdout(), r, f)
	}
	repo, err := openRepo(ctx, g)
	if err != nil {
		return err
	}
	defer repo.Close()
	list, err := repo.List(ctx, jobs.ListFilter{Kind: f.kind, Status: f.status, Limit: f.limit})
	if err != nil {
		return err
	}
	w := cmd.OutOrStdout()
	if f.format == formatJSON {
		out := make([]jobJSON, 0, len(list)) // [] rather than null when empty
		for _, j := range list {
			out = append(out, toJobJSON(j))
		}
		return writeJSON(w, out)
	}
	if len(list) == 0 {
		fmt.Fprintf(w, "no jobs in %s\n", repo.Path())
		return nil
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tKIND\tWORKLOAD\tSTATUS\tTARGET\tSTARTED\tDURATION\tNOPM\tTPM")
	for _, j := range list {
		nopm, tpm := "", ""
		if j.Headline != nil {
			nopm, tpm = fmtRate(j.Headline.NOPM), fmtRate(j.Headline.TPM)
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", j.ID, j.Kind, dash(j.Workload), j.Status,
			dash(j.Target), fmtLocal(j.StartedAt), fmtJobDuration(j), nopm, tpm)
	}
	return tw.Flush()
}

// ---------------------------------------------------------------- JSON shapes
//
// These types are the stable JSON output of `sledge jobs`: keys are only ever
// added, never renamed or removed. Durations are seconds (*_s) or
// milliseconds (*_ms); rates are per minute; times are RFC 3339 in UTC.

// jsonFloat is a number that encodes NaN and ±Inf (which JSON cannot hold)
// as null.
type jsonFloat float64

func (f jsonFloat) MarshalJSON() ([]byte, error) {
	v := float64(f)
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return []byte("null"), nil
	}
	return json.Marshal(v)
}

// jobJSON is one job: an element of `sledge jobs --format json`, the output of
// `jobs show ID status --format json`, and the "job" of the summary.
type jobJSON struct {
	ID        int64      `json:"id"`
	Kind      string     `json:"kind"`
	Workload  string     `json:"workload"`
	Status    string     `json:"status"`
	DBKind    string     `json:"db_kind"`
	Target    string     `json:"target"` // never holds a password
	DBVersion string     `json:"db_version"`
	Host      string     `json:"host"`
	PID       int        `json:"pid"`
	CreatedAt string     `json:"created_at"`
	StartedAt string     `json:"started_at"`
	EndedAt   *string    `json:"ended_at"`   // null while running
	DurationS *jsonFloat `json:"duration_s"` // null while running
	Error     string     `json:"error"`
	NOPM      *jsonFloat `json:"nopm"` // null unless a run with a result
	TPM       *jsonFloat `json:"tpm"`
}

func jsonTime(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }

func toJobJSON(j jobs.Job) jobJSON {
	out := jobJSON{
		ID: j.ID, Kind: j.Kind, Workload: j.Workload, Status: j.Status, DBKind: j.DBKind, Target: j.Target,
		DBVersion: j.DBVersion, Host: j.Host, PID: j.PID, Error: j.Error,
		CreatedAt: jsonTime(j.CreatedAt), StartedAt: jsonTime(j.StartedAt),
	}
	if !j.EndedAt.IsZero() {
		e := jsonTime(j.EndedAt)
		d := jsonFloat(j.Duration().Seconds())
		out.EndedAt, out.DurationS = &e, &d
	}
	if j.Headline != nil {
		n, t := jsonFloat(j.Headline.NOPM), jsonFloat(j.Headline.TPM)
		out.NOPM, out.TPM = &n, &t
	}
	return out
}

// resultJSON is `jobs show ID result --format json`.
type resultJSON struct {
	JobID       int64   `json:"job_id"`
	Status      string  `json:"status"`
	VU          int     `json:"vu"`
	Warehouses  int     `json:"warehouses"`
	Mode        string  `json:"mode"`
	Isolation   string  `json:"isolation"`
	RampupS     float64 `json:"rampup_s"`
	DurationS   float64 `json:"duration_s"`            // the measured window
	ConfiguredS float64 `json:"configured_duration_s"` // --duration
	// Client-counted over the measured window.
	NOPM       jsonFloat `json:"nopm"`
	TPM        jsonFloat `json:"tpm"`
	NewOrders  int64     `json:"new_orders"`
	Commits    int64     `json:"commits"`
	Errors     int64     `json:"errors"`
	RolledBack int64     `json:"rolled_back"`
	// The database's own count of New-Orders over the window.
	DBNewOrders  int64     `json:"db_new_orders"`
	NOPMDBCheck  jsonFloat `json:"nopm_db_check"`
	DBCheckAgree bool      `json:"db_check_agree"`
	// Server-wide commits+rollbacks per minute; null when not available.
	ServerTPM        *jsonFloat  `json:"server_tpm"`
	ClientCPUS       float64     `json:"client_cpu_s"`
	ClientCPUPerTxUS jsonFloat   `json:"client_cpu_per_tx_us"`
	Warnings         []string    `json:"warnings"`
	Audit            []auditJSON `json:"audit"`
	// Transactions is keyed by transaction name; TransactionOrder gives the
	// run's order of the names (JSON objects are unordered).
	Transactions     map[string]txJSON `json:"transactions"`
	TransactionOrder []string          `json:"transaction_order"`
}

type auditJSON struct {
	Name   string    `json:"name"`
	Value  jsonFloat `json:"value"`
	Unit   string    `json:"unit"`
	Target string    `json:"target"`
	OK     bool      `json:"ok"`
}

// txJSON is one transaction type over the measured window.
type txJSON struct {
	Count              int64            `json:"count"` // committed
	RolledBack         int64            `json:"rolled_back"`
	Retries            int64            `json:"retries"`              // extra attempts
	RetriesByClass     map[string]int64 `json:"retries_by_class"`     // e.g. "deadlock": 4
	Retried            int64            `json:"retried"`              // transactions retried at least once
	FailedAfterRetries int64            `json:"failed_after_retries"` // of those, failed all the same
	MeanMS             float64          `json:"mean_ms"`
	P50MS              float64          `json:"p50_ms"`
	P95MS              float64          `json:"p95_ms"`
	P99MS              float64          `json:"p99_ms"`
	MaxMS              float64          `json:"max_ms"`
	Errors             int64            `json:"errors"`          // total
	ErrorsByClass      map[string]int64 `json:"errors_by_class"` // e.g. "serialization": 3
	// Histogram is the HDR histogram of latencies in µs (hdrhistogram-go V2
	// compressed, base64); only in `jobs show ID timing`.
	Histogram *string `json:"histogram,omitempty"`
}

func toTxJSON(t metrics.TxSummary, withHistogram bool) txJSON {
	out := txJSON{
		Count: t.Count, RolledBack: t.RolledBack, Retries: t.Retries, RetriesByClass: map[string]int64{},
		Retried: t.Retried, FailedAfterRetries: t.FailedAfterRetries,
		MeanMS: ms(t.Mean), P50MS: ms(t.P50), P95MS: ms(t.P95), P99MS: ms(t.P99), MaxMS: ms(t.Max),
		Errors: t.ErrorCount(), ErrorsByClass: map[string]int64{},
	}
	for k, v := range t.Errors {
		out.ErrorsByClass[k] = v
	}
	for k, v := range t.RetriesByClass {
		out.RetriesByClass[k] = v
	}
	if withHistogram {
		h := string(t.Histogram) // already base64 text
		out.Histogram = &h
	}
	return out
}

func toTransactionsJSON(txs []metrics.TxSummary, withHistogram bool) (map[string]txJSON, []string) {
	m := make(map[string]txJSON, len(txs))
	order := make([]string, 0, len(txs))
	for _, t := range txs {
		m[t.Name] = toTxJSON(t, withHistogram)
		order = append(order, t.Name)
	}
	return m, order
}

func toResultJSON(id int64, r *metrics.RunResult) resultJSON {
	out := resultJSON{
		JobID: id, Status: r.Status, VU: r.VUs, Warehouses: r.Warehouses, Mode: r.Mode, Isolation: r.Isolation,
		RampupS: r.Rampup.Seconds(), DurationS: r.Measured.Seconds(), ConfiguredS: r.Duration.Seconds(),
		NOPM: jsonFloat(r.NOPM), TPM: jsonFloat(r.TPM), NewOrders: r.NewOrders, Commits: r.Commits,
		Errors: r.Errors, RolledBack: r.RolledBack, DBNewOrders: r.DBNewOrders,
		NOPMDBCheck: jsonFloat(r.NOPMDBCheck), DBCheckAgree: r.DBCheckAgree,
		ClientCPUS: r.ClientCPU.Seconds(), ClientCPUPerTxUS: jsonFloat(r.ClientCPUPerTxUS),
		Warnings: append([]string{}, r.Warnings...), Audit: []auditJSON{},
	}
	if r.ServerTPM >= 0 {
		s := jsonFloat(r.ServerTPM)
		out.ServerTPM = &s
	}
	for _, a := range r.Audit {
		out.Audit = append(out.Audit, auditJSON{Name: a.Name, Value: jsonFloat(a.Value), Unit: a.Unit, Target: a.Target, OK: a.OK})
	}
	out.Transactions, out.TransactionOrder = toTransactionsJSON(r.Tx, false)
	return out
}

// intervalJSON is one element of `jobs show ID tcount --format json`.
type intervalJSON struct {
	Seq          int                       `json:"seq"`
	Phase        string                    `json:"phase"`     // rampup | measure
	ElapsedS     float64                   `json:"elapsed_s"` // end of the interval, since the run started
	LengthS      float64                   `json:"length_s"`
	TPM          jsonFloat                 `json:"tpm"`
	NOPM         jsonFloat                 `json:"nopm"`
	Errors       int64                     `json:"errors"`
	Transactions map[string]intervalTxJSON `json:"transactions"` // keyed by name
	VUs          []vuJSON                  `json:"vus"`          // each virtual user at the end of the interval
}

type vuJSON struct {
	VU      int    `json:"vu"`
	State   string `json:"state"` // starting | running | reconnecting | stopped
	Commits int64  `json:"commits"`
	Errors  int64  `json:"errors"`
}

type intervalTxJSON struct {
	Count  int64   `json:"count"`
	Errors int64   `json:"errors"`
	P50MS  float64 `json:"p50_ms"`
	P95MS  float64 `json:"p95_ms"`
	P99MS  float64 `json:"p99_ms"`
	MaxMS  float64 `json:"max_ms"`
}

func toIntervalsJSON(ivs []metrics.Interval) []intervalJSON {
	out := make([]intervalJSON, 0, len(ivs))
	for _, iv := range ivs {
		x := intervalJSON{Seq: iv.Seq, Phase: iv.Phase, ElapsedS: iv.Elapsed.Seconds(), LengthS: iv.Length.Seconds(),
			TPM: jsonFloat(iv.TPM), NOPM: jsonFloat(iv.NOPM), Errors: iv.Errors, Transactions: map[string]intervalTxJSON{},
			VUs: []vuJSON{}}
		for _, v := range iv.VUs {
			x.VUs = append(x.VUs, vuJSON{VU: v.VU, State: v.State, Commits: v.Commits, Errors: v.Errors})
		}
		for _, t := range iv.Tx {
			x.Transactions[t.Name] = intervalTxJSON{Count: t.Count, Errors: t.Errors,
				P50MS: ms(t.P50), P95MS: ms(t.P95), P99MS: ms(t.P99), MaxMS: ms(t.Max)}
		}
		out = append(out, x)
	}
	return out
}

// buildJSON is `jobs show ID build --format json`.
type buildJSON struct {
	Warehouses int              `json:"warehouses"`
	Workers    int              `json:"workers"`
	Rows       int64            `json:"rows"`
	Seconds    jsonFloat        `json:"seconds"`
	RowsPerSec jsonFloat        `json:"rows_per_s"`
	Tables     map[string]int64 `json:"tables"` // rows per table
}

func toBuildJSON(b *jobs.BuildResult) buildJSON {
	out := buildJSON{Warehouses: b.Warehouses, Workers: b.Workers, Rows: b.Rows, Seconds: jsonFloat(b.Seconds),
		RowsPerSec: jsonFloat(b.RowsPerSec), Tables: map[string]int64{}}
	for k, v := range b.Tables {
		out.Tables[k] = v
	}
	return out
}

// checkJSON is one condition of `jobs show ID check --format json` (an array).
type checkJSON struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	Passed      bool   `json:"passed"`
	Skipped     bool   `json:"skipped"`
	Violations  int64  `json:"violations"`
	Note        string `json:"note"`
}

func toCheckJSON(items []jobs.CheckItem) []checkJSON {
	out := make([]checkJSON, 0, len(items))
	for _, c := range items {
		out = append(out, checkJSON{Name: c.Name, Description: c.Description, Passed: c.Passed,
			Skipped: c.Skipped, Violations: c.Violations, Note: c.Note})
	}
	return out
}

// outputJSON is one line of `jobs show ID output --format json` (an array).
type outputJSON struct {
	Seq  int    `json:"seq"`
	At   string `json:"at"`
	Line string `json:"line"`
}

// summaryJSON is `jobs show ID --format json`: the job and whichever of
// result (runs), build (builds) and check (checks) it has; the others null.
type summaryJSON struct {
	Job    jobJSON     `json:"job"`
	Result *resultJSON `json:"result"`
	// Analytic is a TPROC-H run's result (omitted for other jobs).
	Analytic *analyticJSON `json:"analytic,omitempty"`
	Build    *buildJSON    `json:"build"`
	Check    []checkJSON   `json:"check"`
}

// ---------------------------------------------------------------- show

// showSections are the sections of `jobs show ID SECTION`, with their help.
var showSections = []struct{ name, help string }{
	{"result", "the run's result: NOPM, TPM, database cross-check, per-transaction timings, audit"},
	{"timing", "per-transaction counts, errors and latency percentiles (JSON adds the HDR histograms)"},
	{"tcount", "the interval series: TPM, NOPM, errors and per-transaction counts and p95 per interval"},
	{"config", "the job's settings"},
	{"status", "the job's record: status, times, target, host, error"},
	{"output", "the console output"},
	{"system", "the client machine: host, CPUs, OS, Go and Sledge versions"},
	{"build", "the build's result: rows loaded, speed, rows per table"},
	{"check", "the consistency conditions checked and their outcome"},
}

type showFlags struct{ format string }

func newJobsShowCmd(g *globals) *cobra.Command {
	f := &showFlags{}
	var help strings.Builder
	names := make([]string, 0, len(showSections))
	for _, s := range showSections {
		fmt.Fprintf(&help, "  %-8s %s\n", s.name, s.help)
		names = append(names, s.name)
	}
	cmd := &cobra.Command{
		Use:   "show ID [" + strings.Join(names, "|") + "]",
		Short: "Show one job: a summary, or one section of it",
		Long: `Show a job. With no section, a summary: the job's record and its result,
build or check. Sections:

` + help.String() + `
JSON (--format json): result is an object with status, vu, warehouses, mode,
isolation, rampup_s, duration_s (the measured window), configured_duration_s,
nopm, tpm, new_orders, commits, errors, rolled_back, db_new_orders,
nopm_db_check, db_check_agree, server_tpm (null when not available),
client_cpu_s, client_cpu_per_tx_us, warnings (array), audit (array of name,
value, unit, target, ok), transactions (an object keyed by transaction name,
each with count, rolled_back, retries, retries_by_class, retried,
failed_after_retries, mean_ms, p50_ms, p95_ms, p99_ms,
max_ms, errors and errors_by_class) and transaction_order. timing is that
transactions object with a histogram added to each; tcount an array of
intervals (seq, phase, elapsed_s, length_s, tpm, nopm, errors, transactions
keyed by name with count, errors, p50_ms, p95_ms, p99_ms, max_ms); config and
system objects of strings; output an array of seq, at, line; status the job
object of ` + "`sledge jobs --format json`" + `; build an object with warehouses,
workers, rows, seconds, rows_per_s and tables; check an array of name,
description, passed, skipped, violations, note; the summary an object with
job, result, build and check (null when absent).`,
		Example: `  sledge jobs show 12
  sledge jobs show 12 result --format json
  sledge jobs show 12 tcount`,
		Args: cobra.RangeArgs(1, 2),
		ValidArgsFunction: func(_ *cobra.Command, args []string, _ string) ([]string, cobra.ShellCompDirective) {
			if len(args) == 1 {
				return names, cobra.ShellCompDirectiveNoFileComp
			}
			return nil, cobra.ShellCompDirectiveNoFileComp
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkFormat(f.format); err != nil {
				return err
			}
			id, err := parseJobID(args[0])
			if err != nil {
				return err
			}
			section := ""
			if len(args) == 2 {
				section = args[1]
				if err := oneOf("section", section, names); err != nil {
					return err
				}
			}
			ctx := cmd.Context()
			repo, err := openRepo(ctx, g)
			if err != nil {
				return err
			}
			defer repo.Close()
			// Get first: a missing job is "no job N" whatever the section.
			j, err := repo.Get(ctx, id)
			if err != nil {
				return err
			}
			return showSection(ctx, cmd.OutOrStdout(), repo, j, section, f.format == formatJSON)
		},
	}
	cmd.Flags().StringVar(&f.format, "format", formatText, "output format: text or json")
	return cmd
}

func showSection(ctx context.Context, w io.Writer, repo *jobs.Repo, j jobs.Job, section string, asJSON bool) error {
	switch section {
	case "":
		return showSummary(ctx, w, repo, j, asJSON)
	case "status":
		if asJSON {
			return writeJSON(w, toJobJSON(j))
		}
		return printJob(w, j)
	case "result", "timing":
		if j.Workload == workloadTPROCH && section == "result" {
			found, err := showAnalytic(ctx, w, repo, j, asJSON)
			if err != nil || found {
				return err
			}
			return noSection(j, "TPROC-H result")
		}
		res, err := repo.RunResult(ctx, j.ID)
		if err != nil {
			return err
		}
		if res == nil {
			return noSection(j, "run result")
		}
		if section == "timing" {
			if asJSON {
				m, _ := toTransactionsJSON(res.Tx, true)
				return writeJSON(w, m)
			}
			return printTiming(w, res)
		}
		if asJSON {
			return writeJSON(w, toResultJSON(j.ID, res))
		}
		return printRunResult(w, j, res)
	case "tcount":
		ivs, err := repo.Intervals(ctx, j.ID)
		if err != nil {
			return err
		}
		if asJSON {
			return writeJSON(w, toIntervalsJSON(ivs))
		}
		if len(ivs) == 0 {
			return noSection(j, "interval series")
		}
		return printIntervals(w, ivs)
	case "config", "system":
		get := repo.Config
		if section == "system" {
			get = repo.System
		}
		kv, err := get(ctx, j.ID)
		if err != nil {
			return err
		}
		if asJSON {
			return writeJSON(w, kv)
		}
		return printKV(w, kv)
	case "output":
		lines, err := repo.Output(ctx, j.ID)
		if err != nil {
			return err
		}
		if asJSON {
			out := make([]outputJSON, 0, len(lines))
			for _, l := range lines {
				out = append(out, outputJSON{Seq: l.Seq, At: jsonTime(l.At), Line: l.Line})
			}
			return writeJSON(w, out)
		}
		for _, l := range lines {
			fmt.Fprintln(w, l.Line)
		}
		return nil
	case "build":
		b, err := repo.Build(ctx, j.ID)
		if err != nil {
			return err
		}
		if b == nil {
			return noSection(j, "build result")
		}
		if asJSON {
			return writeJSON(w, toBuildJSON(b))
		}
		return printBuild(w, b)
	case "check":
		items, err := repo.Check(ctx, j.ID)
		if err != nil {
			return err
		}
		if items == nil {
			return noSection(j, "check result")
		}
		if asJSON {
			return writeJSON(w, toCheckJSON(items))
		}
		return printCheckItems(w, items)
	}
	return fmt.Errorf("unknown section %q", section) // unreachable: validated by the caller
}

// noSection explains why a job has no such section, as an error so that
// scripts asking for it fail instead of reading an empty answer.
func noSection(j jobs.Job, what string) error {
	why := ""
	switch {
	case j.Status == metrics.StatusRunning:
		why = ": it is still running"
	case j.Status != metrics.StatusCompleted && j.Status != metrics.StatusInterrupted:
		why = fmt.Sprintf(": it is %s", j.Status)
	}
	return fmt.Errorf("job %d (%s) has no %s%s", j.ID, j.Kind, what, why)
}

func showSummary(ctx context.Context, w io.Writer, repo *jobs.Repo, j jobs.Job, asJSON bool) error {
	res, err := repo.RunResult(ctx, j.ID)
	if err != nil {
		return err
	}
	b, err := repo.Build(ctx, j.ID)
	if err != nil {
		return err
	}
	items, err := repo.Check(ctx, j.ID)
	if err != nil {
		return err
	}
	ares, err := repo.AnalyticResult(ctx, j.ID)
	if err != nil {
		return err
	}
	if asJSON {
		s := summaryJSON{Job: toJobJSON(j)}
		if ares != nil {
			a := toAnalyticJSON(j.ID, ares)
			s.Analytic = &a
		}
		if res != nil {
			r := toResultJSON(j.ID, res)
			s.Result = &r
		}
		if b != nil {
			bj := toBuildJSON(b)
			s.Build = &bj
		}
		if items != nil {
			s.Check = toCheckJSON(items)
		}
		return writeJSON(w, s)
	}
	if err := printJob(w, j); err != nil {
		return err
	}
	if res != nil {
		fmt.Fprintln(w)
		if err := printRunResult(w, j, res); err != nil {
			return err
		}
	}
	if ares != nil {
		if _, err := showAnalytic(ctx, w, repo, j, false); err != nil {
			return err
		}
	}
	if b != nil {
		fmt.Fprintln(w)
		if err := printBuild(w, b); err != nil {
			return err
		}
	}
	if items != nil {
		fmt.Fprintln(w)
		if err := printCheckItems(w, items); err != nil {
			return err
		}
	}
	return nil
}

// ---------------------------------------------------------------- text

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func fmtLocal(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.Local().Format("2006-01-02 15:04:05")
}

func fmtJobDuration(j jobs.Job) string {
	if j.EndedAt.IsZero() {
		return "-"
	}
	d := j.Duration()
	if d < time.Minute {
		return d.Round(100 * time.Millisecond).String()
	}
	return d.Round(time.Second).String()
}

// fmtRate is fmtInt that survives NaN (a rate over an empty window).
func fmtRate(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "-"
	}
	return fmtInt(v)
}

func printJob(w io.Writer, j jobs.Job) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "job\t%d\n", j.ID)
	fmt.Fprintf(tw, "kind\t%s %s\n", j.Kind, j.Workload)
	fmt.Fprintf(tw, "status\t%s\n", j.Status)
	fmt.Fprintf(tw, "target\t%s\n", dash(j.Target))
	if j.DBVersion != "" {
		fmt.Fprintf(tw, "database\t%s\n", j.DBVersion)
	}
	fmt.Fprintf(tw, "started\t%s\n", fmtLocal(j.StartedAt))
	if !j.EndedAt.IsZero() {
		fmt.Fprintf(tw, "ended\t%s (%s)\n", fmtLocal(j.EndedAt), fmtJobDuration(j))
	}
	fmt.Fprintf(tw, "host\t%s (pid %d)\n", dash(j.Host), j.PID)
	if j.Error != "" {
		fmt.Fprintf(tw, "error\t%s\n", j.Error)
	}
	return tw.Flush()
}

func printRunResult(w io.Writer, j jobs.Job, r *metrics.RunResult) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "TPROC-C result (job %d): %s\n", j.ID, r.Status)
	fmt.Fprintf(tw, "  setup\t%d warehouses, %d VUs, mode %s, isolation %s\n", r.Warehouses, r.VUs, r.Mode, r.Isolation)
	if r.Measured == 0 {
		fmt.Fprintf(tw, "  window\tnothing measured (stopped during ramp-up)\n")
		return tw.Flush()
	}
	fmt.Fprintf(tw, "  window\t%.1f s measured (ramp-up %s not counted)\n", r.Measured.Seconds(), r.Rampup)
	check := "database cross-check not available"
	if r.DBNewOrders != 0 || r.NOPMDBCheck != 0 {
		verdict := "agrees"
		if !r.DBCheckAgree {
			verdict = "DISAGREES"
		}
		check = fmt.Sprintf("database: %s, %d vs %d New-Orders client-counted: %s",
			fmtRate(r.NOPMDBCheck), r.DBNewOrders, r.NewOrders, verdict)
	}
	fmt.Fprintf(tw, "  NOPM\t%s\t(%s)\n", fmtRate(r.NOPM), check)
	server := "server counter not available"
	if r.ServerTPM >= 0 {
		server = fmt.Sprintf("server-wide commits+rollbacks: %s/min", fmtRate(r.ServerTPM))
	}
	fmt.Fprintf(tw, "  TPM\t%s\t(%s)\n", fmtRate(r.TPM), server)
	fmt.Fprintf(tw, "  committed\t%s\t(%s New-Orders, %d rolled back, %d errors)\n",
		fmtInt(float64(r.Commits)), fmtInt(float64(r.NewOrders)), r.RolledBack, r.Errors)
	fmt.Fprintf(tw, "  client CPU\t%.1f µs per transaction\t(%.2f s over the window)\n", r.ClientCPUPerTxUS, r.ClientCPU.Seconds())
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(w)
	if err := printTiming(w, r); err != nil {
		return err
	}
	if len(r.Audit) > 0 {
		fmt.Fprintln(w, "\n  audit:")
		tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		for _, a := range r.Audit {
			verdict := "ok"
			if !a.OK {
				verdict = "OFF"
			}
			fmt.Fprintf(tw, "    %s\t%.2f%s\t(expected %s)\t%s\n", a.Name, a.Value, a.Unit, a.Target, verdict)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	for _, wn := range r.Warnings {
		fmt.Fprintf(w, "\n  warning: %s\n", wn)
	}
	return nil
}

func printTiming(w io.Writer, r *metrics.RunResult) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "  transaction\tcount\trollbacks\terrors\tretries\tmean ms\tp50 ms\tp95 ms\tp99 ms\tmax ms\t")
	for _, x := range r.Tx {
		fmt.Fprintf(tw, "  %s\t%d\t%d\t%d\t%d\t%.2f\t%.2f\t%.2f\t%.2f\t%.2f\t\n", x.Name, x.Count, x.RolledBack,
			x.ErrorCount(), x.Retries, ms(x.Mean), ms(x.P50), ms(x.P95), ms(x.P99), ms(x.Max))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if r.Errors == 0 && !anyErrors(r.Tx) {
		return nil
	}
	fmt.Fprintln(w, "\n  errors by class:")
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, x := range r.Tx {
		for _, cls := range metrics.SortedErrorClasses(x.Errors) {
			fmt.Fprintf(tw, "    %s\t%s\t%d\n", x.Name, cls, x.Errors[cls])
		}
	}
	return tw.Flush()
}

func anyErrors(txs []metrics.TxSummary) bool {
	for _, t := range txs {
		if t.ErrorCount() > 0 {
			return true
		}
	}
	return false
}

func printIntervals(w io.Writer, ivs []metrics.Interval) error {
	// Columns follow the first interval's transaction types; every interval
	// of a run has the same ones.
	var names []string
	for _, t := range ivs[0].Tx {
		names = append(names, t.Name)
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprint(tw, "seq\tphase\telapsed\tTPM\tNOPM\terrors\t")
	for _, n := range names {
		fmt.Fprintf(tw, "%s\tp95 ms\t", n)
	}
	fmt.Fprintln(tw)
	for _, iv := range ivs {
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%d\t", iv.Seq, iv.Phase, fmtElapsed(iv.Elapsed),
			fmtRate(iv.TPM), fmtRate(iv.NOPM), iv.Errors)
		byName := make(map[string]metrics.IntervalTx, len(iv.Tx))
		for _, t := range iv.Tx {
			byName[t.Name] = t
		}
		for _, n := range names {
			t := byName[n]
			fmt.Fprintf(tw, "%d\t%.2f\t", t.Count, ms(t.P95))
		}
		fmt.Fprintln(tw)
	}
	return tw.Flush()
}

func printKV(w io.Writer, kv map[string]string) error {
	keys := make([]string, 0, len(kv))
	for k := range kv {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, k := range keys {
		fmt.Fprintf(tw, "%s\t%s\n", k, kv[k])
	}
	return tw.Flush()
}

func printBuild(w io.Writer, b *jobs.BuildResult) error {
	fmt.Fprintf(w, "build: %d warehouses with %d workers: %s rows in %.1f s (%s rows/s)\n\n",
		b.Warehouses, b.Workers, fmtInt(float64(b.Rows)), b.Seconds, fmtRate(b.RowsPerSec))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "  table\trows\t")
	for _, name := range b.SortedTables() {
		fmt.Fprintf(tw, "  %s\t%d\t\n", name, b.Tables[name])
	}
	return tw.Flush()
}

func printCheckItems(w io.Writer, items []jobs.CheckItem) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
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
	if failed > 0 {
		fmt.Fprintf(w, "\n%d conditions failed\n", failed)
	} else {
		fmt.Fprintln(w, "\nall conditions hold")
	}
	return nil
}

// ---------------------------------------------------------------- delete

func newJobsDeleteCmd(g *globals) *cobra.Command {
	var force bool
	cmd := &cobra.Command{
		Use:     "delete ID...",
		Aliases: []string{"rm"},
		Short:   "Delete jobs and everything recorded with them",
		Long: `Delete jobs with their settings, output, intervals and results. A job that is
still running (its process alive, or on another host where that cannot be
checked) is refused unless --force.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			// Parse every id first: a typo must not leave half the list deleted.
			ids := make([]int64, 0, len(args))
			for _, a := range args {
				id, err := parseJobID(a)
				if err != nil {
					return err
				}
				ids = append(ids, id)
			}
			ctx := cmd.Context()
			repo, err := openRepo(ctx, g)
			if err != nil {
				return err
			}
			defer repo.Close()
			var errs []error
			for _, id := range ids {
				if err := deleteJob(ctx, repo, id, force); err != nil {
					errs = append(errs, err)
					continue
				}
				fmt.Fprintf(cmd.OutOrStdout(), "deleted job %d\n", id)
			}
			return errors.Join(errs...)
		},
	}
	cmd.Flags().BoolVarP(&force, "force", "f", false, "delete running jobs too")
	return cmd
}

func deleteJob(ctx context.Context, repo *jobs.Repo, id int64, force bool) error {
	j, err := repo.Get(ctx, id) // also turns a dead process's job into abandoned
	if err != nil {
		return err
	}
	if j.Status == metrics.StatusRunning && !force {
		return fmt.Errorf("job %d is still running (pid %d on %s); use --force to delete it anyway", id, j.PID, j.Host)
	}
	return repo.Delete(ctx, id)
}
