package observe

import (
	"context"
	"fmt"
	"math"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	osexec "os/exec"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sledge-bench/sledge/internal/testdb"
)

// nodeCPUSeconds is one CPU's node_cpu_seconds_total by mode.
type nodeCPUSeconds struct {
	user, nice, system, idle, iowait, irq, softirq, steal float64
}

// nodeDev is one device's counters as node_exporter shows them.
type nodeDev struct {
	name                                   string
	reads, readBytes, writes, writtenB, io float64 // disks: io in seconds
}

// nodeNIC is one interface's counters.
type nodeNIC struct {
	name                               string
	rxBytes, rxPackets, txBytes, txPkt float64
}

// nodePage is one state of a fixture node_exporter.
type nodePage struct {
	cpus  []nodeCPUSeconds
	mem   map[string]float64 // node_memory_<name>_bytes
	nics  []nodeNIC
	disks []nodeDev
}

// text is the page in the Prometheus text format, with the HELP and TYPE
// lines node_exporter writes and series the observer must ignore.
func (p nodePage) text() string {
	var b strings.Builder
	b.WriteString("# HELP node_boot_time_seconds Node boot time, in unixtime.\n# TYPE node_boot_time_seconds gauge\nnode_boot_time_seconds 1.7e+09\n")
	b.WriteString("# HELP node_time_seconds System time in seconds since epoch (1970).\n# TYPE node_time_seconds gauge\nnode_time_seconds 1.7000036005e+09\n")
	b.WriteString("# HELP node_uname_info Labeled system information as provided by the uname system call.\n# TYPE node_uname_info gauge\n")
	b.WriteString(`node_uname_info{domainname="(none)",machine="x86_64",nodename="db1",release="6.1.0-test",sysname="Linux",version="#1 SMP"} 1` + "\n")
	if len(p.cpus) > 0 {
		b.WriteString("# HELP node_cpu_seconds_total Seconds the CPUs spent in each mode.\n# TYPE node_cpu_seconds_total counter\n")
		for i, c := range p.cpus {
			for _, m := range []struct {
				mode string
				v    float64
			}{{"idle", c.idle}, {"iowait", c.iowait}, {"irq", c.irq}, {"nice", c.nice}, {"softirq", c.softirq}, {"steal", c.steal}, {"system", c.system}, {"user", c.user}} {
				fmt.Fprintf(&b, "node_cpu_seconds_total{cpu=\"%d\",mode=\"%s\"} %g\n", i, m.mode, m.v)
			}
		}
		b.WriteString("# HELP node_cpu_guest_seconds_total Seconds the CPUs spent in guests.\n# TYPE node_cpu_guest_seconds_total counter\n")
		b.WriteString("node_cpu_guest_seconds_total{cpu=\"0\",mode=\"nice\"} 99999\n")
	}
	names := make([]string, 0, len(p.mem))
	for n := range p.mem {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		fmt.Fprintf(&b, "# HELP node_memory_%[1]s_bytes Memory information field %[1]s_bytes.\n# TYPE node_memory_%[1]s_bytes gauge\nnode_memory_%[1]s_bytes %[2]g\n", n, p.mem[n])
	}
	nic := func(family string, v func(nodeNIC) float64) {
		fmt.Fprintf(&b, "# HELP %s Network device statistic.\n# TYPE %s counter\n", family, family)
		for _, n := range p.nics {
			fmt.Fprintf(&b, "%s{device=%q} %g\n", family, n.name, v(n))
		}
	}
	if len(p.nics) > 0 {
		nic("node_network_receive_bytes_total", func(n nodeNIC) float64 { return n.rxBytes })
		nic("node_network_receive_packets_total", func(n nodeNIC) float64 { return n.rxPackets })
		nic("node_network_receive_errs_total", func(n nodeNIC) float64 { return 3 })
		nic("node_network_transmit_bytes_total", func(n nodeNIC) float64 { return n.txBytes })
		nic("node_network_transmit_packets_total", func(n nodeNIC) float64 { return n.txPkt })
	}
	disk := func(family string, v func(nodeDev) float64) {
		fmt.Fprintf(&b, "# HELP %s Disk statistic.\n# TYPE %s counter\n", family, family)
		for _, d := range p.disks {
			fmt.Fprintf(&b, "%s{device=%q} %g\n", family, d.name, v(d))
		}
	}
	if len(p.disks) > 0 {
		disk("node_disk_reads_completed_total", func(d nodeDev) float64 { return d.reads })
		disk("node_disk_reads_merged_total", func(d nodeDev) float64 { return 7 })
		disk("node_disk_read_bytes_total", func(d nodeDev) float64 { return d.readBytes })
		disk("node_disk_writes_completed_total", func(d nodeDev) float64 { return d.writes })
		disk("node_disk_written_bytes_total", func(d nodeDev) float64 { return d.writtenB })
		disk("node_disk_io_time_seconds_total", func(d nodeDev) float64 { return d.io })
	}
	return b.String()
}

