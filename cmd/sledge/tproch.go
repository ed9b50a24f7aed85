package main

import (
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"runtime"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/sledge-bench/sledge/internal/config"
	"github.com/sledge-bench/sledge/internal/db"
	"github.com/sledge-bench/sledge/internal/db/drivers"
	"github.com/sledge-bench/sledge/internal/jobs"
	"github.com/sledge-bench/sledge/internal/metrics"
	"github.com/sledge-bench/sledge/internal/workload/tprocc"
	"github.com/sledge-bench/sledge/internal/workload/tproch"
)

// TPROC-H from the command line: `sledge build|run|drop --workload tproch`.

const workloadTPROCH = "tproch"

// parseWorkload accepts the --workload values.
func parseWorkload(s string) (string, error) {
	switch strings.ToLower(s) {
	case "", "tprocc", "tproc-c":
		return workloadTPROCC, nil
	case "tproch", "tproc-h":
		return workloadTPROCH, nil
	}
	return "", fmt.Errorf("--workload %q: want tprocc or tproch", s)
}

const workloadFlagHelp = "workload: tprocc (OLTP, default) or tproch (analytic)"

// tprochTarget resolves --db for TPROC-H: the embedded DuckDB database by
// default.
func tprochTarget(flag string) (db.Target, error) {
	if flag == "" {
		flag = os.Getenv("SLEDGE_DB")
	}
	if flag == "" {
		def, err := config.DefaultTPROCHDatabase()
		if err != nil {
			return db.Target{}, err
		}
		flag = def
	}
	return db.ParseTarget(flag)
}

func runBuildH(ctx context.Context, w io.Writer, repo *jobs.Repo, f *buildFlags) error {
	t, err := tprochTarget(f.db)
	if err != nil {
		return err
	}
	if f.scale <= 0 {
		return fmt.Errorf("--scale must be positive (got %g)", f.scale)
	}
	drv, err := drivers.For(t.Kind)
	if err != nil {
		return err
	}
	workers := f.workers
	if workers == 0 {
		workers = runtime.NumCPU()
	}
	id := startWorkloadJob(ctx, repo, "build", workloadTPROCH, t, map[string]string{
		"db": t.String(), "scale_factor": strconv.FormatFloat(f.scale, 'g', -1, 64), "workers": strconv.Itoa(workers),
		"force": strconv.FormatBool(f.force),
	})
	out := &jobOutput{w: w, repo: repo, id: id, headTx: -1}
	if id != 0 {
		out.Logf("build job %d: TPROC-H scale factor %g%s into %s with %s", id, f.scale, fractional(f.scale), t, plural(workers, "worker"))
	}
	bar := newProgress(os.Stderr, out)
	rep, err := tproch.Build(ctx, drv, t, tproch.BuildOptions{SF: f.scale, Workers: workers, Force: f.force,
		Progress: func(p tproch.Progress) { bar.update(progressOf(p)) }})
	bar.done()
	if rep.Version != "" && id != 0 {
		_ = repo.SetDBVersion(ctx, id, rep.Version)
	}
	if err != nil {
		finishJob(repo, id, statusOf(ctx, err), err)
		return fmt.Errorf("build: %w", err)
	}
	secs := rep.Duration.Seconds()
	if id != 0 {
		if err := repo.SaveBuildResult(ctx, id, jobs.BuildResult{Workers: rep.Workers, Rows: rep.Rows, Seconds: secs,
			RowsPerSec: float64(rep.Rows) / secs, Tables: rep.Tables}); err != nil {
			fmt.Fprintf(os.Stderr, "sledge: warning: cannot record the build: %v\n", err)
		}
	}
	finishJob(repo, id, metrics.StatusCompleted, nil)
	out.Logf("built TPROC-H scale factor %g: %s rows in %.1f s (%s rows/s; load time as the specification counts it: schema, load, keys, statistics)",
		f.scale, fmtInt(float64(rep.Rows)), secs, fmtInt(float64(rep.Rows)/secs))
	return nil
}

