// Package metricstest builds the metrics package's values for tests of the
// packages that read them.
package metricstest

import (
	"testing"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// Histogram encodes latencies in microseconds as the collector stores a
// transaction type's (1 µs to 60 s, three significant digits, V2
// compressed), failing t when one is out of range.
func Histogram(t testing.TB, us ...int64) []byte {
	t.Helper()
	h := hdrhistogram.New(1, 60_000_000, 3)
	for _, v := range us {
		if err := h.RecordValue(v); err != nil {
			t.Fatal(err)
		}
	}
	b, err := h.Encode(hdrhistogram.V2CompressedEncodingCookieBase)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