// The two pages hold host_test's procBefore and procAfter in
// node_exporter's units (CPU seconds = jiffies ÷ 100, bytes = kB × 1024 or
// sectors × 512, seconds = ms ÷ 1000): the observer must find the same
// counters in them as the host observer finds in /proc.
const kiB = 1024

func disksPage(sda, nvme [5]float64) []nodeDev {
	dev := func(name string, v [5]float64) nodeDev {
		return nodeDev{name, v[0], v[1] * sectorSize, v[2], v[3] * sectorSize, v[4] / 1000}
	}
	return []nodeDev{
		dev("loop0", [5]float64{5000, 50000, 5000, 50000, 5000}),
		dev("sda", sda), dev("sda1", sda),
		dev("nvme0n1", nvme), dev("nvme0n1p1", nvme),
		dev("dm-0", [5]float64{9999, 99999, 9999, 99999, 9999}),
	}
}

var (
	nodeBefore = nodePage{
		cpus: []nodeCPUSeconds{
			{5, 0.5, 2.5, 40, 1, 0.25, 0.25, 0.5},
			{5, 0.5, 2.5, 40, 1, 0.25, 0.25, 0.5},
			{}, {},
		},
		mem: map[string]float64{"MemTotal": 16000000 * kiB, "MemFree": 1000000 * kiB, "MemAvailable": 7000000 * kiB,
			"Cached": 2000000 * kiB, "SwapTotal": 2000000 * kiB, "SwapFree": 2000000 * kiB},
		nics:  []nodeNIC{{"lo", 1e9, 1e6, 1e9, 1e6}, {"eth0", 1000, 10, 2000, 20}, {"eth1", 500, 5, 0, 0}},
		disks: disksPage([5]float64{100, 1000, 200, 4000, 300}, [5]float64{}),
	}
	nodeAfter = nodePage{
		cpus: []nodeCPUSeconds{
			{6.5, 1, 3.5, 41, 1.5, 0.4, 0.35, 0.75},
			{6.5, 1, 3.5, 41, 1.5, 0.4, 0.35, 0.75},
			{}, {},
		},
		mem: map[string]float64{"MemTotal": 16000000 * kiB, "MemFree": 1000000 * kiB, "MemAvailable": 6000000 * kiB,
			"Cached": 3000000 * kiB, "SwapTotal": 2000000 * kiB, "SwapFree": 1500000 * kiB},
		nics:  []nodeNIC{{"lo", 9e9, 9e6, 9e9, 9e6}, {"eth0", 11000, 110, 7000, 70}, {"eth1", 5500, 55, 1000, 10}},
		disks: disksPage([5]float64{600, 11000, 1200, 24000, 2300}, [5]float64{400, 9000, 800, 16000, 700}),
	}
)

// exporter is a fixture node_exporter whose page the test changes.
type exporter struct {
	*httptest.Server
	mu     sync.Mutex
	page   string
	status int
}

func newExporter(t *testing.T, p nodePage) *exporter {
	t.Helper()
	e := &exporter{page: p.text(), status: http.StatusOK}
	e.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		e.mu.Lock()
		defer e.mu.Unlock()
		if r.URL.Path != "/metrics" {
			http.NotFound(w, r)
			return
		}
		if e.status != http.StatusOK {
			http.Error(w, "exporter broken", e.status)
			return
		}
		w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
		fmt.Fprint(w, e.page)
	}))
	t.Cleanup(e.Close)
	return e
}

