package app

import (
	"context"
	"fmt"

	"github.com/sledge-bench/sledge/internal/jobs"
	"github.com/sledge-bench/sledge/internal/metrics"
	"github.com/sledge-bench/sledge/internal/observe"
	"github.com/sledge-bench/sledge/internal/report"
)

// noiseWarnings are the warnings of a noisy client host over the window
// of the run whose series is ivs, from what its observers stored (none
// when they stored nothing it could read: the run's other warnings stand).
func (e *execution) noiseWarnings(ctx context.Context, ivs []metrics.Interval) []string {
	got, err := e.repo().Observations(context.WithoutCancel(ctx), e.id)
	if err != nil {
		return nil
	}
	return report.NoiseWarnings(report.Summarize(got, ivs))
}

// JobNoise answers whether job id's measured window ran on a noisy client
// host, and why, from what the job stored: its host observer's series
// judged against the bounds (observe.JudgeHost). It is nil, with no
// error, for a job whose host was not measured (metrics off, another
// kind of job, one recorded before Sledge measured it); a gate must then
// say it cannot tell.
func JobNoise(ctx context.Context, repo *jobs.Repo, id int64) (*observe.Noise, error) {
	obs, err := repo.Observations(ctx, id)
	if err != nil {
		return nil, fmt.Errorf("noise of job %d: %w", id, err)
	}
	ivs, err := repo.Intervals(ctx, id)
	if err != nil {
		return nil, fmt.Errorf("noise of job %d: %w", id, err)
	}
	sum := report.Summarize(obs, ivs)
	if sum == nil {
		return nil, nil
	}
	for _, s := range sum.Observers {
		if s.Noise != nil {
			return s.Noise, nil
		}
	}
	return nil, nil
}
