// Package app is Sledge's job service: the one lifecycle every front end
// (CLI, HTTP API, HammerDB Tcl and Python) runs its jobs through.
//
// A job, top-down: Start validates the spec (config.Spec.Validate plus the
// workload's own rules), resolves the target and its driver, records the job
// (its id is known from here on and returned to the caller), then runs it in
// a goroutine by the workload's capability (Builder, Checker, Dropper, OLTP
// or Analytic), sending its output through an output.Fanout (console,
// repository, live hub), saves its result and records how it ended. Nothing
// invalid ever becomes a job.
package app

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"slices"
	"sync"

	"github.com/sledge-bench/sledge/internal/config"
	"github.com/sledge-bench/sledge/internal/db"
	"github.com/sledge-bench/sledge/internal/db/drivers"
	"github.com/sledge-bench/sledge/internal/jobs"
	"github.com/sledge-bench/sledge/internal/metrics"
	"github.com/sledge-bench/sledge/internal/observe"
	"github.com/sledge-bench/sledge/internal/output"
	"github.com/sledge-bench/sledge/internal/report"
	"github.com/sledge-bench/sledge/internal/workload"

	// The workloads register themselves.
	_ "github.com/sledge-bench/sledge/internal/workload/chbench"
	_ "github.com/sledge-bench/sledge/internal/workload/pgbench"
	_ "github.com/sledge-bench/sledge/internal/workload/tprocc"
	_ "github.com/sledge-bench/sledge/internal/workload/tproch"
)

// Options configure a Service.
type Options struct {
	// Repo is the jobs repository every job is recorded in.
	Repo *jobs.Repo
	// Hub, if set, receives the live state of running jobs (sledge serve).
	Hub *output.Hub
	// Version is Sledge's version, recorded with every job.
	Version string
	// OwnsProcess says this process exists to run the jobs it is asked for
	// (the CLI, `sledge cli do`): the first run then decides the process's
	// client CPUs (GOMAXPROCS) from its spec, once. A service inside a server
	// (false) never changes process settings: a spec asking for client CPUs
	// is refused.
	OwnsProcess bool
	// Warn receives warnings that belong to no job (a repository write that
	// failed); default os.Stderr.
	Warn io.Writer
	// Targets, if set, is which targets a spec's db may name (sledge
	// serve): applied before anything is parsed, created or dialled; a
	// target outside it is a *PolicyError. Nil allows any target.
	Targets *TargetPolicy
	// Observers builds the observers of a run whose spec has metrics on
	// (tests give fakes); nil: RunObservers, the database server's and
	// this host's.
	Observers func(db.Target, config.Spec) []observe.Observer
	// DefaultDB is the target of a spec that names none ($SLEDGE_DB, read
	// by the command); empty: the workload's embedded database in DataDir.
	DefaultDB string
	// DataDir is Sledge's data directory (config.Env.DataDir), where the
	// workloads' embedded databases live; empty: a spec must name its
	// target, and NoDataDir says why there is no data directory.
	DataDir   string
	NoDataDir error
	// RepoName names Repo as spool files record it: its file's absolute
	// path, or its URL with the password redacted (jobs.Repo.Path). With
	// DataDir set, what a job cannot write to the repository is kept in a
	// spool file there (SpoolDir), else in SpareSpoolDir, and handed in
	// later; empty: nothing is kept, and a result not stored makes the
	// outcome NotStored (Unkept).
	RepoName string
	// SpareSpoolDir is where spool files go when the data directory's
	// cannot take them (its file system, often the repository's, is full);
	// empty: nowhere else. Handed in from there like the others
	// (RepoPlace.SpareSpoolDir).
	SpareSpoolDir string
}

// Service runs jobs. It is safe for concurrent use.
type Service struct {
	opts    Options
	cpuOnce sync.Once

	mu      sync.Mutex
	running map[int64]*Job
	// groups are the run ids this service runs an agent of: one per run
	// (a job's agents are its segments, each a process of its own).
	groups map[string]bool
	wg     sync.WaitGroup
}

// New returns a service over opts.Repo.
func New(opts Options) *Service {
	if opts.Warn == nil {
		opts.Warn = os.Stderr
	}
	return &Service{opts: opts, running: map[int64]*Job{}, groups: map[string]bool{}}
}

// Repo is the service's jobs repository.
func (s *Service) Repo() *jobs.Repo { return s.opts.Repo }

