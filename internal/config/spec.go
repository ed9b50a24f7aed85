package config

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/sledge-bench/sledge/internal/db"
	"github.com/sledge-bench/sledge/internal/observe"
	"github.com/sledge-bench/sledge/internal/threshold"
)

// Job kinds.
const (
	KindBuild = "build"
	KindRun   = "run"
	KindCheck = "check"
	KindDrop  = "drop"
)

// Kinds lists the job kinds a Spec may name.
var Kinds = []string{KindBuild, KindRun, KindCheck, KindDrop}

// DefaultWorkload is the workload of a spec that names none.
const DefaultWorkload = "tprocc"

// DefaultDatagenWorkload is the workload `datagen` writes when it is named
// none: flat files are dbgen's tradition.
const DefaultDatagenWorkload = "tproch"

// Spec is one job as every front end asks for it: the CLI binds its flags
// onto it, the HTTP API decodes its body into it, the HammerDB front ends
// map their settings onto it. Its JSON form is the API's request body; the
// JSON names are also the field names of FieldError.
//
// New fills every default; a decoder that starts from New (Decode) keeps
// what a body leaves out, and a value a body gives — zero included — is
// that value, checked by the same rules as a CLI flag.
type Spec struct {
	Kind     string `json:"kind"`
	Workload string `json:"workload"`
	// DB is the target: a URL or embedded file; empty means $SLEDGE_DB,
	// else the workload's embedded database.
	DB string `json:"db,omitempty"`

	// Build.
	Warehouses int     `json:"warehouses"`
	Scale      float64 `json:"scale"`
	Workers    int     `json:"workers,omitempty"` // 0: the workload's choice
	Force      bool    `json:"force,omitempty"`
	Engine     string  `json:"engine,omitempty"`
	Loader     string  `json:"loader,omitempty"`
	// pgbench's -i options (workload pgbench): the fillfactor of its
	// tables (0: the server's), its foreign keys, and pgbench_accounts
	// split into Partitions partitions by PartitionMethod (range or hash;
	// PostgreSQL only).
	Fillfactor      int    `json:"fillfactor,omitempty"`
	ForeignKeys     bool   `json:"foreign_keys,omitempty"`
	Partitions      int    `json:"partitions,omitempty"`
	PartitionMethod string `json:"partition_method,omitempty"`

	// Confirm says the caller has confirmed a destructive job: a drop, or a
	// build that drops an existing schema (force). Without it such a spec
	// is refused, so that nothing is dropped by a request that did not mean
	// it (a front end asks its user, or takes --yes).
	Confirm bool `json:"confirm,omitempty"`

	// Seed is the generator's seed for builds (0: DefaultBuildSeed) and the
	// inputs' seed for runs (0: random, recorded with the job).
	Seed uint64 `json:"seed,omitempty"`

	// Run.
	VU         int      `json:"vu"`
	Rampup     Duration `json:"rampup"`
	Duration   Duration `json:"duration"`
	Interval   Duration `json:"interval"`
	Mode       string   `json:"mode"`
	Isolation  string   `json:"isolation,omitempty"`
	ExecMode   string   `json:"exec_mode"`
	MaxRetries int      `json:"max_retries,omitempty"`
	// SnapshotIsolation is what TPROC-C sessions do with MariaDB's
	// innodb_snapshot_isolation: server (leave it), on or off (set it for
	// the session where the server has the variable). Off by default, as
	// HammerDB 6's TPROC-C sessions do.
	SnapshotIsolation string `json:"snapshot_isolation,omitempty"`
	// StallAfter is how long a run may go with sessions waiting on the
	// database and no transaction completing before that is reported as a
	// stall (and how late the client's own watchdog may wake before that
	// is a pause of the client). 0: half the interval, within 2 s and
	// 30 s; negative: no stall detection.
	StallAfter  Duration `json:"stall_after,omitempty"`
	Pacing      string   `json:"pacing"`
	PacingScale float64  `json:"pacing_scale"`
	RandomHome  bool     `json:"random_home,omitempty"`
	// PerVUTiming keeps each VU's latency histograms per transaction type
	// with the job besides the run's (HammerDB's time profile: jobs ID
	// timing VUID). Off by default: it costs the monitor a histogram set
	// per VU; the VUs' recording is the same.
	PerVUTiming bool `json:"per_vu_timing,omitempty"`
	// Iterations makes the run an iteration run (HammerDB's test driver
	// with total_iterations): each VU runs this many transactions, then
	// stops, and the run ends when every VU is done; its result is the
	// elapsed time from the VUs' start to the last one's end and the rates
	// over it. An iteration is one transaction drawn and run to its end —
	// committed, rolled back by design, or failed (after its retries) —
	// as HammerDB counts the passes of its loop. Rampup and Duration are
	// not used: like HammerDB's test driver, an iteration run has no
	// ramp-up and measures from the start. 0 (the default): a timed run.
	Iterations int `json:"iterations,omitempty"`

	// Load model (LoadModel): closed-loop VUs by default; terminals over a
	// pool of sessions; or open-loop arrivals at a rate.

	// Terminals is how many terminals share the pool of Connections
	// sessions (0 with Connections set: 10 per warehouse when paced, else
	// as many as the sessions).
	Terminals int `json:"terminals,omitempty"`
	// Connections is the size of the session pool of a terminal or rate
	// run; 0: VU sessions.
	Connections int `json:"connections,omitempty"`
	// Rate makes a rate run: transactions per second, arriving as a
	// Poisson process, their latency counted from their scheduled start.
	// RateByType gives a rate per transaction type instead, as ParseRate
	// reads it ("new_order=90,payment=90"; the names are the workload's
	// transaction types).
	Rate       float64 `json:"rate,omitempty"`
	RateByType string  `json:"rate_by_type,omitempty"`
	// MaxQueue bounds the transactions of a rate run that wait for a free
	// session; an arrival beyond it is dropped and counted (0:
	// DefaultMaxQueue).
	MaxQueue int `json:"max_queue,omitempty"`
	// LatencyLimit, with Rate, skips an arrival that a session would send
	// later than this behind its schedule, and counts it (pgbench's -L
	// with -R); 0: none.
	LatencyLimit Duration `json:"latency_limit,omitempty"`
	// Stages is the run's load shape, as ParseStages reads it: the
	// measured window is its stages, each offering its own VUs, terminals
	// or rate. Empty: one level for Duration.
	Stages string `json:"stages,omitempty"`
	// Between is what a series (Repeat) or profile does to the database
	// between trials: none, vacuum, checkpoint or rebuild (empty: none).
	Between string `json:"between,omitempty"`

	// ClientCPUs is how many cores the client's goroutines may use
	// (GOMAXPROCS). It is a setting of the process, decided once by the
	// process that runs the job; 0 lets that process choose.
	ClientCPUs int `json:"client_cpus,omitempty"`

	// Thresholds are a run's pass/fail criteria, as threshold.Parse reads
	// them ("nopm>=40000", "p99(new_order)<50ms", "errors<1%"): each is
	// judged on the measured window's result and stored with the job.
	Thresholds []string `json:"thresholds,omitempty"`

	// Script runs (workload pgbench). Scripts are the scripts a run draws
	// from, each "builtin:NAME[@WEIGHT]" (tpcb-like, simple-update,
	// select-only) or "PATH[@WEIGHT]", a file in pgbench's script format
	// read by whoever runs the job (empty: builtin:tpcb-like). QueryMode is
	// how their statements are sent: simple, extended or prepared (empty:
	// simple, pgbench's default). Defines set script variables, each
	// "NAME=VALUE" (pgbench's -D).
	Scripts   []string `json:"scripts,omitempty"`
	QueryMode string   `json:"query_mode,omitempty"`
	Defines   []string `json:"defines,omitempty"`
	// PerStatement is pgbench's -r: the result lists each script
	// command's average latency and failures (they are stored with every
	// script run; this says to print them).
	PerStatement bool `json:"per_statement,omitempty"`

	// Analytic runs.
	Streams   int  `json:"streams,omitempty"`
	QuerySets int  `json:"query_sets"`
	Refresh   bool `json:"refresh,omitempty"`
	// Validation runs every query with the specification's validation
	// parameters and checks the answers.
	Validation bool `json:"validate,omitempty"`

	// Mixed runs (workload chbench): AnalyticStreams query streams run the
	// 22 analytic queries over and over beside the VU transactions, in the
	// paper's order or, with AnalyticShuffle, each stream in its own
	// seeded order. They start AnalyticDelay after the measured window
	// opens (the window's part before is the baseline without analytic
	// load), spread evenly over AnalyticRampup, and stop when the window
	// closes.
	AnalyticStreams int      `json:"analytic_streams,omitempty"`
	AnalyticDelay   Duration `json:"analytic_delay,omitempty"`
	AnalyticRampup  Duration `json:"analytic_rampup,omitempty"`
	AnalyticShuffle bool     `json:"analytic_shuffle,omitempty"`

	// Metrics says whether a run observes the database server and the
	// hosts while it runs (internal/observe): "on" or "off".
	Metrics string `json:"metrics,omitempty"`
	// MetricsRate is how many times a second the server's sessions are
	// sampled for what they wait on.
	MetricsRate float64 `json:"metrics_rate,omitempty"`
	// Scrape is the URL of a Prometheus node_exporter on the database's
	// host (http or https): its CPU, memory, disk and network are observed
	// as the database host's (observe.NewScrape). Empty: none.
	Scrape string `json:"scrape,omitempty"`

	// Runs spread over several client processes (agents).

	// Segment is this process's share of the run, as ParseSegment reads
	// it: "I/N" (the I-th of N equal parts, 0-based) or "A:B" fractions
	// ("1/3:2/3"); empty: the whole run. A run's agent drives only its
	// segment's share of the VUs (Segment.Share), numbered as in the whole
	// run; a build's agent loads its segment's share of the warehouses.
	// Every agent of one run gives the same settings and RunID, and its own
	// segment. A segment other than the whole run needs a RunID.
	Segment string `json:"segment,omitempty"`
	// RunID names one run spread over several agents: the agents that give
	// the same run id meet in the jobs repository and make one job. 1 to 64
	// letters, digits, '.', '_' or '-'; empty: a run of its own.
	RunID string `json:"run_id,omitempty"`
	// AgentWait is how long the agents of a run spread over several wait
	// for each other (to join, and for a run to be ready) before those
	// there start without the rest (a build fails instead: it needs every
	// part). Only used with a segment.
	AgentWait Duration `json:"agent_wait,omitempty"`
}

