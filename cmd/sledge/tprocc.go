package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/pprof"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/sledge-bench/sledge/internal/config"
	"github.com/sledge-bench/sledge/internal/db"
	"github.com/sledge-bench/sledge/internal/db/drivers"
	"github.com/sledge-bench/sledge/internal/engine"
	"github.com/sledge-bench/sledge/internal/jobs"
	"github.com/sledge-bench/sledge/internal/metrics"
	"github.com/sledge-bench/sledge/internal/workload/tprocc"
)

const workloadTPROCC = "tprocc"

// defaultSeed makes builds reproducible by default: two databases built with
// the same warehouses hold the same rows.
const defaultSeed = 1

// target resolves --db, defaulting to the embedded SQLite database.
func target(flag string) (db.Target, bool, error) {
	if flag == "" {
		flag = os.Getenv("SLEDGE_DB")
	}
	embedded := false
	if flag == "" {
		def, err := config.DefaultTPROCCDatabase()
		if err != nil {
			return db.Target{}, false, err
		}
		flag, embedded = def, true
	}
	t, err := db.ParseTarget(flag)
	return t, embedded, err
}

const dbFlagHelp = "database: postgres://user:pass@host:port/dbname, sqlite:PATH or a *.db file (default $SLEDGE_DB, else the embedded SQLite database in the data directory)"

// buildJob builds f's workload (f.workload already parsed) as a job of repo:
// the one entry point of the CLI, the API and the HammerDB front ends.
func buildJob(ctx context.Context, w io.Writer, repo *jobs.Repo, f *buildFlags) error {
	if f.workload == workloadTPROCH {
		return runBuildH(ctx, w, repo, f)
	}
	t, _, err := target(f.db)
	if err != nil {
		return err
	}
	_, err = runBuild(ctx, w, repo, t, f)
	return err
}

// systemInfo describes the client machine for the job record.
func systemInfo() map[string]string {
	host, _ := os.Hostname()
	info := map[string]string{
		"host":           host,
		"cpus":           strconv.Itoa(runtime.NumCPU()),
		"os":             runtime.GOOS + "/" + runtime.GOARCH,
		"go_version":     runtime.Version(),
		"sledge_version": version,
		"pid":            strconv.Itoa(os.Getpid()),
	}
	// Where the system says more (Linux), the CPU model, memory and OS name.
	for _, f := range []struct{ key, file, field string }{
		{"cpu_model", "/proc/cpuinfo", "model name"},
		{"memory", "/proc/meminfo", "MemTotal"},
		{"os_name", "/etc/os-release", "PRETTY_NAME"},
	} {
		if v := fileField(f.file, f.field); v != "" {
			info[f.key] = v
		}
	}
	return info
}

// fileField returns the value of the first "name: value" or name=value line
// of a file, or "" when there is none.
func fileField(path, name string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	for _, line := range strings.Split(string(b), "\n") {
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			k, v, ok = strings.Cut(line, "=")
		}
		if ok && strings.TrimSpace(k) == name {
			return strings.Trim(strings.TrimSpace(v), `"`)
		}
	}
	return ""
}

// startJob records a new job and returns its id (0 when the repository
// cannot be written: the benchmark still runs, with a warning).
func startJob(ctx context.Context, repo *jobs.Repo, kind string, t db.Target, cfg map[string]string) int64 {
	return startWorkloadJob(ctx, repo, kind, workloadTPROCC, t, cfg)
}

// startWorkloadJob is startJob for a given workload.
func startWorkloadJob(ctx context.Context, repo *jobs.Repo, kind, workload string, t db.Target, cfg map[string]string) int64 {
	if repo == nil {
		return 0
	}
	if extra, ok := ctx.Value(jobConfigKey{}).(map[string]string); ok && len(extra) > 0 {
		merged := make(map[string]string, len(cfg)+len(extra))
		for k, v := range cfg {
			merged[k] = v
		}
		for k, v := range extra {
			merged[k] = v
		}
		cfg = merged
	}
	id, err := repo.Create(ctx, jobs.Job{Kind: kind, Workload: workload, DBKind: string(t.Kind), Target: t.String()}, cfg)
	if err != nil {
		fmt.Fprintf(os.Stderr, "sledge: warning: cannot record the job: %v\n", err)
		return 0
	}
	if err := repo.SetSystem(ctx, id, systemInfo()); err != nil {
		fmt.Fprintf(os.Stderr, "sledge: warning: cannot record system info: %v\n", err)
	}
	if fn, ok := ctx.Value(jobStartedKey{}).(func(kind string, id int64)); ok {
		fn(kind, id)
	}
	return id
}