// Version is Sledge's version (Options.Version).
func (s *Service) Version() string { return s.opts.Version }

// Request is one job to run.
type Request struct {
	Spec config.Spec
	// Console receives the job's output lines as they come (nil: none).
	Console io.Writer
	// ProgressJSON receives each interval as one line of JSON
	// (output.JSONLines) as it ends; nil: none.
	ProgressJSON io.Writer
	// NoConsoleProgress leaves the text progress lines out of Console (the
	// intervals are shown as JSON instead).
	NoConsoleProgress bool
	// ProgressTTY is a terminal to draw a build's progress bar on; nil sends
	// progress lines to the output instead (stored with the job).
	ProgressTTY io.Writer
	// Settings are recorded with the job besides the spec's (e.g. the
	// HammerDB settings a script gave).
	Settings map[string]string
	// Queries receives each query of an analytic run as it ends, called
	// concurrently by the query streams (nil: none).
	Queries func(metrics.AnalyticQuery)
	// QueryStarts receives each query of an analytic run as it starts (its
	// stream, set, position and number), called as Queries is (nil: none).
	QueryStarts func(metrics.AnalyticQuery)
	// DetectWorkload says the spec's workload is a default nobody chose: a
	// check then checks the schema the database holds, when it holds one
	// workload's schema and not the default's.
	DetectWorkload bool
	// Summary, if not nil, receives from Run the job's summary once it has
	// ended, as the show view in JSON reads it from the repository (what
	// was stored, whatever the job's end: a script reads its status
	// there), as a server's client gives it (server.RunOptions.Summary).
	Summary io.Writer
}

// TargetError is a target that cannot be used: a URL Sledge cannot parse,
// a database it has no driver for. No job is created for it.
type TargetError struct{ Err error }

func (e TargetError) Error() string { return e.Err.Error() }
func (e TargetError) Unwrap() error { return e.Err }

// Worded is err as a front end that shows errors as text words it, naming
// each field as name does (name("max_retries") might be "--max-retries"):
// a TargetError is the field "db"'s, field errors are worded one a line
// (config.FieldErrors.Worded); any other error is as it is.
func Worded(err error, name func(field string) string) error {
	if te, ok := errors.AsType[TargetError](err); ok {
		return fmt.Errorf("%s: %w", name("db"), te.Err)
	}
	if fields := config.Fields(err); fields != nil {
		return errors.New(fields.Worded(name))
	}
	return err
}

// Job is a recorded job running (or run) by the service.
type Job struct {
	ID       int64
	Kind     string
	Workload workload.Workload
	Target   db.Target

	cancel  context.CancelFunc
	done    chan struct{}
	outcome Outcome
}

// Stop asks the job to stop; it records itself as interrupted with what it
// measured.
func (j *Job) Stop() { j.cancel() }

// Done is closed when the job has ended and been recorded.
func (j *Job) Done() <-chan struct{} { return j.done }

// Wait waits for the job to end and returns how it ended.
func (j *Job) Wait() Outcome {
	<-j.done
	return j.outcome
}

// Run starts a job and waits for it: the CLI's and the scripts' way.
// ctx's cancellation (Ctrl-C) stops the job, which is recorded as
// interrupted. The error is Start's (nothing recorded) or, for a job that
// failed, its Outcome.Err, else the Summary's, if writing it failed.
func (s *Service) Run(ctx context.Context, req Request) (Outcome, error) {
	j, err := s.Start(ctx, req)
	if err != nil {
		return Outcome{}, err
	}
	o := j.Wait()
	if o.Status == metrics.StatusFailed {
		err = o.Err
	}
	if req.Summary != nil && o.ID > 0 {
		v := View{Name: ViewShow, IDs: []int64{o.ID}, Format: FormatJSON}
		if verr := (Recorded{Store: s.opts.Repo}).View(ctx, req.Summary, v); err == nil {
			err = verr
		}
	}
	return o, err
}

// plan is a validated request, its spec parsed, with its workload and
// target resolved.
type plan struct {
	req      Request
	spec     config.Plan
	wl       workload.Workload
	target   db.Target
	driver   db.Driver
	embedded bool // the target is the workload's default embedded database
}

// Validate checks a spec as Start would, without running anything: the
// spec's own rules, the workload's, and whether the workload can do the
// kind of job asked. The error holds config.FieldErrors.
func (s *Service) Validate(spec config.Spec) error {
	_, _, err := s.validate(spec)
	return err
}

