package app

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/sledge-bench/sledge/internal/config"
	"github.com/sledge-bench/sledge/internal/jobs"
	"github.com/sledge-bench/sledge/internal/metrics"
	"github.com/sledge-bench/sledge/internal/report"
)

func TestCheckProfileVUs(t *testing.T) {
	parallel(t)
	for _, c := range []struct {
		vus  []int
		want string
	}{
		{[]int{1, 2, 4}, ""},
		{[]int{8}, ""},
		{nil, "at least one"},
		{[]int{0, 1}, "want 1 to"},
		{[]int{1, config.MaxVUs + 1}, "want 1 to"},
		{[]int{2, 2}, "ascending"},
		{[]int{4, 2}, "ascending"},
	} {
		err := CheckProfileVUs(c.vus)
		if (c.want == "") != (err == nil) || err != nil && !strings.Contains(err.Error(), c.want) {
			t.Errorf("CheckProfileVUs(%v) = %v, want %q", c.vus, err, c.want)
		}
	}
}

// TestRunProfile runs a tiny profile on SQLite (1 and 2 VUs, two trials
// each): four jobs recording their profile, step and trial, read back as
// two steps with their trials' confidence intervals; a bad profile is
// refused before any job.
func TestRunProfile(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs on SQLite")
	}
	parallel(t)
	ctx := context.Background()
	svc, repo := faultService(t)
	url := tpccSQLite(t, "profile.db")
	spec := runSpec(url, 0, 2*time.Second)
	before, err := repo.List(ctx, jobs.ListFilter{})
	if err != nil {
		t.Fatal(err)
	}
	for _, bad := range []struct {
		vus    []int
		repeat int
		spec   func(*config.Spec)
	}{
		{[]int{2, 1}, 1, nil},
		{[]int{1}, 0, nil},
		{[]int{1, 2}, 1, func(s *config.Spec) { s.Duration = -1 }},
		{[]int{1, 2}, 1, func(s *config.Spec) { s.Stages = "1s:1" }},
	} {
		s := spec
		if bad.spec != nil {
			bad.spec(&s)
		}
		if outs, err := svc.RunProfile(ctx, Request{Spec: s}, bad.vus, bad.repeat); err == nil || len(outs) > 0 {
			t.Errorf("profile %v ×%d was accepted: %d jobs, %v", bad.vus, bad.repeat, len(outs), err)
		}
	}
	if after, _ := repo.List(ctx, jobs.ListFilter{}); len(after) != len(before) {
		t.Fatalf("the refused profiles created %d jobs", len(after)-len(before))
	}

	outs, err := svc.RunProfile(ctx, Request{Spec: spec}, []int{1, 2}, 2)
	if err != nil || len(outs) != 4 {
		t.Fatalf("%d jobs, %v", len(outs), err)
	}
	root := outs[0].ID
	for i, o := range outs {
		if o.Status != metrics.StatusCompleted || o.Run == nil {
			t.Fatalf("job %d: %+v", i+1, o)
		}
		cfg, err := repo.Config(ctx, o.ID)
		if err != nil {
			t.Fatal(err)
		}
		vu, k := []int{1, 1, 2, 2}[i], i%2+1
		series := outs[i-i%2].ID
		if cfg[SettingProfile] != fmt.Sprint(root) || cfg[SettingProfileVU] != fmt.Sprint(vu) || cfg["vu"] != fmt.Sprint(vu) ||
			cfg["trial"] != fmt.Sprintf("%d/2", k) || cfg["series"] != fmt.Sprint(series) {
			t.Errorf("job %d's settings: profile %q, profile_vu %q, vu %q, trial %q, series %q", o.ID,
				cfg[SettingProfile], cfg[SettingProfileVU], cfg["vu"], cfg["trial"], cfg["series"])
		}
	}

	for _, id := range []int64{root, outs[3].ID} { // the first job or any
		p, err := LoadProfile(ctx, repo, id)
		if err != nil {
			t.Fatal(err)
		}
		if p.ID != root || p.Workload != "tprocc" || len(p.Steps) != 2 || p.Steps[0].VUs != 1 || p.Steps[1].VUs != 2 {
			t.Fatalf("profile of job %d: %+v", id, p)
		}
		for i, s := range p.Steps {
			n := s.NOPM()
			if len(s.Trials) != 2 || n.N != 2 || !(n.Mean > 0) || !(n.SD >= 0) || !math.IsNaN(n.CI95High) || !(s.TPM() > 0) || !(s.P95MS() > 0) {
				t.Errorf("step %d: %+v, NOPM %+v", i, s, n)
			}
		}
		var b strings.Builder
		if err := report.ProfileText(&b, p); err != nil {
			t.Fatal(err)
		}
		t.Log("\n" + b.String())
	}
	list, err := ListProfiles(ctx, repo)
	if err != nil || len(list) != 1 || list[0].ID != root {
		t.Errorf("ListProfiles: %v, %v", list, err)
	}
	// --between rebuild: a build job between the steps belongs to the
	// profile but is no step of it.
	spec.Between, spec.Confirm = config.BetweenRebuild, true // the user's word that it may be dropped
	var console strings.Builder
	outs, err = svc.RunProfile(ctx, Request{Spec: spec, Console: &console}, []int{1, 2}, 1)
	if err != nil || len(outs) != 2 {
		t.Fatalf("profile with rebuild: %d jobs, %v\n%s", len(outs), err, console.String())
	}
	if !strings.Contains(console.String(), "Profile step 2 of 2: 2 VUs") || !strings.Contains(console.String(), "between trials: rebuil") {
		t.Errorf("the console of a profile with rebuild:\n%s", console.String())
	}
	members, err := repo.JobsWithSetting(ctx, SettingProfile, fmt.Sprint(outs[0].ID))
	if err != nil || len(members) != 3 {
		t.Errorf("the jobs of the profile with rebuild: %v, %v; want the two runs and the build", members, err)
	}
	p, err := LoadProfile(ctx, repo, outs[0].ID)
	if err != nil || len(p.Steps) != 2 || p.Steps[0].VUs != 1 || p.Steps[1].VUs != 2 || len(p.Steps[1].Trials) != 1 {
		t.Errorf("the profile with rebuild: %+v, %v", p, err)
	}
	if cfg, _ := repo.Config(ctx, outs[1].ID); cfg["between"] != config.BetweenRebuild {
		t.Errorf("the second step's between: %q", cfg["between"])
	}

	check := config.New(config.KindCheck)
	check.DB = url
	if o, err := svc.Run(ctx, Request{Spec: check}); err != nil {
		t.Fatal(err)
	} else if _, err := LoadProfile(ctx, repo, o.ID); !errors.Is(err, ErrNotProfile) {
		t.Errorf("a check job as a profile: %v", err)
	}
	if _, err := LoadProfile(ctx, repo, 9999); !errors.Is(err, jobs.ErrNotFound) {
		t.Errorf("an unknown job as a profile: %v", err)
	}
}