// finishJob records how the job ended. It uses a fresh context: a job
// interrupted by Ctrl-C must still be recorded as interrupted.
func finishJob(repo *jobs.Repo, id int64, status string, jobErr error) {
	if repo == nil || id == 0 {
		return
	}
	msg := ""
	if jobErr != nil {
		msg = jobErr.Error()
	}
	if err := repo.Finish(context.Background(), id, status, msg); err != nil {
		fmt.Fprintf(os.Stderr, "sledge: warning: cannot record the job's end: %v\n", err)
	}
}

// statusOf maps an error to a job status.
func statusOf(ctx context.Context, err error) string {
	switch {
	case err == nil:
		return metrics.StatusCompleted
	case ctx.Err() != nil || errors.Is(err, context.Canceled):
		return metrics.StatusInterrupted
	}
	return metrics.StatusFailed
}

// ---------------------------------------------------------------- build

type buildFlags struct {
	db         string
	warehouses int
	workers    int
	seed       uint64
	force      bool
	engine     string
	loader     string
	workload   string
	scale      float64
}

func newBuildCmd(g *globals) *cobra.Command {
	f := &buildFlags{}
	cmd := &cobra.Command{
		Use:   "build",
		Short: "Create the TPROC-C schema and load it",
		Long: `Create the nine TPROC-C tables, load them with the deterministic generator
(the same --seed and --warehouses always produce the same rows), build keys
and indexes, gather statistics and, on PostgreSQL, install the server-side
routines used by --mode procs. The build is recorded as a job.

A database that already holds a TPROC-C schema is refused unless --force.`,
		Example: `  sledge build                                         # embedded SQLite, 1 warehouse
  sledge build --db postgres://u:p@127.0.0.1:5432/tpcc --warehouses 10 --workers 4`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			wl, err := parseWorkload(f.workload)
			if err != nil {
				return err
			}
			if r, ok, err := remoteFor(g); ok {
				if err != nil {
					return err
				}
				f.workload = wl
				return remoteJob(cmd.Context(), cmd.OutOrStdout(), r, remoteBuildRequest(f))
			}
			f.workload = wl
			repo, err := openRepo(cmd.Context(), g)
			if err != nil {
				return err
			}
			defer repo.Close()
			return buildJob(cmd.Context(), cmd.OutOrStdout(), repo, f)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.db, "db", "", dbFlagHelp)
	fl.IntVarP(&f.warehouses, "warehouses", "w", 1, "number of warehouses (each adds about 500,000 rows, ~80 MB)")
	fl.IntVar(&f.workers, "workers", 0, "parallel loading sessions, each loading a share of the warehouses (default: number of CPUs, at most --warehouses)")
	fl.Uint64Var(&f.seed, "seed", defaultSeed, "seed of the data generator")
	fl.BoolVar(&f.force, "force", false, "drop an existing TPROC-C schema first")
	fl.StringVar(&f.engine, "engine", "", "MariaDB/MySQL storage engine of the tables (default InnoDB)")
	fl.StringVar(&f.workload, "workload", "tprocc", workloadFlagHelp)
	fl.Float64Var(&f.scale, "scale", 1, "TPROC-H scale factor: 1, 10, 30, 100, … (fractional ones such as 0.01 or 0.1 for tests, labelled as such)")
	fl.StringVar(&f.loader, "loader", "", "how rows travel: stream (PostgreSQL COPY, MariaDB/MySQL LOAD DATA LOCAL INFILE; parallel) or insert (batched INSERTs, one writer); default: stream where the database takes it")
	return cmd
}

