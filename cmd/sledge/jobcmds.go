package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/pprof"
	"slices"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/sledge-bench/sledge/internal/app"
	"github.com/sledge-bench/sledge/internal/config"
	"github.com/sledge-bench/sledge/internal/db"
	"github.com/sledge-bench/sledge/internal/server"
	"github.com/sledge-bench/sledge/internal/shell"
	"github.com/sledge-bench/sledge/internal/workload"
)

// The job commands (build, run, check, drop) bind their flags onto a
// config.Spec — whose defaults are the flags' defaults — and hand it to the
// job service, or to a `sledge serve` with --server.

const dbFlagHelp = "database: postgres://user:pass@host:port/dbname, mysql://user:pass@host:port/dbname or mariadb://… (MariaDB or MySQL; ?socket=PATH for a Unix socket), sqlite:PATH or a *.db/*.sqlite file, duckdb:PATH (default $SLEDGE_DB, else the workload's embedded database in the data directory: SQLite for tprocc and chbench, DuckDB for tproch)"

func bindTargetFlags(fl *pflag.FlagSet, s *config.Spec) {
	fl.StringVar(&s.DB, "db", s.DB, dbFlagHelp)
	fl.StringVar(&s.Workload, "workload", s.Workload, workloadFlagHelp()) // cobra adds the default
}

func newBuildCmd(gs *globalState) *cobra.Command {
	s := config.New(config.KindBuild)
	var yes bool
	var out jobOutput
	cmd := withHelp("build", &cobra.Command{
		Use:   "build",
		Short: "Create a workload's schema and load it (TPROC-C by default, TPROC-H with --workload tproch)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			s.Confirm = false
			if s.Force {
				// --force may drop a schema: the user's word that it may go.
				ok, err := confirm(cmd, gs, s, yes, "Drop any %s schema in %s and build it again? [y/N] ")
				if err != nil {
					return err
				}
				s.Confirm = ok
			}
			return runJobCmd(cmd, gs, s, out)
		},
	})
	fl := cmd.Flags()
	out.bind(fl, false)
	bindTargetFlags(fl, &s)
	fl.BoolVarP(&yes, "yes", "y", false, "with --force: do not ask for confirmation (needed when there is no terminal)")
	fl.IntVarP(&s.Warehouses, "warehouses", "w", s.Warehouses, "TPROC-C warehouses (each adds about 500,000 rows, ~80 MB)")
	fl.Float64Var(&s.Scale, "scale", s.Scale, "TPROC-H scale factor: 1, 10, 30, 100, … (fractional ones such as 0.01 or 0.1 for tests, labelled as such); pgbench: its scale, a whole number (100,000 accounts each)")
	fl.IntVar(&s.Workers, "workers", s.Workers, "parallel loading sessions (default: number of CPUs; TPROC-C: at most --warehouses)")
	fl.Uint64Var(&s.Seed, "seed", config.DefaultBuildSeed, "seed of the TPROC-C data generator")
	fl.BoolVar(&s.Force, "force", s.Force, "drop an existing schema of the workload first")
	fl.StringVar(&s.Engine, "engine", s.Engine, "MariaDB/MySQL storage engine of the tables (default InnoDB)")
	fl.StringVar(&s.Loader, "loader", s.Loader, "how rows travel: stream (PostgreSQL COPY, MariaDB/MySQL LOAD DATA LOCAL INFILE; parallel) or insert (batched INSERTs, one writer); default: stream where the database takes it")
	fl.IntVar(&s.Fillfactor, "fillfactor", s.Fillfactor, "pgbench: fill factor (10-100) of pgbench_branches, pgbench_tellers and pgbench_accounts, PostgreSQL only (default: the server's, 100)")
	fl.BoolVar(&s.ForeignKeys, "foreign-keys", s.ForeignKeys, "pgbench: add pgbench's foreign keys after the load (PostgreSQL, MariaDB/MySQL)")
	fl.IntVar(&s.Partitions, "partitions", s.Partitions, "pgbench: split pgbench_accounts into N partitions, PostgreSQL only (0: none)")
	fl.StringVar(&s.PartitionMethod, "partition-method", s.PartitionMethod, "pgbench: with --partitions, range or hash on aid (default range)")
	bindSegmentFlags(fl, &s, "build", "TPROC-C: the process loads its share of the warehouses")
	return cmd
}

