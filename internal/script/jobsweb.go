package script

// HammerDB's web service (hammerdbws, 4.8 on) answers GET /jobs?QUERY with
// pages and data of its jobs repository. Web answers its read forms from
// the same code as the jobs command, in HammerDB 6's shapes. Sledge's own
// rules apply where HammerDB's differ: a GET never changes anything (the
// delete, DELETE and cireset forms are refused), and an error carries a 4xx
// status with HammerDB's error body ({"error": {"message": …}}, which
// HammerDB sends with 200).

import (
	"context"
	"fmt"
	"html"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/sledge-bench/sledge/internal/jobs"
)

// WebAnswer is one answer of the jobs web service.
type WebAnswer struct {
	Status int
	Type   string // Content-Type
	Body   string
}

// Content types of the answers, as HammerDB's service sends them.
const (
	TypeJSON = "application/json"
	TypeHTML = "text/html; charset=utf-8"
)

// webUsage is HammerDB's answer to a form it does not know.
const webUsage = "Usage: /jobs | jobs?jobid=JOBID | jobs?jobid=JOBID&index | jobs?jobid=JOBID&summary | jobs?jobid=JOBID&bm|db|dict|status|system|timestamp | add &raw=1 for JSON"

// Web answers GET /jobs?QUERY (q, parsed) as HammerDB's web service does.
// The error return is for a repository that cannot be read.
func (c *Command) Web(ctx context.Context, q url.Values) (WebAnswer, error) {
	if c.Loc == nil {
		c.Loc = time.Local
	}
	r := &run{Command: c, ctx: ctx, s: Session{Format: FormatJSON}}
	return r.web(q)
}

func webJSON(status int, v value) WebAnswer {
	return WebAnswer{Status: status, Type: TypeJSON, Body: jsonText(v)}
}

// webError is HammerDB's error body with a status.
func webError(status int, msg string) WebAnswer {
	return webJSON(status, object{{"error", object{{"message", msg}}}})
}

func webPage(title, body string) WebAnswer {
	return WebAnswer{Status: http.StatusOK, Type: TypeHTML, Body: page(title, body)}
}

// refusal answers the forms that change state in HammerDB.
func refusal(what string) WebAnswer {
	return webError(http.StatusMethodNotAllowed, what+": Sledge never changes anything on a GET; "+
		"delete a job with DELETE /api/jobs/ID (the API) or jobs ID delete (sledge cli)")
}

func (r *run) web(q url.Values) (WebAnswer, error) {
	has := func(k string) bool { _, ok := q[k]; return ok }
	switch {
	case has("tailworkload"):
		return webError(http.StatusBadRequest, "tailworkload: Sledge does not tail a log file; follow a job with GET /api/jobs/ID/events or read GET /api/jobs/ID/output"), nil
	case has("cireset"):
		return refusal("cireset"), nil
	case len(q) == 0:
		return r.webHome()
	case has("cmd"):
		if q.Get("cmd") != "profilediff" {
			return webError(http.StatusBadRequest, webUsage), nil
		}
		return r.webProfileDiff(q.Get("base_pid"), q.Get("new_pid"), has("base_pid") && has("new_pid"))
	case !has("jobid") && has("profileid"):
		return r.webProfile(q.Get("profileid"), has("profiledata"))
	case !has("jobid"):
		return webError(http.StatusBadRequest, "Usage: /jobs or jobs?jobid=JOBID or jobs?profileid=ID"), nil
	case has("getchart"):
		return r.webChart(q.Get("jobid"), q.Get("chart"))
	}
	arg := q.Get("jobid")
	j, ok, err := r.lookup(arg)
	if err != nil {
		return WebAnswer{}, err
	}
	if !ok {
		return webError(http.StatusNotFound, fmt.Sprintf("Jobid %s does not exist", arg)), nil
	}
	switch {
	case has("index"):
		return r.webIndex(j)
	case has("summaryjson"):
		return r.webArtifact(j)
	case has("summary"):
		return r.webReport(j)
	case isTrue(q.Get("raw")):
		return r.webRaw(j, q)
	case len(q) == 1:
		return r.webOutput(j, -1)
	case has("delete") || has("DELETE"):
		return refusal("delete"), nil
	case has("timing") && (has("vu") || has("vuid")):
		// HammerDB 4.8 to 5.x answer a VU's timing here (6 shows the VU's
		// output, its vu form being matched first): jobs ID timing N's rows,
		// from the per-VU timing the run kept.
		n := q.Get("vu")
		if !has("vu") {
			n = q.Get("vuid")
		}
		vu, err := strconv.Atoi(n)
		if err != nil || vu < 0 {
			return webError(http.StatusBadRequest, "Jobs Three Parameter Usage: jobs?jobid=JOBID&timing&vu=VUID"), nil
		}
		var o object
		if j.Kind == jobs.KindRun && j.Workload != "tproch" {
			if o, _, err = r.vuTimingObject(j, vu); err != nil {
				return WebAnswer{}, err
			}
		}
		if o == nil {
			return webError(http.StatusNotFound, fmt.Sprintf("No Timing Data for VU %d for JOB %d: jobs?jobid=JOBID&timing&vu=VUID", vu, j.ID)), nil
		}
		return webJSON(http.StatusOK, o), nil
	case has("vu"):
		n, err := strconv.Atoi(q.Get("vu"))
		if err != nil || n < 0 {
			return webError(http.StatusBadRequest, "Usage: jobs?jobid=JOBID&vu=INTEGER"), nil
		}
		return r.webOutput(j, n)
	}
	for _, s := range []string{"bm", "db", "dict", "status", "system", "timestamp"} {
		if has(s) {
			return r.webSection(j, s)
		}
	}
	for _, kind := range []string{"result", "timing", "tcount", "metrics"} {
		if has(kind) {
			return r.webChartPage(j, kind)
		}
	}
	for _, kind := range []string{"result", "timing", "tcount", "metrics"} {
		if has(kind + "data") {
			return r.webData(j, kind)
		}
	}
	return webError(http.StatusBadRequest, webUsage), nil
}

