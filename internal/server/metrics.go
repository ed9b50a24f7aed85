package server

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/sledge-bench/sledge/internal/observe"
	"github.com/sledge-bench/sledge/internal/output"
)

// jobCollector exposes the live numbers of the jobs running in this server
// to Prometheus, read from the hub at scrape time: the intervals the engine
// reports are the single source, so /metrics, the event stream and the CLI
// line always agree, and a scrape never touches the repository.
type jobCollector struct {
	hub *output.Hub

	running, tpm, nopm, txTotal, txErrors, latency *prometheus.Desc
	// An agent's share of a run driven by several processes.
	agentTPM, agentNOPM, agentTxTotal, agentTxErrors *prometheus.Desc
	// What the job's observers saw in their latest interval.
	aas, samples, cpu, disk, mem, counter *prometheus.Desc
}

// exportedCounters are the cumulative counters /metrics exports as rates,
// by source: the few a dashboard wants beside TPM. The observers store
// hundreds (every wait event, every pg_stat_io row); exported all, each
// job would add that many series to the scraper.
var exportedCounters = map[string]map[string]bool{
	"pg_stat_database":     {"xact_commit": true, "xact_rollback": true, "blks_read": true, "blks_hit": true},
	"pg_stat_bgwriter":     {"checkpoints_req": true},
	"pg_stat_checkpointer": {"num_requested": true},
	"pg_stat_wal":          {"wal_bytes": true},
	"global_status":        {"Com_commit": true, "Innodb_buffer_pool_reads": true, "Innodb_row_lock_waits": true},
}

func newJobCollector(hub *output.Hub) *jobCollector {
	jl := []string{"job", "workload"}
	tl := []string{"job", "workload", "transaction"}
	ol := []string{"job", "observer"}
	al := []string{"job", "workload", "segment"}
	atl := []string{"job", "workload", "segment", "transaction"}
	return &jobCollector{
		hub:       hub,
		agentTPM:  prometheus.NewDesc("sledge_agent_tpm", "This process's share (its segment) of a run driven by several: committed transactions per minute in its latest interval; sum over the agents for the run's.", al, nil),
		agentNOPM: prometheus.NewDesc("sledge_agent_nopm", "This process's share (its segment) of a run driven by several: committed New-Orders per minute in its latest interval; sum over the agents for the run's.", al, nil),
		agentTxTotal: prometheus.NewDesc("sledge_agent_transactions_total",
			"This process's share of a run driven by several: committed transactions so far, by type (ramp-up included).", atl, nil),
		agentTxErrors: prometheus.NewDesc("sledge_agent_transaction_errors_total",
			"This process's share of a run driven by several: failed transactions so far, by type.", atl, nil),
		running:  prometheus.NewDesc("sledge_jobs_running", "Jobs running now.", nil, nil),
		tpm:      prometheus.NewDesc("sledge_job_tpm", "Committed transactions per minute in the job's latest interval.", jl, nil),
		nopm:     prometheus.NewDesc("sledge_job_nopm", "Committed New-Orders per minute in the job's latest interval.", jl, nil),
		txTotal:  prometheus.NewDesc("sledge_job_transactions_total", "Committed transactions so far, by type (ramp-up included).", tl, nil),
		txErrors: prometheus.NewDesc("sledge_job_transaction_errors_total", "Failed transactions so far, by type.", tl, nil),
		latency: prometheus.NewDesc("sledge_job_transaction_latency_seconds",
			"Latency percentiles of the latest interval, by transaction type.", append(tl, "quantile"), nil),
		aas: prometheus.NewDesc("sledge_server_active_sessions",
			"Average active sessions of the database server in the observer's latest interval, by wait class (CPU: active, not waiting).",
			append(ol, "class"), nil),
		samples: prometheus.NewDesc("sledge_server_observed_samples",
			"Activity samples the observer took in its latest interval (0 for an observer that does not sample sessions).", ol, nil),
		cpu: prometheus.NewDesc("sledge_host_cpu_percent",
			"Share of the observed host's CPU time in the observer's latest interval, by mode (user, sys, iowait, irq, steal, idle; they add up to 100).",
			append(ol, "mode"), nil),
		disk: prometheus.NewDesc("sledge_host_disk_bytes_per_second",
			"Bytes read and written per second by the observed host's disks in the observer's latest interval.", ol, nil),
		mem: prometheus.NewDesc("sledge_host_memory_used_bytes",
			"Memory in use on the observed host (total less available) at the end of the observer's latest interval.", ol, nil),
		counter: prometheus.NewDesc("sledge_server_counter_per_second",
			"Rate of a database server statistic over the observer's latest interval, by source view and name (a fixed set: commits, rollbacks, blocks read and hit, requested checkpoints, WAL bytes, buffer pool reads, row lock waits).",
			append(ol, "source", "name"), nil),
	}
}

