package main

import (
	"github.com/spf13/cobra"

	"github.com/sledge-bench/sledge/internal/report"
)

func newJobsDiffCmd(g *globals) *cobra.Command {
	f := &showFlags{}
	cmd := &cobra.Command{
		Use:   "diff A B",
		Short: "Compare two jobs: their results side by side and the server settings that differ",
		Long: `Show jobs A and B side by side: status, workload, database, VUs,
warehouses, NOPM, TPM, New-Order p95, client CPU per transaction and errors
(a TPROC-H run: scale factor, geometric mean, power and throughput), with
B's change against A in percent. A figure a job does not have is shown as
"—", never as 0, and has no change.

Then the server settings that differ: for each observer (matched by name),
every setting whose value differs or that only one job reported (the other
shows "—"), and the server's version when it differs. A job that was not
observed (--metrics off, not a run, or recorded before Sledge observed
servers) says so instead. When both were observed, their top waits over the
measured window follow, side by side.

Jobs of different workloads are compared all the same, with a note.

JSON (--format json): an object with a and b (the job objects of
` + "`sledge jobs --format json`" + `), notes (array), results (an array of name,
unit, a, b and change_pct; null where a job has no such figure), settings
(an array of observer, name, a and b; a or b null when that job did not
report it), settings_unavailable (null, or why a job has no settings),
servers (observer, a, b: versions that differ), waits (observer, a, b:
arrays of class, event, aas and share) and nopm_verdict (null, or
significant, change_pct, intervals_a, intervals_b, text).

For two TPROC-C runs with three or more measured intervals each, a verdict
line says whether B's NOPM differs from A's beyond the noise of their
measured intervals (Welch's t-test at 5% on the intervals' NOPM). The
intervals of one run are not independent trials: repeat runs for a firmer
answer.`,
		Example: `  sledge jobs diff 12 15
  sledge jobs diff 12 15 --format json`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkFormat(f.format); err != nil {
				return err
			}
			ids, err := parseJobIDPair(args)
			if err != nil {
				return err
			}
			ctx := cmd.Context()
			repo, err := openExistingRepo(ctx, g)
			if err != nil {
				return err
			}
			defer repo.Close()
			a, err := repo.Get(ctx, ids[0])
			if err != nil {
				return err
			}
			b, err := repo.Get(ctx, ids[1])
			if err != nil {
				return err
			}
			return report.Diff(ctx, cmd.OutOrStdout(), repo, a, b, f.format == formatJSON)
		},
	}
	cmd.Flags().StringVar(&f.format, "format", formatText, "output format: text or json")
	return cmd
}

// parseJobIDPair reads the two job ids of a comparison (A B).
func parseJobIDPair(args []string) ([2]int64, error) {
	var ids [2]int64
	for i, a := range args {
		id, err := parseJobID(a)
		if err != nil {
			return ids, err
		}
		ids[i] = id
	}
	return ids, nil
}
