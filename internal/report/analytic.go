package report

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/sledge-bench/sledge/internal/metrics"
	"github.com/sledge-bench/sledge/internal/workload/tproch"
)

// Analytic writes a TPROC-H run's result: the power test's query times, each
// stream's total and the derived metrics. Query and refresh times are the
// specification's intervals (tproch.RoundInterval: to 0.01 s, at least
// 0.01 s), the ones the metrics use; stream totals sum the measured times.
// It starts with an empty line, to stand apart from the run's progress lines.
func Analytic(w io.Writer, id int64, target string, r *metrics.AnalyticResult) error {
	var b strings.Builder
	fmt.Fprintf(&b, "\nTPROC-H result (job %d): %s — not comparable with audited TPC results\n", id, r.Status)
	fmt.Fprintf(&b, "  database      %s\n", target)
	validation := ""
	if r.Validation {
		validation = ", validation parameters"
	}
	fmt.Fprintf(&b, "  scale factor  %g%s, seed %d%s\n", r.SF, tproch.ScaleLabel(r.SF), r.Seed, validation)
	tw := newTable(&b, 0)
	fmt.Fprintln(tw, "  query\tseconds\trows\t")
	for _, q := range r.Queries {
		if q.Stream != 0 {
			continue
		}
		status := strconv.FormatInt(q.Rows, 10)
		if q.Error != "" {
			status = "FAILED: " + q.Error
		} else if q.Rows == 0 {
			status = "0 (empty)"
		}
		if q.Check != "" {
			status += "  answer " + q.Check
		}
		fmt.Fprintf(tw, "  Q%d\t%.2f\t%s\t\n", q.Query, tproch.RoundInterval(q.Seconds), status)
	}
	for _, rf := range r.Refreshes {
		if rf.Stream == 0 {
			status := strconv.FormatInt(rf.Rows, 10)
			switch {
			case rf.Error != "":
				status = "FAILED: " + rf.Error
			case rf.Rows == 0:
				status = "0 (changed nothing)"
			}
			fmt.Fprintf(tw, "  %s\t%.2f\t%s\t\n", rf.Function, tproch.RoundInterval(rf.Seconds), status)
		}
	}
	tw.Flush() // cannot fail: it writes to a strings.Builder
	totals := StreamTotals(r)
	for s := 0; s <= r.Streams; s++ {
		if t, ok := totals[s]; ok {
			fmt.Fprintf(&b, "  stream %d: %d queries, %.2f s in all\n", s, t.Queries, t.Seconds)
		}
	}
	if r.Validated != "" {
		fmt.Fprintf(&b, "  answer validation (SF 1 answers): %s\n", r.Validated)
	}
	fmt.Fprintf(&b, "  geometric mean of the 22 power-test queries: %s\n", nanOr(r.GeomeanS, "%.3f s"))
	fmt.Fprintf(&b, "  TPROC-H power       %s\n", nanOr(r.Power, "%.1f "+PerHourSF))
	if r.Streams > 0 {
		fmt.Fprintf(&b, "  TPROC-H throughput  %s  (%d streams, Ts %s)\n", nanOr(r.Throughput, "%.1f "+PerHourSF), r.Streams, nanOr(r.TsS, "%.2f s"))
		fmt.Fprintf(&b, "  TPROC-H composite   %s\n", nanOr(r.Composite, "%.1f "+PerHourSF))
	}
	for _, wn := range r.Warnings {
		fmt.Fprintf(&b, "  warning: %s\n", wn)
	}
	return writeLines(w, b.String())
}

// PerHourSF is the unit of the TPROC-H power, throughput and composite
// figures: queries per hour, multiplied by the scale factor.
const PerHourSF = "queries per hour × SF"

// writeLines writes text as whole lines: trailing empty lines dropped, one
// final newline. The live reports are printed (and stored) line by line, so
// this is what the console showed when they were.
func writeLines(w io.Writer, text string) error {
	_, err := io.WriteString(w, strings.TrimRight(text, "\n")+"\n")
	return err
}

// nanOr formats v, or says "n/a" for a metric that could not be computed.
func nanOr(v float64, format string) string {
	if math.IsNaN(v) {
		return "n/a"
	}
	return fmt.Sprintf(format, v)
}

// StreamTotal sums one stream's query times.
type StreamTotal struct {
	Stream  int     `json:"stream"`
	Queries int     `json:"queries"`
	Failed  int     `json:"failed"`
	Seconds float64 `json:"seconds"`
}

