package app

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"

	"github.com/sledge-bench/sledge/internal/config"
	"github.com/sledge-bench/sledge/internal/metrics"
	"github.com/sledge-bench/sledge/internal/report"
	"github.com/sledge-bench/sledge/internal/stats"
	"github.com/sledge-bench/sledge/internal/threshold"
)

// The settings a gate's jobs record (no repository column: settings, as a
// profile's): the gate (its first job's id, on that job too), the job's
// arm (A or B), the whole order of the arms, the seed that drew it, the
// job's place in the order (k/n) and, on the first job once the gate has
// judged, its verdict (pass or FAIL).
const (
	SettingGate        = "gate"
	SettingGateArm     = "gate_arm"
	SettingGateOrder   = "gate_order"
	SettingGateSeed    = "gate_seed"
	SettingGateTrial   = "gate_trial"
	SettingGateVerdict = "gate_verdict"
)

// MinGateTrials is the fewest trials per arm a gate runs: the bootstrap
// interval needs two values in each arm, and three make it less blind.
const MinGateTrials = 2

// GateRequest is a regression gate: the two arms' specs, their trials
// each, and the bounds on B's change against A (threshold.ParseRelative).
type GateRequest struct {
	// Request carries what both arms share: the console and its terminal.
	// Its Spec is not used.
	Request
	A, B config.Spec
	// ADesc and BDesc say what each arm changes, for the reports.
	ADesc, BDesc string
	// Trials is the number of trials of each arm.
	Trials int
	// AllowNoisy gives a verdict even from trials whose window the client
	// machine shared or throttled (JobNoise); without it the gate fails
	// with no verdict.
	AllowNoisy bool
	// Seed draws the order of the arms and the bootstrap's resamples; 0
	// draws a seed (recorded with the jobs).
	Seed uint64
	// FailIf are the bounds; none compares NOPM (OLTP) or the power test's
	// geometric mean (analytic) without failing.
	FailIf []string
}

// CheckGate checks a gate before any job runs: both arms' specs (as
// Validate), its trials, and its bounds, each of which must name what the
// arms' runs measure. Errors are config.FieldErrors: "a." or "b." before a
// field of one arm's spec, "trials", "fail_if".
func (s *Service) CheckGate(req GateRequest) error {
	var errs config.FieldErrors
	if req.Trials < MinGateTrials || req.Trials > MaxTrials {
		errs = append(errs, config.FieldError{Field: "trials", Msg: fmt.Sprintf("must be between %d and %d trials per arm (got %d)", MinGateTrials, MaxTrials, req.Trials)})
	}
	bounds, err := parseBounds(req.FailIf)
	if err != nil {
		errs = append(errs, config.FieldError{Field: "fail_if", Msg: err.Error()})
	}
	// An arm's own error names its arm ("b.pacing"); one both arms have
	// comes from what they share, and is named once, as it is.
	var armErrs [2]config.FieldErrors
	for i, spec := range []config.Spec{req.A, req.B} {
		if spec.Kind != config.KindRun {
			return fmt.Errorf("a gate runs run jobs, not %s", spec.Kind)
		}
		if spec.Segment != "" {
			armErrs[i] = append(armErrs[i], config.FieldError{Field: "segment", Msg: "a gate runs its trials on one machine, not split over agents"})
		}
		if len(spec.Thresholds) > 0 {
			armErrs[i] = append(armErrs[i], config.FieldError{Field: "thresholds", Msg: "a gate judges the change between its arms (fail_if), not each run"})
		}
		// The bounds' metrics as thresholds: the workload's validation
		// says whether its runs measure them.
		synth := map[string]string{}
		for _, b := range bounds {
			text := b.Label() + ">=0" + b.Unit()
			synth[text] = b.Text
			spec.Thresholds = append(spec.Thresholds, text)
		}
		err := s.Validate(spec)
		fe := config.Fields(err)
		if err != nil && fe == nil {
			return err
		}
		for _, e := range fe {
			if e.Field == "thresholds" {
				for t, orig := range synth {
					e.Msg = strings.ReplaceAll(e.Msg, t, orig)
				}
				if rest, ok := strings.CutPrefix(e.Msg, e.Field); ok {
					e.Msg = "fail_if" + rest
				}
				e.Field = "fail_if"
			}
			armErrs[i] = append(armErrs[i], e)
		}
	}
	for i, name := range []string{"a", "b"} {
		for _, e := range armErrs[i] {
			switch {
			case containsField(armErrs[1-i], e) && i == 0, e.Field == "fail_if" && !containsField(errs, e):
				errs = append(errs, e)
			case !containsField(armErrs[1-i], e):
				e.Field = name + "." + e.Field
				errs = append(errs, e)
			}
		}
	}
	if errs != nil {
		return errs
	}
	return nil
}