func newRunCmd(gs *globalState) *cobra.Command {
	cmd, _ := runCommand(gs)
	return cmd
}

// runCommand is `sledge run` with the spec its flags are bound onto.
func runCommand(gs *globalState) (*cobra.Command, *config.Spec) {
	s := config.New(config.KindRun)
	var cpuProfile string
	out := jobOutput{progress: app.FormatText}
	repeat := 1
	var rf *runSpecFlags
	cmd := withHelp("run", &cobra.Command{
		Use:   "run",
		Short: "Run a workload and report its result (TPROC-C: NOPM, TPM, latencies and errors)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if cpuProfile != "" {
				pf, err := os.Create(cpuProfile)
				if err != nil {
					return fmt.Errorf("--cpuprofile: %w", err)
				}
				defer pf.Close()
				if err := pprof.StartCPUProfile(pf); err != nil {
					return fmt.Errorf("--cpuprofile: %w", err)
				}
				defer pprof.StopCPUProfile()
			}
			if err := rf.parse(); err != nil {
				return err
			}
			if err := unusedByIterations(cmd.Flags(), s); err != nil {
				return err
			}
			if err := out.check(); err != nil {
				return err
			}
			switch {
			case repeat < 1 || repeat > app.MaxTrials:
				return fmt.Errorf("--repeat must be between 1 and %d (got %d)", app.MaxTrials, repeat)
			case repeat > 1 && (out.format != app.FormatText || out.progress != app.FormatText || out.progressFile != ""):
				return errors.New("--repeat: not with --progress json, --progress-file or --format json (a series prints its trials' table)")
			case repeat == 1 && s.Between != "" && s.Between != config.BetweenNone:
				return errors.New("--between applies between trials: use it with --repeat N (or sledge profile)")
			case repeat > 1:
				if err := localOnly(gs, "--repeat"); err != nil {
					return err
				}
				// Asked last: every other check has passed.
				if err := rf.confirmRebuild(cmd, gs); err != nil {
					return err
				}
				return runSeriesCmd(cmd, gs, s, repeat)
			}
			return runJobCmd(cmd, gs, s, out)
		},
	})
	cmd.Flags().IntVar(&repeat, "repeat", 1, "run the same configuration this many times, one job each (a series: each job records series and trial), then print each trial with the mean, standard deviation and (from 3 trials) 95% confidence interval of NOPM, TPM and New-Order p95; jobs diff of two series' first jobs compares their trials")
	fl := cmd.Flags()
	rf = bindRunFlags(fl, &s)
	out.bind(fl, true)
	fl.StringArrayVar(&s.Thresholds, "threshold", nil, "a pass/fail criterion judged on the measured window's result, METRIC[(NAME)] OP VALUE[UNIT], e.g. 'nopm>=40000', 'p99(new_order)<50ms', 'errors<1%' (repeatable): shown and stored with the job's verdicts; a failed one makes the exit status 99")
	fl.StringVar(&cpuProfile, "cpuprofile", "", "write a CPU profile of the client to this file (for go tool pprof)")
	bindSegmentFlags(fl, &s, "run", "the process runs its share of the --vu virtual users, numbered as in the whole run and homed on its share of the warehouses")
	return cmd, &s
}

// runSpecFlags are a run's spec flags bound onto a spec (bindRunFlags),
// with what is read after parsing.
type runSpecFlags struct {
	s    *config.Spec
	rate func() string
	yes  bool
}

