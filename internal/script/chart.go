package script

import (
	"fmt"
	"html"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/sledge-bench/sledge/internal/jobs"
)

// getchart returns a self-contained HTML page (inline SVG, no script, no
// request to anywhere) charting a job, as HammerDB's getchart returns one.

type series struct {
	name   string
	values []float64
}

var palette = []string{"#2f6fb0", "#e07b39", "#3a9a5b", "#b8446a", "#7a5bb0"}

// chartMissing is what HammerDB says when a job has no data for a chart
// (an unknown job has none either). For metrics HammerDB's own check looks
// for another message than the one it stores, so it always ends at its
// later test: "insufficient metrics data".
var chartMissing = map[string]string{
	"result":  noResult,
	"timing":  noTiming,
	"tcount":  noTcount,
	"metrics": "Jobid has insufficient metrics data",
}

// chartOf is `jobs ID getchart TYPE`: the chart page is returned.
func (r *run) chartOf(arg, kind string) error {
	kind = strings.ToLower(kind)
	missing, ok := chartMissing[kind]
	if !ok {
		r.println("Error: Usage: jobs jobid getchart [ result | timing | tcount | metrics | profile | diff:pid ]")
		return nil
	}
	j, found, err := r.lookup(arg)
	if err != nil {
		return err
	}
	page := ""
	if found {
		if page, err = r.chartPage(j, kind); err != nil {
			return err
		}
	}
	if page == "" {
		r.println("Chart for jobid %s not available, %s", arg, missing)
		return nil
	}
	r.ret = page
	return nil
}

// chartPart is a chart: its title and SVG; zero when there is no data.
type chartPart struct{ title, svg string }

// chartPage is a job's chart of a kind as a page; "" when it has no data
// for it.
func (r *run) chartPage(j jobs.Job, kind string) (string, error) {
	c, err := r.chartOfKind(j, kind)
	if err != nil || c.svg == "" {
		return "", err
	}
	return page(c.title, c.svg), nil
}

func (r *run) chartOfKind(j jobs.Job, kind string) (chartPart, error) {
	switch kind {
	case "result":
		return r.resultChart(j)
	case "timing":
		return r.timingChart(j)
	case "tcount":
		return r.tcountChart(j)
	case "metrics":
		return r.metricsChart(j)
	}
	return chartPart{}, nil
}

// profileChart is `jobs PID getchart profile` and `jobs PID getchart
// diff:PID2`: NOPM by virtual users of one profile, or of two.
func (r *run) profileChart(pidArg, kind string) error {
	pid, err := strconv.Atoi(pidArg)
	if err != nil || pid <= 0 {
		r.println("Error: Performance profile id should be an integer greater than 0")
		return nil
	}
	pids := []int{pid}
	if other, ok := strings.CutPrefix(strings.ToLower(kind), "diff:"); ok {
		p2, err := strconv.Atoi(other)
		if err != nil || p2 <= 0 {
			r.println("Error: Usage: jobs jobid getchart [ result | timing | tcount | metrics | profile | diff:pid ]")
			return nil
		}
		pids = append(pids, p2)
	}
	vuSet := map[int]bool{}
	best := make([]map[int]float64, len(pids))
	for i, p := range pids {
		js, err := r.profileJobs(p)
		if err != nil {
			return err
		}
		if len(js) == 0 {
			r.println("Error: No jobs found with performance profile id of %d", p)
			return nil
		}
		best[i] = map[int]float64{}
		for _, j := range js {
			res, err := r.Repo.RunResult(r.ctx, j.ID)
			if err != nil {
				return err
			}
			if res != nil {
				best[i][res.VUs] = math.Max(best[i][res.VUs], hammerNOPM(res))
				vuSet[res.VUs] = true
			}
		}
	}
	vus := make([]int, 0, len(vuSet))
	for v := range vuSet {
		vus = append(vus, v)
	}
	sort.Ints(vus)
	cats := make([]string, len(vus))
	for i, v := range vus {
		cats[i] = strconv.Itoa(v) + " VU"
	}
	var ss []series
	for i, p := range pids {
		s := series{name: fmt.Sprintf("profile %d NOPM", p)}
		for _, v := range vus {
			s.values = append(s.values, best[i][v])
		}
		ss = append(ss, s)
	}
	title := fmt.Sprintf("Performance profile %d", pid)
	if len(pids) == 2 {
		title = fmt.Sprintf("Performance profile %d compared with %d", pids[1], pid)
	}
	r.ret = page(title, barChart(cats, ss, "NOPM"))
	return nil
}

