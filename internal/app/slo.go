package app

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/sledge-bench/sledge/internal/config"
	"github.com/sledge-bench/sledge/internal/jobs"
	"github.com/sledge-bench/sledge/internal/metrics"
	"github.com/sledge-bench/sledge/internal/report"
	"github.com/sledge-bench/sledge/internal/slo"
	"github.com/sledge-bench/sledge/internal/threshold"
)

// The settings an SLO search's jobs record (no repository column:
// settings, as a profile's and a gate's): the search (its first job's id,
// on that job too), the step's place (k, from 1) and phase (step or
// bisect); on the first job, the goals (joined by "; "), the precision
// and the highest rate asked, and once the search ended its answer (the
// highest passing rate, "none" when even the start rate failed).
const (
	SettingSLO          = "slo"
	SettingSLOStep      = "slo_step"
	SettingSLOPhase     = "slo_phase"
	SettingSLOGoals     = "slo_goals"
	SettingSLOPrecision = "slo_precision"
	SettingSLOMaxRate   = "slo_max_rate"
	SettingSLOAnswer    = "slo_answer"
)

// ErrNotSLO is the error of a job that belongs to no SLO search.
var ErrNotSLO = errors.New("not part of an SLO search")

// Defaults of an SLO search.
const (
	DefaultSLOStartRate    = 10
	DefaultSLOStepDuration = 30 * time.Second
)

// SLORequest is an SLO search: the run spec every step runs at its own
// rate, the goals, and the search's bounds.
type SLORequest struct {
	// Request is the steps' request: its Spec is each step's run, but for
	// its Rate (the step's), Duration (StepDuration) and Thresholds (the
	// goals). Its Rampup is each step's warm-up, run at the step's rate and
	// not judged.
	Request
	// Goals are thresholds (threshold.Parse) judged on each step's window.
	Goals []string
	// StartRate is the first rate, MaxRate the highest (0: none), in
	// transactions per second.
	StartRate, MaxRate float64
	// StepDuration is each step's measured window.
	StepDuration time.Duration
	// Precision is the bracket's relative width at which the bisection
	// stops (0.05 for 5%).
	Precision float64
}

// stepSpec is the spec of the step at rate: a total rate, or the spec's
// rates per type scaled to add up to it (the mix of the arrivals).
func (req SLORequest) stepSpec(rate float64) config.Spec {
	spec := req.Spec
	spec.Rate = rate
	if _, byType, err := config.ParseRate(spec.RateByType); err == nil && byType != nil {
		var sum float64
		for _, r := range byType {
			sum += r
		}
		for k, r := range byType {
			byType[k] = r / sum * rate
		}
		spec.Rate, spec.RateByType = 0, config.FormatRateByType(byType)
	}
	spec.Duration = config.Duration(req.StepDuration)
	spec.Thresholds = slices.Clone(req.Goals)
	return spec
}

// searchOptions bound the search: with no highest rate asked, the highest
// a run offers (config.MaxRate), so that a target that meets the goals
// there gets the answer "at least" it instead of a step its run refuses.
func (req SLORequest) searchOptions() slo.Options {
	o := slo.Options{Start: req.StartRate, Max: req.MaxRate, Precision: req.Precision}
	if o.Max == 0 {
		o.Max = config.MaxRate
	}
	return o
}

