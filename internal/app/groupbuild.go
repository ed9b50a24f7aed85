package app

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"slices"
	"time"

	"github.com/sledge-bench/sledge/internal/config"
	"github.com/sledge-bench/sledge/internal/jobs"
	"github.com/sledge-bench/sledge/internal/metrics"
	"github.com/sledge-bench/sledge/internal/output"
	"github.com/sledge-bench/sledge/internal/report"
	"github.com/sledge-bench/sledge/internal/workload"
	"github.com/sledge-bench/sledge/internal/workload/tprocc"
)

// partBuilder is a workload whose build can be split over several
// processes: the schema once, the data in parts, then what comes after the
// load (indexes, statistics, routines) once.
type partBuilder interface {
	BuildPart(ctx context.Context, env workload.Env, p config.Plan, part string) (workload.BuildReport, error)
}

// buildGroup is this agent's share of a build split over several (sledge
// build --segment I/N --run-id NAME). When all the agents have joined, the
// one whose segment starts the build creates the schema; every agent then
// loads its own warehouses; the agent that claims it once every load is
// done finishes the build and records the job's result.
func (e *execution) buildGroup(ctx context.Context) Outcome {
	g, sp := e.grp, e.p.spec
	pb, ok := e.p.wl.(partBuilder)
	if !ok {
		return e.groupBuildFailed(ctx, fmt.Errorf("a %s build cannot be split over several processes", e.p.wl.Title()))
	}
	alive, stop := context.WithCancel(context.WithoutCancel(ctx))
	defer stop()
	go g.heartbeat(alive, e.out.Logf)
	start := time.Now()
	if err := g.waitAll(ctx, e.out.Logf); err != nil {
		return e.groupBuildFailed(ctx, err)
	}
	if err := ensureDatabase(ctx, e.p.driver, e.p.target, AdminLogin{}, e.out.Logf); err != nil {
		return e.groupBuildFailed(ctx, fmt.Errorf("build: %w", err))
	}
	bar := output.NewProgress(e.p.req.ProgressTTY, e.out.Logf)
	env := e.env()
	env.Progress = bar.Update
	defer bar.Done()
	if g.seg.From().Sign() == 0 {
		e.out.Logf("build job %d: creating the schema for the agents of run %s", e.id, g.runID)
		if _, err := pb.BuildPart(ctx, env, sp, tprocc.PartSchema); err != nil {
			return e.groupBuildFailed(ctx, fmt.Errorf("create the schema: %w", err))
		}
	} else if err := g.waitFor(ctx, "the schema", e.out.Logf, func(agents []jobs.Agent) (bool, error) {
		for _, a := range agents {
			if a.SegmentStart().Sign() == 0 {
				switch a.State {
				case jobs.AgentRunning, jobs.AgentDone:
					return true, nil
				case jobs.AgentFailed, jobs.AgentLost:
					return false, fmt.Errorf("segment %s, which creates the schema, is %s", a.Segment, a.State)
				}
			}
		}
		return false, nil
	}); err != nil {
		return e.groupBuildFailed(ctx, err)
	}
	if err := g.repo.SetAgentState(ctx, g.jobID, g.name, jobs.AgentRunning, g.now(), ""); err != nil {
		return e.groupBuildFailed(ctx, err)
	}
	rep, err := pb.BuildPart(ctx, env, sp, tprocc.PartLoad)
	if rep.Version != "" {
		_ = e.repo().SetDBVersion(ctx, e.id, rep.Version)
	}
	if err != nil {
		return e.groupBuildFailed(ctx, fmt.Errorf("load: %w", err))
	}
	secs := rep.Duration.Seconds()
	e.out.Logf("loaded %s: %s rows in %.1f s (%s rows/s)", rep.Size, report.Int(float64(rep.Rows)), secs, report.Int(float64(rep.Rows)/secs))
	mine := jobs.BuildResult{Warehouses: rep.Warehouses, Workers: rep.Workers, Rows: rep.Rows, Seconds: secs, Tables: rep.Tables}
	if err := g.repo.SaveAgentBuild(ctx, g.jobID, g.name, g.now(), mine); err != nil {
		return e.groupBuildFailed(ctx, err)
	}
	// The last load done, one agent finishes the build.
	var agents []jobs.Agent
	if err := g.waitFor(ctx, "the other agents' loads", e.out.Logf, func(all []jobs.Agent) (bool, error) {
		agents = all
		for _, a := range all {
			switch a.State {
			case jobs.AgentFailed, jobs.AgentLost:
				return false, fmt.Errorf("segment %s (%s, pid %d) is %s: its warehouses are not loaded", a.Segment, a.Host, a.PID, a.State)
			case jobs.AgentJoined, jobs.AgentReady, jobs.AgentRunning:
				return false, nil
			}
		}
		return true, nil
	}); err != nil {
		return e.groupBuildFailed(ctx, err)
	}
	won, err := g.repo.ClaimMerge(ctx, g.runID, g.name)
	if err != nil {
		return e.groupBuildFailed(ctx, err)
	}
	if !won {
		e.out.Logf("segment %s loaded its warehouses; another agent finishes the build (sledge jobs show %d)", g.name, e.id)
		return Outcome{Status: metrics.StatusCompleted, Build: &rep}
	}
	e.merged = true
	e.out.Logf("build job %d: every agent has loaded its warehouses: building the indexes", e.id)
	fin, err := pb.BuildPart(ctx, env, sp, tprocc.PartFinish)
	if err != nil {
		return failed(ctx, fmt.Errorf("finish the build: %w", err))
	}
	total := jobs.BuildResult{Warehouses: sp.Warehouses, Tables: map[string]int64{}}
	for _, a := range agents {
		if b := a.Built; b != nil {
			total.Workers += b.Workers
			total.Rows += b.Rows
			for t, n := range b.Tables {
				total.Tables[t] += n
			}
		}
	}
	total.Seconds = time.Since(start).Seconds()
	total.RowsPerSec = float64(total.Rows) / total.Seconds
	e.out.Logf("built %d warehouses with %d agents: %s rows in %.1f s (%s rows/s, the load and the indexes)", sp.Warehouses, len(agents),
		report.Int(float64(total.Rows)), total.Seconds, report.Int(total.RowsPerSec))
	if err := e.repo().SaveBuildResult(context.WithoutCancel(ctx), e.id, total); err != nil {
		e.warn("the build result", err)
	}
	fin.Rows, fin.Tables, fin.Warehouses, fin.Workers = total.Rows, total.Tables, total.Warehouses, total.Workers
	return Outcome{Status: metrics.StatusCompleted, Build: &fin}
}

