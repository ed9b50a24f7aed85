package jobs

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sledge-bench/sledge/internal/metrics"
)

// noCheck lets every agent join.
func noCheck(RunGroup, []Agent, map[string]string) error { return nil }

// TestGroupRunLifecycle: agents join one run (the first creates the job),
// the start is fixed once, intervals and results are stored per agent and
// read back by seq, one agent claims the merge, and a lost agent keeps a
// state it reached first.
func TestGroupRunLifecycle(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, b backend) {
		ctx := context.Background()
		r := b.open(t)
		now := time.Now().UTC().Truncate(time.Microsecond)
		join := func(seg string, check JoinCheck) (RunGroup, bool, error) {
			return r.JoinRun(ctx, "nightly", Job{Kind: KindRun, Workload: "tprocc"}, map[string]string{"vu": "4", "segment": seg},
				Agent{Segment: seg, Host: "h1", PID: 100, FirstVU: 0, VUs: 2, ClockOffset: 1500 * time.Microsecond, JoinedAt: now}, check)
		}
		g0, created, err := join("0/2", noCheck)
		if err != nil || !created || g0.JobID == 0 {
			t.Fatalf("first join: %+v created %v, %v", g0, created, err)
		}
		var seen []Agent
		var seenCfg map[string]string
		g1, created, err := join("1/2", func(g RunGroup, agents []Agent, cfg map[string]string) error {
			seen, seenCfg = agents, cfg
			return nil
		})
		if err != nil || created || g1.JobID != g0.JobID {
			t.Fatalf("second join: %+v created %v, %v (first %+v)", g1, created, err, g0)
		}
		if len(seen) != 1 || seen[0].Segment != "0/2" || seen[0].ClockOffset != 1500*time.Microsecond || seenCfg["segment"] != "0/2" {
			t.Errorf("the check saw agents %+v, settings %v", seen, seenCfg)
		}
		if _, _, err := join("1/2", noCheck); err == nil || !strings.Contains(err.Error(), "segment 1/2 has joined already") {
			t.Errorf("a segment joining twice: %v", err)
		}
		refused := errors.New("refused")
		if _, _, err := join("2/3", func(RunGroup, []Agent, map[string]string) error { return refused }); !errors.Is(err, refused) {
			t.Errorf("a check's refusal: %v", err)
		}
		if agents, _ := r.Agents(ctx, g0.JobID); len(agents) != 2 {
			t.Errorf("%d agents after a refused join, want 2", len(agents))
		}

		start := now.Add(3 * time.Second)
		got, err := r.SetRunStart(ctx, "nightly", start)
		if err != nil || !got.Equal(start) {
			t.Fatalf("SetRunStart: %v %v", got, err)
		}
		if got, err := r.SetRunStart(ctx, "nightly", start.Add(time.Hour)); err != nil || !got.Equal(start) {
			t.Errorf("a second SetRunStart changed the start: %v %v", got, err)
		}
		if g, err := r.RunGroup(ctx, "nightly"); err != nil || !g.StartAt.Equal(start) || g.JobID != g0.JobID || g.JobStatus != metrics.StatusRunning {
			t.Errorf("RunGroup: %+v %v", g, err)
		}
		if g, ok, err := r.GroupOfJob(ctx, g0.JobID); err != nil || !ok || g.RunID != "nightly" {
			t.Errorf("GroupOfJob: %+v %v %v", g, ok, err)
		}
		if _, ok, err := r.GroupOfJob(ctx, mustCreate(t, r, Job{Kind: KindRun}, nil)); err != nil || ok {
			t.Errorf("GroupOfJob of a job of one process: %v %v", ok, err)
		}

		for seq := 1; seq <= 2; seq++ {
			for k, seg := range []string{"0/2", "1/2"} {
				iv := metrics.Interval{Seq: seq, Phase: metrics.PhaseMeasure, Elapsed: time.Duration(seq) * time.Second, Length: time.Second,
					TPM: 60, NOPM: 30, Tx: []metrics.IntervalTx{{Name: "new_order", Count: int64(10 + k), Histogram: []byte("HISTO")}},
					VUs: []metrics.VUInterval{{VU: 2*k + 1, State: "running", Commits: 5}, {VU: 2*k + 2, State: "running", Commits: 6}}}
				if err := r.AddAgentInterval(ctx, g0.JobID, seg, now.Add(time.Duration(seq)*time.Second), iv); err != nil {
					t.Fatal(err)
				}
			}
		}
		one, err := r.AgentIntervals(ctx, g0.JobID, 2)
		if err != nil || len(one) != 1 || len(one[2]) != 2 {
			t.Fatalf("AgentIntervals(2): %v %v", one, err)
		}
		if iv := one[2][1]; iv.Tx[0].Count != 11 || string(iv.Tx[0].Histogram) != "HISTO" || len(iv.VUs) != 2 || iv.VUs[0].VU != 3 {
			t.Errorf("segment 1/2's interval 2 read back as %+v", iv)
		}
		if all, err := r.AgentIntervals(ctx, g0.JobID, 0); err != nil || len(all) != 2 {
			t.Errorf("AgentIntervals(all): %d seqs, %v", len(all), err)
		}
		if series, err := r.AgentSeries(ctx, g0.JobID); err != nil || len(series) != 2 || len(series["1/2"]) != 2 ||
			series["1/2"][1].Seq != 2 || series["1/2"][1].Tx[0].Count != 11 || series["0/2"][0].Tx[0].Count != 10 {
			t.Errorf("AgentSeries: %+v, %v", series, err)
		}

		res := &metrics.RunResult{Status: metrics.StatusCompleted, VUs: 2, NOPM: 123.5, NewOrders: 42,
			Tx: []metrics.TxSummary{{Name: "new_order", Count: 42, Histogram: []byte("H"), Errors: map[string]int64{"deadlock": 1}}}}
		if err := r.SaveAgentResult(ctx, g0.JobID, "0/2", now.Add(5*time.Second), res); err != nil {
			t.Fatal(err)
		}
		at := now.Add(20 * time.Second)
		if lost, err := r.MarkAgentLost(ctx, g0.JobID, "0/2", now.Add(5*time.Second), now.Add(5*time.Second), at); err != nil || lost {
			t.Errorf("a done agent counted lost: %v %v", lost, err)
		}
		if lost, err := r.MarkAgentLost(ctx, g0.JobID, "1/2", now, now, at); err != nil || lost {
			t.Errorf("an agent seen since counted lost: %v %v", lost, err)
		}
		if lost, err := r.MarkAgentLost(ctx, g0.JobID, "1/2", now.Add(2*time.Second), now.Add(2*time.Second), at); err != nil || !lost {
			t.Errorf("a silent agent not counted lost: %v %v", lost, err)
		}
		agents, err := r.Agents(ctx, g0.JobID)
		if err != nil || len(agents) != 2 {
			t.Fatalf("Agents: %v %v", agents, err)
		}
		a0, a1 := agents[0], agents[1]
		if a0.State != AgentDone || a0.Result == nil || a0.Result.NewOrders != 42 || a0.Result.Tx[0].Errors["deadlock"] != 1 ||
			!a0.LastSeen.Equal(now.Add(5*time.Second)) {
			t.Errorf("the done agent: %+v (result %+v)", a0, a0.Result)
		}
		if a1.State != AgentLost || a1.Result != nil || !a1.LastSeen.Equal(now.Add(2*time.Second)) ||
			!a1.SilentFrom.Equal(now.Add(2*time.Second)) || !a1.LostAt.Equal(at) || a1.Late() || a1.Silence() != 18*time.Second {
			t.Errorf("the lost agent: %+v", a1)
		}
		if !a1.LastProgress.Equal(now.Add(2*time.Second)) || !a0.LastProgress.Equal(now.Add(2*time.Second)) {
			t.Errorf("last progress %s and %s, want the last interval's hand-in %s", a0.LastProgress, a1.LastProgress, now.Add(2*time.Second))
		}

		won, err := r.ClaimMerge(ctx, "nightly", "1/2")
		if err != nil || !won {
			t.Fatalf("first claim: %v %v", won, err)
		}
		if won, err := r.ClaimMerge(ctx, "nightly", "0/2"); err != nil || won {
			t.Errorf("second claim won %v, %v", won, err)
		}
	})
}

