package app

import (
	"context"
	"math"
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

// TestSilentSince: an agent at work is silent once it has shown no sign of
// life for lostAfter or — running, while the run's intervals are due —
// handed in no interval for lostAfter; a heartbeat does not make up for
// missing progress, and no interval is due before the start, after the
// run's end or in a build.
func TestSilentSince(t *testing.T) {
	parallel(t)
	start := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	at := func(s float64) time.Time { return start.Add(time.Duration(s * float64(time.Second))) }
	l := liveness{lostAfter: 10 * time.Second, length: 60 * time.Second}
	for _, tc := range []struct {
		name      string
		state     string
		seen      float64 // last sign of life, seconds after the start
		progress  float64 // last interval; NaN: none yet
		now       float64
		start     time.Time
		live      liveness
		wantSince float64 // NaN: not silent
		wantWhat  string
	}{
		{"alive and progressing", jobs.AgentRunning, 29.5, 29, 30, start, l, nan, ""},
		{"no sign of life past the threshold", jobs.AgentRunning, 19, 19, 30, start, l, 19, "no sign of life"},
		{"no sign of life at the threshold", jobs.AgentRunning, 20, 29, 30, start, l, nan, ""},
		{"frozen before the start", jobs.AgentReady, -20, nan, -5, start, l, -20, "no sign of life"},
		{"alive, no interval past the threshold", jobs.AgentRunning, 29.8, 18, 30, start, l, 18, "no interval"},
		{"alive, no interval yet, early", jobs.AgentRunning, 8, nan, 8.5, start, l, nan, ""},
		{"alive, no interval since the start", jobs.AgentRunning, 11, nan, 11, start, l, 0, "no interval"},
		{"alive before the start", jobs.AgentRunning, -2, nan, -1, start, l, nan, ""},
		{"ended its run: no interval due after the end", jobs.AgentRunning, 89.5, 60.2, 90, start, l, nan, ""},
		{"stopped progressing before the end", jobs.AgentRunning, 89.5, 45, 90, start, l, 45, "no interval"},
		{"not running: judged by life only", jobs.AgentReady, 29.5, nan, 30, start, l, nan, ""},
		{"a build: judged by life only", jobs.AgentRunning, 29.5, nan, 30, start, liveness{lostAfter: 10 * time.Second}, nan, ""},
		{"the start not yet known", jobs.AgentRunning, 29.5, nan, 30, time.Time{}, l, nan, ""},
	} {
		a := jobs.Agent{Segment: "1/3", State: tc.state, LastSeen: at(tc.seen)}
		if !math.IsNaN(tc.progress) {
			a.LastProgress = at(tc.progress)
		}
		since, what := tc.live.silentSince(a, tc.start, at(tc.now))
		switch {
		case math.IsNaN(tc.wantSince) && !since.IsZero():
			t.Errorf("%s: silent since %s (%s), want not silent", tc.name, since.Sub(start), what)
		case !math.IsNaN(tc.wantSince) && (!since.Equal(at(tc.wantSince)) || !strings.Contains(what, tc.wantWhat)):
			t.Errorf("%s: silent since %s (%q), want since %gs (%q)", tc.name, since.Sub(start), what, tc.wantSince, tc.wantWhat)
		}
	}
}

var nan = math.NaN()

// TestLateWarnings: an agent whose numbers are merged and that came back
// after it was counted lost is named, with its host, pid and how long it
// was silent from when in the run; one back before the run started, or
// never lost, is not.
func TestLateWarnings(t *testing.T) {
	parallel(t)
	start := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	s := func(x float64) time.Time { return start.Add(time.Duration(x * float64(time.Second))) }
	covered := []jobs.Agent{
		{Segment: "0/3", Host: "h0", PID: 10},
		{Segment: "1/3", Host: "h1", PID: 11, SilentFrom: s(-20), LostAt: s(-9), BackAt: s(-4)},
		{Segment: "2/3", Host: "h2", PID: 12, SilentFrom: s(12), LostAt: s(22.5), BackAt: s(53.2)},
	}
	got := lateWarnings(covered, start)
	want := []string{"agent 2/3 (h2, pid 12) was silent for 41 s from 12.0 s: its numbers are kept but include the pause"}
	if !slices.Equal(got, want) {
		t.Errorf("lateWarnings = %q, want %q", got, want)
	}
	covered[1].BackAt = s(3) // silent from before the start until into the run
	if got := lateWarnings(covered, start); len(got) != 2 || !strings.Contains(got[0], "agent 1/3 (h1, pid 11) was silent for 23 s from before the start") {
		t.Errorf("an agent silent across the start: %q", got)
	}
}

// TestGroupSteadiness: the steadiness of a group run is judged on the
// intervals every agent whose numbers are merged handed in, without those
// in which a late agent was silent: a lost agent's missing intervals and a
// frozen one's pause, which on the whole series read as a fall of the
// rate, give no warning; a real trend of the merged agents still does.
func TestGroupSteadiness(t *testing.T) {
	parallel(t)
	start := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	const n = 20
	// series makes a segment's measured intervals 1…n, of TPM tpm(seq), up
	// to seq last.
	series := func(last int, tpm func(seq int) float64) []metrics.Interval {
		var out []metrics.Interval
		for seq := 1; seq <= last; seq++ {
			out = append(out, metrics.Interval{Seq: seq, Phase: metrics.PhaseMeasure,
				Elapsed: time.Duration(seq) * time.Second, Length: time.Second, TPM: tpm(seq)})
		}
		return out
	}
	flat := func(seq int) float64 { return 1000 + float64(seq%3) } // steady, a little noise
	paused := func(seq int) float64 {
		if seq >= 8 && seq <= 12 {
			return 0
		}
		return flat(seq)
	}
	rising := func(seq int) float64 { return 1000 + 40*float64(seq) + float64(seq%3) }
	a := []jobs.Agent{{Segment: "0/3"}, {Segment: "1/3"}, {Segment: "2/3"}}
	late := a[2]
	late.SilentFrom, late.LostAt, late.BackAt = start.Add(7200*time.Millisecond), start.Add(17*time.Second), start.Add(12500*time.Millisecond)
	for _, tc := range []struct {
		name    string
		series  map[string][]metrics.Interval
		covered []jobs.Agent
		warn    bool
	}{
		{"agent 2/3 lost at interval 8", map[string][]metrics.Interval{"0/3": series(n, flat), "1/3": series(n, flat), "2/3": series(7, flat)},
			a[:2], false},
		{"agent 2/3 paused in intervals 8 to 12, late", map[string][]metrics.Interval{"0/3": series(n, flat), "1/3": series(n, flat), "2/3": series(n, paused)},
			[]jobs.Agent{a[0], a[1], late}, false},
		{"a real trend of the merged agents", map[string][]metrics.Interval{"0/3": series(n, rising), "1/3": series(n, flat), "2/3": series(7, flat)},
			a[:2], true},
	} {
		got, err := groupSteadiness(tc.series, tc.covered, start)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if (len(got) > 0) != tc.warn {
			t.Errorf("%s: warnings %q, want a warning %v", tc.name, got, tc.warn)
		}
	}
	// The whole series, as the job stores it, does fall where 2/3 was
	// lost: judged on it, the run would be said not steady.
	whole, err := mergeSeries(map[string][]metrics.Interval{"0/3": series(n, flat), "1/3": series(n, flat), "2/3": series(7, flat)}, a,
		func(jobs.Agent, metrics.Interval) bool { return true })
	if err != nil || len(whole) != n {
		t.Fatalf("mergeSeries: %d intervals, %v", len(whole), err)
	}
	if len(metrics.SteadinessWarnings(whole)) == 0 {
		t.Error("the whole series of a run that lost an agent is judged steady: the test does not show what groupSteadiness leaves out")
	}
}
