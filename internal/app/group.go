package app

// A group run is one job driven by several agents — sledge processes on one
// machine or many — each running a segment of the virtual users (config.Spec
// Segment) under one run id (RunID). The jobs repository, shared by the
// agents (a PostgreSQL repository across machines), is the only thing they
// share: there is no protocol of Sledge's own between them.
//
// An agent joins (the first creates the job), waits until the agents that
// have joined cover the whole run (or until the wait runs out), and the
// first to see that fixes the shared start a few seconds ahead on the
// repository's clock. Every agent converts it to its own clock (the offset
// measured against the repository) and starts its run's clock there, so
// that all agents' interval boundaries and window edges fall on the same
// instants. Each agent stores its intervals with their histograms; the last
// agent to store an interval merges it into the job's series, so the live
// series is the merged one. At the end each agent stores its result; when
// every agent has ended (or is counted lost), one of them — whichever
// claims it — merges the results into the job's (metrics.MergeRunResults:
// counts add, histograms merge, percentiles come from the merged
// histograms) and records how the job ended.
//
// The agents watch each other all along (heartbeat, agentsNow): one that
// shows no sign of life, or while the run's intervals are due hands in
// none, for lostAfter is counted lost — dead or frozen alike. One that
// comes back is at work again: the others wait for its result, and the
// merge keeps its numbers but says they include its silence (degraded).

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"math/big"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sledge-bench/sledge/internal/config"
	"github.com/sledge-bench/sledge/internal/db"
	"github.com/sledge-bench/sledge/internal/jobs"
	"github.com/sledge-bench/sledge/internal/metrics"
	"github.com/sledge-bench/sledge/internal/report"
)

const (
	// groupLead is how far ahead of the moment the group is complete the
	// shared start is set: every agent must see it in time to start on it.
	groupLead = 3 * time.Second
	// clockWarn is the clock offset beyond which an agent's windows are
	// said to be apart.
	clockWarn = 100 * time.Millisecond
	// pollGroup is how often an agent looks at the other agents.
	pollGroup = 250 * time.Millisecond
)

// group is this agent's place in a group run.
type group struct {
	repo   *jobs.Repo
	runID  string
	seg    config.Segment
	name   string // the segment as stored, e.g. "1/3"
	jobID  int64
	offset time.Duration // this host's clock minus the repository's
	// Set by waitStart.
	start  time.Time    // the shared start on this host's clock
	agents []jobs.Agent // the agents that started together, by segment
	// startedAt is the shared start on the repository's clock (UnixNano; 0
	// until waitStart has it), read by the heartbeat's goroutine too.
	startedAt atomic.Int64
	// live judges when an agent has been silent too long.
	live liveness
	// joinWait is how long the agents wait for each other
	// (config.Spec.AgentWait).
	joinWait time.Duration
	// handedIn: finish has recorded this agent's part; claimed: this agent
	// won the merge and so ends the job, whatever happens.
	handedIn, claimed bool

	// store is this agent's way into the repository: what it cannot write
	// is kept in a spool file (spool.go).
	store *jobStore
	// mu guards back: when the repository could be written again after
	// this agent could not write it (the repository's clock). The others
	// could not show life meanwhile either: none is counted lost before
	// lostAfter has passed since.
	mu   sync.Mutex
	back time.Time
}

// repoBack notes that the repository can be written again.
func (g *group) repoBack() {
	g.mu.Lock()
	g.back = g.now()
	g.mu.Unlock()
}

// sinceBack is agent a as the liveness judgement takes it: its last sign
// of life and of progress no earlier than the moment the repository came
// back for this agent (nothing could be handed in while it was down).
func (g *group) sinceBack(a jobs.Agent) jobs.Agent {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.back.After(a.LastSeen) {
		a.LastSeen = g.back
	}
	if g.back.After(a.LastProgress) {
		a.LastProgress = g.back
	}
	return a
}

// storeWait is how long an agent tries to hand in its part and merge when
// the repository cannot be written at its end: as long as the agents wait
// for each other (--agent-wait), and at least twice lostAfter.
func (g *group) storeWait() time.Duration { return max(g.joinWait, 2*g.live.lostAfter) }