func (s *Service) validate(spec config.Spec) (workload.Workload, config.Plan, error) {
	// Before the workload reads them: a script file is read while the
	// spec is checked.
	if s.opts.Targets != nil && len(spec.Scripts) > 0 {
		if err := s.opts.Targets.admitScripts(spec.Scripts); err != nil {
			return nil, config.Plan{}, err
		}
	}
	wl, p, errs := checkSpec(spec)
	// A workload that says itself why it cannot do the job (its Validator
	// named the workload field) is not told again that it cannot.
	if wl != nil && !can(wl, spec.Kind) && !slices.ContainsFunc(errs, func(e config.FieldError) bool { return e.Field == "workload" }) {
		errs = append(errs, config.FieldError{Field: "workload",
			Msg: fmt.Sprintf("workload %s has no %s jobs", wl.Name(), spec.Kind)})
	}
	if spec.Kind == config.KindRun && spec.ClientCPUs != 0 && !s.opts.OwnsProcess {
		errs = append(errs, config.FieldError{Field: "client_cpus",
			Msg: fmt.Sprintf("client_cpus is a setting of the serving process (%d cores here), not of a job", runtime.GOMAXPROCS(0))})
	}
	if len(errs) > 0 {
		return nil, p, errs
	}
	return wl, p, nil
}

// checkSpec parses the spec, applying its rules and its workload's, and
// returns the workload (nil when the spec names none that is registered)
// and the plan: the one place a spec's settings are parsed.
func checkSpec(spec config.Spec) (workload.Workload, config.Plan, config.FieldErrors) {
	p, err := spec.Parse()
	errs := config.Fields(err)
	wl, err := workload.Lookup(spec.Workload)
	if err != nil {
		return nil, p, append(errs, config.FieldError{Field: "workload", Msg: "workload " + err.Error()})
	}
	if v, ok := wl.(workload.Validator); ok {
		errs = append(errs, v.Validate(p)...)
	}
	if _, ok := wl.(workload.Beside); !ok && spec.Kind == config.KindRun && spec.AnalyticStreams > 0 {
		errs = append(errs, config.FieldError{Field: "analytic_streams",
			Msg: fmt.Sprintf("analytic_streams apply to workload chbench only: workload %s runs no analytic streams beside its transactions", wl.Name())})
	}
	return wl, p, errs
}

// can reports whether wl has the capability a kind of job needs.
func can(wl workload.Workload, kind string) bool {
	switch kind {
	case config.KindBuild:
		_, ok := wl.(workload.Builder)
		return ok
	case config.KindCheck:
		_, ok := wl.(workload.Checker)
		return ok
	case config.KindDrop:
		_, ok := wl.(workload.Dropper)
		return ok
	case config.KindRun:
		_, oltp := wl.(workload.OLTP)
		_, analytic := wl.(workload.Analytic)
		return oltp || analytic
	}
	return true // an unknown kind is the spec's own error
}

// Resolve validates a spec and resolves its workload and target, as Start
// would, without recording anything: front ends use it to say what a job
// will touch before they ask for confirmation.
func (s *Service) Resolve(spec config.Spec) (workload.Workload, db.Target, error) {
	p, err := s.resolve(Request{Spec: spec})
	if err != nil {
		return nil, db.Target{}, err
	}
	return p.wl, p.target, nil
}

// resolve validates the request and resolves its target.
func (s *Service) resolve(req Request) (*plan, error) {
	wl, parsed, err := s.validate(req.Spec)
	if err != nil {
		return nil, err
	}
	p := &plan{req: req, spec: parsed, wl: wl}
	if req.Spec.Scrape != "" && s.opts.Targets != nil {
		if err := s.opts.Targets.admitScrape(req.Spec.Scrape); err != nil {
			return nil, err
		}
	}
	dsn := req.Spec.DB
	if dsn != "" && s.opts.Targets != nil {
		// The policy first: nothing outside it is parsed, created or
		// dialled. A named target runs on its URL and is recorded by name.
		var name string
		if dsn, name, err = s.opts.Targets.admit(dsn); err != nil {
			return nil, err
		}
		if name != "" {
			kv := map[string]string{"target": name}
			for k, v := range req.Settings {
				kv[k] = v
			}
			p.req.Settings = kv
		}
	}
	if dsn == "" {
		dsn = s.opts.DefaultDB
	}
	if dsn == "" {
		if s.opts.DataDir == "" {
			why := cmp.Or(s.opts.NoDataDir, errors.New("none was given"))
			return nil, TargetError{fmt.Errorf("no database named, and no data directory for the embedded one: %w", why)}
		}
		dsn, p.embedded = wl.DefaultDB(s.opts.DataDir), true
	}
	if p.target, err = db.ParseTarget(dsn); err != nil {
		return nil, TargetError{err}
	}
	if p.driver, err = drivers.For(p.target.Kind); err != nil {
		return nil, TargetError{err}
	}
	if tv, ok := wl.(workload.TargetValidator); ok {
		if errs := tv.ValidateTarget(p.spec, p.target); len(errs) > 0 {
			return nil, errs
		}
	}
	return p, nil
}

