package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/sledge-bench/sledge/internal/app"
	"github.com/sledge-bench/sledge/internal/config"
	"github.com/sledge-bench/sledge/internal/metrics"
	"github.com/sledge-bench/sledge/internal/report"
)

// runSeriesCmd runs `sledge run --repeat N`: N trials of the spec, one job
// each, with --between's step between two trials, then the series' summary
// (mean, SD, 95% confidence interval). A series stopped early (a trial or a
// between step failed) still prints the trials it ran, then why it
// stopped.
func runSeriesCmd(cmd *cobra.Command, g *globals, s config.Spec, n int) error {
	ctx, w := cmd.Context(), cmd.OutOrStdout()
	return withService(ctx, g, func(svc *app.Service) error {
		outs, err := svc.RunSeries(ctx, app.Request{Spec: s, Console: w, ProgressTTY: progressTTY()}, n)
		if err != nil && len(outs) == 0 {
			return flagErrors(err)
		}
		var trials []report.SeriesTrial
		for _, o := range outs {
			trials = append(trials, report.SeriesTrial{JobID: o.ID, Run: o.Run})
		}
		fmt.Fprintln(w)
		if err := report.Series(w, trials); err != nil {
			return err
		}
		return groupEnd(cmd, "series", "trial", outs, n, err)
	})
}

// groupEnd says how a series or profile (what) of total jobs (each a unit:
// trial, job) ended, once its table is printed: nil when every job ran to
// its end; else the error, or the exit status of an interrupted (130) or
// stopped (1) group. err is what stopped it (a failed job or between step).
func groupEnd(cmd *cobra.Command, what, unit string, outs []app.Outcome, total int, err error) error {
	last := outs[len(outs)-1]
	switch {
	case err != nil && cmd.Context().Err() != nil:
		// Stopped between two jobs (--between): the jobs so far are kept.
		fmt.Fprintf(cmd.ErrOrStderr(), "sledge: %s interrupted: %v\n", what, err)
		return exitError{code: exitInterrupted}
	case err != nil:
		return fmt.Errorf("%s stopped: %w", what, flagErrors(err)) // err says where
	case last.Status == metrics.StatusInterrupted:
		fmt.Fprintf(cmd.ErrOrStderr(), "sledge: %s interrupted at %s %d of %d (job %d)\n", what, unit, len(outs), total, last.ID)
		return exitError{code: exitInterrupted}
	case len(outs) < total || last.Run == nil:
		fmt.Fprintf(cmd.ErrOrStderr(), "sledge: %s stopped at %s %d of %d (job %d %s)\n", what, unit, len(outs), total, last.ID, last.Status)
		return exitError{code: 1}
	}
	return nil
}
