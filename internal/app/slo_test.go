package app

import (
	"context"
	"errors"
	"math"
	"strconv"
	"testing"

	"github.com/sledge-bench/sledge/internal/config"
	"github.com/sledge-bench/sledge/internal/jobs"
	"github.com/sledge-bench/sledge/internal/metrics"
)

// sloStore is an SLOStore in memory: jobs by id, their settings, no
// stored results.
type sloStore struct {
	jobs map[int64]jobs.Job
	cfg  map[int64]map[string]string
}

func (s sloStore) Get(_ context.Context, id int64) (jobs.Job, error) {
	j, ok := s.jobs[id]
	if !ok {
		return jobs.Job{}, jobs.ErrNotFound
	}
	return j, nil
}

func (s sloStore) Config(_ context.Context, id int64) (map[string]string, error) {
	return s.cfg[id], nil
}

func (s sloStore) RunResult(context.Context, int64) (*metrics.RunResult, error) {
	return nil, jobs.ErrNotFound
}

func (s sloStore) JobsWithSetting(_ context.Context, key, value string) ([]int64, error) {
	var ids []int64
	for id := int64(1); id <= int64(len(s.jobs)); id++ {
		if s.cfg[id][key] == value {
			ids = append(ids, id)
		}
	}
	return ids, nil
}

// newSLOStore is a search of steps (status, rate) as jobs 1…, its first
// job recording goals.
func newSLOStore(goals string, steps ...[2]string) sloStore {
	s := sloStore{jobs: map[int64]jobs.Job{}, cfg: map[int64]map[string]string{}}
	for i, st := range steps {
		id := int64(i + 1)
		s.jobs[id] = jobs.Job{ID: id, Kind: jobs.KindRun, Status: st[0]}
		s.cfg[id] = map[string]string{SettingSLO: "1", SettingSLOStep: strconv.Itoa(i + 1), SettingSLOPhase: "step", "rate": st[1]}
	}
	s.cfg[1][SettingSLOGoals] = goals
	return s
}

// TestLoadSLOUnjudged: a step still running (or interrupted) has no result
// yet; read back, it is shown but does not count as a failing rate.
func TestLoadSLOUnjudged(t *testing.T) {
	t.Parallel()
	for _, status := range []string{metrics.StatusRunning, metrics.StatusInterrupted, metrics.StatusFailed} {
		st := newSLOStore("p99(new_order)<50ms", [2]string{metrics.StatusCompleted, "20"}, [2]string{status, "10"})
		o, err := LoadSLO(context.Background(), st, 2)
		if err != nil {
			t.Fatal(err)
		}
		r := o.Result
		if len(r.Steps) != 2 || r.High != 20 || r.Steps[1].Judged() || r.Stopped == "" {
			t.Errorf("%s: %d steps, high %g, step 2 judged %v, stopped %q; want 2, 20 (the completed step's), false, stopped",
				status, len(r.Steps), r.High, len(r.Steps) > 1 && r.Steps[1].Judged(), r.Stopped)
		}
	}
}

// TestLoadSLONoGoals: a search whose first job records no goals is no
// search (ErrNotSLO, a 404), not an error parsing "".
func TestLoadSLONoGoals(t *testing.T) {
	t.Parallel()
	st := newSLOStore("", [2]string{metrics.StatusCompleted, "10"})
	if _, err := LoadSLO(context.Background(), st, 1); !errors.Is(err, ErrNotSLO) {
		t.Errorf("err = %v, want ErrNotSLO", err)
	}
}

// TestSLOSearchOptions: with no max rate the climb stops at the highest
// rate a run offers (the answer "at least" it), not at a step whose run is
// refused.
func TestSLOSearchOptions(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ max, want float64 }{{0, config.MaxRate}, {500, 500}} {
		o := SLORequest{StartRate: 10, MaxRate: tc.max, Precision: 0.05}.searchOptions()
		if o.Max != tc.want || o.Start != 10 || o.Precision != 0.05 || math.IsInf(o.Max, 0) {
			t.Errorf("max rate %g: options %+v, want Max %g", tc.max, o, tc.want)
		}
	}
}
