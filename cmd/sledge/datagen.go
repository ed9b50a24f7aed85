package main

import (
	"github.com/spf13/cobra"

	"github.com/sledge-bench/sledge/internal/app"
	"github.com/sledge-bench/sledge/internal/config"
)

func newDatagenCmd() *cobra.Command {
	req := app.NewDatagen()
	cmd := withHelp("datagen", &cobra.Command{
		Use:   "datagen",
		Short: "Write the generated data to flat files instead of a database",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return flagErrors(app.Datagen(cmd.Context(), cmd.OutOrStdout(), req))
		},
	})
	fl := cmd.Flags()
	fl.StringVar(&req.Spec.Workload, "workload", req.Spec.Workload, workloadFlagHelp())
	fl.Float64Var(&req.Spec.Scale, "scale", req.Spec.Scale, "TPROC-H scale factor")
	fl.IntVarP(&req.Spec.Warehouses, "warehouses", "w", req.Spec.Warehouses, "TPROC-C warehouses")
	fl.Uint64Var(&req.Spec.Seed, "seed", config.DefaultBuildSeed, "TPROC-C generator seed")
	fl.StringVar(&req.Dir, "out", "", "directory for the files (created; existing .tbl files are overwritten)")
	fl.IntVar(&req.Spec.Workers, "workers", 0, "parallel writers, one file per table each (default: number of CPUs)")
	fl.StringVar((*string)(&req.Format), "format", string(req.Format), "tbl: dbgen's files (<table>.tbl, every value followed by '|'); copy: COPY text (<table>.copy: tab-separated, \\N for NULL), which PostgreSQL's COPY and MariaDB's LOAD DATA take as they are, with load-postgres.sql and load-mariadb.sql to load them")
	return cmd
}
