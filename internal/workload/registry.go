package workload

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/sledge-bench/sledge/internal/config"
	"github.com/sledge-bench/sledge/internal/db"
	"github.com/sledge-bench/sledge/internal/metrics"
	"github.com/sledge-bench/sledge/internal/threshold"
)

// Workload is the tiny core every workload implements. What else it can do
// (build, check, drop, generate files, run as OLTP or analytic) it says by
// implementing the capability interfaces below, which the job service
// discovers by type assertion: adding a workload touches no front end.
type Workload interface {
	// Name is the workload's id in specs and job records ("tprocc").
	Name() string
	// Title is its name for people ("TPROC-C").
	Title() string
	// Aliases are other names Lookup accepts ("tproc-c").
	Aliases() []string
	// DefaultDB is the embedded database a job uses when it names none,
	// inside Sledge's data directory.
	DefaultDB(dataDir string) string
}

// Validator adds a workload's own rules to config.Spec.Parse's. p holds
// what parsed of the spec (a setting that did not is zero: the spec's own
// error).
type Validator interface {
	Validate(p config.Plan) config.FieldErrors
}

// TargetValidator adds a workload's rules that depend on the target (a
// setting only some databases have), checked before any job is recorded.
type TargetValidator interface {
	ValidateTarget(p config.Plan, t db.Target) config.FieldErrors
}

// Env is what a capability gets from the job service: the target, its
// driver, and where to report.
type Env struct {
	Driver db.Driver
	Target db.Target
	// Logf reports a line of the job's output (printed and stored).
	Logf func(format string, args ...any)
	// Progress reports a build's progress; never nil.
	Progress func(Progress)
	// Query reports each query of an analytic run as it ends, from its
	// stream's goroutine (streams call it concurrently); nil: nobody
	// listens. The HammerDB console prints each stream's lines from it.
	Query func(metrics.AnalyticQuery)
	// QueryStart reports each query of an analytic run as it starts (its
	// stream, set, position and number), as Query does; nil: nobody
	// listens. The HammerDB console prints its "Executing Query" lines from
	// it.
	QueryStart func(metrics.AnalyticQuery)
}

// Progress is a snapshot of a long job (a build).
type Progress struct {
	// Phase is one of "drop", "schema", "load", "index", "analyze".
	Phase string
	// RowsDone of RowsTotal: rows loaded in the load phase; in the index and
	// analyze phases, rows of the tables already done.
	RowsDone, RowsTotal int64
	// Table is the table most recently worked on.
	Table string
}

// Builder creates a workload's schema and loads it.
type Builder interface {
	// PlanBuild resolves the spec's build defaults in place (workers …) and
	// returns the settings recorded with the job and a phrase naming the
	// size of the build ("4 warehouses", "scale factor 1").
	PlanBuild(p *config.Plan) (size string, settings map[string]string)
	Build(ctx context.Context, env Env, p config.Plan) (BuildReport, error)
}

// BuildReport is a finished build.
type BuildReport struct {
	Size       string // as PlanBuild named it
	Warehouses int    // TPROC-C; 0 otherwise
	Workers    int
	Rows       int64
	Tables     map[string]int64
	Duration   time.Duration
	Version    string // the database's product and version
	// Note qualifies the build's time (what it includes) and says what the
	// build met on the way (table parts loaded again), or is empty.
	Note string
}

// SchemaFinder says whether the database on c holds the workload's schema
// (or what is left of an unfinished build).
type SchemaFinder interface {
	SchemaExists(ctx context.Context, c db.Conn, k db.Kind) (bool, error)
}

// BuildRecorder says whether the database on c holds the record a build of
// the workload left (finished or not): unlike SchemaFinder's tables, which
// workloads may share by name (customer, orders), the record is the
// workload's own.
type BuildRecorder interface {
	BuildRecorded(ctx context.Context, c db.Conn, k db.Kind) (bool, error)
}

// Includer is a workload whose schema includes other workloads' whole
// schemas (CH-benCHmark's includes TPROC-C's): their drop must not take
// those tables out from under it.
type Includer interface {
	Includes() []string // the registered names of the included workloads
}

// FirstRunBuilder is a workload whose first run on its embedded default
// database builds the schema first, so that `sledge run` works with nothing
// installed.
type FirstRunBuilder interface {
	SchemaFinder
	// FirstRunBuild is the build to do before run p.
	FirstRunBuild(p config.Plan) config.Spec
}