// Start validates and records a job and runs it in the background. The
// returned Job's id is the job's in the repository. A request that is
// invalid (config.FieldErrors) or whose target cannot be used
// (TargetError) returns an error and records nothing.
func (s *Service) Start(ctx context.Context, req Request) (*Job, error) {
	p, err := s.resolve(req)
	if err != nil {
		return nil, err
	}
	if p.spec.Kind == config.KindCheck && req.DetectWorkload {
		if held := heldSchema(ctx, p); held != "" && held != p.wl.Name() {
			req.Spec.Workload = held
			if p, err = s.resolve(req); err != nil {
				return nil, err
			}
			if req.Console != nil {
				fmt.Fprintf(req.Console, "the database holds a %s schema: checking it\n", p.wl.Title())
			}
		}
	}
	if p.spec.Kind == config.KindRun {
		first, err := firstRunBuild(ctx, p)
		if err != nil {
			return nil, err
		}
		if first != nil {
			if err := s.buildFirst(ctx, p, first); err != nil {
				return nil, err
			}
		}
		s.decideClientCPUs(p.spec, inProcess(p.target))
	}
	return s.start(ctx, p)
}

// firstRunBuild returns the build a run on the workload's default embedded
// database needs first, when that database has no schema yet (nil when
// none), so that `sledge run` works with nothing installed.
func firstRunBuild(ctx context.Context, p *plan) (*config.Plan, error) {
	fb, ok := p.wl.(workload.FirstRunBuilder)
	if !ok || !p.embedded {
		return nil, nil
	}
	c, err := p.driver.Connect(ctx, p.target, db.Options{})
	if err != nil {
		return nil, err
	}
	exists, err := fb.SchemaExists(ctx, c, p.target.Kind)
	c.Close(context.Background())
	if err != nil || exists {
		return nil, err
	}
	b, err := fb.FirstRunBuild(p.spec).Parse()
	if err != nil {
		return nil, fmt.Errorf("the first build of %s: %w", p.target, err)
	}
	return &b, nil
}

// buildFirst does a run's first build, as a job of its own, before the run
// is recorded (an embedded build takes seconds; the run's id follows).
func (s *Service) buildFirst(ctx context.Context, p *plan, first *config.Plan) error {
	bp := *p
	bp.spec, bp.req.Spec = *first, first.Spec
	size, _ := p.wl.(workload.Builder).PlanBuild(first)
	if p.req.Console != nil {
		fmt.Fprintf(p.req.Console, "no %s schema in %s yet: building %s first\n", p.wl.Title(), p.target, size)
	}
	j, err := s.start(ctx, &bp)
	if err != nil {
		return err
	}
	if o := j.Wait(); o.Status != metrics.StatusCompleted {
		return fmt.Errorf("build job %d before the first run: %w", j.ID, o.Err)
	}
	return nil
}

// ClientCPUs is the default number of cores for a run's goroutines: a VU
// spends almost all its time waiting for the database, and every extra
// scheduler thread adds wake-ups (futex, epoll) to each round trip, so one
// core per 16 VUs; requested > 0 asks for that many (at most all).
func ClientCPUs(requested, vus int) int {
	n := runtime.NumCPU()
	if requested > 0 {
		return min(requested, n)
	}
	return max(1, min(n, (vus+15)/16))
}

