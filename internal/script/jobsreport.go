package script

// HammerDB 6's benchmark report of a job: the page (&summary) and its
// result artifact (&summaryjson, `jobs ID save`), a JSON document in
// HammerDB's "hammerdb-job-report-v1" layout. The keys, their order and the
// units are HammerDB's; the texts are Sledge's own, and the artifact says
// that Sledge wrote it.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"html"
	"net/http"
	"strconv"
	"strings"

	"github.com/sledge-bench/sledge/internal/jobs"
)

// fields is a JSON object that keeps its keys in order.
type fields []jsonField

type jsonField struct {
	key string
	val any
}

func (f *fields) add(key string, v any) { *f = append(*f, jsonField{key, v}) }

func (f fields) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, fl := range f {
		if i > 0 {
			b.WriteByte(',')
		}
		k, err := json.Marshal(fl.key)
		if err != nil {
			return nil, err
		}
		v, err := json.Marshal(fl.val)
		if err != nil {
			return nil, fmt.Errorf("artifact field %s: %w", fl.key, err)
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// num is a value as HammerDB's artifact writes it: a number when the text
// is one, else a string.
func num(s string) any {
	t := strings.TrimSpace(strings.ReplaceAll(s, ",", ""))
	if _, err := strconv.ParseFloat(t, 64); err == nil && t != "" {
		return json.Number(t)
	}
	return s
}

// artifactSchema is the layout's name, which readers check.
const artifactSchema = "hammerdb-job-report-v1"

// activeThreshold is the TPM above which HammerDB counts a transaction
// counter sample as active (before it, ramp-up start; after it, the
// shutdown tail).
const activeThreshold = 1000

// databaseDisplay is HammerDB's display name of its database names.
func databaseDisplay(db string) string {
	if db == "MSSQLServer" {
		return "SQL Server"
	}
	return db
}

// webArtifact is &summaryjson: the job's result artifact.
func (r *run) webArtifact(j jobs.Job) (WebAnswer, error) {
	a, err := r.artifact(j)
	if err != nil {
		return WebAnswer{}, err
	}
	body, err := json.Marshal(a)
	if err != nil {
		return WebAnswer{}, fmt.Errorf("artifact of job %d: %w", j.ID, err)
	}
	return WebAnswer{Status: http.StatusOK, Type: TypeJSON, Body: string(body)}, nil
}

func (r *run) artifact(j jobs.Job) (fields, error) {
	db, err := r.dbName(j)
	if err != nil {
		return nil, err
	}
	bm := benchmark(j)
	display := databaseDisplay(db)
	_, release := productVersion(j)
	sys, err := r.Repo.System(r.ctx, j.ID)
	if err != nil {
		return nil, err
	}
	var a fields
	a.add("schema", artifactSchema)
	a.add("description", "Sledge benchmark result artifact in HammerDB's job report layout: machine-readable data, report_hints and analysis_hints for reports, summary tables and charts.")
	a.add("artifact", fields{{"type", "hammerdb-result-json"}, {"schema", artifactSchema}, {"source", "Sledge"},
		{"generated_by", "Sledge jobs summaryjson"}, {"visibility", "public"}, {"redacted", true}})
	a.add("disclaimer", fields{
		{"result_type", "Sledge result artifact"},
		{"audited", false},
		{"text", "TPROC-C and TPROC-H are derived from the TPC's OLTP and decision-support specifications. This result is not audited by the TPC and is not a TPC result."},
		{"tpc_trademarks", "The TPC's benchmark names and result metrics are its trademarks; this artifact reports NOPM, TPM and TPROC-H query times, not TPC results."},
		{"hammerdb_copyright", "Sledge is not HammerDB; it writes HammerDB's artifact layout so that tools reading HammerDB results read Sledge's. NOPM, TPROC-C and TPROC-H are HammerDB benchmark terminology."},
		{"learn_more_tpc", "https://www.tpc.org/"},
		{"learn_more_hammerdb", "https://www.hammerdb.com/"},
	})
	a.add("report_hints", reportHints(bm, display))
	label, samples, err := r.tcountSamples(j)
	if err != nil {
		return nil, err
	}
	samples = timeKeyed(samples) // the artifact's points are time → value
	a.add("analysis_hints", analysisHints(bm, samples))
	version := ""
	if v := sys["sledge_version"]; v != "" {
		version = "Sledge " + v
	}
	a.add("job", fields{{"jobid", idString(j.ID)}, {"hdb_version", version}, {"database", db},
		{"database_display", display}, {"release", release}, {"benchmark", bm}, {"timestamp", r.stamp(j)}})
	if cfg, err := r.benchmarkConfig(j); err != nil {
		return nil, err
	} else if len(cfg) > 0 {
		a.add("benchmark_config", cfg)
	}
	so, err := r.systemObject(j)
	if err != nil {
		return nil, err
	}
	system := fields{{"available", false}, {"message", noSystemData}}
	if len(so) != 2 || so[1].key != "message" {
		system = fields{{"available", true}}
		for _, f := range so[1:] { // without jobid
			system.add(f.key, tclText(f.val))
		}
	}
	a.add("system", system)
	if bm == "TPROC-H" {
		if err := r.analyticArtifact(j, display, &a); err != nil {
			return nil, err
		}
	} else if err := r.oltpArtifact(j, display, label, samples, &a); err != nil {
		return nil, err
	}
	met, err := r.metricsObject(j)
	if err != nil {
		return nil, err
	}
	a.add("metrics", metricsRows(met))
	return a, nil
}

func reportHints(bm, display string) fields {
	title := "HammerDB " + bm + " Benchmark Report"
	if display != "" {
		title = display + " " + bm + " Benchmark Report"
	}
	chart := func(title, kind, path string, more ...jsonField) fields {
		return append(fields{{"title", display + " " + title}, {"chart_type", kind}, {"data_path", path}}, more...)
	}
	var primary []string
	var charts []fields
	if bm == "TPROC-C" {
		primary = []string{"NOPM", "TPM"}
		charts = append(charts,
			chart("TPROC-C Result", "bar", "result.chart_data", jsonField{"x", "metric"}, jsonField{"y", "value"}),
			chart("TPROC-C Transaction Count", "line", "transaction_count.series[].points", jsonField{"x", "timestamp"}, jsonField{"y", "value"}),
			chart("TPROC-C Response Times", "boxplot", "response_times.rows", jsonField{"category", "name"},
				jsonField{"values", []string{"p25_ms", "p50_ms", "p75_ms", "p95_ms", "p99_ms"}}))
	} else {
		primary = []string{"geomean_seconds", "total_query_time_seconds"}
		charts = append(charts,
			chart("TPROC-H Result", "bar", "result.chart_data", jsonField{"x", "metric"}, jsonField{"y", "value"}),
			chart("TPROC-H Query Times", "bar", "query_times.rows", jsonField{"x", "name"}, jsonField{"y", "total_ms"}))
	}
	charts = append(charts,
		chart("CPU %", "line", "metrics.cpu_percent", jsonField{"x", "timestamp"}, jsonField{"y_series", []string{"usr_pct", "sys_pct", "irq_pct", "idle_pct"}}),
		chart("IOPS", "line", "metrics.iops", jsonField{"x", "timestamp"}, jsonField{"y", "value"}),
		chart("MB/s", "line", "metrics.mbps", jsonField{"x", "timestamp"}, jsonField{"y", "value"}))
	return fields{
		{"title", title},
		{"intended_use", "Reports, summary tables, charts and result pages generated from this JSON."},
		{"primary_result_metrics", primary},
		{"recommended_charts", charts},
		{"notes", []string{
			"The last low transaction_count values of a TPROC-C run may be its shutdown rather than steady state.",
			"database_display is for headings; database is HammerDB's name of the database.",
		}},
	}
}

// analysisHints finds the active window of a TPROC-C run in its
// transaction counter samples as HammerDB does: from the first to the last
// sample above activeThreshold, a later sample at or below it marking a
// shutdown tail.
func analysisHints(bm string, samples object) fields {
	if bm != "TPROC-C" {
		return fields{
			{"active_window", fields{{"available", false}, {"note", "A TPROC-H run has no transaction counter window: use result and query_times."}}},
			{"shutdown_tail", fields{{"present", true}, {"note", "Metrics may include idle samples after the queries ended."}}},
		}
	}
	start, end, tail := "", "", false
	for _, s := range samples {
		v, err := strconv.ParseFloat(tclText(s.val), 64)
		if err != nil {
			continue
		}
		switch {
		case v > activeThreshold:
			if start == "" {
				start = s.key
			}
			end = s.key
		case start != "":
			tail = true
		}
	}
	window := fields{{"available", false}, {"note", "No active TPROC-C transaction counter window was found."}}
	if start != "" {
		window = fields{{"available", true}, {"start", start}, {"end", end},
			{"method", "First to last transaction_count value above the shutdown-tail threshold."},
			{"transaction_count_min_active_value", activeThreshold},
			{"recommended_filter", "Filter transaction_count and metrics to this window for charts and summaries."}}
	}
	return fields{
		{"active_window", window},
		{"shutdown_tail", fields{{"present", tail}, {"threshold", activeThreshold},
			{"note", "Low transaction_count values after active_window.end are usually the end of the test and are normally left out of charts and summaries."}}},
	}
}

// benchmarkConfig is the run's public configuration in HammerDB's keys.
func (r *run) benchmarkConfig(j jobs.Job) (fields, error) {
	var cfg fields
	if j.Kind != jobs.KindRun {
		return cfg, nil
	}
	minutes := func(d float64) any { return num(strconv.FormatFloat(d, 'f', -1, 64)) }
	if j.Workload == "tproch" {
		res, err := r.Repo.AnalyticResult(r.ctx, j.ID)
		if err != nil || res == nil {
			return cfg, err
		}
		cfg.add("scale_factor", num(strconv.FormatFloat(res.SF, 'f', -1, 64)))
		return cfg, nil
	}
	res, err := r.Repo.RunResult(r.ctx, j.ID)
	if err != nil || res == nil {
		return cfg, err
	}
	cfg.add("warehouses", res.Warehouses)
	cfg.add("virtual_users", res.VUs)
	if res.Iterations > 0 { // HammerDB's test driver: a count per VU, no ramp-up or duration
		cfg.add("driver", "test")
		cfg.add("total_iterations", res.Iterations)
		cfg.add("elapsed_seconds", num(strconv.FormatFloat(res.Measured.Seconds(), 'f', 3, 64)))
		return cfg, nil
	}
	cfg.add("driver", "timed")
	cfg.add("rampup_minutes", minutes(res.Rampup.Minutes()))
	cfg.add("duration_minutes", minutes(res.Duration.Minutes()))
	return cfg, nil
}

func (r *run) oltpArtifact(j jobs.Job, display, label string, samples object, a *fields) error {
	var result fields
	res, err := r.Repo.RunResult(r.ctx, j.ID)
	if err != nil {
		return err
	}
	if res != nil && j.Kind == jobs.KindRun {
		nopm, tpm := num(fmt.Sprintf("%.0f", hammerNOPM(res))), num(fmt.Sprintf("%.0f", hammerTPM(res)))
		result = fields{{"type", "tproc_c_result"}, {"database_display", display}, {"active_virtual_users", res.VUs},
			{"nopm", nopm}, {"tpm", tpm},
			{"chart_data", []fields{{{"metric", "NOPM"}, {"value", nopm}}, {{"metric", "TPM"}, {"value", tpm}}}}}
	}
	a.add("result", result)
	tc := fields{{"available", false}, {"series", []fields{}}}
	if samples != nil {
		db, metric, _ := strings.Cut(label, " ")
		points := make([]fields, 0, len(samples))
		for _, s := range samples {
			points = append(points, fields{{"timestamp", s.key}, {"value", num(tclText(s.val))}})
		}
		tc = fields{{"available", true}, {"series", []fields{{{"name", label}, {"database", db},
			{"database_display", databaseDisplay(db)}, {"metric", metric}, {"points", points}}}}}
	}
	a.add("transaction_count", tc)
	timing, err := r.timingObject(j)
	if err != nil {
		return err
	}
	rows := []fields{}
	add := func(f field) {
		row := fields{{"name", f.key}}
		for _, v := range f.val.(object) {
			text := tclText(v.val)
			if v.key == "sd" { // µs in jobs timing; the artifact's rows are all milliseconds
				if us, err := strconv.ParseFloat(text, 64); err == nil {
					text = number(us/1000, 3)
				}
			}
			row.add(v.key, num(text))
		}
		rows = append(rows, row)
	}
	// HammerDB's order of the transactions, then any other.
	known := []string{"NEWORD", "PAYMENT", "DELIVERY", "SLEV", "OSTAT"}
	for _, name := range known {
		for _, f := range timing {
			if f.key == name {
				add(f)
			}
		}
	}
	for _, f := range timing {
		if !contains(known, f.key) {
			add(f)
		}
	}
	a.add("response_times", fields{{"type", "boxplot"}, {"unit", "milliseconds"}, {"rows", rows}})
	return nil
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

func (r *run) analyticArtifact(j jobs.Job, display string, a *fields) error {
	var result fields
	rows := []fields{}
	res, err := r.Repo.AnalyticResult(r.ctx, j.ID)
	if err != nil {
		return err
	}
	if set, ok := firstSet(res); ok && j.Kind == jobs.KindRun {
		geo, qt := num(fmt.Sprintf("%.5f", set.geomean)), num(fmt.Sprintf("%.0f", set.seconds))
		result = fields{{"type", "tproc_h_result"}, {"database_display", display}, {"queries", set.returning},
			{"query_sets", set.set}, {"geomean_seconds", geo}, {"total_query_time_seconds", qt},
			{"chart_data", []fields{{{"metric", "Geomean"}, {"value", geo}}, {{"metric", "Query Time"}, {"value", qt}}}}}
		// VU 1's queries (the first stream), as HammerDB reads them from its
		// output.
		for _, st := range analyticStreams(res)[0].sets {
			for _, q := range st.queries {
				if q.Error != "" {
					continue
				}
				rows = append(rows, fields{{"name", strconv.Itoa(q.Query)},
					{"total_ms", num(number(q.Seconds*1000, 3))}, {"seconds", num(number(q.Seconds, 3))}})
			}
		}
	}
	a.add("result", result)
	a.add("query_times", fields{{"type", "bar"}, {"unit", "milliseconds"}, {"rows", rows}})
	return nil
}

// metricsRows is the artifact's metrics: CPU, IOPS and MB/s series.
func metricsRows(met object) fields {
	if met == nil {
		return fields{{"available", false}, {"cpu_percent", []fields{}}, {"iops", []fields{}}, {"mbps", []fields{}}}
	}
	var cpu, iops, mbps []fields
	for _, s := range met {
		m := map[string]any{}
		for _, f := range s.val.(object) {
			m[f.key] = num(tclText(f.val))
		}
		cpu = append(cpu, fields{{"timestamp", s.key}, {"usr_pct", m["usr%"]}, {"sys_pct", m["sys%"]},
			{"irq_pct", m["irq%"]}, {"idle_pct", m["idle%"]}})
		iops = append(iops, fields{{"timestamp", s.key}, {"value", m["iops"]}})
		mbps = append(mbps, fields{{"timestamp", s.key}, {"value", m["mbps"]}})
	}
	return fields{{"available", true}, {"cpu_percent", cpu}, {"iops", iops}, {"mbps", mbps}}
}

// webReport is &summary: the benchmark report page of a run with a result.
func (r *run) webReport(j jobs.Job) (WebAnswer, error) {
	res, err := r.resultLines(j)
	if err != nil {
		return WebAnswer{}, err
	}
	if res == nil {
		return webError(http.StatusNotFound, fmt.Sprintf("Jobid %d: %s", j.ID, noResult)), nil
	}
	a, err := r.artifact(j)
	if err != nil {
		return WebAnswer{}, err
	}
	get := func(f fields, key string) any {
		for _, fl := range f {
			if fl.key == key {
				return fl.val
			}
		}
		return nil
	}
	job, _ := get(a, "job").(fields)
	result, _ := get(a, "result").(fields)
	var b strings.Builder
	table := func(head []string, rows [][]any) {
		b.WriteString("<table border=\"1\" cellpadding=\"4\" style=\"border-collapse:collapse;margin:1em 0\">\n<tr>")
		for _, h := range head {
			b.WriteString("<th>" + html.EscapeString(h) + "</th>")
		}
		b.WriteString("</tr>\n")
		for _, row := range rows {
			b.WriteString("<tr>")
			for _, c := range row {
				b.WriteString("<td>" + html.EscapeString(fmt.Sprint(c)) + "</td>")
			}
			b.WriteString("</tr>\n")
		}
		b.WriteString("</table>\n")
	}
	headline := []any{get(job, "hdb_version"), get(job, "database_display"), get(job, "release"), get(job, "benchmark")}
	if j.Workload == "tproch" {
		table([]string{"Version", "Database", "Release", "Benchmark", "Geomean", "Query Time"},
			[][]any{append(headline, get(result, "geomean_seconds"), get(result, "total_query_time_seconds"))})
	} else {
		table([]string{"Version", "Database", "Release", "Benchmark", "NOPM", "TPM"},
			[][]any{append(headline, get(result, "nopm"), get(result, "tpm"))})
	}
	if cfg, ok := get(a, "benchmark_config").(fields); ok {
		var rows [][]any
		for _, f := range cfg {
			rows = append(rows, []any{f.key, f.val})
		}
		b.WriteString("<h2 style=\"font-size:1em\">Benchmark configuration</h2>\n")
		table([]string{"Setting", "Value"}, rows)
	}
	if rt, ok := get(a, "response_times").(fields); ok {
		if rows, _ := get(rt, "rows").([]fields); len(rows) > 0 {
			b.WriteString("<h2 style=\"font-size:1em\">Response times (ms)</h2>\n")
			var head []string
			var cells [][]any
			for _, f := range rows[0] {
				head = append(head, f.key)
			}
			for _, row := range rows {
				var c []any
				for _, f := range row {
					c = append(c, f.val)
				}
				cells = append(cells, c)
			}
			table(head, cells)
		}
	}
	if sys, ok := get(a, "system").(fields); ok && get(sys, "available") == true {
		var rows [][]any
		for _, f := range sys[1:] {
			rows = append(rows, []any{f.key, f.val})
		}
		b.WriteString("<h2 style=\"font-size:1em\">System</h2>\n")
		table([]string{"Field", "Value"}, rows)
	}
	for _, kind := range []string{"result", "timing", "tcount", "metrics"} {
		c, err := r.chartOfKind(j, kind)
		if err != nil {
			return WebAnswer{}, err
		}
		if c.svg != "" {
			b.WriteString("<h2 style=\"font-size:1em\">" + html.EscapeString(c.title) + "</h2>\n" + c.svg + "\n")
		}
	}
	b.WriteString("<p>" + link("jobid="+idString(j.ID)+"&summaryjson", "Save the result artifact (JSON)") + "</p>\n")
	return webPage(fmt.Sprintf("Job %d %s report %s", j.ID, benchmark(j), r.stamp(j)), b.String()), nil
}

// timeKeyed turns tcount's samples (TPM → time) into time → TPM pairs, in
// order, every sample kept.
func timeKeyed(samples object) object {
	out := make(object, len(samples))
	for i, f := range samples {
		out[i] = field{key: tclText(f.val), val: f.key}
	}
	return out
}