// MaxRunIDLen bounds Spec.RunID.
const MaxRunIDLen = 64

// Defaults of the settings whose zero value is not their default.
const (
	DefaultVUs      = 4
	DefaultRampup   = 10 * time.Second
	DefaultDuration = time.Minute
	DefaultInterval = 10 * time.Second
	// DefaultAgentWait leaves time for the agents' machines or pods to
	// start (an image pull, a node scaled up).
	DefaultAgentWait   = 2 * time.Minute
	DefaultWarehouses  = 1
	DefaultScale       = 1.0
	DefaultQuerySets   = 1
	DefaultPacingScale = 1.0
	DefaultMode        = "auto"
	DefaultExecMode    = "prepared"
	DefaultPacing      = "off"
	DefaultMetrics     = "on"
	// DefaultMetricsRate is observe.DefaultRate.
	DefaultMetricsRate = observe.DefaultRate
	// DefaultSnapshotIsolation is HammerDB 6's choice: its MariaDB TPROC-C
	// sessions switch innodb_snapshot_isolation off where it exists.
	DefaultSnapshotIsolation = "off"
	// MaxMetricsRate bounds MetricsRate: faster sampling costs the server
	// more than it tells.
	MaxMetricsRate = 100
	// DefaultBuildSeed makes builds reproducible by default: two databases
	// built with the same size hold the same rows.
	DefaultBuildSeed = 1
	// MaxVUs bounds the virtual users of one process.
	MaxVUs = 10000
	// MaxRetriesLimit bounds MaxRetries.
	MaxRetriesLimit = 255
	// MinInterval is the shortest monitor interval.
	MinInterval = 100 * time.Millisecond
	// MinDuration is the shortest measured window of a timed run (as
	// pgbench's -T): per-minute rates of a few milliseconds are noise.
	MinDuration = time.Second
	// MaxTime bounds the ramp-up, the measured window (a staged one's
	// stages together) and the interval: a year is beyond any run, and it
	// keeps every sum of the run's times far from where a time.Duration
	// overflows (292 years).
	MaxTime = 365 * 24 * time.Hour
)