// bindRunFlags binds the flags of a run's spec (all but the command's own:
// --progress, --repeat …) onto s. Before the spec is used, parse reads the
// flags that need it (--rate); confirmRebuild, asked once every other check
// has passed, takes the user's word for --between rebuild (or --yes).
func bindRunFlags(fl *pflag.FlagSet, s *config.Spec) *runSpecFlags {
	bindTargetFlags(fl, s)
	fl.IntVar(&s.VU, "vu", s.VU, "virtual users: concurrent sessions, each running one transaction at a time")
	fl.DurationVar((*time.Duration)(&s.Rampup), "rampup", s.Rampup.D(), "ramp-up before the measured window (not counted)")
	fl.DurationVar((*time.Duration)(&s.Duration), "duration", s.Duration.D(), "length of the measured window")
	fl.IntVar(&s.Iterations, "iterations", s.Iterations, "TPROC-C: run N transactions per VU, then stop (an iteration run, as HammerDB's test driver's total_iterations): no ramp-up and no --duration; the result is the elapsed time and the rates over it. 0: a timed run")
	fl.DurationVar((*time.Duration)(&s.Interval), "interval", s.Interval.D(), "how often to print and store a progress line")
	fl.DurationVar((*time.Duration)(&s.StallAfter), "stall-after", s.StallAfter.D(),
		"report a stall when no transaction completes for this long while sessions wait on the database (0: half the interval, within 2s and 30s; negative: off)")
	fl.StringVar(&s.Mode, "mode", s.Mode, "procs: one server-side routine call per transaction (PostgreSQL, MariaDB/MySQL); sql: the statements from the client in one transaction; auto: procs where available")
	fl.IntVar(&s.MaxRetries, "max-retries", s.MaxRetries, "retry a transaction that failed with a serialization failure or deadlock up to N times (counted once; latency includes retries)")
	fl.StringVar(&s.Isolation, "isolation", s.Isolation, "transaction isolation: read-committed, repeatable-read or serializable (default: the database's)")
	fl.StringVar(&s.SnapshotIsolation, "snapshot-isolation", s.SnapshotIsolation, "TPROC-C on MariaDB: innodb_snapshot_isolation for every session: off (as HammerDB 6), on (conflicts fail with error 1020, retried with --max-retries) or server (leave the server's setting; on by default from MariaDB 11.6.2); ignored where the server has no such variable")
	fl.StringVar(&s.ExecMode, "exec-mode", s.ExecMode, "how statements are sent: prepared (parsed once per session) or simple (text protocol)")
	fl.StringVar(&s.Pacing, "pacing", s.Pacing, "off: unpaced, each VU submits its next transaction at once (maximum throughput); spec: each VU waits the specification's keying time before and a think time after every transaction (18/3/2/2/2 s; think means 12/12/10/5/5 s), NOPM bounded by 12.86 per warehouse: use 10 VUs per warehouse")
	fl.Float64Var(&s.PacingScale, "pacing-scale", s.PacingScale, "with --pacing spec: multiply keying and think times by this (e.g. 0.01 for a quick check; not a specification run)")
	fl.BoolVar(&s.RandomHome, "random-home", s.RandomHome, "give each VU a random home warehouse (HammerDB's behaviour) instead of spreading VUs evenly")
	fl.BoolVar(&s.PerVUTiming, "per-vu-timing", s.PerVUTiming, "TPROC-C: keep each VU's latency histograms per transaction type with the job, besides the run's (sledge jobs ID timing VUID; HammerDB's timeprofile)")
	fl.Uint64Var(&s.Seed, "seed", s.Seed, "seed of the transaction inputs (default: random; recorded in the job); TPROC-H: seed0 of the query parameters")
	fl.IntVar(&s.ClientCPUs, "client-cpus", s.ClientCPUs, "CPU cores the client may use for its goroutines (GOMAXPROCS), decided once for the process; 0 = one per 16 VUs, at most all. Few cores mean fewer scheduler wake-ups per transaction: VUs mostly wait on the network")
	fl.IntVar(&s.Streams, "streams", s.Streams, "TPROC-H: query streams of the throughput test (0: power test only)")
	fl.IntVar(&s.QuerySets, "query-sets", s.QuerySets, "TPROC-H: times each throughput stream runs its 22 queries")
	fl.BoolVar(&s.Refresh, "refresh", s.Refresh, "TPROC-H: run the refresh functions (RF1 and RF2 around the power test, a refresh stream in the throughput test); they change the data for good")
	fl.BoolVar(&s.Validation, "validate", s.Validation, "TPROC-H: use the specification's validation parameters for every query")
	fl.IntVar(&s.AnalyticStreams, "analytic-streams", s.AnalyticStreams, "CH-benCHmark: analytic query streams running the 22 queries over and over beside the --vu TPROC-C VUs, over the same window")
	fl.DurationVar((*time.Duration)(&s.AnalyticDelay), "analytic-delay", s.AnalyticDelay.D(), "CH-benCHmark: start the analytic streams this long into the measured window; the part before is the baseline, without analytic load")
	fl.DurationVar((*time.Duration)(&s.AnalyticRampup), "analytic-rampup", s.AnalyticRampup.D(), "CH-benCHmark: spread the analytic streams' starts evenly over this")
	fl.BoolVar(&s.AnalyticShuffle, "analytic-shuffle", s.AnalyticShuffle, "CH-benCHmark: each stream runs each query set in its own order, drawn from --seed, instead of the paper's Q1 … Q22")
	fl.StringArrayVar(&s.Scripts, "script", s.Scripts, "pgbench: a script the run draws from, builtin:NAME[@WEIGHT] (tpcb-like, simple-update, select-only) or PATH[@WEIGHT], a file in pgbench's script format (repeatable; default builtin:tpcb-like)")
	fl.StringVar(&s.QueryMode, "query-mode", s.QueryMode, "pgbench: how the scripts' statements are sent: simple, extended or prepared (pgbench's -M; default simple)")
	fl.StringArrayVar(&s.Defines, "define", s.Defines, "pgbench: set a script variable, NAME=VALUE (pgbench's -D; repeatable)")
	fl.BoolVar(&s.PerStatement, "per-statement", s.PerStatement, "pgbench: print each script command's average latency and failures in the result (pgbench's -r)")
	fl.StringVar(&s.Metrics, "metrics", s.Metrics, "on: observe the database server and the hosts during the run, read-only on one extra connection, and store it with the job (sledge jobs ID metrics): PostgreSQL's pg_stat_activity sampled --metrics-rate times a second for wait events, its statistics as deltas per interval and its settings; MariaDB/MySQL's processlist, SHOW GLOBAL STATUS deltas and performance_schema waits; this host's CPU, memory, disk and network from /proc. off: observe nothing")
	fl.Float64Var(&s.MetricsRate, "metrics-rate", s.MetricsRate, "with --metrics on: samples per second of the server's sessions (pg_stat_activity, the processlist), at most 100")
	fl.StringVar(&s.Scrape, "scrape", s.Scrape, "URL of a Prometheus node_exporter (Debian: prometheus-node-exporter) on the database's host, e.g. http://db1:9100/metrics: its CPU, memory, disk and network are observed as the database host's")
	f := &runSpecFlags{s: s, rate: bindLoadFlags(fl, s)}
	fl.BoolVarP(&f.yes, "yes", "y", false, "with --between rebuild: do not ask before the schema is dropped and built again between trials (needed when there is no terminal)")
	return f
}

