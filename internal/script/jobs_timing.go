package script

// A run's timings and transaction counts: `jobs ID timing` (HammerDB's
// xtprof summary from Sledge's histograms), `jobs ID timing VU` and `jobs ID
// tcount`.

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/sledge-bench/sledge/internal/jobs"
)

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
	var rows []txTiming
	for _, tx := range res.Tx {
		if len(tx.Histogram) == 0 || tx.Count == 0 {
			continue
		}
		h, err := hdrhistogram.Decode(tx.Histogram)
		if err != nil {
			return nil, fmt.Errorf("timing of job %d: decode %s histogram: %w", j.ID, tx.Name, err)
		}
		total := h.Mean() * float64(h.TotalCount()) / 1000
		rows = append(rows, timingRow(tx.Name, h, total, h.Mean()/1000, elapsed, max(res.VUs, 1)))
	}
	return byRatio(rows), nil
}

// txTiming is one row of HammerDB's timing answers.
type txTiming struct {
	name  string
	ratio float64
	obj   object
}

// timingRow is the row of transaction type tx from its histogram h (in
// microseconds): total and avg are the time spent in it and per call in
// milliseconds, elapsed the window's wall time in milliseconds and vus the
// VUs whose time ratio_pct shares out.
func timingRow(tx string, h *hdrhistogram.Histogram, total, avg, elapsed float64, vus int) txTiming {
	ms := func(us float64) string { return number(us/1000, 3) }
	q := func(p float64) string { return ms(float64(h.ValueAtQuantile(p))) }
	n := h.TotalCount()
	ratio := total / (elapsed * float64(vus)) * 100
	sd := 0.0 // HammerDB's for fewer than three calls
	if n > 2 {
		sd = h.StdDev() * math.Sqrt(float64(n)/float64(n-1)) // the sample's (N-1), as HammerDB's
	}
	name := hammerTx[tx]
	if name == "" {
		name = strings.ToUpper(tx)
	}
	return txTiming{name, ratio, object{
		{"elapsed_ms", number(elapsed, 3)},
		{"calls", integer(n)},
		{"min_ms", ms(float64(h.Min()))},
		{"avg_ms", number(avg, 3)},
		{"max_ms", ms(float64(h.Max()))},
		{"total_ms", number(total, 3)},
		{"p99_ms", q(99)},
		{"p95_ms", q(95)},
		{"p75_ms", q(75)},
		{"p50_ms", q(50)},
		{"p25_ms", q(25)},
		{"sd", number(sd, 3)}, // microseconds, as in HammerDB's published jobs answers
		{"ratio_pct", number(ratio, 3)},
	}}
}

// byRatio is the rows as HammerDB answers them, the highest ratio_pct
// first; nil for none.
func byRatio(rows []txTiming) object {
	sort.SliceStable(rows, func(a, b int) bool { return rows[a].ratio > rows[b].ratio })
	var o object
	for _, t := range rows {
		o.add(t.name, t.obj)
	}
	return o
}

// vuTiming is `jobs ID timing N`: virtual user N's rows, in the summary's
// shape, from the per-VU timing its run kept (HammerDB's time profile;
// config.Spec.PerVUTiming), as HammerDB's xtprof writes a row per VU and
// procedure: calls, avg_ms and total_ms are the VU's exact ones, the
// extremes and percentiles its histogram's (two significant digits),
// elapsed_ms the measured window (every VU runs all of it) and ratio_pct
// the share of the VU's time, total_ms ÷ elapsed_ms × 100.
//
// N is HammerDB's VU number: in a timed run VU 1 is HammerDB's monitor,
// which runs no transactions, and Sledge's VU k is N = k+1, as in the job's
// output (jobs ID N); an iteration run (HammerDB's test driver) has no
// monitor. HammerDB answers from its timing table alone: a job it does not
// know, or a VU without rows, gets its line for a VU without timing data;
// Sledge adds a notice when the run kept no per-VU timing at all.
func (r *run) vuTiming(arg string, n int) error {
	noData := func() {
		r.println("No Timing Data for VU %d for JOB %s: jobs jobid timing vuid", n, arg)
	}
	j, ok, err := r.lookup(arg)
	if err != nil {
		return err
	}
	if !ok || j.Kind != jobs.KindRun || j.Workload == "tproch" {
		noData()
		return nil
	}
	o, kept, err := r.vuTimingObject(j, n)
	if err != nil {
		return err
	}
	if o == nil {
		noData()
		if !kept {
			r.println("Notice: job %d kept no per-VU timing: run with diset tpcc <db>_timeprofile true (sledge run --per-vu-timing); jobs %d timing has all VUs' together", j.ID, j.ID)
		}
		return nil
	}
	r.show(o, false)
	return nil
}

// vuTimingObject is HammerDB's VU n's timing rows of run j (nil for none)
// and whether the run kept per-VU timing at all.
func (r *run) vuTimingObject(j jobs.Job, n int) (object, bool, error) {
	cfg, err := r.Repo.Config(r.ctx, j.ID)
	if err != nil {
		return nil, false, fmt.Errorf("timing of job %d: settings: %w", j.ID, err)
	}
	if cfg["per_vu_timing"] != "true" {
		return nil, false, nil
	}
	res, err := r.Repo.RunResult(r.ctx, j.ID)
	if err != nil || res == nil || res.Measured <= 0 {
		return nil, true, err
	}
	vu := n
	if res.Iterations == 0 {
		vu-- // HammerDB's VU 1 is its monitor
	}
	if vu < 1 {
		return nil, true, nil
	}
	vts, err := r.Repo.VUTiming(r.ctx, j.ID, vu)
	if err != nil {
		return nil, true, err
	}
	elapsed := float64(res.Measured.Microseconds()) / 1000
	var rows []txTiming
	for _, vt := range vts {
		if vt.Calls == 0 || len(vt.Histogram) == 0 {
			continue
		}
		h, err := hdrhistogram.Decode(vt.Histogram)
		if err != nil {
			return nil, true, fmt.Errorf("timing of job %d: decode VU %d's %s histogram: %w", j.ID, vt.VU, vt.Tx, err)
		}
		total := float64(vt.Total) / float64(time.Millisecond)
		rows = append(rows, timingRow(vt.Tx, h, total, total/float64(vt.Calls), elapsed, 1))
	}
	return byRatio(rows), true, nil
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
