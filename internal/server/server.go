// Package server is Sledge's HTTP API (`sledge serve`): its routes and wire
// types, its OpenAPI document, and the client the CLI uses to drive a
// server (--server URL).
//
// Jobs are started through the job service (app.Service), exactly as the CLI
// starts them; the API body of POST /api/jobs is a config.Spec. What a job
// records is read back from the jobs repository (Store); what a running job
// reports live (intervals, its end) comes from the output hub, so watching a
// job (the event stream, /metrics) never polls the repository.
//
// Every request first passes the guard (guard.go): a Host the server does
// not answer to, and a state-changing request from another site (not
// application/json, a foreign Origin or Sec-Fetch-Site), are refused with
// 403 before any handler runs. Which databases a job may use is the job
// service's target policy (app.TargetPolicy); a target outside it is 403
// naming db.
package server

import (
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/sledge-bench/sledge/internal/app"
	"github.com/sledge-bench/sledge/internal/config"
	"github.com/sledge-bench/sledge/internal/jobs"
	"github.com/sledge-bench/sledge/internal/metrics"
	"github.com/sledge-bench/sledge/internal/output"
	"github.com/sledge-bench/sledge/internal/report"
	"github.com/sledge-bench/sledge/internal/threshold"
	"github.com/sledge-bench/sledge/internal/webui"
	"github.com/sledge-bench/sledge/internal/workload"
)

// Store is what the server reads of the jobs repository (and deletes);
// *jobs.Repo is one. Result getters return nil (and no error) for a job
// without that result; Get's error for an unknown id matches
// jobs.ErrNotFound.
type Store interface {
	List(ctx context.Context, f jobs.ListFilter) ([]jobs.Job, error)
	Get(ctx context.Context, id int64) (jobs.Job, error)
	Delete(ctx context.Context, id int64) error
	RunResult(ctx context.Context, id int64) (*metrics.RunResult, error)
	AnalyticResult(ctx context.Context, id int64) (*metrics.AnalyticResult, error)
	Intervals(ctx context.Context, id int64) ([]metrics.Interval, error)
	Config(ctx context.Context, id int64) (map[string]string, error)
	Output(ctx context.Context, id int64) ([]jobs.OutputLine, error)
	// Observations is nil (and no error) for a job not observed.
	Observations(ctx context.Context, id int64) ([]jobs.Observation, error)
	// Agents is nil (and no error) for a job run by one process.
	Agents(ctx context.Context, id int64) ([]jobs.Agent, error)
	// Thresholds is nil (and no error) for a job without thresholds.
	Thresholds(ctx context.Context, id int64) ([]threshold.Verdict, error)
}

var _ Store = (*jobs.Repo)(nil)

// maxBody bounds the body of POST /api/jobs.
const maxBody = 1 << 20

// Server is the HTTP API over a job service.
type Server struct {
	svc   *app.Service
	store Store
	hub   *output.Hub
	token string
	// hosts are the names the server answers to besides the address a
	// connection came in on (SetAllowedHosts).
	hosts []hostPattern

	// base is the context jobs run under: it outlives the request that
	// started them and ends with Shutdown.
	base       context.Context
	cancelBase context.CancelFunc
}

// New returns the API of svc. store is the repository svc records its jobs
// in (or a view of it); hub, required, is the live hub svc's jobs report to
// (app.Options.Hub). token, if not empty, is the bearer token every API
// request must send.
func New(svc *app.Service, store Store, hub *output.Hub, token string) *Server {
	base, cancel := context.WithCancel(context.Background())
	return &Server{svc: svc, store: store, hub: hub, token: token, base: base, cancelBase: cancel}
}

// Shutdown stops every job the server runs (they record themselves as
// interrupted with what they measured) and waits for them to end, or for
// ctx to end. Jobs started after it are stopped at once.
func (s *Server) Shutdown(ctx context.Context) {
	s.cancelBase()
	s.svc.StopAll()
	s.svc.Wait(ctx)
}