func (e *exporter) set(p nodePage, status int) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.page, e.status = p.text(), status
}

// sameCounters fails unless got and want hold the same counters.
func sameCounters(t *testing.T, what string, got, want []Counter) {
	t.Helper()
	g, w := counterMap(t, got), counterMap(t, want)
	if len(g) != len(w) {
		t.Errorf("%s: %d counters, want %d: %v", what, len(g), len(w), got)
	}
	for key, wc := range w {
		gc, ok := g[key]
		switch {
		case !ok:
			t.Errorf("%s: no counter %s", what, key)
		case gc.Kind != wc.Kind || gc.Unit != wc.Unit || math.Abs(gc.Value-wc.Value) > 1e-6*math.Max(1, math.Abs(wc.Value)):
			t.Errorf("%s: %s = %+v, want %+v", what, key, gc, wc)
		}
	}
}

func TestScrapeFixtureCountersMatchTheHostObserver(t *testing.T) {
	t.Parallel()
	e := newExporter(t, nodeBefore)
	o := NewScrape("database host", e.URL+"/metrics")
	if o.Name() != "database host" {
		t.Errorf("Name() = %q", o.Name())
	}
	st, err := o.Start(context.Background())
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	if want := "db1 (Linux 6.1.0-test)"; st.Server != want {
		t.Errorf("Server = %q, want %q", st.Server, want)
	}
	if want := 3600500 * time.Millisecond; st.Uptime != want {
		t.Errorf("Uptime = %v, want %v", st.Uptime, want)
	}
	wantSettings := []Setting{{Name: "cpus", Value: "4"}, {Name: "mem_total", Value: "16384000000 bytes"}}
	if !slices.Equal(st.Settings, wantSettings) {
		t.Errorf("Settings = %v, want %v", st.Settings, wantSettings)
	}
	if len(st.Notes) != 0 {
		t.Errorf("Notes = %v, want none", st.Notes)
	}

	// The host observer on the same figures in /proc's shape.
	root := t.TempDir()
	writeProc(t, root, procBefore)
	h := NewHost("client host", HostOptions{ProcRoot: root})
	if _, err := h.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer h.Close()

	e.set(nodeAfter, http.StatusOK)
	writeProc(t, root, procAfter)
	snap, hsnap := o.Cut(10*time.Second), h.Cut(10*time.Second)
	if snap.Gap != "" {
		t.Errorf("Gap = %q", snap.Gap)
	}
	if snap.Elapsed != 10*time.Second || snap.Length != 10*time.Second {
		t.Errorf("Elapsed, Length = %v, %v; want 10s, 10s", snap.Elapsed, snap.Length)
	}
	sameCounters(t, "scraped vs /proc", snap.Counters, hsnap.Counters)

	// And the figures themselves, that the comparison cannot hide.
	got := counterMap(t, snap.Counters)
	for _, w := range []Counter{
		{SourceOSCPU, "user_pct", Gauge, "%", 40},
		{SourceOSCPU, "sys_pct", Gauge, "%", 20},
		{SourceOSCPU, "iowait_pct", Gauge, "%", 10},
		{SourceOSCPU, "irq_pct", Gauge, "%", 5},
		{SourceOSCPU, "steal_pct", Gauge, "%", 5},
		{SourceOSCPU, "idle_pct", Gauge, "%", 20},
		{SourceOSCPU, "cpus", Gauge, "", 4},
		{SourceOSMem, "used", Gauge, "bytes", 10000000 * kiB},
		{SourceOSMem, "swap_used", Gauge, "bytes", 500000 * kiB},
		{SourceOSNet, "rx_bytes", Delta, "bytes", 15000},
		{SourceOSNet, "tx_packets", Delta, "packets", 60},
		{SourceOSNet, "rx_bytes_per_s", Gauge, "bytes/s", 1500},
		{SourceOSDisk, "reads", Delta, "", 900},
		{SourceOSDisk, "write_bytes", Delta, "bytes", 36000 * 512},
		{SourceOSDisk, "io_ms", Delta, "ms", 2700},
		{SourceOSDisk, "iops", Gauge, "1/s", 270},
		{SourceOSDisk, "mbps", Gauge, "MB/s", 2.816},
	} {
		g := got[w.Source+"/"+w.Name]
		if g.Kind != w.Kind || g.Unit != w.Unit || math.Abs(g.Value-w.Value) > 1e-9 {
			t.Errorf("%s/%s = %+v, want %+v", w.Source, w.Name, g, w)
		}
	}

	// Nothing changed: the next interval's deltas are 0.
	snap = o.Cut(15 * time.Second)
	if snap.Length != 5*time.Second || snap.Gap != "" {
		t.Errorf("second interval: Length %v, Gap %q", snap.Length, snap.Gap)
	}
	if v := counterMap(t, snap.Counters)[SourceOSDisk+"/reads"].Value; v != 0 {
		t.Errorf("second interval reads = %v, want 0", v)
	}

	cost := o.Close()
	if cost.Queries != 3 || cost.QueryTime <= 0 {
		t.Errorf("Cost = %+v, want 3 queries (Start and two Cuts) and their time", cost)
	}
}

