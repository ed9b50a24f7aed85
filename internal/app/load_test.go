package app

import (
	"bytes"
	"context"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/sledge-bench/sledge/internal/config"
	"github.com/sledge-bench/sledge/internal/metrics"
	"github.com/sledge-bench/sledge/internal/report"
	"github.com/sledge-bench/sledge/internal/testdb"
)

// buildPostgres builds TPROC-C with warehouses on a fresh PostgreSQL
// database and returns its URL.
func buildPostgres(t *testing.T, svc *Service, warehouses int) string {
	t.Helper()
	url := testdb.Postgres(t)
	b := config.New(config.KindBuild)
	b.DB, b.Warehouses = url, warehouses
	if o, err := svc.Run(context.Background(), Request{Spec: b}); err != nil || o.Status != metrics.StatusCompleted {
		t.Fatalf("build: %+v %v", o, err)
	}
	return url
}

// TestPacedTerminalsOverPoolPostgres: 40 paced terminals (10 per warehouse
// on 4 warehouses, the default) over 5 connections, with the keying and
// think times scaled down. The run reaches the paced ceiling's efficiency,
// its New-Orders agree with the database's, every terminal is homed on a
// district of its own, and the schedule is kept.
func TestPacedTerminalsOverPoolPostgres(t *testing.T) {
	if testing.Short() {
		t.Skip("builds 4 warehouses on PostgreSQL")
	}
	t.Parallel()
	svc, repo := newService(t)
	url := buildPostgres(t, svc, 4)
	// The schedule kept and the efficiency reached are the machine's; the
	// package's other tests, saturating its CPUs with unpaced runs, would
	// make them theirs.
	alone(t)
	run := config.New(config.KindRun)
	run.DB, run.Connections, run.Pacing, run.PacingScale = url, 5, "spec", 0.02
	// A terminal's cycle is about 0.6 s scaled: the ramp-up lets every
	// terminal key its first transaction before the window.
	run.Rampup, run.Duration, run.Interval = config.Duration(2*time.Second), config.Duration(20*time.Second), config.Duration(2*time.Second)
	var out bytes.Buffer
	o, err := svc.Run(context.Background(), Request{Spec: run, Console: &out})
	if err != nil || o.Run == nil || o.Status != metrics.StatusCompleted {
		t.Fatalf("run: %+v %v\n%s", o, err, out.String())
	}
	res := o.Run
	if res.Load == nil || res.Load.Model != metrics.LoadTerminals || res.Load.Terminals != 40 || res.Load.Connections != 5 {
		t.Fatalf("load %+v, want 40 terminals over 5 connections", res.Load)
	}
	// The ceiling: 12.86 NOPM per warehouse, ÷ 0.02 for the scaled times.
	// The deck gives 12.605 (98 %); a 20 s window of 40 terminals holds
	// about 850 New-Orders, whose count varies by a few percent.
	eff := res.NOPM / res.PacedCeiling
	t.Logf("efficiency %.1f%% (NOPM %.0f), lag p99 %s", 100*eff, res.NOPM, res.Load.LagP99)
	if math.Abs(res.PacedCeiling-12.86*4/0.02) > 0.01 || eff < 0.85 || eff > 1.06 {
		t.Errorf("efficiency %.1f%% (NOPM %.0f, ceiling %.0f), want 85–106%%\n%s", 100*eff, res.NOPM, res.PacedCeiling, out.String())
	}
	if !res.HasDBCheck || !res.DBCheckAgree {
		t.Errorf("cross-check: has %v, agree %v (%d database vs %d client, ±%d)", res.HasDBCheck, res.DBCheckAgree,
			res.DBNewOrders, res.NewOrders, res.DBCheckAllowance)
	}
	// A queue (too few sessions) grows the lag by seconds over the window;
	// a busy machine stalls a session for a tenth of a second now and then,
	// and one running two copies of the suite for half a second.
	if res.Load.LagP99 > time.Second {
		t.Errorf("lag p99 %s: five sessions should serve 40 paced terminals without a queue", res.Load.LagP99)
	}
	for _, want := range []string{"40 terminals over 5 connections", "schedule lag", "efficiency"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("console lacks %q:\n%s", want, out.String())
		}
	}
	stored, err := repo.RunResult(context.Background(), o.ID)
	if err != nil || stored.Load == nil || stored.Load.Terminals != 40 || stored.Load.LagP99 != res.Load.LagP99 {
		t.Fatalf("stored load %+v, %v", stored.Load, err)
	}
	settings, err := repo.Config(context.Background(), o.ID)
	if err != nil || settings["load_model"] != "terminals" || settings["terminals"] != "40" || settings["connections"] != "5" {
		t.Errorf("settings %v, %v", settings, err)
	}
	for _, a := range res.Audit {
		if !a.OK && a.Verdict != metrics.VerdictNA {
			t.Errorf("audit %s off: %.2f%s (%s)", a.Name, a.Value, a.Unit, a.Target)
		}
	}
}