func isTrue(v string) bool {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "1", "true", "yes", "on":
		return true
	}
	return false
}

// link is an anchor to another form of the service (a query relative to
// the service's own path, so that it works behind a proxy too).
func link(query, label string) string {
	return `<a href="?` + html.EscapeString(query) + `">` + html.EscapeString(label) + `</a>`
}

func pre(s string) string {
	return `<pre style="white-space:pre-wrap;overflow-wrap:anywhere">` + html.EscapeString(s) + "</pre>\n"
}

// webHome is the service's home: the job list of `jobs`, each id a link to
// the job's index.
func (r *run) webHome() (WebAnswer, error) {
	if err := r.summary(); err != nil {
		return WebAnswer{}, err
	}
	var b strings.Builder
	b.WriteString(`<pre style="white-space:pre">`)
	for _, line := range strings.Split(r.ret, "\n") {
		id, rest, _ := strings.Cut(line, " ")
		if _, err := strconv.ParseInt(id, 10, 64); err == nil {
			b.WriteString(link("jobid="+id+"&index", id) + html.EscapeString(" "+rest) + "\n")
			continue
		}
		b.WriteString(html.EscapeString(line) + "\n")
	}
	b.WriteString("</pre>\n")
	return webPage("Sledge jobs", b.String()), nil
}

// webIndex is a job's page of links, as HammerDB's &index: the forms that
// have data.
func (r *run) webIndex(j jobs.Job) (WebAnswer, error) {
	id := idString(j.ID)
	res, err := r.resultLines(j)
	if err != nil {
		return WebAnswer{}, err
	}
	timing, err := r.timingObject(j)
	if err != nil {
		return WebAnswer{}, err
	}
	_, samples, err := r.tcountSamples(j)
	if err != nil {
		return WebAnswer{}, err
	}
	met, err := r.metricsObject(j)
	if err != nil {
		return WebAnswer{}, err
	}
	var items []string
	add := func(query, label string, ok bool) {
		if ok {
			items = append(items, "<li>"+link("jobid="+id+query, label)+"</li>")
		}
	}
	add("&summary", "Benchmark report", res != nil)
	add("", "Output", true)
	add("&bm", "Benchmark", true)
	add("&db", "Database", true)
	add("&dict", "Dict configuration", true)
	add("&result", "Result", res != nil)
	add("&status", "Status", true)
	add("&tcount", "Transaction count", samples != nil)
	add("&system", "System", true)
	add("&metrics", "Metrics", met != nil)
	add("&timestamp", "Timestamp", true)
	add("&timing", "Response times", timing != nil || res != nil && j.Workload == "tproch")
	return webPage("Job "+id, "<ol>\n"+strings.Join(items, "\n")+"\n</ol>\n"), nil
}