// runBuild builds and records the job.
func runBuild(ctx context.Context, w io.Writer, repo *jobs.Repo, t db.Target, f *buildFlags) (tprocc.BuildReport, error) {
	drv, err := drivers.For(t.Kind)
	if err != nil {
		return tprocc.BuildReport{}, err
	}
	workers := f.workers
	if workers == 0 {
		workers = min(runtime.NumCPU(), f.warehouses)
	}
	id := startJob(ctx, repo, "build", t, map[string]string{
		"db": t.String(), "warehouses": strconv.Itoa(f.warehouses), "workers": strconv.Itoa(workers),
		"seed": strconv.FormatUint(f.seed, 10), "force": strconv.FormatBool(f.force), "engine": f.engine, "loader": f.loader,
	})
	out := &jobOutput{w: w, repo: repo, id: id, headTx: -1}
	if id != 0 {
		out.Logf("build job %d: %s into %s with %s", id, plural(f.warehouses, "warehouse"), t, plural(workers, "worker"))
	}
	bar := newProgress(os.Stderr, out)
	rep, err := tprocc.Build(ctx, drv, t, tprocc.BuildOptions{
		Warehouses: f.warehouses, Workers: workers, Seed: f.seed, Force: f.force, Engine: f.engine, Loader: f.loader, Progress: bar.update,
	})
	bar.done()
	if rep.Version != "" && id != 0 {
		_ = repo.SetDBVersion(ctx, id, rep.Version)
	}
	if err != nil {
		finishJob(repo, id, statusOf(ctx, err), err)
		return rep, fmt.Errorf("build: %w", err)
	}
	secs := rep.Duration.Seconds()
	out.Logf("built %s: %s rows in %.1f s (%s rows/s)", plural(rep.Warehouses, "warehouse"), fmtInt(float64(rep.Rows)), secs, fmtInt(float64(rep.Rows)/secs))
	if repo != nil && id != 0 {
		if err := repo.SaveBuildResult(context.Background(), id, jobs.BuildResult{
			Warehouses: rep.Warehouses, Workers: rep.Workers, Rows: rep.Rows, Seconds: secs,
			RowsPerSec: float64(rep.Rows) / secs, Tables: rep.Tables,
		}); err != nil {
			fmt.Fprintf(os.Stderr, "sledge: warning: cannot record the build result: %v\n", err)
		}
	}
	finishJob(repo, id, metrics.StatusCompleted, nil)
	return rep, nil
}

// ---------------------------------------------------------------- run

type runFlags struct {
	db         string
	vus        int
	rampup     time.Duration
	duration   time.Duration
	interval   time.Duration
	mode       string
	maxRetries int
	isolation  string
	execMode   string
	randomHome bool
	seed       uint64
	clientCPUs int
	cpuProfile string
	workload   string
	streams    int
	querySets  int
	refresh    bool
	validate   bool
	// pacing is off or spec; pacingScale scales the specification's keying
	// and think times (1: a specification run).
	pacing      string
	pacingScale float64
}

// pacingFactor resolves --pacing and --pacing-scale into the engine's
// Pacing (0: unpaced).
func pacingFactor(f *runFlags) (float64, error) {
	switch f.pacing {
	case "", "off":
		return 0, nil
	case "spec":
		if f.pacingScale <= 0 || f.pacingScale > 10 {
			return 0, fmt.Errorf("--pacing-scale must be in (0, 10] (got %g)", f.pacingScale)
		}
		return f.pacingScale, nil
	}
	return 0, fmt.Errorf("--pacing %q: want off or spec", f.pacing)
}

// pacingConfig is the job record's pacing setting.
func pacingConfig(p float64) string {
	switch p {
	case 0:
		return "unpaced"
	case 1:
		return "spec"
	}
	return "spec x" + strconv.FormatFloat(p, 'g', -1, 64)
}

// pacingLabel says how a run was paced, for its setup line and record.
func pacingLabel(p float64) string {
	switch {
	case p == 0:
		return "unpaced (no keying/thinking time)"
	case p == 1:
		return "paced (the specification's keying and think times)"
	}
	return fmt.Sprintf("paced with keying and think times scaled ×%g (not the specification's)", p)
}