func (r *run) resultChart(j jobs.Job) (chartPart, error) {
	if j.Kind != jobs.KindRun {
		return chartPart{}, nil
	}
	_, version := productVersion(j)
	product, err := r.dbName(j)
	if err != nil {
		return chartPart{}, err
	}
	if j.Workload == "tproch" {
		res, err := r.Repo.AnalyticResult(r.ctx, j.ID)
		if err != nil || res == nil {
			return chartPart{}, err
		}
		var cats []string
		s := series{name: "power test seconds"}
		for _, q := range res.Queries {
			if q.Stream == 0 && q.Set <= 1 {
				cats = append(cats, "Q"+strconv.Itoa(q.Query))
				s.values = append(s.values, q.Seconds)
			}
		}
		if len(cats) == 0 {
			return chartPart{}, nil
		}
		return chartPart{fmt.Sprintf("Job %d: TPROC-H query times on %s %s (geometric mean %.3f s)", j.ID, product, version, res.GeomeanS),
			barChart(cats, []series{s}, "seconds")}, nil
	}
	res, err := r.Repo.RunResult(r.ctx, j.ID)
	if err != nil || res == nil {
		return chartPart{}, err
	}
	return chartPart{fmt.Sprintf("Job %d: TPROC-C on %s %s, %d virtual users", j.ID, product, version, res.VUs),
		barChart([]string{"NOPM", "TPM"}, []series{{"result", []float64{hammerNOPM(res), hammerTPM(res)}}}, "per minute")}, nil
}

func (r *run) timingChart(j jobs.Job) (chartPart, error) {
	if j.Kind == jobs.KindRun && j.Workload == "tproch" {
		// HammerDB's TPROC-H timing chart is the query times.
		return r.resultChart(j)
	}
	if j.Kind != jobs.KindRun {
		return chartPart{}, nil
	}
	res, err := r.Repo.RunResult(r.ctx, j.ID)
	if err != nil || res == nil {
		return chartPart{}, err
	}
	var cats []string
	ss := []series{{name: "p50 ms"}, {name: "p95 ms"}, {name: "p99 ms"}}
	for _, tx := range res.Tx {
		if len(tx.Histogram) == 0 || tx.Count == 0 {
			continue
		}
		h, err := hdrhistogram.Decode(tx.Histogram)
		if err != nil {
			return chartPart{}, fmt.Errorf("timing chart of job %d: %w", j.ID, err)
		}
		cats = append(cats, hammerTx[tx.Name])
		for i, q := range []float64{50, 95, 99} {
			ss[i].values = append(ss[i].values, float64(h.ValueAtQuantile(q))/1000)
		}
	}
	if len(cats) == 0 {
		return chartPart{}, nil
	}
	return chartPart{fmt.Sprintf("Job %d: response times", j.ID), barChart(cats, ss, "ms")}, nil
}

func (r *run) tcountChart(j jobs.Job) (chartPart, error) {
	if j.Kind != jobs.KindRun || j.Workload == "tproch" {
		return chartPart{}, nil
	}
	ivs, err := r.Repo.Intervals(r.ctx, j.ID)
	if err != nil || len(ivs) == 0 {
		return chartPart{}, err
	}
	xs := make([]float64, len(ivs))
	ys := make([]float64, len(ivs))
	for i, iv := range ivs {
		xs[i], ys[i] = iv.Elapsed.Seconds(), iv.TPM
	}
	db, err := r.dbName(j)
	if err != nil {
		return chartPart{}, err
	}
	return chartPart{fmt.Sprintf("Job %d: %s transactions per minute", j.ID, db), lineChart(xs, ys, "seconds", "TPM")}, nil
}

// metricsChart charts the server's CPU use, when the repository keeps it.
func (r *run) metricsChart(j jobs.Job) (chartPart, error) {
	o, err := r.metricsObject(j)
	if err != nil || len(o) < 2 {
		return chartPart{}, err
	}
	samples, err := r.metricSamples(j)
	if err != nil || len(samples) < 2 {
		return chartPart{}, err
	}
	xs := make([]float64, len(samples))
	ys := make([]float64, len(samples))
	for i, m := range samples {
		xs[i], ys[i] = m.At.Sub(samples[0].At).Seconds(), 100-m.Idle
	}
	return chartPart{fmt.Sprintf("Job %d: server CPU busy %%", j.ID), lineChart(xs, ys, "seconds", "CPU %")}, nil
}

const (
	chartW, chartH                     = 900, 420
	padLeft, padRight, padTop, padBott = 80, 20, 20, 60
)