// decideClientCPUs sets GOMAXPROCS once per process, from the first run of
// a service that owns its process; it is never restored or changed per job.
// An embedded database runs inside this process: its work needs the cores,
// so unless the spec says otherwise the client keeps them all.
func (s *Service) decideClientCPUs(spec config.Plan, inProcessDB bool) {
	if !s.opts.OwnsProcess {
		return
	}
	n := ClientCPUs(spec.ClientCPUs, spec.Sessions())
	if inProcessDB && spec.ClientCPUs == 0 {
		n = runtime.NumCPU()
	}
	s.cpuOnce.Do(func() { runtime.GOMAXPROCS(n) })
}

// inProcess reports whether t's database engine runs inside this process.
func inProcess(t db.Target) bool { return t.Kind == db.SQLite || t.Kind == db.DuckDB }

// start records the job and runs it in a goroutine.
func (s *Service) start(ctx context.Context, p *plan) (*Job, error) {
	kv := settings(p) // resolves the build's defaults in p.spec too
	var (
		id      int64
		grp     *group
		created = true
		err     error
	)
	if p.spec.RunID != "" && (p.spec.Kind == config.KindRun || p.spec.Kind == config.KindBuild) {
		// One of the agents of a group run: the job is the group's.
		delete(kv, "segment") // each agent's is in its own record
		s.mu.Lock()
		busy := s.groups[p.spec.RunID]
		s.groups[p.spec.RunID] = true
		s.mu.Unlock()
		if busy {
			return nil, fmt.Errorf("join run %s: this process runs an agent of it already: start each agent as a process of its own", p.spec.RunID)
		}
		if grp, created, err = s.joinGroup(ctx, p, kv); err != nil {
			s.leaveGroup(p.spec.RunID)
			return nil, fmt.Errorf("join run %s: %w", p.spec.RunID, err)
		}
		id = grp.jobID
	} else if id, err = s.opts.Repo.Create(ctx, jobs.Job{Kind: p.spec.Kind, Workload: p.wl.Name(),
		DBKind: string(p.target.Kind), Target: p.target.String()}, kv); err != nil {
		return nil, fmt.Errorf("record the job: %w", err)
	}
	if created {
		if err := s.opts.Repo.SetSystem(ctx, id, SystemInfo(s.opts.Version)); err != nil {
			fmt.Fprintf(s.opts.Warn, "sledge: warning: cannot record system info: %v\n", err)
		}
	}
	out := output.NewFanout()
	if p.req.Console != nil {
		var opts []output.ConsoleOption
		if p.req.NoConsoleProgress {
			opts = append(opts, output.NoProgress())
		}
		out.Add(output.Console(p.req.Console, opts...))
	}
	if p.req.ProgressJSON != nil {
		out.Add(output.JSONLines(p.req.ProgressJSON))
	}
	// Every write of the job goes through its store, which keeps what the
	// repository cannot take in a spool file (spool.go).
	target, runID := storeTarget{repo: s.opts.Repo, id: id}, ""
	if grp != nil {
		target.seg, target.g, runID = grp.name, grp, grp.runID
	}
	store := s.newStore(target, runID)
	if grp != nil {
		grp.store, store.onBack = store, grp.repoBack
	}
	out.Add(output.Repository(store, id, s.opts.Warn))
	// An agent's intervals are its share only: the hub exports them as the
	// agent's, and watchers of the job follow the merged series in the
	// repository (as for a job run by another process).
	switch {
	case s.opts.Hub != nil && grp != nil:
		out.Add(s.opts.Hub.OpenAgent(id, p.wl.Name(), grp.name))
	case s.opts.Hub != nil:
		out.Add(s.opts.Hub.Open(id, p.wl.Name()))
	}
	jctx, cancel := context.WithCancel(ctx)
	j := &Job{ID: id, Kind: p.spec.Kind, Workload: p.wl, Target: p.target, cancel: cancel, done: make(chan struct{})}
	s.mu.Lock()
	s.running[id] = j
	s.mu.Unlock()
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		defer cancel()
		e := &execution{s: s, p: p, id: id, out: out, grp: grp, store: store}
		o := e.run(jctx)
		o.ID = id
		o = s.finish(jctx, e, o)
		j.outcome = o
		s.mu.Lock()
		delete(s.running, id)
		s.mu.Unlock()
		if grp != nil {
			s.leaveGroup(grp.runID)
		}
		close(j.done)
	}()
	return j, nil
}

