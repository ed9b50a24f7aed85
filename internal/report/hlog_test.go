package report

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/sledge-bench/sledge/internal/jobs"
	"github.com/sledge-bench/sledge/internal/metrics"
)

// intervalStore is a repository of one job's intervals, no group run.
type intervalStore []metrics.Interval

func (s intervalStore) Intervals(context.Context, int64) ([]metrics.Interval, error) { return s, nil }
func (s intervalStore) GroupOfJob(context.Context, int64) (jobs.RunGroup, bool, error) {
	return jobs.RunGroup{}, false, nil
}

// TestIntervalLogRefuses: a job without intervals, without the type asked
// for (an *UnknownTxError naming the types it has) or without that type's
// histograms is an error saying which, and nothing is written.
func TestIntervalLogRefuses(t *testing.T) {
	t.Parallel()
	ivs := intervalStore{{Seq: 1, Tx: []metrics.IntervalTx{{Name: "new_order"}, {Name: "payment"}}}}
	for _, tc := range []struct {
		name    string
		store   intervalStore
		tx      string
		want    string
		unknown bool
	}{
		{"no intervals", nil, "new_order", "job 3 (run) has no interval series", false},
		{"unknown type", ivs, "nonesuch", "transaction type nonesuch: job 3 has no such transaction type (it has new_order, payment)", true},
		{"no histograms", ivs, "payment", "job 3 has no interval histograms of payment", false},
	} {
		var w bytes.Buffer
		err := IntervalLog(context.Background(), &w, tc.store, jobs.Job{ID: 3, Kind: jobs.KindRun}, tc.tx)
		var unknown *UnknownTxError
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) || errors.As(err, &unknown) != tc.unknown || w.Len() != 0 {
			t.Errorf("%s: %v (wrote %d bytes), want %q, an unknown type %v", tc.name, err, w.Len(), tc.want, tc.unknown)
		}
		if tc.unknown && unknown.Why() != "job 3 has no such transaction type (it has new_order, payment)" {
			t.Errorf("%s: Why() = %q", tc.name, unknown.Why())
		}
	}
}
