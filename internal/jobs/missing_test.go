package jobs

import (
	"context"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/sledge-bench/sledge/internal/metrics"
)

// TestSeriesHoles: an interval marked missing stays so until it is stored;
// MarkSeriesHoles names every hole before the last stored interval and
// forgets the marks of intervals stored since.
func TestSeriesHoles(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, b backend) {
		ctx := context.Background()
		r := b.open(t)
		id, err := r.Create(ctx, Job{Kind: KindRun}, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, seq := range []int{1, 2, 5, 7} {
			if err := r.AddIntervalOnce(ctx, id, metrics.Interval{Seq: seq}); err != nil {
				t.Fatal(err)
			}
		}
		// 3 was lost with its reason; 2 is stored, so a mark of it is ignored.
		if err := r.MarkIntervalsMissing(ctx, id, []MissingInterval{{3, "disk full"}, {2, "no"}}); err != nil {
			t.Fatal(err)
		}
		if err := r.MarkSeriesHoles(ctx, id, "hole"); err != nil {
			t.Fatal(err)
		}
		got, err := r.MissingIntervals(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		want := []MissingInterval{{3, "disk full"}, {4, "hole"}, {6, "hole"}}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("missing %v, want %v", got, want)
		}
		// Interval 4 is handed in later: it is no longer missing.
		if err := r.AddIntervalOnce(ctx, id, metrics.Interval{Seq: 4}); err != nil {
			t.Fatal(err)
		}
		if err := r.MarkSeriesHoles(ctx, id, "hole"); err != nil {
			t.Fatal(err)
		}
		got, _ = r.MissingIntervals(ctx, id)
		if want := []MissingInterval{{3, "disk full"}, {6, "hole"}}; !reflect.DeepEqual(got, want) {
			t.Fatalf("missing after interval 4 came %v, want %v", got, want)
		}
	})
}

// TestHandInTwice: the writes a spool's hand-in uses store nothing twice.
func TestHandInTwice(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, b backend) {
		ctx := context.Background()
		r := b.open(t)
		g, _, err := r.JoinRun(ctx, "twice", Job{Kind: KindRun}, nil, Agent{Segment: "0/1", Host: "h", PID: 1, VUs: 1, JoinedAt: time.Now()}, noCheck)
		if err != nil {
			t.Fatal(err)
		}
		id := g.JobID
		at := time.Date(2026, 1, 2, 3, 4, 5, 6789, time.UTC)
		lines := []OutputLine{{At: at, Line: "a"}, {At: at.Add(time.Millisecond), Line: "b"}}
		iv := metrics.Interval{Seq: 1, Tx: []metrics.IntervalTx{{Name: "t", Count: 2}}, VUs: []metrics.VUInterval{{VU: 1, Commits: 2}}}
		for i := range 2 {
			if err := r.AppendOutputLinesOnce(ctx, id, lines); err != nil {
				t.Fatalf("hand-in %d: %v", i, err)
			}
			if err := r.AddIntervalOnce(ctx, id, iv); err != nil {
				t.Fatalf("hand-in %d: %v", i, err)
			}
			if err := r.AddAgentInterval(ctx, id, "0/1", time.Now(), iv); err != nil {
				t.Fatalf("hand-in %d: %v", i, err)
			}
		}
		out, _ := r.Output(ctx, id)
		ivs, _ := r.Intervals(ctx, id)
		parts, _ := r.AgentIntervals(ctx, id, 0)
		if len(out) != 2 || len(ivs) != 1 || len(parts[1]) != 1 || fmt.Sprint(parts[1][0].VUs) != fmt.Sprint(iv.VUs) {
			t.Fatalf("after two hand-ins: %d lines, %d intervals, %d agent intervals (%v)", len(out), len(ivs), len(parts[1]), parts)
		}
	})
}