func newRunCmd(g *globals) *cobra.Command {
	f := &runFlags{}
	cmd := &cobra.Command{
		Use:   "run",
		Short: "Run TPROC-C and report NOPM, TPM, latencies and errors",
		Long: `Drive the TPROC-C schema with --vu virtual users for --rampup (not counted)
then --duration (the measured window), printing one line per --interval, and
store the job with its results in the repository.

NOPM and TPM count the transactions the client saw commit, divided by the
measured wall-clock window. NOPM is cross-checked against the database's own
count (the change of sum(d_next_o_id) over the window). Each VU is one
session with a home warehouse and draws its transactions from a shuffled
23-card deck (10 New-Order, 10 Payment, 1 each Order-Status, Delivery and
Stock-Level). Runs are unpaced (no keying or thinking time) unless --pacing
spec: then each VU emulates a terminal operator, waiting the keying time
before and a think time after every transaction, and the result reports the
efficiency against the paced ceiling of 12.86 NOPM per warehouse.

Ctrl-C stops the run cleanly and keeps what was measured, marked interrupted.

With no --db, the embedded SQLite database is used and built with one
warehouse first if it does not exist.`,
		Example: `  sledge run
  sledge run --db postgres://u:p@127.0.0.1:5432/tpcc --vu 8 --rampup 1m --duration 5m
  sledge run --db postgres://… --mode sql --isolation serializable --max-retries 3`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			wl, err := parseWorkload(f.workload)
			if err != nil {
				return err
			}
			if r, ok, err := remoteFor(g); ok {
				if err != nil {
					return err
				}
				f.workload = wl
				return remoteJob(cmd.Context(), cmd.OutOrStdout(), r, remoteRunRequest(f))
			}
			if wl == workloadTPROCH {
				return runRunH(cmd.Context(), cmd.OutOrStdout(), g, f)
			}
			return runRun(cmd.Context(), cmd.OutOrStdout(), g, f)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.db, "db", "", dbFlagHelp)
	fl.IntVar(&f.vus, "vu", 4, "virtual users: concurrent sessions, each running one transaction at a time")
	fl.DurationVar(&f.rampup, "rampup", 10*time.Second, "ramp-up before the measured window (not counted)")
	fl.DurationVar(&f.duration, "duration", time.Minute, "length of the measured window")
	fl.DurationVar(&f.interval, "interval", 10*time.Second, "how often to print and store a progress line")
	fl.StringVar(&f.mode, "mode", "auto", "procs: one server-side routine call per transaction (PostgreSQL); sql: the statements from the client in one transaction; auto: procs where available")
	fl.IntVar(&f.maxRetries, "max-retries", 0, "retry a transaction that failed with a serialization failure or deadlock up to N times (counted once; latency includes retries)")
	fl.StringVar(&f.isolation, "isolation", "", "transaction isolation: read-committed, repeatable-read or serializable (default: the database's)")
	fl.StringVar(&f.execMode, "exec-mode", "prepared", "how statements are sent: prepared (parsed once per session) or simple (text protocol)")
	fl.StringVar(&f.pacing, "pacing", "off", "off: unpaced, each VU submits its next transaction at once (maximum throughput); spec: each VU waits the specification's keying time before and a think time after every transaction (18/3/2/2/2 s; think means 12/12/10/5/5 s), NOPM bounded by 12.86 per warehouse: use 10 VUs per warehouse")
	fl.Float64Var(&f.pacingScale, "pacing-scale", 1, "with --pacing spec: multiply keying and think times by this (e.g. 0.01 for a quick check; not a specification run)")
	fl.BoolVar(&f.randomHome, "random-home", false, "give each VU a random home warehouse (HammerDB's behaviour) instead of spreading VUs evenly")
	fl.Uint64Var(&f.seed, "seed", 0, "seed of the transaction inputs (default: random; recorded in the job)")
	fl.IntVar(&f.clientCPUs, "client-cpus", 0, "CPU cores the client may use for its goroutines (GOMAXPROCS); 0 = one per 16 VUs, at most all. Few cores mean fewer scheduler wake-ups per transaction: VUs mostly wait on the network")
	fl.StringVar(&f.cpuProfile, "cpuprofile", "", "write a Go CPU profile of the client to this file (for finding client overhead)")
	_ = fl.MarkHidden("cpuprofile")
	fl.StringVar(&f.workload, "workload", "tprocc", workloadFlagHelp)
	fl.IntVar(&f.streams, "streams", 0, "TPROC-H: query streams of the throughput test after the power test (0: power test only; the specification's minimum is 2 at SF 1)")
	fl.IntVar(&f.querySets, "query-sets", 1, "TPROC-H: times each throughput stream runs its 22 queries")
	fl.BoolVar(&f.refresh, "refresh", false, "TPROC-H: run the refresh functions (RF1 and RF2 around the power test, a refresh stream in the throughput test); they change the data for good")
	fl.BoolVar(&f.validate, "validate", false, "TPROC-H: use the specification's validation parameters for every query")
	return cmd
}

