package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/sledge-bench/sledge/internal/app"
	"github.com/sledge-bench/sledge/internal/config"
	"github.com/sledge-bench/sledge/internal/jobs"
	"github.com/sledge-bench/sledge/internal/report"
)

// newProfileCmd is `sledge profile`: a VU sweep run as one profile of
// jobs (app.RunProfile), and its show and list subcommands.
func newProfileCmd(g *globals) *cobra.Command {
	s := config.New(config.KindRun)
	var (
		vuList string
		repeat = 1
		html   string
	)
	var rf *runSpecFlags
	cmd := &cobra.Command{
		Use:   "profile --vu LIST [flags]",
		Short: "Run a performance profile: the same run at increasing VU counts, NOPM and p95 against VUs with the knee marked",
		Long: `Run one configuration at each VU count of --vu, in order (a VU sweep, as
HammerDB's performance profiles), each step one run job, or --repeat N jobs
(a series of trials). Every job records the profile it belongs to (setting
profile: the first job's id), its step's VU count (profile_vu) and, with
--repeat, its trial (k/n) and series (the step's first job). The jobs are
ordinary jobs: sledge jobs lists them, sledge jobs diff compares two of them.

Then it prints one row per step: VUs, jobs, NOPM (with ± half its 95%
confidence interval when a step has two trials or more), TPM, New-Order p95,
NOPM per VU, the NOPM gain over the previous step and the share of the
linear gain it reached, with the knee marked.

The knee is the last VU count before the first step whose NOPM gain over
the previous step is less than half the linear gain (previous NOPM × (VU
ratio − 1)): a flat curve has it at its first step, a curve still scaling at
its last step has none yet (try more VUs).

The profile stops at the first job that fails or is interrupted (Ctrl-C),
and shows what ran. --between applies between any two consecutive jobs.
Every flag of sledge run applies to every step (but --stages, --rate and
--segment; --vu is the list): --db, --duration, --rampup, --interval,
--pacing ….

  sledge profile show ID     the table (or --html, --format json) of a profile
  sledge profile list        the profiles in the repository
  sledge compare A B         two profiles overlaid, step by step, with verdicts`,
		Example: `  sledge profile --vu 1,2,4,8,16,32 --duration 2m --rampup 30s
  sledge profile --db postgres://u:p@127.0.0.1:5432/tpcc --vu 4,8,16 --repeat 3 --between checkpoint --html profile.html
  sledge profile show 12 --html profile-12.html
  sledge compare 12 40 --html before-after.html`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			vus, err := parseVUList(vuList)
			if err != nil {
				return err
			}
			if err := rf.parse(); err != nil {
				return err
			}
			if err := unusedByIterations(cmd.Flags(), s); err != nil {
				return err
			}
			switch {
			case repeat < 1 || repeat > maxRepeat:
				return fmt.Errorf("--repeat must be between 1 and %d (got %d)", maxRepeat, repeat)
			case s.Stages != "":
				return errors.New("--stages: a profile sets the VUs of each step itself (use --vu LIST)")
			case s.Rate > 0 || s.RateByType != "":
				return errors.New("--rate: a profile varies VUs; an open-loop rate does not (run one job per rate instead)")
			case s.LoadModel() != config.LoadClosed:
				return errors.New("--terminals, --connections: a profile varies closed-loop VUs; a pool of connections does not vary with them")
			}
			if _, ok, _ := remoteFor(g); ok {
				return errors.New("sledge profile: runs on this machine only, not through --server")
			}
			// Asked last: every other check has passed.
			if err := rf.confirmRebuild(cmd, g); err != nil {
				return err
			}
			return runProfileCmd(cmd, g, s, vus, repeat, html)
		},
	}
	// Every run flag but --vu, which is a list here.
	runFlags := pflag.NewFlagSet("run", pflag.ContinueOnError)
	rf = bindRunFlags(runFlags, &s)
	fl := cmd.Flags()
	runFlags.VisitAll(func(f *pflag.Flag) {
		if f.Name != "vu" {
			fl.AddFlag(f)
		}
	})
	fl.StringVar(&vuList, "vu", "", fmt.Sprintf("the VU counts of the steps, comma-separated and strictly ascending, each 1 to %d (required), e.g. 1,2,4,8,16,32", config.MaxVUs))
	fl.IntVar(&repeat, "repeat", 1, "trials (jobs) per step: with 2 or more the table gives each step's NOPM with its 95% confidence interval, and sledge compare judges two profiles step by step")
	fl.StringVar(&html, "html", "", "also write the profile to this file as a self-contained HTML page (no script, no external file): NOPM and New-Order p95 against VUs as SVG charts with the knee marked, and the table")
	cmd.AddCommand(newProfileShowCmd(g), newProfileListCmd(g))
	return cmd
}

// parseVUList reads --vu's comma-separated VU counts.
func parseVUList(s string) ([]int, error) {
	if strings.TrimSpace(s) == "" {
		return nil, errors.New("--vu: give the VU counts of the steps, e.g. --vu 1,2,4,8")
	}
	var vus []int
	for _, part := range strings.Split(s, ",") {
		v, err := strconv.Atoi(strings.TrimSpace(part))
		if err != nil {
			return nil, fmt.Errorf("--vu %q: %q is not a whole number", s, strings.TrimSpace(part))
		}
		vus = append(vus, v)
	}
	if err := app.CheckProfileVUs(vus); err != nil {
		return nil, fmt.Errorf("--vu %q: %w", s, err)
	}
	return vus, nil
}

