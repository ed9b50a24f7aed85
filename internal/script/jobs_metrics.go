package script

// A job's server/OS metrics and client machine: `jobs ID metrics` (from a
// MetricsRepository, or from the host observer's samples: ObservedSamples)
// and `jobs ID system`.

import (
	"context"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/sledge-bench/sledge/internal/jobs"
	"github.com/sledge-bench/sledge/internal/observe"
)

// MetricSample is one server/OS sample of a job as HammerDB's metrics agent
// records it: CPU shares in percent, I/O operations and megabytes per second.
type MetricSample struct {
	At                  time.Time
	Usr, Sys, Irq, Idle float64
	IOPS, MBps          float64
}

// MetricsRepository is a Repository that keeps server/OS metric samples of
// its jobs in HammerDB's terms; jobs ID metrics answers from them in
// HammerDB's metrics shape.
type MetricsRepository interface {
	Metrics(ctx context.Context, id int64) ([]MetricSample, error)
}

// ObservationRepository is a Repository that keeps what the observers saw
// during a run, as Sledge's does: jobs ID metrics answers from its host
// observer's counters (see ObservedSamples) when the repository is not a
// MetricsRepository.
type ObservationRepository interface {
	Observations(ctx context.Context, id int64) ([]jobs.Observation, error)
}

var _ ObservationRepository = (*jobs.Repo)(nil)

const (
	noMetrics    = "Jobid has no metric data"
	noSystemData = "Jobid has no system data"
)

// metrics is `jobs ID metrics`: the server's CPU and I/O samples by time,
// when the repository keeps them.
func (r *run) metrics(j jobs.Job) error {
	o, err := r.metricsObject(j)
	if err != nil {
		return err
	}
	if o == nil {
		r.showNoData(j, noMetrics)
		return nil
	}
	r.show(o, false)
	return nil
}

// metricsObject is HammerDB's metrics shape (time → usr% sys% irq% idle%
// iops mbps, the first sample of a second kept); nil without samples.
func (r *run) metricsObject(j jobs.Job) (object, error) {
	samples, err := r.metricSamples(j)
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	var o object
	for _, m := range samples {
		at := r.clock(m.At)
		if seen[at] {
			continue
		}
		seen[at] = true
		o.add(at, object{{"usr%", number(m.Usr, 2)}, {"sys%", number(m.Sys, 2)}, {"irq%", number(m.Irq, 2)},
			{"idle%", number(m.Idle, 2)}, {"iops", number(m.IOPS, 2)}, {"mbps", number(m.MBps, 2)}})
	}
	return o, nil
}

// metricSamples are job j's server/OS samples: the repository's own
// (MetricsRepository), or its host observer's intervals; none when it
// keeps neither.
func (r *run) metricSamples(j jobs.Job) ([]MetricSample, error) {
	switch repo := r.Repo.(type) {
	case MetricsRepository:
		samples, err := repo.Metrics(r.ctx, j.ID)
		if err != nil {
			return nil, fmt.Errorf("jobs: metrics of job %d: %w", j.ID, err)
		}
		return samples, nil
	case ObservationRepository:
		obs, err := repo.Observations(r.ctx, j.ID)
		if err != nil {
			return nil, fmt.Errorf("jobs: metrics of job %d: %w", j.ID, err)
		}
		return ObservedSamples(obs, jobStart(j)), nil
	}
	return nil, nil
}

// ObservedSamples are HammerDB's metric samples from a job's observations
// (start is when the job started): one per interval of a host observer
// (os.cpu user_pct, sys_pct, irq_pct, idle_pct; os.disk iops, mbps). The
// database's host is what HammerDB's metrics agent watches, so only an
// observer named for it ("database host", "client and database host")
// answers; a remote database's job has no metric data. An interval lacking any of the figures (the
// host could not be read) is left out, as HammerDB's agent leaves out a
// sample it did not take: a figure is never made up as 0.
func ObservedSamples(obs []jobs.Observation, start time.Time) []MetricSample {
	var host *jobs.Observation
	for i := range obs {
		if !observesHost(obs[i]) {
			continue
		}
		if host == nil || strings.Contains(obs[i].Name, "database") && !strings.Contains(host.Name, "database") {
			host = &obs[i]
		}
	}
	if host == nil || !strings.Contains(host.Name, "database") {
		// Only the client's host was observed (the database is elsewhere):
		// HammerDB's metrics are the database host's, so there are none.
		return nil
	}
	var out []MetricSample
	for _, s := range host.Intervals {
		v := map[string]float64{}
		for _, c := range s.Counters {
			if c.Source == observe.SourceOSCPU || c.Source == observe.SourceOSDisk {
				v[c.Source+"/"+c.Name] = c.Value
			}
		}
		fig := func(source, name string) (float64, bool) {
			x, ok := v[source+"/"+name]
			return x, ok && !math.IsNaN(x)
		}
		m := MetricSample{At: start.Add(s.Elapsed)}
		complete := true
		for _, f := range []struct {
			source, name string
			to           *float64
		}{
			{observe.SourceOSCPU, "user_pct", &m.Usr}, {observe.SourceOSCPU, "sys_pct", &m.Sys},
			{observe.SourceOSCPU, "irq_pct", &m.Irq}, {observe.SourceOSCPU, "idle_pct", &m.Idle},
			{observe.SourceOSDisk, "iops", &m.IOPS}, {observe.SourceOSDisk, "mbps", &m.MBps},
		} {
			x, ok := fig(f.source, f.name)
			complete = complete && ok
			*f.to = x
		}
		if complete {
			out = append(out, m)
		}
	}
	return out
}

// observesHost says whether an observer watched a host's operating system.
func observesHost(o jobs.Observation) bool {
	for _, s := range o.Intervals {
		for _, c := range s.Counters {
			if c.Source == observe.SourceOSCPU {
				return true
			}
		}
	}
	return false
}

// system is `jobs ID system`: the client machine, in HammerDB's keys.
func (r *run) system(j jobs.Job) error {
	o, err := r.systemObject(j)
	if err != nil {
		return err
	}
	r.show(o, false)
	return nil
}

// systemObject is the system data in HammerDB's keys and order, or
// {jobid, message} when there is none.
func (r *run) systemObject(j jobs.Job) (object, error) {
	sys, err := r.Repo.System(r.ctx, j.ID)
	if err != nil {
		return nil, err
	}
	if len(sys) == 0 {
		return object{{"jobid", idString(j.ID)}, {"message", noSystemData}}, nil
	}
	o := object{{"jobid", idString(j.ID)}}
	for _, k := range []struct{ hammer, sledge string }{
		{"hostname", "host"}, {"cpumodel", "cpu_model"}, {"cpucount", "cpus"},
		{"os_name", "os_name"}, {"memory", "memory"},
	} {
		if v := sys[k.sledge]; v != "" {
			o.add(k.hammer, v)
		}
	}
	var sw []string
	if v := sys["sledge_version"]; v != "" {
		sw = append(sw, "Sledge "+v)
	}
	if v := sys["go_version"]; v != "" {
		sw = append(sw, v)
	}
	if len(sw) > 0 {
		o.add("other_software", strings.Join(sw, ", "))
	}
	if v := sys["os"]; v != "" {
		o.add("extra", "platform "+v)
	}
	return o, nil
}