// Handler is the API (/api/…), the Prometheus metrics (/metrics),
// HammerDB's jobs web service (/jobs) and the web UI (everything else).
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /api/openapi.json", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(openAPIDoc)
	})
	mux.HandleFunc("GET /api/targets", s.listTargets)
	mux.HandleFunc("GET /api/jobs", s.listJobs)
	mux.HandleFunc("POST /api/jobs", s.startJob)
	mux.HandleFunc("GET /api/jobs/{id}", s.withJob(s.getJob))
	mux.HandleFunc("DELETE /api/jobs/{id}", s.withJob(s.deleteJob))
	mux.HandleFunc("POST /api/jobs/{id}/stop", s.withJob(s.stopJob))
	mux.HandleFunc("GET /api/jobs/{id}/result", s.withJob(s.getResult))
	mux.HandleFunc("GET /api/jobs/{id}/timing", s.withJob(s.getTiming))
	mux.HandleFunc("GET /api/jobs/{id}/series", s.withJob(s.getSeries))
	mux.HandleFunc("GET /api/jobs/{id}/audit", s.withJob(s.getAudit))
	mux.HandleFunc("GET /api/jobs/{id}/config", s.withJob(s.getConfig))
	mux.HandleFunc("GET /api/jobs/{id}/output", s.withJob(s.getOutput))
	mux.HandleFunc("GET /api/jobs/{id}/observed", s.withJob(s.getObserved))
	mux.HandleFunc("GET /api/jobs/{id}/agents", s.withJob(s.getAgents))
	mux.HandleFunc("GET /api/jobs/{id}/events", s.withJob(s.events))
	mux.HandleFunc("GET /api/jobs/{id}/export", s.withJob(s.exportJob)) // export.go
	mux.HandleFunc("POST /api/jobs/import", s.importJobs)               // export.go
	mux.HandleFunc("GET /api/profiles", s.listProfiles)                 // profiles.go
	mux.HandleFunc("GET /api/profiles/{id}", s.getProfile)              // profiles.go
	mux.HandleFunc("GET /api/compare", s.compare)                       // profiles.go
	mux.HandleFunc("GET /api/series/{id}", s.getSeriesTrials)           // series.go
	mux.HandleFunc("GET /api/view/{name}", s.view)                      // view.go
	mux.HandleFunc("GET /api/slo/{id}", s.getSLO)                       // slo.go
	// The API's own mux answers unknown paths with 404 and known paths with
	// the wrong method with 405 (a GET never reaches a state-changing
	// handler); everything else is the web UI.
	top := http.NewServeMux()
	top.Handle("/api/", mux)
	reg := prometheus.NewRegistry()
	reg.MustRegister(newJobCollector(s.hub))
	top.Handle("GET /metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	// HammerDB's web service (hammerws.go); the web UI's own routes are
	// fragments (#/jobs/ID), so /jobs is free for it.
	top.HandleFunc("GET /jobs", s.hammerJobs)
	top.HandleFunc("GET /jobs/{$}", s.hammerJobs) // "/jobs/?jobid=…" is HammerDB's too, never the UI page
	top.Handle("/", webui.Handler())
	return s.guard(s.auth(top))
}

