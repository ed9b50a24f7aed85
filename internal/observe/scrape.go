package observe

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"mime"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/sledge-bench/sledge/internal/db"
)

// ScrapeTimeout bounds one scrape of an exporter: a Cut waits for it, and
// the job's intervals must not stretch because a remote host is slow.
const ScrapeTimeout = 2 * time.Second

// maxExposition bounds what one scrape reads. A node_exporter's page is
// some hundreds of kilobytes; anything far larger is not one.
const maxExposition = 16 << 20

// scrape observes a remote host's operating system through the Prometheus
// text exposition of its node_exporter (Debian: prometheus-node-exporter),
// fetched at Start and at every Cut. The exporter's series are the same
// kernel counters the host observer reads from /proc, so they are mapped
// onto the same readings and turned into the same counters (hostCounters),
// under the same sources and names: downstream, a scraped host and a local
// one look alike.
//
// Only node_exporter's series are mapped. A postgres_exporter's or
// mysqld_exporter's figures come from the server itself, which the
// database observers (NewPostgres, NewMySQL) already read on their own
// connection, more often and with more detail.
type scrape struct {
	name   string
	url    string // as given; shown in gaps and notes
	client *http.Client

	mu      sync.Mutex
	ctx     context.Context // from Start; cancelled by Close
	cancel  context.CancelFunc
	started bool
	prev    hostReading
	last    time.Duration
	cost    Cost
}

// NewScrape returns an observer of the host whose node_exporter serves
// rawURL (http or https), e.g. http://db1:9100/metrics. name is what the
// caller calls the machine, e.g. "database host".
func NewScrape(name, rawURL string) Observer {
	return &scrape{name: name, url: rawURL, client: scrapeClient()}
}

// scrapeClient is an HTTP client for exporters: no proxy from the
// environment (an exporter is on the database's network, which a proxy
// for the internet would not reach, or would reach in the wrong place),
// no redirects (an exporter does not redirect its metrics page; following
// one could lead anywhere) and a timeout per scrape.
func scrapeClient() *http.Client {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.Proxy = nil
	return &http.Client{
		Transport: tr,
		Timeout:   ScrapeTimeout,
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			return fmt.Errorf("redirected to %s: an exporter's metrics page does not redirect", db.Redact(req.URL.String()))
		},
	}
}

// CheckScrapeURL reports whether rawURL can be scraped: an absolute http
// or https URL with a host.
func CheckScrapeURL(rawURL string) error {
	u, err := db.ParseURL(rawURL)
	if err != nil {
		return errors.Unwrap(err) // callers show the URL, redacted
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return fmt.Errorf("want an http or https URL, not %q", u.Scheme+":")
	}
	if u.Host == "" {
		return errors.New("the URL has no host")
	}
	return nil
}

func (s *scrape) Name() string { return s.name }

// shown is the URL without its password, for notes and gaps.
func (s *scrape) shown() string {
	return db.Redact(s.url)
}