func runRun(ctx context.Context, w io.Writer, g *globals, f *runFlags) error {
	t, embedded, err := target(f.db)
	if err != nil {
		return err
	}
	mode, err := tprocc.ParseMode(f.mode)
	if err != nil {
		return fmt.Errorf("--mode: %w", err)
	}
	iso, err := db.ParseIsolation(f.isolation)
	if err != nil {
		return fmt.Errorf("--isolation: %w", err)
	}
	execMode, err := db.ParseExecMode(f.execMode)
	if err != nil {
		return fmt.Errorf("--exec-mode: %w", err)
	}
	pacing, err := pacingFactor(f)
	if err != nil {
		return err
	}
	ecfg := engine.Config{VUs: f.vus, Rampup: f.rampup, Duration: f.duration, Interval: f.interval, MaxRetries: f.maxRetries, Pacing: pacing}
	if err := ecfg.Validate(); err != nil {
		return err
	}
	ecfg.InProcessDB = t.Kind == db.SQLite
	cpus, err := clientCPUs(f.clientCPUs, f.vus)
	if err != nil {
		return err
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(cpus))
	drv, err := drivers.For(t.Kind)
	if err != nil {
		return err
	}
	repo, err := openRepo(ctx, g)
	if err != nil {
		return err
	}
	defer repo.Close()

	if embedded {
		if err := ensureEmbeddedBuild(ctx, w, repo, drv, t); err != nil {
			return err
		}
	}
	runner, err := tprocc.NewRunner(ctx, drv, t, tprocc.RunOptions{
		Mode: mode, Isolation: iso, ExecMode: execMode, RandomHome: f.randomHome, Seed: f.seed,
	})
	if err != nil {
		return err
	}
	defer runner.Close(context.Background())

	cfg := map[string]string{
		"db": t.String(), "vu": strconv.Itoa(f.vus), "rampup": f.rampup.String(), "duration": f.duration.String(),
		"interval": f.interval.String(), "mode": string(runner.Mode()), "max_retries": strconv.Itoa(f.maxRetries),
		"isolation": isoName(iso), "exec_mode": string(execMode), "random_home": strconv.FormatBool(f.randomHome),
		"seed": strconv.FormatUint(runner.Seed(), 10), "warehouses": strconv.Itoa(runner.Warehouses()),
		"c_load": strconv.Itoa(runner.CLoad()), "c_run_last": strconv.Itoa(runner.Constants().CLast),
		"c_id": strconv.Itoa(runner.Constants().CID), "c_ol_i_id": strconv.Itoa(runner.Constants().OLIID),
		"pacing": pacingConfig(pacing), "client_cpus": strconv.Itoa(cpus),
	}
	id := startJob(ctx, repo, "run", t, cfg)
	version, verr := runner.Version(ctx)
	if verr == nil && id != 0 {
		_ = repo.SetDBVersion(ctx, id, version)
	}
	out := &jobOutput{w: w, repo: repo, id: id, headTx: runner.HeadlineTx()}
	out.Logf("run job %d: TPROC-C on %s (%s), %s, %s, mode %s",
		id, t, version, plural(runner.Warehouses(), "warehouse"), plural(f.vus, "VU"), runner.Mode())
	if f.vus > 10*runner.Warehouses() {
		out.Logf("note: %d VUs on %d warehouses is more than 10 per warehouse; expect contention on district rows", f.vus, runner.Warehouses())
	}
	if pacing > 0 && f.vus != 10*runner.Warehouses() {
		out.Logf("note: paced runs emulate 10 terminals per warehouse: --vu %d for %s", 10*runner.Warehouses(), plural(runner.Warehouses(), "warehouse"))
	}

	if f.cpuProfile != "" {
		pf, err := os.Create(f.cpuProfile)
		if err != nil {
			return fmt.Errorf("--cpuprofile: %w", err)
		}
		defer pf.Close()
		if err := pprof.StartCPUProfile(pf); err != nil {
			return fmt.Errorf("--cpuprofile: %w", err)
		}
		defer pprof.StopCPUProfile()
	}
	res, err := engine.Run(ctx, runner, ecfg, out)
	if err != nil {
		finishJob(repo, id, metrics.StatusFailed, err)
		return fmt.Errorf("run: %w", err)
	}
	res.Warehouses = runner.Warehouses()
	res.Mode = string(runner.Mode())
	res.Isolation = isoName(iso)
	res.Pacing = pacing
	printResult(out, id, t, version, res)
	if id != 0 {
		if err := repo.SaveRunResult(context.Background(), id, res); err != nil {
			fmt.Fprintf(os.Stderr, "sledge: warning: cannot store the result: %v\n", err)
		}
	}
	finishJob(repo, id, res.Status, nil)
	return nil
}