func TestScrapeGapThenRecovery(t *testing.T) {
	t.Parallel()
	e := newExporter(t, nodeBefore)
	o := NewScrape("database host", strings.Replace(e.URL, "http://", "http://sledge:s3cret@", 1)+"/metrics")
	if _, err := o.Start(context.Background()); err != nil {
		t.Fatalf("Start: %v", err)
	}
	defer o.Close()

	e.set(nodeAfter, http.StatusInternalServerError)
	snap := o.Cut(10 * time.Second)
	for _, want := range []string{"scrape of http://sledge:xxxxx@", "failed", "500"} {
		if !strings.Contains(snap.Gap, want) {
			t.Errorf("Gap = %q, want it to say %q", snap.Gap, want)
		}
	}
	if strings.Contains(snap.Gap, "s3cret") {
		t.Errorf("Gap shows the password: %q", snap.Gap)
	}
	if len(snap.Counters) != 0 {
		t.Errorf("counters from a failed scrape: %v", snap.Counters)
	}

	// Back: a new baseline. Gauges count at once, deltas from the next.
	e.set(nodeAfter, http.StatusOK)
	snap = o.Cut(20 * time.Second)
	if !strings.Contains(snap.Gap, "no baseline") {
		t.Errorf("Gap = %q, want no baseline", snap.Gap)
	}
	got := counterMap(t, snap.Counters)
	if _, ok := got[SourceOSDisk+"/reads"]; ok {
		t.Errorf("disk deltas across a failed scrape: %v", snap.Counters)
	}
	if got[SourceOSMem+"/total"].Value != 16000000*kiB {
		t.Errorf("memory total = %v after recovery", got[SourceOSMem+"/total"].Value)
	}
	snap = o.Cut(30 * time.Second)
	if snap.Gap != "" || snap.Length != 10*time.Second {
		t.Errorf("after recovery: Gap %q, Length %v", snap.Gap, snap.Length)
	}
	if _, ok := counterMap(t, snap.Counters)[SourceOSDisk+"/reads"]; !ok {
		t.Errorf("no disk deltas once recovered: %v", snap.Counters)
	}
}

func TestScrapeStartFailures(t *testing.T) {
	t.Parallel()
	e := newExporter(t, nodeBefore)
	notNode := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; version=0.0.4")
		fmt.Fprint(w, "# TYPE pg_up gauge\npg_up 1\n")
	}))
	defer notNode.Close()
	html := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, "<html>node exporter</html>")
	}))
	defer html.Close()
	redirect := httptest.NewServer(http.RedirectHandler(e.URL+"/metrics", http.StatusFound))
	defer redirect.Close()
	// A port nothing listens on.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + l.Addr().String() + "/metrics"
	l.Close()

	for _, tc := range []struct{ name, url, want string }{
		{"not http", "ftp://db1/metrics", "http or https"},
		{"no host", "http:///metrics", "no host"},
		{"refused", closed, "scrape of " + closed + " failed"},
		{"404", e.URL + "/nope", "404"},
		{"not node_exporter", notNode.URL, "none of node_exporter's series"},
		{"html", html.URL, "text/html"},
		{"redirect", redirect.URL, "redirect"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := NewScrape("database host", tc.url)
			defer o.Close()
			_, err := o.Start(context.Background())
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Start: %v, want an error saying %q", err, tc.want)
			}
			if snap := o.Cut(time.Second); snap.Gap == "" {
				t.Errorf("Cut after a failed Start has no gap")
			}
		})
	}
}

