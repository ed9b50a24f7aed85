package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/sledge-bench/sledge/internal/report"
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
			err = report.IntervalLog(ctx, cmd.OutOrStdout(), repo, j, tx)
			if err != nil && strings.HasPrefix(err.Error(), "transaction type ") {
				return fmt.Errorf("--tx %s", strings.TrimPrefix(err.Error(), "transaction type "))
			}
			return err
		},
	}
	cmd.Flags().StringVar(&tx, "tx", "new_order", "the transaction type whose latencies to export")
	return cmd
}
