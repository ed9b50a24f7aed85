package server

import (
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/sledge-bench/sledge/internal/output"
)

// jobCollector exposes the live numbers of the jobs running in this server
// to Prometheus, read from the hub at scrape time: the intervals the engine
// reports are the single source, so /metrics, the event stream and the CLI
// line always agree, and a scrape never touches the repository.
type jobCollector struct {
	hub *output.Hub

	running, tpm, nopm, txTotal, txErrors, latency *prometheus.Desc
}

func newJobCollector(hub *output.Hub) *jobCollector {
	jl := []string{"job", "workload"}
	tl := []string{"job", "workload", "transaction"}
	return &jobCollector{
		hub:      hub,
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
	live := c.hub.Live()
	ch <- prometheus.MustNewConstMetric(c.running, prometheus.GaugeValue, float64(len(live)))
	for _, j := range live {
		if j.Last == nil {
			continue // no interval yet (or not a run)
		}
		id := strconv.FormatInt(j.ID, 10)
		last := j.Last
		ch <- prometheus.MustNewConstMetric(c.tpm, prometheus.GaugeValue, last.TPM, id, j.Workload)
		ch <- prometheus.MustNewConstMetric(c.nopm, prometheus.GaugeValue, last.NOPM, id, j.Workload)
		for name, t := range j.Totals {
			ch <- prometheus.MustNewConstMetric(c.txTotal, prometheus.CounterValue, float64(t.Count), id, j.Workload, name)
			ch <- prometheus.MustNewConstMetric(c.txErrors, prometheus.CounterValue, float64(t.Errors), id, j.Workload, name)
		}
		for _, tx := range last.Tx {
			for q, d := range map[string]time.Duration{"0.5": tx.P50, "0.95": tx.P95, "0.99": tx.P99, "1": tx.Max} {
				ch <- prometheus.MustNewConstMetric(c.latency, prometheus.GaugeValue, d.Seconds(), id, j.Workload, tx.Name, q)
			}
		}
	}
}
