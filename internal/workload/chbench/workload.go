// Package chbench is CH-benCHmark (Cole et al., "The mixed workload
// CH-benCHmark", DBTest 2011): TPROC-C's schema and transactions plus three
// tables (SUPPLIER, NATION, REGION) over which TPROC-H's 22 analytic queries
// are rewritten: its build (TPROC-C's, then the added tables), check, drop,
// the 22 queries per dialect with answers validated on a fixed build, and
// the mixed run (run.go): TPROC-C virtual users and analytic query streams
// at once over one measured window.
package chbench

import (
	"context"
	"fmt"
	"path/filepath"
	"strconv"

	"github.com/sledge-bench/sledge/internal/config"
	"github.com/sledge-bench/sledge/internal/db"
	"github.com/sledge-bench/sledge/internal/workload"
	"github.com/sledge-bench/sledge/internal/workload/tprocc"
)

// Name is CH-benCHmark's id in specs and job records.
const Name = "chbench"

func init() { workload.Register(Workload{}) }

// Workload is CH-benCHmark's entry in the workload registry.
type Workload struct{}

var (
	_ workload.Validator       = Workload{}
	_ workload.TargetValidator = Workload{}
	_ workload.Builder         = Workload{}
	_ workload.SchemaFinder    = Workload{}
	_ workload.BuildRecorder   = Workload{}
	_ workload.Checker         = Workload{}
	_ workload.Dropper         = Workload{}
	_ workload.Includer        = Workload{}
	_ workload.OLTP            = Workload{}
	_ workload.Beside          = Workload{}
)

// Includes names TPROC-C: its tables are CH-benCHmark's transactional half.
func (Workload) Includes() []string { return []string{tprocc.Name} }

func (Workload) Name() string      { return Name }
func (Workload) Title() string     { return "CH-benCHmark" }
func (Workload) Aliases() []string { return []string{"ch-benchmark", "chbenchmark"} }

// DefaultDB is an embedded SQLite database of its own.
func (Workload) DefaultDB(dataDir string) string {
	return "sqlite:" + filepath.Join(dataDir, "chbench.sqlite")
}

// Validate adds TPROC-C's rules for a build and a run, and refuses what
// CH-benCHmark cannot do: a build or a mixed run in parts (segments), an
// iteration run with analytic streams (they run over a timed window).
func (Workload) Validate(p config.Plan) config.FieldErrors {
	switch p.Kind {
	case config.KindRun:
		errs := tprocc.Workload{}.Validate(p)
		if !p.Segment.IsWhole() {
			errs = append(errs, config.FieldError{Field: "segment",
				Msg: "segment: a CH-benCHmark run is made by one process, not in segments"})
		}
		if p.AnalyticStreams > 0 && p.Iterations > 0 {
			errs = append(errs, config.FieldError{Field: "iterations",
				Msg: "iterations: analytic streams run over a timed window, not an iteration run"})
		}
		return append(errs, validateStreams(p)...)
	case config.KindBuild:
		errs := tprocc.Workload{}.Validate(p)
		if !p.Segment.IsWhole() {
			errs = append(errs, config.FieldError{Field: "segment",
				Msg: "segment: a CH-benCHmark build is made by one process, not in segments"})
		}
		return errs
	}
	return nil
}

// validateStreams refuses analytic options that would do nothing: any
// without streams, a ramp-up with a single stream (it spreads the streams'
// starts), and a delay or ramp-up that does not end within the measured
// window (no stream, or not all, would run in it; no mixed part).
func validateStreams(p config.Plan) config.FieldErrors {
	var errs config.FieldErrors
	if p.AnalyticStreams == 0 {
		for _, o := range []struct {
			set   bool
			field string
		}{{p.AnalyticDelay > 0, "analytic_delay"}, {p.AnalyticRampup > 0, "analytic_rampup"}, {p.AnalyticShuffle, "analytic_shuffle"}} {
			if o.set {
				errs = append(errs, config.FieldError{Field: o.field,
					Msg: o.field + ": applies to analytic streams, and the run has none"})
			}
		}
		return errs
	}
	if p.AnalyticRampup > 0 && p.AnalyticStreams == 1 {
		errs = append(errs, config.FieldError{Field: "analytic_rampup",
			Msg: "analytic_rampup: spreads the streams' starts, and there is 1 stream"})
	}
	if p.Iterations > 0 {
		return errs
	}
	window := p.Duration.D()
	if p.Stages != nil {
		window = config.StagesDuration(p.Stages)
	}
	switch delay, rampup := p.AnalyticDelay.D(), p.AnalyticRampup.D(); {
	case delay >= window:
		errs = append(errs, config.FieldError{Field: "analytic_delay",
			Msg: fmt.Sprintf("analytic_delay: %s is not within the measured window (%s): no stream would run", delay, window)})
	case delay+rampup >= window:
		errs = append(errs, config.FieldError{Field: "analytic_rampup",
			Msg: fmt.Sprintf("analytic_rampup: the streams' start (%s) and ramp-up (%s) leave nothing of the measured window (%s) with all streams running", delay, rampup, window)})
	}
	return errs
}

// ValidateTarget is TPROC-C's (a storage engine on MariaDB/MySQL only), and
// refuses a database the queries have no SQL for.
func (Workload) ValidateTarget(p config.Plan, t db.Target) config.FieldErrors {
	if _, err := dialect(t.Kind); err != nil {
		return config.FieldErrors{{Field: "db", Msg: err.Error()}}
	}
	return tprocc.Workload{}.ValidateTarget(p, t)
}

// PlanBuild is TPROC-C's.
func (Workload) PlanBuild(p *config.Plan) (string, map[string]string) {
	return tprocc.Workload{}.PlanBuild(p)
}

// Build builds TPROC-C as `sledge build --workload tprocc` would, then the
// added tables.
func (Workload) Build(ctx context.Context, env workload.Env, p config.Plan) (workload.BuildReport, error) {
	rep, err := Build(ctx, env.Driver, env.Target, BuildOptions{tprocc.PlanOptions(env, p)})
	size := strconv.Itoa(p.Warehouses) + " warehouses"
	if p.Warehouses == 1 {
		size = "1 warehouse"
	}
	return rep.Workload(size), err
}

// SchemaExists reports whether the database holds a CH-benCHmark build,
// finished or not: its record in sledge_meta. Its tables alone do not tell:
// TPROC-C's are TPROC-C's, and TPROC-H has a SUPPLIER, NATION and REGION
// of its own. (Build itself refuses a database holding any of them.)
func (Workload) SchemaExists(ctx context.Context, c db.Conn, k db.Kind) (bool, error) {
	state, err := buildState(ctx, c, k)
	return state != "", err
}

// BuildRecorded reports whether sledge_meta holds a CH-benCHmark build
// record (finished or not).
func (Workload) BuildRecorded(ctx context.Context, c db.Conn, k db.Kind) (bool, error) {
	state, err := buildState(ctx, c, k)
	return state != "", err
}

// Check is Check.
func (Workload) Check(ctx context.Context, env workload.Env, c db.Conn) (workload.CheckReport, error) {
	return Check(ctx, c, env.Target.Kind)
}

// Drop is Drop.
func (Workload) Drop(ctx context.Context, env workload.Env, c db.Conn) error {
	return Drop(ctx, c, env.Target.Kind)
}