// label prefixes an agent's lines in the job's shared output.
func (g *group) label() string { return "[" + g.name + "] " }

// now is the repository's clock, as this agent reads it from its own.
func (g *group) now() time.Time { return time.Now().Add(-g.offset) }

// measureOffset estimates this host's clock minus the repository's from a
// few reads of the repository's clock, keeping the one with the shortest
// round trip (its midpoint is the best estimate).
func measureOffset(ctx context.Context, repo *jobs.Repo) (time.Duration, error) {
	best, offset := time.Duration(-1), time.Duration(0)
	for range 5 {
		t0 := time.Now()
		now, err := repo.Clock(ctx)
		if err != nil {
			return 0, err
		}
		rtt := time.Since(t0)
		if best < 0 || rtt < best {
			best = rtt
			offset = t0.Add(rtt / 2).Sub(now)
		}
	}
	return offset, nil
}

// joinGroup records this agent in the run's group, creating the job when it
// is the first. The agents of one run must ask for the same run: the job's
// settings but the segment must match the first agent's.
func (s *Service) joinGroup(ctx context.Context, p *plan, kv map[string]string) (g *group, created bool, err error) {
	seg := p.spec.Segment
	repo := s.opts.Repo
	offset, err := measureOffset(ctx, repo)
	if err != nil {
		return nil, false, fmt.Errorf("read the repository's clock: %w", err)
	}
	host, _ := os.Hostname()
	first, count := seg.Share(p.spec.VU)
	me := jobs.Agent{Segment: seg.String(), Host: host, PID: os.Getpid(), FirstVU: first, VUs: count, ClockOffset: offset,
		JoinedAt: time.Now().Add(-offset)}
	job := jobs.Job{Kind: p.spec.Kind, Workload: p.wl.Name(), DBKind: string(p.target.Kind), Target: p.target.String()}
	check := func(g jobs.RunGroup, agents []jobs.Agent, config map[string]string) error {
		if g.JobID != 0 && g.JobStatus != metrics.StatusRunning {
			return fmt.Errorf("run id %s is job %d's, which has ended (%s): give this run another run id", p.spec.RunID, g.JobID, g.JobStatus)
		}
		if !g.StartAt.IsZero() {
			return fmt.Errorf("run %s started at %s without segment %s: too late to join (start every agent within %s of the first)",
				p.spec.RunID, g.StartAt.Local().Format(time.TimeOnly), me.Segment, p.spec.AgentWait.D())
		}
		for _, a := range agents {
			other, err := parseSegment(a.Segment)
			if err != nil {
				return err
			}
			if overlaps(seg, other) {
				return fmt.Errorf("segment %s of run %s overlaps segment %s, joined by %s (pid %d)", me.Segment, p.spec.RunID, a.Segment, a.Host, a.PID)
			}
		}
		if diff := settingsDiffer(config, kv); len(diff) > 0 {
			return fmt.Errorf("run %s was started with other settings than this agent's (%s): every agent of a run must be given the same settings but the segment",
				p.spec.RunID, strings.Join(diff, "; "))
		}
		return nil
	}
	run, created, err := repo.JoinRun(ctx, p.spec.RunID, job, kv, me, check)
	if err != nil {
		return nil, false, err
	}
	return &group{repo: repo, runID: p.spec.RunID, seg: seg, name: me.Segment, jobID: run.JobID, offset: offset,
		live:     liveness{lostAfter: max(10*time.Second, 5*p.spec.Interval.D()), length: p.spec.Rampup.D() + p.spec.Duration.D()},
		joinWait: p.spec.AgentWait.D()}, created, nil
}

// liveness is how the agents of a group judge each other: by their signs
// of life and, while the run's intervals are due, by their progress — an
// agent alive but handing in nothing (its engine stuck, its writes failing)
// leaves the same hole in the merged numbers as a dead one.
type liveness struct {
	// lostAfter is how long an agent may go without a sign of life (a
	// heartbeat, an interval stored, a state change), or of progress, before
	// the others count it lost.
	lostAfter time.Duration
	// length is the run's ramp-up and duration: its intervals are due from
	// the shared start until that much after it.
	length time.Duration
}

