// HammerDB's CLI "jobs" command, answered from Sledge's jobs repository with
// HammerDB's sub-commands and output shapes (JSON or text), so that scripts
// and tools written against HammerDB's jobs output keep working. The Tcl and
// Python front ends of `sledge cli` call it through `sledge cli jobs`.
//
// Sledge's job ids are its repository's numbers, not HammerDB's hex strings;
// everything else (key names, order, every number as a string, the text
// layouts) follows HammerDB.

package script

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

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
	AnalyticResult(ctx context.Context, id int64) (*metrics.AnalyticResult, error)
	Delete(ctx context.Context, id int64) error
}

// Keys under which `sledge cli` stores a job's HammerDB settings in its
// configuration: ConfigPrefix+"tpcc.pg_count_ware" and so on, and the
// performance profile id the job was run under.
const (
	ConfigPrefix    = "hammerdb."
	ConfigProfileID = "hammerdb_profileid"
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
}

const usage = `Error: Usage: [ jobs | jobs format <fmt> | jobs disable <0|1> | jobs jobid | jobs jobid <command> [option] | jobs jobid timing <vuid|vu=n> | jobs jobid getchart [result|timing|tcount|metrics|profile|diff:pid] | jobs profileid [id] | jobs profile <id> | jobs diff basepid comppid [true|false] ] - type "help jobs"`

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
		return r.onJob(args[0], func(j jobs.Job) error { return r.rows(j, -1) })
	case 2:
		return r.onJob(args[0], func(j jobs.Job) error { return r.jobCommand(j, args[1]) })
	case 3:
		switch strings.ToLower(args[1]) {
		case "timing":
			return r.onJob(args[0], func(j jobs.Job) error { return r.vuTiming(j, args[2]) })
		case "getchart":
			// For profile charts the first argument is a profile id.
			if k := strings.ToLower(args[2]); k == "profile" || strings.HasPrefix(k, "diff:") {
				return r.profileChart(args[0], args[2])
			}
			return r.onJob(args[0], func(j jobs.Job) error { return r.chart(j, args[2]) })
		}
		r.println("Error: Jobs Three Parameter Usage: [ jobs jobid timing vuid | jobs jobid timing vu=n | jobs jobid getchart chart ]")
		return nil
	}
	r.println("Error: Too many arguments to jobs")
	r.println("%s", usage)
	return nil
}

