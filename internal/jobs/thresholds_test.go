package jobs

import (
	"context"
	"reflect"
	"testing"

	"github.com/sledge-bench/sledge/internal/threshold"
)

// TestThresholdsRoundTrip: a run's verdicts come back as stored, a value
// that was not measured as none, on both backends; storing again replaces
// them, and deleting the job deletes them.
func TestThresholdsRoundTrip(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, b backend) {
		ctx := context.Background()
		r := b.open(t)
		id, err := r.Create(ctx, Job{Kind: "run", Workload: "tprocc", DBKind: "sqlite", Target: "sqlite:x"}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if got, err := r.Thresholds(ctx, id); err != nil || got != nil {
			t.Fatalf("before: %v, %v; want none", got, err)
		}
		want := []threshold.Verdict{
			{Threshold: threshold.Threshold{Text: "nopm>=40000", Metric: "nopm", Op: ">=", Limit: 40000},
				Value: 41234.5, HasValue: true, Pass: true},
			{Threshold: threshold.Threshold{Text: "p99(new_order)<50ms", Metric: "p99", Name: "new_order", Op: "<", Limit: 50, Unit: "ms"},
				Value: 72.25, HasValue: true},
			{Threshold: threshold.Threshold{Text: "p99(delivery)<1s", Metric: "p99", Name: "delivery", Op: "<", Limit: 1, Unit: "s"},
				Note: "no transaction completed in the window"},
		}
		if err := r.SaveThresholds(ctx, id, want[:1]); err != nil {
			t.Fatal(err)
		}
		if err := r.SaveThresholds(ctx, id, want); err != nil {
			t.Fatal(err)
		}
		got, err := r.Thresholds(ctx, id)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Fatalf("Thresholds = %+v, %v\nwant %+v", got, err, want)
		}
		if err := r.Delete(ctx, id); err != nil {
			t.Fatal(err)
		}
		if _, err := r.Thresholds(ctx, id); err == nil {
			t.Error("the thresholds of a deleted job read without error")
		}
	})
}
