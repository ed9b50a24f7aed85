package script

// A job's output as HammerDB's virtual-user rows: `jobs ID`, `jobs ID
// status` and `jobs ID VUID` (vu=N).

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/sledge-bench/sledge/internal/config"
	"github.com/sledge-bench/sledge/internal/jobs"
	"github.com/sledge-bench/sledge/internal/metrics"
)

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
// are HammerDB's virtual users (streamVU), each with the lines HammerDB's VU
// prints for its stream (written from the stored query times; VU 1's after
// the console).
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
			for _, st := range analyticStreams(res) {
				k := streamVU(st.stream)
				for len(vus) < k {
					vus = append(vus, nil)
				}
				vus[k-1] = append(vus[k-1], st.lines()...)
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