// New returns a spec of the kind with every default filled in: the one
// place Sledge's defaults are written.
func New(kind string) Spec {
	return Spec{
		Kind:              kind,
		Workload:          DefaultWorkload,
		Warehouses:        DefaultWarehouses,
		Scale:             DefaultScale,
		VU:                DefaultVUs,
		Rampup:            Duration(DefaultRampup),
		Duration:          Duration(DefaultDuration),
		Interval:          Duration(DefaultInterval),
		Mode:              DefaultMode,
		ExecMode:          DefaultExecMode,
		SnapshotIsolation: DefaultSnapshotIsolation,
		Pacing:            DefaultPacing,
		PacingScale:       DefaultPacingScale,
		QuerySets:         DefaultQuerySets,
		Metrics:           DefaultMetrics,
		MetricsRate:       DefaultMetricsRate,
		AgentWait:         Duration(DefaultAgentWait),
	}
}

// Decode reads a JSON spec on top of the defaults, refusing unknown fields
// and trailing data. A type error names its field.
func Decode(b []byte) (Spec, error) {
	s := New("")
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&s); err != nil {
		return Spec{}, decodeError(b, err)
	}
	if dec.More() {
		return Spec{}, FieldErrors{{Msg: "body: more than one JSON value"}}
	}
	return s, nil
}

