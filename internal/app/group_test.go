package app

import (
	"slices"
	"testing"

	"github.com/sledge-bench/sledge/internal/jobs"
)

// TestUncovered: the parts of a run no agent covers are named as segments.
func TestUncovered(t *testing.T) {
	for _, tc := range []struct {
		segments []string
		want     []string
	}{
		{[]string{"0/3", "1/3", "2/3"}, nil},
		{[]string{"0/3", "2/3"}, []string{"1/3"}},
		{[]string{"1/3"}, []string{"0/3", "2/3"}},
		{[]string{"2/4", "0/4"}, []string{"1/4", "3/4"}},
		{[]string{"0:1/2"}, []string{"1/2"}},
		{[]string{"0/5", "1/5", "4/5"}, []string{"2/5:4/5"}},
		{nil, []string{"0:1"}},
	} {
		var agents []jobs.Agent
		for _, s := range tc.segments {
			agents = append(agents, jobs.Agent{Segment: s})
		}
		if got := uncovered(agents); !slices.Equal(got, tc.want) {
			t.Errorf("uncovered(%v) = %v, want %v", tc.segments, got, tc.want)
		}
	}
}
