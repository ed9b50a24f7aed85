package app

import (
	"bytes"
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/sledge-bench/sledge/internal/config"
	"github.com/sledge-bench/sledge/internal/jobs"
	"github.com/sledge-bench/sledge/internal/metrics"
)

// TestBetweenRebuildSeriesSQLite: a series of two trials with the rebuild
// step between them (`sledge run --repeat 2 --between rebuild --yes`)
// rebuilds the schema as it was built (warehouses and seed from the
// database), as a build job of the series: the second trial starts from
// the built data (the orders the first added are gone), and every job
// records between and its series. (Moved from cmd/sledge, which keeps the
// confirmation the CLI asks for.)
func TestBetweenRebuildSeriesSQLite(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs on SQLite")
	}
	parallel(t)
	svc, repo := faultService(t)
	ctx := context.Background()
	url := tpccSQLite(t, "between.db") // as `sledge build --warehouses 1` leaves it
	spec := runSpec(url, 0, 2*time.Second)
	// Unpaced: each 2 s trial must add New-Orders even on a busy machine,
	// to tell the rebuild's reset from no trial at all.
	spec.Pacing = config.DefaultPacing
	spec.VU, spec.Between, spec.Confirm = 1, config.BetweenRebuild, true
	// A mark no transaction touches: the rebuild loads the warehouse's
	// name again, so the mark is gone after the series only if it ran.
	adminExec(t, url, "UPDATE warehouse SET w_name = 'marked' WHERE w_id = 1")
	if n := count(t, url, "SELECT count(*) FROM warehouse WHERE w_name = 'marked'"); n != 1 {
		t.Fatalf("%d warehouses marked, want 1", n)
	}
	var out bytes.Buffer
	outs, err := svc.RunSeries(ctx, Request{Spec: spec, Console: &out}, 2)
	if err != nil || len(outs) != 2 {
		t.Fatalf("%d trials, %v\n%s", len(outs), err, out.String())
	}
	for _, want := range []string{"between trials: rebuilding 1 warehouse in " + url + " as it was built, seed 1",
		"between trials: rebuilt the TPROC-C schema (build job "} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the output lacks %q:\n%s", want, out.String())
		}
	}
	list, err := repo.List(ctx, jobs.ListFilter{})
	if err != nil {
		t.Fatal(err)
	}
	sort.Slice(list, func(i, j int) bool { return list[i].ID < list[j].ID })
	var kinds []string
	for _, j := range list {
		kinds = append(kinds, j.Kind)
	}
	// (The database was built before the series, outside this repository.)
	if strings.Join(kinds, " ") != "run build run" {
		t.Fatalf("jobs %v, want trial 1, the rebuild, trial 2", kinds)
	}
	series := fmt.Sprint(list[0].ID)
	for _, j := range list {
		cfg, err := repo.Config(ctx, j.ID)
		if err != nil {
			t.Fatal(err)
		}
		if cfg["between"] != config.BetweenRebuild || cfg["series"] != series {
			t.Errorf("job %d (%s): between %v, series %v, want rebuild and %s", j.ID, j.Kind, cfg["between"], cfg["series"], series)
		}
		if j.Kind == jobs.KindBuild && (cfg["warehouses"] != "1" || cfg["force"] != "true" || cfg["seed"] != "1") {
			t.Errorf("the rebuild's config %v: want 1 warehouse, seed 1, forced", cfg)
		}
	}
	// The orders now are the build's 30000 (3000 per district) and what
	// trial 2 added: without the rebuild, trial 1's would be there too.
	for k, o := range outs {
		if o.Status != metrics.StatusCompleted || o.Run == nil {
			t.Fatalf("trial %d: %+v", k+1, o)
		}
	}
	// The orders now are the rebuild's 30000 and trial 2's. Trial 2's count
	// is its window's only: on a busy machine it also committed some
	// before the window's baseline was read (16 more than trial 1's 11 in
	// its window, once), so the count alone cannot tell whether trial 1's
	// orders went; the mark can.
	first, second := outs[0].Run.DBNewOrders, outs[1].Run.DBNewOrders
	orders := count(t, url, "SELECT count(*) FROM orders") - 30000
	if first <= 0 || second <= 0 || orders < second {
		t.Errorf("%d orders added since the build; trial 1 added %d, trial 2 %d in their windows", orders, first, second)
	}
	if n := count(t, url, "SELECT count(*) FROM warehouse WHERE w_name = 'marked'"); n != 0 {
		t.Errorf("the warehouse marked before the series is still marked: the rebuild did not reset the data")
	}
}
