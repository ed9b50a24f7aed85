package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/sledge-bench/sledge/internal/app"
	"github.com/sledge-bench/sledge/internal/report"
)

func newCompareCmd(g *globals) *cobra.Command {
	var format, html string
	cmd := &cobra.Command{
		Use:   "compare A B",
		Short: "Compare two profiles step by step, or two jobs, and say whether the difference is beyond the noise",
		Long: `Compare B against A.

When A and B are both profiles (the first jobs of two sledge profile runs),
for every VU count both ran: each one's NOPM (± half its 95% confidence
interval with two trials or more), B's ratio to A and a verdict: with two
trials or more on both sides, whether B's NOPM differs from A's beyond the
noise of the trials (Welch's t-test at 5%), else "not judged". Then each
profile's knee. --html writes both profiles overlaid (A blue, B orange) as a
self-contained HTML page with SVG charts of NOPM and New-Order p95 against
VUs, the comparison and both tables.

Otherwise (any other two jobs) it is sledge jobs diff A B: the results side
by side, the settings that differ and, for two TPROC-C runs, the verdict
(on the trials when both are series of sledge run --repeat, else on the
measured intervals).

JSON (--format json): for two profiles an object with a and b (as sledge
profile show --format json) and steps (vus, nopm_a, nopm_b, ratio, verdict:
null or significant, change_pct, intervals_a, intervals_b, trials and
text; text); else the JSON of sledge jobs diff.`,
		Example: `  sledge compare 12 40
  sledge compare 12 40 --html before-after.html
  sledge compare 7 9 --format json`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkFormat(format); err != nil {
				return err
			}
			ids, err := parseJobIDPair(args)
			if err != nil {
				return err
			}
			ctx, w := cmd.Context(), cmd.OutOrStdout()
			repo, err := openExistingRepo(ctx, g)
			if err != nil {
				return err
			}
			defer repo.Close()
			// Both jobs exist, and which are profiles (first jobs of one).
			var profiles [2]bool
			for i, id := range ids {
				root, err := app.ProfileOf(ctx, repo, id)
				switch {
				case errors.Is(err, app.ErrNotProfile):
				case err != nil:
					return err
				default:
					profiles[i] = root == id
				}
			}
			if profiles[0] && profiles[1] {
				a, err := app.LoadProfile(ctx, repo, ids[0])
				if err != nil {
					return err
				}
				b, err := app.LoadProfile(ctx, repo, ids[1])
				if err != nil {
					return err
				}
				if html != "" {
					if err := writeHTMLFile(html, func(f io.Writer) error { return report.ProfileCompareHTML(f, a, b) }); err != nil {
						return err
					}
				}
				if format == formatJSON {
					return report.WriteJSON(w, report.ToProfileCompare(a, b))
				}
				return report.ProfileCompareText(w, a, b)
			}
			if html != "" {
				return fmt.Errorf("--html: only for two profiles (jobs %d and %d are not both the first jobs of profiles; see `sledge profile list`)", ids[0], ids[1])
			}
			a, err := repo.Get(ctx, ids[0])
			if err != nil {
				return err
			}
			b, err := repo.Get(ctx, ids[1])
			if err != nil {
				return err
			}
			return report.Diff(ctx, w, repo, a, b, format == formatJSON)
		},
	}
	cmd.Flags().StringVar(&format, "format", formatText, "output format: text or json")
	cmd.Flags().StringVar(&html, "html", "", "two profiles: also write them overlaid to this file as a self-contained HTML page (SVG charts, the comparison, both tables)")
	return cmd
}
