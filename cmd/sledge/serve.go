package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/subtle"
	_ "embed"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/spf13/cobra"

	"github.com/sledge-bench/sledge/internal/jobs"
	"github.com/sledge-bench/sledge/internal/metrics"
)

// `sledge serve`: the engine's API over HTTP. Jobs run in this process, the
// same code paths as the CLI commands, and everything they record goes to
// the same repository, so `sledge jobs` and the API see the same jobs.

// jobStartedKey carries a callback through a job's context: startJob calls
// it with the job's kind and id as soon as the job is recorded, which is how
// POST /api/jobs learns the id of the job it started.
type jobStartedKey struct{}

// jobConfigKey carries extra settings (map[string]string) to record with the
// job that a context starts: `sledge cli` records the HammerDB settings the
// job came from.
type jobConfigKey struct{}

type serveFlags struct {
	listen  string
	token   string
	tlsCert string
	tlsKey  string
}

func newServeCmd(g *globals) *cobra.Command {
	f := &serveFlags{}
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Serve the HTTP API (and web UI) that starts, watches and stops jobs",
		Long: `Serve Sledge's JSON API over HTTP: start build, run, check and drop jobs
(POST /api/jobs), watch them (GET /api/jobs/{id}/events, Server-Sent Events),
stop them, read and delete them. The OpenAPI document is at /api/openapi.json.

It listens on 127.0.0.1:8080 by default. Listening on any other address needs
a bearer token: --token, else $SLEDGE_TOKEN, else one is generated and
printed once. Every API request must then send "Authorization: Bearer TOKEN".
A GET never changes anything. --tls-cert and --tls-key serve HTTPS.`,
		Example: `  sledge serve
  SLEDGE_TOKEN=secret sledge serve --listen 0.0.0.0:8443 --tls-cert cert.pem --tls-key key.pem`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runServe(cmd.Context(), cmd.OutOrStdout(), g, f)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.listen, "listen", "127.0.0.1:8080", "address to listen on; anything but a loopback address requires a token")
	fl.StringVar(&f.token, "token", "", "bearer token every API request must send (default $SLEDGE_TOKEN; generated when listening beyond loopback)")
	fl.StringVar(&f.tlsCert, "tls-cert", "", "TLS certificate file (PEM); with --tls-key, serve HTTPS")
	fl.StringVar(&f.tlsKey, "tls-key", "", "TLS private key file (PEM)")
	return cmd
}

func runServe(ctx context.Context, w io.Writer, g *globals, f *serveFlags) error {
	if (f.tlsCert == "") != (f.tlsKey == "") {
		return errors.New("--tls-cert and --tls-key go together")
	}
	token := f.token
	if token == "" {
		token = os.Getenv("SLEDGE_TOKEN")
	}
	host, _, err := net.SplitHostPort(f.listen)
	if err != nil {
		return fmt.Errorf("--listen %q: %w", f.listen, err)
	}
	if ip := net.ParseIP(host); (ip == nil || !ip.IsLoopback()) && host != "localhost" && token == "" {
		b := make([]byte, 24)
		if _, err := rand.Read(b); err != nil {
			return err
		}
		token = hex.EncodeToString(b)
		fmt.Fprintf(w, "listening beyond loopback: API token (shown once): %s\n", token)
	}
	repo, err := openRepo(ctx, g)
	if err != nil {
		return err
	}
	defer repo.Close()
	s := newServer(g, repo, token)
	ln, err := net.Listen("tcp", f.listen)
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: s.handler(), ReadHeaderTimeout: 10 * time.Second}
	scheme := "http"
	if f.tlsCert != "" {
		scheme = "https"
	}
	fmt.Fprintf(w, "sledge serve: %s://%s (API at /api, OpenAPI at /api/openapi.json)\n", scheme, ln.Addr())
	errc := make(chan error, 1)
	go func() {
		if f.tlsCert != "" {
			errc <- srv.ServeTLS(ln, f.tlsCert, f.tlsKey)
		} else {
			errc <- srv.Serve(ln)
		}
	}()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	// Ctrl-C: stop the running jobs (they record themselves as interrupted),
	// then the server.
	s.stopAll()
	shutdown, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s.wait(shutdown)
	return srv.Shutdown(shutdown)
}

