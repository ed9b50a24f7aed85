package server

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"

	"github.com/sledge-bench/sledge/internal/app"
	"github.com/sledge-bench/sledge/internal/jobs"
	"github.com/sledge-bench/sledge/internal/report"
)

// profileStore is where profiles and comparisons are read: the server's
// store when it can answer them, else the job service's repository.
func (s *Server) profileStore() app.ProfileStore {
	if ps, ok := s.store.(app.ProfileStore); ok {
		return ps
	}
	return s.svc.Repo()
}

func (s *Server) reportStore() report.Store {
	if rs, ok := s.store.(report.Store); ok {
		return rs
	}
	return s.svc.Repo()
}

// listProfiles is GET /api/profiles: the profiles in the repository,
// newest first (sledge profile list --format json).
func (s *Server) listProfiles(w http.ResponseWriter, r *http.Request) {
	ps, err := app.ListProfiles(r.Context(), s.profileStore())
	if err != nil {
		apiError(w, http.StatusInternalServerError, "", err.Error())
		return
	}
	writeAPI(w, http.StatusOK, report.ToProfiles(ps))
}

// getProfile is GET /api/profiles/{id}: the profile job id belongs to (id
// is its first job or any of its jobs); 404 for no such job or a job of no
// profile.
func (s *Server) getProfile(w http.ResponseWriter, r *http.Request) {
	id, ok := pathID(w, r.PathValue("id"), "id")
	if !ok {
		return
	}
	p, err := app.LoadProfile(r.Context(), s.profileStore(), id)
	switch {
	case errors.Is(err, jobs.ErrNotFound):
		apiError(w, http.StatusNotFound, "id", fmt.Sprintf("no job %d", id))
	case errors.Is(err, app.ErrNotProfile):
		apiError(w, http.StatusNotFound, "id", fmt.Sprintf("job %d is not part of a profile", id))
	case err != nil:
		apiError(w, http.StatusInternalServerError, "", err.Error())
	default:
		writeAPI(w, http.StatusOK, report.ToProfile(p))
	}
}

// compare is GET /api/compare?a=A&b=B: the verdict sledge compare A B
// gives on B against A (report.CompareJSON): step by step for two
// profiles (both the first jobs of profiles), else jobs diff's verdict.
func (s *Server) compare(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	var ids [2]int64
	for i, name := range []string{"a", "b"} {
		id, ok := pathID(w, q.Get(name), name)
		if !ok {
			return
		}
		ids[i] = id
	}
	ctx := r.Context()
	var js [2]jobs.Job
	for i, id := range ids {
		j, err := s.store.Get(ctx, id)
		if errors.Is(err, jobs.ErrNotFound) {
			apiError(w, http.StatusNotFound, []string{"a", "b"}[i], fmt.Sprintf("no job %d", id))
			return
		}
		if err != nil {
			apiError(w, http.StatusInternalServerError, "", err.Error())
			return
		}
		js[i] = j
	}
	a, b, profiles, err := app.ProfilePair(ctx, s.profileStore(), ids[0], ids[1])
	if err != nil {
		apiError(w, http.StatusInternalServerError, "", err.Error())
		return
	}
	if profiles {
		writeAPI(w, http.StatusOK, report.ToProfilesCompare(a, b))
		return
	}
	rs := s.reportStore()
	var sides [2]report.DiffSide
	for i, j := range js {
		d, err := report.LoadDiffSide(ctx, rs, j)
		if err != nil {
			apiError(w, http.StatusInternalServerError, "", err.Error())
			return
		}
		sides[i] = d
	}
	writeAPI(w, http.StatusOK, report.ToJobsCompare(sides[0], sides[1]))
}

// pathID reads a job id parameter, answering 400 itself when it is not one.
func pathID(w http.ResponseWriter, v, name string) (int64, bool) {
	id, err := strconv.ParseInt(v, 10, 64)
	if err != nil || id < 1 {
		apiError(w, http.StatusBadRequest, name, name+" must be a positive integer (a job id)")
		return 0, false
	}
	return id, true
}
