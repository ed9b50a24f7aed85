package main

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/sledge-bench/sledge/internal/app"
	"github.com/sledge-bench/sledge/internal/config"
	"github.com/sledge-bench/sledge/internal/report"
)

// newProfileCmd is `sledge profile`: a VU sweep run as one profile of
// jobs (app.RunProfile), and its show and list subcommands.
func newProfileCmd(gs *globalState) *cobra.Command {
	s := config.New(config.KindRun)
	var (
		vuList string
		repeat = 1
		html   string
	)
	var rf *runSpecFlags
	cmd := withHelp("profile", &cobra.Command{
		Use:   "profile --vu LIST [flags]",
		Short: "Run a performance profile: the same run at increasing VU counts, NOPM and p95 against VUs with the knee marked",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if strings.TrimSpace(vuList) == "" {
				return errors.New("--vu: give the VU counts of the steps, e.g. --vu 1,2,4,8")
			}
			vus, err := app.ParseProfileVUs(vuList)
			if err != nil {
				return fmt.Errorf("--vu %q: %w", vuList, err)
			}
			if err := rf.parse(); err != nil {
				return err
			}
			if err := unusedByIterations(cmd.Flags(), s); err != nil {
				return err
			}
			if err := app.CheckProfile(s, vus, repeat); err != nil {
				return flagErrors(err)
			}
			if err := localOnly(gs, "sledge profile"); err != nil {
				return err
			}
			// Asked last: every other check has passed.
			if err := rf.confirmRebuild(cmd, gs); err != nil {
				return err
			}
			return runProfileCmd(cmd, gs, s, vus, repeat, html)
		},
	})
	fl := cmd.Flags()
	rf = addRunFlags(fl, &s, "vu") // a list here
	fl.StringVar(&vuList, "vu", "", fmt.Sprintf("the VU counts of the steps, comma-separated and strictly ascending, each 1 to %d (required), e.g. 1,2,4,8,16,32", config.MaxVUs))
	fl.IntVar(&repeat, "repeat", 1, "trials (jobs) per step: with 3 or more the table gives each step's NOPM with its 95% confidence interval; with 2 or more sledge compare judges two profiles step by step")
	fl.StringVar(&html, "html", "", "also write the profile to this file as a self-contained HTML page (no script, no external file): NOPM and New-Order p95 against VUs as SVG charts with the knee marked, and the table")
	cmd.AddCommand(newProfileShowCmd(gs), newProfileListCmd(gs))
	return cmd
}

func runProfileCmd(cmd *cobra.Command, gs *globalState, s config.Spec, vus []int, repeat int, html string) error {
	ctx, w := cmd.Context(), cmd.OutOrStdout()
	return withService(ctx, gs, func(svc *app.Service) error {
		outs, runErr := svc.RunProfile(ctx, app.Request{Spec: s, Console: w, ProgressTTY: gs.progressTTY()}, vus, repeat)
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
		return ended(cmd, app.GroupEnding("profile", "job", outs, len(vus)*repeat, runErr, ctx.Err() != nil), flagErrors)
	})
}

// writeHTMLFile writes a report to path (--html).
func writeHTMLFile(path string, write func(io.Writer) error) error {
	if err := report.WriteFile(path, write); err != nil {
		return fmt.Errorf("--html: %w", err)
	}
	return nil
}

func newProfileShowCmd(gs *globalState) *cobra.Command {
	return newViewCmd(gs, "profile-show", &cobra.Command{
		Use:   "show ID",
		Short: "Show a profile: its steps with the knee marked",
		Args:  cobra.ExactArgs(1),
	}, app.ViewProfile, "also write the profile to this file as a self-contained HTML page (SVG charts of NOPM and p95 against VUs, the knee marked, the table)")
}

func newProfileListCmd(gs *globalState) *cobra.Command {
	return newViewCmd(gs, "profile-list", &cobra.Command{
		Use:   "list",
		Short: "List the profiles in the repository, newest first",
		Args:  cobra.NoArgs,
	}, app.ViewProfiles, "")
}

func newCompareCmd(gs *globalState) *cobra.Command {
	return newViewCmd(gs, "compare", &cobra.Command{
		Use:   "compare A B",
		Short: "Compare two profiles step by step, or two jobs, and say whether the difference is beyond the noise",
		Args:  cobra.ExactArgs(2),
	}, app.ViewCompare, "two profiles: also write them overlaid to this file as a self-contained HTML page (SVG charts, the comparison, both tables)")
}

// runSeriesCmd runs `sledge run --repeat N`: N trials of the spec, one job
// each, with --between's step between two trials, then the series' summary
// (mean, SD, 95% confidence interval). A series stopped early (a trial or a
// between step failed) still prints the trials it ran, then why it
// stopped.
func runSeriesCmd(cmd *cobra.Command, gs *globalState, s config.Spec, n int) error {
	ctx, w := cmd.Context(), cmd.OutOrStdout()
	return withService(ctx, gs, func(svc *app.Service) error {
		outs, err := svc.RunSeries(ctx, app.Request{Spec: s, Console: w, ProgressTTY: gs.progressTTY()}, n)
		if err != nil && len(outs) == 0 {
			return flagErrors(err)
		}
		fmt.Fprintln(w)
		if err := report.Series(w, app.Trials(outs)); err != nil {
			return err
		}
		return ended(cmd, app.GroupEnding("series", "trial", outs, n, err, ctx.Err() != nil), flagErrors)
	})
}
