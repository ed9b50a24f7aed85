package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/sledge-bench/sledge/internal/app"
	"github.com/sledge-bench/sledge/internal/config"
	"github.com/sledge-bench/sledge/internal/report"
)

// newGateCmd is `sledge gate`: two arms, A and B — the run flags given,
// each changed by its --a-set/--b-set — run as interleaved trials and
// judged by --fail-if (app.Gate).
func newGateCmd(gs *globalState) *cobra.Command {
	s := config.New(config.KindRun)
	var (
		aSet, bSet, failIf []string
		trials             = 5
		orderSeed          uint64
		summary, junit     string
		allowNoisy         bool
	)
	var rf *runSpecFlags
	cmd := withHelp("gate", &cobra.Command{
		Use:   "gate --a-set/--b-set KEY=VALUE … [--fail-if BOUND …] [flags]",
		Short: "Compare two settings or targets (A and B) with interleaved trials and fail when B is significantly worse",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := rf.parse(); err != nil {
				return err
			}
			if len(aSet) == 0 && len(bSet) == 0 {
				return fmt.Errorf("--a-set or --b-set: say how the arms differ, e.g. --b-set db=postgres://…/new or --b-set pacing=spec")
			}
			req := app.GateRequest{Trials: trials, Seed: orderSeed, FailIf: failIf, AllowNoisy: allowNoisy}
			var err error
			if req.A, req.ADesc, err = armSpec(s, "--a-set", aSet); err != nil {
				return err
			}
			if req.B, req.BDesc, err = armSpec(s, "--b-set", bSet); err != nil {
				return err
			}
			if err := localOnly(gs, "sledge gate"); err != nil {
				return err
			}
			// Checked before the repository is opened: nothing is made of a
			// gate that cannot run.
			if err := app.New(gs.serviceOptions(app.Options{OwnsProcess: gs.ownsProcess})).CheckGate(req); err != nil {
				return flagErrors(err)
			}
			ctx, w := cmd.Context(), cmd.OutOrStdout()
			return withService(ctx, gs, func(svc *app.Service) error {
				if err := rf.confirmRebuild(cmd, gs); err != nil { // asked last: every other check passed
					return err
				}
				req.A.Confirm, req.B.Confirm = s.Confirm, s.Confirm
				req.Request = app.Request{Console: w, ProgressTTY: gs.progressTTY()}
				g, outs, runErr := svc.Gate(ctx, req)
				if len(outs) == 0 {
					return flagErrors(runErr)
				}
				return gateEnd(cmd, g, runErr, summary, junit)
			})
		},
	})
	fl := cmd.Flags()
	rf = addRunFlags(fl, &s)
	fl.StringArrayVar(&aSet, "a-set", nil, "a run setting of arm A only, as the run flag's name and value (repeatable), e.g. db=postgres://u:p@old:5432/tpcc")
	fl.StringArrayVar(&bSet, "b-set", nil, "a run setting of arm B only, as --a-set (repeatable), e.g. pacing=spec")
	fl.IntVar(&trials, "trials", trials, fmt.Sprintf("trials (run jobs) of each arm, %d to %d, interleaved in pairs (AB or BA, drawn at random)", app.MinGateTrials, app.MaxTrials))
	fl.StringArrayVar(&failIf, "fail-if", nil, "a bound on B's change against A, METRIC[(NAME)] OP ±N%, e.g. 'nopm<-3%' or 'p95(new_order)>+10%' (repeatable): the gate fails (exit status 99) when the change is significant and beyond it; none: NOPM is compared, without failing")
	fl.Uint64Var(&orderSeed, "order-seed", 0, "seed of the order of the trials and of the bootstrap (default: random; recorded with every job)")
	fl.StringVar(&summary, "summary", "", "append the verdict as Markdown to this file, e.g. \"$GITHUB_STEP_SUMMARY\"")
	fl.StringVar(&junit, "junit", "", "write the verdict as JUnit XML to this file: one test case per --fail-if")
	fl.BoolVar(&allowNoisy, "allow-noisy", false, "give a verdict even when trials ran on a noisy client machine (steal, other processes' CPU, frequency changes beyond the bounds of a run's noise warnings); by default such a gate fails with no verdict")
	return cmd
}

// armSpec is the common spec with an arm's KEY=VALUE settings, each set
// as the run flag KEY would set it; desc lists them.
func armSpec(common config.Spec, flag string, sets []string) (spec config.Spec, desc string, err error) {
	spec = common
	fs := pflag.NewFlagSet("arm", pflag.ContinueOnError)
	bindRunFlags(fs, &spec)
	for _, kv := range sets {
		k, v, ok := strings.Cut(kv, "=")
		k = strings.TrimPrefix(strings.TrimSpace(k), "--")
		switch {
		case !ok || k == "":
			return spec, "", fmt.Errorf("%s %q: want KEY=VALUE, a run flag's name and its value (e.g. pacing=spec)", flag, kv)
		case k == "yes" || k == "between":
			return spec, "", fmt.Errorf("%s %s: applies to the whole gate, not to one arm: give --%s", flag, k, k)
		case k == "rate":
			err = spec.SetRate(v)
		case fs.Lookup(k) == nil:
			return spec, "", fmt.Errorf("%s %q: %s is no run flag (see sledge run --help)", flag, kv, k)
		default:
			err = fs.Set(k, v)
		}
		if err != nil {
			return spec, "", fmt.Errorf("%s %s: %w", flag, kv, err)
		}
	}
	return spec, strings.Join(sets, " "), nil
}

// gateEnd prints the gate, writes --summary and --junit, and ends as
// app.GateEnding says (99 when a bound failed).
func gateEnd(cmd *cobra.Command, g report.Gate, runErr error, summary, junit string) error {
	w := cmd.OutOrStdout()
	fmt.Fprintln(w)
	if err := report.GateText(w, g); err != nil {
		return err
	}
	if summary != "" {
		if err := report.AppendFile(summary, func(f io.Writer) error { return report.GateMarkdown(f, g) }); err != nil {
			return fmt.Errorf("--summary: %w", err)
		}
	}
	if junit != "" {
		if err := report.WriteFile(junit, func(f io.Writer) error { return report.GateJUnit(f, g) }); err != nil {
			return fmt.Errorf("--junit: %w", err)
		}
	}
	return ended(cmd, app.GateEnding(g, runErr, cmd.Context().Err() != nil), flagErrors)
}