func page(title, svg string) string {
	t := html.EscapeString(title)
	return "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>" + t + "</title>" +
		"<style>body{font-family:sans-serif;margin:2em;color:#222}svg text{font-size:12px;fill:#333}</style></head>\n" +
		"<body><h1 style=\"font-size:1.2em\">" + t + "</h1>\n" + svg + "\n<p style=\"color:#777\">Sledge</p></body></html>\n"
}

// niceMax rounds a maximum up to 1, 2 or 5 times a power of ten.
func niceMax(v float64) float64 {
	if v <= 0 {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(v)))
	for _, m := range []float64{1, 2, 5, 10} {
		if v <= m*p {
			return m * p
		}
	}
	return 10 * p
}

func axes(b *strings.Builder, top float64, unit string) {
	plotH := float64(chartH - padTop - padBott)
	for i := 0; i <= 5; i++ {
		v := top * float64(i) / 5
		y := float64(chartH-padBott) - plotH*float64(i)/5
		fmt.Fprintf(b, `<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="#ddd"/>`, padLeft, y, chartW-padRight, y)
		fmt.Fprintf(b, `<text x="%d" y="%.1f" text-anchor="end">%s</text>`, padLeft-6, y+4, strconv.FormatFloat(v, 'f', -1, 64))
	}
	fmt.Fprintf(b, `<text x="14" y="%d" transform="rotate(-90 14 %d)" text-anchor="middle">%s</text>`,
		chartH/2, chartH/2, html.EscapeString(unit))
}

func barChart(cats []string, ss []series, unit string) string {
	var top float64
	for _, s := range ss {
		for _, v := range s.values {
			top = math.Max(top, v)
		}
	}
	top = niceMax(top)
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d">`, chartW, chartH+20*len(ss), chartW, chartH+20*len(ss))
	axes(&b, top, unit)
	plotW := float64(chartW - padLeft - padRight)
	plotH := float64(chartH - padTop - padBott)
	group := plotW / float64(len(cats))
	bar := group * 0.8 / float64(len(ss))
	for ci, c := range cats {
		x0 := float64(padLeft) + group*float64(ci) + group*0.1
		for si, s := range ss {
			v := s.values[ci]
			h := plotH * v / top
			fmt.Fprintf(&b, `<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s"><title>%s %s: %s</title></rect>`,
				x0+bar*float64(si), float64(chartH-padBott)-h, bar, h, palette[si%len(palette)],
				html.EscapeString(c), html.EscapeString(s.name), strconv.FormatFloat(v, 'f', -1, 64))
		}
		fmt.Fprintf(&b, `<text x="%.1f" y="%d" text-anchor="middle">%s</text>`, x0+group*0.4, chartH-padBott+16, html.EscapeString(c))
	}
	for si, s := range ss {
		y := chartH + 20*si
		fmt.Fprintf(&b, `<rect x="%d" y="%d" width="12" height="12" fill="%s"/><text x="%d" y="%d">%s</text>`,
			padLeft, y-4, palette[si%len(palette)], padLeft+18, y+6, html.EscapeString(s.name))
	}
	b.WriteString("</svg>")
	return b.String()
}

func lineChart(xs, ys []float64, xunit, yunit string) string {
	var top float64
	for _, v := range ys {
		top = math.Max(top, v)
	}
	top = niceMax(top)
	xmax := xs[len(xs)-1]
	if xmax <= 0 {
		xmax = 1
	}
	plotW := float64(chartW - padLeft - padRight)
	plotH := float64(chartH - padTop - padBott)
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d">`, chartW, chartH, chartW, chartH)
	axes(&b, top, yunit)
	var pts []string
	for i := range xs {
		pts = append(pts, fmt.Sprintf("%.1f,%.1f", float64(padLeft)+plotW*xs[i]/xmax, float64(chartH-padBott)-plotH*ys[i]/top))
	}
	fmt.Fprintf(&b, `<polyline fill="none" stroke="%s" stroke-width="2" points="%s"/>`, palette[0], strings.Join(pts, " "))
	fmt.Fprintf(&b, `<text x="%d" y="%d" text-anchor="end">%s</text>`, chartW-padRight, chartH-padBott+16, html.EscapeString(strconv.FormatFloat(xmax, 'f', 0, 64)+" "+xunit))
	fmt.Fprintf(&b, `<text x="%d" y="%d">0</text>`, padLeft, chartH-padBott+16)
	b.WriteString("</svg>")
	return b.String()
}
