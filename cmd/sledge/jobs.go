package main

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/sledge-bench/sledge/internal/config"
	"github.com/sledge-bench/sledge/internal/jobs"
	"github.com/sledge-bench/sledge/internal/metrics"
	"github.com/sledge-bench/sledge/internal/report"
)

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

func parseJobID(s string) (int64, error) {
	id, err := strconv.ParseInt(s, 10, 64)
	if err != nil || id <= 0 {
		return 0, fmt.Errorf("bad job id %q: want a positive number (see `sledge jobs`)", s)
	}
	return id, nil
}

type listFlags struct {
	format string
	kind   string
	status string
	limit  int
}

func addListFlags(cmd *cobra.Command, f *listFlags) {
	fl := cmd.Flags()
	fl.StringVar(&f.format, "format", formatText, "output format: text or json")
	fl.StringVar(&f.kind, "kind", "", "only jobs of this kind: "+strings.Join(config.Kinds, ", "))
	fl.StringVar(&f.status, "status", "", "only jobs with this status: "+strings.Join(jobs.Statuses, ", "))
	fl.IntVarP(&f.limit, "limit", "n", 0, "show at most this many jobs, newest first (0: all)")
}

func newJobsCmd(g *globals) *cobra.Command {
	f := &listFlags{}
	cmd := &cobra.Command{
		Use:   "jobs",
		Short: "List, show, compare and delete the recorded jobs",
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
  sledge jobs diff 12 15
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

	cmd.AddCommand(list, newJobsShowCmd(g), newJobsDiffCmd(g), newJobsHlogCmd(g), newJobsDeleteCmd(g))
	return cmd
}

func runJobsList(cmd *cobra.Command, g *globals, f *listFlags) error {
	if err := checkFormat(f.format); err != nil {
		return err
	}
	filter := jobs.ListFilter{Kind: f.kind, Status: f.status, Limit: f.limit}
	if err := filter.Validate(); err != nil {
		return flagErrors(err)
	}
	ctx, w := cmd.Context(), cmd.OutOrStdout()
	if c, ok, err := remoteFor(g); ok {
		if err != nil {
			return err
		}
		list, err := c.ListJobs(ctx, f.kind, f.status, f.limit)
		if err != nil {
			return err
		}
		if f.format == formatJSON {
			return report.WriteJSON(w, list)
		}
		return report.JobsJSONTable(w, list)
	}
	repo, err := openExistingRepo(ctx, g)
	if errors.Is(err, jobs.ErrNoRepository) {
		// Nothing has been recorded yet: no jobs, and nothing created.
		if f.format == formatJSON {
			return report.WriteJSON(w, []report.JobJSON{})
		}
		fmt.Fprintln(w, err)
		return nil
	}
	if err != nil {
		return err
	}
	defer repo.Close()
	list, err := repo.List(ctx, filter)
	if err != nil {
		return err
	}
	if f.format == formatJSON {
		out := make([]report.JobJSON, 0, len(list)) // [] rather than null when empty
		for _, j := range list {
			out = append(out, report.ToJob(j))
		}
		return report.WriteJSON(w, out)
	}
	if len(list) == 0 {
		fmt.Fprintf(w, "no jobs in %s\n", repo.Path())
		return nil
	}
	return report.JobsTable(w, list)
}

type showFlags struct{ format string }

func newJobsShowCmd(g *globals) *cobra.Command {
	f := &showFlags{}
	var help strings.Builder
	names := make([]string, 0, len(report.Sections))
	for _, s := range report.Sections {
		fmt.Fprintf(&help, "  %-8s %s\n", s.Name, s.Help)
		names = append(names, s.Name)
	}
	cmd := &cobra.Command{
		Use:   "show ID [" + strings.Join(names, "|") + "]",
		Short: "Show one job: a summary, or one section of it",
		Long: `Show a job. With no section, a summary: the job's record and its result,
build or check. Sections:

` + help.String() + `
JSON (--format json): result is an object with status, vu, warehouses, mode,
isolation, rampup_s, duration_s (the measured window), configured_duration_s,
iterations (per VU in an iteration run, 0 in a timed one), nopm, tpm, new_orders, commits, errors, rolled_back, db_new_orders,
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
job, result, build and check (null when absent). A TPROC-H run's result is
its own object (queries, refreshes, stream totals, power, throughput …).
A run's result has observed: what the observers saw of the server and hosts
over the measured window (an array observers, each with name, server, aas,
cpu_aas, cpu_share, waits of class, event, aas, share, commits_per_s,
buffer_hit_pct, checkpoints, host_cpu_*_pct, host_disk_mbps, gaps, cost and
notes; a figure not measured is null), or null with observed_unavailable
saying why. metrics is an array of observers (name, server, uptime_s, notes,
settings, cost, intervals of elapsed_s, length_s, samples, gap, waits,
statements and counters of source, name, kind, unit, value); settings an
array of observer, server, name, value, source.`,
		Example: `  sledge jobs show 12
  sledge jobs show 12 result --format json
  sledge jobs show 12 tcount
  sledge jobs show 12 metrics`,
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
				if !slices.Contains(names, section) {
					return fmt.Errorf("section %q: want one of %s", section, strings.Join(names, ", "))
				}
			}
			ctx := cmd.Context()
			repo, err := openExistingRepo(ctx, g)
			if err != nil {
				return err
			}
			defer repo.Close()
			// Get first: a missing job is "no job N" whatever the section.
			j, err := repo.Get(ctx, id)
			if err != nil {
				return err
			}
			return report.Show(ctx, cmd.OutOrStdout(), repo, j, section, f.format == formatJSON)
		},
	}
	cmd.Flags().StringVar(&f.format, "format", formatText, "output format: text or json")
	return cmd
}

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
			repo, err := openExistingRepo(ctx, g)
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