// webOutput is a job's output grouped by virtual user (vu < 0: all).
func (r *run) webOutput(j jobs.Job, vu int) (WebAnswer, error) {
	all, err := r.jobRows(j)
	if err != nil {
		return WebAnswer{}, err
	}
	rows := vuLines(all, vu)
	if vu >= 0 && len(rows) == 0 {
		return webError(http.StatusNotFound, fmt.Sprintf("Jobid %d for virtual user %d does not exist", j.ID, vu)), nil
	}
	id := idString(j.ID)
	var b strings.Builder
	b.WriteString("<p>" + link("jobid="+id+"&index", "Back") + " | " + link("jobid="+id+"&raw=1", "Raw") + "</p>\n")
	byVU := map[int][]string{}
	var order []int
	for _, rw := range rows {
		if _, ok := byVU[rw.vu]; !ok {
			order = append(order, rw.vu)
		}
		byVU[rw.vu] = append(byVU[rw.vu], rw.line)
	}
	for _, n := range order {
		fmt.Fprintf(&b, "<h2 style=\"font-size:1em\">VU %d</h2>\n", n)
		b.WriteString(pre(strings.Join(byVU[n], "\n")))
	}
	return webPage("Job "+id+" output", b.String()), nil
}

// sectionText is a section's value as HammerDB's raw and readable forms
// show it: one string.
func (r *run) sectionText(j jobs.Job, section string) (string, error) {
	switch section {
	case "bm":
		return benchmark(j), nil
	case "db":
		return r.dbName(j)
	case "dict":
		// The dictionary as Tcl text, as HammerDB stores it.
		sub := &run{Command: r.Command, ctx: r.ctx, s: Session{Format: FormatText}}
		if err := sub.dict(j); err != nil {
			return "", err
		}
		return strings.TrimSuffix(sub.printed.String(), "\n"), nil
	case "status":
		all, err := r.jobRows(j)
		if err != nil {
			return "", err
		}
		var lines []string
		for _, rw := range vuLines(all, 0) {
			lines = append(lines, rw.line)
		}
		return strings.Join(lines, " "), nil
	case "system":
		o, err := r.systemObject(j)
		if err != nil {
			return "", err
		}
		if len(o) == 2 && o[1].key == "message" {
			return "No system data available", nil
		}
		lines := make([]string, 0, len(o))
		for _, f := range o {
			lines = append(lines, f.key+": "+tclText(f.val))
		}
		return strings.Join(lines, "\n"), nil
	case "timestamp":
		return r.stamp(j), nil
	}
	return "", nil
}

// webRaw is &raw=1: the job's output rows as a JSON list, or one section
// as {"jobid", "section", "value"} on one line.
func (r *run) webRaw(j jobs.Job, q url.Values) (WebAnswer, error) {
	for _, s := range []string{"bm", "db", "dict", "status", "system", "timestamp"} {
		if _, ok := q[s]; !ok {
			continue
		}
		v, err := r.sectionText(j, s)
		if err != nil {
			return WebAnswer{}, err
		}
		body := `{"jobid":` + rawString(idString(j.ID)) + `,"section":` + rawString(s) + `,"value":` + rawString(v) + `}`
		return WebAnswer{Status: http.StatusOK, Type: TypeJSON, Body: body}, nil
	}
	all, err := r.jobRows(j)
	if err != nil {
		return WebAnswer{}, err
	}
	return webJSON(http.StatusOK, rowList(all, true)), nil
}

// rawString is a JSON string as HammerDB's raw form writes it: "/" is not
// escaped there.
func rawString(s string) string {
	return strings.ReplaceAll(jsonString(s), `\/`, `/`)
}

// webSection is a readable section page (&bm, &db, &dict, &status,
// &system, &timestamp).
func (r *run) webSection(j jobs.Job, section string) (WebAnswer, error) {
	v, err := r.sectionText(j, section)
	if err != nil {
		return WebAnswer{}, err
	}
	if section == "status" {
		var lines []string
		all, err := r.jobRows(j)
		if err != nil {
			return WebAnswer{}, err
		}
		for _, rw := range vuLines(all, 0) {
			lines = append(lines, rw.line)
		}
		v = strings.Join(lines, "\n")
	}
	id := idString(j.ID)
	body := "<p>" + link("jobid="+id+"&index", "Back") + " | " + link("jobid="+id+"&"+section+"&raw=1", "Raw") + "</p>\n" + pre(v)
	return webPage("Job "+id+" "+section, body), nil
}

// webChartPage is &result, &timing, &tcount, &metrics: the chart and a link
// to its data.
func (r *run) webChartPage(j jobs.Job, kind string) (WebAnswer, error) {
	c, err := r.chartOfKind(j, kind)
	if err != nil {
		return WebAnswer{}, err
	}
	id := idString(j.ID)
	body := c.svg
	title := c.title
	if body == "" {
		title = "Job " + id + " " + kind
		body = "<p>" + html.EscapeString(fmt.Sprintf("Chart for jobid %s not available, %s", id, chartMissing[kind])) + "</p>"
	}
	body += "\n<p>" + link("jobid="+id+"&"+kind+"data", map[string]string{"result": "Result Data", "timing": "Timing Data",
		"tcount": "Transaction Count Data", "metrics": "Metrics Data"}[kind]) + "</p>\n"
	return webPage(title, body), nil
}

