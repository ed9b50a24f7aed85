package metrics

import (
	"bytes"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// An interval log read back with hdrhistogram-go's reader gives each
// interval's histogram and times.
func TestWriteIntervalLog(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(1, 2))
	c := NewCollector([]string{"new_order", "payment"}, 0)
	rec := c.NewRecorder()
	c.StartWindow(0)
	var ivs []Interval
	for i := 1; i <= 5; i++ {
		end := time.Duration(i) * 10 * time.Second
		if i != 3 { // interval 3 has no new_order
			for range r.IntN(500) + 1 {
				rec.Record(Event{End: end - time.Duration(r.Int64N(int64(10*time.Second))),
					Latency: dists[2].draw(r, 0), Outcome: Outcome(r.IntN(2))})
			}
		}
		rec.Record(Event{End: end, Latency: time.Millisecond, Tx: 1})
		iv, _ := c.Tick(end+time.Duration(i)*time.Millisecond, PhaseMeasure)
		ivs = append(ivs, iv)
	}
	start := time.Date(2026, 11, 24, 8, 0, 0, 0, time.UTC)
	var buf bytes.Buffer
	if err := WriteIntervalLog(&buf, start, ivs, "new_order"); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "microseconds") {
		t.Errorf("the log does not say its unit:\n%s", buf.String())
	}
	rd := hdrhistogram.NewHistogramLogReader(&buf)
	for i, iv := range ivs {
		h, err := rd.NextIntervalHistogram()
		if err != nil || h == nil {
			t.Fatalf("interval %d: %v %v", iv.Seq, h, err)
		}
		var want int64
		if enc := iv.Tx[0].Histogram; enc != nil {
			w := decode(t, enc)
			want = w.TotalCount()
			if !h.Equals(w) {
				t.Errorf("interval %d: the histogram read back differs", iv.Seq)
			}
		} else if i != 2 {
			t.Fatalf("interval %d has no histogram", iv.Seq)
		}
		if h.TotalCount() != want {
			t.Errorf("interval %d: %d values read back, want %d", iv.Seq, h.TotalCount(), want)
		}
		// Times come back through seconds with decimals: to the millisecond.
		wantStart := start.Add(iv.Elapsed - iv.Length).UnixMilli()
		wantEnd := start.Add(iv.Elapsed).UnixMilli()
		if d := h.StartTimeMs() - wantStart; d < -1 || d > 1 {
			t.Errorf("interval %d starts at %d ms, want %d", iv.Seq, h.StartTimeMs(), wantStart)
		}
		if d := h.EndTimeMs() - wantEnd; d < -1 || d > 1 {
			t.Errorf("interval %d ends at %d ms, want %d", iv.Seq, h.EndTimeMs(), wantEnd)
		}
	}
	if h, err := rd.NextIntervalHistogram(); h != nil || err != nil {
		t.Errorf("more than the intervals in the log: %v %v", h, err)
	}

	if err := WriteIntervalLog(&buf, start, ivs, "delivery"); err == nil {
		t.Error("a log of a transaction no interval has: no error")
	}
	bad := []Interval{{Seq: 1, Elapsed: time.Second, Length: time.Second, Tx: []IntervalTx{{Name: "x", Histogram: []byte("??")}}}}
	if err := WriteIntervalLog(&buf, start, bad, "x"); err == nil || !strings.Contains(err.Error(), "interval 1") {
		t.Errorf("an undecodable histogram: %v", err)
	}
}
