package app

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sledge-bench/sledge/internal/jobs"
	"github.com/sledge-bench/sledge/internal/metrics"
)

// TestServiceInterruptedRunIsStored: a run stopped by its context (Ctrl-C
// through signal.NotifyContext) prints its result and stores it as
// interrupted, with what it measured: the window from its opening to the
// interrupt, not the hour asked for. (Moved from cmd/sledge, whose
// TestInterruptedJobsExit130 keeps the exit status of the command.)
func TestServiceInterruptedRunIsStored(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs on SQLite")
	}
	parallel(t)
	svc, repo := faultService(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	spec := runSpec(tpccSQLite(t, "interrupted.db"), time.Second, time.Hour)
	spec.VU = 2
	// The interrupt comes 2 s into the measured window, on the run's own
	// word that the window is open.
	con := newConsole()
	var mu sync.Mutex
	var seen, stopped time.Time
	go func() {
		select {
		case <-con.when("measuring for"):
		case <-ctx.Done():
			return
		}
		mu.Lock()
		seen = time.Now()
		mu.Unlock()
		time.Sleep(2 * time.Second)
		mu.Lock()
		stopped = time.Now()
		mu.Unlock()
		cancel()
	}()
	o, err := svc.Run(ctx, Request{Spec: spec, Console: con})
	ended := time.Now()
	if err != nil || o.Status != metrics.StatusInterrupted {
		t.Fatalf("interrupted run: %+v, %v\n%s", o, err, con.String())
	}
	if !strings.Contains(con.String(), "TPROC-C result") {
		t.Errorf("no result printed:\n%s", con.String())
	}
	list, err := repo.List(context.Background(), jobs.ListFilter{})
	if err != nil || len(list) != 1 || list[0].Status != metrics.StatusInterrupted {
		t.Fatalf("jobs %+v, %v: want the run, interrupted", list, err)
	}
	res, err := repo.RunResult(context.Background(), o.ID)
	if err != nil || res == nil {
		t.Fatalf("the stored result: %v, %v", res, err)
	}
	if res.Status != metrics.StatusInterrupted || res.NOPM <= 0 {
		t.Fatalf("result: status %s, NOPM %v", res.Status, res.NOPM)
	}
	// At least the 2 s from the window's opening to the interrupt, at most
	// the time from its opening to the run's end.
	mu.Lock()
	defer mu.Unlock()
	if seen.IsZero() || stopped.IsZero() {
		t.Fatalf("the run never said its window opened:\n%s", con.String())
	}
	least, most := stopped.Sub(seen).Seconds()-0.1, ended.Sub(seen).Seconds()+0.5
	if d := res.Measured.Seconds(); d < least || d > most {
		t.Errorf("measured %.2f s, want %.1f to %.1f (interrupted %.1f s after the window opened, the run ended %.1f s after it)",
			d, least, most, stopped.Sub(seen).Seconds(), ended.Sub(seen).Seconds())
	}
}
