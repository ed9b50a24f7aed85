package app

import (
	"math"
	"strings"
	"testing"

	"github.com/sledge-bench/sledge/internal/metrics"
	"github.com/sledge-bench/sledge/internal/report"
	"github.com/sledge-bench/sledge/internal/threshold"
)

func TestGateOrder(t *testing.T) {
	t.Parallel()
	seen := map[string]bool{}
	for seed := uint64(1); seed <= 20; seed++ {
		o := GateOrder(5, seed)
		if o != GateOrder(5, seed) {
			t.Fatalf("seed %d: two orders", seed)
		}
		if len(o) != 10 {
			t.Fatalf("seed %d: %q has %d trials, want 10", seed, o, len(o))
		}
		for i := 0; i < len(o); i += 2 {
			if p := o[i : i+2]; p != "AB" && p != "BA" {
				t.Errorf("seed %d: %q: pair %q is not one of each arm", seed, o, p)
			}
		}
		seen[o] = true
	}
	if len(seen) < 5 {
		t.Errorf("20 seeds drew %d orders: not drawn at random", len(seen))
	}
}

func TestGateRow(t *testing.T) {
	t.Parallel()
	run := func(nopm float64) Outcome {
		return Outcome{Run: &metrics.RunResult{NOPM: nopm, Measured: 1e9}, Status: metrics.StatusCompleted}
	}
	trials := []report.GateTrial{{JobID: 1, Arm: "A"}, {JobID: 2, Arm: "B"}, {JobID: 3, Arm: "B"}, {JobID: 4, Arm: "A"}, {JobID: 5, Arm: "A"}, {JobID: 6, Arm: "B"}}
	drop, _ := threshold.ParseRelative("nopm<-3%")
	wide, _ := threshold.ParseRelative("nopm<-50%")
	for _, c := range []struct {
		name      string
		bound     threshold.Relative
		nopm      []float64 // in trials' order
		sig, fail bool
		note      string
	}{
		{"a clear drop", drop, []float64{1000, 800, 810, 1010, 990, 790}, true, true, ""},
		{"a drop within the bound", wide, []float64{1000, 800, 810, 1010, 990, 790}, true, false, ""},
		{"the same", drop, []float64{1000, 1005, 990, 1010, 995, 1000}, false, false, ""},
		{"a rise", drop, []float64{1000, 1200, 1210, 1010, 990, 1190}, true, false, ""},
		{"too few", drop, []float64{1000, 800}, false, true, "too few trials"},
	} {
		outs := make([]Outcome, len(c.nopm))
		for i, v := range c.nopm {
			outs[i] = run(v)
		}
		row := gateRow(c.bound, trials[:len(outs)], outs, 42)
		if row.Significant != c.sig || row.Failed != c.fail || !strings.Contains(row.Note, c.note) || (c.note == "") != (row.Note == "") {
			t.Errorf("%s: significant %v failed %v note %q, want %v %v %q (%+v)", c.name, row.Significant, row.Failed, row.Note, c.sig, c.fail, c.note, row)
		}
		if c.note == "" && (math.IsNaN(row.P) || row.P <= 0 || row.P > 1) {
			t.Errorf("%s: p = %v", c.name, row.P)
		}
	}
	// A job without a result: the bound fails, saying why.
	outs := []Outcome{run(1000), {ID: 2, Status: metrics.StatusFailed}}
	if row := gateRow(drop, trials[:2], outs, 1); !row.Failed || !strings.Contains(row.Note, "job 2 (B): the job has no result") {
		t.Errorf("a trial without a result: %+v", row)
	}
}
