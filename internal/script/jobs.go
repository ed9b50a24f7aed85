// HammerDB's CLI "jobs" command, answered from Sledge's jobs repository with
// HammerDB's sub-commands and output shapes (JSON or text), so that scripts
// and tools written against HammerDB's jobs output keep working. The Tcl and
// Python front ends of `sledge cli` call it through `sledge cli jobs`.
//
// The shapes and units are HammerDB 6's. Sledge's job ids are its
// repository's numbers, not HammerDB's hex strings; everything else (key
// names, order, every number as a string, the text layouts, the messages)
// follows HammerDB, and the differences that remain are listed in README.md.
// HammerDB's web service (jobsweb.go, jobsreport.go) answers from the same
// code.
//
// This file holds the command, its dispatch and the helpers its
// sub-commands share; the sub-commands' answers are in jobs_*.go, one file
// per family (listings, output rows, result, timing, metrics, dict,
// profiles, diff).

package script

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/sledge-bench/sledge/internal/jobs"
	"github.com/sledge-bench/sledge/internal/metrics"
)

// Repository is what the command reads (and, for delete, changes).
type Repository interface {
	Path() string
	List(ctx context.Context, f jobs.ListFilter) ([]jobs.Job, error)
	Get(ctx context.Context, id int64) (jobs.Job, error)
	Config(ctx context.Context, id int64) (map[string]string, error)
	System(ctx context.Context, id int64) (map[string]string, error)
	Output(ctx context.Context, id int64) ([]jobs.OutputLine, error)
	Intervals(ctx context.Context, id int64) ([]metrics.Interval, error)
	RunResult(ctx context.Context, id int64) (*metrics.RunResult, error)
	// VUTiming is the per-VU timing a run kept (jobs.Repo.VUTiming).
	VUTiming(ctx context.Context, id int64, vu int) ([]metrics.VUTiming, error)
	AnalyticResult(ctx context.Context, id int64) (*metrics.AnalyticResult, error)
	Delete(ctx context.Context, id int64) error
}

// Keys under which `sledge cli` stores a job's HammerDB settings in its
// configuration: ConfigPrefix+"tpcc.pg_count_ware" and so on, and the
// performance profile id the job was run under.
const (
	ConfigPrefix    = "hammerdb."
	ConfigProfileID = "hammerdb_profileid"
	// ConfigDB is HammerDB's name of the database the script chose (dbset
	// db): HammerDB labels a job by it ("MySQL" also for a MariaDB server
	// driven through its mysql db), not by the server's product.
	ConfigDB = "hammerdb_db"
)

// Formats of "jobs format".
const (
	FormatJSON = "JSON"
	FormatText = "text"
)

// Session is the state the front end keeps between jobs commands.
type Session struct {
	Format    string // FormatJSON (HammerDB's default) or FormatText
	ProfileID int    // the performance profile new runs are recorded under
}

// Outcome is what one jobs command printed, what it returns as the
// command's result, and the session after it.
type Outcome struct {
	Printed  string
	Returned string
	Session  Session
}

// Command runs jobs commands against a repository.
type Command struct {
	Repo Repository
	// Loc is the time zone of printed timestamps (HammerDB prints local time).
	Loc *time.Location
	// Env is what the process's environment says: where jobs ID save
	// writes (HammerDB's temporary directory).
	Env Env
}

const usage = `Error: Usage: [ jobs | jobs format <fmt> | jobs disable <0|1> | jobs jobid | jobs jobid save | jobs jobid <command> [option] | jobs jobid timing <vuid|vu=n> | jobs jobid getchart [result|timing|tcount|metrics|profile|diff:pid] | jobs profileid [id] | jobs profile <id> | jobs diff basepid comppid [true|false] ] - type "help jobs"`

const twoWordUsage = `Jobs Two Parameter Usage: jobs jobid status or jobs jobid db or jobs jobid bm or jobid system or jobs jobid timestamp or jobs jobid dict or jobs jobid vuid or jobs jobid result or jobs jobid timing or jobs jobid delete or jobs jobid metrics or jobs jobid system`