// CheckSLO checks a search before any job runs: its goals, its bounds and
// the steps' spec (as Validate, at the start rate and at the highest rate
// asked). Errors are config.FieldErrors: "goal", "start_rate",
// "max_rate", "precision", "step_duration", or a field of the spec.
func (s *Service) CheckSLO(req SLORequest) error {
	if req.Spec.Kind != config.KindRun {
		return fmt.Errorf("an SLO search runs run jobs, not %s", req.Spec.Kind)
	}
	var errs config.FieldErrors
	add := func(field, format string, a ...any) {
		errs = append(errs, config.FieldError{Field: field, Msg: fmt.Sprintf(format, a...)})
	}
	if len(req.Goals) == 0 {
		add("goal", "name at least one goal, e.g. p99(new_order)<50ms")
	}
	for _, g := range req.Goals {
		if _, err := threshold.Parse(g); err != nil {
			add("goal", "%v", err)
		}
	}
	if !(req.StartRate > 0 && req.StartRate <= config.MaxRate) {
		add("start_rate", "must be in (0, %g] transactions per second (got %g)", float64(config.MaxRate), req.StartRate)
	}
	if req.MaxRate != 0 && !(req.MaxRate >= req.StartRate && req.MaxRate <= config.MaxRate) {
		add("max_rate", "must be at least the start rate (%g) and at most %g (got %g)", req.StartRate, float64(config.MaxRate), req.MaxRate)
	}
	if !(req.Precision > 0 && req.Precision <= 1) {
		add("precision", "must be more than 0%% and at most 100%% (got %g%%)", 100*req.Precision)
	}
	if req.StepDuration < time.Second {
		add("step_duration", "must be at least 1s, long enough to measure a steady rate (got %s)", req.StepDuration)
	}
	spec := req.Spec
	switch {
	case spec.Rate > 0:
		add("rate", "an SLO search sets each step's total rate itself (start_rate, max_rate); rates per type give the mix it scales")
	case spec.Stages != "":
		add("stages", "an SLO search runs each step at one rate: not with stages")
	case spec.Terminals > 0:
		add("terminals", "an SLO search offers open-loop arrivals: not terminals")
	case spec.PacingFactor() > 0:
		add("pacing", "an SLO search offers open-loop arrivals: not paced terminals")
	case spec.Iterations > 0:
		add("iterations", "an SLO search runs each step for step_duration: not by iterations")
	case spec.Segment != "":
		add("segment", "an SLO search runs its steps on one machine, not split over agents")
	case len(spec.Thresholds) > 0:
		add("thresholds", "an SLO search judges its goals (goal) on each step, not thresholds")
	}
	if errs != nil {
		return errs
	}
	for _, rate := range []float64{req.StartRate, req.MaxRate} {
		if rate == 0 {
			continue
		}
		err := s.Validate(req.stepSpec(rate))
		fe := config.Fields(err)
		if err != nil && fe == nil {
			return err
		}
		for _, e := range fe {
			switch e.Field {
			case "thresholds":
				e.Field, e.Msg = "goal", strings.Replace(e.Msg, "thresholds", "goal", 1)
			case "duration":
				e.Field = "step_duration"
			case "rate":
				e.Field = "start_rate"
				if rate != req.StartRate {
					e.Field = "max_rate"
				}
			}
			if !containsField(errs, e) {
				errs = append(errs, e)
			}
		}
	}
	if errs != nil {
		return errs
	}
	return nil
}