// addRunFlags gives a command that runs a group of runs (profile, slo,
// gate) the flags of a run's spec bound onto s (bindRunFlags), but those
// it replaces with its own (except).
func addRunFlags(fl *pflag.FlagSet, s *config.Spec, except ...string) *runSpecFlags {
	run := pflag.NewFlagSet("run", pflag.ContinueOnError)
	rf := bindRunFlags(run, s)
	run.VisitAll(func(f *pflag.Flag) {
		if !slices.Contains(except, f.Name) {
			fl.AddFlag(f)
		}
	})
	return rf
}

// parse reads --rate into the spec.
func (f *runSpecFlags) parse() error {
	s := f.s
	s.Confirm = false
	if err := s.SetRate(f.rate()); err != nil {
		return fmt.Errorf("--rate: %w", err)
	}
	return nil
}

// confirmRebuild asks before a series or profile drops and rebuilds the
// schema between its trials (--between rebuild); nothing to ask otherwise.
func (f *runSpecFlags) confirmRebuild(cmd *cobra.Command, gs *globalState) error {
	if f.s.Between != config.BetweenRebuild {
		return nil
	}
	ok, err := confirm(cmd, gs, *f.s, f.yes, "Drop the %s schema in %s and build it again between trials? [y/N] ")
	if err != nil {
		return err
	}
	if !ok {
		return errors.New("not confirmed: nothing was run")
	}
	f.s.Confirm = true
	return nil
}

