package report

import (
	"strings"
	"testing"

	"github.com/sledge-bench/sledge/internal/jobs"
)

// TestMissingIntervals: runs of missing intervals with one reason are one
// line; nothing is written for a series without holes.
func TestMissingIntervals(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		missing []jobs.MissingInterval
		want    string
	}{
		{"none", nil, ""},
		{"one", []jobs.MissingInterval{{Seq: 3, Reason: "r"}}, "  interval 3 is missing from the series: r\n"},
		{"runs", []jobs.MissingInterval{{Seq: 5, Reason: "a"}, {Seq: 6, Reason: "a"}, {Seq: 7, Reason: "b"}, {Seq: 9, Reason: "b"}},
			"  intervals 5–6 are missing from the series: a\n  interval 7 is missing from the series: b\n  interval 9 is missing from the series: b\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var b strings.Builder
			if err := MissingIntervals(&b, tc.missing); err != nil {
				t.Fatal(err)
			}
			if b.String() != tc.want {
				t.Errorf("got %q, want %q", b.String(), tc.want)
			}
		})
	}
}
