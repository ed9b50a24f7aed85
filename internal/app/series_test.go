package app

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/sledge-bench/sledge/internal/metrics"
	"github.com/sledge-bench/sledge/internal/report"
)

// TestRunSeries: three trials of one configuration are three jobs, each
// recording its series and place; the series report gives each trial and
// the mean with its confidence interval.
func TestRunSeries(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs on SQLite")
	}
	parallel(t)
	svc, repo := faultService(t)
	url := tpccSQLite(t, "series.db")
	spec := runSpec(url, 0, 2*time.Second)
	spec.VU = 1
	outs, err := svc.RunSeries(context.Background(), Request{Spec: spec}, 3)
	if err != nil || len(outs) != 3 {
		t.Fatalf("%d trials, %v", len(outs), err)
	}
	var trials []report.SeriesTrial
	for k, o := range outs {
		if o.Status != metrics.StatusCompleted || o.Run == nil {
			t.Fatalf("trial %d: %+v", k+1, o)
		}
		cfg, err := repo.Config(context.Background(), o.ID)
		if err != nil {
			t.Fatal(err)
		}
		if cfg["series"] != fmt.Sprint(outs[0].ID) || cfg["trial"] != fmt.Sprintf("%d/3", k+1) {
			t.Errorf("trial %d's config: series %q, trial %q", k+1, cfg["series"], cfg["trial"])
		}
		trials = append(trials, report.SeriesTrial{JobID: o.ID, Run: o.Run})
	}
	var b strings.Builder
	if err := report.Series(&b, trials); err != nil {
		t.Fatal(err)
	}
	t.Log("\n" + b.String())
	for _, want := range []string{"Series of 3 trials", "95% CI of the mean", "NOPM", "new_order p95"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("the series report lacks %q", want)
		}
	}
	// Three trials give an interval, in figures with separators, never
	// below zero.
	if !regexp.MustCompile(`(?m)^ +NOPM +[\d,]+ +[\d,]+ +[\d,]+ – [\d,]+$`).MatchString(b.String()) {
		t.Errorf("no NOPM interval:\n%s", b.String())
	}
	if _, err := svc.RunSeries(context.Background(), Request{Spec: spec}, 0); err == nil {
		t.Error("a series of no trial was accepted")
	}
}