// Checker verifies a built schema.
type Checker interface {
	Check(ctx context.Context, env Env, c db.Conn) (CheckReport, error)
}

// CheckReport is the outcome of a check.
type CheckReport struct {
	Tables     []TableRows
	Conditions []Condition
}

// Failed counts the conditions that failed (skipped ones do not count).
func (r CheckReport) Failed() int {
	n := 0
	for _, c := range r.Conditions {
		if !c.Skipped && !c.Passed {
			n++
		}
	}
	return n
}

// TableRows is the row count of one table.
type TableRows struct {
	Name string
	Rows int64
}

// Condition is one consistency condition or expectation checked.
type Condition struct {
	Name        string
	Description string
	Passed      bool
	Skipped     bool
	Violations  int64
	Note        string
}

// Dropper removes a workload's schema.
type Dropper interface {
	Drop(ctx context.Context, env Env, c db.Conn) error
}

// Datagener writes a workload's data as flat files instead of loading it.
type Datagener interface {
	// DataFiles lists the files of p's data in format for up to workers
	// parallel writers.
	DataFiles(p config.Plan, workers int, format DataFormat) ([]DataFile, error)
}

// DataFormat is how data files encode their rows.
type DataFormat string

const (
	// DataTbl is dbgen's style: every value followed by '|' (the last
	// too), NULL as an empty value, no escapes; files named <table>.tbl.
	DataTbl DataFormat = "tbl"
	// DataCopy is PostgreSQL's COPY text format, which is also
	// MariaDB/MySQL LOAD DATA's default: values separated by tabs, \N for
	// NULL, backslash escapes; files named <table>.copy. Both servers'
	// loaders take it as it is.
	DataCopy DataFormat = "copy"
)

// DataFile is one flat file of generated data.
type DataFile struct {
	Name string
	// Table is the table its rows belong in, Columns theirs in order.
	Table   string
	Columns []string
	// Write writes the file's rows and returns how many it wrote.
	Write func(ctx context.Context, w io.Writer) (rows int64, err error)
}

// OLTP is a workload the engine drives with virtual users.
type OLTP interface {
	// PrepareRun readies run p against env's target (its monitor
	// session, what the build recorded, server-side routines).
	PrepareRun(ctx context.Context, env Env, p config.Plan) (OLTPRun, error)
}

// OLTPRun is one prepared OLTP run: the engine's Runner and what the job
// service records and prints about it.
type OLTPRun interface {
	Runner
	// Settings are recorded with the job: what the run resolved (mode,
	// seed, warehouses …).
	Settings() map[string]string
	// Version is the database's product and version.
	Version(ctx context.Context) (string, error)
	// Describe is the run's set-up in a phrase ("4 warehouses, 8 VUs, mode
	// procs").
	Describe() string
	// Notes are advice about the spec given what the database holds
	// (e.g. more VUs than the schema suits).
	Notes() []string
	// Complete adds the workload's figures to a result (warehouses, mode,
	// the paced ceiling …).
	Complete(res *metrics.RunResult)
}

// Beside is a workload whose OLTP runs may have a second kind of user
// beside the engine's virtual users, over the same measured window
// (CH-benCHmark's analytic query streams). The job service starts it on
// the run's clock, stops it with the run, and adds what it measured to the
// run's result: the engine and its executors know nothing of it.
type Beside interface {
	// PrepareBeside readies run p's second load (its sessions open when
	// it starts); nil when p asks for none.
	PrepareBeside(ctx context.Context, env Env, p config.Plan) (BesideRun, error)
}

// BesideRun is one prepared second load of an OLTP run.
type BesideRun interface {
	// Describe is its set-up in a phrase ("2 analytic streams …").
	Describe() string
	// Settings are recorded with the job besides the OLTP run's.
	Settings() map[string]string
	// Run drives the load on the run's clock, which started at t0 (the
	// ramp-up's start), until the measured window's planned end or until
	// ctx ends; it returns once its sessions are closed.
	Run(ctx context.Context, t0 time.Time)
	// Complete adds what it measured to the run's result, given the run's
	// intervals as stored.
	Complete(res *metrics.RunResult, ivs []metrics.Interval)
}

