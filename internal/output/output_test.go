package output

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sledge-bench/sledge/internal/jobs"
	"github.com/sledge-bench/sledge/internal/metrics"
)

// fakeRepo records what the repository sink writes.
type fakeRepo struct {
	mu        sync.Mutex
	batches   [][]jobs.OutputLine
	intervals []metrics.Interval
}

func (r *fakeRepo) AppendOutputLines(_ context.Context, _ int64, lines []jobs.OutputLine) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.batches = append(r.batches, append([]jobs.OutputLine(nil), lines...))
	return nil
}

func (r *fakeRepo) AddInterval(_ context.Context, _ int64, iv metrics.Interval) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.intervals = append(r.intervals, iv)
	return nil
}

func (r *fakeRepo) lines() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, b := range r.batches {
		for _, l := range b {
			out = append(out, l.Line)
		}
	}
	return out
}

func interval(seq int, vus int) metrics.Interval {
	iv := metrics.Interval{Seq: seq, Phase: metrics.PhaseMeasure, Elapsed: time.Duration(seq) * time.Second,
		Length: time.Second, TPM: 600, NOPM: 240, Tx: []metrics.IntervalTx{{Name: "new_order", Count: 4, Errors: 1}}}
	for v := range vus {
		iv.VUs = append(iv.VUs, metrics.VUInterval{VU: v + 1, State: "running"})
	}
	return iv
}