// progressOf shows TPROC-H build progress on the same bar as TPROC-C's.
func progressOf(p tproch.Progress) tprocc.Progress {
	return tprocc.Progress{Phase: p.Phase, RowsDone: p.RowsDone, RowsTotal: p.RowsTotal, Table: p.Table}
}

// fractional labels scale factors outside the specification's list.
func fractional(sf float64) string {
	for _, ok := range []float64{1, 10, 30, 100, 300, 1000, 3000, 10000, 30000, 100000} {
		if sf == ok {
			return ""
		}
	}
	return " (not a specification scale factor: for tests and quick looks)"
}

func runRunH(ctx context.Context, w io.Writer, g *globals, f *runFlags) error {
	t, err := tprochTarget(f.db)
	if err != nil {
		return err
	}
	drv, err := drivers.For(t.Kind)
	if err != nil {
		return err
	}
	repo, err := openRepo(ctx, g)
	if err != nil {
		return err
	}
	defer repo.Close()
	id := startWorkloadJob(ctx, repo, "run", workloadTPROCH, t, map[string]string{
		"db": t.String(), "streams": strconv.Itoa(f.streams), "query_sets": strconv.Itoa(f.querySets),
		"refresh": strconv.FormatBool(f.refresh), "validate": strconv.FormatBool(f.validate),
		"seed": strconv.FormatUint(f.seed, 10),
	})
	out := &jobOutput{w: w, repo: repo, id: id, headTx: -1}
	if c, err := drv.Connect(ctx, t, db.Options{}); err == nil {
		if v, err := drv.Version(ctx, c); err == nil && id != 0 {
			_ = repo.SetDBVersion(ctx, id, v)
		}
		c.Close(context.Background())
	}
	res, err := tproch.Run(ctx, drv, t, tproch.RunOptions{Streams: f.streams, QuerySets: f.querySets,
		Refresh: f.refresh, Seed: int64(f.seed), Validate: f.validate, Logf: out.Logf})
	if res == nil {
		finishJob(repo, id, statusOf(ctx, err), err)
		return err
	}
	if id != 0 {
		if serr := repo.SaveAnalyticResult(context.WithoutCancel(ctx), id, res); serr != nil {
			fmt.Fprintf(os.Stderr, "sledge: warning: cannot record the result: %v\n", serr)
		}
	}
	printAnalytic(out, id, t, res)
	finishJob(repo, id, res.Status, err)
	if err != nil {
		return err
	}
	if res.Status != metrics.StatusCompleted {
		return exitError{code: 1}
	}
	for _, q := range res.Queries {
		if q.Error != "" {
			return exitError{code: 1}
		}
	}
	return nil
}