// TestAgentComesBack: an agent counted lost is not brought back by a
// heartbeat (life is not progress) but by an interval, a state or its
// result: it is at work again, and its record keeps when it fell silent,
// when it was counted lost and when it came back. A second loss records
// the new silence.
func TestAgentComesBack(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, b backend) {
		ctx := context.Background()
		r := b.open(t)
		t0 := time.Now().UTC().Truncate(time.Microsecond)
		sec := func(n int) time.Time { return t0.Add(time.Duration(n) * time.Second) }
		g, _, err := r.JoinRun(ctx, "back", Job{Kind: KindRun}, nil, Agent{Segment: "0/1", Host: "h", PID: 1, VUs: 1, JoinedAt: t0}, noCheck)
		if err != nil {
			t.Fatal(err)
		}
		one := func() Agent {
			t.Helper()
			agents, err := r.Agents(ctx, g.JobID)
			if err != nil || len(agents) != 1 {
				t.Fatalf("agents %v, %v", agents, err)
			}
			return agents[0]
		}
		if err := r.SetAgentState(ctx, g.JobID, "0/1", AgentRunning, sec(1), ""); err != nil {
			t.Fatal(err)
		}
		iv := func(seq int) metrics.Interval {
			return metrics.Interval{Seq: seq, Phase: metrics.PhaseMeasure, Elapsed: time.Duration(seq) * time.Second, Length: time.Second}
		}
		if err := r.AddAgentInterval(ctx, g.JobID, "0/1", sec(2), iv(1)); err != nil {
			t.Fatal(err)
		}
		if lost, err := r.MarkAgentLost(ctx, g.JobID, "0/1", sec(2), sec(2), sec(13)); err != nil || !lost {
			t.Fatalf("counted lost: %v %v", lost, err)
		}
		if err := r.TouchAgent(ctx, g.JobID, "0/1", sec(40)); err != nil {
			t.Fatal(err)
		}
		if a := one(); a.State != AgentLost || a.Late() || !a.LastSeen.Equal(sec(40)) {
			t.Errorf("after a heartbeat: state %s, back %s, last seen %s: want still lost", a.State, a.BackAt, a.LastSeen)
		}
		if err := r.AddAgentInterval(ctx, g.JobID, "0/1", sec(43), iv(2)); err != nil {
			t.Fatal(err)
		}
		a := one()
		if a.State != AgentRunning || !a.Late() || !a.BackAt.Equal(sec(43)) || !a.SilentFrom.Equal(sec(2)) || !a.LostAt.Equal(sec(13)) ||
			a.Silence() != 41*time.Second || !a.LastProgress.Equal(sec(43)) {
			t.Errorf("after an interval: %+v, silence %s; want running, back at +43 s, silent 41 s from +2 s", a, a.Silence())
		}
		// A later state change keeps the first return.
		if err := r.AddAgentInterval(ctx, g.JobID, "0/1", sec(44), iv(3)); err != nil {
			t.Fatal(err)
		}
		if a := one(); !a.BackAt.Equal(sec(43)) {
			t.Errorf("back at %s after a second interval, want +43 s", a.BackAt)
		}
		// Lost again, back with its result.
		if lost, err := r.MarkAgentLost(ctx, g.JobID, "0/1", sec(44), sec(44), sec(60)); err != nil || !lost {
			t.Fatalf("counted lost again: %v %v", lost, err)
		}
		if a := one(); a.Late() || !a.SilentFrom.Equal(sec(44)) {
			t.Errorf("lost again: %+v", a)
		}
		if err := r.SaveAgentResult(ctx, g.JobID, "0/1", sec(70), &metrics.RunResult{Status: metrics.StatusCompleted}); err != nil {
			t.Fatal(err)
		}
		if a := one(); a.State != AgentDone || a.Result == nil || !a.BackAt.Equal(sec(70)) || a.Silence() != 26*time.Second {
			t.Errorf("back with its result: %+v, silence %s", a, a.Silence())
		}
		// A state recorded by an agent that was not lost marks nothing.
		g2, _, err := r.JoinRun(ctx, "never-lost", Job{Kind: KindRun}, nil, Agent{Segment: "0/1", Host: "h", PID: 2, VUs: 1, JoinedAt: t0}, noCheck)
		if err != nil {
			t.Fatal(err)
		}
		if err := r.SetAgentState(ctx, g2.JobID, "0/1", AgentFailed, sec(3), "boom"); err != nil {
			t.Fatal(err)
		}
		if agents, err := r.Agents(ctx, g2.JobID); err != nil || agents[0].Late() || !agents[0].SilentFrom.IsZero() || agents[0].Silence() != 0 {
			t.Errorf("an agent never lost: %+v %v", agents, err)
		}
	})
}