func TestFanoutSendsEverythingToEverySink(t *testing.T) {
	t.Parallel()
	var console bytes.Buffer
	repo := &fakeRepo{}
	hub := NewHub()
	f := NewFanout(Console(&console), Repository(repo, 1, nil), hub.Open(1, "tprocc"))
	f.SetHeadline(0)
	f.Logf("run job %d", 1)
	f.Text("a\nb\n")
	f.Interval(interval(1, 2))
	f.Flush()
	if got := repo.lines(); strings.Join(got[:3], ",") != "run job 1,a,b" || len(got) != 4 || !strings.Contains(got[3], "new_order p95") {
		t.Errorf("stored lines %q", got)
	}
	if len(repo.intervals) != 1 {
		t.Errorf("stored %d intervals", len(repo.intervals))
	}
	if !strings.Contains(console.String(), "run job 1\na\nb\n[") {
		t.Errorf("console %q", console.String())
	}
	if live := hub.Live(); len(live) != 1 || live[0].Last == nil || live[0].Totals["new_order"].Errors != 1 {
		t.Errorf("hub %+v", live)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	f.Line("after the end") // dropped, no panic
	if len(hub.Live()) != 0 {
		t.Error("the hub still holds an ended job")
	}
	if got := repo.lines(); got[len(got)-1] == "after the end" {
		t.Error("a line after Close was stored")
	}
}

// TestRepositorySinkBatches: lines go to the repository in few writes, not
// one per line, and none is lost at Close.
func TestRepositorySinkBatches(t *testing.T) {
	t.Parallel()
	repo := &fakeRepo{}
	s := Repository(repo, 1, nil)
	const n = 1000
	for i := range n {
		s.Line(fmt.Sprint(i))
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	got := repo.lines()
	if len(got) != n || got[0] != "0" || got[n-1] != fmt.Sprint(n-1) {
		t.Fatalf("stored %d lines", len(got))
	}
	if b := len(repo.batches); b > n/flushLines+2 {
		t.Errorf("%d writes for %d lines", b, n)
	}
}

// TestRepositorySinkFlushesOnItsOwn: a quiet job's lines reach the
// repository without waiting for the job's end.
func TestRepositorySinkFlushesOnItsOwn(t *testing.T) {
	t.Parallel()
	repo := &fakeRepo{}
	s := Repository(repo, 1, nil)
	defer s.Close()
	s.Line("progress")
	deadline := time.Now().Add(5 * flushEvery)
	for len(repo.lines()) == 0 {
		if time.Now().After(deadline) {
			t.Fatal("the line was not flushed in time")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestHubSubscribe(t *testing.T) {
	t.Parallel()
	hub := NewHub()
	if _, _, cancel, ok := hub.Subscribe(9); ok {
		t.Fatal("a job that is not live was found")
	} else {
		cancel()
	}
	sink := hub.Open(9, "tprocc")
	sink.Interval(interval(1, 3))
	sink.Interval(interval(2, 3))
	past, evs, cancel, ok := hub.Subscribe(9)
	if !ok || len(past) != 2 || past[0].Seq != 1 {
		t.Fatalf("past %+v", past)
	}
	// Only the latest interval keeps its per-VU rows.
	if past[0].VUs != nil || len(past[1].VUs) != 3 {
		t.Errorf("VU rows in history: %d, %d", len(past[0].VUs), len(past[1].VUs))
	}
	sink.Interval(interval(3, 3))
	if ev := <-evs; ev.Interval == nil || ev.Interval.Seq != 3 {
		t.Errorf("event %+v", ev)
	}
	_ = sink.Close()
	if ev := <-evs; ev.Interval != nil {
		t.Errorf("want the end event, got %+v", ev)
	}
	if _, open := <-evs; open {
		t.Error("channel open after the end")
	}
	cancel() // after the end: must not close twice
}

// TestHubDropsASlowSubscriber: a subscriber that does not read never stalls
// the run; it is dropped (its channel closed without an end event).
func TestHubDropsASlowSubscriber(t *testing.T) {
	t.Parallel()
	hub := NewHub()
	sink := hub.Open(1, "tprocc")
	_, evs, cancel, _ := hub.Subscribe(1)
	defer cancel()
	done := make(chan struct{})
	go func() {
		for i := range subscriberBuffer + 10 {
			sink.Interval(interval(i+1, 0))
		}
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("publishing stalled on a slow subscriber")
	}
	n := 0
	for ev := range evs {
		if ev.Interval == nil {
			t.Fatal("a dropped subscriber got an end event")
		}
		n++
	}
	if n != subscriberBuffer {
		t.Errorf("got %d events before the drop", n)
	}
}

// TestConsoleProgress: a console prints each interval as its text progress
// line, or with NoProgress none while JSONLines prints it as one JSON
// object a line (and nothing else); the console's other lines are printed
// as they are either way, and the other sinks always get the text line.
func TestConsoleProgress(t *testing.T) {
	t.Parallel()
	for _, asJSON := range []bool{false, true} {
		t.Run(fmt.Sprint("json=", asJSON), func(t *testing.T) {
			t.Parallel()
			var console, progress bytes.Buffer
			repo := &fakeRepo{}
			f := NewFanout(Console(&console), Repository(repo, 1, nil))
			if asJSON {
				f = NewFanout(Console(&console, NoProgress()), JSONLines(&progress), Repository(repo, 1, nil))
			}
			f.SetHeadline(0)
			f.Logf("run job %d", 1)
			iv := interval(10, 2)
			iv.Elapsed += 123456789 * time.Nanosecond // 10.123456789 s: printed to the millisecond
			f.Interval(iv)
			f.Line("TPROC-C result")
			if err := f.Close(); err != nil {
				t.Fatal(err)
			}
			if stored := repo.lines(); len(stored) != 3 || !strings.HasPrefix(stored[1], "[    10s] measure ") {
				t.Errorf("stored lines %q: want the text progress line", stored)
			}
			lines := strings.Split(strings.TrimSuffix(console.String(), "\n"), "\n")
			if !asJSON {
				if len(lines) != 3 || lines[0] != "run job 1" || !strings.HasPrefix(lines[1], "[    10s] measure ") || lines[2] != "TPROC-C result" {
					t.Errorf("console %q", console.String())
				}
				return
			}
			if len(lines) != 2 || lines[0] != "run job 1" || lines[1] != "TPROC-C result" {
				t.Errorf("console %q: want its lines without the progress line", console.String())
			}
			if strings.Count(progress.String(), "\n") != 1 {
				t.Fatalf("JSON lines %q: want one line", progress.String())
			}
			var got struct {
				ElapsedS     *float64 `json:"elapsed_s"`
				Phase        string   `json:"phase"`
				TPM, NOPM    *float64
				Errors       *int64 `json:"errors"`
				Transactions map[string]map[string]float64
			}
			if err := json.Unmarshal(progress.Bytes(), &got); err != nil {
				t.Fatalf("progress line %q: %v", progress.String(), err)
			}
			no, ok := got.Transactions["new_order"]
			if got.ElapsedS == nil || *got.ElapsedS != 10.123 || got.Phase != "measure" || got.TPM == nil || *got.TPM != 600 ||
				got.NOPM == nil || *got.NOPM != 240 || got.Errors == nil || !ok || no["count"] != 4 || no["errors"] != 1 {
				t.Errorf("progress line %q", progress.String())
			}
			for _, k := range []string{"count", "errors", "p50_ms", "p95_ms", "p99_ms", "max_ms"} {
				if _, ok := no[k]; !ok {
					t.Errorf("transaction without %q: %q", k, progress.String())
				}
			}
		})
	}
}