// Start scrapes once for the baseline. An exporter that cannot be reached,
// or that serves none of node_exporter's series, is an error: nothing can
// be observed. A section missing (a collector turned off) is a note.
func (s *scrape) Start(ctx context.Context) (Start, error) {
	if err := CheckScrapeURL(s.url); err != nil {
		return Start{}, fmt.Errorf("scrape URL %s: %w", s.shown(), err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cancel != nil {
		s.cancel()
	}
	s.ctx, s.cancel = context.WithCancel(ctx)
	fams, err := s.fetch()
	if err != nil {
		s.cancel() // a failed Start is not closed by its caller
		return Start{}, fmt.Errorf("scrape of %s failed: %w", s.shown(), err)
	}
	r := nodeReading(fams)
	if r.cpu == nil && r.mem == nil && r.net == nil && r.disk == nil {
		s.cancel()
		return Start{}, fmt.Errorf("%s serves none of node_exporter's series (node_cpu_seconds_total, node_memory_MemTotal_bytes …): only a node_exporter can be scraped", s.shown())
	}
	s.prev, s.last, s.started = r, 0, true
	st := describeNode(fams, r, s.shown())
	for _, err := range []error{r.cpuErr, r.memErr, r.netErr, r.diskErr} {
		if err != nil {
			st.Notes = append(st.Notes, err.Error())
		}
	}
	return st, nil
}

// Cut scrapes again and returns the changes since the previous scrape. A
// failed scrape leaves the interval without counters and says why in Gap;
// the next good scrape is a new baseline (its interval's deltas are left
// out, as the host observer does after a failed read).
func (s *scrape) Cut(elapsed time.Duration) Snapshot {
	s.mu.Lock()
	defer s.mu.Unlock()
	snap := Snapshot{Elapsed: elapsed, Length: elapsed - s.last}
	if !s.started {
		snap.Gap = s.name + ": not started"
		return snap
	}
	s.last = elapsed
	fams, err := s.fetch()
	if err != nil {
		snap.Gap = fmt.Sprintf("scrape of %s failed: %v", s.shown(), err)
		s.prev = hostReading{} // no baseline for the next interval
		return snap
	}
	cur := nodeReading(fams)
	snap.Counters, snap.Gap = hostCounters(s.prev, cur, snap.Length)
	s.prev = cur
	return snap
}

func (s *scrape) Close() Cost {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.started = false
	if s.cancel != nil {
		s.cancel()
	}
	return s.cost
}

// fetch GETs the exposition and parses it, counting it in the observer's
// cost as a query. Under s.mu.
func (s *scrape) fetch() (map[string]*dto.MetricFamily, error) {
	start := time.Now()
	defer func() {
		s.cost.Queries++
		s.cost.QueryTime += time.Since(start)
	}()
	ctx, cancel := context.WithTimeout(s.ctx, ScrapeTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.url, nil)
	if err != nil {
		return nil, err
	}
	// The text format, not OpenMetrics or protobuf: it is what expfmt's
	// text parser reads, and every exporter serves it.
	req.Header.Set("Accept", "text/plain;version=0.0.4")
	resp, err := s.client.Do(req)
	if err != nil {
		return nil, unwrapURLError(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("HTTP %s", resp.Status)
	}
	if ct := resp.Header.Get("Content-Type"); ct != "" {
		if mt, _, err := mime.ParseMediaType(ct); err == nil && mt != "text/plain" {
			return nil, fmt.Errorf("served %s, not the Prometheus text format (text/plain)", mt)
		}
	}
	body := io.LimitReader(resp.Body, maxExposition+1)
	lr := &countingReader{r: body}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := parser.TextToMetricFamilies(lr)
	if lr.n > maxExposition {
		return nil, fmt.Errorf("the page is larger than %d bytes: not a node_exporter's", maxExposition)
	}
	if err != nil {
		return nil, fmt.Errorf("parsing the exposition: %w", err)
	}
	return fams, nil
}

// unwrapURLError drops the *url.Error's "Get "URL": " prefix: the gap
// already names the URL (without its password, which the prefix might
// show).
func unwrapURLError(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		if ue.Timeout() {
			return fmt.Errorf("no answer within %s: %w", ScrapeTimeout, ue.Err)
		}
		return ue.Err
	}
	return err
}

type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// --- node_exporter's series onto the host observer's readings ---

// toCount is an exporter's counter value as the kernel's integer count:
// the exporter's floats are those integers (or ms ÷ 1000, sectors × 512)
// to begin with. A negative or non-finite value counts as 0.
func toCount(v float64) uint64 {
	if !(v > 0) || math.IsInf(v, 1) {
		return 0
	}
	return uint64(math.Round(v))
}

// sample is one series of a family: its labels and value.
type sample struct {
	labels map[string]string
	value  float64
}

// samples are a family's series (nil when the family is absent), whatever
// their type: node_exporter declares counters and gauges, an untyped
// series carries the same number.
func samples(fams map[string]*dto.MetricFamily, name string) []sample {
	f, ok := fams[name]
	if !ok {
		return nil
	}
	out := make([]sample, 0, len(f.GetMetric()))
	for _, m := range f.GetMetric() {
		var v float64
		switch {
		case m.Counter != nil:
			v = m.GetCounter().GetValue()
		case m.Gauge != nil:
			v = m.GetGauge().GetValue()
		case m.Untyped != nil:
			v = m.GetUntyped().GetValue()
		default:
			continue // summaries and histograms: node_exporter's are not used
		}
		l := make(map[string]string, len(m.GetLabel()))
		for _, lp := range m.GetLabel() {
			l[lp.GetName()] = lp.GetValue()
		}
		out = append(out, sample{labels: l, value: v})
	}
	return out
}

// nodeReading maps an exposition onto a hostReading: a section is nil with
// its reason when the exporter lacks its series (that collector is off).
func nodeReading(fams map[string]*dto.MetricFamily) hostReading {
	var r hostReading
	r.cpu, r.cpuErr = nodeCPU(fams)
	r.mem, r.memErr = nodeMem(fams)
	r.net, r.netErr = nodeNet(fams)
	r.disk, r.diskErr = nodeDisk(fams)
	return r
}

func missing(source, family string) error {
	return fmt.Errorf("%s: the exporter serves no %s (is its collector off?)", source, family)
}

// cpuScale turns node_cpu_seconds_total into integer microseconds, the
// "jiffies" of the reading: cpuCounters only takes shares of them, and a
// microsecond keeps the exporter's precision (it counts 1/100 s).
const cpuScale = 1e6

func nodeCPU(fams map[string]*dto.MetricFamily) (*cpuReading, error) {
	ss := samples(fams, "node_cpu_seconds_total")
	if len(ss) == 0 {
		return nil, missing(SourceOSCPU, "node_cpu_seconds_total")
	}
	// Summed over CPUs in seconds first, then rounded once.
	sum := map[string]float64{}
	cpus := map[string]bool{}
	for _, s := range ss {
		cpus[s.labels["cpu"]] = true
		sum[s.labels["mode"]] += s.value
	}
	c := func(mode string) uint64 { return toCount(sum[mode] * cpuScale) }
	// Guest time is already counted in user and nice, as in /proc/stat.
	return &cpuReading{
		user: c("user"), nice: c("nice"), system: c("system"), idle: c("idle"),
		iowait: c("iowait"), irq: c("irq"), softirq: c("softirq"), steal: c("steal"),
		cpus: len(cpus),
	}, nil
}

// gauge is the value of a family's first series, and whether there was one.
func gauge(fams map[string]*dto.MetricFamily, name string) (float64, bool) {
	ss := samples(fams, name)
	if len(ss) == 0 {
		return 0, false
	}
	return ss[0].value, true
}

func nodeMem(fams map[string]*dto.MetricFamily) (*memReading, error) {
	total, ok := gauge(fams, "node_memory_MemTotal_bytes")
	if !ok {
		return nil, missing(SourceOSMem, "node_memory_MemTotal_bytes")
	}
	g := func(name string) uint64 { v, _ := gauge(fams, name); return toCount(v) }
	m := &memReading{
		total: toCount(total), cached: g("node_memory_Cached_bytes"),
		swapTotal: g("node_memory_SwapTotal_bytes"), swapFree: g("node_memory_SwapFree_bytes"),
	}
	if avail, ok := gauge(fams, "node_memory_MemAvailable_bytes"); ok {
		m.available = toCount(avail)
	} else {
		// Kernels before 3.14: the host observer's estimate.
		m.available = g("node_memory_MemFree_bytes") + g("node_memory_Buffers_bytes") + m.cached
	}
	return m, nil
}

// nodeNet is every device but lo, as parseNetDev reads /proc/net/dev.
func nodeNet(fams map[string]*dto.MetricFamily) (map[string]netStat, error) {
	rxB := samples(fams, "node_network_receive_bytes_total")
	if len(rxB) == 0 {
		return nil, missing(SourceOSNet, "node_network_receive_bytes_total")
	}
	m := map[string]netStat{}
	add := func(family string, set func(*netStat, uint64)) {
		for _, s := range samples(fams, family) {
			dev := s.labels["device"]
			if dev == "" || dev == "lo" {
				continue
			}
			st := m[dev]
			set(&st, toCount(s.value))
			m[dev] = st
		}
	}
	add("node_network_receive_bytes_total", func(n *netStat, v uint64) { n.rxBytes = v })
	add("node_network_receive_packets_total", func(n *netStat, v uint64) { n.rxPackets = v })
	add("node_network_transmit_bytes_total", func(n *netStat, v uint64) { n.txBytes = v })
	add("node_network_transmit_packets_total", func(n *netStat, v uint64) { n.txPackets = v })
	return m, nil
}

// nodeDisk is the devices whose I/O is summed, picked as the host observer
// picks them from /proc/diskstats (countedDisks): node_exporter's device
// labels are the kernel's names.
func nodeDisk(fams map[string]*dto.MetricFamily) (map[string]diskStat, error) {
	if len(samples(fams, "node_disk_reads_completed_total")) == 0 {
		return nil, missing(SourceOSDisk, "node_disk_reads_completed_total")
	}
	all := map[string]diskStat{}
	add := func(family string, set func(*diskStat, float64)) {
		for _, s := range samples(fams, family) {
			dev := s.labels["device"]
			if dev == "" {
				continue
			}
			st := all[dev]
			set(&st, s.value)
			all[dev] = st
		}
	}
	add("node_disk_reads_completed_total", func(d *diskStat, v float64) { d.reads = toCount(v) })
	add("node_disk_writes_completed_total", func(d *diskStat, v float64) { d.writes = toCount(v) })
	// The exporter's bytes are the kernel's 512-byte sectors × 512, and its
	// seconds the kernel's milliseconds ÷ 1000: back to the kernel's units.
	add("node_disk_read_bytes_total", func(d *diskStat, v float64) { d.sectorsRead = toCount(v / sectorSize) })
	add("node_disk_written_bytes_total", func(d *diskStat, v float64) { d.sectorsWritten = toCount(v / sectorSize) })
	add("node_disk_io_time_seconds_total", func(d *diskStat, v float64) { d.ioMs = toCount(v * 1000) })
	names := make([]string, 0, len(all))
	for name := range all {
		names = append(names, name)
	}
	disks := map[string]diskStat{}
	for _, name := range countedDisks(names) {
		disks[name] = all[name]
	}
	return disks, nil
}

// describeNode says which machine the exporter runs on, as the host
// observer describes its own: "nodename (Linux release)" from
// node_uname_info, else the URL's host.
func describeNode(fams map[string]*dto.MetricFamily, r hostReading, shown string) Start {
	var st Start
	if ss := samples(fams, "node_uname_info"); len(ss) > 0 {
		l := ss[0].labels
		st.Server = l["nodename"]
		if rel := l["release"]; rel != "" {
			st.Server = strings.TrimSpace(st.Server + " (" + orDefault(l["sysname"], "Linux") + " " + rel + ")")
		}
	}
	if st.Server == "" {
		if u, err := url.Parse(shown); err == nil {
			st.Server = u.Hostname()
		}
	}
	boot, okBoot := gauge(fams, "node_boot_time_seconds")
	now, okNow := gauge(fams, "node_time_seconds")
	if okBoot && okNow && now > boot {
		st.Uptime = time.Duration((now - boot) * float64(time.Second))
	}
	// node_cpu_info is off by default (--collector.cpu.info).
	if ss := samples(fams, "node_cpu_info"); len(ss) > 0 {
		models := map[string]bool{}
		for _, s := range ss {
			if m := s.labels["model_name"]; m != "" {
				models[m] = true
			}
		}
		if len(models) > 0 {
			list := make([]string, 0, len(models))
			for m := range models {
				list = append(list, m)
			}
			sort.Strings(list)
			st.Settings = append(st.Settings, Setting{Name: "cpu_model", Value: list[0]})
		}
	}
	if r.cpu != nil {
		st.Settings = append(st.Settings, Setting{Name: "cpus", Value: strconv.Itoa(r.cpu.cpus)})
	}
	if r.mem != nil {
		st.Settings = append(st.Settings, Setting{Name: "mem_total", Value: strconv.FormatUint(r.mem.total, 10) + " bytes"})
	}
	return st
}

// orDefault is v, or def when v is empty.
func orDefault(v, def string) string {
	if v == "" {
		return def
	}
	return v
}
