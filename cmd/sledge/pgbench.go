package main

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/sledge-bench/sledge/internal/app"
	"github.com/sledge-bench/sledge/internal/workload"
	"github.com/sledge-bench/sledge/internal/workload/pgbench/cmdline"
)

// newPgbenchCmd is `sledge pgbench`: pgbench's own command line, read by
// cmdline into a build (-i) or run of the pgbench workload, run as any
// other job. Its options are pgbench's, not cobra's: flag parsing is
// cmdline's, but for Sledge's --repo and --server, taken out first.
func newPgbenchCmd(gs *globalState) *cobra.Command {
	cmd := withHelp("pgbench", &cobra.Command{
		Use:                   "pgbench [OPTION]... [DBNAME|URL]",
		DisableFlagsInUseLine: true,
		Short:                 "Run pgbench's command line (-i to initialize, -c, -T, -f, -b, …) as a Sledge job",
		DisableFlagParsing:    true,
		RunE: func(cmd *cobra.Command, args []string) error {
			// cobra leaves Sledge's --repo and --server there without flag parsing.
			args = cmdline.TakeOptions(args, map[string]*string{"--repo": &gs.flags.repo, "--server": &gs.flags.server})
			inv, err := cmdline.Parse(args, gs.getenv)
			if err != nil {
				return fmt.Errorf("pgbench: %w", err)
			}
			if inv.Help {
				return cmd.Help()
			}
			for _, n := range inv.Notes {
				fmt.Fprintf(cmd.ErrOrStderr(), "sledge pgbench: note: %s\n", n)
			}
			return runJobCmd(cmd, gs, inv.Spec, jobOutput{format: app.FormatText, progress: app.FormatText, options: pgbenchOption, advice: pgbenchAdvice})
		},
	})
	// -h is pgbench's host: help is -? or --help.
	cmd.Flags().BoolP("help", "?", false, "help for pgbench")
	return cmd
}

// pgbenchOption names the option that sets a spec field: pgbench's, or
// (for a field no pgbench option sets) Sledge's flag.
func pgbenchOption(field string) string {
	if o := cmdline.Option(field); o != "" {
		return o
	}
	return flagName(field)
}

// pgbenchAdvice says, in pgbench's terms, what deals with what a job found
// about pgbench's tables: -i creates them (dropping them first unless -I
// leaves out its d step).
func pgbenchAdvice(err error) string {
	switch {
	case !errors.As(err, new(*workload.SchemaError)):
		return ""
	case errors.Is(err, workload.ErrSchemaExists):
		return "put d (drop) in -I's steps, or leave -I out: `sledge pgbench -i` drops the tables and creates them again"
	case errors.Is(err, workload.ErrNoSchema):
		return "initialize it first: `sledge pgbench -i` (-s for the scale) with the same database"
	case errors.Is(err, workload.ErrSchemaUnusable):
		return "create the tables again: `sledge pgbench -i` with the same database"
	}
	return ""
}