// clientCPUs resolves --client-cpus: a VU spends almost all its time waiting
// for the database, and every extra scheduler thread adds wake-ups (futex,
// epoll) to each round trip, so the default is one core per 16 VUs.
func clientCPUs(flag, vus int) (int, error) {
	n := runtime.NumCPU()
	switch {
	case flag < 0:
		return 0, fmt.Errorf("--client-cpus must not be negative (got %d)", flag)
	case flag > 0:
		return min(flag, n), nil
	}
	return max(1, min(n, (vus+15)/16)), nil
}

func isoName(i db.Isolation) string {
	if i == db.DefaultIsolation {
		return "default"
	}
	return string(i)
}

// ensureEmbeddedBuild builds one warehouse into the embedded database the
// first time `sledge run` is used without --db.
func ensureEmbeddedBuild(ctx context.Context, w io.Writer, repo *jobs.Repo, drv db.Driver, t db.Target) error {
	c, err := drv.Connect(ctx, t, db.Options{})
	if err != nil {
		return err
	}
	exists, err := tprocc.SchemaExists(ctx, c, t.Kind)
	c.Close(ctx)
	if err != nil || exists {
		return err
	}
	fmt.Fprintf(w, "no TPROC-C schema in %s yet: building 1 warehouse first\n", t)
	_, err = runBuild(ctx, w, repo, t, &buildFlags{warehouses: 1, workers: 1, seed: defaultSeed})
	return err
}

// printResult prints the final report (and stores its lines with the job).
func printResult(out *jobOutput, id int64, t db.Target, version string, r *metrics.RunResult) {
	var b strings.Builder
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "\nTPROC-C result (job %d): %s\n", id, r.Status)
	fmt.Fprintf(tw, "  database\t%s at %s\n", version, t)
	fmt.Fprintf(tw, "  setup\t%s, %s, mode %s, isolation %s, %s\n",
		plural(r.Warehouses, "warehouse"), plural(r.VUs, "VU"), r.Mode, r.Isolation, pacingLabel(r.Pacing))
	if r.Measured == 0 {
		fmt.Fprintf(tw, "  window\tnothing measured (stopped during ramp-up)\n")
		tw.Flush()
		for _, l := range strings.Split(strings.TrimRight(b.String(), "\n"), "\n") {
			out.line(l)
		}
		return
	}
	fmt.Fprintf(tw, "  window\t%.1f s measured (ramp-up %s not counted)\n", r.Measured.Seconds(), r.Rampup)
	check := "not available"
	if r.DBNewOrders != 0 || r.NOPMDBCheck != 0 {
		verdict := "agrees"
		if !r.DBCheckAgree {
			verdict = "DISAGREES"
		}
		check = fmt.Sprintf("database: %s from Δ sum(d_next_o_id), %d vs %d client-counted, ±%d allowed: %s",
			fmtInt(r.NOPMDBCheck), r.DBNewOrders, r.NewOrders, r.DBCheckAllowance, verdict)
	}
	fmt.Fprintf(tw, "  NOPM\t%s\t(%s)\n", fmtInt(r.NOPM), check)
	if r.Pacing > 0 && r.Warehouses > 0 {
		// 12.86 NOPM per warehouse is the ceiling of the terminal model
		// (12.605 with the 23-card deck); scaled times raise it in proportion.
		ceiling := 12.86 * float64(r.Warehouses) / r.Pacing
		c := fmtInt(ceiling)
		if ceiling < 1000 {
			c = fmt.Sprintf("%.2f", ceiling)
		}
		fmt.Fprintf(tw, "  efficiency\t%.1f%%\t(NOPM / %s, the paced ceiling of 12.86 per warehouse%s)\n",
			100*r.NOPM/ceiling, c, map[bool]string{true: "", false: " ÷ the scale"}[r.Pacing == 1])
	}
	server := "server counter not available"
	if r.ServerTPM >= 0 {
		server = fmt.Sprintf("server-wide commits+rollbacks: %s/min", fmtInt(r.ServerTPM))
	}
	fmt.Fprintf(tw, "  TPM\t%s\t(%s)\n", fmtInt(r.TPM), server)
	embedded := ""
	if t.Kind == db.SQLite {
		embedded = "; includes the embedded SQLite engine"
	}
	fmt.Fprintf(tw, "  client CPU\t%.1f µs per transaction\t(%.2f s over the window%s)\n", r.ClientCPUPerTxUS, r.ClientCPU.Seconds(), embedded)
	tw.Flush()

	fmt.Fprintln(&b)
	tw = tabwriter.NewWriter(&b, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "  transaction\tcount\trollbacks\terrors\tretries\tmean ms\tp50 ms\tp95 ms\tp99 ms\tmax ms\t")
	for _, x := range r.Tx {
		fmt.Fprintf(tw, "  %s\t%d\t%d\t%d\t%d\t%.2f\t%.2f\t%.2f\t%.2f\t%.2f\t\n", x.Name, x.Count, x.RolledBack,
			x.ErrorCount(), x.Retries, ms(x.Mean), ms(x.P50), ms(x.P95), ms(x.P99), ms(x.Max))
	}
	tw.Flush()
	if r.Errors > 0 {
		fmt.Fprintln(&b, "\n  errors by class:")
		for _, x := range r.Tx {
			for _, cls := range metrics.SortedErrorClasses(x.Errors) {
				fmt.Fprintf(&b, "    %-14s %-14s %d\n", x.Name, cls, x.Errors[cls])
			}
		}
	}
	var retried int64
	for _, x := range r.Tx {
		retried += x.Retried
	}
	if retried > 0 {
		fmt.Fprintln(&b, "\n  retries (transactions retried, of them failed all the same; retries by cause):")
		for _, x := range r.Tx {
			if x.Retried == 0 {
				continue
			}
			fmt.Fprintf(&b, "    %-14s %d retried, %d failed after retries;", x.Name, x.Retried, x.FailedAfterRetries)
			for _, cls := range metrics.SortedErrorClasses(x.RetriesByClass) {
				fmt.Fprintf(&b, " %s %d", cls, x.RetriesByClass[cls])
			}
			fmt.Fprintln(&b)
		}
	}
	if len(r.Audit) > 0 {
		fmt.Fprintln(&b, "\n  audit:")
		tw = tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
		for _, a := range r.Audit {
			verdict := "ok"
			if !a.OK {
				verdict = "OFF"
			}
			fmt.Fprintf(tw, "    %s\t%.2f%s\t(expected %s)\t%s\n", a.Name, a.Value, a.Unit, a.Target, verdict)
		}
		tw.Flush()
	}
	for _, wn := range r.Warnings {
		fmt.Fprintf(&b, "\n  warning: %s", wn)
	}
	for _, l := range strings.Split(strings.TrimRight(b.String(), "\n"), "\n") {
		out.line(l)
	}
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// ---------------------------------------------------------------- check

