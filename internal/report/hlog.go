package report

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/sledge-bench/sledge/internal/jobs"
	"github.com/sledge-bench/sledge/internal/metrics"
)

// IntervalLogStore is what IntervalLog reads of the repository.
type IntervalLogStore interface {
	Intervals(ctx context.Context, id int64) ([]metrics.Interval, error)
	GroupOfJob(ctx context.Context, id int64) (jobs.RunGroup, bool, error)
}

// UnknownTxError is a transaction type a job has no intervals of
// (IntervalLog); Has are the types it has.
type UnknownTxError struct {
	Tx  string
	Job int64
	Has []string
}

func (e *UnknownTxError) Error() string { return "transaction type " + e.Tx + ": " + e.Why() }

// Why says what is wrong without naming the type, for a front end that
// names it its own way (the CLI's --tx).
func (e *UnknownTxError) Why() string {
	return fmt.Sprintf("job %d has no such transaction type (it has %s)", e.Job, strings.Join(e.Has, ", "))
}

// IntervalLog writes the latency histograms of transaction type tx of run
// j, one per interval, as an HdrHistogram interval log. A job without a
// series, without that type (an *UnknownTxError) or without its
// histograms is an error saying which.
func IntervalLog(ctx context.Context, w io.Writer, s IntervalLogStore, j jobs.Job, tx string) error {
	ivs, err := s.Intervals(ctx, j.ID)
	if err != nil {
		return err
	}
	var names []string
	has := false
	for _, iv := range ivs {
		for _, t := range iv.Tx {
			if !slices.Contains(names, t.Name) {
				names = append(names, t.Name)
			}
			has = has || t.Name == tx && len(t.Histogram) > 0
		}
	}
	switch {
	case len(ivs) == 0:
		return fmt.Errorf("job %d (%s) has no interval series", j.ID, j.Kind)
	case !slices.Contains(names, tx):
		return &UnknownTxError{Tx: tx, Job: j.ID, Has: names}
	case !has:
		return fmt.Errorf("job %d has no interval histograms of %s (recorded before Sledge kept them, or none completed)", j.ID, tx)
	}
	// The intervals' times count from the run's start: the shared start of
	// a run of several agents; else about when the job started (its
	// preparation, a fraction of a second, before).
	start := j.StartedAt
	if g, ok, err := s.GroupOfJob(ctx, j.ID); err != nil {
		return err
	} else if ok && !g.StartAt.IsZero() {
		start = g.StartAt
	}
	return metrics.WriteIntervalLog(w, start, ivs, tx)
}