// groupBuildFailed records this agent's failure; when no other agent is
// left to end the job, this one does.
func (e *execution) groupBuildFailed(ctx context.Context, err error) Outcome {
	if _, ferr := e.grp.finish(ctx, nil, err, e.out.Logf); errors.Is(ferr, errNothingToMerge) || e.grp.claimed {
		e.merged = true
	}
	return failed(ctx, err)
}

// waitAll waits until the agents that have joined cover the whole run: a
// build needs every part loaded. It fails after the agent wait.
func (g *group) waitAll(ctx context.Context, logf func(string, ...any)) error {
	deadline := time.Now().Add(g.joinWait)
	one := big.NewRat(1, 1)
	return g.waitFor(ctx, "the other agents to join", logf, func(agents []jobs.Agent) (bool, error) {
		covered := coverage(agents)
		if covered.Cmp(one) == 0 {
			g.agents = slices.Clone(agents)
			logf("run %s: %d agents (segments %s)", g.runID, len(agents), segmentNames(agents))
			return true, nil
		}
		if time.Now().After(deadline) {
			return false, fmt.Errorf("run %s: only segments %s (%s of the build) joined within %s",
				g.runID, segmentNames(agents), covered.FloatString(3), g.joinWait)
		}
		return false, nil
	})
}

// waitFor polls the group's agents until ready says so (or fails), saying
// every few seconds what it waits for. Agents that gave no sign of life for
// lostAfter are counted lost first.
func (g *group) waitFor(ctx context.Context, what string, logf func(string, ...any), ready func([]jobs.Agent) (bool, error)) error {
	note := time.Now().Add(5 * time.Second)
	for {
		agents, err := g.agentsNow(ctx, logf)
		if err != nil {
			return err
		}
		ok, err := ready(agents)
		if ok || err != nil {
			return err
		}
		if time.Now().After(note) {
			logf("run %s: waiting for %s", g.runID, what)
			note = time.Now().Add(5 * time.Second)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("waiting for %s: %w", what, ctx.Err())
		case <-time.After(pollGroup):
		}
	}
}