func printAnalytic(out *jobOutput, id int64, t db.Target, r *metrics.AnalyticResult) {
	var b strings.Builder
	fmt.Fprintf(&b, "\nTPROC-H result (job %d): %s — not comparable with audited TPC results\n", id, r.Status)
	fmt.Fprintf(&b, "  database      %s\n", t)
	fmt.Fprintf(&b, "  scale factor  %g%s, seed %d%s\n", r.SF, fractional(r.SF), r.Seed, map[bool]string{true: ", validation parameters"}[r.Validation])
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "  query\tseconds\trows\t")
	for _, q := range r.Queries {
		if q.Stream != 0 {
			continue
		}
		status := strconv.FormatInt(q.Rows, 10)
		if q.Error != "" {
			status = "FAILED: " + q.Error
		} else if q.Rows == 0 {
			status = "0 (empty)"
		}
		if q.Check != "" {
			status += "  answer " + q.Check
		}
		fmt.Fprintf(tw, "  Q%d\t%.2f\t%s\t\n", q.Query, q.Seconds, status)
	}
	for _, rf := range r.Refreshes {
		if rf.Stream == 0 {
			fmt.Fprintf(tw, "  %s\t%.2f\t%d\t\n", rf.Function, rf.Seconds, rf.Rows)
		}
	}
	tw.Flush()
	totals := streamTotals(r)
	for s := 0; s <= r.Streams; s++ {
		if t, ok := totals[s]; ok {
			fmt.Fprintf(&b, "  stream %d: %d queries, %.2f s in all\n", s, t.Queries, t.Seconds)
		}
	}
	if r.Validated != "" {
		fmt.Fprintf(&b, "  answer validation (SF 1 answers): %s\n", r.Validated)
	}
	fmt.Fprintf(&b, "  geometric mean of the 22 power-test queries: %s s\n", nanOr(r.GeomeanS, "%.3f"))
	fmt.Fprintf(&b, "  TPROC-H power       %s\n", nanOr(r.Power, "%.1f"))
	if r.Streams > 0 {
		fmt.Fprintf(&b, "  TPROC-H throughput  %s  (%d streams, Ts %s s)\n", nanOr(r.Throughput, "%.1f"), r.Streams, nanOr(r.TsS, "%.2f"))
		fmt.Fprintf(&b, "  TPROC-H composite   %s queries per hour\n", nanOr(r.Composite, "%.1f"))
	}
	for _, wn := range r.Warnings {
		fmt.Fprintf(&b, "  warning: %s\n", wn)
	}
	for _, line := range strings.Split(strings.TrimRight(b.String(), "\n"), "\n") {
		out.line(line)
	}
}

func nanOr(v float64, format string) string {
	if math.IsNaN(v) {
		return "n/a"
	}
	return fmt.Sprintf(format, v)
}

func runDropH(ctx context.Context, w io.Writer, g *globals, dbFlag string) error {
	t, err := tprochTarget(dbFlag)
	if err != nil {
		return err
	}
	drv, err := drivers.For(t.Kind)
	if err != nil {
		return err
	}
	repo, err := openRepo(ctx, g)
	if err != nil {
		return err
	}
	defer repo.Close()
	id := startWorkloadJob(ctx, repo, "drop", workloadTPROCH, t, map[string]string{"db": t.String()})
	out := &jobOutput{w: w, repo: repo, id: id, headTx: -1}
	c, err := drv.Connect(ctx, t, db.Options{AppName: "sledge drop"})
	if err != nil {
		finishJob(repo, id, metrics.StatusFailed, err)
		return err
	}
	defer c.Close(context.Background())
	if err := tproch.Drop(ctx, c, t.Kind); err != nil {
		finishJob(repo, id, statusOf(ctx, err), err)
		return err
	}
	out.Logf("dropped the TPROC-H schema in %s", t)
	finishJob(repo, id, metrics.StatusCompleted, nil)
	return nil
}

// streamTotal sums one stream's query times.
type streamTotal struct {
	Stream  int     `json:"stream"`
	Queries int     `json:"queries"`
	Failed  int     `json:"failed"`
	Seconds float64 `json:"seconds"`
}

func streamTotals(r *metrics.AnalyticResult) map[int]streamTotal {
	out := map[int]streamTotal{}
	for _, q := range r.Queries {
		t := out[q.Stream]
		t.Stream = q.Stream
		t.Queries++
		t.Seconds += q.Seconds
		if q.Error != "" {
			t.Failed++
		}
		out[q.Stream] = t
	}
	return out
}

