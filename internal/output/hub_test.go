package output

import (
	"testing"
	"time"

	"github.com/sledge-bench/sledge/internal/observe"
)

// TestHubObserved: the hub keeps each observer's latest snapshot of a
// running job only, in the run's order, and nothing once the job has
// ended or for a job it does not know.
func TestHubObserved(t *testing.T) {
	t.Parallel()
	snap := func(samples int) observe.Snapshot {
		return observe.Snapshot{Elapsed: time.Duration(samples) * time.Second, Length: time.Second, Samples: samples}
	}
	type cut struct {
		job     int64
		idx     int
		name    string
		samples int
	}
	tests := []struct {
		name string
		cuts []cut
		end  bool
		want []Observed // of job 1; nil: not live, or nothing observed
	}{
		{name: "none"},
		{name: "latest replaces the one before",
			cuts: []cut{{1, 0, "pg", 1}, {1, 0, "pg", 2}, {1, 0, "pg", 3}},
			want: []Observed{{0, "pg", snap(3)}}},
		{name: "by index, in the run's order, names may repeat",
			cuts: []cut{{1, 1, "host", 5}, {1, 0, "host", 4}, {1, 1, "host", 6}},
			want: []Observed{{0, "host", snap(4)}, {1, "host", snap(6)}}},
		{name: "an unknown job is ignored",
			cuts: []cut{{2, 0, "pg", 1}}},
		{name: "an index out of bounds is ignored",
			cuts: []cut{{1, -1, "pg", 1}, {1, maxObservers, "pg", 1}, {1, 2, "pg", 7}},
			want: []Observed{{2, "pg", snap(7)}}},
		{name: "dropped at the job's end, and not recreated by a late cut",
			cuts: []cut{{1, 0, "pg", 1}}, end: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hub := NewHub()
			sink := hub.Open(1, "w")
			for _, c := range tt.cuts {
				hub.Observed(c.job, c.idx, c.name, snap(c.samples))
			}
			if tt.end {
				if err := sink.Close(); err != nil {
					t.Fatal(err)
				}
				hub.Observed(1, 0, "pg", snap(9))
				if live := hub.Live(); len(live) != 0 {
					t.Fatalf("after the end: %+v live", live)
				}
				if len(hub.live) != 0 {
					t.Fatalf("after the end the hub still holds %v", hub.live)
				}
				return
			}
			live := hub.Live()
			if len(live) != 1 || live[0].ID != 1 {
				t.Fatalf("live %+v, want job 1 alone", live)
			}
			got := live[0].Observed
			if len(got) != len(tt.want) {
				t.Fatalf("observed %+v, want %+v", got, tt.want)
			}
			for i := range got {
				if got[i].Index != tt.want[i].Index || got[i].Observer != tt.want[i].Observer ||
					got[i].Snapshot.Samples != tt.want[i].Snapshot.Samples || got[i].Snapshot.Elapsed != tt.want[i].Snapshot.Elapsed {
					t.Errorf("observed[%d] = %+v, want %+v", i, got[i], tt.want[i])
				}
			}
		})
	}
}
