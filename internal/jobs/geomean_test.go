package jobs

import (
	"context"
	"math"
	"testing"
)

// TestListGeomean: List and Get give a TPROC-H run's headline, the
// geometric mean of its power test (NaN when not computed), in the query
// that lists the jobs; other jobs have none.
func TestListGeomean(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, b backend) {
		ctx := context.Background()
		r := b.open(t)
		h := mustCreate(t, r, Job{Kind: KindRun, Workload: "tproch"}, nil)
		if err := r.SaveAnalyticResult(ctx, h, sampleAnalyticResult()); err != nil {
			t.Fatal(err)
		}
		failed := mustCreate(t, r, Job{Kind: KindRun, Workload: "tproch"}, nil)
		res := sampleAnalyticResult()
		res.GeomeanS = math.NaN()
		if err := r.SaveAnalyticResult(ctx, failed, res); err != nil {
			t.Fatal(err)
		}
		build := mustCreate(t, r, Job{Kind: KindBuild, Workload: "tproch"}, nil)
		list, err := r.List(ctx, ListFilter{})
		if err != nil {
			t.Fatal(err)
		}
		got := map[int64]*float64{}
		for _, j := range list {
			got[j.ID] = j.GeomeanS
		}
		if g := got[h]; g == nil || *g != 0.04 {
			t.Errorf("TPROC-H run: geomean %v, want 0.04", g)
		}
		if g := got[failed]; g == nil || !math.IsNaN(*g) {
			t.Errorf("TPROC-H run without a geometric mean: %v, want NaN", g)
		}
		if g := got[build]; g != nil {
			t.Errorf("build: geomean %v, want none", *g)
		}
		if j, err := r.Get(ctx, h); err != nil || j.GeomeanS == nil || *j.GeomeanS != 0.04 || j.Headline != nil {
			t.Errorf("Get: %+v, %v", j, err)
		}
	})
}
