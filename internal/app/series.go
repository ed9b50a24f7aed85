package app

import (
	"context"
	"fmt"
	"strconv"

	"github.com/sledge-bench/sledge/internal/metrics"
)

// RunSeries runs req's spec n times, one job after the other, as a series
// of trials of one configuration: every job records the series it belongs
// to (setting "series", the first trial's job id) and its place in it
// ("trial", k/n). The series stops at the first trial that fails or is
// interrupted. It returns the trials' outcomes, the last one that stopped
// the series included.
func (s *Service) RunSeries(ctx context.Context, req Request, n int) ([]Outcome, error) {
	if n < 1 {
		return nil, fmt.Errorf("a series needs at least one trial (got %d)", n)
	}
	var (
		out    []Outcome
		series int64
	)
	for k := 1; k <= n; k++ {
		r := req
		r.Settings = map[string]string{"trial": fmt.Sprintf("%d/%d", k, n)}
		for key, v := range req.Settings {
			r.Settings[key] = v
		}
		if series != 0 {
			r.Settings["series"] = strconv.FormatInt(series, 10)
		}
		o, err := s.Run(ctx, r)
		if err != nil {
			return out, err
		}
		if k == 1 {
			series = o.ID
			if err := s.opts.Repo.AddConfig(context.WithoutCancel(ctx), o.ID, map[string]string{"series": strconv.FormatInt(series, 10)}); err != nil {
				fmt.Fprintf(s.opts.Warn, "sledge: warning: cannot record the series of job %d: %v\n", o.ID, err)
			}
		}
		out = append(out, o)
		if o.Run == nil || o.Status == metrics.StatusFailed || o.Status == metrics.StatusInterrupted || ctx.Err() != nil {
			break
		}
	}
	return out, nil
}