// SLO runs an SLO search (slo.Search): each step one run job at its rate
// through the job service, recording SettingSLO… with every job, its goals
// as its thresholds; between two steps the database gets what the spec's
// Between asks. A step that fails (as a job) or is interrupted stops the
// search. It returns the search (report.SLO; its Result.Stopped says why
// it ended early) and the error that stopped it.
func (s *Service) SLO(ctx context.Context, req SLORequest) (report.SLO, error) {
	if err := s.CheckSLO(req); err != nil {
		return report.SLO{}, err
	}
	goals := make([]threshold.Threshold, len(req.Goals))
	for i, g := range req.Goals {
		goals[i], _ = threshold.Parse(g)
	}
	out := report.SLO{Goals: req.Goals, Tx: slo.LatencyName(goals), MaxRate: req.MaxRate, Warmup: req.Spec.Rampup.D(), StepDuration: req.StepDuration}
	var prev int64
	run := func(ctx context.Context, phase string, rate float64) (slo.Step, error) {
		r := req.Request
		r.Spec = req.stepSpec(rate)
		r.Settings = map[string]string{SettingSLOStep: strconv.Itoa(len(out.Result.Steps) + 1), SettingSLOPhase: phase}
		for k, v := range req.Settings {
			r.Settings[k] = v
		}
		if out.ID != 0 {
			r.Settings[SettingSLO] = strconv.FormatInt(out.ID, 10)
		}
		if b := r.Spec.Between; b != "" && b != config.BetweenNone {
			r.Settings["between"] = b
			if prev != 0 {
				if err := s.betweenTrials(ctx, r); err != nil {
					return slo.Step{}, fmt.Errorf("after job %d: %w", prev, err)
				}
			}
		}
		if r.Console != nil {
			fmt.Fprintf(r.Console, "SLO %s %d: %s transactions per second\n", phase, len(out.Result.Steps)+1, slo.FormatRate(rate))
		}
		j, err := s.Start(ctx, r)
		if err != nil {
			return slo.Step{}, err
		}
		if out.ID == 0 {
			out.ID = j.ID
			first := map[string]string{SettingSLO: strconv.FormatInt(out.ID, 10), SettingSLOGoals: strings.Join(req.Goals, "; "),
				SettingSLOPrecision: strconv.FormatFloat(req.Precision, 'g', -1, 64)}
			if req.MaxRate > 0 {
				first[SettingSLOMaxRate] = strconv.FormatFloat(req.MaxRate, 'g', -1, 64)
			}
			if err := s.opts.Repo.AddConfig(context.WithoutCancel(ctx), j.ID, first); err != nil {
				fmt.Fprintf(s.opts.Warn, "sledge: warning: cannot record the SLO search of job %d: %v\n", j.ID, err)
			}
		}
		o := j.Wait()
		prev = o.ID
		st := slo.Judge(goals, rate, o.Run)
		st.JobID, st.Status = o.ID, o.Status
		out.Result.Steps = append(out.Result.Steps, st)
		if o.Status == metrics.StatusFailed {
			return st, fmt.Errorf("job %d: %w", o.ID, o.Err)
		}
		if o.NotStored != nil { // the search could not be read back whole: it stops
			return st, o.NotStored
		}
		if o.Run == nil || o.Status == metrics.StatusInterrupted || ctx.Err() != nil {
			return st, fmt.Errorf("job %d %s", o.ID, o.Status)
		}
		return st, nil
	}
	res, err := slo.Search(ctx, req.searchOptions(), run)
	out.Result = res
	if out.ID != 0 {
		if j, err := s.opts.Repo.Get(context.WithoutCancel(ctx), out.ID); err == nil {
			out.Workload, out.DB, out.CreatedAt = j.Workload, j.DBVersion, j.CreatedAt
			if out.DB == "" {
				out.DB = j.DBKind
			}
		}
		answer := "none"
		if res.Found {
			answer = strconv.FormatFloat(res.Low, 'g', -1, 64)
		}
		if err != nil {
			return out, err // no answer recorded: read back, the search says it was stopped
		}
		if err := s.opts.Repo.AddConfig(context.WithoutCancel(ctx), out.ID, map[string]string{SettingSLOAnswer: answer}); err != nil {
			fmt.Fprintf(s.opts.Warn, "sledge: warning: cannot record the answer of SLO search %d: %v\n", out.ID, err)
		}
	}
	return out, err
}

// SLOStore is what reading an SLO search needs of the jobs repository;
// *jobs.Repo is one.
type SLOStore interface {
	Get(ctx context.Context, id int64) (jobs.Job, error)
	Config(ctx context.Context, id int64) (map[string]string, error)
	RunResult(ctx context.Context, id int64) (*metrics.RunResult, error)
	JobsWithSetting(ctx context.Context, key, value string) ([]int64, error)
}

var _ SLOStore = (*jobs.Repo)(nil)