// auth checks the bearer token on every API request when one is set. The UI
// files themselves are public: they hold no data.
func (s *Server) auth(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		protected := strings.HasPrefix(r.URL.Path, "/api/") && r.URL.Path != "/api/openapi.json" || r.URL.Path == "/metrics" || r.URL.Path == "/jobs" || r.URL.Path == "/jobs/"
		if s.token != "" && protected {
			got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
			if !ok || subtle.ConstantTimeCompare([]byte(got), []byte(s.token)) != 1 {
				w.Header().Set("WWW-Authenticate", `Bearer realm="sledge"`)
				apiError(w, http.StatusUnauthorized, "", "missing or wrong bearer token")
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

// ErrorBody is the body of every error answer: the message and, when the
// error is about one setting or parameter, its name.
type ErrorBody struct {
	Error string `json:"error"`
	Field string `json:"field,omitempty"`
}

// Created is the answer to POST /api/jobs.
type Created struct {
	ID string `json:"id"`
}

// Stopping is the answer to POST /api/jobs/{id}/stop.
type Stopping struct {
	ID     string `json:"id"`
	Status string `json:"status"` // "stopping"
}

func apiError(w http.ResponseWriter, code int, field, msg string) {
	writeAPI(w, code, ErrorBody{Error: msg, Field: field})
}

func writeAPI(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	_ = enc.Encode(v)
}

// withJob resolves {id} to a job, answering 400 or 404 itself.
func (s *Server) withJob(fn func(http.ResponseWriter, *http.Request, jobs.Job)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
		if err != nil || id < 1 {
			apiError(w, http.StatusBadRequest, "id", "job id must be a positive integer")
			return
		}
		j, err := s.store.Get(r.Context(), id)
		if errors.Is(err, jobs.ErrNotFound) {
			apiError(w, http.StatusNotFound, "id", fmt.Sprintf("no job %d", id))
			return
		}
		if err != nil {
			apiError(w, http.StatusInternalServerError, "", err.Error())
			return
		}
		fn(w, r, j)
	}
}

func (s *Server) listJobs(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	f := jobs.ListFilter{Kind: q.Get("kind"), Status: q.Get("status")}
	if fields := config.Fields(f.Validate()); fields != nil {
		apiError(w, http.StatusBadRequest, fields[0].Field, fields[0].Msg)
		return
	}
	limit, offset := 0, 0
	for _, c := range []struct {
		name string
		dst  *int
	}{{"limit", &limit}, {"offset", &offset}} {
		if v := q.Get(c.name); v != "" {
			n, err := strconv.Atoi(v)
			if err != nil || n < 0 {
				apiError(w, http.StatusBadRequest, c.name, c.name+" must be a non-negative integer")
				return
			}
			*c.dst = n
		}
	}
	name := q.Get("workload")
	if name != "" {
		wl, err := workload.Lookup(name)
		if err != nil {
			apiError(w, http.StatusBadRequest, "workload", "workload "+err.Error())
			return
		}
		name = wl.Name()
	}
	list, err := s.store.List(r.Context(), f)
	if err != nil {
		apiError(w, http.StatusInternalServerError, "", err.Error())
		return
	}
	out := []report.JobJSON{}
	for _, j := range list {
		if name != "" && j.Workload != name {
			continue
		}
		out = append(out, report.ToJob(j))
	}
	offset = min(offset, len(out))
	out = out[offset:]
	if limit > 0 && limit < len(out) {
		out = out[:limit]
	}
	writeAPI(w, http.StatusOK, out)
}

// startJob is POST /api/jobs: the body is a config.Spec. Nothing invalid
// becomes a job: a body that does not decode or a spec the service refuses
// is 400 naming the field, a target outside the server's target policy 403
// (field db), a target that cannot be used 422.
func (s *Server) startJob(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBody))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			apiError(w, http.StatusBadRequest, "", fmt.Sprintf("body: larger than %d bytes", maxBody))
			return
		}
		apiError(w, http.StatusBadRequest, "", "read body: "+err.Error())
		return
	}
	spec, err := config.Decode(body)
	if err != nil {
		apiError(w, http.StatusBadRequest, firstField(err), err.Error())
		return
	}
	if spec.Between != "" && spec.Between != config.BetweenNone {
		// A job of the API is one trial: there is no "between" to do.
		apiError(w, http.StatusBadRequest, "between", "between applies between the trials of a series (sledge run --repeat N) or a profile, not to one job")
		return
	}
	if s.base.Err() != nil {
		apiError(w, http.StatusServiceUnavailable, "", "the server is shutting down")
		return
	}
	j, err := s.svc.Start(s.base, app.Request{Spec: spec})
	if err != nil {
		var pe *app.PolicyError
		if errors.As(err, &pe) {
			// Outside the server's target policy: nothing was created or
			// dialled.
			apiError(w, http.StatusForbidden, pe.Field(), err.Error())
			return
		}
		if fe := config.Fields(err); len(fe) > 0 {
			apiError(w, http.StatusBadRequest, fe[0].Field, err.Error())
			return
		}
		// A target that cannot be used (app.TargetError), an unreachable
		// database, a failed build before a first run: the request was
		// well-formed but could not be carried out.
		apiError(w, http.StatusUnprocessableEntity, "", err.Error())
		return
	}
	writeAPI(w, http.StatusCreated, Created{ID: strconv.FormatInt(j.ID, 10)})
}

// Targets is the answer to GET /api/targets: what a job's db may name.
type Targets struct {
	// Targets are the targets the server names: name and kind, never the
	// URL.
	Targets []app.NamedTarget `json:"targets"`
	// Embedded says a job may also name an embedded database inside the
	// server's data directory (sqlite:PATH, duckdb:PATH; relative paths
	// are taken there) or leave db out for the workload's default.
	Embedded bool `json:"embedded"`
	// AllowAny says the server takes any target (--allow-any-target, or
	// no policy at all).
	AllowAny bool `json:"allow_any"`
}

func (s *Server) listTargets(w http.ResponseWriter, r *http.Request) {
	named, any := s.svc.Targets()
	writeAPI(w, http.StatusOK, Targets{Targets: named, Embedded: true, AllowAny: any})
}

// firstField is the field of err's first field error ("" for none).
func firstField(err error) string {
	if fe := config.Fields(err); len(fe) > 0 {
		return fe[0].Field
	}
	return ""
}

// getJob is the job's record, with a run's thresholds and their verdicts.
func (s *Server) getJob(w http.ResponseWriter, r *http.Request, j jobs.Job) {
	out := report.ToJob(j)
	vs, err := s.store.Thresholds(r.Context(), j.ID)
	if err != nil {
		apiError(w, http.StatusInternalServerError, "", err.Error())
		return
	}
	out.Thresholds = report.ToThresholds(vs)
	writeAPI(w, http.StatusOK, out)
}

