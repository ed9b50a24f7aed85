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

package script

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/sledge-bench/sledge/internal/config"
	"github.com/sledge-bench/sledge/internal/jobs"
	"github.com/sledge-bench/sledge/internal/metrics"
	"github.com/sledge-bench/sledge/internal/observe"
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

// MetricSample is one server/OS sample of a job as HammerDB's metrics agent
// records it: CPU shares in percent, I/O operations and megabytes per second.
type MetricSample struct {
	At                  time.Time
	Usr, Sys, Irq, Idle float64
	IOPS, MBps          float64
}

// MetricsRepository is a Repository that keeps server/OS metric samples of
// its jobs in HammerDB's terms; jobs ID metrics answers from them in
// HammerDB's metrics shape.
type MetricsRepository interface {
	Metrics(ctx context.Context, id int64) ([]MetricSample, error)
}

// ObservationRepository is a Repository that keeps what the observers saw
// during a run, as Sledge's does: jobs ID metrics answers from its host
// observer's counters (see ObservedSamples) when the repository is not a
// MetricsRepository.
type ObservationRepository interface {
	Observations(ctx context.Context, id int64) ([]jobs.Observation, error)
}

var _ ObservationRepository = (*jobs.Repo)(nil)

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
			// HammerDB answers from its timing table alone: an unknown job
			// has no timing data either.
			r.vuTiming(args[0], n)
			return nil
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
	dir := tempDir(runtime.GOOS, os.Getenv) // where vuset logtotemp writes hammerdb.log too
	if dir == "" {
		dir = os.TempDir()
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

// ---------------------------------------------------------------- listing

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

func (r *run) joblist() error {
	all, err := r.Repo.List(r.ctx, jobs.ListFilter{})
	if err != nil {
		return err
	}
	ids := make([]string, len(all))
	for i, j := range all {
		ids[len(all)-1-i] = idString(j.ID) // oldest first
	}
	r.ret = strings.Join(ids, " ")
	return nil
}

func (r *run) allTimestamps() error {
	all, err := r.oldestFirst()
	if err != nil {
		return err
	}
	var o object
	for _, j := range all {
		o.add(idString(j.ID), r.stamp(j))
	}
	r.show(o, false)
	return nil
}

func (r *run) oldestFirst() ([]jobs.Job, error) {
	all, err := r.Repo.List(r.ctx, jobs.ListFilter{})
	if err != nil {
		return nil, err
	}
	for i, k := 0, len(all)-1; i < k; i, k = i+1, k-1 {
		all[i], all[k] = all[k], all[i]
	}
	return all, nil
}

// workloadLabel is the summary's Workload column.
func workloadLabel(kind string) string {
	switch kind {
	case jobs.KindBuild:
		return "Schema Build"
	case jobs.KindDrop:
		return "Schema Delete"
	case jobs.KindCheck:
		return "Schema Check"
	case jobs.KindRun:
		return "Benchmark Run"
	}
	return "--"
}

func statusLabel(status string) string {
	switch status {
	case metrics.StatusCompleted:
		return "SUCCESS"
	case metrics.StatusFailed, metrics.StatusAbandoned:
		return "FAILED"
	}
	return strings.ToUpper(status)
}

// summary is `jobs` alone: a table of TPROC-C jobs with NOPM and one of
// TPROC-H jobs with the geometric mean, newest first, the best completed run
// of each marked TOP. It is returned, not printed.
func (r *run) summary() error {
	all, err := r.Repo.List(r.ctx, jobs.ListFilter{})
	if err != nil {
		return err
	}
	type row struct {
		j      jobs.Job
		metric string
		score  float64 // higher is better
		scored bool
	}
	var c, h []row
	for _, j := range all {
		rw := row{j: j, metric: "--"}
		if j.Workload == "tproch" {
			if j.Kind == jobs.KindRun {
				res, err := r.Repo.AnalyticResult(r.ctx, j.ID)
				if err != nil {
					return err
				}
				// HammerDB's Geomean column: the first stream's first set.
				if s, ok := firstSet(res); ok {
					rw.metric = fmt.Sprintf("%.2f", s.geomean)
					rw.score, rw.scored = -s.geomean, j.Status == metrics.StatusCompleted
				}
			}
			h = append(h, rw)
			continue
		}
		if j.Headline != nil {
			rw.metric = fmt.Sprintf("%.0f", j.Headline.NOPM)
			rw.score, rw.scored = j.Headline.NOPM, j.Status == metrics.StatusCompleted
		}
		c = append(c, rw)
	}
	names := map[int64]string{}
	for _, j := range all {
		if names[j.ID], err = r.dbName(j); err != nil {
			return err
		}
	}
	var b strings.Builder
	table := func(title, metric, empty string, rows []row) {
		b.WriteString(title + "\n")
		fmt.Fprintf(&b, "%-26s %-18s %-19s %-14s %-10s %-8s\n", "Jobid", "Database", "Date", "Workload", metric, "Status")
		b.WriteString(strings.Repeat("-", 100) + "\n")
		if len(rows) == 0 {
			b.WriteString(empty + "\n")
			return
		}
		top := -1
		for i, rw := range rows {
			if rw.scored && (top < 0 || rw.score > rows[top].score) {
				top = i
			}
		}
		for i, rw := range rows {
			_, version := productVersion(rw.j)
			dbcol := names[rw.j.ID]
			if version != "" {
				dbcol += " (" + version + ")"
			}
			status := statusLabel(rw.j.Status)
			if i == top {
				status = "TOP"
			}
			fmt.Fprintf(&b, "%-26s %-18s %-19s %-14s %-10s %-8s\n", idString(rw.j.ID), dbcol, r.stamp(rw.j),
				workloadLabel(rw.j.Kind), rw.metric, status)
		}
	}
	table("TPROC-C Jobs", "NOPM", "No TPROC-C runs found in database file "+r.Repo.Path()+".", c)
	b.WriteString("\n")
	table("TPROC-H Jobs", "Geomean", "No TPROC-H jobs found in database file "+r.Repo.Path()+".", h)
	r.ret = strings.TrimRight(b.String(), "\n")
	return nil
}

// ------------------------------------------------------------ output rows

// vuRow is one row of HammerDB's job output: a virtual user and a line.
type vuRow struct {
	vu   int
	line string
}

// jobRows is a job's output as HammerDB's virtual-user rows. VU 0 holds the
// status lines. Sledge runs a job as one process, which plays HammerDB's
// first virtual user: VU 1 holds the job's console and, for a TPROC-C run
// whose console lacks them, HammerDB's closing lines ("N Active Virtual
// Users configured", "TEST RESULT : …"). The query streams of a TPROC-H run
// are HammerDB's virtual users, one VU per stream in stream order, each
// with the lines HammerDB's VU prints for its stream (written from the
// stored query times; VU 1's after the console).
func (r *run) jobRows(j jobs.Job) ([]vuRow, error) {
	out, err := r.Repo.Output(r.ctx, j.ID)
	if err != nil {
		return nil, fmt.Errorf("jobs: output of job %d: %w", j.ID, err)
	}
	vus := [][]string{make([]string, 0, len(out))}
	for _, l := range out {
		vus[0] = append(vus[0], strings.TrimRight(l.Line, " \t\r"))
	}
	if j.Kind == jobs.KindRun && j.Workload == "tproch" {
		res, err := r.Repo.AnalyticResult(r.ctx, j.ID)
		if err != nil {
			return nil, fmt.Errorf("jobs: result of job %d: %w", j.ID, err)
		}
		if res != nil {
			for i, st := range analyticStreams(res) {
				if i == 0 {
					vus[0] = append(vus[0], st.lines()...)
				} else {
					vus = append(vus, st.lines())
				}
			}
		}
	} else if j.Kind == jobs.KindRun && !containsLine(vus[0], "TEST RESULT") {
		closing, err := r.tproccResult(j)
		if err != nil {
			return nil, err
		}
		for _, l := range closing[min(2, len(closing)):] {
			vus[0] = append(vus[0], tclText(l))
		}
	}
	// The status lines name every virtual user the live console named.
	n, err := r.statusVUs(j)
	if err != nil {
		return nil, err
	}
	n = max(n, len(vus))
	var rows []vuRow
	for k := range n {
		rows = append(rows, vuRow{0, fmt.Sprintf("Vuser %d:RUNNING", k+1)})
	}
	for k, lines := range vus {
		for _, l := range lines {
			rows = append(rows, vuRow{k + 1, l})
		}
	}
	if j.Status == metrics.StatusRunning {
		return rows, nil
	}
	if j.Error != "" {
		rows = append(rows, vuRow{0, "Error: " + j.Error})
	}
	end := "FAILED"
	switch j.Status {
	case metrics.StatusCompleted, metrics.StatusDegraded:
		end = "SUCCESS"
	case metrics.StatusInterrupted:
		end = "INTERRUPTED"
	}
	for k := range n {
		rows = append(rows, vuRow{0, fmt.Sprintf("Vuser %d:FINISHED %s", k+1, end)})
	}
	return append(rows, vuRow{0, "ALL VIRTUAL USERS COMPLETE"}), nil
}

// statusVUs is how many virtual users the job's console named (vusers),
// from the settings recorded with it.
func (r *run) statusVUs(j jobs.Job) (int, error) {
	cfg, err := r.Repo.Config(r.ctx, j.ID)
	if err != nil {
		return 0, fmt.Errorf("jobs: settings of job %d: %w", j.ID, err)
	}
	number := func(key string) int {
		n, _ := strconv.Atoi(cfg[key]) // absent: 0, as in a spec that leaves it unset
		return n
	}
	return vusers(config.Spec{Kind: j.Kind, Workload: j.Workload, VU: number("vu"), Streams: number("streams"),
		Iterations: number("iterations"), Workers: number("workers"), Warehouses: number("warehouses")}), nil
}

// containsLine tells whether a line holds text (the console may carry
// HammerDB's "Vuser 1:" prefixes).
func containsLine(lines []string, text string) bool {
	for _, l := range lines {
		if strings.Contains(l, text) {
			return true
		}
	}
	return false
}

// vuLines are the lines of one virtual user (vu < 0: all rows).
func vuLines(rows []vuRow, vu int) []vuRow {
	var out []vuRow
	for _, rw := range rows {
		if vu < 0 || rw.vu == vu {
			out = append(out, rw)
		}
	}
	return out
}

// rows prints a job's rows (vu < 0: all of them), as HammerDB prints them:
// pairs of VU and line in JSON, "Virtual User N: line" in text.
func (r *run) rows(j jobs.Job, vu int) error {
	all, err := r.jobRows(j)
	if err != nil {
		return err
	}
	rows := vuLines(all, vu)
	if vu >= 0 && len(rows) == 0 {
		r.println("Jobid %d for virtual user %d does not exist", j.ID, vu)
		return nil
	}
	if r.s.Format == FormatJSON {
		r.show(rowList(rows, true), false)
		return nil
	}
	for _, rw := range rows {
		r.println("Virtual User %d: %s", rw.vu, rw.line)
	}
	return nil
}

// rowList is rows as HammerDB's JSON list: VU and line pairs, or the lines
// alone.
func rowList(rows []vuRow, withVU bool) list {
	v := make(list, 0, 2*len(rows))
	for _, rw := range rows {
		if withVU {
			v = append(v, strconv.Itoa(rw.vu))
		}
		v = append(v, rw.line)
	}
	return v
}

// ----------------------------------------------------------------- results

const noResult = "Jobid has no test result"

// result is `jobs ID result`: id, timestamp, the active virtual users and
// the TEST RESULT line (TPROC-C), or the geometric mean and completion lines
// (TPROC-H). HammerDB reads them from VU 1's rows, so a job without any has
// none.
func (r *run) result(j jobs.Job) error {
	all, err := r.jobRows(j)
	if err != nil {
		return err
	}
	if len(vuLines(all, 1)) == 0 {
		r.println("Jobid %d for virtual user 1 does not exist", j.ID)
		return nil
	}
	v, err := r.resultValue(j)
	if err != nil {
		return err
	}
	r.show(v, true)
	return nil
}

// resultValue is the result list, or [ID, "Jobid has no test result"].
func (r *run) resultValue(j jobs.Job) (list, error) {
	v, err := r.resultLines(j)
	if err != nil || v != nil {
		return v, err
	}
	return list{idString(j.ID), noResult}, nil
}

// resultLines is a run's result list; nil when it has none.
func (r *run) resultLines(j jobs.Job) (list, error) {
	if j.Kind != jobs.KindRun {
		return nil, nil
	}
	if j.Workload != "tproch" {
		return r.tproccResult(j)
	}
	res, err := r.Repo.AnalyticResult(r.ctx, j.ID)
	if err != nil || res == nil {
		return nil, err
	}
	// Each stream's (and query set's) lines stay separate elements, the
	// first stream's first: a parser reads one stream's sentence per
	// element, never several joined into one string.
	v := list{idString(j.ID), r.stamp(j)}
	for _, st := range analyticStreams(res) {
		for _, set := range st.sets {
			if set.returning > 0 {
				v = append(v, set.geometric())
			}
			v = append(v, set.completed())
		}
	}
	if len(v) == 2 {
		return nil, nil
	}
	return v, nil
}

// tproccResult is a TPROC-C run's result list; nil when it has none.
func (r *run) tproccResult(j jobs.Job) (list, error) {
	res, err := r.Repo.RunResult(r.ctx, j.ID)
	if err != nil || res == nil {
		return nil, err
	}
	db, err := r.dbName(j)
	if err != nil {
		return nil, err
	}
	return list{idString(j.ID), r.stamp(j),
		fmt.Sprintf("%d Active Virtual Users configured", res.VUs), TestResult(db, res)}, nil
}

// TestResult is the line HammerDB users grep for, naming the database as
// HammerDB does: db is HammerDB's name of the database the script chose
// (dbset db mysql: "MySQL", also for a MariaDB server; see hammerDBName).
func TestResult(db string, res *metrics.RunResult) string {
	return fmt.Sprintf("TEST RESULT : System achieved %.0f NOPM from %.0f %s TPM", res.NOPM, res.TPM, db)
}

// streamRun is one TPROC-H query stream, which HammerDB runs as one
// virtual user.
type streamRun struct {
	stream int
	sets   []querySet
}

// querySet is one pass of a stream over the 22 queries: HammerDB reports
// each with a "Completed" line and the geometric mean of the times of the
// queries that returned rows.
type querySet struct {
	set       int
	queries   []metrics.AnalyticQuery // in the stream's order
	returning int
	geomean   float64
	seconds   float64
}

func (q querySet) completed() string {
	// HammerDB's wall clock of the set in whole seconds; Sledge's is the sum
	// of the set's query times.
	return fmt.Sprintf("Completed %d query set(s) in %.0f seconds", q.set, q.seconds)
}

func (q querySet) geometric() string {
	return fmt.Sprintf("Geometric mean of query times returning rows (%d) is \"%.5f\"", q.returning, q.geomean)
}

// lines are what HammerDB's virtual user prints for the stream.
func (s streamRun) lines() []string {
	var out []string
	for _, set := range s.sets {
		for _, q := range set.queries {
			out = append(out, fmt.Sprintf("Executing Query %d (%d of 22)", q.Query, q.Position))
			if q.Error != "" {
				out = append(out, fmt.Sprintf("Query Failed : query %d : %s", q.Query, q.Error))
				continue
			}
			out = append(out, fmt.Sprintf("query %d completed in %s seconds", q.Query, number(q.Seconds, 3)))
		}
		out = append(out, set.completed())
		if set.returning > 0 {
			out = append(out, set.geometric())
		}
	}
	return out
}

// analyticStreams groups a TPROC-H result by stream and query set, in
// order. A query counts in the geometric mean when it returned rows, as in
// HammerDB.
func analyticStreams(res *metrics.AnalyticResult) []streamRun {
	type key struct{ stream, set int }
	sets := map[key]*querySet{}
	streams := map[int][]int{}
	for _, q := range res.Queries {
		k := key{q.Stream, max(q.Set, 1)}
		s := sets[k]
		if s == nil {
			s = &querySet{set: k.set}
			sets[k] = s
			streams[k.stream] = append(streams[k.stream], k.set)
		}
		s.queries = append(s.queries, q)
		s.seconds += q.Seconds
		if q.Error == "" && q.Rows > 0 && q.Seconds > 0 {
			s.returning++
			s.geomean += math.Log(q.Seconds)
		}
	}
	order := make([]int, 0, len(streams))
	for st := range streams {
		order = append(order, st)
	}
	sort.Ints(order)
	out := make([]streamRun, 0, len(order))
	for _, st := range order {
		run := streamRun{stream: st}
		nums := streams[st]
		sort.Ints(nums)
		for _, n := range nums {
			s := sets[key{st, n}]
			sort.SliceStable(s.queries, func(a, b int) bool { return s.queries[a].Position < s.queries[b].Position })
			if s.returning > 0 {
				s.geomean = math.Exp(s.geomean / float64(s.returning))
			}
			run.sets = append(run.sets, *s)
		}
		out = append(out, run)
	}
	return out
}

// firstSet is the query set HammerDB's one-line TPROC-H summaries read: the
// first stream's first (the first numbers of the joined result strings).
func firstSet(res *metrics.AnalyticResult) (querySet, bool) {
	if res == nil {
		return querySet{}, false
	}
	streams := analyticStreams(res)
	if len(streams) == 0 || len(streams[0].sets) == 0 || streams[0].sets[0].returning == 0 {
		return querySet{}, false
	}
	return streams[0].sets[0], true
}

// resultObject is one job in `jobs result` and `jobs profile`.
func (r *run) resultObject(j jobs.Job) (value, error) {
	if j.Kind != jobs.KindRun {
		return noResult, nil
	}
	db, err := r.dbName(j)
	if err != nil {
		return nil, err
	}
	o := object{{"db", db}, {"bm", benchmark(j)}, {"tstamp", r.stamp(j)}}
	if j.Workload == "tproch" {
		res, err := r.Repo.AnalyticResult(r.ctx, j.ID)
		if err != nil {
			return nil, err
		}
		if res == nil {
			return noResult, nil
		}
		s, ok := firstSet(res)
		if !ok {
			return noResult, nil
		}
		o.add("queries", strconv.Itoa(s.returning))
		o.add("querysets", strconv.Itoa(s.set))
		o.add("geomean", fmt.Sprintf("%.5f", s.geomean))
		o.add("querytime", fmt.Sprintf("%.0f", s.seconds))
		return o, nil
	}
	res, err := r.Repo.RunResult(r.ctx, j.ID)
	if err != nil {
		return nil, err
	}
	if res == nil {
		return noResult, nil
	}
	o.add("activevu", strconv.Itoa(res.VUs))
	o.add("nopm", fmt.Sprintf("%.0f", res.NOPM))
	o.add("tpm", fmt.Sprintf("%.0f", res.TPM))
	return o, nil
}

func (r *run) allResults() error {
	all, err := r.oldestFirst()
	if err != nil {
		return err
	}
	return r.showResults(all)
}

// showResults prints the jobs' result objects by job id.
func (r *run) showResults(js []jobs.Job) error {
	o, err := r.resultsObject(js)
	if err != nil {
		return err
	}
	r.show(o, false)
	return nil
}

func (r *run) resultsObject(js []jobs.Job) (object, error) {
	var o object
	for _, j := range js {
		v, err := r.resultObject(j)
		if err != nil {
			return nil, err
		}
		o.add(idString(j.ID), v)
	}
	return o, nil
}

// ------------------------------------------------------------------ timing

// hammerTx names Sledge's transactions as HammerDB's timing output does.
var hammerTx = map[string]string{
	"new_order": "NEWORD", "payment": "PAYMENT", "delivery": "DELIVERY",
	"stock_level": "SLEV", "order_status": "OSTAT",
}

const noTiming = "Jobid has no timing data"

// timing is `jobs ID timing`: HammerDB's SUMMARY rows, one per transaction,
// the highest ratio_pct first.
func (r *run) timing(j jobs.Job) error {
	o, err := r.timingObject(j)
	if err != nil {
		return err
	}
	if o == nil {
		r.showNoData(j, noTiming)
		return nil
	}
	r.show(o, false)
	return nil
}

// timingObject is the timing summary; nil when the job has none.
//
// HammerDB's summary over its virtual users (xtprof) adds up each VU's
// calls and time spent in a transaction (calls, total_ms; avg_ms =
// total_ms ÷ calls), takes min, max and percentiles over all VUs' samples,
// reports the median VU's profiled wall time as elapsed_ms and the share of
// all VUs' time spent in the transaction as ratio_pct = total_ms ÷
// (elapsed_ms × VUs) × 100; sd is the samples' standard deviation (N-1;
// 0 under three calls) in microseconds, the unit of HammerDB's published
// jobs answers (its 6.0 CLI example too: avg_ms 5.765, sd 2437.527), which
// scripts and parsers were written against.
//
// Sledge's histograms hold every VU's transactions of the measured window
// together, which are those sums, extremes and percentiles directly; every
// VU runs the whole window, so elapsed_ms is the window's wall time and
// ratio_pct follows HammerDB's formula with it. Unlike HammerDB's, the
// window excludes the ramp-up.
func (r *run) timingObject(j jobs.Job) (object, error) {
	if j.Kind != jobs.KindRun || j.Workload == "tproch" {
		return nil, nil
	}
	res, err := r.Repo.RunResult(r.ctx, j.ID)
	if err != nil {
		return nil, err
	}
	if res == nil || res.Measured <= 0 {
		return nil, nil
	}
	elapsed := float64(res.Measured.Microseconds()) / 1000
	vuTime := elapsed * float64(max(res.VUs, 1))
	type txTiming struct {
		name  string
		ratio float64
		obj   object
	}
	var all []txTiming
	for _, tx := range res.Tx {
		if len(tx.Histogram) == 0 || tx.Count == 0 {
			continue
		}
		h, err := hdrhistogram.Decode(tx.Histogram)
		if err != nil {
			return nil, fmt.Errorf("timing of job %d: decode %s histogram: %w", j.ID, tx.Name, err)
		}
		ms := func(us float64) string { return number(us/1000, 3) }
		q := func(p float64) string { return ms(float64(h.ValueAtQuantile(p))) }
		total := h.Mean() * float64(h.TotalCount()) / 1000
		ratio := total / vuTime * 100
		sd := 0.0 // HammerDB's for fewer than three calls
		if n := float64(h.TotalCount()); n > 2 {
			sd = h.StdDev() * math.Sqrt(n/(n-1)) // the sample's (N-1), as HammerDB's
		}
		name := hammerTx[tx.Name]
		if name == "" {
			name = strings.ToUpper(tx.Name)
		}
		all = append(all, txTiming{name, ratio, object{
			{"elapsed_ms", number(elapsed, 3)},
			{"calls", integer(h.TotalCount())},
			{"min_ms", ms(float64(h.Min()))},
			{"avg_ms", ms(h.Mean())},
			{"max_ms", ms(float64(h.Max()))},
			{"total_ms", number(total, 3)},
			{"p99_ms", q(99)},
			{"p95_ms", q(95)},
			{"p75_ms", q(75)},
			{"p50_ms", q(50)},
			{"p25_ms", q(25)},
			{"sd", number(sd, 3)}, // microseconds, as in HammerDB's published jobs answers
			{"ratio_pct", number(ratio, 3)},
		}})
	}
	if len(all) == 0 {
		return nil, nil
	}
	sort.SliceStable(all, func(a, b int) bool { return all[a].ratio > all[b].ratio })
	var o object
	for _, t := range all {
		o.add(t.name, t.obj)
	}
	return o, nil
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

// vuTiming is `jobs ID timing N`: Sledge keeps latency histograms per
// transaction for all virtual users together, not per virtual user, so it
// has HammerDB's answer for a VU without timing data.
func (r *run) vuTiming(id string, n int) {
	r.println("No Timing Data for VU %d for JOB %s: jobs jobid timing vuid", n, id)
	r.println("Notice: Sledge records timings for all virtual users together: jobs %s timing", id)
}

const noTcount = "Jobid has no transaction counter data"

// tcount is `jobs ID tcount`: HammerDB's transaction counter samples.
func (r *run) tcount(j jobs.Job) error {
	label, samples, err := r.tcountSamples(j)
	if err != nil {
		return err
	}
	if samples == nil {
		r.showNoData(j, noTcount)
		return nil
	}
	if r.s.Format == FormatJSON {
		r.show(object{{label, tclDict(samples)}}, false)
		return nil
	}
	// Text prints HammerDB's raw pairs, a repeated timestamp included.
	r.println("%s", tclText(object{{label, samples}}))
	return nil
}

// tcountSamples are a run's transaction counter samples in the layout of
// HammerDB's published jobs answers: TPM → sample time, the first "0" at
// the job's start, then one per interval (ramp-up included), labelled
// "<db> tpm" with HammerDB's name of the database. nil when the job has
// none.
//
// The samples are the keys, as in HammerDB's: two intervals with the same
// TPM repeat a key, and HammerDB's JSON keeps the key once, where it first
// appeared, with the later time (a Tcl dict), which tclDict reproduces; the
// text format keeps every pair.
func (r *run) tcountSamples(j jobs.Job) (string, object, error) {
	if j.Kind != jobs.KindRun || j.Workload == "tproch" {
		return "", nil, nil
	}
	ivs, err := r.Repo.Intervals(r.ctx, j.ID)
	if err != nil {
		return "", nil, err
	}
	if len(ivs) == 0 {
		return "", nil, nil
	}
	db, err := r.dbName(j)
	if err != nil {
		return "", nil, err
	}
	start := jobStart(j)
	samples := object{{"0", r.clock(start)}}
	for _, iv := range ivs {
		samples.add(fmt.Sprintf("%.0f", iv.TPM), r.clock(start.Add(iv.Elapsed)))
	}
	return db + " tpm", samples, nil
}

// tclDict is o as a Tcl dict holds it: a repeated key keeps its first place
// and takes the last value.
func tclDict(o object) object {
	at := map[string]int{}
	var out object
	for _, f := range o {
		if i, ok := at[f.key]; ok {
			out[i].val = f.val
			continue
		}
		at[f.key] = len(out)
		out = append(out, f)
	}
	return out
}

// dictOfDicts is a list as HammerDB's JSON writer compiles it (huddle
// "dict * dict"): key, value pairs whose values are read as dicts of
// strings, their words in pairs ("Jobid has no timing data" → {"Jobid":
// "has", "no": "timing", "data": ""}).
func dictOfDicts(l list) object {
	var o object
	for i := 0; i < len(l); i += 2 {
		var v value = ""
		if i+1 < len(l) {
			v = l[i+1]
		}
		o.add(tclText(l[i]), dictOfStrings(v))
	}
	return tclDict(o)
}

// dictOfStrings reads a value as a Tcl dict of strings.
func dictOfStrings(v value) object {
	if o, ok := v.(object); ok {
		return o
	}
	words := tclWords(tclText(v))
	var o object
	for i := 0; i < len(words); i += 2 {
		val := ""
		if i+1 < len(words) {
			val = words[i+1]
		}
		o.add(words[i], val)
	}
	return tclDict(o)
}

// tclWords splits a Tcl list into its elements, reading braces, quotes and
// backslashes as Tcl does.
func tclWords(s string) []string {
	var out []string
	i, n := 0, len(s)
	space := func(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f' }
	escaped := func(c byte) byte {
		switch c {
		case 'n':
			return '\n'
		case 't':
			return '\t'
		}
		return c
	}
	for {
		for i < n && space(s[i]) {
			i++
		}
		if i >= n {
			return out
		}
		if s[i] == '{' {
			depth, start := 1, i+1
			for i++; i < n && depth > 0; i++ {
				switch s[i] {
				case '\\':
					i++
				case '{':
					depth++
				case '}':
					depth--
				}
			}
			end := i - 1 // the closing brace
			if depth > 0 {
				end = n // unterminated: the rest
			}
			out = append(out, s[start:end])
			continue
		}
		var b strings.Builder
		quoted := s[i] == '"'
		if quoted {
			i++
		}
		for ; i < n && (quoted && s[i] != '"' || !quoted && !space(s[i])); i++ {
			if s[i] == '\\' && i+1 < n {
				i++
				b.WriteByte(escaped(s[i]))
				continue
			}
			b.WriteByte(s[i])
		}
		if quoted {
			i++
		}
		out = append(out, b.String())
	}
}

const (
	noMetrics    = "Jobid has no metric data"
	noSystemData = "Jobid has no system data"
)

// metrics is `jobs ID metrics`: the server's CPU and I/O samples by time,
// when the repository keeps them.
func (r *run) metrics(j jobs.Job) error {
	o, err := r.metricsObject(j)
	if err != nil {
		return err
	}
	if o == nil {
		r.showNoData(j, noMetrics)
		return nil
	}
	r.show(o, false)
	return nil
}

// metricsObject is HammerDB's metrics shape (time → usr% sys% irq% idle%
// iops mbps, the first sample of a second kept); nil without samples.
func (r *run) metricsObject(j jobs.Job) (object, error) {
	samples, err := r.metricSamples(j)
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	var o object
	for _, m := range samples {
		at := r.clock(m.At)
		if seen[at] {
			continue
		}
		seen[at] = true
		o.add(at, object{{"usr%", number(m.Usr, 2)}, {"sys%", number(m.Sys, 2)}, {"irq%", number(m.Irq, 2)},
			{"idle%", number(m.Idle, 2)}, {"iops", number(m.IOPS, 2)}, {"mbps", number(m.MBps, 2)}})
	}
	return o, nil
}

// metricSamples are job j's server/OS samples: the repository's own
// (MetricsRepository), or its host observer's intervals; none when it
// keeps neither.
func (r *run) metricSamples(j jobs.Job) ([]MetricSample, error) {
	switch repo := r.Repo.(type) {
	case MetricsRepository:
		samples, err := repo.Metrics(r.ctx, j.ID)
		if err != nil {
			return nil, fmt.Errorf("jobs: metrics of job %d: %w", j.ID, err)
		}
		return samples, nil
	case ObservationRepository:
		obs, err := repo.Observations(r.ctx, j.ID)
		if err != nil {
			return nil, fmt.Errorf("jobs: metrics of job %d: %w", j.ID, err)
		}
		return ObservedSamples(obs, jobStart(j)), nil
	}
	return nil, nil
}

// ObservedSamples are HammerDB's metric samples from a job's observations
// (start is when the job started): one per interval of a host observer
// (os.cpu user_pct, sys_pct, irq_pct, idle_pct; os.disk iops, mbps). The
// database's host is what HammerDB's metrics agent watches, so only an
// observer named for it ("database host", "client and database host")
// answers; a remote database's job has no metric data. An interval lacking any of the figures (the
// host could not be read) is left out, as HammerDB's agent leaves out a
// sample it did not take: a figure is never made up as 0.
func ObservedSamples(obs []jobs.Observation, start time.Time) []MetricSample {
	var host *jobs.Observation
	for i := range obs {
		if !observesHost(obs[i]) {
			continue
		}
		if host == nil || strings.Contains(obs[i].Name, "database") && !strings.Contains(host.Name, "database") {
			host = &obs[i]
		}
	}
	if host == nil || !strings.Contains(host.Name, "database") {
		// Only the client's host was observed (the database is elsewhere):
		// HammerDB's metrics are the database host's, so there are none.
		return nil
	}
	var out []MetricSample
	for _, s := range host.Intervals {
		v := map[string]float64{}
		for _, c := range s.Counters {
			if c.Source == observe.SourceOSCPU || c.Source == observe.SourceOSDisk {
				v[c.Source+"/"+c.Name] = c.Value
			}
		}
		fig := func(source, name string) (float64, bool) {
			x, ok := v[source+"/"+name]
			return x, ok && !math.IsNaN(x)
		}
		m := MetricSample{At: start.Add(s.Elapsed)}
		complete := true
		for _, f := range []struct {
			source, name string
			to           *float64
		}{
			{observe.SourceOSCPU, "user_pct", &m.Usr}, {observe.SourceOSCPU, "sys_pct", &m.Sys},
			{observe.SourceOSCPU, "irq_pct", &m.Irq}, {observe.SourceOSCPU, "idle_pct", &m.Idle},
			{observe.SourceOSDisk, "iops", &m.IOPS}, {observe.SourceOSDisk, "mbps", &m.MBps},
		} {
			x, ok := fig(f.source, f.name)
			complete = complete && ok
			*f.to = x
		}
		if complete {
			out = append(out, m)
		}
	}
	return out
}

// observesHost says whether an observer watched a host's operating system.
func observesHost(o jobs.Observation) bool {
	for _, s := range o.Intervals {
		for _, c := range s.Counters {
			if c.Source == observe.SourceOSCPU {
				return true
			}
		}
	}
	return false
}

// system is `jobs ID system`: the client machine, in HammerDB's keys.
func (r *run) system(j jobs.Job) error {
	o, err := r.systemObject(j)
	if err != nil {
		return err
	}
	r.show(o, false)
	return nil
}

// systemObject is the system data in HammerDB's keys and order, or
// {jobid, message} when there is none.
func (r *run) systemObject(j jobs.Job) (object, error) {
	sys, err := r.Repo.System(r.ctx, j.ID)
	if err != nil {
		return nil, err
	}
	if len(sys) == 0 {
		return object{{"jobid", idString(j.ID)}, {"message", noSystemData}}, nil
	}
	o := object{{"jobid", idString(j.ID)}}
	for _, k := range []struct{ hammer, sledge string }{
		{"hostname", "host"}, {"cpumodel", "cpu_model"}, {"cpucount", "cpus"},
		{"os_name", "os_name"}, {"memory", "memory"},
	} {
		if v := sys[k.sledge]; v != "" {
			o.add(k.hammer, v)
		}
	}
	var sw []string
	if v := sys["sledge_version"]; v != "" {
		sw = append(sw, "Sledge "+v)
	}
	if v := sys["go_version"]; v != "" {
		sw = append(sw, v)
	}
	if len(sw) > 0 {
		o.add("other_software", strings.Join(sw, ", "))
	}
	if v := sys["os"]; v != "" {
		o.add("extra", "platform "+v)
	}
	return o, nil
}

// ------------------------------------------------------------------- dict

// dict is `jobs ID dict`: as HammerDB, the whole dictionary of the job's
// database at the time of the job — its connection dict and the
// benchmark's, every key in HammerDB's order with HammerDB's default (from
// the key table) overlaid by the settings the job was started with from
// `sledge cli`, else by Sledge's settings of the job in HammerDB's keys
// (derivedDict). Passwords (keys ending in "pass") are shown as xxxxx.
// Embedded databases, which HammerDB has no dictionary for, show the
// derived settings only.
func (r *run) dict(j jobs.Job) error {
	cfg, err := r.Repo.Config(r.ctx, j.ID)
	if err != nil {
		return err
	}
	recorded := map[string]map[string]string{}
	prefix := ""
	for k, v := range cfg {
		if rest, ok := strings.CutPrefix(k, ConfigPrefix); ok {
			d, key, ok := strings.Cut(rest, ".")
			if !ok {
				continue
			}
			if recorded[d] == nil {
				recorded[d] = map[string]string{}
			}
			recorded[d][key] = v
			if p, _, ok := strings.Cut(key, "_"); ok && slices.Contains(dictOrder, d) {
				prefix = p
			}
		}
	}
	set := recorded
	if len(recorded) == 0 {
		set = derivedDict(j, cfg)
	}
	bench := "tpcc"
	if j.Workload == "tproch" {
		bench = "tpch"
	}
	var o object
	if db, ok := jobDatabase(j, cfg[ConfigDB], prefix); ok {
		for _, d := range db.Dicts {
			if d.Name == "connection" || d.Name == bench {
				o.add(d.Name, dictObject(d, set[d.Name]))
			}
		}
		r.show(o, false)
		return nil
	}
	for _, d := range slices.Sorted(maps.Keys(set)) {
		o.add(d, dictObject(Dict{Name: d}, set[d]))
	}
	r.show(o, false)
	return nil
}

// jobDatabase is the key table of a job's database: the one its script
// chose (ConfigDB, or the prefix of its recorded settings), else the one of
// its server (pg; maria for a MariaDB server, mysql for MySQL).
func jobDatabase(j jobs.Job, chosen, prefix string) (Database, bool) {
	for _, d := range Databases() {
		if strings.EqualFold(chosen, d.Name) || strings.EqualFold(chosen, d.Product) {
			return d, true
		}
	}
	if prefix != "" {
		return DatabaseNamed(prefix)
	}
	switch {
	case j.DBKind == "postgres":
		return DatabaseNamed("pg")
	case j.DBKind == "mysql" && strings.Contains(j.DBVersion, "MariaDB"):
		return DatabaseNamed("maria")
	case j.DBKind == "mysql":
		return DatabaseNamed("mysql")
	}
	return Database{}, false
}

// dictObject is one dictionary of jobs ID dict: d's keys with their
// defaults overlaid by set, then the keys of set the table does not have
// (sorted); passwords redacted.
func dictObject(d Dict, set map[string]string) object {
	var o object
	add := func(k, v string) {
		if strings.HasSuffix(strings.ToLower(k), "pass") && v != "" {
			v = "xxxxx"
		}
		o.add(k, v)
	}
	for _, k := range d.Keys {
		v, ok := set[k.Name]
		if !ok {
			v = k.Default
		}
		add(k.Name, v)
	}
	for _, k := range slices.Sorted(maps.Keys(set)) {
		if _, ok := lookup([]Dict{d}, d.Name, k); !ok {
			add(k, set[k])
		}
	}
	return o
}

// derivedDict writes Sledge's recorded settings of a job in HammerDB's
// dictionary keys, for jobs not started from `sledge cli`: the inverse of
// the mapping of hammer.go where there is one.
func derivedDict(j jobs.Job, cfg map[string]string) map[string]map[string]string {
	prefix := map[string]string{"postgres": "pg_", "mysql": "mysql_", "sqlite": "sqlite_", "duckdb": "duckdb_"}[j.DBKind]
	if strings.Contains(j.DBVersion, "MariaDB") {
		prefix = "maria_"
	}
	conn := map[string]string{}
	bench := map[string]string{}
	tpch := j.Workload == "tproch"
	userKey, passKey, dbKey := "user", "pass", "dbase"
	if tpch {
		userKey, passKey, dbKey = "tpch_user", "tpch_pass", "tpch_dbase"
	}
	if u, err := url.Parse(j.Target); err == nil && (u.Host != "" || u.Query().Get("socket") != "") {
		if u.Host != "" {
			conn[prefix+"host"] = u.Hostname()
			conn[prefix+"port"] = u.Port()
		}
		bench[prefix+userKey] = u.User.Username()
		if _, ok := u.User.Password(); ok {
			bench[prefix+passKey] = "xxxxx"
		}
		bench[prefix+dbKey] = strings.TrimPrefix(u.Path, "/")
		q := u.Query()
		if s := q.Get("socket"); s != "" {
			conn[prefix+"socket"] = s
		}
		if m := q.Get("sslmode"); m != "" && prefix == "pg_" {
			conn[prefix+"sslmode"] = m
		}
	} else {
		conn[prefix+"file"] = strings.TrimPrefix(strings.TrimPrefix(j.Target, j.DBKind+":"), "file:")
	}
	minutes := func(key string) {
		if d, err := time.ParseDuration(cfg[key]); err == nil {
			bench[prefix+key] = number(d.Minutes(), 4)
		}
	}
	set := func(hkey, skey string) {
		if v, ok := cfg[skey]; ok && v != "" {
			bench[prefix+hkey] = v
		}
	}
	switch {
	case tpch && j.Kind == jobs.KindBuild:
		set("scale_fact", "scale")
		set("num_tpch_threads", "workers")
	case tpch:
		set("total_querysets", "query_sets")
		set("refresh_on", "refresh")
	case j.Kind == jobs.KindBuild:
		set("count_ware", "warehouses")
		set("num_vu", "workers")
		if prefix != "pg_" {
			set("storage_engine", "engine")
		}
	case j.Kind == jobs.KindRun:
		set("count_ware", "warehouses")
		if n := cfg["iterations"]; n != "" && n != "0" {
			bench[prefix+"driver"] = "test"
			bench[prefix+"total_iterations"] = n
		} else {
			bench[prefix+"driver"] = "timed"
			minutes("rampup")
			minutes("duration")
		}
		if m := cfg["mode"]; m != "" && prefix != "pg_" {
			// PostgreSQL's storedprocs chooses procedures or functions,
			// not client SQL: nothing to say for pg.
			bench[prefix+"no_stored_procs"] = strconv.FormatBool(m == "sql")
		}
		if p := cfg["pacing"]; p != "" {
			bench[prefix+"keyandthink"] = strconv.FormatBool(strings.HasPrefix(p, "spec"))
		}
		// Paced terminals, a whole number per session: HammerDB's
		// asynchronous clients per VU.
		terms, _ := strconv.Atoi(cfg["terminals"])
		conns, _ := strconv.Atoi(cfg["connections"])
		if cfg["load_model"] == config.LoadTerminals && strings.HasPrefix(cfg["pacing"], "spec") && conns > 0 && terms%conns == 0 {
			bench[prefix+"async_scale"] = "true"
			bench[prefix+"async_client"] = strconv.Itoa(terms / conns)
		}
		if v, err := strconv.ParseBool(cfg["random_home"]); err == nil {
			// HammerDB's default is a random home warehouse per VU;
			// allwarehouse true is the nearest to Sledge's even spread.
			bench[prefix+"allwarehouse"] = strconv.FormatBool(!v)
		}
	}
	name := "tpcc"
	if tpch {
		name = "tpch"
	}
	return map[string]map[string]string{"connection": conn, name: bench}
}

// -------------------------------------------------------------- profiles

func (r *run) profileID(args []string) error {
	switch {
	case len(args) == 0:
		r.println("Performance profile id set to %d", r.s.ProfileID)
	case strings.EqualFold(args[0], "all"):
		ids, err := r.profileIDs()
		if err != nil {
			return err
		}
		if len(ids) == 0 {
			r.println("No performance profiles found")
			return nil
		}
		v := make(list, len(ids))
		for i, id := range ids {
			v[i] = strconv.Itoa(id)
		}
		r.show(v, true)
	default:
		n, err := strconv.Atoi(args[0])
		if err != nil || n < 0 || len(args) > 1 {
			r.println("Error: Performance profile id should be an integer")
			return nil
		}
		r.s.ProfileID = n
		r.println("Setting performance profile id to %d", n)
	}
	return nil
}

// profileJobs returns the completed TPROC-C runs recorded under a profile.
func (r *run) profileJobs(pid int) ([]jobs.Job, error) {
	all, err := r.oldestFirst()
	if err != nil {
		return nil, err
	}
	var out []jobs.Job
	for _, j := range all {
		if j.Kind != jobs.KindRun || j.Workload == "tproch" || j.Headline == nil {
			continue
		}
		cfg, err := r.Repo.Config(r.ctx, j.ID)
		if err != nil {
			return nil, err
		}
		if cfg[ConfigProfileID] == strconv.Itoa(pid) {
			out = append(out, j)
		}
	}
	return out, nil
}

func (r *run) profileIDs() ([]int, error) {
	all, err := r.Repo.List(r.ctx, jobs.ListFilter{Kind: jobs.KindRun})
	if err != nil {
		return nil, err
	}
	seen := map[int]bool{}
	for _, j := range all {
		cfg, err := r.Repo.Config(r.ctx, j.ID)
		if err != nil {
			return nil, err
		}
		if n, err := strconv.Atoi(cfg[ConfigProfileID]); err == nil && n > 0 {
			seen[n] = true
		}
	}
	ids := make([]int, 0, len(seen))
	for id := range seen {
		ids = append(ids, id)
	}
	sort.Ints(ids)
	return ids, nil
}

func (r *run) profile(args []string) error {
	if len(args) != 1 {
		r.println("Error: Performance profile id should be an integer greater than 0")
		return nil
	}
	pid, err := strconv.Atoi(args[0])
	if err != nil || pid <= 0 {
		r.println("Error: Performance profile id should be an integer greater than 0")
		return nil
	}
	js, err := r.profileJobs(pid)
	if err != nil {
		return err
	}
	if len(js) == 0 {
		r.println("Error: No jobs found with performance profile id of %d", pid)
		return nil
	}
	return r.showResults(js)
}

// diff compares two profiles' NOPM at the virtual-user counts both have run
// and returns the comparison's relative difference (+0.05: 5% more).
func (r *run) diff(args []string) error {
	r.ret = "null"
	if len(args) < 2 || len(args) > 3 {
		r.println("Error: Usage: jobs diff basepid comppid [true|false]")
		return nil
	}
	base, err := strconv.Atoi(args[0])
	if err != nil || base <= 0 {
		r.println("Error: good profile id must be an integer > 0")
		return nil
	}
	comp, err := strconv.Atoi(args[1])
	if err != nil || comp <= 0 {
		r.println("Error: bad profile id must be an integer > 0")
		return nil
	}
	if len(args) == 3 && strings.EqualFold(args[2], "true") {
		r.println("Notice: jobs diff weighted: Sledge compares profiles unweighted")
	}
	// HammerDB takes each profile's NOPM (as its TEST RESULT line rounds
	// it) at each active VU count from its results, a later job's replacing
	// an earlier one's.
	byVU := func(pid int) (map[int]float64, error) {
		js, err := r.profileJobs(pid)
		if err != nil {
			return nil, err
		}
		m := map[int]float64{}
		for _, j := range js {
			res, err := r.Repo.RunResult(r.ctx, j.ID)
			if err != nil {
				return nil, err
			}
			if res != nil {
				m[res.VUs] = math.Round(res.NOPM)
			}
		}
		return m, nil
	}
	b, err := byVU(base)
	if err != nil {
		return err
	}
	if len(b) == 0 {
		r.println("Error: no jobs found for good profile id %d", base)
		return nil
	}
	c, err := byVU(comp)
	if err != nil {
		return err
	}
	if len(c) == 0 {
		r.println("Error: no jobs found for bad profile id %d", comp)
		return nil
	}
	var matched int
	var sumB, sumC float64
	for vu, nb := range b {
		if nc, ok := c[vu]; ok {
			matched++
			sumB += nb
			sumC += nc
		}
	}
	if matched == 0 {
		r.println("Error: the two profiles have no overlapping activevu points")
		return nil
	}
	if sumB == 0 {
		r.println("Error: good profile average NOPM is zero; cannot compute ratio")
		return nil
	}
	avgB, avgC := sumB/float64(matched), sumC/float64(matched)
	r.println("Profiles compared (unweighted): matched=%d, avg_base=%.0f, avg_comp=%.0f", matched, avgB, avgC)
	r.ret = diffRatio(avgC/avgB - 1)
	return nil
}

// diffRatio writes a relative difference as HammerDB does: two decimals
// with a sign ("+0.10", "-0.03"), four when two would read zero, "0.00"
// for none.
func diffRatio(d float64) string {
	s := fmt.Sprintf("%.2f", d)
	if s == "0.00" || s == "-0.00" {
		switch s4 := fmt.Sprintf("%+.4f", d); {
		case d == 0:
			return "0.00"
		case s4 == "+0.0000" || s4 == "-0.0000":
			return "0.0000"
		default:
			return s4
		}
	}
	if d > 0 {
		return "+" + s
	}
	return s
}

// Write prints an outcome for the front ends: what was printed, then, after
// a line holding only the record separator, the returned value and the
// session (see `sledge cli jobs`).
func (o Outcome) Write(w io.Writer) error {
	_, err := fmt.Fprintf(w, "%s\x1e\n%s %d\n%s", o.Printed, o.Session.Format, o.Session.ProfileID, o.Returned)
	return err
}
