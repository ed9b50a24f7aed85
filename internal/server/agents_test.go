package server

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/sledge-bench/sledge/internal/jobs"
	"github.com/sledge-bench/sledge/internal/metrics"
	"github.com/sledge-bench/sledge/internal/report"
	"github.com/sledge-bench/sledge/internal/script/scripttest"
)

// TestServeAgents: GET /api/jobs/{id}/agents lists a run's agents in
// segment order with their share of the numbers (null before they handed
// in) and the mark of one counted lost that came back (late, with its
// silence), and [] for a job run by one process.
func TestServeAgents(t *testing.T) {
	t.Parallel()
	ts, _, repo := testServerStore(t, "", nil)
	f := scripttest.Build(t, repo)
	ctx := context.Background()
	now := time.Now()
	noCheck := func(jobs.RunGroup, []jobs.Agent, map[string]string) error { return nil }
	var id int64
	for _, a := range []jobs.Agent{
		{Segment: "1/2", Host: "client2", PID: 22, FirstVU: 4, VUs: 4, ClockOffset: 2500 * time.Microsecond, JoinedAt: now},
		{Segment: "0/2", Host: "client1", PID: 11, FirstVU: 0, VUs: 4, JoinedAt: now},
	} {
		g, _, err := repo.JoinRun(ctx, "nightly", jobs.Job{Kind: jobs.KindRun, Workload: "tprocc"}, map[string]string{"vu": "8"}, a, noCheck)
		if err != nil {
			t.Fatal(err)
		}
		id = g.JobID
	}
	res := &metrics.RunResult{Status: metrics.StatusCompleted, VUs: 4, NOPM: 1234.5, NewOrders: 99, Commits: 220,
		ClientCPU: 1500 * time.Millisecond, ClientCPUPerTxUS: 31.25}
	if err := repo.SaveAgentResult(ctx, id, "0/2", now, res); err != nil {
		t.Fatal(err)
	}
	// 1/2 fell silent 2 s after now, was counted lost, and came back with an
	// interval 41 s after it fell silent.
	if lost, err := repo.MarkAgentLost(ctx, id, "1/2", now, now.Add(2*time.Second), now.Add(13*time.Second)); err != nil || !lost {
		t.Fatalf("MarkAgentLost: %v %v", lost, err)
	}
	if err := repo.AddAgentInterval(ctx, id, "1/2", now.Add(43*time.Second), metrics.Interval{Seq: 1, Phase: metrics.PhaseMeasure}); err != nil {
		t.Fatal(err)
	}
	c := apiClient{t: t, base: ts.URL}
	got := getJSON[[]report.AgentJSON](t, c, fmt.Sprintf("/api/jobs/%d/agents", id), 200)
	if len(got) != 2 || got[0].Segment != "0/2" || got[1].Segment != "1/2" {
		t.Fatalf("agents %+v, want segments 0/2 and 1/2 in order", got)
	}
	done, waiting := got[0], got[1]
	if done.State != jobs.AgentDone || done.NOPM == nil || *done.NOPM != 1234.5 || *done.NewOrders != 99 ||
		*done.ClientCPUS != 1.5 || *done.ClientCPUPerTxUS != 31.25 || done.FirstVU != 1 || done.Host != "client1" {
		t.Errorf("the agent that handed in: %+v", done)
	}
	if waiting.State != jobs.AgentRunning || waiting.NOPM != nil || waiting.Status != nil || waiting.FirstVU != 5 || waiting.ClockOffsetMS != 2.5 {
		t.Errorf("the agent still at work: %+v", waiting)
	}
	if !waiting.Late || waiting.SilentS == nil || *waiting.SilentS != 41 || waiting.SilentFrom == nil || waiting.LostAt == nil || waiting.BackAt == nil ||
		*waiting.BackAt != now.Add(43*time.Second).UTC().Format(time.RFC3339Nano) {
		t.Errorf("the agent back after it was counted lost is not marked late with its silence: %+v", waiting)
	}
	if done.Late || done.SilentS != nil || done.SilentFrom != nil || done.BackAt != nil {
		t.Errorf("an agent never lost is marked: %+v", done)
	}
	if none := getJSON[[]report.AgentJSON](t, c, fmt.Sprintf("/api/jobs/%d/agents", f.Run), 200); none == nil || len(none) != 0 {
		t.Errorf("a job of one process: %v, want []", none)
	}
	getJSON[map[string]any](t, c, "/api/jobs/999999/agents", 404)
}
