package app

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sledge-bench/sledge/internal/config"
	"github.com/sledge-bench/sledge/internal/jobs"
	"github.com/sledge-bench/sledge/internal/metrics"
)

// TestUncovered: the parts of a run no agent covers are named as segments.
func TestUncovered(t *testing.T) {
	parallel(t)
	for _, tc := range []struct {
		segments []string
		want     []string
	}{
		{[]string{"0/3", "1/3", "2/3"}, nil},
		{[]string{"0/3", "2/3"}, []string{"1/3"}},
		{[]string{"1/3"}, []string{"0/3", "2/3"}},
		{[]string{"2/4", "0/4"}, []string{"1/4", "3/4"}},
		{[]string{"0:1/2"}, []string{"1/2"}},
		{[]string{"0/5", "1/5", "4/5"}, []string{"2/5:4/5"}},
		{nil, []string{"0:1"}},
	} {
		var agents []jobs.Agent
		for _, s := range tc.segments {
			agents = append(agents, jobs.Agent{Segment: s})
		}
		if got := uncovered(agents); !slices.Equal(got, tc.want) {
			t.Errorf("uncovered(%v) = %v, want %v", tc.segments, got, tc.want)
		}
	}
}

// TestGroupRunMissingAgent: an agent whose partner never comes starts after
// the agent wait, alone; the job is degraded and names the segment no agent
// joined for, and covers the agent's VUs only. The database's count,
// which would include the missing agent's work, is not compared.
func TestGroupRunMissingAgent(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs on PostgreSQL")
	}
	parallel(t)
	url := tpccPostgres(t)
	svc, repo := faultService(t)
	spec := runSpec(url, 0, 3*time.Second)
	spec.Segment, spec.RunID, spec.AgentWait = "0/2", "alone", config.Duration(2*time.Second)
	con := newConsole()
	start := time.Now()
	f := runJob(t, svc, repo, spec, con)
	if took := time.Since(start); took < 2*time.Second {
		t.Errorf("the run ended after %s: it did not wait the agent wait for its partner", took)
	}
	f.requireStatus(t, metrics.StatusDegraded)
	warned := strings.Join(f.res.Warnings, "\n")
	if !strings.Contains(warned, "no agent joined for segment 1/2") || !strings.Contains(warned, "cover segments 0/2 only") {
		t.Errorf("the warnings do not name the missing segment:\n%s", warned)
	}
	if f.res.VUs != 2 || f.res.HasDBCheck || f.res.DBCheckUnavailable == "" {
		t.Errorf("VUs %d, database check %v (%q): want the 2 VUs of segment 0/2 and no check", f.res.VUs, f.res.HasDBCheck, f.res.DBCheckUnavailable)
	}
	agents, err := repo.Agents(context.Background(), f.o.ID)
	if err != nil || len(agents) != 1 || agents[0].State != jobs.AgentDone {
		t.Errorf("agents %+v, %v", agents, err)
	}
}