// finish records how the job ended: flush its output, then its status, then
// tell the live sinks (so a watcher that sees the end finds everything).
// What the repository could not take is left in the job's spool file: the
// outcome says so (NotStored).
func (s *Service) finish(ctx context.Context, e *execution, o Outcome) Outcome {
	ctx = context.WithoutCancel(ctx)
	e.out.Flush()
	msg := ""
	var sf jobs.SchemaFailure
	if o.Err != nil {
		msg = o.Err.Error()
		// Kept apart from the text, so that a front end reading the job
		// (the remote client) can word it as this one's would.
		var se *workload.SchemaError
		if errors.As(o.Err, &se) {
			sf = jobs.SchemaFailure{Kind: se.Kind(), Workload: se.Workload, Holds: se.Holds}
		}
	}
	if e.grp != nil && !e.merged {
		// An agent of a group run: the agent that merges records the end.
		_ = e.out.Close()
		return e.closeStore(ctx, o)
	}
	if _, err := e.store.Finish(ctx, o.Status, msg, sf); err != nil {
		fmt.Fprintf(s.opts.Warn, "sledge: warning: cannot record the job's end: %v\n", err)
	}
	_ = e.out.Close()
	return e.closeStore(ctx, o)
}

// closeStore hands in what the job's store kept a last time; what is still
// kept makes the outcome NotStored. A run whose writes are all in has its
// series' holes (intervals no one could keep) marked missing.
func (e *execution) closeStore(ctx context.Context, o Outcome) Outcome {
	path, why := e.store.Close(ctx)
	if unkept := e.store.Unkept(); unkept != nil {
		o.NotStored = &NotStoredError{Job: e.id, Spool: path, Err: unkept, Unkept: true}
	}
	switch {
	case path != "":
		if o.NotStored == nil {
			o.NotStored = &NotStoredError{Job: e.id, Spool: path, Err: why}
		}
	case why != nil:
		fmt.Fprintf(e.s.opts.Warn, "sledge: warning: cannot record job %d's missing intervals: %v\n", e.id, why)
	case e.p.spec.Kind == config.KindRun && (e.grp == nil || e.merged) && (o.NotStored == nil || o.NotStored.Unkept):
		if err := e.repo().MarkSeriesHoles(ctx, e.id, holeReason); err != nil {
			e.warn("the series' missing intervals", err)
		}
	}
	return o
}

// leaveGroup forgets that this service runs an agent of run runID.
func (s *Service) leaveGroup(runID string) {
	s.mu.Lock()
	delete(s.groups, runID)
	s.mu.Unlock()
}

// Running is the job with that id this service runs; false when it runs
// none (another process may run it).
func (s *Service) Running(id int64) (*Job, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	j, ok := s.running[id]
	return j, ok
}

// Stop stops a job running in this service; false when there is none.
func (s *Service) Stop(id int64) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	j, ok := s.running[id]
	if ok {
		j.Stop()
	}
	return ok
}

// StopAll stops every running job.
func (s *Service) StopAll() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, j := range s.running {
		j.Stop()
	}
}

// Wait waits until no job runs or ctx ends.
func (s *Service) Wait(ctx context.Context) {
	done := make(chan struct{})
	go func() { s.wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-ctx.Done():
	}
}

// statusOf maps a job's error to its status.
func statusOf(ctx context.Context, err error) string {
	switch {
	case err == nil:
		return metrics.StatusCompleted
	case ctx.Err() != nil || errors.Is(err, context.Canceled):
		return metrics.StatusInterrupted
	}
	return metrics.StatusFailed
}

// execution is one job's run.
type execution struct {
	s   *Service
	p   *plan
	id  int64
	out *output.Fanout

	// msgs counts what the driver library logged about the job's sessions.
	msgs driverMessages

	// grp is this agent's place in a group run (nil: a run of its own);
	// merged says this agent merged the group's result.
	grp    *group
	merged bool

	// store is the job's way into the repository (spool.go).
	store *jobStore
}

func (e *execution) env() workload.Env {
	return workload.Env{Driver: e.driver(), Target: e.p.target, Logf: e.out.Logf, Progress: func(workload.Progress) {},
		Query: e.p.req.Queries, QueryStart: e.p.req.QueryStarts}
}

func (e *execution) repo() *jobs.Repo { return e.s.opts.Repo }

func (e *execution) warn(what string, err error) {
	fmt.Fprintf(e.s.opts.Warn, "sledge: warning: cannot record %s: %v\n", what, err)
}

