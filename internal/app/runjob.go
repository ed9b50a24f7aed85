package app

// A job's run: an OLTP or analytic workload driven to its end, its result
// printed with what its observers saw and its thresholds' verdicts, and
// stored.

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"sync/atomic"
	"time"

	"github.com/sledge-bench/sledge/internal/db"
	"github.com/sledge-bench/sledge/internal/engine"
	"github.com/sledge-bench/sledge/internal/metrics"
	"github.com/sledge-bench/sledge/internal/report"
	"github.com/sledge-bench/sledge/internal/threshold"
	"github.com/sledge-bench/sledge/internal/workload"
)

func (e *execution) runOLTP(ctx context.Context, oltp workload.OLTP) Outcome {
	sp := e.p.spec
	run, err := oltp.PrepareRun(ctx, e.env(), sp)
	if err != nil {
		return failed(ctx, err)
	}
	defer run.Close(context.Background())
	side, err := e.prepareBeside(ctx)
	if err != nil {
		return failed(ctx, err)
	}
	settings := run.Settings()
	if side != nil {
		maps.Copy(settings, side.Settings())
	}
	if e.grp != nil {
		delete(settings, "segment") // each agent's is in its own record
	}
	addLoadSettings(settings, sp, run)
	if sp.PerVUTiming {
		settings["per_vu_timing"] = "true"
	}
	if err := e.repo().AddConfig(ctx, e.id, settings); err != nil {
		e.warn("the run's settings", err)
	}
	version, verr := run.Version(ctx)
	if verr == nil {
		_ = e.repo().SetDBVersion(ctx, e.id, version)
	}
	if p, ok := run.(workload.Prober); ok {
		e.out.SetHeadline(p.HeadlineTx())
	}
	describe := run.Describe()
	if side != nil {
		describe += "; " + side.Describe()
	}
	e.out.Logf("run job %d: %s on %s (%s), %s", e.id, e.p.wl.Title(), e.p.target, version, describe)
	for _, n := range run.Notes() {
		e.out.Logf("note: %s", n)
	}
	cfg := engine.Config{VUs: sp.VU, Rampup: sp.Rampup.D(), Duration: sp.Duration.D(), Interval: sp.Interval.D(),
		MaxRetries: sp.MaxRetries, StallAfter: sp.StallAfter.D(), Pacing: sp.PacingFactor(), InProcessDB: e.p.target.Kind == db.SQLite,
		PerVUTiming: sp.PerVUTiming}
	if sp.Iterations > 0 {
		// The spec's ramp-up and duration are not used (config.Spec.Iterations).
		cfg.Iterations, cfg.Rampup, cfg.Duration = sp.Iterations, 0, 0
	}
	setLoad(&cfg, sp, run)
	if g := e.grp; g != nil {
		cfg.FirstVU, cfg.VUs = g.seg.Share(sp.VU)
		cfg.Partial = true
		alive, stop := context.WithCancel(context.WithoutCancel(ctx))
		defer stop()
		go g.heartbeat(alive, e.out.Logf)
		if err := g.waitStart(ctx, e.out.Logf); err != nil {
			return failed(ctx, err) // handed in by run
		}
		cfg.StartAt = g.start
	}
	// The observers start before the run's clock and are cut at each of
	// its intervals, on their own connections and goroutines: never in a
	// VU's transaction. In a group run the agent whose segment starts the
	// run observes for all.
	var obs *observation
	if e.grp == nil || e.grp.seg.From().Sign() == 0 {
		obs = e.startObservers(ctx)
	}
	if obs != nil {
		e.out.Add(obs)
	}
	sideDone := e.startBeside(ctx, side, &cfg)
	res, err := engine.Run(ctx, run, cfg, e.out)
	sideDone()
	obs.stop()
	if err == nil {
		run.Complete(res)
		res.Pacing = sp.PacingFactor()
	}
	if err != nil {
		err = fmt.Errorf("run: %w", err)
	}
	if e.grp != nil {
		if obs != nil && res != nil {
			// The agent that observed judges its own host; the merge keeps
			// its warnings.
			if series, serr := e.repo().AgentSeries(context.WithoutCancel(ctx), e.id); serr == nil {
				res.Warnings = append(res.Warnings, e.noiseWarnings(ctx, series[e.grp.name])...)
			}
		}
		// An agent hands in its part; the one that merges goes on with the
		// job's merged result.
		var (
			o    Outcome
			done bool
		)
		if res, o, done = e.finishGroup(ctx, res, err); done {
			return o
		}
	} else if err != nil {
		return Outcome{Status: metrics.StatusFailed, Err: err}
	} else if res, err = metrics.MergeRunResults(res); err != nil {
		// A run of one process is the merge of one part: the numbers of
		// every run come out of the same code as those of several agents.
		return Outcome{Status: metrics.StatusFailed, Err: fmt.Errorf("run: %w", err)}
	}
	if side != nil {
		e.completeBeside(ctx, side, res)
	}
	vs := e.saveRun(ctx, res, version, cfg.InProcessDB, obs)
	return Outcome{Status: res.Status, Run: res, Thresholds: vs}
}