// silentSince reports since when agent a, at work, has been silent at now
// (the repository's clock): without a sign of life for lostAfter, or —
// running, in a run that started at start (zero: not started, or a build:
// no intervals) — without handing in an interval that was due for
// lostAfter. It returns the zero time when a is not silent, and what it
// has not shown.
func (l liveness) silentSince(a jobs.Agent, start, now time.Time) (time.Time, string) {
	if now.Sub(a.LastSeen) > l.lostAfter {
		return a.LastSeen, "gave no sign of life"
	}
	if a.State != jobs.AgentRunning || start.IsZero() || l.length <= 0 {
		return time.Time{}, ""
	}
	progress := a.LastProgress
	if progress.Before(start) {
		progress = start // its first interval is due an interval after the start
	}
	due := now
	if end := start.Add(l.length); due.After(end) {
		due = end // its last interval is due at the run's end: none after
	}
	if due.Sub(progress) > l.lostAfter {
		return progress, "handed in no interval"
	}
	return time.Time{}, ""
}

// runStart is the shared start on the repository's clock; zero before it
// is fixed (and in a build).
func (g *group) runStart() time.Time {
	if n := g.startedAt.Load(); n != 0 {
		return time.Unix(0, n)
	}
	return time.Time{}
}

// settingsDiffer lists the settings two agents of one run disagree on,
// leaving out those that are the agent's own (its segment).
func settingsDiffer(a, b map[string]string) []string {
	var out []string
	for k, v := range a {
		if k == "segment" {
			continue
		}
		if w, ok := b[k]; ok && w != v {
			out = append(out, fmt.Sprintf("%s %q, here %q", k, v, w))
		}
	}
	slices.Sort(out)
	return out
}

func parseSegment(s string) (config.Segment, error) {
	seg, err := config.ParseSegment(s)
	if err != nil {
		return seg, fmt.Errorf("a stored agent's segment %q: %w", s, err)
	}
	return seg, nil
}

// overlaps reports whether two segments share any part of the run.
func overlaps(a, b config.Segment) bool {
	return a.From().Cmp(b.To()) < 0 && b.From().Cmp(a.To()) < 0
}

// coverage sums the parts of the run the segments cover (they do not
// overlap: joinGroup refuses that).
func coverage(agents []jobs.Agent) *big.Rat {
	sum := new(big.Rat)
	for _, a := range agents {
		if s, err := config.ParseSegment(a.Segment); err == nil {
			sum.Add(sum, new(big.Rat).Sub(s.To(), s.From()))
		}
	}
	return sum
}

// uncovered names the parts of the run that no agent's segment covers, as
// segments (the agents' segments do not overlap).
func uncovered(agents []jobs.Agent) []string {
	var segs []config.Segment
	for _, a := range agents {
		if s, err := config.ParseSegment(a.Segment); err == nil {
			segs = append(segs, s)
		}
	}
	slices.SortFunc(segs, func(a, b config.Segment) int { return a.From().Cmp(b.From()) })
	var gaps []string
	at := new(big.Rat)
	for _, s := range append(segs, config.Segment{}) { // the whole run's end closes the last gap
		end := s.From()
		if s.IsWhole() {
			end = big.NewRat(1, 1)
		}
		if at.Cmp(end) < 0 {
			if gap, err := config.NewSegment(at, end); err == nil {
				gaps = append(gaps, gap.String())
			}
		}
		if s.To().Cmp(at) > 0 {
			at = s.To()
		}
	}
	return gaps
}

// segmentNames lists the agents' segments.
func segmentNames(agents []jobs.Agent) string {
	names := make([]string, len(agents))
	for i, a := range agents {
		names[i] = a.Segment
	}
	return strings.Join(names, ", ")
}