// onJob runs fn on the job named by arg, or says that there is no such job.
func (r *run) onJob(arg string, fn func(jobs.Job) error) error {
	id, err := strconv.ParseInt(strings.TrimSpace(arg), 10, 64)
	if err != nil || id <= 0 {
		r.println("Jobid %s does not exist", arg)
		return nil
	}
	j, err := r.Repo.Get(r.ctx, id)
	if errors.Is(err, jobs.ErrNotFound) {
		r.println("Jobid %s does not exist", arg)
		return nil
	}
	if err != nil {
		return err
	}
	return fn(j)
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
		r.show(object{{idString(j.ID), splitMessage("Jobid has no metric data")}}, false)
		return nil
	case "system":
		return r.system(j)
	case "timestamp":
		r.show(object{{idString(j.ID), r.stamp(j)}}, false)
		return nil
	case "bm":
		r.show(list{benchmark(j)}, true)
		return nil
	case "db":
		product, version := productVersion(j)
		v := list{product}
		if version != "" {
			v = append(v, version)
		}
		r.show(v, true)
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

func (r *run) stamp(j jobs.Job) string {
	t := j.StartedAt
	if t.IsZero() {
		t = j.CreatedAt
	}
	return t.In(r.Loc).Format("2006-01-02 15:04:05")
}

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
				if res != nil && res.GeomeanS > 0 {
					rw.metric = fmt.Sprintf("%.2f", res.GeomeanS)
					rw.score, rw.scored = -res.GeomeanS, j.Status == metrics.StatusCompleted
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
			product, version := productVersion(rw.j)
			dbcol := product
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

// rows prints a job's console as HammerDB's virtual-user rows: VU 0 holds
// the status lines, VU 1 the job's output (Sledge runs a job as one
// process, which plays HammerDB's first virtual user). vu < 0: all rows.
func (r *run) rows(j jobs.Job, vu int) error {
	if vu > 1 {
		r.println("Jobid %d for virtual user %d does not exist", j.ID, vu)
		return nil
	}
	type rowT struct {
		vu   int
		line string
	}
	var rows []rowT
	if vu <= 0 {
		rows = append(rows, rowT{0, "Vuser 1:RUNNING"})
	}
	if vu != 0 {
		out, err := r.Repo.Output(r.ctx, j.ID)
		if err != nil {
			return err
		}
		for _, l := range out {
			rows = append(rows, rowT{1, strings.TrimRight(l.Line, " \t\r")})
		}
	}
	if vu <= 0 && j.Status != metrics.StatusRunning {
		if j.Error != "" {
			rows = append(rows, rowT{0, "Error: " + j.Error})
		}
		switch j.Status {
		case metrics.StatusCompleted, metrics.StatusDegraded:
			rows = append(rows, rowT{0, "Vuser 1:FINISHED SUCCESS"})
		case metrics.StatusInterrupted:
			rows = append(rows, rowT{0, "Vuser 1:FINISHED INTERRUPTED"})
		default:
			rows = append(rows, rowT{0, "Vuser 1:FINISHED FAILED"})
		}
		rows = append(rows, rowT{0, "ALL VIRTUAL USERS COMPLETE"})
	}
	if r.s.Format == FormatJSON {
		v := make(list, 0, 2*len(rows))
		for _, rw := range rows {
			v = append(v, strconv.Itoa(rw.vu), rw.line)
		}
		r.show(v, false)
		return nil
	}
	for _, rw := range rows {
		r.println("Virtual User %d: %s", rw.vu, rw.line)
	}
	return nil
}

// ----------------------------------------------------------------- results

// result is `jobs ID result`: id, timestamp, the active virtual users and
// the TEST RESULT line (TPROC-C), or the geometric mean and completion lines
// (TPROC-H).
func (r *run) result(j jobs.Job) error {
	v, err := r.resultLines(j)
	if err != nil {
		return err
	}
	if v == nil {
		v = list{idString(j.ID), "Jobid has no test result"}
	}
	r.show(v, true)
	return nil
}

func (r *run) resultLines(j jobs.Job) (list, error) {
	if j.Kind != jobs.KindRun {
		return nil, nil
	}
	if j.Workload == "tproch" {
		res, err := r.Repo.AnalyticResult(r.ctx, j.ID)
		if err != nil || res == nil {
			return nil, err
		}
		var geo, done []string
		for _, st := range analyticStreams(res) {
			if st.returning > 0 {
				geo = append(geo, fmt.Sprintf("Geometric mean of query times returning rows (%d) is \"%.5f\"", st.returning, st.geomean))
			}
			done = append(done, fmt.Sprintf("Completed %d query set(s) in %.0f seconds", st.sets, st.seconds))
		}
		v := list{idString(j.ID), r.stamp(j)}
		if len(geo) > 0 {
			v = append(v, strings.Join(geo, " "))
		}
		return append(v, strings.Join(done, " ")), nil
	}
	res, err := r.Repo.RunResult(r.ctx, j.ID)
	if err != nil || res == nil {
		return nil, err
	}
	return list{idString(j.ID), r.stamp(j),
		fmt.Sprintf("%d Active Virtual Users configured", res.VUs), TestResult(j, res)}, nil
}

// TestResult is the line HammerDB users grep for, naming the database
// product the job's server reported.
func TestResult(j jobs.Job, res *metrics.RunResult) string {
	product, _ := productVersion(j)
	return fmt.Sprintf("TEST RESULT : System achieved %.0f NOPM from %.0f %s TPM", res.NOPM, res.TPM, product)
}

// streamSummary is one TPROC-H query stream as HammerDB reports a virtual
// user: the geometric mean of the times of queries that returned rows.
type streamSummary struct {
	stream    int
	returning int
	geomean   float64
	sets      int
	seconds   float64
}

func analyticStreams(res *metrics.AnalyticResult) []streamSummary {
	by := map[int]*streamSummary{}
	var order []int
	logs := map[int]float64{}
	for _, q := range res.Queries {
		s := by[q.Stream]
		if s == nil {
			s = &streamSummary{stream: q.Stream}
			by[q.Stream] = s
			order = append(order, q.Stream)
		}
		s.seconds += q.Seconds
		s.sets = max(s.sets, q.Set, 1)
		if q.Error == "" && q.Rows > 0 && q.Seconds > 0 {
			s.returning++
			logs[q.Stream] += math.Log(q.Seconds)
		}
	}
	sort.Ints(order)
	out := make([]streamSummary, 0, len(order))
	for _, st := range order {
		s := by[st]
		if s.returning > 0 {
			s.geomean = math.Exp(logs[st] / float64(s.returning))
		}
		out = append(out, *s)
	}
	return out
}

// resultObject is one job in `jobs result` and `jobs profile`.
func (r *run) resultObject(j jobs.Job) (value, error) {
	if j.Kind != jobs.KindRun {
		return "Jobid has no test result", nil
	}
	product, _ := productVersion(j)
	o := object{{"db", product}, {"bm", benchmark(j)}, {"tstamp", r.stamp(j)}}
	if j.Workload == "tproch" {
		res, err := r.Repo.AnalyticResult(r.ctx, j.ID)
		if err != nil {
			return nil, err
		}
		streams := []streamSummary(nil)
		if res != nil {
			streams = analyticStreams(res)
		}
		if len(streams) == 0 || streams[0].returning == 0 {
			return "Jobid has no test result", nil
		}
		s := streams[0]
		o.add("queries", strconv.Itoa(s.returning))
		o.add("querysets", strconv.Itoa(s.sets))
		o.add("geomean", fmt.Sprintf("%.5f", s.geomean))
		o.add("querytime", fmt.Sprintf("%.0f", s.seconds))
		return o, nil
	}
	res, err := r.Repo.RunResult(r.ctx, j.ID)
	if err != nil {
		return nil, err
	}
	if res == nil {
		return "Jobid has no test result", nil
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
	var o object
	for _, j := range js {
		v, err := r.resultObject(j)
		if err != nil {
			return err
		}
		o.add(idString(j.ID), v)
	}
	r.show(o, false)
	return nil
}

// ------------------------------------------------------------------ timing

// hammerTx names Sledge's transactions as HammerDB's timing output does.
var hammerTx = map[string]string{
	"new_order": "NEWORD", "payment": "PAYMENT", "delivery": "DELIVERY",
	"stock_level": "SLEV", "order_status": "OSTAT",
}

// timing is `jobs ID timing`: per transaction over the measured window,
// from its latency histogram. elapsed_ms is the virtual users' time (the
// window times the number of VUs), so ratio_pct is the share of that time
// spent in the transaction.
func (r *run) timing(j jobs.Job) error {
	noData := object{{idString(j.ID), splitMessage("Jobid has no timing data")}}
	if j.Kind != jobs.KindRun || j.Workload == "tproch" {
		r.showNoData(j, noData, "Jobid has no timing data")
		return nil
	}
	res, err := r.Repo.RunResult(r.ctx, j.ID)
	if err != nil {
		return err
	}
	if res == nil || res.Measured <= 0 {
		r.showNoData(j, noData, "Jobid has no timing data")
		return nil
	}
	elapsed := float64(res.Measured.Microseconds()) / 1000 * float64(max(res.VUs, 1))
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
			return fmt.Errorf("timing of job %d: decode %s histogram: %w", j.ID, tx.Name, err)
		}
		ms := func(us float64) string { return number(us/1000, 3) }
		q := func(p float64) string { return ms(float64(h.ValueAtQuantile(p))) }
		total := h.Mean() * float64(h.TotalCount()) / 1000
		ratio := total / elapsed * 100
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
			{"sd", ms(h.StdDev())},
			{"ratio_pct", number(ratio, 3)},
		}})
	}
	if len(all) == 0 {
		r.showNoData(j, noData, "Jobid has no timing data")
		return nil
	}
	sort.SliceStable(all, func(a, b int) bool { return all[a].ratio > all[b].ratio })
	var o object
	for _, t := range all {
		o.add(t.name, t.obj)
	}
	r.show(o, false)
	return nil
}

