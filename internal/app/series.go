package app

import (
	"context"
	"fmt"
	"strconv"

	"github.com/sledge-bench/sledge/internal/config"
	"github.com/sledge-bench/sledge/internal/metrics"
	"github.com/sledge-bench/sledge/internal/report"
)

// RunSeries runs req's spec n times, one job after the other, as a series
// of trials of one configuration: every job records the series it belongs
// to (setting "series", the first trial's job id) and its place in it
// ("trial", k/n). The series stops at the first trial that fails or is
// interrupted. Between two trials (never before the first or after the
// last) it does what the spec's Between asks (betweenTrials), and every
// trial records it (setting "between"); a between step that fails stops
// the series. It returns the outcomes of the trials that ran (an
// interrupted one that stopped the series included) and, when a trial
// failed or a between step did, the error that stopped the series: the
// trials before it are kept.
func (s *Service) RunSeries(ctx context.Context, req Request, n int) ([]Outcome, error) {
	if n < 1 || n > MaxTrials {
		return nil, config.FieldErrors{{Field: "repeat", Msg: fmt.Sprintf("must be between 1 and %d trials (got %d)", MaxTrials, n)}}
	}
	if _, p, err := s.validate(req.Spec); err != nil {
		return nil, err
	} else if n > 1 && !p.Segment.IsWhole() {
		return nil, config.FieldErrors{{Field: "segment", Msg: fmt.Sprintf(
			"segment %s: a series of trials runs on one machine, not split over agents (repeat the agents' run instead)", p.Segment)}}
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
		if b := req.Spec.Between; b != "" && b != config.BetweenNone {
			r.Settings["between"] = b
		}
		if k > 1 {
			if err := s.betweenTrials(ctx, r); err != nil {
				return out, fmt.Errorf("after trial %d of %d: %w", k-1, n, err)
			}
		}
		o, err := s.Run(ctx, r)
		if err != nil && k > 1 {
			return out, fmt.Errorf("trial %d of %d: %w", k, n, err)
		}
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

// Trials are the outcomes of a series' trials (RunSeries) as report.Series
// writes them: each job with its run's result.
func Trials(outs []Outcome) []report.SeriesTrial {
	trials := make([]report.SeriesTrial, len(outs))
	for i, o := range outs {
		trials[i] = report.SeriesTrial{JobID: o.ID, Run: o.Run, Thresholds: o.Thresholds}
	}
	return trials
}