// run is one command's working state.
type run struct {
	*Command
	ctx     context.Context
	s       Session
	printed strings.Builder
	ret     string
}

// Run executes `jobs ARGS…`. Mistakes in the arguments are answered as
// HammerDB answers them, with an "Error: …" line in Printed; the error return
// is for a repository that cannot be read.
func (c *Command) Run(ctx context.Context, s Session, args []string) (Outcome, error) {
	if s.Format == "" {
		s.Format = FormatJSON
	}
	if c.Loc == nil {
		c.Loc = time.Local
	}
	r := &run{Command: c, ctx: ctx, s: s}
	err := r.dispatch(args)
	return Outcome{Printed: r.printed.String(), Returned: r.ret, Session: r.s}, err
}

func (r *run) println(format string, a ...any) {
	fmt.Fprintf(&r.printed, format+"\n", a...)
}

// show prints a value in the session's format; a list of lines in text
// format prints one element per line, as HammerDB does for output rows and
// results.
func (r *run) show(v value, linesInText bool) {
	if r.s.Format == FormatJSON {
		r.println("%s", jsonText(v))
		return
	}
	if l, ok := v.(list); ok && linesInText {
		for _, item := range l {
			r.println("%s", tclText(item))
		}
		return
	}
	r.println("%s", tclText(v))
}

func (r *run) dispatch(args []string) error {
	if len(args) == 0 {
		return r.summary()
	}
	first := strings.ToLower(args[0])
	switch first {
	case "format":
		return r.format(args[1:])
	case "disable":
		if len(args) != 2 || (args[1] != "0" && args[1] != "1") {
			r.println("Error: Usage: jobs disable [ 0 | 1 ]")
			return nil
		}
		r.println("Notice: jobs disable %s: Sledge always keeps its jobs repository (%s); nothing changed", args[1], r.Repo.Path())
		return nil
	case "profileid":
		return r.profileID(args[1:])
	case "profile":
		return r.profile(args[1:])
	case "diff":
		return r.diff(args[1:])
	}
	if len(args) == 1 {
		switch first {
		case "joblist":
			return r.joblist()
		case "result":
			return r.allResults()
		case "timestamp":
			return r.allTimestamps()
		}
	}
	switch len(args) {
	case 1:
		return r.onJob(args[0], -1, func(j jobs.Job) error { return r.rows(j, -1) })
	case 2:
		if strings.EqualFold(args[1], "save") {
			return r.save(args[0])
		}
		return r.onJob(args[0], checkedVU(args[1]), func(j jobs.Job) error { return r.jobCommand(j, args[1]) })
	case 3:
		switch strings.ToLower(args[1]) {
		case "timing":
			n, ok := vuNumber(args[2])
			if !ok {
				r.println("Error: Usage: jobs jobid timing | jobs jobid timing vuid | jobs jobid timing vu=n")
				return nil
			}
			return r.vuTiming(args[0], n)
		case "getchart":
			// For profile charts the first argument is a profile id.
			if k := strings.ToLower(args[2]); k == "profile" || strings.HasPrefix(k, "diff:") {
				return r.profileChart(args[0], args[2])
			}
			return r.chartOf(args[0], args[2])
		}
		r.println("Error: Jobs Three Parameter Usage: [ jobs jobid timing vuid | jobs jobid timing vu=n | jobs jobid getchart chart ]")
		return nil
	}
	r.println("Error: Too many arguments to jobs")
	r.println("%s", usage)
	return nil
}

// onJob runs fn on the job named by arg, or says that there is no such job
// as HammerDB does: a command on a job first looks for the rows of one
// virtual user (vu, see checkedVU), so its answer names it; vu < 0 (the
// job's whole output) names none.
func (r *run) onJob(arg string, vu int, fn func(jobs.Job) error) error {
	j, ok, err := r.lookup(arg)
	if err != nil {
		return err
	}
	if !ok {
		if vu < 0 {
			r.println("Jobid %s does not exist", arg)
		} else {
			r.println("Jobid %s for virtual user %d does not exist", arg, vu)
		}
		return nil
	}
	return fn(j)
}