// webChart is &getchart&chart=KIND: the chart page of `jobs ID getchart
// KIND` (for profile and diff:PID, jobid is a profile id).
func (r *run) webChart(arg, kind string) (WebAnswer, error) {
	args := []string{arg, "getchart", kind}
	k := strings.ToLower(kind)
	if _, ok := chartMissing[k]; !ok && k != "profile" && !strings.HasPrefix(k, "diff:") {
		return webError(http.StatusBadRequest, "Usage: jobs?jobid=JOBID&getchart&chart=result|timing|tcount|metrics|profile|diff:PID"), nil
	}
	if err := r.dispatch(args); err != nil {
		return WebAnswer{}, err
	}
	if r.ret == "" {
		return webError(http.StatusNotFound, strings.TrimSuffix(r.printed.String(), "\n")), nil
	}
	return WebAnswer{Status: http.StatusOK, Type: TypeHTML, Body: r.ret}, nil
}

// webData is &resultdata, &timingdata, &tcountdata, &metricsdata: the data
// as HammerDB's service writes it (a dictionary of dictionaries, see
// dictOfDicts).
func (r *run) webData(j jobs.Job, kind string) (WebAnswer, error) {
	switch kind {
	case "result":
		v, err := r.resultValue(j)
		if err != nil {
			return WebAnswer{}, err
		}
		return webJSON(http.StatusOK, dictOfDicts(v)), nil
	case "timing":
		if j.Workload == "tproch" {
			// TPROC-H: the query lines of VU 1.
			res, err := r.resultLines(j)
			if err != nil {
				return WebAnswer{}, err
			}
			if res != nil {
				all, err := r.jobRows(j)
				if err != nil {
					return WebAnswer{}, err
				}
				return webJSON(http.StatusOK, rowList(vuLines(all, 1), false)), nil
			}
		}
		o, err := r.timingObject(j)
		if err != nil || o == nil {
			return webJSON(http.StatusOK, dictOfDicts(noData(j, noTiming))), err
		}
		return webJSON(http.StatusOK, o), nil
	case "tcount":
		label, samples, err := r.tcountSamples(j)
		if err != nil || samples == nil {
			return webJSON(http.StatusOK, dictOfDicts(noData(j, noTcount))), err
		}
		return webJSON(http.StatusOK, object{{label, tclDict(samples)}}), nil
	}
	o, err := r.metricsObject(j)
	if err != nil || o == nil {
		return webJSON(http.StatusOK, dictOfDicts(noData(j, noMetrics))), err
	}
	return webJSON(http.StatusOK, o), nil
}

// webProfile is ?profileid=N: the profile's chart, or with &profiledata its
// jobs' results as JSON (jobs profile N).
func (r *run) webProfile(arg string, data bool) (WebAnswer, error) {
	pid, err := strconv.Atoi(arg)
	if err != nil || pid <= 0 {
		return webError(http.StatusBadRequest, "Performance profile id should be an integer greater than 0"), nil
	}
	js, err := r.profileJobs(pid)
	if err != nil {
		return WebAnswer{}, err
	}
	if len(js) == 0 {
		return webError(http.StatusNotFound, fmt.Sprintf("No jobs found with performance profile id of %d", pid)), nil
	}
	if data {
		o, err := r.resultsObject(js)
		if err != nil {
			return WebAnswer{}, err
		}
		return webJSON(http.StatusOK, o), nil
	}
	a, err := r.webChart(arg, "profile")
	if err != nil || a.Status != http.StatusOK {
		return a, err
	}
	a.Body = strings.Replace(a.Body, "</body>", "<p>"+link("profileid="+arg+"&profiledata", "Profile Data")+"</p>\n</body>", 1)
	return a, nil
}

// webProfileDiff is ?cmd=profilediff&base_pid=A&new_pid=B: the chart of
// `jobs A getchart diff:B`.
func (r *run) webProfileDiff(base, comp string, both bool) (WebAnswer, error) {
	if !both {
		return webError(http.StatusBadRequest, "Please select one Base profile and one New profile to compare."), nil
	}
	b, err1 := strconv.Atoi(base)
	c, err2 := strconv.Atoi(comp)
	if err1 != nil || err2 != nil {
		return webError(http.StatusBadRequest, "Invalid profile selection."), nil
	}
	if b == c {
		return webError(http.StatusBadRequest, "Base and New profiles must be different."), nil
	}
	return r.webChart(base, "diff:"+comp)
}
