package main

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/sledge-bench/sledge/internal/app"
	"github.com/sledge-bench/sledge/internal/config"
	"github.com/sledge-bench/sledge/internal/report"
	"github.com/sledge-bench/sledge/internal/slo"
)

// newSLOCmd is `sledge slo`: the highest open-loop rate meeting latency
// goals, one run job per step (app.SLO), and `sledge slo show ID`.
func newSLOCmd(gs *globalState) *cobra.Command {
	s, req := config.New(config.KindRun), app.SLORequest{StartRate: app.DefaultSLOStartRate, StepDuration: app.DefaultSLOStepDuration}
	var precision, html string
	var rf *runSpecFlags
	cmd := withHelp("slo", &cobra.Command{Use: "slo --goal GOAL … [flags]", Args: cobra.NoArgs,
		Short: "Find the highest open-loop rate at which latency goals hold: rate steps, then bisection, one run job each",
		RunE: func(cmd *cobra.Command, _ []string) (err error) {
			if req.Precision, err = slo.ParsePercent(precision); err != nil {
				return fmt.Errorf("--precision %w", err)
			}
			if err := rf.parse(); err != nil {
				return err
			}
			if err := localOnly(gs, "sledge slo"); err != nil {
				return err
			}
			req.Spec = s
			if err := app.New(gs.serviceOptions(app.Options{OwnsProcess: gs.ownsProcess})).CheckSLO(req); err != nil {
				return flagErrors(err)
			}
			ctx, w := cmd.Context(), cmd.OutOrStdout()
			return withService(ctx, gs, func(svc *app.Service) error {
				if err := rf.confirmRebuild(cmd, gs); err != nil { // asked last: every other check passed
					return err
				}
				req.Spec.Confirm, req.Console, req.ProgressTTY = s.Confirm, w, gs.progressTTY()
				o, runErr := svc.SLO(ctx, req)
				if o.ID == 0 {
					return flagErrors(runErr)
				}
				fmt.Fprintln(w)
				if err = report.SLOText(w, o); err == nil && html != "" {
					err = writeHTMLFile(html, func(f io.Writer) error { return report.SLOHTML(f, o) })
				}
				if end := app.SLOEnding(o, runErr, ctx.Err() != nil); end.Class != app.EndOK {
					return ended(cmd, end, flagErrors) // how the search ended comes first
				}
				return err
			})
		},
	})
	fl := cmd.Flags()
	rf = addRunFlags(fl, &s, "duration", "threshold", "repeat") // --step-duration, --goal; one search
	fl.StringArrayVar(&req.Goals, "goal", nil, "a goal judged on each step's measured window, as a --threshold: 'p99(new_order)<50ms', 'errors<1%' (repeatable; at least one)")
	fl.Float64Var(&req.StartRate, "start-rate", req.StartRate, "the first step's rate, transactions per second")
	fl.Float64Var(&req.MaxRate, "max-rate", 0, "the highest rate tried, transactions per second (default: none)")
	fl.DurationVar(&req.StepDuration, "step-duration", req.StepDuration, "each step's measured window, after its --rampup (its warm-up at the step's rate, not judged)")
	fl.StringVar(&precision, "precision", "5%", "bisect until the lowest failing rate is within this much of the highest passing one")
	fl.StringVar(&html, "html", "", "also write the search to this file as a self-contained HTML page: the curve as SVG charts, the table and the answer")
	cmd.AddCommand(newViewCmd(gs, "slo-show", &cobra.Command{Use: "show ID", Short: "Show an SLO search: its curve and its answer", Args: cobra.ExactArgs(1)},
		app.ViewSLO, "also write the search to this file as a self-contained HTML page (the curve as SVG charts, the table, the answer)"))
	return cmd
}