// StreamTotals sums the query times of each stream (0: the power test).
func StreamTotals(r *metrics.AnalyticResult) map[int]StreamTotal {
	out := map[int]StreamTotal{}
	for _, q := range r.Queries {
		t := out[q.Stream]
		t.Stream = q.Stream
		t.Queries++
		t.Seconds += q.Seconds
		if q.Error != "" {
			t.Failed++
		}
		out[q.Stream] = t
	}
	return out
}

// AnalyticJSON is `jobs show ID result --format json` for a TPROC-H run.
type AnalyticJSON struct {
	JobID        int64         `json:"job_id"`
	Workload     string        `json:"workload"`
	Status       string        `json:"status"`
	ScaleFactor  float64       `json:"scale_factor"`
	Streams      int           `json:"streams"`
	QuerySets    int           `json:"query_sets"`
	Seed         int64         `json:"seed"`
	Refresh      bool          `json:"refresh"`
	Validation   bool          `json:"validation"`
	Validated    *string       `json:"validated"` // "passed", "failed"; null when not checked
	GeomeanS     *float64      `json:"geomean_s"`
	Power        *float64      `json:"power"`
	Throughput   *float64      `json:"throughput"`
	Composite    *float64      `json:"composite"`
	TsS          *float64      `json:"ts_s"`
	PowerS       float64       `json:"power_test_s"`
	ThroughputS  float64       `json:"throughput_test_s"`
	Queries      []QueryJSON   `json:"queries"`
	Refreshes    []RefreshJSON `json:"refreshes"`
	StreamTotals []StreamTotal `json:"stream_totals"`
	Warnings     []string      `json:"warnings"`
	Note         string        `json:"note"`
}

// QueryJSON is one query execution of a TPROC-H run.
type QueryJSON struct {
	Stream   int     `json:"stream"`
	Position int     `json:"position"`
	Set      int     `json:"set"`
	Query    int     `json:"query"`
	Seconds  float64 `json:"seconds"`
	Rows     int64   `json:"rows"`
	Error    *string `json:"error"`
	Check    *string `json:"answer_check"` // "ok" or what differed; null when not checked
}

// RefreshJSON is one refresh function execution of a TPROC-H run.
type RefreshJSON struct {
	Stream   int     `json:"stream"`
	Set      int     `json:"set"`
	Function string  `json:"function"`
	Seconds  float64 `json:"seconds"`
	Rows     int64   `json:"rows"`
	Error    *string `json:"error"`
}

// optFloat is nil (null) for a metric that could not be computed.
func optFloat(v float64) *float64 {
	if math.IsNaN(v) {
		return nil
	}
	return &v
}

// optString is nil (null) for an empty string.
func optString(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// ToAnalytic is the JSON shape of job id's TPROC-H result.
func ToAnalytic(id int64, r *metrics.AnalyticResult) AnalyticJSON {
	out := AnalyticJSON{JobID: id, Workload: tproch.Name, Status: r.Status, ScaleFactor: r.SF, Streams: r.Streams,
		QuerySets: r.QuerySets, Seed: r.Seed, Refresh: r.Refresh, Validation: r.Validation, Validated: optString(r.Validated),
		GeomeanS: optFloat(r.GeomeanS), Power: optFloat(r.Power), Throughput: optFloat(r.Throughput),
		Composite: optFloat(r.Composite), TsS: optFloat(r.TsS), PowerS: r.PowerSeconds, ThroughputS: r.ThroughputSeconds,
		Queries: []QueryJSON{}, Refreshes: []RefreshJSON{}, Warnings: append([]string{}, r.Warnings...),
		Note: "TPROC-H is derived from the TPC-H specification; its results are not comparable with audited TPC results"}
	for _, q := range r.Queries {
		out.Queries = append(out.Queries, QueryJSON{Stream: q.Stream, Position: q.Position, Set: q.Set, Query: q.Query,
			Seconds: q.Seconds, Rows: q.Rows, Error: optString(q.Error), Check: optString(q.Check)})
	}
	// Totals in stream order: a map would encode as an object keyed by text.
	totals := StreamTotals(r)
	out.StreamTotals = []StreamTotal{}
	for s := 0; s <= r.Streams; s++ {
		if t, ok := totals[s]; ok {
			out.StreamTotals = append(out.StreamTotals, t)
		}
	}
	for _, f := range r.Refreshes {
		out.Refreshes = append(out.Refreshes, RefreshJSON{Stream: f.Stream, Set: f.Set, Function: f.Function,
			Seconds: f.Seconds, Rows: f.Rows, Error: optString(f.Error)})
	}
	return out
}