// prepareBeside readies the second load of a workload that runs one
// beside its virtual users (workload.Beside), nil when it has none.
func (e *execution) prepareBeside(ctx context.Context) (workload.BesideRun, error) {
	b, ok := e.p.wl.(workload.Beside)
	if !ok {
		return nil, nil
	}
	return b.PrepareBeside(ctx, e.env(), e.p.spec)
}

// startBeside has the run's clock start side (when there is one), and
// returns what stops it and waits for its end: a side load runs until the
// window's planned end, or until the run ends first (interrupted, failed).
func (e *execution) startBeside(ctx context.Context, side workload.BesideRun, cfg *engine.Config) (stop func()) {
	if side == nil {
		return func() {}
	}
	sideCtx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	var started atomic.Bool
	prev := cfg.Started
	cfg.Started = func(t0 time.Time) {
		if prev != nil {
			prev(t0)
		}
		started.Store(true)
		go func() {
			defer close(done)
			side.Run(sideCtx, t0)
		}()
	}
	// Called once engine.Run has returned: Started, called within it, has
	// been or never will be (the run failed before its clock started).
	return func() {
		cancel()
		if started.Load() {
			<-done
		}
	}
}

// completeBeside adds the side load's figures to the run's result, with
// the run's intervals as stored.
func (e *execution) completeBeside(ctx context.Context, side workload.BesideRun, res *metrics.RunResult) {
	ivs, err := e.repo().Intervals(context.WithoutCancel(ctx), e.id)
	if err != nil {
		e.warn("the run's intervals", err)
	}
	side.Complete(res, withKept(ivs, e.store.Intervals()))
	if m := res.Mixed; m != nil {
		res.Warnings = append(res.Warnings, m.Warnings...)
	}
}

// saveRun prints a run's result, with what its observers saw and its
// thresholds' verdicts, and stores them; it returns the verdicts.
func (e *execution) saveRun(ctx context.Context, res *metrics.RunResult, version string, inProcessDB bool, obs *observation) []threshold.Verdict {
	// Was the window steady? Judged on the series as stored (and what the
	// spool keeps); a run of several agents' by its merge, on the intervals
	// of the agents merged (groupSteadiness).
	if e.grp == nil {
		if ivs, err := e.repo().Intervals(context.WithoutCancel(ctx), e.id); err == nil {
			ivs = withKept(ivs, e.store.Intervals())
			res.Warnings = append(res.Warnings, metrics.SteadinessWarnings(ivs)...)
			// Was the client machine quiet? Judged on what the host
			// observer stored over the same window.
			if obs != nil {
				res.Warnings = append(res.Warnings, e.noiseWarnings(ctx, ivs)...)
			}
		}
	}
	var b bytes.Buffer
	own := false
	if _, ok := e.p.wl.(workload.RunReporter); ok {
		// The workload's own vocabulary (pgbench's), from the settings
		// as stored.
		cfg, _ := e.repo().Config(context.WithoutCancel(ctx), e.id)
		own, _ = report.OwnRunResult(&b, e.p.wl, workload.RunReport{ID: e.id, Target: e.p.target.String(), Version: version,
			Settings: cfg, Result: res, Embedded: inProcessDB})
	}
	if !own {
		_ = report.RunResult(&b, e.p.wl.Title(), e.id, e.p.target.String(), version, res, inProcessDB)
	}
	e.observedBlock(ctx, &b, obs)
	vs := threshold.JudgeRun(e.p.spec.Thresholds, res)
	_ = report.Thresholds(&b, vs)
	e.out.Text(b.String())
	if _, err := e.store.SaveRunResult(context.WithoutCancel(ctx), res); err != nil {
		e.warn("the result", err)
	}
	e.saveThresholds(ctx, vs)
	return vs
}

// saveThresholds stores a run's verdicts, if it has thresholds.
func (e *execution) saveThresholds(ctx context.Context, vs []threshold.Verdict) {
	if len(vs) == 0 {
		return
	}
	if _, err := e.store.SaveThresholds(context.WithoutCancel(ctx), vs); err != nil {
		e.warn("the thresholds' verdicts", err)
	}
}

func (e *execution) runAnalytic(ctx context.Context, a workload.Analytic) Outcome {
	if c, err := e.session(ctx, "sledge"); err == nil {
		c.Close(context.Background())
	}
	var (
		res *metrics.AnalyticResult
		err error
	)
	// An analytic run has no monitor intervals: its observers are cut once,
	// at its end.
	obs := e.observeRun(ctx, func() { res, err = a.RunAnalytic(ctx, e.env(), e.p.spec) })
	if res == nil {
		return failed(ctx, err)
	}
	if _, serr := e.store.SaveAnalyticResult(context.WithoutCancel(ctx), res); serr != nil {
		e.warn("the result", serr)
	}
	var b bytes.Buffer
	_ = report.Analytic(&b, e.id, e.p.target.String(), res)
	e.observedBlock(ctx, &b, obs)
	vs := threshold.JudgeAnalytic(e.p.spec.Thresholds, res)
	_ = report.Thresholds(&b, vs)
	e.out.Text(b.String())
	e.saveThresholds(ctx, vs)
	return Outcome{Status: res.Status, Err: err, Analytic: res, Thresholds: vs}
}
