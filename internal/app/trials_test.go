package app

import (
	"reflect"
	"testing"

	"github.com/sledge-bench/sledge/internal/metrics"
	"github.com/sledge-bench/sledge/internal/report"
)

func TestTrials(t *testing.T) {
	t.Parallel()
	r1, r2 := &metrics.RunResult{NOPM: 1}, &metrics.RunResult{NOPM: 2}
	for _, tc := range []struct {
		name string
		outs []Outcome
		want []report.SeriesTrial
	}{
		{"none", nil, []report.SeriesTrial{}},
		{"two", []Outcome{{ID: 4, Run: r1}, {ID: 5, Run: r2}}, []report.SeriesTrial{{JobID: 4, Run: r1}, {JobID: 5, Run: r2}}},
		{"stopped without a result", []Outcome{{ID: 4, Run: r1}, {ID: 5}}, []report.SeriesTrial{{JobID: 4, Run: r1}, {JobID: 5}}},
	} {
		if got := Trials(tc.outs); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: Trials = %+v, want %+v", tc.name, got, tc.want)
		}
	}
}