func TestScrapeMissingCollector(t *testing.T) {
	t.Parallel()
	noDisk := nodeBefore
	noDisk.disks = nil
	e := newExporter(t, noDisk)
	o := NewScrape("database host", e.URL+"/metrics")
	st, err := o.Start(context.Background())
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	defer o.Close()
	if len(st.Notes) != 1 || !strings.Contains(st.Notes[0], "node_disk_reads_completed_total") {
		t.Errorf("Notes = %q, want one naming the missing disk series", st.Notes)
	}
	snap := o.Cut(time.Second)
	if !strings.Contains(snap.Gap, SourceOSDisk) {
		t.Errorf("Gap = %q, want it to name %s", snap.Gap, SourceOSDisk)
	}
	if _, ok := counterMap(t, snap.Counters)[SourceOSCPU+"/cpus"]; !ok {
		t.Errorf("CPU counters missing with only the disks off: %v", snap.Counters)
	}
}

func TestCheckScrapeURL(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		url string
		ok  bool
	}{
		{"http://db1:9100/metrics", true},
		{"https://db1/metrics", true},
		{"HTTP://db1:9100/metrics", true},
		{"db1:9100", false},
		{"file:///etc/passwd", false},
		{"/metrics", false},
		{"http://", false},
		{"gopher://db1", false},
	} {
		if err := CheckScrapeURL(tc.url); (err == nil) != tc.ok {
			t.Errorf("CheckScrapeURL(%q) = %v, want ok %v", tc.url, err, tc.ok)
		}
	}
}

// TestScrapeRealNodeExporter scrapes Debian's prometheus-node-exporter on
// this machine.
func TestScrapeRealNodeExporter(t *testing.T) {
	t.Parallel()
	bin := testdb.Command(t, "prometheus-node-exporter", "prometheus-node-exporter")
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	cmd := osexec.Command(bin, "--web.listen-address="+addr)
	testdb.DieWithTest(cmd)
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	url := "http://" + addr + "/metrics"
	deadline := time.Now().Add(15 * time.Second)
	for {
		resp, err := http.Get(url)
		if err == nil {
			resp.Body.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("node_exporter did not answer on %s: %v\n%s", addr, err, out.String())
		}
		time.Sleep(100 * time.Millisecond)
	}

	o := NewScrape("database host", url)
	st, err := o.Start(context.Background())
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	defer o.Close()
	host, _ := os.Hostname()
	if !strings.HasPrefix(st.Server, host) {
		t.Errorf("Server = %q, want this host, %q", st.Server, host)
	}
	time.Sleep(1500 * time.Millisecond)
	snap := o.Cut(1500 * time.Millisecond)
	if strings.Contains(snap.Gap, "scrape") {
		t.Fatalf("Gap = %q", snap.Gap)
	}
	got := counterMap(t, snap.Counters)
	var sum float64
	for _, n := range []string{"user_pct", "sys_pct", "iowait_pct", "irq_pct", "steal_pct", "idle_pct"} {
		c, ok := got[SourceOSCPU+"/"+n]
		if !ok {
			t.Errorf("no %s/%s in %v", SourceOSCPU, n, snap.Counters)
		}
		sum += c.Value
	}
	if math.Abs(sum-100) > 0.01 {
		t.Errorf("CPU shares add up to %g, want 100", sum)
	}
	if got[SourceOSCPU+"/cpus"].Value < 1 {
		t.Errorf("cpus = %v", got[SourceOSCPU+"/cpus"].Value)
	}
	if got[SourceOSMem+"/total"].Value <= 0 {
		t.Errorf("memory total = %v", got[SourceOSMem+"/total"].Value)
	}
	if _, ok := got[SourceOSNet+"/rx_bytes"]; !ok {
		t.Errorf("no network counters: %v (gap %q)", snap.Counters, snap.Gap)
	}
	t.Logf("%s: %d counters, gap %q", st.Server, len(snap.Counters), snap.Gap)
}