// server holds the running jobs.
type server struct {
	g     *globals
	repo  *jobs.Repo
	token string

	mu      sync.Mutex
	running map[int64]context.CancelFunc
	wg      sync.WaitGroup
	base    context.Context // jobs outlive the request that started them
}

func newServer(g *globals, repo *jobs.Repo, token string) *server {
	return &server{g: g, repo: repo, token: token, running: map[int64]context.CancelFunc{}, base: context.Background()}
}

func (s *server) stopAll() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, cancel := range s.running {
		cancel()
	}
}

func (s *server) wait(ctx context.Context) {
	done := make(chan struct{})
	go func() { s.wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-ctx.Done():
	}
}

//go:embed openapi.json
var openAPIDoc []byte

func (s *server) handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /api/openapi.json", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(openAPIDoc)
	})
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
	mux.HandleFunc("GET /api/jobs/{id}/events", s.withJob(s.events))
	// The API's own mux answers unknown paths with 404 and known paths with
	// the wrong method with 405 (a GET never reaches a state-changing
	// handler); everything else is the web UI.
	top := http.NewServeMux()
	top.Handle("/api/", mux)
	reg := prometheus.NewRegistry()
	reg.MustRegister(newJobCollector(s.repo))
	top.Handle("GET /metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	top.Handle("/", uiHandler())
	return s.auth(top)
}

