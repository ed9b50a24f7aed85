package report

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/sledge-bench/sledge/internal/metrics"
)

// UsersText names what offered a run's load: its VUs, its terminals over
// their sessions, or its arrivals.
func UsersText(r *metrics.RunResult) string {
	l := r.Load
	switch {
	case l == nil:
		return Plural(r.VUs, "VU")
	case l.Model == metrics.LoadTerminals:
		return fmt.Sprintf("%s over %s", Plural(l.Terminals, "terminal"), Plural(l.Connections, "connection"))
	}
	return fmt.Sprintf("open-loop arrivals at %s/s over %s", Number(l.AskedRate), Plural(l.Connections, "connection"))
}

// Number writes a rate briefly: whole when it is, else with two decimals.
func Number(v float64) string {
	if v == float64(int64(v)) {
		return Int(v)
	}
	return fmt.Sprintf("%.2f", v)
}

// loadLines adds a terminal or rate run's schedule to the result's table:
// how late transactions were sent after their scheduled start, and a rate
// run's achieved rate and drops.
func loadLines(tw io.Writer, l *metrics.LoadResult) {
	if l == nil {
		return
	}
	if l.Model == metrics.LoadRate {
		fmt.Fprintf(tw, "  rate\t%s/s achieved\t(%s/s asked; %d scheduled in the window, %d dropped beyond the queue of %d)\n",
			Number(l.AchievedRate), Number(l.AskedRate), l.Scheduled, l.Dropped, l.MaxQueue)
	}
	from := "a transaction's scheduled start to its send"
	if l.Model == metrics.LoadTerminals {
		from = "a terminal's due time to its send, the wait for a session included"
	}
	fmt.Fprintf(tw, "  schedule lag\tp50 %s, p99 %s, max %s\t(from %s; %d late by more than %s; latencies count from there too)\n",
		Latency(l.LagP50), Latency(l.LagP99), Latency(l.LagMax), from, l.Late, Latency(metrics.LateLag))
}

// stagesBlock writes a staged run's rows: each stage's target and what it
// achieved.
func stagesBlock(w io.Writer, r *metrics.RunResult) {
	if len(r.Stages) == 0 {
		return
	}
	target := "VUs"
	if l := r.Load; l != nil {
		target = map[string]string{metrics.LoadTerminals: "terminals", metrics.LoadRate: "tx/s"}[l.Model]
	}
	fmt.Fprintln(w, "\n  stages (latency of the headline transaction):")
	tw := newTable(w, tabwriter.AlignRight)
	lag := r.Load != nil
	head := "  stage\t" + target + "\tfrom s\tto s\tTPM\tNOPM\terrors\tp50 ms\tp95 ms\tp99 ms\t"
	if lag {
		head += "lag p99 ms\t"
	}
	fmt.Fprintln(tw, head)
	for _, st := range r.Stages {
		fmt.Fprintf(tw, "  %d\t%s\t%.1f\t%.1f\t%s\t%s\t%d\t%.2f\t%.2f\t%.2f\t", st.Stage, Number(st.Target),
			st.Start.Seconds(), st.End.Seconds(), Int(st.TPM), Int(st.NOPM), st.Errors, MS(st.P50), MS(st.P95), MS(st.P99))
		if lag {
			fmt.Fprintf(tw, "%.2f\t", MS(st.LagP99))
		}
		fmt.Fprintln(tw)
	}
	tw.Flush()
}
