package server

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/sledge-bench/sledge/internal/app"
	"github.com/sledge-bench/sledge/internal/jobs"
	"github.com/sledge-bench/sledge/internal/report"
)

// sloStore is where SLO searches are read: the server's store when it can
// answer them, else the job service's repository.
func (s *Server) sloStore() app.SLOStore {
	if ss, ok := s.store.(app.SLOStore); ok {
		return ss
	}
	return s.svc.Repo()
}

// getSLO is GET /api/slo/{id}: the SLO search job id belongs to (its
// first job or any step), its curve and answer (report.SLOJSON), for the
// web UI's chart; 404 for no such job or a job of no search.
func (s *Server) getSLO(w http.ResponseWriter, r *http.Request) {
	id, ok := pathID(w, r.PathValue("id"), "id")
	if !ok {
		return
	}
	o, err := app.LoadSLO(r.Context(), s.sloStore(), id)
	switch {
	case errors.Is(err, jobs.ErrNotFound):
		apiError(w, http.StatusNotFound, "id", fmt.Sprintf("no job %d", id))
	case errors.Is(err, app.ErrNotSLO):
		apiError(w, http.StatusNotFound, "id", fmt.Sprintf("job %d is not part of an SLO search", id))
	case err != nil:
		apiError(w, http.StatusInternalServerError, "", err.Error())
	default:
		writeAPI(w, http.StatusOK, report.ToSLO(o))
	}
}