func runProfileCmd(cmd *cobra.Command, g *globals, s config.Spec, vus []int, repeat int, html string) error {
	ctx, w := cmd.Context(), cmd.OutOrStdout()
	return withService(ctx, g, func(svc *app.Service) error {
		outs, runErr := svc.RunProfile(ctx, app.Request{Spec: s, Console: w, ProgressTTY: progressTTY()}, vus, repeat)
		if len(outs) == 0 {
			return flagErrors(runErr)
		}
		p, err := app.LoadProfile(ctx, svc.Repo(), outs[0].ID)
		if err != nil {
			return err
		}
		fmt.Fprintln(w)
		if err := report.ProfileText(w, p); err != nil {
			return err
		}
		if html != "" {
			if err := writeHTMLFile(html, func(f io.Writer) error { return report.ProfileHTML(f, p) }); err != nil {
				return err
			}
			fmt.Fprintf(w, "wrote %s\n", html)
		}
		return groupEnd(cmd, "profile", "job", outs, len(vus)*repeat, runErr)
	})
}

// writeHTMLFile writes a report to path (--html).
func writeHTMLFile(path string, write func(io.Writer) error) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("--html: %w", err)
	}
	if err := write(f); err != nil {
		f.Close()
		return fmt.Errorf("--html: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("--html: %w", err)
	}
	return nil
}

// loadProfile reads profile id (or the profile of job id), with errors
// that say what to do.
func loadProfile(cmd *cobra.Command, repo *jobs.Repo, arg string) (report.Profile, error) {
	id, err := parseJobID(arg)
	if err != nil {
		return report.Profile{}, err
	}
	p, err := app.LoadProfile(cmd.Context(), repo, id)
	if errors.Is(err, app.ErrNotProfile) {
		return p, fmt.Errorf("job %d is not part of a profile (see `sledge profile list`)", id)
	}
	return p, err
}

func newProfileShowCmd(g *globals) *cobra.Command {
	var format, html string
	cmd := &cobra.Command{
		Use:   "show ID",
		Short: "Show a profile: its steps with the knee marked",
		Long: `Show the profile job ID belongs to (ID is its first job or any of its jobs):
the table sledge profile prints, and with --html a self-contained HTML page
with NOPM and New-Order p95 against VUs (SVG charts, the knee marked).

JSON (--format json): id, workload, database, created_at, steps (each vus,
jobs, trials, nopm, nopm_sd, nopm_ci95_low, nopm_ci95_high, tpm, p95_ms,
nopm_per_vu, gain_pct, linear_pct and knee; null where a step has no such
figure), knee_vus (null when there is no knee), knee (the knee in words)
and knee_rule (its definition).`,
		Example: `  sledge profile show 12
  sledge profile show 12 --html profile-12.html
  sledge profile show 12 --format json`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkFormat(format); err != nil {
				return err
			}
			repo, err := openExistingRepo(cmd.Context(), g)
			if err != nil {
				return err
			}
			defer repo.Close()
			p, err := loadProfile(cmd, repo, args[0])
			if err != nil {
				return err
			}
			if html != "" {
				if err := writeHTMLFile(html, func(f io.Writer) error { return report.ProfileHTML(f, p) }); err != nil {
					return err
				}
			}
			if format == formatJSON {
				return report.WriteJSON(cmd.OutOrStdout(), report.ToProfile(p))
			}
			return report.ProfileText(cmd.OutOrStdout(), p)
		},
	}
	cmd.Flags().StringVar(&format, "format", formatText, "output format: text or json")
	cmd.Flags().StringVar(&html, "html", "", "also write the profile to this file as a self-contained HTML page (SVG charts of NOPM and p95 against VUs, the knee marked, the table)")
	return cmd
}

func newProfileListCmd(g *globals) *cobra.Command {
	var format string
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List the profiles in the repository, newest first",
		Long: `List the profiles in the jobs repository, newest first: the profile's id (its
first job's), when it started, workload, database, the VU counts of its
steps, how many jobs it ran and its knee ("—" when there is none to tell).

JSON (--format json): an array of the objects of sledge profile show ID
--format json.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := checkFormat(format); err != nil {
				return err
			}
			repo, err := openExistingRepo(cmd.Context(), g)
			if err != nil {
				return err
			}
			defer repo.Close()
			ps, err := app.ListProfiles(cmd.Context(), repo)
			if err != nil {
				return err
			}
			if format == formatJSON {
				return report.WriteJSON(cmd.OutOrStdout(), report.ToProfiles(ps))
			}
			if len(ps) == 0 {
				fmt.Fprintln(cmd.OutOrStdout(), "No profiles in the repository (run one with sledge profile --vu LIST).")
				return nil
			}
			return report.ProfilesText(cmd.OutOrStdout(), ps)
		},
	}
	cmd.Flags().StringVar(&format, "format", formatText, "output format: text or json")
	return cmd
}
