package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/sledge-bench/sledge/internal/metrics"
)

func newJobsHlogCmd(g *globals) *cobra.Command {
	var tx string
	cmd := &cobra.Command{
		Use:   "hlog ID",
		Short: "Export a run's latency histograms per interval as an HdrHistogram interval log",
		Long: `Write the latency histograms of one transaction type of run ID, one per
interval of its series, in the HdrHistogram interval log format, for the
HdrHistogram tools (HistogramLogProcessor, HdrHistogram plotters) and
anything that reads it. The histograms are the ones Sledge keeps per
interval, merged exactly over the agents of a run driven by several.

Values are microseconds: give the tools the ratio 1000 to read
milliseconds (HistogramLogProcessor -outputValueUnitRatio 1000). An
interval in which the type completed nothing is an empty histogram, so the
log covers the whole run. Runs recorded before Sledge kept interval
histograms have none to export.`,
		Example: `  sledge jobs hlog 12 > job12-new_order.hlog
  sledge jobs hlog 12 --tx payment`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			id, err := parseJobID(args[0])
			if err != nil {
				return err
			}
			ctx := cmd.Context()
			repo, err := openExistingRepo(ctx, g)
			if err != nil {
				return err
			}
			defer repo.Close()
			j, err := repo.Get(ctx, id)
			if err != nil {
				return err
			}
			ivs, err := repo.Intervals(ctx, id)
			if err != nil {
				return err
			}
			var names []string
			has := false
			for _, iv := range ivs {
				for _, t := range iv.Tx {
					if !slices.Contains(names, t.Name) {
						names = append(names, t.Name)
					}
					has = has || t.Name == tx && len(t.Histogram) > 0
				}
			}
			switch {
			case len(ivs) == 0:
				return fmt.Errorf("job %d (%s) has no interval series", id, j.Kind)
			case !slices.Contains(names, tx):
				return fmt.Errorf("--tx %s: job %d has no such transaction type (it has %s)", tx, id, strings.Join(names, ", "))
			case !has:
				return fmt.Errorf("job %d has no interval histograms of %s (recorded before Sledge kept them, or none completed)", id, tx)
			}
			// The intervals' times count from the run's start: the shared
			// start of a run of several agents; else about when the job
			// started (its preparation, a fraction of a second, before).
			start := j.StartedAt
			if g, ok, err := repo.GroupOfJob(ctx, id); err != nil {
				return err
			} else if ok && !g.StartAt.IsZero() {
				start = g.StartAt
			}
			return metrics.WriteIntervalLog(cmd.OutOrStdout(), start, ivs, tx)
		},
	}
	cmd.Flags().StringVar(&tx, "tx", "new_order", "the transaction type whose latencies to export")
	return cmd
}
