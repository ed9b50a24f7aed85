package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/sledge-bench/sledge/internal/workload"
)

// OwnRunResult writes a run's result in its workload's own vocabulary when
// the workload has one (workload.RunReporter: pgbench's), followed by what
// Sledge adds to every run — client CPU, the load model, disruptions, the
// latency percentiles per transaction type with errors by class, the
// warnings — and where the job is stored; ok is false for a workload
// without its own, whose result the caller writes (RunResult,
// StoredRunResult).
func OwnRunResult(w io.Writer, wl workload.Workload, in workload.RunReport) (ok bool, err error) {
	rr, ok := wl.(workload.RunReporter)
	if !ok || in.Result == nil {
		return false, nil
	}
	r := in.Result
	var b strings.Builder
	if err := rr.WriteRunReport(&b, in); err != nil {
		return true, err
	}
	fmt.Fprintln(&b, "\nSledge's measurement:")
	tw := newTable(&b, 0)
	fmt.Fprintf(tw, "  window\t%s\n", WindowText(r))
	engine := ""
	if in.Embedded {
		engine = "; includes the embedded database engine"
	}
	fmt.Fprintf(tw, "  client CPU\t%.1f µs per transaction\t(%.2f s over the window%s)\n", r.ClientCPUPerTxUS, r.ClientCPU.Seconds(), engine)
	connectsLine(tw, r)
	loadLines(tw, r.Load)
	tw.Flush()
	_ = disruptionBlock(&b, r.Disruption)
	fmt.Fprintln(&b)
	_ = Timing(&b, r)
	stagesBlock(&b, r)
	for _, wn := range r.Warnings {
		fmt.Fprintf(&b, "\n  warning: %s\n", wn)
	}
	fmt.Fprintf(&b, "\n  stored as job %d: sledge jobs show %d (add result, timing, tcount, metrics …)\n", in.ID, in.ID)
	return true, writeLines(w, b.String())
}
