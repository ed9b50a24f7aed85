package app

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/sledge-bench/sledge/internal/config"
)

// TestServiceTPROCHRecordsSeedUsed: a TPROC-H run without a seed records
// the seed0 it chose in the job's settings, the one its result shows, never
// 0.
func TestServiceTPROCHRecordsSeedUsed(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs on DuckDB")
	}
	parallel(t)
	svc, repo := newService(t)
	ctx := context.Background()
	build := config.New(config.KindBuild)
	build.Workload, build.Scale = "tproch", 0.01
	if _, err := svc.Run(ctx, Request{Spec: build}); err != nil {
		if strings.Contains(err.Error(), "cgo") {
			t.Skip("DuckDB needs cgo:", err)
		}
		t.Fatal(err)
	}
	run := config.New(config.KindRun)
	run.Workload, run.Seed = "tproch", 0
	o, err := svc.Run(ctx, Request{Spec: run})
	if err != nil || o.Analytic == nil {
		t.Fatalf("run: %+v %v", o, err)
	}
	kv, err := repo.Config(ctx, o.ID)
	if err != nil {
		t.Fatal(err)
	}
	res, err := repo.AnalyticResult(ctx, o.ID)
	if err != nil || res == nil {
		t.Fatalf("stored result %+v, %v", res, err)
	}
	if res.Seed == 0 || kv["seed"] != strconv.FormatInt(res.Seed, 10) {
		t.Errorf("recorded seed %q, the run used %d", kv["seed"], res.Seed)
	}
}
