package app

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/sledge-bench/sledge/internal/config"
	"github.com/sledge-bench/sledge/internal/db"
	"github.com/sledge-bench/sledge/internal/metrics"
	"github.com/sledge-bench/sledge/internal/workload"
)

// betweenTrials does to the database what req's spec asks between two
// trials of a series or profile (config.Spec.Between), and says on
// req.Console what it did and how long it took:
//
//   - vacuum and checkpoint: the workload's Maintainer, on one session of
//     req's target (PostgreSQL VACUUM (ANALYZE) and CHECKPOINT, MariaDB
//     ANALYZE TABLE and FLUSH TABLES … FOR EXPORT, SQLite VACUUM and
//     wal_checkpoint, DuckDB ANALYZE and CHECKPOINT: the workload's SQL
//     files say which);
//   - rebuild: a build job, forced and confirmed, of what the database's
//     build record says it was built with (the workload's Rebuilder),
//     recorded like any build with settings between=rebuild and the
//     series, profile or gate of req.Settings, if any.
//
// An error means the step did not happen (or not wholly): the caller stops.
func (s *Service) betweenTrials(ctx context.Context, req Request) error {
	what := req.Spec.Between
	switch what {
	case "", config.BetweenNone:
		return nil
	case config.BetweenVacuum, config.BetweenCheckpoint, config.BetweenRebuild:
	default:
		return fmt.Errorf("between trials: unknown step %q (want %s)", what, strings.Join(config.BetweenChoices, ", "))
	}
	p, err := s.resolve(req)
	if err != nil {
		return fmt.Errorf("between trials: %w", err)
	}
	if req.Console != nil {
		fmt.Fprintln(req.Console) // apart from the last trial's result
	}
	if what == config.BetweenRebuild {
		return s.rebuildBetween(ctx, req, p)
	}
	m, ok := p.wl.(workload.Maintainer)
	if !ok {
		return fmt.Errorf("between trials: %s has no %s step", p.wl.Title(), what)
	}
	start := time.Now()
	c, err := p.driver.Connect(ctx, p.target, db.Options{AppName: "sledge between", MustExist: true})
	if err != nil {
		return fmt.Errorf("between trials: %s: %w", what, err)
	}
	defer c.Close(context.Background())
	did, err := m.Maintain(ctx, betweenEnv(req, p), c, what)
	if err != nil {
		return fmt.Errorf("between trials: %s on %s: %w", what, p.target, err)
	}
	note := ""
	if did.Note != "" {
		note = " (" + did.Note + ")"
	}
	betweenLog(req, "%s took %s%s", did.Did, seconds(time.Since(start)), note)
	return nil
}

// rebuildBetween drops and builds the schema again as it was built.
func (s *Service) rebuildBetween(ctx context.Context, req Request, p *plan) error {
	rb, ok := p.wl.(workload.Rebuilder)
	if !ok {
		return fmt.Errorf("between trials: %s cannot be rebuilt", p.wl.Title())
	}
	c, err := p.driver.Connect(ctx, p.target, db.Options{AppName: "sledge between", MustExist: true})
	if err != nil {
		return fmt.Errorf("between trials: rebuild: %w", err)
	}
	spec, err := rb.RebuildSpec(ctx, betweenEnv(req, p), c)
	c.Close(context.Background())
	if err != nil {
		return fmt.Errorf("between trials: rebuild: what was built in %s: %w", p.target, err)
	}
	spec.DB, spec.Force, spec.Confirm = req.Spec.DB, true, true
	plan, err := spec.Parse()
	if err != nil {
		return fmt.Errorf("between trials: rebuild: what was built in %s: %w", p.target, err)
	}
	size, _ := p.wl.(workload.Builder).PlanBuild(&plan)
	seed := ""
	if spec.Seed != 0 {
		seed = fmt.Sprintf(", seed %d", spec.Seed)
	}
	betweenLog(req, "rebuilding %s in %s as it was built%s", size, p.target, seed)
	// The build belongs to the series (or profile) the trials do.
	kv := map[string]string{"between": config.BetweenRebuild}
	for _, k := range []string{"series", SettingProfile, SettingGate} {
		if v := req.Settings[k]; v != "" {
			kv[k] = v
		}
	}
	start := time.Now()
	o, err := s.Run(ctx, Request{Spec: spec, Console: req.Console, ProgressTTY: req.ProgressTTY, Settings: kv})
	switch {
	case err != nil && o.ID != 0:
		return fmt.Errorf("between trials: rebuild (build job %d): %w", o.ID, err)
	case err != nil:
		return fmt.Errorf("between trials: rebuild: %w", err)
	case o.Status != metrics.StatusCompleted:
		return fmt.Errorf("between trials: rebuild (build job %d) %s", o.ID, o.Status)
	}
	betweenLog(req, "rebuilt the %s schema (build job %d) took %s", p.wl.Title(), o.ID, seconds(time.Since(start)))
	return nil
}

// betweenEnv is a capability's environment between trials: its lines go
// to the console, as "between trials: …".
func betweenEnv(req Request, p *plan) workload.Env {
	return workload.Env{Driver: p.driver, Target: p.target, Progress: func(workload.Progress) {},
		Logf: func(format string, args ...any) { betweenLog(req, format, args...) }}
}

func betweenLog(req Request, format string, args ...any) {
	if req.Console != nil {
		fmt.Fprintf(req.Console, "between trials: "+format+"\n", args...)
	}
}

// seconds is a duration as the log says it: "1.2 s".
func seconds(d time.Duration) string { return fmt.Sprintf("%.1f s", d.Seconds()) }