// jsonKind says what JSON value a Go type takes, for a type error.
func jsonKind(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return fmt.Sprintf("a whole number from %d to %d", int64(-1)<<(t.Bits()-1), int64(1)<<(t.Bits()-1)-1)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return fmt.Sprintf("a whole number from 0 to %d", uint64(1)<<(t.Bits()-1)*2-1)
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Bool:
		return "true or false"
	case reflect.String:
		return "a string"
	case reflect.Slice, reflect.Array:
		if t.Elem().Kind() == reflect.String {
			return "an array of strings"
		}
		return "an array"
	case reflect.Map, reflect.Struct:
		return "an object"
	}
	return "a JSON value"
}

func decodeError(b []byte, err error) error {
	var ute *json.UnmarshalTypeError
	if errors.As(err, &ute) {
		if ute.Field == "" { // the body itself: an array, a string …
			return FieldErrors{{Msg: fmt.Sprintf("body: want a JSON object (a job spec), not a JSON %s", ute.Value)}}
		}
		return FieldErrors{{Field: ute.Field, Msg: fmt.Sprintf("%s: want %s, not a JSON %s", ute.Field, jsonKind(ute.Type), ute.Value)}}
	}
	var de durationError
	if errors.As(err, &de) {
		// encoding/json does not say which field a custom decoder refused:
		// find the duration that does not parse.
		var raw map[string]json.RawMessage
		_ = json.Unmarshal(b, &raw)
		for _, field := range []string{"rampup", "duration", "interval", "analytic_delay", "analytic_rampup"} {
			var d Duration
			if v, ok := raw[field]; ok && d.UnmarshalJSON(v) != nil {
				return FieldErrors{{Field: field, Msg: field + ": " + de.Error()}}
			}
		}
		return FieldErrors{{Msg: de.Error()}}
	}
	if name, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
		name = strings.Trim(name, `"`)
		return FieldErrors{{Field: name, Msg: fmt.Sprintf("unknown field %q", name)}}
	}
	return FieldErrors{{Msg: "body: " + err.Error()}}
}

// BuildSeed is the generator seed a build uses.
func (s Spec) BuildSeed() uint64 {
	if s.Seed == 0 {
		return DefaultBuildSeed
	}
	return s.Seed
}

// Paced reports whether the spec asks for the workload's keying and think
// times, and by what factor (1: the specification's times).
func (s Spec) PacingFactor() float64 {
	if s.Pacing == "spec" {
		return s.PacingScale
	}
	return 0
}

// FieldError is one invalid setting. Field is the spec's JSON name ("vu",
// "max_retries"); each front end words it its own way (--vu, "field":"vu",
// vuset vu). Msg is a sentence that starts with the field's name.
type FieldError struct {
	Field string
	Msg   string
}

