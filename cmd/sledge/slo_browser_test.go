package main

import (
	"math"
	"strconv"
	"testing"
	"time"

	"github.com/sledge-bench/sledge/internal/app"
	"github.com/sledge-bench/sledge/internal/config"
	"github.com/sledge-bench/sledge/internal/slo"
)

// TestWebUISLOInChromium runs a small SLO search on the embedded database
// (2 s steps, a goal loose enough to pass at the start rate and a maximum
// rate that ends the climb) and has web-tests/slo.mjs check the panel that
// draws it on the page of one of its steps.
func TestWebUISLOInChromium(t *testing.T) {
	if testing.Short() {
		t.Skip("runs on SQLite, drives a browser")
	}
	t.Parallel()
	webTests, chromium, node, artifacts := browserEnv(t)
	e := newEnv(t)
	e.tpcc()
	ts, repo, _ := policyServer(e)
	spec := config.New(config.KindRun)
	spec.Rampup, spec.Interval, spec.Connections, spec.Metrics = 0, config.Duration(time.Second), 2, "off"
	req := app.SLORequest{Request: app.Request{Spec: spec}, Goals: []string{"p99(new_order)<10s"}, StartRate: 10, MaxRate: 20,
		StepDuration: 2 * time.Second, Precision: slo.DefaultPrecision} // 2 s at 10 a second: New-Orders for certain
	s, err := app.New(e.state().serviceOptions(app.Options{Repo: repo, Version: "test"})).SLO(t.Context(), req)
	if err != nil || len(s.Result.Steps) < 2 {
		t.Fatalf("slo: %+v, %v", s.Result, err)
	}
	answer := "none"
	if s.Result.Found {
		answer = slo.FormatRate(s.Result.Low)
	}
	ctx, cancel := testContext(t)
	defer cancel()
	member := s.Result.Steps[len(s.Result.Steps)-1].JobID
	points := 0 // a step that saw no New-Order complete has no p50 or p99 to draw
	for _, st := range s.Result.Steps {
		if !math.IsNaN(st.P50) && !math.IsNaN(st.P99) {
			points++
		}
	}
	cmd := nodeCommand(ctx, t, webTests, node, chromium, "slo.mjs", ts.URL, artifacts, strconv.FormatInt(member, 10),
		strconv.Itoa(len(s.Result.Steps)), strconv.Itoa(points), answer)
	if err := runStreaming(t, cmd); err != nil {
		t.Fatalf("slo.mjs (search %d): %v (screenshots in %s)", s.ID, err, artifacts)
	}
}