// waitStart says this agent is ready (its run prepared: sessions open,
// routines installed), waits until the ready agents cover the whole run (or
// the agent wait has passed), fixes or reads the shared start and converts
// it to this host's clock. The agents in the run are those ready when the
// start was fixed; one that gets ready later starts late, and the engine
// refuses it when it is more than an interval late.
func (g *group) waitStart(ctx context.Context, logf func(string, ...any)) error {
	if err := g.repo.SetAgentState(ctx, g.jobID, g.name, jobs.AgentReady, g.now(), ""); err != nil {
		return err
	}
	deadline := time.Now().Add(g.joinWait)
	nextNote := time.Now().Add(5 * time.Second)
	one := big.NewRat(1, 1)
	for {
		run, err := g.repo.RunGroup(ctx, g.runID)
		if err != nil {
			return err
		}
		agents, err := g.agentsNow(ctx, logf)
		if err != nil {
			return err
		}
		ready := slices.DeleteFunc(slices.Clone(agents), func(a jobs.Agent) bool { return a.State != jobs.AgentReady && a.State != jobs.AgentRunning })
		covered := coverage(ready)
		// Start when the ready agents cover the run; or when every segment
		// has an agent and none is still preparing (those that are not
		// ready failed or were lost: waiting longer brings nothing); or at
		// the deadline.
		preparing := slices.ContainsFunc(agents, func(a jobs.Agent) bool { return a.State == jobs.AgentJoined })
		settled := !preparing && coverage(agents).Cmp(one) == 0
		if run.StartAt.IsZero() && (covered.Cmp(one) == 0 || settled || time.Now().After(deadline)) {
			if covered.Cmp(one) != 0 {
				logf("not every segment has an agent ready: starting with segments %s (%s of the run)",
					segmentNames(ready), covered.FloatString(3))
			}
			now, err := g.repo.Clock(ctx)
			if err != nil {
				return err
			}
			if run.StartAt, err = g.repo.SetRunStart(ctx, g.runID, now.Add(groupLead)); err != nil {
				return err
			}
		}
		if !run.StartAt.IsZero() {
			g.agents = ready
			if !slices.ContainsFunc(g.agents, func(a jobs.Agent) bool { return a.Segment == g.name }) {
				g.agents = append(g.agents, jobs.Agent{Segment: g.name}) // late: its intervals count all the same
			}
			g.start = run.StartAt.Add(g.offset)
			g.startedAt.Store(run.StartAt.UnixNano())
			logf("run %s: %d agent(s) (segments %s), starting together at %s",
				g.runID, len(g.agents), segmentNames(g.agents), g.start.Local().Format("15:04:05.000"))
			for _, a := range g.agents {
				if a.ClockOffset.Abs() > clockWarn {
					logf("warning: the clock of %s (segment %s) is %s off the repository's: the agents' windows may be that far apart",
						a.Host, a.Segment, a.ClockOffset.Round(time.Millisecond))
				}
			}
			return g.repo.SetAgentState(ctx, g.jobID, g.name, jobs.AgentRunning, g.now(), "")
		}
		if time.Now().After(nextNote) {
			logf("run %s: waiting for the other agents: segments %s are ready (%s of the run)",
				g.runID, segmentNames(ready), covered.FloatString(3))
			nextNote = time.Now().Add(5 * time.Second)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(pollGroup):
		}
	}
}

// atWork reports whether an agent has not ended: it will hand in its part
// and may merge.
func atWork(a jobs.Agent) bool {
	return a.State == jobs.AgentJoined || a.State == jobs.AgentReady || a.State == jobs.AgentRunning
}

// agentsNow reads the group's agents, in segment order, first counting lost
// those at work that have been silent too long (liveness.silentSince; an
// agent that ended or showed life meanwhile keeps its state: it is read
// again). The time it was counted lost is recorded with it.
func (g *group) agentsNow(ctx context.Context, logf func(string, ...any)) ([]jobs.Agent, error) {
	for {
		agents, err := g.repo.Agents(ctx, g.jobID)
		if err != nil {
			return nil, err
		}
		now, start, again := g.now(), g.runStart(), false
		for _, a := range agents {
			if a.Segment == g.name || !atWork(a) {
				continue
			}
			// (Nothing could be handed in while the repository was down:
			// silence counts from when it came back.)
			since, what := g.live.silentSince(g.sinceBack(a), start, now)
			if since.IsZero() {
				continue
			}
			lost, err := g.repo.MarkAgentLost(ctx, g.jobID, a.Segment, a.LastSeen, since, now)
			if err != nil {
				return nil, err
			}
			if lost {
				logf("warning: agent %s (%s, pid %d) %s since %s (%s): counted lost",
					a.Segment, a.Host, a.PID, what, since.Local().Format("15:04:05.0"), now.Sub(since).Round(100*time.Millisecond))
			}
			again = true
		}
		if !again {
			return agents, nil
		}
	}
}