// RunReporter is an OLTP workload whose run results read in its own
// vocabulary instead of the TPROC-C-shaped result (pgbench's: TPS,
// latency average and stddev, per-script sections). The result a run
// prints as it ends and the one `jobs show` prints are both its.
type RunReporter interface {
	WriteRunReport(w io.Writer, r RunReport) error
}

// RunReport is what a RunReporter renders: job ID's result against the
// database version at target, with the settings recorded with the job.
type RunReport struct {
	ID              int64
	Target, Version string
	Settings        map[string]string
	Result          *metrics.RunResult
	// Embedded says the database engine ran inside Sledge (its work is
	// client CPU).
	Embedded bool
}

// Analytic is a workload of query streams (power and throughput tests).
type Analytic interface {
	// AnalyticSettings resolves the run's defaults in p in place (a random
	// or default seed is chosen here, so that the settings recorded with the
	// job show the one the run uses) and returns the settings recorded.
	AnalyticSettings(p *config.Plan) map[string]string
	RunAnalytic(ctx context.Context, env Env, p config.Plan) (*metrics.AnalyticResult, error)
}

// Maintainer tidies a built schema between two trials of a series or a
// profile (config.Spec.Between): what is config.BetweenVacuum (fresh
// statistics, dead rows reclaimed where the database does that) or
// config.BetweenCheckpoint (dirty pages written out), by the database's
// own means. It opens no session of its own: c is one on env's target.
type Maintainer interface {
	Maintain(ctx context.Context, env Env, c db.Conn, what string) (Maintenance, error)
}

// Maintenance is what a Maintainer did, for the log.
type Maintenance struct {
	// Did names the statements run ("VACUUM (ANALYZE) of 9 tables").
	Did string
	// Note says what that means or does not do on this database ("" when
	// there is nothing to add).
	Note string
}

// Rebuilder reads how the schema on c was built, from the build's own
// record in the database, as a build spec (warehouses and seed, scale
// factor …) that builds it again (config.Spec.Between rebuild). The spec
// names no target and does not force: the caller adds those.
type Rebuilder interface {
	RebuildSpec(ctx context.Context, env Env, c db.Conn) (config.Spec, error)
}

var registry = struct {
	sync.RWMutex
	byName map[string]Workload
}{byName: map[string]Workload{}}

// Register makes a workload available to Lookup under its name and
// aliases. It panics on a duplicate name: registration happens in init.
func Register(w Workload) {
	registry.Lock()
	defer registry.Unlock()
	for _, n := range append([]string{w.Name()}, w.Aliases()...) {
		key := strings.ToLower(n)
		if _, dup := registry.byName[key]; dup {
			panic("workload: duplicate registration of " + n)
		}
		registry.byName[key] = w
	}
}

// Lookup finds a registered workload by name or alias, case-insensitively.
func Lookup(name string) (Workload, error) {
	registry.RLock()
	defer registry.RUnlock()
	if w, ok := registry.byName[strings.ToLower(name)]; ok {
		return w, nil
	}
	return nil, fmt.Errorf("unknown workload %q: want %s", name, strings.Join(namesLocked(), " or "))
}

// Names lists the registered workloads' names, sorted.
func Names() []string {
	registry.RLock()
	defer registry.RUnlock()
	return namesLocked()
}

func namesLocked() []string {
	seen := map[string]bool{}
	var names []string
	for _, w := range registry.byName {
		if !seen[w.Name()] {
			seen[w.Name()] = true
			names = append(names, w.Name())
		}
	}
	sort.Strings(names)
	return names
}

// Choices lists the registered workloads, each as its name and title, e.g.
// "tprocc (TPROC-C) or tproch (TPROC-H)": what a front end offers to
// choose from.
func Choices() string {
	var names []string
	for _, n := range Names() {
		names = append(names, n+" ("+Title(n)+")")
	}
	return strings.Join(names, " or ")
}

// Title returns the title of a registered workload, or name itself.
func Title(name string) string {
	if w, err := Lookup(name); err == nil {
		return w.Title()
	}
	return name
}

// CheckThresholds reports the thresholds of run p that name what the
// workload's runs do not measure (threshold.Check), as field errors of
// "thresholds".
func CheckThresholds(p config.Plan, sc threshold.Scope) config.FieldErrors {
	var errs config.FieldErrors
	for _, err := range threshold.Check(p.Thresholds, sc) {
		errs = append(errs, config.FieldError{Field: "thresholds", Msg: "thresholds " + err.Error()})
	}
	return errs
}
