package server

import (
	"cmp"
	"net/http"
	"slices"

	"github.com/sledge-bench/sledge/internal/jobs"
	"github.com/sledge-bench/sledge/internal/report"
)

// topEvents is how many wait events an interval of GET
// /api/jobs/{id}/observed names: enough to explain a stacked class, few
// enough that a long run's answer stays small. The classes carry every
// event's AAS.
const topEvents = 8

// Observed is the answer to GET /api/jobs/{id}/observed: what the job's
// observers saw, per observer and interval, as stored. A job that was not
// observed has no observers and Unavailable saying why.
type Observed struct {
	Observers   []ObserverSeries `json:"observers"`
	Unavailable *string          `json:"unavailable"`
}

// ObserverSeries is one observer's record of a job: the fields of `sledge
// jobs show ID metrics --format json`, with intervals that add the AAS by
// wait class.
type ObserverSeries struct {
	report.ObservationJSON
	// Intervals shadows ObservationJSON's (encoding/json takes the
	// shallower field).
	Intervals []IntervalSeries `json:"intervals"`
}

// IntervalSeries is what an observer saw in one interval: report's
// ObservedInterval with only the top wait events, plus Classes, the
// average active sessions summed per wait class (CPU included), highest
// first.
type IntervalSeries struct {
	report.ObservedInterval
	Classes []ClassAAS `json:"classes"`
}

// ClassAAS is one wait class's average active sessions in an interval.
type ClassAAS struct {
	Class string       `json:"class"`
	AAS   report.Float `json:"aas"`
}

// toObserved shapes the stored observations for the API.
func toObserved(obs []jobs.Observation) Observed {
	out := Observed{Observers: []ObserverSeries{}}
	if len(obs) == 0 {
		why := report.NotObserved
		out.Unavailable = &why
		return out
	}
	for _, o := range report.ToObservations(obs) {
		s := ObserverSeries{ObservationJSON: o, Intervals: []IntervalSeries{}}
		for _, iv := range o.Intervals {
			classes := classesOf(iv.Waits)
			// The stored waits come highest first, but say so here rather
			// than rely on it: the cut keeps the top events.
			slices.SortStableFunc(iv.Waits, func(a, b report.WaitJSON) int { return cmp.Compare(b.AAS, a.AAS) })
			if len(iv.Waits) > topEvents {
				iv.Waits = iv.Waits[:topEvents]
			}
			s.Intervals = append(s.Intervals, IntervalSeries{ObservedInterval: iv, Classes: classes})
		}
		out.Observers = append(out.Observers, s)
	}
	return out
}

// classesOf sums the events' AAS per class, highest first (ties by name,
// so the order is stable).
func classesOf(ws []report.WaitJSON) []ClassAAS {
	by := map[string]float64{}
	for _, w := range ws {
		by[w.Class] += float64(w.AAS)
	}
	out := make([]ClassAAS, 0, len(by))
	for c, v := range by {
		out = append(out, ClassAAS{Class: c, AAS: report.Float(v)})
	}
	slices.SortFunc(out, func(a, b ClassAAS) int {
		if c := cmp.Compare(b.AAS, a.AAS); c != 0 {
			return c
		}
		return cmp.Compare(a.Class, b.Class)
	})
	return out
}

// getObserved is GET /api/jobs/{id}/observed.
func (s *Server) getObserved(w http.ResponseWriter, r *http.Request, j jobs.Job) {
	obs, err := s.store.Observations(r.Context(), j.ID)
	if err != nil {
		apiError(w, http.StatusInternalServerError, "", err.Error())
		return
	}
	writeAPI(w, http.StatusOK, toObserved(obs))
}

// getAgents answers GET /api/jobs/{id}/agents: the agents of a run driven by
// several sledge processes ([] for a job of one).
func (s *Server) getAgents(w http.ResponseWriter, r *http.Request, j jobs.Job) {
	agents, err := s.store.Agents(r.Context(), j.ID)
	if err != nil {
		apiError(w, http.StatusInternalServerError, "", err.Error())
		return
	}
	writeAPI(w, http.StatusOK, report.ToAgents(agents))
}