// heartbeat tells the other agents this one is alive, every second until
// ctx ends, and watches them: an agent silent too long is counted lost
// while the others are still running, not only when they wait for it at
// the end (a frozen agent that comes back before then would otherwise go
// unnoticed). It says so when the others counted this agent lost.
func (g *group) heartbeat(ctx context.Context, logf func(string, ...any)) {
	t := time.NewTicker(time.Second)
	defer t.Stop()
	failing := false
	var noted time.Time // when this agent was counted lost, as last said
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		err := g.repo.TouchAgent(ctx, g.jobID, g.name, g.now())
		switch {
		case err != nil && !failing && ctx.Err() == nil:
			logf("warning: cannot reach the jobs repository: %v (the other agents count this one lost after %s)", err, g.live.lostAfter)
		case err == nil && failing:
			logf("the jobs repository is reachable again")
		}
		failing = err != nil
		if err != nil {
			continue
		}
		agents, err := g.agentsNow(ctx, logf)
		if err != nil {
			continue // the next beat tries again
		}
		if i := slices.IndexFunc(agents, func(a jobs.Agent) bool { return a.Segment == g.name }); i >= 0 {
			if me := agents[i]; !me.LostAt.IsZero() && !me.LostAt.Equal(noted) {
				noted = me.LostAt
				logf("warning: the other agents counted this one lost at %s, silent since %s: what it hands in from now on is kept but marked late, and the job will be degraded",
					me.LostAt.Local().Format("15:04:05.0"), me.SilentFrom.Local().Format("15:04:05.0"))
			}
		}
	}
}

// groupWriter stores an agent's interval in its own series, from which the
// job's merged series is made as soon as every agent has stored it.
type groupWriter struct{ g *group }

func (w groupWriter) AddInterval(ctx context.Context, id int64, iv metrics.Interval) error {
	g := w.g
	if err := g.repo.AddAgentInterval(ctx, id, g.name, g.now(), iv); err != nil {
		return err
	}
	parts, err := g.repo.AgentIntervals(ctx, id, iv.Seq)
	if err != nil || len(parts[iv.Seq]) < len(g.agents) {
		return err // the last agent to store it merges it
	}
	merged, err := metrics.MergeInterval(parts[iv.Seq]...)
	if err != nil {
		return err
	}
	return g.repo.AddIntervalOnce(ctx, id, merged)
}

// errMergedElsewhere: another agent merges the job's result.
var errMergedElsewhere = errors.New("merged by another agent")

// errSpooled: this agent's part could not be handed in before the agent
// stopped waiting for the repository: it is kept in its spool file.
var errSpooled = errors.New("the jobs repository could not take this agent's part")

// pollStore is how often an agent tries the repository again at its end.
const pollStore = time.Second

// errNothingToMerge: no agent handed in a result (all failed or were lost):
// the agent that finds it records the job's end, failed.
var errNothingToMerge = errors.New("no agent handed in a result")

// finish stores this agent's part (its result, or that it failed with
// runErr) and, unless another agent still at work will, waits for the
// others to end (or counts them lost), claims the merge, merges their
// results and the job's series and stores them. It returns the merged
// result, errMergedElsewhere, or errNothingToMerge. An agent stopped by its
// user (ctx cancelled) or failed does not wait for the others: one still
// at work merges.
func (g *group) finish(ctx context.Context, res *metrics.RunResult, runErr error, logf func(string, ...any)) (*metrics.RunResult, error) {
	g.handedIn = true
	stopped := ctx.Done()
	leave := runErr != nil || ctx.Err() != nil
	ctx = context.WithoutCancel(ctx) // an interrupted agent still hands in what it measured
	deadline := time.Now().Add(g.storeWait())
	save := func() (bool, error) { return g.store.SavePart(ctx, res) }
	if runErr != nil {
		save = func() (bool, error) { return g.store.AgentFailed(ctx, runErr.Error()) }
	}
	stored, err := save()
	if err != nil {
		return nil, err // neither stored nor kept
	}
	if !stored {
		logf("cannot hand in segment %s's part to the jobs repository: trying again for up to %s", g.name, g.storeWait().Round(time.Second))
	}
	for !stored {
		if time.Now().After(deadline) {
			return nil, errSpooled
		}
		select {
		case <-stopped:
			return nil, errSpooled
		case <-time.After(pollStore):
		}
		stored = g.store.Retry(ctx)
	}
	// The part is in. Should the repository fail while this agent waits
	// for the others or merges, it tries again until the deadline.
	for {
		merged, err := g.settle(ctx, stopped, leave, logf)
		if err == nil || errors.Is(err, errMergedElsewhere) || errors.Is(err, errNothingToMerge) || leave || time.Now().After(deadline) {
			return merged, err
		}
		select {
		case <-stopped:
			return nil, err
		case <-time.After(pollStore):
		}
	}
}