// TestRateRunPostgres: open-loop arrivals, some of each type as asked, and
// a stage that doubles the rate; the achieved rate tracks the asked one,
// the cross-check agrees and the stages' rows are stored.
func TestRateRunPostgres(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs on PostgreSQL")
	}
	t.Parallel()
	svc, repo := newService(t)
	// A copy of the package's one-warehouse template (a build is not this
	// test's subject): 200 transactions a second over 4 sessions leave its
	// warehouse and district rows far from saturated.
	url := tpccPostgres(t)
	alone(t) // the rate achieved is the machine's
	run := config.New(config.KindRun)
	run.DB, run.Connections, run.Rate, run.Stages = url, 4, 100, "4s:100,4s:200"
	run.Rampup, run.Interval = config.Duration(time.Second), config.Duration(time.Second)
	var out bytes.Buffer
	o, err := svc.Run(context.Background(), Request{Spec: run, Console: &out})
	if err != nil || o.Run == nil || o.Status != metrics.StatusCompleted {
		t.Fatalf("run: %+v %v\n%s", o, err, out.String())
	}
	res := o.Run
	l := res.Load
	if l == nil || l.Model != metrics.LoadRate || l.Dropped != 0 {
		t.Fatalf("load %+v", l)
	}
	if l.AskedRate < 145 || l.AskedRate > 155 || l.AchievedRate < 0.85*l.AskedRate || l.AchievedRate > 1.15*l.AskedRate {
		t.Errorf("asked %.1f, achieved %.1f per second: want 150 asked over the two stages, achieved within 15%%", l.AskedRate, l.AchievedRate)
	}
	// The window ends at the first tick after its 8 s, late on a busy
	// machine, but well before the 9 s that would count the ramp-up.
	if res.Measured < 8*time.Second || res.Measured > 8700*time.Millisecond {
		t.Errorf("measured %s, want the stages' 8 s", res.Measured)
	}
	if !res.HasDBCheck || !res.DBCheckAgree {
		t.Errorf("cross-check: has %v, agree %v", res.HasDBCheck, res.DBCheckAgree)
	}
	if len(res.Stages) != 2 {
		t.Fatalf("stages %+v", res.Stages)
	}
	r1 := float64(res.Stages[0].Commits) / (res.Stages[0].End - res.Stages[0].Start).Seconds()
	r2 := float64(res.Stages[1].Commits) / (res.Stages[1].End - res.Stages[1].Start).Seconds()
	if r2 < 1.5*r1 {
		t.Errorf("stage 2 committed %.0f a second, stage 1 %.0f: want the rate doubled", r2, r1)
	}
	ivs, err := repo.Intervals(context.Background(), o.ID)
	if err != nil {
		t.Fatal(err)
	}
	var scheduled int64
	stages := map[int]int{}
	for _, iv := range ivs {
		if iv.Phase == metrics.PhaseMeasure {
			scheduled += iv.Scheduled
			stages[iv.Stage]++
		}
	}
	if stages[1] != 4 || stages[2] != 4 || scheduled != l.Scheduled {
		t.Errorf("stored intervals: %v per stage, %d scheduled (result %d)", stages, scheduled, l.Scheduled)
	}
	stored, err := repo.RunResult(context.Background(), o.ID)
	if err != nil || len(stored.Stages) != 2 || stored.Stages[1].Target != 200 {
		t.Errorf("stored stages %+v, %v", stored.Stages, err)
	}
}

// TestProfilePostgres: a VU sweep with two trials per step on PostgreSQL
// gives the table (each step's NOPM with its confidence interval, the knee
// line) and the self-contained chart (both figures against VUs).
func TestProfilePostgres(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs on PostgreSQL")
	}
	parallel(t)
	svc, repo := newService(t)
	// A copy of the package's one-warehouse template: what is checked is
	// the profile's shape (steps, trials, table, charts), not how 4 VUs
	// scale, which a build of 4 warehouses would have spread out.
	url := tpccPostgres(t)
	spec := config.New(config.KindRun)
	spec.DB, spec.Rampup, spec.Duration, spec.Interval = url, config.Duration(time.Second), config.Duration(3*time.Second), config.Duration(time.Second)
	outs, err := svc.RunProfile(context.Background(), Request{Spec: spec}, []int{1, 4}, 2)
	if err != nil || len(outs) != 4 {
		t.Fatalf("%d jobs, %v", len(outs), err)
	}
	p, err := LoadProfile(context.Background(), repo, outs[0].ID)
	if err != nil || len(p.Steps) != 2 {
		t.Fatalf("profile %+v, %v", p, err)
	}
	// Two trials a step: a mean and an SD, too few for an interval (the
	// report's tests give one from three).
	for _, s := range p.Steps {
		if n := s.NOPM(); n.N != 2 || !(n.Mean > 0) || !(n.SD >= 0) || !math.IsNaN(n.CI95High) {
			t.Errorf("step of %d VUs: NOPM %+v", s.VUs, n)
		}
	}
	var table, html strings.Builder
	if err := report.ProfileText(&table, p); err != nil {
		t.Fatal(err)
	}
	if err := report.ProfileHTML(&html, p); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"knee", "from three trials"} {
		if !strings.Contains(table.String(), want) {
			t.Errorf("the table lacks %q:\n%s", want, table.String())
		}
	}
	if strings.Count(html.String(), "<svg") < 2 || !strings.Contains(html.String(), "NOPM against VUs") || strings.Contains(html.String(), "<script") {
		t.Errorf("the HTML report lacks its two charts or has a script:\n%.2000s", html.String())
	}
	t.Log("\n" + table.String())
}
