package main

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/sledge-bench/sledge/internal/app"
	"github.com/sledge-bench/sledge/internal/config"
	"github.com/sledge-bench/sledge/internal/jobs"
	"github.com/sledge-bench/sledge/internal/report"
)

// addFormatFlag gives cmd --format, text or json, checked before it runs.
func addFormatFlag(cmd *cobra.Command, format *string) {
	cmd.Flags().StringVar(format, "format", app.FormatText, "output format: text or json")
	cmd.PreRunE = func(*cobra.Command, []string) error { return checkFormat("--format", *format) }
}

// checkFormat refuses a value of a --format-like flag other than text or json.
func checkFormat(flag, value string) error {
	if value != app.FormatText && value != app.FormatJSON {
		return fmt.Errorf("%s: %q: want text or json", flag, value)
	}
	return nil
}

// newViewCmd completes c (its use, short help and args) as a command that
// prints view name of the recorded jobs its args name (printView), with
// --format and, when htmlHelp is set, --html; help names its help file.
func newViewCmd(gs *globalState, help string, c *cobra.Command, name, htmlHelp string) *cobra.Command {
	var format, html string
	c.RunE = func(cmd *cobra.Command, args []string) error {
		return printView(cmd, gs, args, app.View{Name: name, Format: format}, html)
	}
	addFormatFlag(withHelp(help, c), &format)
	if htmlHelp != "" {
		c.Flags().StringVar(&html, "html", "", htmlHelp)
	}
	return c
}

type listFlags struct {
	format string
	kind   string
	status string
	limit  int
}

func addListFlags(cmd *cobra.Command, f *listFlags) {
	fl := cmd.Flags()
	addFormatFlag(cmd, &f.format)
	fl.StringVar(&f.kind, "kind", "", "only jobs of this kind: "+strings.Join(config.Kinds, ", "))
	fl.StringVar(&f.status, "status", "", "only jobs with this status: "+strings.Join(jobs.Statuses, ", "))
	fl.IntVarP(&f.limit, "limit", "n", 0, "show at most this many jobs, newest first (0: all)")
}

func newJobsCmd(gs *globalState) *cobra.Command {
	f := &listFlags{}
	cmd := withHelp("jobs", &cobra.Command{
		Use:   "jobs",
		Short: "List, show, compare, delete, export and import the recorded jobs",
		Args:  cobra.NoArgs,
		RunE:  func(cmd *cobra.Command, _ []string) error { return runJobsList(cmd, gs, f) },
	})
	addListFlags(cmd, f)

	lf := &listFlags{}
	list := &cobra.Command{
		Use:     "list",
		Aliases: []string{"ls"},
		Short:   "List the recorded jobs (the same as `sledge jobs`)",
		Args:    cobra.NoArgs,
		RunE:    func(cmd *cobra.Command, _ []string) error { return runJobsList(cmd, gs, lf) },
	}
	addListFlags(list, lf)

	cmd.AddCommand(list, newJobsShowCmd(gs), newJobsDiffCmd(gs), newJobsHlogCmd(gs), newJobsDeleteCmd(gs), newJobsRecoverCmd(gs),
		newJobsExportCmd(gs), newJobsImportCmd(gs))
	return cmd
}

func runJobsList(cmd *cobra.Command, gs *globalState, f *listFlags) error {
	v := app.View{Name: app.ViewJobs, Filter: jobs.ListFilter{Kind: f.kind, Status: f.status, Limit: f.limit}, Format: f.format}
	err := printView(cmd, gs, nil, v, "")
	if errors.Is(err, jobs.ErrNoRepository) {
		// Nothing has been recorded yet: no jobs, and nothing created.
		if f.format == app.FormatJSON {
			return report.JobList(cmd.OutOrStdout(), nil, "", true)
		}
		fmt.Fprintln(cmd.OutOrStdout(), err)
		return nil
	}
	return err
}

func newJobsShowCmd(gs *globalState) *cobra.Command {
	var format string
	names := report.SectionNames()
	cmd := withHelp("jobs-show", &cobra.Command{
		Use:   "show ID [" + strings.Join(names, "|") + "]",
		Short: "Show one job: a summary, or one section of it",
		Args:  cobra.RangeArgs(1, 2),
		ValidArgsFunction: func(_ *cobra.Command, args []string, _ string) ([]string, cobra.ShellCompDirective) {
			if len(args) == 1 {
				return names, cobra.ShellCompDirectiveNoFileComp
			}
			return nil, cobra.ShellCompDirectiveNoFileComp
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			section := ""
			if len(args) == 2 {
				section = args[1]
				if !slices.Contains(names, section) {
					return fmt.Errorf("section %q: want one of %s", section, strings.Join(names, ", "))
				}
			}
			return printView(cmd, gs, args[:1], app.View{Name: app.ViewShow, Section: section, Format: format}, "")
		},
	})
	cmd.Long = strings.Replace(cmd.Long, "{{sections}}", report.SectionsHelp(), 1) // generated from report.Sections
	addFormatFlag(cmd, &format)
	return cmd
}

func newJobsDiffCmd(gs *globalState) *cobra.Command {
	return newViewCmd(gs, "jobs-diff", &cobra.Command{
		Use:   "diff A B",
		Short: "Compare two jobs: their results side by side and the server settings that differ",
		Args:  cobra.ExactArgs(2),
	}, app.ViewDiff, "")
}

func newJobsHlogCmd(gs *globalState) *cobra.Command {
	var tx string
	cmd := withHelp("jobs-hlog", &cobra.Command{
		Use:   "hlog ID",
		Short: "Export a run's latency histograms per interval as an HdrHistogram interval log",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return printView(cmd, gs, args, app.View{Name: app.ViewHlog, Tx: tx}, "")
		},
	})
	cmd.Flags().StringVar(&tx, "tx", "new_order", "the transaction type whose latencies to export")
	return cmd
}

func newJobsDeleteCmd(gs *globalState) *cobra.Command {
	var force bool
	cmd := withHelp("jobs-delete", &cobra.Command{
		Use:     "delete ID...",
		Aliases: []string{"rm"},
		Short:   "Delete jobs and everything recorded with them",
		Args:    cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ids, err := app.ParseJobIDs(args)
			if err != nil {
				return err
			}
			return withRecorded(cmd, gs, true, func(ctx context.Context, r recorded) error {
				var errs []error
				for _, id := range ids {
					err := r.Delete(ctx, id, force)
					var running *jobs.RunningError
					if errors.As(err, &running) {
						err = fmt.Errorf("%w; use --force to delete it anyway", err)
					}
					if err != nil {
						errs = append(errs, err)
						continue
					}
					fmt.Fprintf(cmd.OutOrStdout(), "deleted job %d\n", id)
				}
				return errors.Join(errs...)
			})
		},
	})
	cmd.Flags().BoolVarP(&force, "force", "f", false, "delete running jobs too")
	return cmd
}

func newJobsRecoverCmd(gs *globalState) *cobra.Command {
	return withHelp("jobs-recover", &cobra.Command{
		Use:   "recover",
		Short: "Hand in what jobs kept in spool files while the jobs repository could not be written",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx, w := cmd.Context(), cmd.OutOrStdout()
			if err := localOnly(gs, "jobs recover (this machine's spool files)"); err != nil {
				return err
			}
			p, err := gs.repoPlace()
			if err != nil {
				return err
			}
			failed, err := app.HandIn(ctx, p, w)
			if failed {
				return exitError{code: exitNotStored}
			}
			return err
		},
	})
}
