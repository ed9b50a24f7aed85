package metrics

import (
	"testing"
	"time"
)

// TestRecorderKeepsGrownBuffers: a VU's two buffers start small, grow to
// an interval's events and are then swapped, not reallocated, so a busy VU
// records without allocating once warmed up.
// Not parallel: testing.AllocsPerRun refuses it.
func TestRecorderKeepsGrownBuffers(t *testing.T) {
	c := NewCollector([]string{"a"}, 0)
	r := c.NewRecorder()
	if cap(r.buf) != recorderStart || cap(c.spares[0]) != recorderStart {
		t.Fatalf("new recorder: buffers of %d and %d events, want %d", cap(r.buf), cap(c.spares[0]), recorderStart)
	}
	now := time.Duration(0)
	interval := func() {
		for range 500 {
			now += time.Microsecond
			r.Record(Event{End: now, Latency: time.Microsecond})
		}
		now += time.Millisecond
		if _, ok := c.Tick(now, "measure"); !ok {
			t.Fatal("no interval")
		}
	}
	interval()
	interval()
	grown := [2]int{cap(r.buf), cap(c.spares[0])}
	if min(grown[0], grown[1]) < 500 {
		t.Fatalf("after two intervals of 500 events: buffers of %v events", grown)
	}
	allocs := testing.AllocsPerRun(3, func() {
		r.buf = r.buf[:0]
		for range 500 {
			now += time.Microsecond
			r.Record(Event{End: now, Latency: time.Microsecond})
		}
	})
	r.buf = r.buf[:0]
	interval()
	if allocs != 0 || [2]int{cap(r.buf), cap(c.spares[0])} != grown && [2]int{cap(c.spares[0]), cap(r.buf)} != grown {
		t.Errorf("recording into grown buffers: %v allocations per interval, buffers %v → %d, %d", allocs, grown, cap(r.buf), cap(c.spares[0]))
	}
}
