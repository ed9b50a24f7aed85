package metrics

import (
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// WriteIntervalLog writes the latency histograms of transaction tx, one line
// per interval in the order given, as an HdrHistogram interval log (format
// 1.3, written by hdrhistogram-go's own HistogramLogWriter), for the
// HdrHistogram tools (HistogramLogProcessor, HistogramLogAnalyzer …).
//
// Values are microseconds (the histograms' unit). The log says so in a
// comment line. Its Interval_Max column is the interval's maximum divided by
// the writer's fixed max-value unit ratio of 1,000,000 (meant for
// nanoseconds to milliseconds; hdrhistogram-go gives no way to set another:
// its HistogramLogOptions has no exported setter), so from microseconds it
// is in seconds; tools that scale values should be told the ratio 1,000
// (microseconds to milliseconds; HistogramLogProcessor -outputValueUnitRatio
// 1000).
//
// Timestamps are relative to start (the log's StartTime and BaseTime, whole
// seconds in the format's header lines): an interval spans
// [start + Elapsed − Length, start + Elapsed], in milliseconds. An interval
// in which tx completed nothing (no histogram, or tx absent) is an empty
// histogram, so the log covers every interval. Lines are untagged (the
// tools read untagged lines by default). It is an error when no interval
// has tx, or when a histogram cannot be decoded.
func WriteIntervalLog(w io.Writer, start time.Time, ivs []Interval, tx string) error {
	found := slices.ContainsFunc(ivs, func(iv Interval) bool {
		return slices.ContainsFunc(iv.Tx, func(t IntervalTx) bool { return t.Name == tx })
	})
	if !found {
		return fmt.Errorf("interval log: no interval has transaction %q", tx)
	}
	startMs := start.UnixMilli()
	lw := hdrhistogram.NewHistogramLogWriter(w)
	lw.SetBaseTime(startMs)
	if err := lw.OutputLogFormatVersion(); err != nil {
		return err
	}
	if err := lw.OutputComment(fmt.Sprintf(
		"[Sledge latency of %s in microseconds; Interval_Max in seconds (max / 1e6); output value unit ratio to milliseconds: 1000]", tx)); err != nil {
		return err
	}
	if err := lw.OutputStartTime(startMs); err != nil {
		return err
	}
	if err := lw.OutputBaseTime(startMs); err != nil {
		return err
	}
	if err := lw.OutputLegend(); err != nil {
		return err
	}
	var empty *hdrhistogram.Histogram
	for _, iv := range ivs {
		var enc []byte
		for _, t := range iv.Tx {
			if t.Name == tx {
				enc = t.Histogram
				break
			}
		}
		var h *hdrhistogram.Histogram
		switch {
		case enc != nil:
			var err error
			if h, err = hdrhistogram.Decode(enc); err != nil {
				return fmt.Errorf("interval log: interval %d, transaction %s: latency histogram: %w", iv.Seq, tx, err)
			}
		case empty == nil:
			empty = newHist()
			fallthrough
		default:
			h = empty
		}
		h.SetStartTimeMs(startMs + (iv.Elapsed - iv.Length).Milliseconds())
		h.SetEndTimeMs(startMs + iv.Elapsed.Milliseconds())
		if err := lw.OutputIntervalHistogram(h); err != nil {
			return err
		}
	}
	return nil
}