// bindLoadFlags binds the load model's flags (config.Spec.LoadModel); it
// returns --rate's text, read when the flags are parsed.
func bindLoadFlags(fl *pflag.FlagSet, s *config.Spec) func() string {
	var rate string
	fl.IntVar(&s.Terminals, "terminals", s.Terminals, "TPROC-C: run this many terminals over a pool of --connections sessions (default with --connections: 10 per warehouse when --pacing spec, else one per session). A terminal that is due waits for a free session and that wait counts in its response time; the result reports the schedule lag (due → sent)")
	fl.IntVar(&s.Connections, "connections", s.Connections, "TPROC-C: the session pool of a --terminals or --rate run (default: --vu)")
	fl.StringVar(&rate, "rate", "", "TPROC-C: open-loop arrivals instead of VUs: transactions per second (e.g. 500), or per type (new_order=200,payment=200,order_status=20,delivery=20,stock_level=20), arriving as a Poisson process over --connections sessions; at most 1e6 a second in all, and at least one arrival expected in the window (each stage's). Latency counts from the scheduled start, so a stall shows in the percentiles (no coordinated omission); the result reports the achieved rate, the schedule lag, late and dropped transactions")
	fl.IntVar(&s.MaxQueue, "max-queue", s.MaxQueue, fmt.Sprintf("with --rate: at most this many scheduled transactions wait for a session; an arrival beyond it is dropped and counted (0: %d)", config.DefaultMaxQueue))
	fl.DurationVar((*time.Duration)(&s.LatencyLimit), "latency-limit", s.LatencyLimit.D(), "with --rate: skip and count an arrival a session would send later than this behind its schedule, e.g. 50ms (pgbench's -L; default none)")
	fl.StringVar(&s.Stages, "stages", s.Stages, "a load shape in one job: DURATION:TARGET,… (e.g. 2m:8,2m:16,2m:32), where the target is VUs, terminals (--terminals) or transactions per second (--rate); the measured window is the stages (--duration is not used) and the result has one row per stage")
	fl.StringVar(&s.Between, "between", s.Between, "with --repeat (or sledge profile): what to do to the database between trials: none, vacuum (PostgreSQL VACUUM ANALYZE, MariaDB ANALYZE TABLE, SQLite VACUUM), checkpoint (flush dirty pages) or rebuild (drop and build the schema again as it was built)")
	return func() string { return rate }
}

// bindSegmentFlags binds the flags of a job spread over several sledge
// processes (agents): --segment and --run-id (config.Spec.Segment, RunID).
func bindSegmentFlags(fl *pflag.FlagSet, s *config.Spec, what, share string) {
	fl.StringVar(&s.Segment, "segment", s.Segment, "this process's share of the "+what+", I/N (0-based) or A:B fractions (e.g. 1/3:2/3); all agents use the same --run-id. "+share)
	fl.StringVar(&s.RunID, "run-id", s.RunID, "the id shared by every agent (sledge process) of one "+what+" spread over several, each with its own --segment: 1 to 64 letters, digits, '.', '_' or '-'")
	fl.DurationVar((*time.Duration)(&s.AgentWait), "agent-wait", s.AgentWait.D(), "with --segment: how long the agents wait for each other to join (and, for a run, to be ready); then a run starts with the agents there (the job says which segments are missing) and a build fails")
}

// unusedByIterations refuses --rampup or --duration typed with --iterations:
// an iteration run uses neither (config.Spec.Iterations), and a flag the user
// typed is not silently ignored. Other front ends send a whole spec, where
// these settings hold their defaults; they are ignored there.
func unusedByIterations(fl *pflag.FlagSet, s config.Spec) error {
	const unused = " is not used by an iteration run (--iterations): it has no ramp-up and ends when every VU has run its transactions"
	var errs []error
	if s.Iterations > 0 && fl.Changed("rampup") && s.Rampup != 0 { // --rampup 0s says what an iteration run does: no conflict
		errs = append(errs, errors.New("--rampup"+unused))
	}
	if s.Iterations > 0 && fl.Changed("duration") {
		errs = append(errs, errors.New("--duration"+unused))
	}
	return errors.Join(errs...)
}

