package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/sledge-bench/sledge/internal/jobs"
	"github.com/sledge-bench/sledge/internal/metrics"
	"github.com/sledge-bench/sledge/internal/testdb"
	"github.com/sledge-bench/sledge/internal/testdb/tpcctest"
)

// groupEnv is a group run's world: the database under test, holding the
// TPROC-C schema (a copy of the test binary's template), and a shared
// PostgreSQL jobs repository, both fresh databases of the test cluster.
type groupEnv struct {
	*testEnv
	db, repo string
}

func newGroupEnv(t *testing.T) groupEnv {
	t.Helper()
	if testing.Short() {
		t.Skip("builds and runs on PostgreSQL with several sledge processes")
	}
	t.Parallel()
	return groupEnv{testEnv: newEnv(t), db: tpcctest.Postgres(t, tpcctest.Options{Warehouses: 2}), repo: sharedRepo(t)}
}

// sharedRepo is a fresh PostgreSQL jobs repository for the agents of a
// group, created before they start, as the build before a group run leaves
// it. (Agents that all find the database empty race to create Sledge's
// tables: one of them can fail with "relation sledge_schema already
// exists" — jobs.Open's migration, reported.)
func sharedRepo(t *testing.T) string {
	t.Helper()
	url := testdb.Postgres(t)
	r, err := jobs.Open(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	r.Close()
	return url
}

// agents starts n agents of one run, each with segment i/n of the same
// settings. Their VUs are paced (keying and think times at 1 % of the
// specification's): a group's coordination needs a flow of transactions,
// and several agents' unpaced VUs would take all the CPU they could get
// from one another and from the rest of the suite.
func (g groupEnv) agents(n int, runID string, args ...string) []*bgSledge {
	g.t.Helper()
	var ps []*bgSledge
	for i := range n {
		a := append([]string{"--repo", g.repo, "run", "--db", g.db, "--segment", fmt.Sprintf("%d/%d", i, n), "--run-id", runID,
			"--pacing", "spec", "--pacing-scale", "0.01"}, args...)
		ps = append(ps, g.start(a...))
	}
	return ps
}

// groupJob opens the repository and returns the one run job, its result,
// its merged intervals and its agents.
func (g groupEnv) groupJob(t *testing.T) (jobs.Job, *metrics.RunResult, []metrics.Interval, []jobs.Agent) {
	t.Helper()
	ctx := context.Background()
	repo, err := jobs.Open(ctx, g.repo)
	if err != nil {
		t.Fatal(err)
	}
	defer repo.Close()
	list, err := repo.List(ctx, jobs.ListFilter{Kind: jobs.KindRun})
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 1 {
		t.Fatalf("%d run jobs in the shared repository, want one", len(list))
	}
	j := list[0]
	res, err := repo.RunResult(ctx, j.ID)
	if err != nil || res == nil {
		t.Fatalf("the job's result: %v %v", res, err)
	}
	ivs, err := repo.Intervals(ctx, j.ID)
	if err != nil {
		t.Fatal(err)
	}
	agents, err := repo.Agents(ctx, j.ID)
	if err != nil {
		t.Fatal(err)
	}
	return j, res, ivs, agents
}

// TestGroupRunThreeAgents: three sledge processes, each with a third of 6
// VUs, against one PostgreSQL with a PostgreSQL repository, make one job:
// its NOPM is the sum of the agents' committed New-Orders over the shared
// window and agrees with the database's own count; every agent handed in
// its part; the merged series has every VU once per interval.
func TestGroupRunThreeAgents(t *testing.T) {
	g := newGroupEnv(t)
	ps := g.agents(3, "three", "--vu", "6", "--rampup", "2s", "--duration", "8s", "--interval", "1s")
	for i, p := range ps {
		if code := p.exitCode(t); code != 0 {
			t.Fatalf("agent %d/3 exited %d:\n%s", i, code, p.output())
		}
	}
	merged := 0
	for _, p := range ps {
		if strings.Contains(p.output(), "merged the results of 3 agent(s)") {
			merged++
		}
	}
	if merged != 1 {
		t.Errorf("%d agents say they merged the results, want exactly one", merged)
	}
	j, res, ivs, agents := g.groupJob(t)
	if j.Status != metrics.StatusCompleted || res.Status != metrics.StatusCompleted {
		t.Errorf("job status %s, result %s: want completed", j.Status, res.Status)
	}
	if len(agents) != 3 {
		t.Fatalf("%d agents recorded, want 3", len(agents))
	}
	var newOrders, commits int64
	var cpu time.Duration
	vus := 0
	for _, a := range agents {
		if a.State != jobs.AgentDone || a.Result == nil {
			t.Fatalf("agent %s: state %s, result %v", a.Segment, a.State, a.Result != nil)
		}
		newOrders += a.Result.NewOrders
		commits += a.Result.Commits
		cpu += a.Result.ClientCPU
		vus += a.VUs
		if a.VUs != 2 || a.Result.VUs != 2 {
			t.Errorf("agent %s ran %d VUs (result %d), want 2", a.Segment, a.VUs, a.Result.VUs)
		}
		t.Logf("agent %s: NOPM %.0f, %d New-Orders, client CPU %.1f µs/tx, clock offset %s",
			a.Segment, a.Result.NOPM, a.Result.NewOrders, a.Result.ClientCPUPerTxUS, a.ClockOffset)
	}
	if res.NewOrders != newOrders || res.Commits != commits || res.ClientCPU != cpu || res.VUs != vus {
		t.Errorf("merged New-Orders %d, commits %d, CPU %s, VUs %d; the agents' sums %d, %d, %s, %d",
			res.NewOrders, res.Commits, res.ClientCPU, res.VUs, newOrders, commits, cpu, vus)
	}
	if want := float64(newOrders) / res.Measured.Minutes(); math.Abs(res.NOPM-want) > 1e-6*want {
		t.Errorf("NOPM %.3f, want the agents' New-Orders over the window %.3f", res.NOPM, want)
	}
	if !res.HasDBCheck || !res.DBCheckAgree {
		t.Errorf("database cross-check: present %v, agree %v (database %d, client %d, allowance %d)",
			res.HasDBCheck, res.DBCheckAgree, res.DBNewOrders, res.NewOrders, res.DBCheckAllowance)
	}
	t.Logf("merged: NOPM %.0f, TPM %.0f, database %d vs client %d New-Orders (±%d), window %s",
		res.NOPM, res.TPM, res.DBNewOrders, res.NewOrders, res.DBCheckAllowance, res.Measured)
	measured := 0
	for _, iv := range ivs {
		if iv.Phase != metrics.PhaseMeasure {
			continue
		}
		measured++
		var got []int
		for _, v := range iv.VUs {
			got = append(got, v.VU)
		}
		slices.Sort(got)
		if !slices.Equal(got, []int{1, 2, 3, 4, 5, 6}) {
			t.Errorf("interval %d has VUs %v, want 1…6 once each", iv.Seq, got)
		}
	}
	if measured < 7 {
		t.Errorf("%d measured intervals in the merged series, want 8", measured)
	}
	// A run id names one run: an agent coming after its end is refused.
	late := g.agents(1, "three", "--vu", "6", "--rampup", "2s", "--duration", "8s", "--interval", "1s")[0]
	if code := late.exitCode(t); code == 0 || !strings.Contains(late.output(), "which has ended") {
		t.Errorf("an agent of an ended run: exit %d\n%s", code, late.output())
	}
}

// TestGroupRunAgentInterrupted: an agent stopped with Ctrl-C hands in what
// it measured and exits at once; the other ends the run and merges both
// parts into an interrupted job.
func TestGroupRunAgentInterrupted(t *testing.T) {
	g := newGroupEnv(t)
	ps := g.agents(2, "ctrl-c", "--vu", "2", "--rampup", "1s", "--duration", "12s", "--interval", "1s")
	ps[1].waitFor(t, `measuring for`)
	time.Sleep(2 * time.Second)
	stopped := time.Now()
	if err := ps[1].cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	if code := ps[1].exitCode(t); code != 130 {
		t.Errorf("the interrupted agent exited %d, want 130:\n%s", code, ps[1].output())
	}
	// The other agent merges: it prints and exits by the job's status.
	if code := ps[0].exitCode(t); code != 130 || !strings.Contains(ps[0].output(), "merged the results of 2 agent(s)") {
		t.Fatalf("the merging agent exited %d, want 130 (the job was interrupted):\n%s", code, ps[0].output())
	}
	// At once: in a fraction of the time the other ran on (the rest of its
	// window, some 10 s), not after it.
	if took, rest := ps[1].ended.Sub(stopped), ps[0].ended.Sub(stopped); took > rest/2 {
		t.Errorf("the interrupted agent took %s to exit, the other ran %s more: it waited for the other", took, rest)
	}
	j, res, _, agents := g.groupJob(t)
	if j.Status != metrics.StatusInterrupted || res.Status != metrics.StatusInterrupted {
		t.Errorf("job %s, result %s: want interrupted", j.Status, res.Status)
	}
	if len(agents) != 2 || agents[1].State != jobs.AgentDone || agents[1].Result == nil || agents[1].Result.Status != metrics.StatusInterrupted {
		t.Errorf("the interrupted agent's part: %+v", agents)
	}
	if res.NewOrders != agents[0].Result.NewOrders+agents[1].Result.NewOrders {
		t.Errorf("merged New-Orders %d, the parts %d + %d", res.NewOrders, agents[0].Result.NewOrders, agents[1].Result.NewOrders)
	}
}

// TestGroupRunAgentKilled: an agent killed in the middle of the window
// leaves a degraded job that names its segment; the others' numbers are
// merged.
func TestGroupRunAgentKilled(t *testing.T) {
	g := newGroupEnv(t)
	ps := g.agents(3, "killed", "--vu", "3", "--rampup", "1s", "--duration", "14s", "--interval", "1s")
	ps[2].waitFor(t, `measuring for`)
	time.Sleep(3 * time.Second)
	if err := ps[2].cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	for i, p := range ps[:2] {
		if code := p.exitCode(t); code != 0 {
			t.Fatalf("agent %d/3 exited %d:\n%s", i, code, p.output())
		}
	}
	j, res, _, agents := g.groupJob(t)
	if j.Status != metrics.StatusDegraded || res.Status != metrics.StatusDegraded {
		t.Errorf("job status %s, result %s: want degraded", j.Status, res.Status)
	}
	warned := strings.Join(res.Warnings, "\n")
	if !strings.Contains(warned, "segment 2/3") || !strings.Contains(warned, "lost") || !strings.Contains(warned, "cover segments 0/3, 1/3") {
		t.Errorf("the warnings do not name the lost segment and what the numbers cover:\n%s", warned)
	}
	for _, a := range agents {
		if want := jobs.AgentDone; a.Segment == "2/3" {
			if a.State != jobs.AgentLost {
				t.Errorf("the killed agent is %s, want lost", a.State)
			}
		} else if a.State != want {
			t.Errorf("agent %s is %s, want %s", a.Segment, a.State, want)
		}
	}
	if res.VUs != 2 {
		t.Errorf("the merged result covers %d VUs, want the 2 of the agents that lived", res.VUs)
	}
}

// TestGroupRunAgentFrozen: an agent frozen (SIGSTOP) in the window past the
// threshold (10 s: five 1 s intervals are less) is counted lost by the
// others while they still run — not only when they wait for it at the end,
// which it would be back for. Let go (SIGCONT), it is at work again: the
// others wait for its result, and the job keeps its numbers but is
// degraded, naming it, its host, pid and how long it was silent; its
// record, `jobs show N agents` and its JSON mark it late.
func TestGroupRunAgentFrozen(t *testing.T) {
	g := newGroupEnv(t)
	ps := g.agents(3, "frozen", "--vu", "3", "--rampup", "1s", "--duration", "30s", "--interval", "1s")
	ps[2].waitFor(t, `measuring for`)
	time.Sleep(2 * time.Second)
	frozen := time.Now()
	if err := ps[2].cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	// Until one of the others says it counted 2/3 lost. (The others may
	// stall meanwhile on rows the frozen agent's transactions hold: they
	// share the warehouses.)
	// (Its last interval is a little older than its last heartbeat: either
	// silence may count first.)
	lost := regexp.MustCompile(`agent 2/3 \(.*\) (gave no sign of life|handed in no interval) since .*: counted lost`)
	deadline := time.After(time.Until(testDeadline(t)))
	for !slices.ContainsFunc(ps[:2], func(p *bgSledge) bool { return lost.MatchString(p.output()) }) {
		select {
		case <-ps[0].done:
			t.Fatalf("agent 0/3 ended while 2/3 was frozen:\n%s", ps[0].output())
		case <-ps[1].done:
			t.Fatalf("agent 1/3 ended while 2/3 was frozen:\n%s", ps[1].output())
		case <-deadline:
			t.Fatalf("waited until the test's deadline for the frozen agent 2/3 to be counted lost:\n%s\n%s", ps[0].output(), ps[1].output())
		case <-time.After(100 * time.Millisecond):
		}
	}
	froze := time.Since(frozen)
	if err := ps[2].cmd.Process.Signal(syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	for i, p := range ps {
		if code := p.exitCode(t); code != 0 {
			t.Fatalf("agent %d/3 exited %d:\n%s", i, code, p.output())
		}
	}
	if !strings.Contains(ps[2].output(), "the other agents counted this one lost") {
		t.Errorf("the agent that was frozen does not say it was counted lost:\n%s", ps[2].output())
	}
	j, res, _, agents := g.groupJob(t)
	t.Logf("frozen for %s; warnings:\n%s", froze, strings.Join(res.Warnings, "\n"))
	if j.Status != metrics.StatusDegraded || res.Status != metrics.StatusDegraded {
		t.Errorf("job status %s, result %s: want degraded", j.Status, res.Status)
	}
	if len(agents) != 3 {
		t.Fatalf("%d agents recorded, want 3", len(agents))
	}
	a := agents[2]
	named := fmt.Sprintf("agent 2/3 (%s, pid %d) was silent for ", a.Host, a.PID)
	if !slices.ContainsFunc(res.Warnings, func(w string) bool {
		return strings.HasPrefix(w, named) && strings.HasSuffix(w, "its numbers are kept but include the pause")
	}) {
		t.Errorf("no warning names the silent agent (%q…):\n%s", named, strings.Join(res.Warnings, "\n"))
	}
	// (Whether the others' window was steady on this shared, noisy machine
	// is theirs to say: TestGroupSteadiness shows that the pause is left
	// out of that judgement.)
	for _, w := range res.Warnings {
		if strings.Contains(w, "cover segments") {
			t.Errorf("a warning of a run that kept every agent's numbers: %s", w)
		}
	}
	// Its numbers are kept, marked late, with a silence of at least the
	// threshold and at most how long it was frozen.
	if a.State != jobs.AgentDone || a.Result == nil || !a.Late() || a.LostAt.IsZero() {
		t.Fatalf("the frozen agent: state %s, result %v, lost at %s, back at %s: want done, late", a.State, a.Result != nil, a.LostAt, a.BackAt)
	}
	// Silent from its last heartbeat before the freeze until its first
	// interval after it: at least the threshold, and of the order of the
	// freeze, not of the run.
	if s := a.Silence(); s < 10*time.Second || s > 2*froze {
		t.Errorf("the frozen agent was silent %s, want from the threshold (10 s) to about the %s it was frozen", s, froze)
	}
	// Counted lost in the run (which ends 31 s after its start), by the
	// others still running — not when they waited for it at the end.
	repo, err := jobs.Open(context.Background(), g.repo)
	if err != nil {
		t.Fatal(err)
	}
	defer repo.Close()
	run, _, err := repo.GroupOfJob(context.Background(), j.ID)
	if err != nil {
		t.Fatal(err)
	}
	if end := run.StartAt.Add(31 * time.Second); !a.LostAt.Before(end) {
		t.Errorf("the frozen agent was counted lost %s after the run's end", a.LostAt.Sub(end))
	}
	var newOrders int64
	for _, x := range agents {
		if x.Result == nil {
			t.Fatalf("agent %s handed in nothing", x.Segment)
		}
		newOrders += x.Result.NewOrders
	}
	if res.NewOrders != newOrders || res.VUs != 3 {
		t.Errorf("merged %d New-Orders over %d VUs, the agents' sum %d over 3", res.NewOrders, res.VUs, newOrders)
	}
	id := fmt.Sprint(j.ID)
	if out := g.ok("--repo", g.repo, "jobs", "show", id, "agents"); !strings.Contains(out, "late: silent") {
		t.Errorf("jobs show %s agents does not mark the late agent:\n%s", id, out)
	}
	var rows []map[string]any
	if err := json.Unmarshal([]byte(g.ok("--repo", g.repo, "jobs", "show", id, "agents", "--format", "json")), &rows); err != nil || len(rows) != 3 {
		t.Fatalf("agents JSON: %v %v", rows, err)
	}
	if rows[2]["late"] != true || rows[2]["silent_s"] == nil || rows[0]["late"] != false || rows[0]["silent_s"] != nil {
		t.Errorf("agents JSON marks %v and %v", rows[2], rows[0])
	}
}

// TestGroupBuildSplit: a build split over three agents gives the same rows
// and passes the same consistency check as a build by one process.
func TestGroupBuildSplit(t *testing.T) {
	if testing.Short() {
		t.Skip("builds on PostgreSQL with several sledge processes")
	}
	t.Parallel()
	e := newEnv(t)
	split, whole, repo := testdb.Postgres(t), testdb.Postgres(t), sharedRepo(t)
	var ps []*bgSledge
	for i := range 3 {
		ps = append(ps, e.start("--repo", repo, "build", "--db", split, "--warehouses", "4",
			"--segment", fmt.Sprintf("%d/3", i), "--run-id", "split-build"))
	}
	finished := 0
	for i, p := range ps {
		if code := p.exitCode(t); code != 0 {
			t.Fatalf("agent %d/3 exited %d:\n%s", i, code, p.output())
		}
		if strings.Contains(p.output(), "building the indexes") {
			finished++
		}
	}
	if finished != 1 {
		t.Errorf("%d agents finished the build, want one", finished)
	}
	e.ok("--repo", repo, "build", "--db", whole, "--warehouses", "4")
	counts := func(url string) string {
		out := e.ok("--repo", repo, "check", "--db", url)
		if !strings.Contains(out, "all conditions hold") || strings.Contains(out, "FAIL ") {
			t.Errorf("the check of %s:\n%s", url, out)
		}
		return out
	}
	a, b := counts(split), counts(whole)
	t.Logf("split build's check:\n%s", a)
	rows := func(out string) []string {
		var lines []string
		for _, l := range strings.Split(out, "\n") {
			if strings.Contains(l, "rows") {
				lines = append(lines, l)
			}
		}
		return lines
	}
	if !slices.Equal(rows(a), rows(b)) || len(rows(a)) == 0 {
		t.Errorf("row counts differ:\nsplit:\n%s\nwhole:\n%s", strings.Join(rows(a), "\n"), strings.Join(rows(b), "\n"))
	}
	ctx := context.Background()
	r, err := jobs.Open(ctx, repo)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	list, err := r.List(ctx, jobs.ListFilter{Kind: jobs.KindBuild})
	if err != nil || len(list) != 2 {
		t.Fatalf("%d build jobs (%v), want the split one and the whole one", len(list), err)
	}
	for _, j := range list {
		if j.Status != metrics.StatusCompleted {
			t.Errorf("build job %d is %s", j.ID, j.Status)
		}
	}
}

// TestJobsHlog: a run's New-Order histograms per interval export as an
// HdrHistogram interval log that hdrhistogram-go reads back, with as many
// transactions as the job counted.
func TestJobsHlog(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs on SQLite")
	}
	t.Parallel()
	e := newEnv(t)
	e.tpcc()
	e.ok("run", "--vu", "2", "--rampup", "0s", "--duration", "3s", "--interval", "1s")
	id := fmt.Sprint(e.latest("run")["id"])
	out := e.ok("jobs", "hlog", id)
	r := hdrhistogram.NewHistogramLogReader(strings.NewReader(out))
	var total int64
	n := 0
	for {
		h, err := r.NextIntervalHistogram()
		if err != nil {
			t.Fatalf("reading the log back: %v\n%s", err, out)
		}
		if h == nil {
			break
		}
		total += h.TotalCount()
		n++
	}
	var ivs []map[string]any
	if err := json.Unmarshal([]byte(e.ok("jobs", "show", id, "tcount", "--format", "json")), &ivs); err != nil {
		t.Fatal(err)
	}
	var want float64
	for _, iv := range ivs {
		tx := iv["transactions"].(map[string]any)["new_order"].(map[string]any)
		want += tx["count"].(float64)
	}
	if n != len(ivs) || n < 3 {
		t.Errorf("%d histograms in the log, %d intervals in the job", n, len(ivs))
	}
	// The histograms hold the completed New-Orders: committed and rolled
	// back by design (the invalid item); the series counts commits.
	if float64(total) < want || total == 0 {
		t.Errorf("the log holds %d New-Orders, the series %v committed", total, want)
	}
	if _, err := e.run("jobs", "hlog", id, "--tx", "nonesuch"); err == nil || !strings.Contains(err.Error(), "no such transaction type") {
		t.Errorf("an unknown --tx: %v", err)
	}
}

// TestGroupRunMariaDB: two agents against MariaDB (procs mode: the agents
// install the routines one at a time under the server's named lock) make
// one job whose count agrees with the database's.
func TestGroupRunMariaDB(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs on MariaDB with several sledge processes")
	}
	t.Parallel()
	// One warehouse: MariaDB copies a template row by row, which costs.
	g := groupEnv{testEnv: newEnv(t), db: tpcctest.MariaDB(t, tpcctest.Options{}), repo: sharedRepo(t)}
	ps := g.agents(2, "maria", "--vu", "4", "--rampup", "1s", "--duration", "6s", "--interval", "1s", "--mode", "procs")
	for i, p := range ps {
		if code := p.exitCode(t); code != 0 {
			t.Fatalf("agent %d/2 exited %d:\n%s", i, code, p.output())
		}
	}
	j, res, _, agents := g.groupJob(t)
	if j.Status != metrics.StatusCompleted || len(agents) != 2 {
		t.Fatalf("job %s with %d agents", j.Status, len(agents))
	}
	if !res.HasDBCheck || !res.DBCheckAgree || res.NewOrders != agents[0].Result.NewOrders+agents[1].Result.NewOrders {
		t.Errorf("merged %d New-Orders (agents %d + %d), database %d ±%d, agree %v",
			res.NewOrders, agents[0].Result.NewOrders, agents[1].Result.NewOrders, res.DBNewOrders, res.DBCheckAllowance, res.DBCheckAgree)
	}
	t.Logf("MariaDB, two agents: NOPM %.0f, database %d vs client %d New-Orders", res.NOPM, res.DBNewOrders, res.NewOrders)
}