// failed is the outcome of a job that ended with err.
func failed(ctx context.Context, err error) Outcome {
	return Outcome{Status: statusOf(ctx, err), Err: err}
}

// run dispatches by kind and capability.
func (e *execution) run(ctx context.Context) Outcome {
	defer e.reportDriverMessages()
	switch e.p.spec.Kind {
	case config.KindBuild:
		return e.build(ctx)
	case config.KindCheck:
		return e.check(ctx)
	case config.KindDrop:
		return e.drop(ctx)
	case config.KindRun:
		if oltp, ok := e.p.wl.(workload.OLTP); ok {
			o := e.runOLTP(ctx, oltp)
			if g := e.grp; g != nil && !g.handedIn {
				// It failed before it ran (preparing the run): the others
				// must not wait for it, and, when it is the last, it ends
				// the job with what they handed in.
				merged, last, done := e.finishGroup(ctx, nil, cmp.Or(o.Err, errors.New(o.Status)))
				if !done {
					vs := e.saveRun(ctx, merged, "", false, nil)
					return Outcome{Status: merged.Status, Run: merged, Thresholds: vs}
				}
				return last
			}
			return o
		}
		return e.runAnalytic(ctx, e.p.wl.(workload.Analytic))
	}
	return Outcome{Status: metrics.StatusFailed, Err: fmt.Errorf("unknown job kind %q", e.p.spec.Kind)}
}

func (e *execution) build(ctx context.Context) Outcome {
	if e.grp != nil {
		return e.buildGroup(ctx)
	}
	sp := e.p.spec
	size, _ := e.p.wl.(workload.Builder).PlanBuild(&sp)
	e.out.Logf("build job %d: %s into %s with %s", e.id, size, e.p.target, report.Plural(sp.Workers, "worker"))
	// A server's database that does not exist yet is created first.
	if err := ensureDatabase(ctx, e.p.driver, e.p.target, AdminLogin{}, e.out.Logf); err != nil {
		return failed(ctx, fmt.Errorf("build: %w", err))
	}
	bar := output.NewProgress(e.p.req.ProgressTTY, e.out.Logf)
	env := e.env()
	env.Progress = bar.Update
	rep, err := e.p.wl.(workload.Builder).Build(ctx, env, sp)
	bar.Done()
	if rep.Version != "" {
		_ = e.repo().SetDBVersion(ctx, e.id, rep.Version)
	}
	if err != nil {
		return failed(ctx, fmt.Errorf("build: %w", err))
	}
	secs := rep.Duration.Seconds()
	note := ""
	if rep.Note != "" {
		note = "; " + rep.Note
	}
	e.out.Logf("built %s: %s rows in %.1f s (%s rows/s%s)", rep.Size, report.Int(float64(rep.Rows)), secs,
		report.Int(float64(rep.Rows)/secs), note)
	if err := e.repo().SaveBuildResult(context.WithoutCancel(ctx), e.id, jobs.BuildResult{
		Warehouses: rep.Warehouses, Workers: rep.Workers, Rows: rep.Rows, Seconds: secs,
		RowsPerSec: float64(rep.Rows) / secs, Tables: rep.Tables,
	}); err != nil {
		e.warn("the build result", err)
	}
	return Outcome{Status: metrics.StatusCompleted, Build: &rep}
}

// session opens a session on the target and records the server's version.
func (e *execution) session(ctx context.Context, app string) (db.Conn, error) {
	c, err := e.driver().Connect(ctx, e.p.target, db.Options{AppName: app})
	if err != nil {
		return nil, err
	}
	if v, err := e.p.driver.Version(ctx, c); err == nil {
		_ = e.repo().SetDBVersion(ctx, e.id, v)
	}
	return c, nil
}

func (e *execution) check(ctx context.Context) Outcome {
	c, err := e.session(ctx, "sledge check")
	if err != nil {
		return failed(ctx, err)
	}
	defer c.Close(context.Background())
	rep, err := e.p.wl.(workload.Checker).Check(ctx, e.env(), c)
	if err != nil {
		var se *workload.SchemaError
		if errors.As(err, &se) && errors.Is(err, workload.ErrNoSchema) {
			se.Holds = e.otherSchema(ctx, c)
		}
		return failed(ctx, fmt.Errorf("check: %w", err))
	}
	var b bytes.Buffer
	_, _ = report.Check(&b, e.p.wl.Title(), e.p.target.String(), rep)
	e.out.Text(b.String())
	items := make([]jobs.CheckItem, 0, len(rep.Conditions))
	for _, c := range rep.Conditions {
		items = append(items, jobs.CheckItem(c))
	}
	if err := e.repo().SaveCheck(context.WithoutCancel(ctx), e.id, items); err != nil {
		e.warn("the check", err)
	}
	return Outcome{Status: metrics.StatusCompleted, Check: &rep}
}