// deleteJob deletes a job and everything recorded with it. A running job
// is refused (409, the words of jobs.RunningError) unless force=true, as
// `sledge jobs delete --force` deletes it locally: one this server runs is
// stopped first, and deleted once it has recorded its end (so that nothing
// writes to it after); one another process runs is deleted as it stands.
func (s *Server) deleteJob(w http.ResponseWriter, r *http.Request, j jobs.Job) {
	force := false
	if v := r.URL.Query().Get("force"); v != "" {
		var err error
		if force, err = strconv.ParseBool(v); err != nil {
			apiError(w, http.StatusBadRequest, "force", fmt.Sprintf("force %q: want true or false", v))
			return
		}
	}
	if j.Status == metrics.StatusRunning {
		if !force {
			apiError(w, http.StatusConflict, "id", (&jobs.RunningError{ID: j.ID, PID: j.PID, Host: j.Host}).Error())
			return
		}
		if rj, ok := s.svc.Running(j.ID); ok {
			rj.Stop()
			select {
			case <-rj.Done():
			case <-r.Context().Done():
				return
			}
		}
	}
	if err := s.store.Delete(r.Context(), j.ID); err != nil {
		apiError(w, http.StatusInternalServerError, "", err.Error())
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

func (s *Server) stopJob(w http.ResponseWriter, r *http.Request, j jobs.Job) {
	// A job that has recorded its end is not running, though the service
	// may still be tidying up after it.
	if j.Status != metrics.StatusRunning || !s.svc.Stop(j.ID) {
		apiError(w, http.StatusConflict, "id", fmt.Sprintf("job %d is not running in this server (status %s)", j.ID, j.Status))
		return
	}
	writeAPI(w, http.StatusAccepted, Stopping{ID: strconv.FormatInt(j.ID, 10), Status: "stopping"})
}

// getResult answers with whichever result the job stored: an analytic
// run's, else an OLTP run's (the stored data, not the workload's name, says
// which).
func (s *Server) getResult(w http.ResponseWriter, r *http.Request, j jobs.Job) {
	a, err := s.store.AnalyticResult(r.Context(), j.ID)
	if err != nil {
		apiError(w, http.StatusInternalServerError, "", err.Error())
		return
	}
	if a != nil {
		writeAPI(w, http.StatusOK, report.ToAnalytic(j.ID, a))
		return
	}
	res, err := s.store.RunResult(r.Context(), j.ID)
	if err != nil {
		apiError(w, http.StatusInternalServerError, "", err.Error())
		return
	}
	if res == nil {
		apiError(w, http.StatusNotFound, "", report.NoSection(j, "result").Error())
		return
	}
	out := report.ToResult(j.ID, res)
	// As `sledge jobs show ID result --format json`: the observers'
	// summary over the measured window, which the interval series places.
	obs, err := s.store.Observations(r.Context(), j.ID)
	if err != nil {
		apiError(w, http.StatusInternalServerError, "", err.Error())
		return
	}
	var ivs []metrics.Interval
	if len(obs) > 0 {
		if ivs, err = s.store.Intervals(r.Context(), j.ID); err != nil {
			apiError(w, http.StatusInternalServerError, "", err.Error())
			return
		}
	}
	out.WithObserved(obs, ivs)
	writeAPI(w, http.StatusOK, out)
}

func (s *Server) getTiming(w http.ResponseWriter, r *http.Request, j jobs.Job) {
	res, err := s.store.RunResult(r.Context(), j.ID)
	if err != nil || res == nil {
		apiError(w, http.StatusNotFound, "", report.NoSection(j, "timing").Error())
		return
	}
	m, _ := report.Transactions(res.Tx, true)
	writeAPI(w, http.StatusOK, m)
}

func (s *Server) getAudit(w http.ResponseWriter, r *http.Request, j jobs.Job) {
	res, err := s.store.RunResult(r.Context(), j.ID)
	if err != nil || res == nil {
		apiError(w, http.StatusNotFound, "", report.NoSection(j, "audit").Error())
		return
	}
	writeAPI(w, http.StatusOK, report.ToResult(j.ID, res).Audit)
}

func (s *Server) getSeries(w http.ResponseWriter, r *http.Request, j jobs.Job) {
	ivs, err := s.store.Intervals(r.Context(), j.ID)
	if err != nil {
		apiError(w, http.StatusInternalServerError, "", err.Error())
		return
	}
	writeAPI(w, http.StatusOK, report.ToIntervals(ivs))
}

func (s *Server) getConfig(w http.ResponseWriter, r *http.Request, j jobs.Job) {
	cfg, err := s.store.Config(r.Context(), j.ID)
	if err != nil {
		apiError(w, http.StatusInternalServerError, "", err.Error())
		return
	}
	if cfg == nil {
		cfg = map[string]string{}
	}
	writeAPI(w, http.StatusOK, cfg)
}

func (s *Server) getOutput(w http.ResponseWriter, r *http.Request, j jobs.Job) {
	lines, err := s.store.Output(r.Context(), j.ID)
	if err != nil {
		apiError(w, http.StatusInternalServerError, "", err.Error())
		return
	}
	out := make([]string, 0, len(lines))
	for _, l := range lines {
		out = append(out, l.Line)
	}
	writeAPI(w, http.StatusOK, out)
}
