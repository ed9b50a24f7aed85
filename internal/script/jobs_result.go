package script

// A job's test result: `jobs ID result` and `jobs result`, the TEST RESULT
// line (TestResult), and a TPROC-H run's query streams and sets as
// HammerDB's virtual users report them.

import (
	"fmt"
	"math"
	"sort"
	"strconv"

	"github.com/sledge-bench/sledge/internal/jobs"
	"github.com/sledge-bench/sledge/internal/metrics"
)

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
// Its NOPM and TPM are HammerDB's (hammerNOPM, hammerTPM).
func TestResult(db string, res *metrics.RunResult) string {
	return fmt.Sprintf("TEST RESULT : System achieved %.0f NOPM from %.0f %s TPM", hammerNOPM(res), hammerTPM(res), db)
}

// hammerNOPM is the NOPM HammerDB reports: New-Orders counted by the
// database (the districts' next order ids) per minute of the window, when
// the run measured them (Sledge's cross-check); else the New-Orders the
// client saw commit per minute.
func hammerNOPM(res *metrics.RunResult) float64 {
	if res.HasDBCheck {
		return res.NOPMDBCheck
	}
	return res.NOPM
}

// hammerTPM is the TPM HammerDB reports wherever it gives one (the TEST
// RESULT line, jobs result, charts and reports): the server's own
// transaction counter, commits and rollbacks of every session per minute,
// when the run measured it; else the transactions the client saw commit
// per minute, the only figure there is.
func hammerTPM(res *metrics.RunResult) float64 {
	if res.HasServerTPM {
		return res.ServerTPM
	}
	return res.TPM
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

// streamVU is the virtual user that shows a TPROC-H query stream: the
// power test (stream 0), which HammerDB runs as its only VU, is VU 1, and
// throughput stream k, which Sledge runs after it, VU k+1 (see vusers).
func streamVU(stream int) int { return max(stream, 0) + 1 }

// lines are what HammerDB's virtual user prints for the stream.
func (s streamRun) lines() []string {
	var out []string
	for _, set := range s.sets {
		for _, q := range set.queries {
			out = append(out, queryLines(q)...)
		}
		out = append(out, set.endLines()...)
	}
	return out
}

// queryLines are what HammerDB's virtual user prints for one query: a line
// before it runs, one when it has ended.
func queryLines(q metrics.AnalyticQuery) []string {
	return []string{executingLine(q), endLine(q)}
}

// executingLine is HammerDB's line before a query runs.
func executingLine(q metrics.AnalyticQuery) string {
	return fmt.Sprintf("Executing Query %d (%d of 22)", q.Query, q.Position)
}

// endLine is HammerDB's line when a query has ended, or failed.
func endLine(q metrics.AnalyticQuery) string {
	if q.Error != "" {
		return fmt.Sprintf("Query Failed : query %d : %s", q.Query, q.Error)
	}
	return fmt.Sprintf("query %d completed in %s seconds", q.Query, number(q.Seconds, 3))
}

// endLines are what HammerDB's virtual user prints when a query set ends:
// its time, then the geometric mean of the queries that returned rows
// (none: no mean to print).
func (q querySet) endLines() []string {
	if q.returning == 0 {
		return []string{q.completed()}
	}
	return []string{q.completed(), q.geometric()}
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
	o.add("nopm", fmt.Sprintf("%.0f", hammerNOPM(res)))
	o.add("tpm", fmt.Sprintf("%.0f", hammerTPM(res)))
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