func (e FieldError) Error() string { return e.Msg }

// FieldErrors is every invalid setting of a spec.
type FieldErrors []FieldError

func (es FieldErrors) Error() string {
	msgs := make([]string, len(es))
	for i, e := range es {
		msgs[i] = e.Msg
	}
	return strings.Join(msgs, "; ")
}

// Worded is the messages, one a line, each with its field named as a front
// end names it (name("max_retries") might be "--max-retries"): a message
// that starts with its field's name starts with the front end's name
// instead, another is prefixed with it ("NAME: MESSAGE"); a message of no
// field is as it is.
func (es FieldErrors) Worded(name func(field string) string) string {
	msgs := make([]string, len(es))
	for i, e := range es {
		msgs[i] = e.Msg
		if e.Field == "" {
			continue
		}
		if rest, ok := strings.CutPrefix(e.Msg, e.Field); ok {
			msgs[i] = name(e.Field) + rest
		} else {
			msgs[i] = name(e.Field) + ": " + e.Msg
		}
	}
	return strings.Join(msgs, "\n")
}

// Fields returns the field errors in err (nil when it has none).
func Fields(err error) FieldErrors {
	var fe FieldErrors
	if errors.As(err, &fe) {
		return fe
	}
	var one FieldError
	if errors.As(err, &one) {
		return FieldErrors{one}
	}
	return nil
}

func fieldErr(field, format string, args ...any) FieldError {
	return FieldError{Field: field, Msg: field + " " + fmt.Sprintf(format, args...)}
}

