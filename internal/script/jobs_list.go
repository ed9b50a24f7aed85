package script

// The jobs command's listings: `jobs` alone (the summary table of TPROC-C
// and TPROC-H jobs), `jobs joblist` and `jobs timestamp`.

import (
	"fmt"
	"math"
	"strings"

	"github.com/sledge-bench/sledge/internal/jobs"
	"github.com/sledge-bench/sledge/internal/metrics"
)

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
				// HammerDB's Geomean column: the first stream's first set.
				if s, ok := firstSet(res); ok {
					rw.metric = fmt.Sprintf("%.2f", s.geomean)
					rw.score, rw.scored = -s.geomean, j.Status == metrics.StatusCompleted
				}
			}
			h = append(h, rw)
			continue
		}
		if j.Headline != nil {
			// HammerDB's NOPM, as the TEST RESULT line gives it (hammerNOPM).
			nopm := j.Headline.NOPM
			if !math.IsNaN(j.Headline.NOPMDBCheck) {
				nopm = j.Headline.NOPMDBCheck
			}
			rw.metric = fmt.Sprintf("%.0f", nopm)
			rw.score, rw.scored = nopm, j.Status == metrics.StatusCompleted
		}
		c = append(c, rw)
	}
	names := map[int64]string{}
	for _, j := range all {
		if names[j.ID], err = r.dbName(j); err != nil {
			return err
		}
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
			_, version := productVersion(rw.j)
			dbcol := names[rw.j.ID]
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