// analyticJSON is `jobs show ID result --format json` for a TPROC-H run.
type analyticJSON struct {
	JobID        int64         `json:"job_id"`
	Workload     string        `json:"workload"`
	Status       string        `json:"status"`
	ScaleFactor  float64       `json:"scale_factor"`
	Streams      int           `json:"streams"`
	QuerySets    int           `json:"query_sets"`
	Seed         int64         `json:"seed"`
	Refresh      bool          `json:"refresh"`
	Validation   bool          `json:"validation"`
	Validated    *string       `json:"validated"` // "passed", "failed"; null when not checked
	GeomeanS     *float64      `json:"geomean_s"`
	Power        *float64      `json:"power"`
	Throughput   *float64      `json:"throughput"`
	Composite    *float64      `json:"composite"`
	TsS          *float64      `json:"ts_s"`
	PowerS       float64       `json:"power_test_s"`
	ThroughputS  float64       `json:"throughput_test_s"`
	Queries      []queryJSON   `json:"queries"`
	Refreshes    []refreshJSON `json:"refreshes"`
	StreamTotals []streamTotal `json:"stream_totals"`
	Warnings     []string      `json:"warnings"`
	Note         string        `json:"note"`
}

type queryJSON struct {
	Stream   int     `json:"stream"`
	Position int     `json:"position"`
	Set      int     `json:"set"`
	Query    int     `json:"query"`
	Seconds  float64 `json:"seconds"`
	Rows     int64   `json:"rows"`
	Error    *string `json:"error"`
	Check    *string `json:"answer_check"` // "ok" or what differed; null when not checked
}

type refreshJSON struct {
	Stream   int     `json:"stream"`
	Set      int     `json:"set"`
	Function string  `json:"function"`
	Seconds  float64 `json:"seconds"`
	Rows     int64   `json:"rows"`
	Error    *string `json:"error"`
}

func optFloat(v float64) *float64 {
	if math.IsNaN(v) {
		return nil
	}
	return &v
}

func optString(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func toAnalyticJSON(id int64, r *metrics.AnalyticResult) analyticJSON {
	out := analyticJSON{JobID: id, Workload: workloadTPROCH, Status: r.Status, ScaleFactor: r.SF, Streams: r.Streams,
		QuerySets: r.QuerySets, Seed: r.Seed, Refresh: r.Refresh, Validation: r.Validation, Validated: optString(r.Validated),
		GeomeanS: optFloat(r.GeomeanS), Power: optFloat(r.Power), Throughput: optFloat(r.Throughput),
		Composite: optFloat(r.Composite), TsS: optFloat(r.TsS), PowerS: r.PowerSeconds, ThroughputS: r.ThroughputSeconds,
		Queries: []queryJSON{}, Refreshes: []refreshJSON{}, Warnings: append([]string{}, r.Warnings...),
		Note: "TPROC-H is derived from the TPC-H specification; its results are not comparable with audited TPC results"}
	for _, q := range r.Queries {
		out.Queries = append(out.Queries, queryJSON{Stream: q.Stream, Position: q.Position, Set: q.Set, Query: q.Query,
			Seconds: q.Seconds, Rows: q.Rows, Error: optString(q.Error), Check: optString(q.Check)})
	}
	totals := streamTotals(r)
	out.StreamTotals = []streamTotal{}
	for s := 0; s <= r.Streams; s++ {
		if t, ok := totals[s]; ok {
			out.StreamTotals = append(out.StreamTotals, t)
		}
	}
	for _, f := range r.Refreshes {
		out.Refreshes = append(out.Refreshes, refreshJSON{Stream: f.Stream, Set: f.Set, Function: f.Function,
			Seconds: f.Seconds, Rows: f.Rows, Error: optString(f.Error)})
	}
	return out
}

// showAnalytic prints a TPROC-H run's stored result.
func showAnalytic(ctx context.Context, w io.Writer, repo *jobs.Repo, j jobs.Job, asJSON bool) (bool, error) {
	res, err := repo.AnalyticResult(ctx, j.ID)
	if err != nil || res == nil {
		return false, err
	}
	if asJSON {
		return true, writeJSON(w, toAnalyticJSON(j.ID, res))
	}
	t, err := db.ParseTarget(j.Target)
	if err != nil {
		t = db.Target{Kind: db.Kind(j.DBKind), DSN: j.Target}
	}
	printAnalytic(&jobOutput{w: w, headTx: -1}, j.ID, t, res)
	return true, nil
}