// settle waits for the other agents to end (or counts them lost), claims
// the merge and merges (see finish).
func (g *group) settle(ctx context.Context, stopped <-chan struct{}, leave bool, logf func(string, ...any)) (*metrics.RunResult, error) {
	if run, err := g.repo.RunGroup(ctx, g.runID); err == nil && run.MergedBy != "" && run.JobStatus != metrics.StatusRunning {
		// Back after the others counted it lost and ended the job.
		logf("warning: the other agents counted this one lost and ended the job (%s) without it: its part is kept in its own record (sledge jobs show %d agents), not in the job's numbers",
			run.JobStatus, g.jobID)
	}
	var agents []jobs.Agent
	for {
		all, err := g.agentsNow(ctx, logf)
		if err != nil {
			return nil, err
		}
		others := slices.ContainsFunc(all, func(a jobs.Agent) bool { return a.Segment != g.name && atWork(a) })
		if !others {
			agents = all
			break
		}
		if leave {
			return nil, errMergedElsewhere
		}
		select {
		case <-stopped:
			leave = true // Ctrl-C while waiting: the others merge
		case <-time.After(pollGroup):
		}
	}
	if !g.claimed {
		won, err := g.repo.ClaimMerge(ctx, g.runID, g.name)
		if err != nil || !won {
			return nil, cmp.Or(err, errMergedElsewhere)
		}
		g.claimed = true
	}
	// Only the agents that started take part (one that joined but never
	// got ready is missing from the run).
	return g.merge(ctx, agents)
}

// merge makes the job's result and series from the agents' and stores
// them. What the agents that failed or were lost would have added is
// missing: the result says which segments it covers and is degraded. An
// agent that was counted lost and came back is in it, and the result says
// that its numbers include its silence (degraded too). Whether the window
// was steady is judged here (groupSteadiness), not on the stored series.
func (g *group) merge(ctx context.Context, agents []jobs.Agent) (*metrics.RunResult, error) {
	var parts []*metrics.RunResult
	var covered, missing []jobs.Agent
	for _, a := range agents { // in segment order (jobs.Repo.Agents)
		if a.State == jobs.AgentDone && a.Result != nil {
			parts = append(parts, a.Result)
			covered = append(covered, a)
		} else {
			missing = append(missing, a)
		}
	}
	if len(parts) == 0 {
		return nil, fmt.Errorf("%w (%s)", errNothingToMerge, agentStates(agents))
	}
	merged, err := metrics.MergeRunResults(parts...)
	if err != nil {
		return nil, fmt.Errorf("merge the agents' results: %w", err)
	}
	whole := coverage(covered).Cmp(big.NewRat(1, 1)) == 0
	if !whole && merged.HasDBCheck {
		// The database counted the missing segments' New-Orders too: its
		// count says nothing of the merged one.
		warning := metrics.DBCheckWarning(merged.DBNewOrders, merged.NewOrders, merged.DBCheckAllowance)
		merged.Warnings = slices.DeleteFunc(merged.Warnings, func(w string) bool { return w == warning })
		merged.HasDBCheck, merged.DBCheckAgree = false, false
		merged.DBNewOrders, merged.NOPMDBCheck, merged.DBCheckAllowance = 0, 0, 0
		merged.DBCheckUnavailable = "part of the run's virtual users are not in the merged numbers, but the database counted their New-Orders too"
	}
	start := g.runStart()
	if late := lateWarnings(covered, start); len(late) > 0 {
		if merged.Status == metrics.StatusCompleted {
			merged.Status = metrics.StatusDegraded
		}
		merged.Warnings = append(merged.Warnings, late...)
	}
	if !whole {
		if merged.Status == metrics.StatusCompleted {
			merged.Status = metrics.StatusDegraded
		}
		coveredVUs := 0
		for _, a := range covered {
			coveredVUs += a.VUs
		}
		why := agentStates(missing)
		if gaps := uncovered(agents); len(gaps) > 0 {
			why = strings.TrimPrefix(why+"; no agent joined for segment "+strings.Join(gaps, ", "), "; ")
		}
		merged.Warnings = append(merged.Warnings, fmt.Sprintf(
			"the merged numbers cover segments %s only (%d virtual users): %s",
			segmentNames(covered), coveredVUs, why))
	}
	series, err := g.repo.AgentSeries(ctx, g.jobID)
	if err != nil {
		return nil, err
	}
	// The job's series is every agent's, a lost one's too (its fall shows
	// when it went); the steadiness is of the merged numbers only.
	ivs, err := mergeSeries(series, agents, func(jobs.Agent, metrics.Interval) bool { return true })
	if err != nil {
		return nil, err
	}
	if err := g.repo.ReplaceIntervals(ctx, g.jobID, ivs); err != nil {
		return nil, err
	}
	steady, err := groupSteadiness(series, covered, start)
	if err != nil {
		return nil, err
	}
	merged.Warnings = append(merged.Warnings, steady...)
	return merged, nil
}

