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
	if _, ok, _ := remoteFor(g); ok {
		return fmt.Errorf("--repeat: runs on this machine only, not through --server")
	}
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
		last := outs[len(outs)-1]
		switch {
		case err != nil && ctx.Err() != nil:
			// Stopped between two trials (--between): the trials so far
			// are kept.
			fmt.Fprintf(cmd.ErrOrStderr(), "sledge: series interrupted: %v\n", err)
			return exitError{code: exitInterrupted}
		case err != nil:
			return fmt.Errorf("series stopped: %w", flagErrors(err)) // err says after which trial
		case last.Status == metrics.StatusInterrupted:
			fmt.Fprintf(cmd.ErrOrStderr(), "sledge: series interrupted at trial %d of %d (job %d)\n", len(outs), n, last.ID)
			return exitError{code: exitInterrupted}
		case len(outs) < n || last.Run == nil:
			fmt.Fprintf(cmd.ErrOrStderr(), "sledge: series stopped at trial %d of %d (job %d %s)\n", len(outs), n, last.ID, last.Status)
			return exitError{code: 1}
		}
		return nil
	})
}
