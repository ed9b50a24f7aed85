package main

import (
	"github.com/spf13/cobra"

	"github.com/sledge-bench/sledge/internal/app"
	"github.com/sledge-bench/sledge/internal/config"
	"github.com/sledge-bench/sledge/internal/workload"
)

func newDatagenCmd() *cobra.Command {
	req := app.NewDatagen()
	req.Spec.Seed = config.DefaultBuildSeed // the generator's, as a build's
	cmd := withHelp("datagen", &cobra.Command{
		Use:   "datagen",
		Short: "Write the generated data to flat files instead of a database",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return flagErrors(app.Datagen(cmd.Context(), cmd.OutOrStdout(), req))
		},
	})
	fl := cmd.Flags()
	fl.StringVar(&req.Spec.Workload, "workload", req.Spec.Workload, "workload: "+workload.Choices())
	bindFlags(fl, "datagen", &req)
	return cmd
}