// lateWarnings words, for each agent of covered (those whose numbers are
// merged) that was counted lost during the run started at start (the
// repository's clock) and came back, how long it was silent and from when.
func lateWarnings(covered []jobs.Agent, start time.Time) []string {
	var out []string
	for _, a := range covered {
		if !a.Late() || (!start.IsZero() && !a.BackAt.After(start)) {
			continue // back before the run started: nothing of it is in its numbers
		}
		from := "before the start"
		if at := a.SilentFrom.Sub(start); !start.IsZero() && at >= 0 {
			from = fmt.Sprintf("%.1f s", at.Seconds())
		}
		out = append(out, fmt.Sprintf("agent %s (%s, pid %d) was silent for %.0f s from %s: its numbers are kept but include the pause",
			a.Segment, a.Host, a.PID, a.Silence().Seconds(), from))
	}
	return out
}

// mergeSeries merges the agents' intervals (series, by segment) seq by seq,
// in the agents' order, taking those keep accepts; a seq of which it keeps
// none is left out.
func mergeSeries(series map[string][]metrics.Interval, agents []jobs.Agent, keep func(jobs.Agent, metrics.Interval) bool) ([]metrics.Interval, error) {
	bySeq := map[int][]metrics.Interval{}
	for _, a := range agents {
		for _, iv := range series[a.Segment] {
			if keep(a, iv) {
				bySeq[iv.Seq] = append(bySeq[iv.Seq], iv)
			}
		}
	}
	var out []metrics.Interval
	for _, seq := range sortedKeys(bySeq) {
		iv, err := metrics.MergeInterval(bySeq[seq]...)
		if err != nil {
			return nil, fmt.Errorf("merge interval %d: %w", seq, err)
		}
		out = append(out, iv)
	}
	return out, nil
}

// groupSteadiness judges whether the merged numbers' window was steady
// (metrics.SteadinessWarnings) on the intervals that every agent whose
// numbers are merged (covered) handed in, leaving out those in which one
// of them was silent (from SilentFrom until BackAt; start is the run's
// start on the repository's clock): a lost agent's missing intervals and
// a frozen agent's pause are not the database's rate changing, and the
// warnings already say what they are.
func groupSteadiness(series map[string][]metrics.Interval, covered []jobs.Agent, start time.Time) ([]string, error) {
	if len(covered) == 0 {
		return nil, nil
	}
	count := map[int]int{}
	silent := map[int]bool{}
	for _, a := range covered {
		for _, iv := range series[a.Segment] {
			count[iv.Seq]++
			if a.Late() && !start.IsZero() {
				from, to := start.Add(iv.Elapsed-iv.Length), start.Add(iv.Elapsed)
				if from.Before(a.BackAt) && to.After(a.SilentFrom) {
					silent[iv.Seq] = true
				}
			}
		}
	}
	ivs, err := mergeSeries(series, covered, func(_ jobs.Agent, iv metrics.Interval) bool {
		return count[iv.Seq] == len(covered) && !silent[iv.Seq]
	})
	if err != nil {
		return nil, err
	}
	return metrics.SteadinessWarnings(ivs), nil
}