// check applies every rule of the settings the kind uses, reading the
// text settings into p as it goes (Parse).
func (s Spec) check(p *Plan) FieldErrors {
	var errs FieldErrors
	segErrs := s.checkSegment(p) // first: the load's rules need the segment
	add := func(cond bool, field, format string, args ...any) {
		if cond {
			errs = append(errs, fieldErr(field, format, args...))
		}
	}
	switch s.Kind {
	case "":
		errs = append(errs, FieldError{Field: "kind", Msg: "kind is required: " + strings.Join(Kinds, ", ")})
	case KindBuild, KindRun, KindCheck, KindDrop:
	default:
		errs = append(errs, fieldErr("kind", "%q: want one of %s", s.Kind, strings.Join(Kinds, ", ")))
	}
	switch s.Kind {
	case KindDrop:
		add(!s.Confirm, "confirm", "must be true to drop a schema")
	case KindBuild:
		add(s.Force && !s.Confirm, "confirm", "must be true for a build that drops an existing schema (force)")
		add(s.Warehouses < 1, "warehouses", "must be at least 1 (got %d)", s.Warehouses)
		add(s.Workers < 0, "workers", "must not be negative (got %d)", s.Workers)
		add(!(s.Scale > 0), "scale", "must be positive (got %g)", s.Scale)
		add(s.Loader != "" && s.Loader != "stream" && s.Loader != "insert", "loader", "%q: unknown loader, want stream or insert", s.Loader)
		add(s.Fillfactor != 0 && (s.Fillfactor < 10 || s.Fillfactor > 100), "fillfactor", "must be in 10..100 (got %d)", s.Fillfactor)
		add(s.Partitions < 0, "partitions", "must not be negative (got %d)", s.Partitions)
		add(!oneOf(s.PartitionMethod, "", "range", "hash"), "partition_method", "%q: want range or hash", s.PartitionMethod)
		add(s.PartitionMethod != "" && s.Partitions == 0, "partition_method", "%s needs partitions of at least 1", s.PartitionMethod)
	case KindRun:
		add(s.VU < 1, "vu", "must be at least 1 (got %d)", s.VU)
		add(s.VU > MaxVUs, "vu", "%d is more than %d virtual users", s.VU, MaxVUs)
		add(s.Rampup < 0, "rampup", "must not be negative (got %s)", s.Rampup)
		add(s.Rampup.D() > MaxTime, "rampup", "must be at most %s (got %s)", MaxTime, s.Rampup)
		add(s.Iterations < 0, "iterations", "must not be negative (got %d; 0 is a timed run)", s.Iterations)
		// An iteration run ends when its VUs are done: no duration is used.
		add(s.Iterations == 0 && s.Duration <= 0, "duration", "must be positive (got %s)", s.Duration)
		add(s.Iterations == 0 && s.Stages == "" && s.Duration > 0 && s.Duration.D() < MinDuration, "duration",
			"must be at least %s: rates over a shorter window say nothing (got %s)", MinDuration, s.Duration)
		add(s.Duration.D() > MaxTime, "duration", "must be at most %s (got %s)", MaxTime, s.Duration)
		add(time.Duration(s.Interval) < MinInterval, "interval", "must be at least %s (got %s)", MinInterval, s.Interval)
		add(s.Interval.D() > MaxTime, "interval", "must be at most %s (got %s)", MaxTime, s.Interval)
		add(s.MaxRetries < 0 || s.MaxRetries > MaxRetriesLimit, "max_retries", "must be in 0..%d (got %d)", MaxRetriesLimit, s.MaxRetries)
		add(s.StallAfter > 0 && time.Duration(s.StallAfter) < MinInterval, "stall_after",
			"must be at least %s (got %s; 0 is the default, a negative value turns stall detection off)", MinInterval, s.StallAfter)
		_, err := db.ParseIsolation(s.Isolation)
		add(err != nil, "isolation", "%q: want read-committed, repeatable-read or serializable", s.Isolation)
		_, err = db.ParseSnapshotIsolation(s.SnapshotIsolation)
		add(err != nil, "snapshot_isolation", "%q: want server, on or off", s.SnapshotIsolation)
		_, err = db.ParseExecMode(s.ExecMode)
		add(err != nil, "exec_mode", "%q: want prepared or simple", s.ExecMode)
		add(!oneOf(s.Pacing, "off", "spec"), "pacing", "%q: want off or spec", s.Pacing)
		add(!(s.PacingScale > 0 && s.PacingScale <= 10), "pacing_scale", "must be in (0, 10] (got %g)", s.PacingScale)
		add(s.ClientCPUs < 0, "client_cpus", "must not be negative (got %d)", s.ClientCPUs)
		add(s.Streams < 0, "streams", "must not be negative (got %d)", s.Streams)
		add(s.QuerySets < 1, "query_sets", "must be at least 1 (got %d)", s.QuerySets)
		add(s.AnalyticStreams < 0, "analytic_streams", "must not be negative (got %d)", s.AnalyticStreams)
		add(s.AnalyticStreams > MaxVUs, "analytic_streams", "%d is more than %d streams", s.AnalyticStreams, MaxVUs)
		add(s.AnalyticDelay < 0, "analytic_delay", "must not be negative (got %s)", s.AnalyticDelay)
		add(s.AnalyticRampup < 0, "analytic_rampup", "must not be negative (got %s)", s.AnalyticRampup)
		add(s.AnalyticDelay.D() > MaxTime || s.AnalyticRampup.D() > MaxTime, "analytic_delay", "and analytic_rampup must each be at most %s", MaxTime)
		add(!oneOf(s.QueryMode, "", "simple", "extended", "prepared"), "query_mode", "%q: want simple, extended or prepared", s.QueryMode)
		for _, d := range s.Defines {
			name, _, ok := strings.Cut(d, "=")
			add(!ok || name == "", "defines", "%q: want NAME=VALUE", d)
		}
		add(!oneOf(s.Metrics, "on", "off"), "metrics", "%q: want on or off", s.Metrics)
		add(!(s.MetricsRate > 0 && s.MetricsRate <= MaxMetricsRate), "metrics_rate", "must be in (0, %d] samples per second (got %g)", MaxMetricsRate, s.MetricsRate)
		errs = append(errs, s.checkLoad(p)...)
		errs = append(errs, s.checkThresholds(p)...)
	}
	add(s.Kind != KindRun && s.Kind != "" && len(s.Thresholds) > 0, "thresholds", "apply to run jobs only, not %s", s.Kind)
	errs = append(errs, segErrs...)
	// Whatever the kind: a scrape URL is fetched by whoever runs the job,
	// so a bad one is refused even where it would go unused.
	if s.Scrape != "" {
		if err := observe.CheckScrapeURL(s.Scrape); err != nil {
			errs = append(errs, fieldErr("scrape", "%q: %v (e.g. http://db1:9100/metrics)", db.Redact(s.Scrape), err))
		}
	}
	return errs
}