// showNoData prints HammerDB's "no data" answer: the message split into
// pairs under the job id in JSON, "ID {message}" in text.
func (r *run) showNoData(j jobs.Job, v object, msg string) {
	if r.s.Format == FormatJSON {
		r.show(v, false)
		return
	}
	r.println("%s", tclText(object{{idString(j.ID), msg}}))
}

// vuTiming is `jobs ID timing N`: Sledge keeps latency histograms per
// transaction for all virtual users together, not per virtual user.
func (r *run) vuTiming(j jobs.Job, arg string) error {
	n, ok := vuNumber(arg)
	if !ok {
		r.println("Error: Usage: jobs jobid timing | jobs jobid timing vuid | jobs jobid timing vu=n")
		return nil
	}
	r.println("No Timing Data for VU %d for JOB %d: jobs jobid timing vuid (Sledge records timings for all virtual users together: jobs %d timing)", n, j.ID, j.ID)
	return nil
}

// tcount is `jobs ID tcount`: the transaction rate of each interval.
func (r *run) tcount(j jobs.Job) error {
	noData := object{{idString(j.ID), splitMessage("Jobid has no transaction counter data")}}
	if j.Kind != jobs.KindRun || j.Workload == "tproch" {
		r.showNoData(j, noData, "Jobid has no transaction counter data")
		return nil
	}
	ivs, err := r.Repo.Intervals(r.ctx, j.ID)
	if err != nil {
		return err
	}
	if len(ivs) == 0 {
		r.showNoData(j, noData, "Jobid has no transaction counter data")
		return nil
	}
	start := j.StartedAt
	if start.IsZero() {
		start = j.CreatedAt
	}
	var series object
	for _, iv := range ivs {
		series.add(start.Add(iv.Elapsed).In(r.Loc).Format("2006-01-02 15:04:05"), fmt.Sprintf("%.0f", iv.TPM))
	}
	product, _ := productVersion(j)
	r.show(object{{product + " tpm", series}}, false)
	return nil
}