// agentStates words how the agents that are not in the result ended.
func agentStates(agents []jobs.Agent) string {
	var out []string
	for _, a := range agents {
		switch a.State {
		case jobs.AgentLost:
			out = append(out, fmt.Sprintf("segment %s (%s, pid %d) was lost at %s, silent since %s", a.Segment, a.Host, a.PID,
				cmp.Or(a.LostAt, a.LastSeen).Local().Format(time.TimeOnly), cmp.Or(a.SilentFrom, a.LastSeen).Local().Format(time.TimeOnly)))
		case jobs.AgentFailed:
			out = append(out, fmt.Sprintf("segment %s (%s, pid %d) failed: %s", a.Segment, a.Host, a.PID, a.Error))
		default:
			out = append(out, fmt.Sprintf("segment %s (%s, pid %d) is %s", a.Segment, a.Host, a.PID, a.State))
		}
	}
	return strings.Join(out, "; ")
}

func sortedKeys[V any](m map[int]V) []int {
	keys := make([]int, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// finishGroup hands in this agent's part of a group run (part, or runErr)
// and, when this agent is the one that merges, returns the job's merged
// result to be reported and stored as a run's. Otherwise it returns the
// agent's outcome, done.
func (e *execution) finishGroup(ctx context.Context, part *metrics.RunResult, runErr error) (*metrics.RunResult, Outcome, bool) {
	g := e.grp
	merged, err := g.finish(ctx, part, runErr, e.out.Logf)
	switch {
	case errors.Is(err, errMergedElsewhere):
		if runErr != nil {
			return nil, failed(ctx, runErr), true
		}
		e.out.Logf("segment %s handed in: %d virtual users, NOPM %.0f, client CPU %.1f µs per transaction; another agent merges the job's result (sledge jobs show %d)",
			g.name, part.VUs, part.NOPM, part.ClientCPUPerTxUS, e.id)
		return nil, Outcome{Status: part.Status, Run: part}, true
	case errors.Is(err, errSpooled):
		// The part is kept in this agent's spool file (finish names it):
		// it is handed in, and the job merged, when the repository is
		// back (the next sledge command that opens it, sledge jobs
		// recover).
		if runErr != nil {
			return nil, failed(ctx, runErr), true
		}
		var b bytes.Buffer
		_ = report.RunResult(&b, e.p.wl.Title(), e.id, e.p.target.String(), "", part, e.p.target.Kind == db.SQLite)
		e.out.Text(b.String())
		e.out.Logf("segment %s measured its part, but could not hand it in to the jobs repository", g.name)
		return nil, Outcome{Status: part.Status, Run: part}, true
	case runErr == nil && !g.claimed && !errors.Is(err, errNothingToMerge):
		// The part is in, but the repository failed while this agent
		// waited for the others: the merge is left to another agent or to
		// the next sledge command that opens the repository.
		e.out.Logf("segment %s handed in: %d virtual users, NOPM %.0f; the jobs repository failed before the job's result could be merged: %v",
			g.name, part.VUs, part.NOPM, err)
		return nil, Outcome{Status: part.Status, Run: part, NotStored: &NotStoredError{Job: e.id, Err: err}}, true
	case err != nil:
		// This agent ends the job (failed) when it claimed the merge or
		// found nothing to merge; else another agent does.
		e.merged = g.claimed || errors.Is(err, errNothingToMerge)
		if runErr == nil {
			runErr = fmt.Errorf("run %s: %w", g.runID, err)
		}
		return nil, failed(ctx, runErr), true
	}
	e.merged = true
	e.out.Logf("run %s: merged the results of %d agent(s)", g.runID, len(g.agents))
	return merged, Outcome{}, false
}
