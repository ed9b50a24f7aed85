package metrics

import (
	"testing"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/sledge-bench/sledge/internal/db"
)

// TestNoZeroLengthInterval: a tick that would make an interval of no length
// makes none, and the events wait for the next tick; events that ended after
// a tick wait for the next interval.
func TestNoZeroLengthInterval(t *testing.T) {
	t.Parallel()
	c := NewCollector([]string{"a"}, 0)
	rec := c.NewRecorder()
	c.StartWindow(0)
	rec.Record(Event{End: 50 * time.Millisecond, Latency: time.Millisecond})
	rec.Record(Event{End: 150 * time.Millisecond, Latency: time.Millisecond})
	iv, ok := c.Tick(100*time.Millisecond, PhaseMeasure)
	if !ok || iv.Length != 100*time.Millisecond || iv.Tx[0].Count != 1 {
		t.Fatalf("first tick: %v %+v, want 100ms with the one event that ended in it", ok, iv)
	}
	if iv, ok := c.Tick(100*time.Millisecond, PhaseMeasure); ok {
		t.Fatalf("a second tick at the same instant made interval %+v", iv)
	}
	if iv, ok := c.Tick(90*time.Millisecond, PhaseMeasure); ok {
		t.Fatalf("a tick before the last made interval %+v", iv)
	}
	iv, ok = c.Tick(200*time.Millisecond, PhaseMeasure)
	if !ok || iv.Seq != 2 || iv.Length != 100*time.Millisecond || iv.Tx[0].Count != 1 || iv.TPM != 600 {
		t.Fatalf("next tick: %v %+v, want seq 2, 100ms, the held-over event, TPM 600", ok, iv)
	}
	c.EndWindow(200 * time.Millisecond)
	rec.Record(Event{End: 199 * time.Millisecond, Latency: time.Millisecond}) // recorded late
	rec.Record(Event{End: 201 * time.Millisecond, Latency: time.Millisecond}) // after the window
	c.Drain()
	if n := c.Summaries()[0].Count; n != 3 {
		t.Fatalf("window count %d, want 3 (the late recording in, the event after the window out)", n)
	}
}

// Overlaps, InWindow and the account's sums.
func TestDisruptionAccount(t *testing.T) {
	t.Parallel()
	s := func(f float64) time.Duration { return time.Duration(f * float64(time.Second)) }
	cases := []struct {
		o    Outage
		want bool
	}{
		{Outage{Start: s(1), Resumed: s(4), Recovered: true}, false},  // over before the window
		{Outage{Start: s(1), Resumed: s(6), Recovered: true}, true},   // into the window
		{Outage{Start: s(1)}, true},                                   // never recovered
		{Outage{Start: s(12), Resumed: s(20), Recovered: true}, true}, // in it
		{Outage{Start: s(31)}, false},                                 // after it
	}
	for _, c := range cases {
		if got := c.o.Overlaps(s(5), s(30)); got != c.want {
			t.Errorf("%+v overlaps 5..30 s: %v, want %v", c.o, got, c.want)
		}
		if got := c.o.Overlaps(s(5), 0); got {
			t.Errorf("%+v overlaps a window that never opened", c.o)
		}
	}
	d := &Disruption{WindowStart: s(5), WindowEnd: s(30), Outages: []Outage{
		{Start: s(10), Resumed: s(12), Recovered: true, Lost: map[string]int64{"connection": 2}},
		{Start: s(20), Resumed: s(27), Recovered: true, Lost: map[string]int64{"connection": 1, "other": 3}},
	}, Connections: []ConnectionEvent{{VU: 1}, {VU: 2}, {VU: 1}}}
	if first, ok := d.FirstError(); !ok || first != s(10) {
		t.Errorf("first error %s %v", first, ok)
	}
	if r, ok := d.Resumed(); !ok || r != s(27) {
		t.Errorf("resumed %s %v", r, ok)
	}
	if ttr, ok := d.LongestTimeToRecover(); !ok || ttr != s(7) {
		t.Errorf("longest time to recover %s %v", ttr, ok)
	}
	if l := d.Lost(); l["connection"] != 3 || l["other"] != 3 || d.VUsAffected() != 2 || !d.InWindow() {
		t.Errorf("lost %v, affected %d, in window %v", l, d.VUsAffected(), d.InWindow())
	}
	d.Outages[1].Recovered = false
	if _, ok := d.Resumed(); ok || d.Recovered() {
		t.Error("an outage not recovered: resumed all the same")
	}
	var none *Disruption
	if _, ok := none.FirstError(); ok || !none.Recovered() || none.InWindow() || none.VUsAffected() != 0 {
		t.Error("a nil account is not empty")
	}
}