func newCheckCmd(gs *globalState) *cobra.Command {
	s := config.New(config.KindCheck)
	var out jobOutput
	cmd := withHelp("check", &cobra.Command{
		Use:   "check",
		Short: "Check a built schema: tables, row counts, consistency conditions (TPROC-C), keys and answers (TPROC-H)",
		Args:  cobra.NoArgs,
		RunE:  func(cmd *cobra.Command, _ []string) error { return runJobCmd(cmd, gs, s, out) },
	})
	out.bind(cmd.Flags(), false)
	bindTargetFlags(cmd.Flags(), &s)
	return cmd
}

func newDropCmd(gs *globalState) *cobra.Command {
	s := config.New(config.KindDrop)
	var yes bool
	cmd := withHelp("drop", &cobra.Command{
		Use:   "drop",
		Short: "Drop a workload's tables and routines",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ok, err := confirm(cmd, gs, s, yes, "Drop all %s tables in %s? [y/N] ")
			if err != nil {
				return err
			}
			s.Confirm = ok
			return runJobCmd(cmd, gs, s, jobOutput{format: app.FormatText, progress: app.FormatText})
		},
	})
	bindTargetFlags(cmd.Flags(), &s)
	cmd.Flags().BoolVarP(&yes, "yes", "y", false, "do not ask for confirmation (needed when there is no terminal)")
	return cmd
}

// confirm decides whether a destructive job (drop, build --force) may
// proceed, and so the spec's Confirm: --yes says so; otherwise on a
// terminal it asks the question (a format naming the workload, then the
// target) and only
// "y" or "yes", in any case, proceeds; without a terminal nobody can
// answer, so it fails and asks for --yes. A refusal is an error: no job is
// created.
func confirm(cmd *cobra.Command, gs *globalState, s config.Spec, yes bool, question string) (bool, error) {
	what := cmd.Name()
	switch what {
	case "build":
		what = "build --force"
	case "run", "profile", "gate":
		what += " --between rebuild"
	}
	if yes {
		return true, nil
	}
	if !gs.stdinTTY {
		return false, fmt.Errorf("%s asks for confirmation: run it with --yes when there is no terminal", what)
	}
	var q string
	if _, remote, _ := remoteFor(gs); remote {
		// The server resolves the target: name what was given.
		t := db.Redact(s.DB)
		if t == "" {
			t = "the server's default database"
		}
		q = fmt.Sprintf(question, s.Workload, t)
	} else {
		// Resolving reads no repository and touches no database. It
		// validates the spec too, as if confirmed (the question is whether
		// it is).
		named := s
		named.Confirm = true
		wl, t, err := app.New(gs.serviceOptions(app.Options{OwnsProcess: gs.ownsProcess})).Resolve(named)
		if err != nil {
			return false, flagErrors(err)
		}
		q = fmt.Sprintf(question, wl.Title(), t.String())
	}
	ok, err := shell.Ask(cmd.Context(), gs.stdin, cmd.ErrOrStderr(), q)
	switch {
	case err != nil: // Ctrl-C at the question
		return false, fmt.Errorf("%s not confirmed: interrupted", what)
	case !ok:
		return false, fmt.Errorf("%s not confirmed: nothing done", what)
	}
	return true, nil
}

// jobOutput is how a job command prints: --format for its final result,
// and a run's --progress and --progress-file for its intervals.
type jobOutput struct {
	format       string // text, or json: the result on stdout, every other line on stderr
	progress     string // text, or json: the intervals as JSON lines on stderr
	progressFile string // the intervals as JSON lines in this file
	// options names the option that sets a spec field, for wording the
	// service's field errors; nil: the run flags (flagName).
	options func(field string) string
	// advice says which command deals with a schema error; nil:
	// schemaAdvice's sledge build and drop.
	advice func(error) string
}

// fieldErrors words the job service's field errors as out's options.
func (o jobOutput) fieldErrors(err error) error {
	if o.options == nil {
		return flagErrors(err)
	}
	advice := o.advice
	if advice == nil {
		advice = schemaAdvice
	}
	return fieldErrors(err, o.options, advice)
}