func containsField(errs config.FieldErrors, e config.FieldError) bool {
	for _, x := range errs {
		if x.Field == e.Field && x.Msg == e.Msg {
			return true
		}
	}
	return false
}

func parseBounds(texts []string) ([]threshold.Relative, error) {
	var out []threshold.Relative
	var errs []error
	for _, t := range texts {
		r, err := threshold.ParseRelative(t)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		out = append(out, r)
	}
	return out, errors.Join(errs...)
}

// GateOrder is the order of a gate's 2·trials jobs drawn from seed: one A
// and one B in each consecutive pair, which goes first drawn at random
// ("ABBAAB"), so that a machine that drifts during the gate weighs on both
// arms alike.
func GateOrder(trials int, seed uint64) string {
	rng := rand.New(rand.NewPCG(seed, 0x6a7e))
	var b strings.Builder
	for range trials {
		if rng.IntN(2) == 0 {
			b.WriteString("AB")
		} else {
			b.WriteString("BA")
		}
	}
	return b.String()
}

// Gate runs a regression gate: the arms' trials interleaved in
// GateOrder's order, one run job each, recording SettingGate… with every
// job; between two jobs the database gets what the next job's spec's
// Between asks (as a series'). It stops at a job that fails or is
// interrupted, or a between step that fails. Then it compares the arms on
// each bound's metric: B's mean against A's, the bootstrap 95% interval of
// the ratio and a permutation p-value; a bound fails when the interval
// excludes no change and the change is beyond it, or when its metric
// could not be measured. It returns the gate's record (its rows judge the
// jobs that ran; Stopped says why not all did), the outcomes, and the
// error that stopped it.
func (s *Service) Gate(ctx context.Context, req GateRequest) (report.Gate, []Outcome, error) {
	if err := s.CheckGate(req); err != nil {
		return report.Gate{}, nil, err
	}
	bounds, _ := parseBounds(req.FailIf)
	if req.Seed == 0 {
		req.Seed = rand.Uint64()>>1 | 1 // never 0, and fits an int64 for whoever reads the setting
	}
	order := GateOrder(req.Trials, req.Seed)
	g := report.Gate{A: req.ADesc, B: req.BDesc, Seed: req.Seed, Order: order, Resamples: stats.BootstrapResamples}
	var (
		outs    []Outcome
		stopErr error
	)
	for k, arm := range order {
		r := req.Request
		r.Spec = req.A
		if arm == 'B' {
			r.Spec = req.B
		}
		r.Settings = map[string]string{SettingGateArm: string(arm), SettingGateOrder: order,
			SettingGateSeed: strconv.FormatUint(req.Seed, 10), SettingGateTrial: fmt.Sprintf("%d/%d", k+1, len(order))}
		for key, v := range req.Settings {
			r.Settings[key] = v
		}
		if g.ID != 0 {
			r.Settings[SettingGate] = strconv.FormatInt(g.ID, 10)
		}
		if b := r.Spec.Between; b != "" && b != config.BetweenNone {
			r.Settings["between"] = b
		}
		if k > 0 {
			if err := s.betweenTrials(ctx, r); err != nil {
				stopErr = fmt.Errorf("after trial %d of %d: %w", k, len(order), err)
				g.Stopped = stopErr.Error()
				break
			}
		}
		if r.Console != nil {
			fmt.Fprintf(r.Console, "Gate trial %d of %d: arm %c\n", k+1, len(order), arm)
		}
		o, err := s.Run(ctx, r)
		if err != nil && o.ID == 0 {
			stopErr = fmt.Errorf("trial %d of %d: %w", k+1, len(order), err)
			g.Stopped = stopErr.Error()
			break
		}
		if g.ID == 0 {
			g.ID = o.ID
			if err := s.opts.Repo.AddConfig(context.WithoutCancel(ctx), o.ID, map[string]string{SettingGate: strconv.FormatInt(g.ID, 10)}); err != nil {
				fmt.Fprintf(s.opts.Warn, "sledge: warning: cannot record the gate of job %d: %v\n", o.ID, err)
			}
		}
		outs = append(outs, o)
		g.Trials = append(g.Trials, report.GateTrial{JobID: o.ID, Arm: string(arm), Status: o.Status})
		if err != nil || o.Status == metrics.StatusFailed || o.Status == metrics.StatusInterrupted || (o.Run == nil && o.Analytic == nil) || ctx.Err() != nil {
			g.Stopped = fmt.Sprintf("trial %d of %d (job %d) %s", k+1, len(order), o.ID, o.Status)
			stopErr = err
			break
		}
	}
	if len(bounds) == 0 {
		metric := "nopm"
		if len(outs) > 0 && outs[0].Analytic != nil {
			metric = "geomean"
		}
		bounds = []threshold.Relative{{Metric: metric}}
	}
	for _, b := range bounds {
		g.Rows = append(g.Rows, gateRow(b, g.Trials, outs, req.Seed))
	}
	g.AllowNoisy = req.AllowNoisy
	for _, t := range g.Trials {
		n, err := JobNoise(context.WithoutCancel(ctx), s.opts.Repo, t.JobID)
		if err != nil {
			fmt.Fprintf(s.opts.Warn, "sledge: warning: the noise of job %d: %v\n", t.JobID, err)
		} else if n != nil && n.Noisy() {
			g.Noisy = append(g.Noisy, fmt.Sprintf("job %d: %s", t.JobID, n.Warnings[0]))
		}
	}
	if g.ID != 0 {
		verdict := "pass"
		if !g.Passed() {
			verdict = "FAIL"
		}
		if err := s.opts.Repo.AddConfig(context.WithoutCancel(ctx), g.ID, map[string]string{SettingGateVerdict: verdict}); err != nil {
			fmt.Fprintf(s.opts.Warn, "sledge: warning: cannot record the verdict of gate %d: %v\n", g.ID, err)
		}
	}
	return g, outs, stopErr
}