// heldSchema names the workload whose build the plan's database records,
// for a check whose workload nobody named: the one other checkable
// workload's build record found there when the plan's own is not; "" when
// the plan's own is there, or no other, or several, or nothing can be told.
// Build records, not tables, tell: the workloads share table names
// (customer, orders). It only looks: a database it cannot reach, or a
// lookup that fails, leaves the check as it was asked (the job then
// records why it failed).
func heldSchema(ctx context.Context, p *plan) string {
	// MustExist: a check leaves no embedded file behind where none was.
	c, err := p.driver.Connect(ctx, p.target, db.Options{AppName: "sledge check", MustExist: true})
	if err != nil {
		return ""
	}
	defer c.Close(context.Background())
	if r, ok := p.wl.(workload.BuildRecorder); !ok {
		return ""
	} else if has, err := r.BuildRecorded(ctx, c, p.target.Kind); err != nil || has {
		return ""
	}
	found := ""
	for _, name := range workload.Names() {
		wl, err := workload.Lookup(name)
		if err != nil || name == p.wl.Name() {
			continue
		}
		r, ok := wl.(workload.BuildRecorder)
		if _, checks := wl.(workload.Checker); !ok || !checks {
			continue
		}
		if has, err := r.BuildRecorded(ctx, c, p.target.Kind); err == nil && has {
			if found != "" {
				return ""
			}
			found = name
		}
	}
	return found
}

// includedBy is the workload whose build the database on c records and
// whose schema includes the job's workload's (workload.Includer), nil for
// none: dropping the included tables alone would leave that schema broken.
// A lookup that fails counts as nothing found.
func (e *execution) includedBy(ctx context.Context, c db.Conn) workload.Workload {
	for _, name := range workload.Names() {
		wl, err := workload.Lookup(name)
		if err != nil || name == e.p.wl.Name() {
			continue
		}
		in, ok := wl.(workload.Includer)
		r, rok := wl.(workload.BuildRecorder)
		if !ok || !rok || !slices.Contains(in.Includes(), e.p.wl.Name()) {
			continue
		}
		if has, err := r.BuildRecorded(ctx, c, e.p.target.Kind); err == nil && has {
			return wl
		}
	}
	return nil
}

// otherSchema names the one other registered workload whose schema the
// database on c holds, so that a check of the wrong workload (TPROC-C's, the
// default, on a TPROC-H database) can say which to name; "" when there is
// none, or several. It only looks: a lookup that fails counts as nothing
// found.
func (e *execution) otherSchema(ctx context.Context, c db.Conn) string {
	found := ""
	for _, name := range workload.Names() {
		wl, err := workload.Lookup(name)
		if err != nil || name == e.p.wl.Name() {
			continue
		}
		f, ok := wl.(workload.SchemaFinder)
		if !ok {
			continue
		}
		if _, ok := wl.(workload.Checker); !ok {
			continue
		}
		if has, err := f.SchemaExists(ctx, c, e.p.target.Kind); err == nil && has {
			if found != "" {
				return ""
			}
			found = name
		}
	}
	return found
}

func (e *execution) drop(ctx context.Context) Outcome {
	c, err := e.session(ctx, "sledge drop")
	if err != nil {
		return failed(ctx, err)
	}
	defer c.Close(context.Background())
	if x := e.includedBy(ctx, c); x != nil {
		return failed(ctx, fmt.Errorf("drop: the %s tables in %s are part of its %s schema: drop that (workload %s), which takes them with it",
			e.p.wl.Title(), e.p.target, x.Title(), x.Name()))
	}
	if err := e.p.wl.(workload.Dropper).Drop(ctx, e.env(), c); err != nil {
		return failed(ctx, fmt.Errorf("drop: %w", err))
	}
	e.out.Logf("dropped the %s schema in %s", e.p.wl.Title(), e.p.target)
	return Outcome{Status: metrics.StatusCompleted}
}
