package main

import (
	"context"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/sledge-bench/sledge/internal/jobs"
	"github.com/sledge-bench/sledge/internal/metrics"
)

// jobCollector exposes the running jobs' live numbers to Prometheus, read
// from the repository at scrape time: the series the engine records every
// interval is the single source, so /metrics, the event stream and the CLI
// line always agree.
type jobCollector struct {
	repo *jobs.Repo

	running, tpm, nopm, txTotal, txErrors, latency *prometheus.Desc
}

func newJobCollector(repo *jobs.Repo) *jobCollector {
	jl := []string{"job", "workload"}
	tl := []string{"job", "workload", "transaction"}
	return &jobCollector{
		repo:     repo,
		running:  prometheus.NewDesc("sledge_jobs_running", "Jobs running now.", nil, nil),
		tpm:      prometheus.NewDesc("sledge_job_tpm", "Committed transactions per minute in the job's latest interval.", jl, nil),
		nopm:     prometheus.NewDesc("sledge_job_nopm", "Committed New-Orders per minute in the job's latest interval.", jl, nil),
		txTotal:  prometheus.NewDesc("sledge_job_transactions_total", "Committed transactions so far, by type (ramp-up included).", tl, nil),
		txErrors: prometheus.NewDesc("sledge_job_transaction_errors_total", "Failed transactions so far, by type.", tl, nil),
		latency: prometheus.NewDesc("sledge_job_transaction_latency_seconds",
			"Latency percentiles of the latest interval, by transaction type.", append(tl, "quantile"), nil),
	}
}

func (c *jobCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{c.running, c.tpm, c.nopm, c.txTotal, c.txErrors, c.latency} {
		ch <- d
	}
}

func (c *jobCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	list, err := c.repo.List(ctx, jobs.ListFilter{Status: metrics.StatusRunning})
	if err != nil {
		return
	}
	ch <- prometheus.MustNewConstMetric(c.running, prometheus.GaugeValue, float64(len(list)))
	for _, j := range list {
		ivs, err := c.repo.Intervals(ctx, j.ID)
		if err != nil || len(ivs) == 0 {
			continue
		}
		id := strconv.FormatInt(j.ID, 10)
		last := ivs[len(ivs)-1]
		ch <- prometheus.MustNewConstMetric(c.tpm, prometheus.GaugeValue, last.TPM, id, j.Workload)
		ch <- prometheus.MustNewConstMetric(c.nopm, prometheus.GaugeValue, last.NOPM, id, j.Workload)
		counts, errs := map[string]int64{}, map[string]int64{}
		for _, iv := range ivs {
			for _, tx := range iv.Tx {
				counts[tx.Name] += tx.Count
				errs[tx.Name] += tx.Errors
			}
		}
		for name, n := range counts {
			ch <- prometheus.MustNewConstMetric(c.txTotal, prometheus.CounterValue, float64(n), id, j.Workload, name)
			ch <- prometheus.MustNewConstMetric(c.txErrors, prometheus.CounterValue, float64(errs[name]), id, j.Workload, name)
		}
		for _, tx := range last.Tx {
			for q, d := range map[string]time.Duration{"0.5": tx.P50, "0.95": tx.P95, "0.99": tx.P99, "1": tx.Max} {
				ch <- prometheus.MustNewConstMetric(c.latency, prometheus.GaugeValue, d.Seconds(), id, j.Workload, tx.Name, q)
			}
		}
	}
}