// auth checks the bearer token on every API request when one is set. The UI
// files themselves are public: they hold no data.
func (s *server) auth(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		protected := strings.HasPrefix(r.URL.Path, "/api/") && r.URL.Path != "/api/openapi.json" || r.URL.Path == "/metrics"
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

func apiError(w http.ResponseWriter, code int, field, msg string) {
	body := map[string]string{"error": msg}
	if field != "" {
		body["field"] = field
	}
	writeAPI(w, code, body)
}

func writeAPI(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	_ = enc.Encode(v)
}

// withJob resolves {id} to a job, answering 400 or 404 itself.
func (s *server) withJob(fn func(http.ResponseWriter, *http.Request, jobs.Job)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
		if err != nil || id < 1 {
			apiError(w, http.StatusBadRequest, "id", "job id must be a positive integer")
			return
		}
		j, err := s.repo.Get(r.Context(), id)
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

func (s *server) listJobs(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	f := jobs.ListFilter{Kind: q.Get("kind"), Status: q.Get("status")}
	for _, c := range []struct {
		name, value string
		valid       []string
	}{{"kind", f.Kind, jobKinds}, {"status", f.Status, jobStatuses}} {
		if err := oneOf(c.name, c.value, c.valid); err != nil {
			apiError(w, http.StatusBadRequest, c.name, err.Error())
			return
		}
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
	workload := q.Get("workload")
	if workload != "" {
		wl, err := parseWorkload(workload)
		if err != nil {
			apiError(w, http.StatusBadRequest, "workload", err.Error())
			return
		}
		workload = wl
	}
	list, err := s.repo.List(r.Context(), f)
	if err != nil {
		apiError(w, http.StatusInternalServerError, "", err.Error())
		return
	}
	out := []jobJSON{}
	for _, j := range list {
		if workload != "" && j.Workload != workload {
			continue
		}
		out = append(out, toJobJSON(j))
	}
	if offset > len(out) {
		offset = len(out)
	}
	out = out[offset:]
	if limit > 0 && limit < len(out) {
		out = out[:limit]
	}
	writeAPI(w, http.StatusOK, out)
}

// jobRequest is POST /api/jobs: the CLI's options as JSON.
type jobRequest struct {
	Kind        string  `json:"kind"`
	Workload    string  `json:"workload"`
	DB          string  `json:"db"`
	VU          int     `json:"vu"`
	Rampup      string  `json:"rampup"`
	Duration    string  `json:"duration"`
	Interval    string  `json:"interval"`
	Mode        string  `json:"mode"`
	Isolation   string  `json:"isolation"`
	ExecMode    string  `json:"exec_mode"`
	MaxRetries  int     `json:"max_retries"`
	Pacing      string  `json:"pacing"`
	PacingScale float64 `json:"pacing_scale"`
	RandomHome  bool    `json:"random_home"`
	Seed        uint64  `json:"seed"`
	Warehouses  int     `json:"warehouses"`
	Workers     int     `json:"workers"`
	Force       bool    `json:"force"`
	Engine      string  `json:"engine"`
	Loader      string  `json:"loader"`
	Scale       float64 `json:"scale"`
	Streams     int     `json:"streams"`
	QuerySets   int     `json:"query_sets"`
	Refresh     bool    `json:"refresh"`
	Validate    bool    `json:"validate"`
}

// fieldError is a request error that names its field.
type fieldError struct{ field, msg string }

func (e fieldError) Error() string { return e.msg }

func parseDuration(field, v string, def time.Duration) (time.Duration, error) {
	if v == "" {
		return def, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d < 0 {
		return 0, fieldError{field, fmt.Sprintf("%s: %q is not a duration like \"30s\" or \"5m\"", field, v)}
	}
	return d, nil
}

// jobFunc turns a request into the function that runs the job.
func (s *server) jobFunc(req jobRequest) (func(ctx context.Context) error, error) {
	wl, err := parseWorkload(req.Workload)
	if err != nil {
		return nil, fieldError{"workload", err.Error()}
	}
	switch req.Kind {
	case "build":
		f := &buildFlags{db: req.DB, warehouses: req.Warehouses, workers: req.Workers, seed: req.Seed, force: req.Force,
			engine: req.Engine, loader: req.Loader, workload: wl, scale: req.Scale}
		if f.warehouses == 0 {
			f.warehouses = 1
		}
		if f.seed == 0 {
			f.seed = defaultSeed
		}
		if f.scale == 0 {
			f.scale = 1
		}
		switch {
		case f.warehouses < 1:
			return nil, fieldError{"warehouses", "warehouses must be at least 1"}
		case f.workers < 0:
			return nil, fieldError{"workers", "workers must not be negative"}
		case f.scale < 0:
			return nil, fieldError{"scale", "scale must be positive"}
		}
		return func(ctx context.Context) error { return buildJob(ctx, io.Discard, s.repo, f) }, nil
	case "run":
		f := &runFlags{db: req.DB, vus: req.VU, mode: req.Mode, isolation: req.Isolation, execMode: req.ExecMode,
			maxRetries: req.MaxRetries, randomHome: req.RandomHome, seed: req.Seed, workload: wl,
			streams: req.Streams, querySets: req.QuerySets, refresh: req.Refresh, validate: req.Validate,
			pacing: req.Pacing, pacingScale: req.PacingScale}
		if f.pacingScale == 0 {
			f.pacingScale = 1
		}
		if f.vus == 0 {
			f.vus = 4
		}
		if f.mode == "" {
			f.mode = "auto"
		}
		if f.querySets == 0 {
			f.querySets = 1
		}
		if f.rampup, err = parseDuration("rampup", req.Rampup, 10*time.Second); err != nil {
			return nil, err
		}
		if f.duration, err = parseDuration("duration", req.Duration, time.Minute); err != nil {
			return nil, err
		}
		if f.interval, err = parseDuration("interval", req.Interval, 10*time.Second); err != nil {
			return nil, err
		}
		switch {
		case f.vus < 1:
			return nil, fieldError{"vu", "vu must be at least 1"}
		case f.duration <= 0:
			return nil, fieldError{"duration", "duration must be positive"}
		case f.maxRetries < 0 || f.maxRetries > 255:
			return nil, fieldError{"max_retries", "max_retries must be in 0..255"}
		case f.pacing != "" && f.pacing != "off" && f.pacing != "spec":
			return nil, fieldError{"pacing", "pacing must be off or spec"}
		case f.pacingScale < 0 || f.pacingScale > 10:
			return nil, fieldError{"pacing_scale", "pacing_scale must be in (0, 10]"}
		case f.streams < 0:
			return nil, fieldError{"streams", "streams must not be negative"}
		case f.querySets < 1:
			return nil, fieldError{"query_sets", "query_sets must be at least 1"}
		}
		return func(ctx context.Context) error {
			if wl == workloadTPROCH {
				return runRunH(ctx, io.Discard, s.g, f)
			}
			return runRun(ctx, io.Discard, s.g, f)
		}, nil
	case "check":
		if wl == workloadTPROCH {
			return nil, fieldError{"workload", "check is for tprocc only"}
		}
		return func(ctx context.Context) error { return runCheck(ctx, io.Discard, s.g, req.DB) }, nil
	case "drop":
		return func(ctx context.Context) error {
			if wl == workloadTPROCH {
				return runDropH(ctx, io.Discard, s.g, req.DB)
			}
			t, _, err := target(req.DB)
			if err != nil {
				return err
			}
			return runDropC(ctx, io.Discard, s.g, t)
		}, nil
	case "":
		return nil, fieldError{"kind", "kind is required: build, run, check or drop"}
	}
	return nil, fieldError{"kind", fmt.Sprintf("kind %q: want build, run, check or drop", req.Kind)}
}

func (s *server) startJob(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	if err != nil {
		apiError(w, http.StatusBadRequest, "", "read body: "+err.Error())
		return
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	var req jobRequest
	if err := dec.Decode(&req); err != nil {
		field := ""
		var ute *json.UnmarshalTypeError
		if errors.As(err, &ute) {
			field = ute.Field
		} else if name, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
			field = strings.Trim(name, `"`)
		}
		apiError(w, http.StatusBadRequest, field, "body: "+err.Error())
		return
	}
	run, err := s.jobFunc(req)
	if err != nil {
		var fe fieldError
		errors.As(err, &fe)
		apiError(w, http.StatusBadRequest, fe.field, err.Error())
		return
	}
	started := make(chan int64, 1)
	done := make(chan error, 1)
	ctx, cancel := context.WithCancel(s.base)
	var once sync.Once
	ctx = context.WithValue(ctx, jobStartedKey{}, func(kind string, id int64) {
		if kind != req.Kind {
			return // e.g. the build a first run on the embedded database does
		}
		once.Do(func() {
			s.mu.Lock()
			s.running[id] = cancel
			s.mu.Unlock()
			started <- id
		})
	})
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		defer cancel()
		err := run(ctx)
		done <- err
	}()
	select {
	case id := <-started:
		go func() {
			<-ctx.Done()
			s.mu.Lock()
			delete(s.running, id)
			s.mu.Unlock()
		}()
		writeAPI(w, http.StatusCreated, map[string]string{"id": strconv.FormatInt(id, 10)})
	case err := <-done:
		// The job ended before it was recorded: bad options or an
		// unreachable database.
		if err == nil {
			err = errors.New("the job ended without being recorded")
		}
		apiError(w, http.StatusUnprocessableEntity, "", err.Error())
	}
}

func (s *server) getJob(w http.ResponseWriter, r *http.Request, j jobs.Job) {
	writeAPI(w, http.StatusOK, toJobJSON(j))
}

func (s *server) deleteJob(w http.ResponseWriter, r *http.Request, j jobs.Job) {
	if j.Status == metrics.StatusRunning {
		apiError(w, http.StatusConflict, "id", fmt.Sprintf("job %d is running: stop it first", j.ID))
		return
	}
	if err := s.repo.Delete(r.Context(), j.ID); err != nil {
		apiError(w, http.StatusInternalServerError, "", err.Error())
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

func (s *server) stopJob(w http.ResponseWriter, r *http.Request, j jobs.Job) {
	s.mu.Lock()
	cancel, ok := s.running[j.ID]
	s.mu.Unlock()
	if !ok {
		apiError(w, http.StatusConflict, "id", fmt.Sprintf("job %d is not running in this server (status %s)", j.ID, j.Status))
		return
	}
	cancel()
	writeAPI(w, http.StatusAccepted, map[string]string{"id": strconv.FormatInt(j.ID, 10), "status": "stopping"})
}

func (s *server) getResult(w http.ResponseWriter, r *http.Request, j jobs.Job) {
	if j.Workload == workloadTPROCH {
		res, err := s.repo.AnalyticResult(r.Context(), j.ID)
		if err != nil {
			apiError(w, http.StatusInternalServerError, "", err.Error())
			return
		}
		if res == nil {
			apiError(w, http.StatusNotFound, "", noSection(j, "result").Error())
			return
		}
		writeAPI(w, http.StatusOK, toAnalyticJSON(j.ID, res))
		return
	}
	res, err := s.repo.RunResult(r.Context(), j.ID)
	if err != nil {
		apiError(w, http.StatusInternalServerError, "", err.Error())
		return
	}
	if res == nil {
		apiError(w, http.StatusNotFound, "", noSection(j, "result").Error())
		return
	}
	writeAPI(w, http.StatusOK, toResultJSON(j.ID, res))
}

func (s *server) getTiming(w http.ResponseWriter, r *http.Request, j jobs.Job) {
	res, err := s.repo.RunResult(r.Context(), j.ID)
	if err != nil || res == nil {
		apiError(w, http.StatusNotFound, "", noSection(j, "timing").Error())
		return
	}
	m, _ := toTransactionsJSON(res.Tx, true)
	writeAPI(w, http.StatusOK, m)
}

func (s *server) getAudit(w http.ResponseWriter, r *http.Request, j jobs.Job) {
	res, err := s.repo.RunResult(r.Context(), j.ID)
	if err != nil || res == nil {
		apiError(w, http.StatusNotFound, "", noSection(j, "audit").Error())
		return
	}
	writeAPI(w, http.StatusOK, toResultJSON(j.ID, res).Audit)
}

func (s *server) getSeries(w http.ResponseWriter, r *http.Request, j jobs.Job) {
	ivs, err := s.repo.Intervals(r.Context(), j.ID)
	if err != nil {
		apiError(w, http.StatusInternalServerError, "", err.Error())
		return
	}
	writeAPI(w, http.StatusOK, toIntervalsJSON(ivs))
}

func (s *server) getConfig(w http.ResponseWriter, r *http.Request, j jobs.Job) {
	cfg, err := s.repo.Config(r.Context(), j.ID)
	if err != nil {
		apiError(w, http.StatusInternalServerError, "", err.Error())
		return
	}
	if cfg == nil {
		cfg = map[string]string{}
	}
	writeAPI(w, http.StatusOK, cfg)
}

func (s *server) getOutput(w http.ResponseWriter, r *http.Request, j jobs.Job) {
	lines, err := s.repo.Output(r.Context(), j.ID)
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

// events streams a job's intervals as Server-Sent Events as they are
// recorded ("interval", the same numbers as the CLI's progress line), then
// its final state ("status") when it ends.
func (s *server) events(w http.ResponseWriter, r *http.Request, j jobs.Job) {
	flusher, ok := w.(http.Flusher)
	if !ok {
		apiError(w, http.StatusInternalServerError, "", "streaming not supported")
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	send := func(event string, v any) {
		b, _ := json.Marshal(v)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", event, b)
		flusher.Flush()
	}
	sent := 0
	tick := time.NewTicker(500 * time.Millisecond)
	defer tick.Stop()
	for {
		ivs, err := s.repo.Intervals(r.Context(), j.ID)
		if err == nil {
			all := toIntervalsJSON(ivs)
			for ; sent < len(all); sent++ {
				send("interval", all[sent])
			}
		}
		cur, err := s.repo.Get(r.Context(), j.ID)
		if err != nil {
			return
		}
		if cur.Status != metrics.StatusRunning {
			send("status", toJobJSON(cur))
			return
		}
		select {
		case <-r.Context().Done():
			return
		case <-tick.C:
		}
	}
}
