package main

import (
	"github.com/spf13/cobra"

	"github.com/sledge-bench/sledge/internal/app"
	"github.com/sledge-bench/sledge/internal/config"
)

func newDatagenCmd() *cobra.Command {
	req := app.NewDatagen()
	cmd := &cobra.Command{
		Use:   "datagen",
		Short: "Write the generated data to flat files instead of a database",
		Long: `Write a workload's data as flat files, dbgen style: one line per row, every
value followed by '|'. Big tables are split into one file per worker
(<table>.tbl.1 … <table>.tbl.N, generated in parallel), small ones are one
<table>.tbl. The files hold exactly what "sledge build" would load: TPROC-H
data is dbgen's, TPROC-C data is the same for the same --seed.`,
		Example: `  sledge datagen --workload tproch --scale 10 --out /data/h10
  sledge datagen --workload tprocc --warehouses 100 --out /data/c100 --workers 8`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return flagErrors(app.Datagen(cmd.Context(), cmd.OutOrStdout(), req))
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&req.Spec.Workload, "workload", req.Spec.Workload, workloadFlagHelp())
	fl.Float64Var(&req.Spec.Scale, "scale", req.Spec.Scale, "TPROC-H scale factor")
	fl.IntVarP(&req.Spec.Warehouses, "warehouses", "w", req.Spec.Warehouses, "TPROC-C warehouses")
	fl.Uint64Var(&req.Spec.Seed, "seed", config.DefaultBuildSeed, "TPROC-C generator seed")
	fl.StringVar(&req.Dir, "out", "", "directory for the files (created; existing .tbl files are overwritten)")
	fl.IntVar(&req.Spec.Workers, "workers", 0, "parallel writers, one file per table each (default: number of CPUs)")
	return cmd
}