func (c *jobCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{c.running, c.tpm, c.nopm, c.txTotal, c.txErrors, c.latency,
		c.agentTPM, c.agentNOPM, c.agentTxTotal, c.agentTxErrors,
		c.aas, c.samples, c.cpu, c.disk, c.mem, c.counter} {
		ch <- d
	}
}

func (c *jobCollector) Collect(ch chan<- prometheus.Metric) {
	live := c.hub.Live()
	ch <- prometheus.MustNewConstMetric(c.running, prometheus.GaugeValue, float64(len(live)))
	for _, j := range live {
		c.collectObserved(ch, strconv.FormatInt(j.ID, 10), j.Observed)
		if j.Last == nil {
			continue // no interval yet (or not a run)
		}
		id := strconv.FormatInt(j.ID, 10)
		last := j.Last
		if j.Segment != "" {
			// An agent: its share, never as the job's numbers (its
			// percentiles are not the run's: the merge is in the job).
			ch <- prometheus.MustNewConstMetric(c.agentTPM, prometheus.GaugeValue, last.TPM, id, j.Workload, j.Segment)
			ch <- prometheus.MustNewConstMetric(c.agentNOPM, prometheus.GaugeValue, last.NOPM, id, j.Workload, j.Segment)
			for name, t := range j.Totals {
				ch <- prometheus.MustNewConstMetric(c.agentTxTotal, prometheus.CounterValue, float64(t.Count), id, j.Workload, j.Segment, name)
				ch <- prometheus.MustNewConstMetric(c.agentTxErrors, prometheus.CounterValue, float64(t.Errors), id, j.Workload, j.Segment, name)
			}
			continue
		}
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

// collectObserved sends what a running job's observers saw in their latest
// interval. A figure the observer could not take (NaN, or absent) has no
// series rather than a made-up zero.
func (c *jobCollector) collectObserved(ch chan<- prometheus.Metric, id string, obs []output.Observed) {
	seen := map[string]int{}
	for _, o := range obs {
		// Two observers may have the same name (two hosts both "database
		// host"): the same labels twice would fail the whole scrape.
		name := o.Observer
		if seen[name]++; seen[name] > 1 {
			name = fmt.Sprintf("%s #%d", name, seen[name])
		}
		gauge := func(d *prometheus.Desc, v float64, labels ...string) {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return
			}
			ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, append([]string{id, name}, labels...)...)
		}
		s := o.Snapshot
		gauge(c.samples, float64(s.Samples))
		byClass := map[string]float64{}
		for _, w := range s.Waits {
			byClass[w.Class] += w.AAS
		}
		for class, aas := range byClass {
			gauge(c.aas, aas, class)
		}
		for _, k := range s.Counters {
			switch {
			case k.Source == observe.SourceOSCPU && strings.HasSuffix(k.Name, "_pct"):
				gauge(c.cpu, k.Value, strings.TrimSuffix(k.Name, "_pct"))
			case k.Source == observe.SourceOSDisk && k.Name == "mbps":
				gauge(c.disk, k.Value*1e6)
			case k.Source == observe.SourceOSMem && k.Name == "used":
				gauge(c.mem, k.Value)
			case k.Kind == observe.Delta && exportedCounters[k.Source][k.Name] && s.Length > 0:
				gauge(c.counter, k.Value/s.Length.Seconds(), k.Source, k.Name)
			}
		}
	}
}