// system is `jobs ID system`: the client machine, in HammerDB's keys.
func (r *run) system(j jobs.Job) error {
	sys, err := r.Repo.System(r.ctx, j.ID)
	if err != nil {
		return err
	}
	if len(sys) == 0 {
		r.show(object{{"jobid", idString(j.ID)}, {"message", "Jobid has no system data"}}, false)
		return nil
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
	r.show(o, false)
	return nil
}

// ------------------------------------------------------------------- dict

// dict is `jobs ID dict`: the HammerDB settings the job was started with
// when it came from `sledge cli`, else Sledge's settings in HammerDB's keys.
func (r *run) dict(j jobs.Job) error {
	cfg, err := r.Repo.Config(r.ctx, j.ID)
	if err != nil {
		return err
	}
	dicts := map[string]map[string]string{}
	for k, v := range cfg {
		if rest, ok := strings.CutPrefix(k, ConfigPrefix); ok {
			d, key, ok := strings.Cut(rest, ".")
			if !ok {
				continue
			}
			if dicts[d] == nil {
				dicts[d] = map[string]string{}
			}
			dicts[d][key] = v
		}
	}
	if len(dicts) == 0 {
		dicts = derivedDict(j, cfg)
	}
	names := make([]string, 0, len(dicts))
	for d := range dicts {
		names = append(names, d)
	}
	sort.Slice(names, func(a, b int) bool {
		return dictRank(names[a]) < dictRank(names[b]) || (dictRank(names[a]) == dictRank(names[b]) && names[a] < names[b])
	})
	var o object
	for _, d := range names {
		keys := make([]string, 0, len(dicts[d]))
		for k := range dicts[d] {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		var inner object
		for _, k := range keys {
			inner.add(k, dicts[d][k])
		}
		o.add(d, inner)
	}
	r.show(o, false)
	return nil
}

func dictRank(name string) int {
	switch name {
	case "connection":
		return 0
	case "tpcc", "tpch":
		return 1
	}
	return 2
}

// derivedDict writes Sledge's recorded settings of a job in HammerDB's
// dictionary keys, for jobs not started from `sledge cli`.
func derivedDict(j jobs.Job, cfg map[string]string) map[string]map[string]string {
	prefix := map[string]string{"postgres": "pg_", "mysql": "mysql_", "sqlite": "sqlite_", "duckdb": "duckdb_"}[j.DBKind]
	if strings.HasPrefix(j.DBVersion, "MariaDB") {
		prefix = "maria_"
	}
	conn := map[string]string{}
	bench := map[string]string{}
	tpch := j.Workload == "tproch"
	userKey, passKey, dbKey := "user", "pass", "dbase"
	if tpch {
		userKey, passKey, dbKey = "tpch_user", "tpch_pass", "tpch_dbase"
	}
	if u, err := url.Parse(j.Target); err == nil && u.Host != "" {
		conn[prefix+"host"] = u.Hostname()
		conn[prefix+"port"] = u.Port()
		bench[prefix+userKey] = u.User.Username()
		if _, ok := u.User.Password(); ok {
			bench[prefix+passKey] = "xxxxx"
		}
		bench[prefix+dbKey] = strings.TrimPrefix(u.Path, "/")
		if s := u.Query().Get("socket"); s != "" {
			conn[prefix+"socket"] = s
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
	case j.Kind == jobs.KindRun:
		set("count_ware", "warehouses")
		bench[prefix+"driver"] = "timed"
		minutes("rampup")
		minutes("duration")
		if m := cfg["mode"]; m != "" {
			if prefix == "pg_" {
				bench[prefix+"storedprocs"] = strconv.FormatBool(m == "procs")
			} else {
				bench[prefix+"no_stored_procs"] = strconv.FormatBool(m == "sql")
			}
		}
		if v := cfg["random_home"]; v != "" {
			bench[prefix+"allwarehouse"] = v
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
	base, err1 := strconv.Atoi(args[0])
	comp, err2 := strconv.Atoi(args[1])
	if err1 != nil || err2 != nil || base <= 0 || comp <= 0 {
		r.println("Error: Performance profile id should be an integer greater than 0")
		return nil
	}
	if len(args) == 3 && strings.EqualFold(args[2], "true") {
		r.println("Notice: jobs diff weighted: Sledge compares profiles unweighted")
	}
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
			if res != nil && j.Status == metrics.StatusCompleted {
				m[res.VUs] = math.Max(m[res.VUs], res.NOPM) // the best run at each VU count
			}
		}
		return m, nil
	}
	b, err := byVU(base)
	if err != nil {
		return err
	}
	c, err := byVU(comp)
	if err != nil {
		return err
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
	if matched == 0 || sumB == 0 {
		r.println("Error: profiles %d and %d have no virtual user count in common", base, comp)
		return nil
	}
	avgB, avgC := sumB/float64(matched), sumC/float64(matched)
	r.println("Profiles compared (unweighted): matched=%d, avg_base=%.0f, avg_comp=%.0f", matched, avgB, avgC)
	d := avgC/avgB - 1
	switch {
	case math.Abs(d) < 0.00005:
		r.ret = "0.00"
	case math.Abs(d) < 0.005:
		r.ret = fmt.Sprintf("%+.4f", d)
	default:
		r.ret = fmt.Sprintf("%+.2f", d)
	}
	return nil
}

// Write prints an outcome for the front ends: what was printed, then, after
// a line holding only the record separator, the returned value and the
// session (see `sledge cli jobs`).
func (o Outcome) Write(w io.Writer) error {
	_, err := fmt.Fprintf(w, "%s\x1e\n%s %d\n%s", o.Printed, o.Session.Format, o.Session.ProfileID, o.Returned)
	return err
}
