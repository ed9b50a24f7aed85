package app

import (
	"context"
	"errors"
	"reflect"
	"testing"

	"github.com/sledge-bench/sledge/internal/metrics"
	"github.com/sledge-bench/sledge/internal/report"
	"github.com/sledge-bench/sledge/internal/slo"
	"github.com/sledge-bench/sledge/internal/threshold"
)

// TestEndEnding: a job's end decides its class and what is said first,
// whatever the front end: an interrupted job says so after what it could
// not store; a spooled result that failed a threshold ends as the
// threshold's failure, an unkept one as unkept.
func TestEndEnding(t *testing.T) {
	t.Parallel()
	spooled := &NotStoredError{Job: 7, Spool: "/s/7", Err: errors.New("disk full")}
	unkept := &NotStoredError{Job: 7, Err: errors.New("disk full"), Unkept: true}
	boom := errors.New("boom")
	for _, tc := range []struct {
		name       string
		end        End
		thresholds int
		want       Ending
	}{
		{"completed", End{ID: 7, Status: metrics.StatusCompleted}, 0, Ending{}},
		{"interrupted", End{ID: 7, Status: metrics.StatusInterrupted}, 0,
			Ending{Class: EndInterrupted, Notes: []string{"run job 7 interrupted"}}},
		{"interrupted not stored", End{ID: 7, Status: metrics.StatusInterrupted, NotStored: spooled}, 0,
			Ending{Class: EndInterrupted, Notes: []string{spooled.Error(), "run job 7 interrupted"}}},
		{"error", End{ID: 7, Status: metrics.StatusFailed, Err: boom, Failed: true}, 0, Ending{Class: EndFailed, Err: boom}},
		{"failed check", End{ID: 7, Status: metrics.StatusCompleted, Failed: true}, 0, Ending{Class: EndFailed}},
		{"spooled", End{ID: 7, Status: metrics.StatusCompleted, NotStored: spooled}, 0,
			Ending{Class: EndNotStored, Notes: []string{spooled.Error()}}},
		{"unkept", End{ID: 7, Status: metrics.StatusCompleted, NotStored: unkept, ThresholdsFailed: 1}, 1,
			Ending{Class: EndNotKept, Notes: []string{unkept.Error()}}},
		{"spooled threshold", End{ID: 7, Status: metrics.StatusCompleted, NotStored: spooled, ThresholdsFailed: 1}, 1,
			Ending{Class: EndThresholds, Notes: []string{spooled.Error(), "run job 7 failed its threshold"}}},
		{"thresholds", End{ID: 7, Status: metrics.StatusDegraded, ThresholdsFailed: 2}, 3,
			Ending{Class: EndThresholds, Notes: []string{"run job 7 failed 2 of its 3 thresholds"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := tc.end.Ending("run", tc.thresholds); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("Ending = %+v, want %+v", got, tc.want)
			}
		})
	}
}

// TestGroupEnding: a series or profile ends by what stopped it, else by
// how its last job ended, else by how many of its jobs failed thresholds.
func TestGroupEnding(t *testing.T) {
	t.Parallel()
	run := &metrics.RunResult{}
	done := Outcome{ID: 1, Status: metrics.StatusCompleted, Run: run}
	failedTh := Outcome{ID: 2, Status: metrics.StatusCompleted, Run: run, Thresholds: []threshold.Verdict{{Pass: false}}}
	between := errors.New("between trials 1 and 2: vacuum: boom")
	for _, tc := range []struct {
		name        string
		outs        []Outcome
		err         error
		interrupted bool
		want        Ending
	}{
		{"all ran", []Outcome{done, done}, nil, false, Ending{}},
		{"interrupted between", []Outcome{done}, between, true,
			Ending{Class: EndInterrupted, Notes: []string{"series interrupted: " + between.Error()}}},
		{"stopped between", []Outcome{done}, between, false, Ending{Class: EndFailed, Err: between, Stopped: "series stopped"}},
		{"last interrupted", []Outcome{done, {ID: 2, Status: metrics.StatusInterrupted}}, nil, false,
			Ending{Class: EndInterrupted, Notes: []string{"series interrupted at trial 2 of 2 (job 2)"}}},
		{"last failed", []Outcome{done, {ID: 2, Status: metrics.StatusFailed}}, nil, false,
			Ending{Class: EndFailed, Notes: []string{"series stopped at trial 2 of 2 (job 2 failed)"}}},
		{"fewer than planned", []Outcome{done}, nil, false,
			Ending{Class: EndFailed, Notes: []string{"series stopped at trial 1 of 2 (job 1 completed)"}}},
		{"thresholds", []Outcome{done, failedTh}, nil, false,
			Ending{Class: EndThresholds, Notes: []string{"series: 1 of its 2 trials failed thresholds"}}},
		{"all failed thresholds", []Outcome{failedTh, failedTh}, nil, false,
			Ending{Class: EndThresholds, Notes: []string{"series: 2 of its 2 trials failed thresholds"}}},
		{"none ran", nil, between, false, Ending{Class: EndFailed, Err: between, Stopped: "series stopped"}},
		{"interrupted before any ran", nil, between, true,
			Ending{Class: EndInterrupted, Notes: []string{"series interrupted: " + between.Error()}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := GroupEnding("series", "trial", tc.outs, 2, tc.err, tc.interrupted); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("GroupEnding = %+v, want %+v", got, tc.want)
			}
		})
	}
}

// TestSLOAndGateEnding: an SLO search that found no rate, and a gate that
// failed a bound, end as a failed threshold; a stop ends as interrupted
// when the user stopped it, else as failed.
func TestSLOAndGateEnding(t *testing.T) {
	t.Parallel()
	boom := errors.New("step 2: boom")
	found := report.SLO{Result: slo.Result{Found: true}}
	spooled := &NotStoredError{Job: 3, Err: errors.New("disk full")}
	for _, tc := range []struct {
		name string
		got  Ending
		want Ending
	}{
		{"slo found", SLOEnding(found, nil, false), Ending{}},
		{"slo not found", SLOEnding(report.SLO{}, nil, false), Ending{Class: EndThresholds}},
		{"slo interrupted", SLOEnding(found, context.Canceled, true), Ending{Class: EndInterrupted}},
		{"slo not stored", SLOEnding(found, spooled, false), Ending{Class: EndNotStored, Notes: []string{"slo stopped: " + spooled.Error()}}},
		{"slo stopped", SLOEnding(found, boom, false), Ending{Class: EndFailed, Err: boom, Stopped: "slo stopped"}},
		{"gate passed", GateEnding(report.Gate{Rows: []report.GateRow{{}}}, nil, false), Ending{}},
		{"gate failed", GateEnding(report.Gate{ID: 4, Rows: []report.GateRow{{Failed: true}, {}}}, nil, false),
			Ending{Class: EndThresholds, Notes: []string{"gate 4 failed 1 of its 2 bounds"}}},
		{"gate interrupted", GateEnding(report.Gate{Stopped: "x"}, context.Canceled, true), Ending{Class: EndInterrupted}},
		{"gate stopped by", GateEnding(report.Gate{Stopped: "x"}, boom, false), Ending{Class: EndFailed, Err: boom, Stopped: "gate stopped"}},
		{"gate stopped", GateEnding(report.Gate{Stopped: "x"}, nil, false), Ending{Class: EndFailed}},
	} {
		if !reflect.DeepEqual(tc.got, tc.want) {
			t.Errorf("%s: %+v, want %+v", tc.name, tc.got, tc.want)
		}
	}
}