// TestGroupRunConcurrentJoins: agents joining one run at the same time make
// one job with every agent in it.
func TestGroupRunConcurrentJoins(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, b backend) {
		loc := b.fresh(t)
		const n = 6
		ids := make([]int64, n)
		errs := make([]error, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				r, err := Open(context.Background(), loc)
				if err != nil {
					errs[i] = err
					return
				}
				defer r.Close()
				seg := fmt.Sprintf("%d/%d", i, n)
				g, _, err := r.JoinRun(context.Background(), "together", Job{Kind: KindRun}, nil,
					Agent{Segment: seg, Host: "h", PID: i, VUs: 1, JoinedAt: time.Now()}, noCheck)
				ids[i], errs[i] = g.JobID, err
			}()
		}
		wg.Wait()
		for i, err := range errs {
			if err != nil {
				t.Fatalf("agent %d: %v", i, err)
			}
			if ids[i] != ids[0] {
				t.Fatalf("agents joined jobs %v, want one", ids)
			}
		}
		r := b.openAt(t, loc)
		list, err := r.List(context.Background(), ListFilter{})
		if err != nil || len(list) != 1 {
			t.Fatalf("%d jobs (%v), want one", len(list), err)
		}
		agents, err := r.Agents(context.Background(), ids[0])
		if err != nil || len(agents) != n {
			t.Fatalf("%d agents (%v), want %d", len(agents), err, n)
		}
	})
}

// TestJobsWithSetting: the trials of a series are found by their setting.
func TestJobsWithSetting(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, b backend) {
		ctx := context.Background()
		r := b.open(t)
		first := mustCreate(t, r, Job{Kind: KindRun}, map[string]string{"trial": "1/3"})
		if err := r.AddConfig(ctx, first, map[string]string{"series": fmt.Sprint(first)}); err != nil {
			t.Fatal(err)
		}
		other := mustCreate(t, r, Job{Kind: KindRun}, map[string]string{"series": "999"})
		second := mustCreate(t, r, Job{Kind: KindRun}, map[string]string{"series": fmt.Sprint(first), "trial": "2/3"})
		ids, err := r.JobsWithSetting(ctx, "series", fmt.Sprint(first))
		if err != nil || len(ids) != 2 || ids[0] != first || ids[1] != second {
			t.Errorf("JobsWithSetting = %v, %v; want [%d %d] (not %d)", ids, err, first, second, other)
		}
	})
}