func newCheckCmd(g *globals) *cobra.Command {
	var dbFlag string
	cmd := &cobra.Command{
		Use:   "check",
		Short: "Check the TPROC-C schema: tables, row counts and consistency conditions",
		Long: `Check that the TPROC-C schema is present, count the rows of its tables and
test the twelve consistency conditions of the specification (3.3.2.1–3.3.2.12).
Condition 11 holds only until the first run and is skipped afterwards. Exits
with status 1 if any condition fails. The check is recorded as a job.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runCheck(cmd.Context(), cmd.OutOrStdout(), g, dbFlag)
		},
	}
	cmd.Flags().StringVar(&dbFlag, "db", "", dbFlagHelp)
	return cmd
}

// runCheck checks the TPROC-C schema and records the job.
func runCheck(ctx context.Context, w io.Writer, g *globals, dbFlag string) error {
	t, _, err := target(dbFlag)
	if err != nil {
		return err
	}
	drv, err := drivers.For(t.Kind)
	if err != nil {
		return err
	}
	repo, err := openRepo(ctx, g)
	if err != nil {
		return err
	}
	defer repo.Close()
	id := startJob(ctx, repo, "check", t, map[string]string{"db": t.String()})
	out := &jobOutput{w: w, repo: repo, id: id, headTx: -1}
	c, err := drv.Connect(ctx, t, db.Options{AppName: "sledge check"})
	if err != nil {
		finishJob(repo, id, metrics.StatusFailed, err)
		return err
	}
	defer c.Close(context.Background())
	if v, err := drv.Version(ctx, c); err == nil && id != 0 {
		_ = repo.SetDBVersion(ctx, id, v)
	}
	rep, err := tprocc.Check(ctx, c, t.Kind, tprocc.CheckOptions{})
	if err != nil {
		finishJob(repo, id, statusOf(ctx, err), err)
		return fmt.Errorf("check: %w", err)
	}
	failed := printCheck(out, t, rep)
	items := make([]jobs.CheckItem, 0, len(rep.Conditions))
	for _, c := range rep.Conditions {
		items = append(items, jobs.CheckItem{Name: c.Name, Description: c.Description, Passed: c.Passed,
			Skipped: c.Skipped, Violations: c.Violations, Note: c.Note})
	}
	if id != 0 {
		if err := repo.SaveCheck(context.Background(), id, items); err != nil {
			fmt.Fprintf(os.Stderr, "sledge: warning: cannot store the check: %v\n", err)
		}
	}
	finishJob(repo, id, metrics.StatusCompleted, nil)
	if failed > 0 {
		return exitError{code: 1}
	}
	return nil
}

// runDropC drops the TPROC-C schema and records the job.
func runDropC(ctx context.Context, w io.Writer, g *globals, t db.Target) error {
	drv, err := drivers.For(t.Kind)
	if err != nil {
		return err
	}
	repo, err := openRepo(ctx, g)
	if err != nil {
		return err
	}
	defer repo.Close()
	id := startJob(ctx, repo, "drop", t, map[string]string{"db": t.String()})
	out := &jobOutput{w: w, repo: repo, id: id, headTx: -1}
	c, err := drv.Connect(ctx, t, db.Options{AppName: "sledge drop"})
	if err != nil {
		finishJob(repo, id, metrics.StatusFailed, err)
		return err
	}
	defer c.Close(context.Background())
	if err := tprocc.Drop(ctx, c, t.Kind); err != nil {
		finishJob(repo, id, statusOf(ctx, err), err)
		return fmt.Errorf("drop: %w", err)
	}
	out.Logf("dropped the TPROC-C schema in %s", t)
	finishJob(repo, id, metrics.StatusCompleted, nil)
	return nil
}

// printCheck prints the report and returns how many conditions failed.
func printCheck(out *jobOutput, t db.Target, rep tprocc.CheckReport) int {
	var b strings.Builder
	fmt.Fprintf(&b, "TPROC-C check of %s\n\n", t)
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "  table\trows")
	for _, tc := range rep.Tables {
		fmt.Fprintf(tw, "  %s\t%d\n", tc.Name, tc.Rows)
	}
	tw.Flush()
	fmt.Fprintln(&b)
	failed := 0
	tw = tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	for _, c := range rep.Conditions {
		verdict := "PASS"
		switch {
		case c.Skipped:
			verdict = "skip"
		case !c.Passed:
			verdict = fmt.Sprintf("FAIL (%d violations)", c.Violations)
			failed++
		}
		note := ""
		if c.Note != "" {
			note = " — " + c.Note
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s%s\n", c.Name, verdict, c.Description, note)
	}
	tw.Flush()
	if failed > 0 {
		fmt.Fprintf(&b, "\n%d conditions failed\n", failed)
	} else {
		fmt.Fprintf(&b, "\nall conditions hold\n")
	}
	for _, l := range strings.Split(strings.TrimRight(b.String(), "\n"), "\n") {
		out.line(l)
	}
	return failed
}

// ---------------------------------------------------------------- drop

func newDropCmd(g *globals) *cobra.Command {
	var (
		dbFlag   string
		yes      bool
		workload string
	)
	cmd := &cobra.Command{
		Use:   "drop",
		Short: "Drop the TPROC-C tables and routines",
		Long: `Drop every table and routine Sledge created for TPROC-C (a partially built
schema too). Asks for confirmation on a terminal unless --yes.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			wl, err := parseWorkload(workload)
			if err != nil {
				return err
			}
			if wl == workloadTPROCH {
				return runDropH(ctx, cmd.OutOrStdout(), g, dbFlag)
			}
			t, _, err := target(dbFlag)
			if err != nil {
				return err
			}
			if !yes && isTerminal(os.Stdin) {
				fmt.Fprintf(cmd.ErrOrStderr(), "Drop all TPROC-C tables in %s? [y/N] ", t)
				answer, _ := bufio.NewReader(os.Stdin).ReadString('\n')
				if a := strings.ToLower(strings.TrimSpace(answer)); a != "y" && a != "yes" {
					return errors.New("not dropped")
				}
			}
			return runDropC(ctx, cmd.OutOrStdout(), g, t)
		},
	}
	cmd.Flags().StringVar(&dbFlag, "db", "", dbFlagHelp)
	cmd.Flags().BoolVarP(&yes, "yes", "y", false, "do not ask for confirmation")
	cmd.Flags().StringVar(&workload, "workload", "tprocc", workloadFlagHelp)
	return cmd
}