// lookup finds the job a command names; ok is false when there is none.
func (r *run) lookup(arg string) (jobs.Job, bool, error) {
	id, err := strconv.ParseInt(strings.TrimSpace(arg), 10, 64)
	if err != nil || id <= 0 {
		return jobs.Job{}, false, nil
	}
	j, err := r.Repo.Get(r.ctx, id)
	if errors.Is(err, jobs.ErrNotFound) {
		return jobs.Job{}, false, nil
	}
	if err != nil {
		return jobs.Job{}, false, fmt.Errorf("jobs: read job %d: %w", id, err)
	}
	return j, true, nil
}

// checkedVU is the virtual user whose rows HammerDB looks for before
// answering `jobs ID SUB`: the one named (VUID, vu=N), VU 1 for result
// (where the TEST RESULT line is), else VU 0 (the status rows).
func checkedVU(sub string) int {
	if n, ok := vuNumber(sub); ok {
		return n
	}
	if strings.EqualFold(sub, "result") {
		return 1
	}
	return 0
}

func (r *run) jobCommand(j jobs.Job, sub string) error {
	if n, ok := vuNumber(sub); ok {
		return r.rows(j, n)
	}
	switch strings.ToLower(sub) {
	case "status":
		return r.rows(j, 0)
	case "result":
		return r.result(j)
	case "timing":
		return r.timing(j)
	case "tcount":
		return r.tcount(j)
	case "metrics":
		return r.metrics(j)
	case "system":
		return r.system(j)
	case "timestamp":
		r.show(object{{idString(j.ID), r.stamp(j)}}, false)
		return nil
	case "bm":
		r.show(list{benchmark(j)}, true)
		return nil
	case "db":
		name, err := r.dbName(j)
		if err != nil {
			return err
		}
		// HammerDB's answer is the name alone; the server's version is in
		// the jobs summary and `sledge jobs show ID status`.
		r.show(list{name}, true)
		return nil
	case "dict":
		return r.dict(j)
	case "delete":
		if j.Status == metrics.StatusRunning {
			r.println("Error: Jobid %d is still running: stop it before deleting it", j.ID)
			return nil
		}
		if err := r.Repo.Delete(r.ctx, j.ID); err != nil {
			return err
		}
		r.println("Deleted Jobid %d", j.ID)
		return nil
	case "getchart":
		r.println("Error: Usage: jobs jobid getchart [ result | timing | tcount | metrics | profile | diff:pid ]")
		return nil
	}
	r.println("%s", twoWordUsage)
	return nil
}

// save is `jobs ID save`: HammerDB 6 writes the job's result artifact (the
// web service's summaryjson) to hdb_ID.json in the temporary directory.
func (r *run) save(arg string) error {
	j, ok, err := r.lookup(arg)
	if err != nil {
		return err
	}
	if !ok {
		r.println("Error: Jobid %s does not exist", arg)
		return nil
	}
	a, err := r.webArtifact(j)
	if err != nil {
		return err
	}
	dir := tempDir(runtime.GOOS, r.Env.get) // where vuset logtotemp writes hammerdb.log too
	if dir == "" {
		r.println("Error: Could not save JSON report: no writable temporary directory")
		return nil
	}
	path := filepath.Join(dir, "hdb_"+idString(j.ID)+".json")
	if err := os.WriteFile(path, []byte(a.Body+"\n"), 0o644); err != nil {
		r.println("Error: Could not save JSON report: %v", err)
		return nil
	}
	r.println("Saved job report JSON to %s", path)
	return nil
}

func vuNumber(s string) (int, bool) {
	s = strings.TrimPrefix(strings.ToLower(s), "vu=")
	n, err := strconv.Atoi(s)
	return n, err == nil && n >= 0
}