// TestEdgeBand: a band counts the headline commits that end within it as
// Tick and Drain take them in — held-over and late-recorded ones too — and
// nothing else: other types, failures, rollbacks, events outside it.
func TestEdgeBand(t *testing.T) {
	t.Parallel()
	ms := func(n int) time.Duration { return time.Duration(n) * time.Millisecond }
	c := NewCollector([]string{"headline", "other"}, 0)
	rec := c.NewRecorder()
	c.StartWindow(0)
	b := c.EdgeBand(ms(90), ms(130))
	var none *EdgeBand
	if none.Count() != 0 {
		t.Fatal("a nil band counts")
	}
	for _, e := range []Event{
		{End: ms(80)},                      // before the band
		{End: ms(90)},                      // its first instant
		{End: ms(95), Tx: 1},               // another type
		{End: ms(99), Outcome: RolledBack}, // not a commit
		{End: ms(99), Outcome: Failed(db.ClassDeadlock)}, // a failure
		{End: ms(100)}, // at the tick
		{End: ms(110)}, // after the tick: held over
	} {
		rec.Record(e)
	}
	if _, ok := c.Tick(ms(100), PhaseMeasure); !ok {
		t.Fatal("no interval")
	}
	rec.Record(Event{End: ms(130)}) // the band's last instant, recorded late
	rec.Record(Event{End: ms(131)}) // after it
	c.Drain()
	if n := b.Count(); n != 4 {
		t.Errorf("band counted %d, want 4 (90, 100, 110 held over, 130 drained)", n)
	}
}

// TestVUTimings: with TrackVUs each VU's window timings per type add up to
// the run's — calls to the completed count, histograms to the window's
// count, the exact sums to the events' — and leave out what the window
// does not count (failures, events outside it); without it there are none.
func TestVUTimings(t *testing.T) {
	t.Parallel()
	ms := func(n int) time.Duration { return time.Duration(n) * time.Millisecond }
	for _, track := range []bool{true, false} {
		c := NewCollector([]string{"a", "b"}, 0)
		if track {
			c.TrackVUs()
		}
		recs := []*Recorder{c.NewRecorder(), c.NewRecorder(), c.NewRecorder()}
		c.StartWindow(ms(100))
		var want [3][2]time.Duration // exact sums per VU and type
		var calls [3][2]int64
		for i := range 300 {
			vu, tx := i%2, i%3%2 // VU 3 (index 2) completes nothing
			e := Event{End: ms(50 + i), Latency: time.Duration(1+i*37%1000) * 13 * time.Microsecond, Tx: uint8(tx)}
			switch i % 7 {
			case 3:
				e.Outcome = RolledBack
			case 5:
				e.Outcome = Failed(db.ClassDeadlock)
			}
			recs[vu].Record(e)
			if e.End >= ms(100) && e.End <= ms(300) && e.Outcome != Failed(db.ClassDeadlock) {
				want[vu][tx] += e.Latency
				calls[vu][tx]++
			}
			if i == 150 {
				c.Tick(ms(180), PhaseMeasure) // an event held over, the rest drained
			}
		}
		recs[2].Record(Event{End: ms(200), Latency: ms(1), Outcome: Failed(db.ClassDeadlock)})
		c.EndWindow(ms(300))
		c.Drain()
		got := c.VUTimings(10)
		if !track {
			if got != nil {
				t.Fatalf("timings kept without TrackVUs: %+v", got)
			}
			continue
		}
		if len(got) != 4 {
			t.Fatalf("%d timings, want 4 (two VUs, two types; the third VU completed none): %+v", len(got), got)
		}
		completed, _ := c.Completed()
		var sumCalls [2]int64
		for i, vt := range got {
			vu, tx := i/2, i%2
			if vt.VU != 11+vu || vt.Tx != []string{"a", "b"}[tx] {
				t.Errorf("timing %d is VU %d %s, want VU %d (numbered after the first 10) %s", i, vt.VU, vt.Tx, 11+vu, []string{"a", "b"}[tx])
			}
			h, err := hdrhistogram.Decode(vt.Histogram)
			if err != nil {
				t.Fatal(err)
			}
			if vt.Calls != calls[vu][tx] || h.TotalCount() != vt.Calls || vt.Total != want[vu][tx] {
				t.Errorf("VU %d %s: %d calls (histogram %d), total %s; want %d, %s", vt.VU, vt.Tx, vt.Calls, h.TotalCount(), vt.Total, calls[vu][tx], want[vu][tx])
			}
			sumCalls[tx] += vt.Calls
		}
		for tx, s := range c.Summaries() {
			h, err := hdrhistogram.Decode(s.Histogram)
			if err != nil {
				t.Fatal(err)
			}
			if sumCalls[tx] != completed[tx] || sumCalls[tx] != h.TotalCount() {
				t.Errorf("%s: the VUs' calls add up to %d, the run completed %d (histogram %d)", s.Name, sumCalls[tx], completed[tx], h.TotalCount())
			}
		}
	}
}