// bind binds --format, and with progress a run's --progress and
// --progress-file.
func (o *jobOutput) bind(fl *pflag.FlagSet, progress bool) {
	o.format, o.progress = app.FormatText, app.FormatText
	fl.StringVar(&o.format, "format", o.format, "text, or json: print the job's summary as JSON on stdout when it ends (the object of sledge jobs show ID --format json: job, result, build, check), and every other line on stderr")
	if !progress {
		return
	}
	fl.StringVar(&o.progress, "progress", o.progress, "how each interval's progress is shown: text (\"[    50s] measure  TPM … NOPM … p95 … errors N\" on the console, elapsed in whole seconds) or json (one JSON object per line on stderr in place of the text line: elapsed_s and length_s to the millisecond, seq, phase, tpm, nopm, errors, vus, transactions with count, errors, p50_ms, p95_ms, p99_ms and max_ms; the shape of jobs show ID tcount --format json). The job stores text lines either way")
	fl.StringVar(&o.progressFile, "progress-file", o.progressFile, "also write each interval as one JSON object per line (the --progress json shape) to this file, created or truncated, flushed as each interval ends")
}

// check refuses values the flags do not take.
func (o jobOutput) check() error {
	return errors.Join(checkFormat("--format", o.format), checkFormat("--progress", o.progress))
}

// workloadFlagHelp is --workload's help: the registered workloads.
func workloadFlagHelp() string { return "workload: " + workload.Choices() }

// runJobCmd runs a spec here, or on the server named by --server, printing
// as out says.
func runJobCmd(cmd *cobra.Command, gs *globalState, s config.Spec, out jobOutput) error {
	ctx := cmd.Context()
	if err := out.check(); err != nil {
		return err
	}
	console, summary := cmd.OutOrStdout(), io.Writer(nil)
	if out.format == app.FormatJSON {
		// The summary alone on stdout, every other line on stderr.
		console, summary = cmd.ErrOrStderr(), cmd.OutOrStdout()
	}
	var progress io.Writer
	if out.progress == app.FormatJSON {
		progress = cmd.ErrOrStderr()
	}
	if out.progressFile != "" {
		f, err := os.Create(out.progressFile)
		if err != nil {
			return fmt.Errorf("--progress-file: %w", err)
		}
		defer f.Close()
		progress = f
	}
	if c, ok, err := remoteFor(gs); ok {
		if err != nil {
			return err
		}
		// What the job would print here (RunJob), ending as it would.
		end, err := c.RunJob(ctx, console, s, server.RunOptions{ProgressJSON: progress, Summary: summary})
		if err != nil {
			return out.fieldErrors(err) // a field the server names is worded as our flag
		}
		return ended(cmd, end.End().Ending(s.Kind, len(s.Thresholds)), out.fieldErrors)
	}
	return withService(ctx, gs, func(svc *app.Service) error {
		// A check without --workload checks the schema the database holds.
		detect := s.Kind == config.KindCheck && !cmd.Flags().Changed("workload")
		o, err := svc.Run(ctx, app.Request{Spec: s, Console: console, ProgressTTY: gs.progressTTY(), Summary: summary,
			ProgressJSON: progress, NoConsoleProgress: out.progress == app.FormatJSON, DetectWorkload: detect})
		if o.ID == 0 {
			return out.fieldErrors(err) // refused: no job was made
		}
		return ended(cmd, o.End(err).Ending(s.Kind, len(s.Thresholds)), out.fieldErrors)
	})
}

// ended ends a command as e says, once its report is printed: its notes
// on stderr, then its exit status: 0 when it did all it was asked; 130
// interrupted (what it measured is stored as such); 1 failed (its error,
// worded by words) or found what it checks failing (the report says
// what); 75 measured but kept in a spool file; 74 measured but neither
// stored nor kept; 99 a threshold failed.
func ended(cmd *cobra.Command, e app.Ending, words func(error) error) error {
	for _, n := range e.Notes {
		fmt.Fprintf(cmd.ErrOrStderr(), "sledge: %s\n", n)
	}
	switch e.Class {
	case app.EndInterrupted:
		return exitError{code: exitInterrupted}
	case app.EndNotStored:
		return exitError{code: exitNotStored}
	case app.EndNotKept:
		return exitError{code: exitNotKept}
	case app.EndThresholds:
		return exitError{code: exitThresholds}
	case app.EndFailed:
		switch {
		case e.Err == nil:
			return exitError{code: 1}
		case e.Stopped != "":
			return fmt.Errorf("%s: %w", e.Stopped, words(e.Err))
		}
		return words(e.Err)
	}
	return nil
}