// checkThresholds reads the thresholds into p; the workload checks that
// its runs measure what they name (threshold.Check).
func (s Spec) checkThresholds(p *Plan) FieldErrors {
	var errs FieldErrors
	for _, text := range s.Thresholds {
		t, err := threshold.Parse(text)
		if err != nil {
			errs = append(errs, fieldErr("thresholds", "%v", err))
			continue
		}
		p.Thresholds = append(p.Thresholds, t)
	}
	return errs
}

// checkSegment checks Segment and RunID, reading the segment into p.
func (s Spec) checkSegment(p *Plan) FieldErrors {
	var errs FieldErrors
	if s.RunID != "" {
		if !validRunID(s.RunID) {
			errs = append(errs, fieldErr("run_id", "%q: want 1 to %d letters, digits, '.', '_' or '-'", s.RunID, MaxRunIDLen))
		}
		if s.Kind != KindRun && s.Kind != KindBuild && s.Kind != "" {
			errs = append(errs, fieldErr("run_id", "applies to run and build jobs only, not %s", s.Kind))
		}
	}
	seg, err := ParseSegment(s.Segment)
	if err != nil {
		// ParseSegment's errors start with "segment".
		return append(errs, FieldError{Field: "segment", Msg: err.Error()})
	}
	p.Segment = seg
	if s.RunID != "" && (s.AgentWait.D() < time.Second || s.AgentWait.D() > 24*time.Hour) {
		errs = append(errs, fieldErr("agent_wait", "must be between 1s and 24h (got %s)", s.AgentWait.D()))
	}
	if seg.IsWhole() {
		return errs
	}
	switch s.Kind {
	case KindRun, KindBuild, "":
	default:
		return append(errs, fieldErr("segment", "%s: applies to run and build jobs only, not %s", s.Segment, s.Kind))
	}
	if s.RunID == "" {
		errs = append(errs, fieldErr("segment", "%s: needs a run id, the same for every agent of the run", s.Segment))
	}
	if s.Kind == KindRun && s.VU >= 1 && s.VU <= MaxVUs {
		if _, n := seg.Share(s.VU); n == 0 {
			if _, parts, ok := seg.Parts(); ok {
				errs = append(errs, fieldErr("segment", "%s gets no virtual users: %d VUs over %d segments", strings.TrimSpace(s.Segment), s.VU, parts))
			} else {
				errs = append(errs, fieldErr("segment", "%s gets no virtual users: its share of %d VUs is empty", strings.TrimSpace(s.Segment), s.VU))
			}
		}
	}
	return errs
}

// validRunID reports whether id is 1..MaxRunIDLen of [A-Za-z0-9._-].
func validRunID(id string) bool {
	if id == "" || len(id) > MaxRunIDLen {
		return false
	}
	for _, r := range id {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '_' || r == '-') {
			return false
		}
	}
	return true
}

func oneOf(v string, valid ...string) bool {
	for _, x := range valid {
		if v == x {
			return true
		}
	}
	return false
}

// Duration is a time.Duration written in JSON as Go's duration text ("30s",
// "5m"); a bare number is read as seconds.
type Duration time.Duration

func (d Duration) String() string { return time.Duration(d).String() }

// D is the time.Duration.
func (d Duration) D() time.Duration { return time.Duration(d) }

func (d Duration) MarshalJSON() ([]byte, error) { return json.Marshal(d.String()) }

type durationError struct{ text string }

func (e durationError) Error() string {
	return fmt.Sprintf("%q is not a duration like \"30s\" or \"5m\"", e.text)
}

func (d *Duration) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		secs, nerr := strconv.ParseFloat(string(b), 64)
		// From ±292 years on (9.2e9 s) the conversion would overflow into
		// any value: refused short of it.
		if nerr != nil || !(math.Abs(secs) < 9e9) {
			return durationError{string(b)}
		}
		*d = Duration(secs * float64(time.Second))
		return nil
	}
	v, err := time.ParseDuration(s)
	if err != nil {
		return durationError{s}
	}
	*d = Duration(v)
	return nil
}
