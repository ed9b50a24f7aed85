package engine

import (
	"fmt"
	"runtime"
	"sync"
	"syscall"
	"time"

	"github.com/sledge-bench/sledge/internal/metrics"
	"github.com/sledge-bench/sledge/internal/workload"
)

// result assembles the measured result once the load has stopped: the
// window's numbers from the collector, the executor's load account and the
// stages' rows, the cross-check, the disruption account and the audits.
// cpu is the process's CPU time at the window's end.
func (r *run) result(cpu time.Duration) *metrics.RunResult {
	// Take in what ended within the window but was recorded after its last
	// tick (later events are ignored).
	r.col.Drain()
	w := &r.win
	if !w.open {
		res := r.nothingMeasured(r.status)
		res.Disruption = r.disruption()
		return res
	}
	res := r.newResult(r.status)
	res.Measured = w.end - w.start
	r.fill(res, cpu-w.cpu0)
	res.Stages = r.lastStage(w.start + res.Measured)
	r.x.account(res)
	w.crossCheck(res, r.x.sessions())
	if d := r.disruption(); d != nil {
		res.Disruption = d
		if d.InWindow() {
			if res.Status == metrics.StatusCompleted {
				res.Status = metrics.StatusDegraded
			}
			res.Warnings = append(res.Warnings, disruptionWarnings(d)...)
		}
	}
	if a, ok := r.wl.(workload.Auditor); ok {
		completed, rolledBack := r.col.Completed()
		failed := make([]map[string]int64, len(res.Tx))
		for i, t := range res.Tx {
			failed[i] = t.Errors
		}
		res.Audit = a.Audit(completed, rolledBack, failed)
	}
	res.Audit = append(res.Audit, r.paceAudit()...)
	res.Warnings = append(res.Warnings, metrics.AuditWarnings(res.Audit)...)
	return res
}

// newResult is the result's frame: the run's settings and status.
func (r *run) newResult(status string) *metrics.RunResult {
	res := &metrics.RunResult{VUs: r.x.sessions(), Rampup: r.cfg.Rampup, Duration: r.cfg.Duration, Status: status,
		Connects: r.connects.get()}
	if r.cfg.Iterations > 0 {
		res.Iterations, res.Duration = r.cfg.Iterations, 0
	}
	return res
}

// connectSums counts the openings of the run's sessions as its load
// starts (closed.go, pool.go); safe for concurrent use, ready at its zero
// value.
type connectSums struct {
	mu sync.Mutex
	c  metrics.Connects
}

func (s *connectSums) add(d time.Duration) {
	s.mu.Lock()
	s.c.Add(d)
	s.mu.Unlock()
}

func (s *connectSums) get() metrics.Connects {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.c
}

// nothingMeasured is the result of a run stopped before its window opened.
func (r *run) nothingMeasured(status string) *metrics.RunResult {
	res := r.newResult(status)
	res.Tx = r.col.Summaries()
	res.DBCheckUnavailable = "nothing was measured"
	res.ServerTPMUnavailable = res.DBCheckUnavailable
	return res
}

// fill computes the result's numbers from the collector; cpu is the
// process's CPU time over the window.
func (r *run) fill(res *metrics.RunResult, cpu time.Duration) {
	res.Tx = r.col.Summaries()
	res.VUTiming = r.col.VUTimings(r.cfg.FirstVU)
	headline := -1
	if p, ok := r.wl.(workload.Prober); ok {
		headline = p.HeadlineTx()
	}
	var completed int64
	for i, t := range res.Tx {
		res.Commits += t.Count
		res.RolledBack += t.RolledBack
		res.Errors += t.ErrorCount()
		completed += t.Count + t.RolledBack
		if i == headline {
			res.NewOrders = t.Count
		}
	}
	minutes := res.Measured.Minutes()
	if minutes > 0 {
		res.TPM = float64(res.Commits) / minutes
		res.NOPM = float64(res.NewOrders) / minutes
	}
	res.ClientCPU = cpu
	if completed > 0 {
		res.ClientCPUPerTxUS = float64(cpu.Microseconds()) / float64(completed)
	}
	// The client should leave the machine to the database: flag a client that
	// used more than half of all cores over the window.
	if busy := cpu.Seconds() / (res.Measured.Seconds() * float64(runtime.NumCPU())); !r.cfg.InProcessDB && res.Measured > 0 && busy > 0.5 {
		res.Warnings = append(res.Warnings, fmt.Sprintf(
			"the client used %.0f%% of this machine's %d CPUs: it may have limited the database (run Sledge on another machine, or use fewer VUs)",
			100*busy, runtime.NumCPU()))
	}
	if procs := runtime.GOMAXPROCS(0); res.Measured > 0 && cpu.Seconds() > 0.8*res.Measured.Seconds()*float64(procs) && procs < runtime.NumCPU() {
		res.Warnings = append(res.Warnings, fmt.Sprintf(
			"the client was CPU-bound on its %d core(s): raise --client-cpus", procs))
	}
	if res.Errors > 0 {
		res.Warnings = append(res.Warnings, fmt.Sprintf("%d transactions failed (see errors by class)", res.Errors))
	}
}

// processCPU is this process's user+system CPU time so far.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