func (r *run) format(args []string) error {
	if len(args) != 1 {
		r.println("Jobs output format is %s", r.s.Format)
		return nil
	}
	switch strings.ToLower(args[0]) {
	case "json":
		r.s.Format = FormatJSON
	case "text":
		r.s.Format = FormatText
	default:
		r.println("Error: Usage: jobs format [ text | JSON ]")
		return nil
	}
	r.println("Setting jobs output format to %s", r.s.Format)
	return nil
}

func idString(id int64) string { return strconv.FormatInt(id, 10) }

// stamp is a job's timestamp: when it started (HammerDB's JOBMAIN time).
func (r *run) stamp(j jobs.Job) string { return r.clock(jobStart(j)) }

func jobStart(j jobs.Job) time.Time {
	if j.StartedAt.IsZero() {
		return j.CreatedAt
	}
	return j.StartedAt
}

// clock writes a time as HammerDB does: local time, whole seconds.
func (r *run) clock(t time.Time) string { return t.In(r.Loc).Format("2006-01-02 15:04:05") }

func benchmark(j jobs.Job) string {
	if j.Workload == "tproch" {
		return "TPROC-H"
	}
	return "TPROC-C"
}

// productVersion splits the recorded server version ("PostgreSQL 15.18
// (Debian …)") into product and version number.
func productVersion(j jobs.Job) (string, string) {
	f := strings.Fields(j.DBVersion)
	switch len(f) {
	case 0:
		return kindProduct(j.DBKind), ""
	case 1:
		return f[0], ""
	}
	return f[0], strings.TrimPrefix(f[1], "v")
}

// dbName is HammerDB's name of a job's database (its JOBMAIN db, which
// labels the TEST RESULT line, tcount and results).
func (r *run) dbName(j jobs.Job) (string, error) {
	cfg, err := r.Repo.Config(r.ctx, j.ID)
	if err != nil {
		return "", fmt.Errorf("jobs: settings of job %d: %w", j.ID, err)
	}
	return hammerDBName(j, cfg), nil
}

// hammerDBName is the database a `sledge cli` script chose (dbset db), as
// recorded (ConfigDB) or, for jobs recorded without it, as the prefix of
// its HammerDB keys says; for other jobs, the product the server reported.
func hammerDBName(j jobs.Job, cfg map[string]string) string {
	if v := cfg[ConfigDB]; v != "" {
		return v
	}
	for _, d := range Databases() {
		for k := range cfg {
			rest, ok := strings.CutPrefix(k, ConfigPrefix)
			if !ok {
				continue
			}
			if _, key, _ := strings.Cut(rest, "."); strings.HasPrefix(key, d.Prefix) {
				return d.Product
			}
		}
	}
	product, _ := productVersion(j)
	return product
}

func kindProduct(kind string) string {
	switch kind {
	case "postgres":
		return "PostgreSQL"
	case "mysql":
		return "MySQL"
	case "sqlite":
		return "SQLite"
	case "duckdb":
		return "DuckDB"
	}
	return kind
}

// noData is HammerDB's "no data" value: [ID, message].
func noData(j jobs.Job, msg string) list { return list{idString(j.ID), msg} }

// showNoData prints HammerDB's "no data" answer. HammerDB compiles the
// pair as a dictionary of dictionaries, so in JSON the message's words
// become keys and values under the job id; in text it prints "ID {message}".
func (r *run) showNoData(j jobs.Job, msg string) {
	if r.s.Format == FormatJSON {
		r.show(dictOfDicts(noData(j, msg)), false)
		return
	}
	r.println("%s", tclText(noData(j, msg)))
}

// Write prints an outcome for the front ends: what was printed, then, after
// a line holding only the record separator, the returned value and the
// session (see `sledge cli jobs`).
func (o Outcome) Write(w io.Writer) error {
	_, err := fmt.Fprintf(w, "%s\x1e\n%s %d\n%s", o.Printed, o.Session.Format, o.Session.ProfileID, o.Returned)
	return err
}
