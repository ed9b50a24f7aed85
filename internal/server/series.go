package server

import (
	"errors"
	"fmt"
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/sledge-bench/sledge/internal/jobs"
	"github.com/sledge-bench/sledge/internal/metrics"
	"github.com/sledge-bench/sledge/internal/report"
	"github.com/sledge-bench/sledge/internal/stats"
)

// SeriesJSON is the answer to GET /api/series/{id}: the trials of a series
// (sledge run --repeat N, or a profile step's repeats) and their mean,
// standard deviation and 95% confidence interval of the mean, as `sledge
// run --repeat` prints them.
type SeriesJSON struct {
	// ID is the series: its first trial's job id.
	ID string `json:"id"`
	// Planned is the trials the series was asked for (n of "k/n"); 0 when
	// no trial says.
	Planned int               `json:"planned"`
	Trials  []SeriesTrialJSON `json:"trials"`
	// The summaries are over the trials that measured a window; SD and the
	// CI need two of them.
	NOPM  SummaryJSON `json:"nopm"`
	TPM   SummaryJSON `json:"tpm"`
	P95MS SummaryJSON `json:"p95_ms"` // New-Order p95, ms
}

// SeriesTrialJSON is one trial of a series; figures it has not (yet) are
// null.
type SeriesTrialJSON struct {
	JobID  string       `json:"job_id"`
	Trial  string       `json:"trial"`  // "k/n"
	Status string       `json:"status"` // the job's
	NOPM   report.Float `json:"nopm"`
	TPM    report.Float `json:"tpm"`
	P95MS  report.Float `json:"p95_ms"` // New-Order p95
}

// SummaryJSON describes one figure over a series' trials (stats.Summary).
type SummaryJSON struct {
	N        int          `json:"n"`
	Mean     report.Float `json:"mean"`
	SD       report.Float `json:"sd"`
	CI95Low  report.Float `json:"ci95_low"`
	CI95High report.Float `json:"ci95_high"`
}

func toSummary(xs []float64) SummaryJSON {
	s := stats.SummarizeNonNegative(xs)
	return SummaryJSON{N: s.N, Mean: report.Float(s.Mean), SD: report.Float(s.SD),
		CI95Low: report.Float(s.CI95Low), CI95High: report.Float(s.CI95High)}
}

// errNotSeries says a job belongs to no series.
var errNotSeries = errors.New("not part of a series")

// getSeriesTrials is GET /api/series/{id}: the series job id belongs to (id
// is its first trial or any of its trials); 404 for no such job or a job
// of no series.
func (s *Server) getSeriesTrials(w http.ResponseWriter, r *http.Request) {
	id, ok := pathID(w, r.PathValue("id"), "id")
	if !ok {
		return
	}
	out, err := s.loadSeries(r, id)
	switch {
	case errors.Is(err, jobs.ErrNotFound):
		apiError(w, http.StatusNotFound, "id", fmt.Sprintf("no job %d", id))
	case errors.Is(err, errNotSeries):
		apiError(w, http.StatusNotFound, "id", fmt.Sprintf("job %d is not part of a series", id))
	case err != nil:
		apiError(w, http.StatusInternalServerError, "", err.Error())
	default:
		writeAPI(w, http.StatusOK, out)
	}
}

func (s *Server) loadSeries(r *http.Request, id int64) (SeriesJSON, error) {
	ctx, st := r.Context(), s.profileStore()
	if _, err := st.Get(ctx, id); err != nil {
		return SeriesJSON{}, err
	}
	cfg, err := st.Config(ctx, id)
	if err != nil {
		return SeriesJSON{}, err
	}
	// The first trial is marked with its series once it has ended: until
	// then its "trial" setting alone says it starts one.
	root := id
	if v := cfg["series"]; v != "" {
		if root, err = strconv.ParseInt(v, 10, 64); err != nil || root < 1 {
			return SeriesJSON{}, fmt.Errorf("job %d: series %q: %w", id, v, errNotSeries)
		}
	} else if cfg["trial"] == "" {
		return SeriesJSON{}, fmt.Errorf("job %d: %w", id, errNotSeries)
	}
	ids, err := st.JobsWithSetting(ctx, "series", strconv.FormatInt(root, 10))
	if err != nil {
		return SeriesJSON{}, err
	}
	if !slices.Contains(ids, root) {
		ids = append([]int64{root}, ids...)
	}
	out := SeriesJSON{ID: strconv.FormatInt(root, 10), Trials: []SeriesTrialJSON{}}
	var nopm, tpm, p95 []float64
	for _, tid := range ids {
		j, err := st.Get(ctx, tid)
		if errors.Is(err, jobs.ErrNotFound) {
			continue // deleted meanwhile
		}
		if err != nil {
			return SeriesJSON{}, err
		}
		if j.Kind != jobs.KindRun {
			continue // a rebuild between trials records the series too
		}
		tc, err := st.Config(ctx, tid)
		if err != nil {
			return SeriesJSON{}, err
		}
		t := SeriesTrialJSON{JobID: strconv.FormatInt(tid, 10), Trial: tc["trial"], Status: j.Status,
			NOPM: report.Float(math.NaN()), TPM: report.Float(math.NaN()), P95MS: report.Float(math.NaN())}
		if _, n, ok := strings.Cut(t.Trial, "/"); ok {
			if k, err := strconv.Atoi(n); err == nil && k > out.Planned {
				out.Planned = k
			}
		}
		res, err := st.RunResult(ctx, tid)
		if err != nil {
			return SeriesJSON{}, err
		}
		if res != nil && res.Measured > 0 {
			t.NOPM, t.TPM = report.Float(res.NOPM), report.Float(res.TPM)
			nopm, tpm = append(nopm, res.NOPM), append(tpm, res.TPM)
			if p := newOrderP95(res); !math.IsNaN(p) {
				t.P95MS = report.Float(p)
				p95 = append(p95, p)
			}
		}
		out.Trials = append(out.Trials, t)
	}
	out.NOPM, out.TPM, out.P95MS = toSummary(nopm), toSummary(tpm), toSummary(p95)
	return out, nil
}

// newOrderP95 is a result's New-Order p95 in ms; NaN without New-Orders.
func newOrderP95(r *metrics.RunResult) float64 {
	for _, tx := range r.Tx {
		if tx.Name == "new_order" && tx.Count > 0 {
			return float64(tx.P95.Microseconds()) / 1000
		}
	}
	return math.NaN()
}