// gateRow compares the arms on one bound's metric.
func gateRow(b threshold.Relative, trials []report.GateTrial, outs []Outcome, seed uint64) report.GateRow {
	row := report.GateRow{Label: b.Label(), Unit: b.Unit(), Bound: b.Text, AMean: math.NaN(), BMean: math.NaN(),
		Change: math.NaN(), Low: math.NaN(), High: math.NaN(), P: math.NaN()}
	for i, o := range outs {
		v, note := b.Value(o.Run, o.Analytic)
		if note != "" {
			if row.Note == "" {
				row.Note = fmt.Sprintf("job %d (%s): %s", o.ID, trials[i].Arm, note)
			}
			continue
		}
		if trials[i].Arm == "A" {
			row.A = append(row.A, v)
		} else {
			row.B = append(row.B, v)
		}
	}
	mean := func(xs []float64) float64 { return stats.Summarize(xs).Mean }
	row.AMean, row.BMean = mean(row.A), mean(row.B)
	if row.Note == "" && (len(row.A) < 2 || len(row.B) < 2) {
		row.Note = fmt.Sprintf("too few trials to compare (%d A, %d B; it takes 2 each)", len(row.A), len(row.B))
	}
	if row.Note == "" {
		r := stats.BootstrapRatio(row.A, row.B, seed)
		row.Change, row.Low, row.High = 100*(r.Ratio-1), 100*(r.Low-1), 100*(r.High-1)
		row.Significant = r.Significant
		row.P = stats.PermutationP(row.A, row.B, seed)
		if math.IsNaN(r.Ratio) {
			row.Note = fmt.Sprintf("no ratio: A's mean %s is not positive", report.Int(row.AMean))
		}
	}
	switch {
	case row.Bound == "":
	case row.Note != "":
		row.Failed = true // a gate does not pass on what it did not measure
	default:
		row.Failed = row.Significant && b.Exceeded(row.Change)
	}
	return row
}