// LoadSLO reads back the SLO search job id belongs to (its first job or
// any of its steps): the steps in the order they ran, each judged again on
// its stored result against the goals the search recorded, and the answer
// as the search gave it (slo.Summarize: a step still running, interrupted
// or failed is shown but not judged). A search whose first job records no
// goals is ErrNotSLO.
func LoadSLO(ctx context.Context, st SLOStore, id int64) (report.SLO, error) {
	if _, err := st.Get(ctx, id); err != nil {
		return report.SLO{}, err
	}
	cfg, err := st.Config(ctx, id)
	if err != nil {
		return report.SLO{}, err
	}
	root, err := strconv.ParseInt(cfg[SettingSLO], 10, 64)
	if err != nil || root < 1 {
		return report.SLO{}, fmt.Errorf("job %d: %w", id, ErrNotSLO)
	}
	first, err := st.Get(ctx, root)
	if err != nil {
		return report.SLO{}, fmt.Errorf("SLO search %d: %w", root, err)
	}
	if cfg, err = st.Config(ctx, root); err != nil {
		return report.SLO{}, err
	}
	out := report.SLO{ID: root, Workload: first.Workload, DB: first.DBVersion, CreatedAt: first.CreatedAt}
	if out.DB == "" {
		out.DB = first.DBKind
	}
	var goals []threshold.Threshold
	for _, g := range strings.Split(cfg[SettingSLOGoals], "; ") {
		if g == "" {
			continue
		}
		t, err := threshold.Parse(g)
		if err != nil {
			return out, fmt.Errorf("SLO search %d: its goal %q: %w", root, g, err)
		}
		goals = append(goals, t)
		out.Goals = append(out.Goals, g)
	}
	if len(goals) == 0 { // a search records its goals on its first job: this job names none
		return report.SLO{}, fmt.Errorf("job %d: its search %d records no goals: %w", id, root, ErrNotSLO)
	}
	out.Tx = slo.LatencyName(goals)
	precision, _ := strconv.ParseFloat(cfg[SettingSLOPrecision], 64)
	out.MaxRate, _ = strconv.ParseFloat(cfg[SettingSLOMaxRate], 64)
	if d, err := time.ParseDuration(cfg["rampup"]); err == nil {
		out.Warmup = d
	}
	if d, err := time.ParseDuration(cfg["duration"]); err == nil {
		out.StepDuration = d
	}
	ids, err := st.JobsWithSetting(ctx, SettingSLO, strconv.FormatInt(root, 10))
	if err != nil {
		return out, err
	}
	if !slices.Contains(ids, root) {
		ids = append([]int64{root}, ids...)
	}
	type placed struct {
		k    int
		step slo.Step
	}
	var steps []placed
	for _, jid := range ids {
		j, err := st.Get(ctx, jid)
		if errors.Is(err, jobs.ErrNotFound) {
			continue // deleted meanwhile
		}
		if err != nil {
			return out, err
		}
		if j.Kind != jobs.KindRun {
			continue // a rebuild between steps belongs to the search, but is no step
		}
		c, err := st.Config(ctx, jid)
		if err != nil {
			return out, err
		}
		k, _ := strconv.Atoi(c[SettingSLOStep])
		rate, err := strconv.ParseFloat(c["rate"], 64)
		if err != nil {
			continue
		}
		r, err := st.RunResult(ctx, jid)
		if err != nil && !errors.Is(err, jobs.ErrNotFound) {
			return out, err
		}
		s := slo.Judge(goals, rate, r)
		s.JobID, s.Status, s.Phase = jid, j.Status, c[SettingSLOPhase]
		steps = append(steps, placed{k, s})
	}
	slices.SortStableFunc(steps, func(a, b placed) int { return a.k - b.k })
	list := make([]slo.Step, len(steps))
	for i, p := range steps {
		list[i] = p.step
	}
	out.Result = slo.Summarize(list, precision)
	if cfg[SettingSLOAnswer] == "" {
		out.Result.Stopped = "the search was stopped before its end (a step failed or was interrupted), or it is still running"
	}
	if math.IsNaN(precision) || precision <= 0 {
		out.Result.Precision = slo.DefaultPrecision
	}
	return out, nil
}
