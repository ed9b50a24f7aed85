package chbench

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/sledge-bench/sledge/internal/config"
	"github.com/sledge-bench/sledge/internal/db"
	"github.com/sledge-bench/sledge/internal/db/postgres"
	"github.com/sledge-bench/sledge/internal/metrics"
	"github.com/sledge-bench/sledge/internal/workload"
)

// TestStreamsUnreachable: streams whose database refuses them try until the
// window's end, then say so; the run's analytic half is empty, not absent.
func TestStreamsUnreachable(t *testing.T) {
	t.Parallel()
	tg, err := db.ParseTarget("postgres://nobody@127.0.0.1:1/none")
	if err != nil {
		t.Fatal(err)
	}
	p := config.Plan{Spec: config.New(config.KindRun)}
	p.Rampup, p.Duration, p.AnalyticStreams, p.Seed = 0, config.Duration(time.Second), 2, 5
	b, err := Workload{}.PrepareBeside(context.Background(), workload.Env{Driver: postgres.Driver{}, Target: tg}, p)
	if err != nil || b == nil {
		t.Fatalf("PrepareBeside: %v, %v", b, err)
	}
	if set := b.Settings(); set["analytic_streams"] != "2" || set["analytic_seed"] != "5" || set["analytic_order"] != "paper" {
		t.Errorf("settings %v", set)
	}
	b.Run(context.Background(), time.Now())
	var res metrics.RunResult
	b.Complete(&res, nil)
	m := res.Mixed
	if m == nil || m.Queries != 0 || len(m.Runs) != 0 || len(m.Warnings) != 2 || !strings.Contains(m.Warnings[0], "could not connect") {
		t.Fatalf("mixed result %+v", m)
	}
	// None asked for: nothing beside the VUs.
	p.AnalyticStreams = 0
	if b, err := (Workload{}).PrepareBeside(context.Background(), workload.Env{Driver: postgres.Driver{}, Target: tg}, p); b != nil || err != nil {
		t.Errorf("no streams: %v, %v", b, err)
	}
}
