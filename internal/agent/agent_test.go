package agent

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/sledge-bench/sledge/internal/observe"
)

// snapshot is the content of the /proc files the agent reads, by path
// under the fixture's root.
type snapshot map[string]string

const netDevHeader = `Inter-|   Receive                                                |  Transmit
 face |bytes    packets errs drop fifo frame compressed multicast|bytes    packets errs drop fifo colls carrier compressed
`

// Two reads of the same machine a while apart: every counter grew.
var (
	before = snapshot{
		"stat": `cpu  300 20 100 5000 50 5 10 3 0 0
cpu0 150 10 50 2500 25 2 5 1 0 0
cpu1 150 10 50 2500 25 3 5 2 0 0
intr 1000
ctxt 2000
btime 1700000000
processes 10
procs_running 1
procs_blocked 0
`,
		"meminfo": `MemTotal:       16000000 kB
MemFree:         1000000 kB
MemAvailable:    8000000 kB
Buffers:          100000 kB
Cached:          4000000 kB
SwapTotal:       2000000 kB
SwapFree:        1500000 kB
`,
		"net/dev": netDevHeader + `    lo:    1000      10    0    0    0     0          0         0     1000      10    0    0    0     0       0          0
  eth0:  500000    4000    0    0    0     0          0         0   250000    3000    0    0    0     0       0          0
`,
		"diskstats": `   8       0 sda 1000 10 20000 500 2000 20 40000 800 0 1200 1300 0 0 0 0 100 10
   8       1 sda1 900 5 18000 450 1800 15 36000 700 0 1100 1150 0 0 0 0 0 0
   7       0 loop0 50 0 400 5 0 0 0 0 0 4 5 0 0 0 0 0 0
`,
		"sys/kernel/hostname":  "db1\n",
		"sys/kernel/osrelease": "6.1.0-28-amd64\n",
	}
	after = snapshot{
		"stat": `cpu  700 20 300 5200 150 5 10 13 0 0
cpu0 350 10 150 2600 75 2 5 6 0 0
cpu1 350 10 150 2600 75 3 5 7 0 0
intr 2000
ctxt 4000
btime 1700000000
processes 20
procs_running 2
procs_blocked 0
`,
		"meminfo": `MemTotal:       16000000 kB
MemFree:          900000 kB
MemAvailable:    7000000 kB
Buffers:          100000 kB
Cached:          4500000 kB
SwapTotal:       2000000 kB
SwapFree:        1400000 kB
`,
		"net/dev": netDevHeader + `    lo:    3000      30    0    0    0     0          0         0     3000      30    0    0    0     0       0          0
  eth0:  900000    7000    0    0    0     0          0         0   650000    6000    0    0    0     0       0          0
`,
		"diskstats": `   8       0 sda 1600 10 26000 600 2500 20 50000 900 0 3700 3900 0 0 0 0 120 12
   8       1 sda1 1500 5 24000 550 2300 15 46000 800 0 3600 3700 0 0 0 0 0 0
   7       0 loop0 50 0 400 5 0 0 0 0 0 4 5 0 0 0 0 0 0
`,
		"sys/kernel/hostname":  "db1\n",
		"sys/kernel/osrelease": "6.1.0-28-amd64\n",
	}
)

// writeProc lays a snapshot out as a /proc tree and returns its root.
func writeProc(t *testing.T, root string, s snapshot) string {
	t.Helper()
	for name, content := range s {
		path := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// scrape GETs the handler and parses the answer as Prometheus does.
func scrape(t *testing.T, h http.Handler) map[string]*dto.MetricFamily {
	t.Helper()
	srv := httptest.NewServer(h)
	defer srv.Close()
	resp, err := http.Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET: %s: %s", resp.Status, body)
	}
	p := expfmt.NewTextParser(model.LegacyValidation)
	mfs, err := p.TextToMetricFamilies(strings.NewReader(string(body)))
	if err != nil {
		t.Fatalf("the exposition does not parse: %v\n%s", err, body)
	}
	return mfs
}

// value finds the sample of a family with exactly these labels.
func value(mfs map[string]*dto.MetricFamily, name string, labels map[string]string) (float64, bool) {
	mf, ok := mfs[name]
	if !ok {
		return 0, false
	}
	for _, m := range mf.GetMetric() {
		got := map[string]string{}
		for _, lp := range m.GetLabel() {
			got[lp.GetName()] = lp.GetValue()
		}
		if len(got) != len(labels) {
			continue
		}
		match := true
		for k, v := range labels {
			if got[k] != v {
				match = false
			}
		}
		if !match {
			continue
		}
		switch {
		case m.GetCounter() != nil:
			return m.GetCounter().GetValue(), true
		case m.GetGauge() != nil:
			return m.GetGauge().GetValue(), true
		case m.GetUntyped() != nil:
			return m.GetUntyped().GetValue(), true
		}
	}
	return 0, false
}

// TestHandlerServesEachRead: the handler reads /proc at every request, in
// node_exporter's names and units (seconds, bytes).
func TestHandlerServesEachRead(t *testing.T) {
	root := writeProc(t, t.TempDir(), before)
	h := Handler(root)
	type sample struct {
		name   string
		labels map[string]string
		want   float64
	}
	cpu := func(n, mode string) map[string]string { return map[string]string{"cpu": n, "mode": mode} }
	dev := func(d string) map[string]string { return map[string]string{"device": d} }
	for _, tc := range []struct {
		name    string
		snap    snapshot
		samples []sample
	}{
		{"before", before, []sample{
			{"node_cpu_seconds_total", cpu("0", "user"), 1.5},
			{"node_cpu_seconds_total", cpu("1", "irq"), 0.03},
			{"node_cpu_seconds_total", cpu("1", "steal"), 0.02},
			{"node_memory_MemTotal_bytes", nil, 16000000 * 1024},
			{"node_memory_MemAvailable_bytes", nil, 8000000 * 1024},
			{"node_memory_SwapFree_bytes", nil, 1500000 * 1024},
			{"node_network_receive_bytes_total", dev("eth0"), 500000},
			{"node_network_transmit_packets_total", dev("lo"), 10},
			{"node_disk_read_bytes_total", dev("sda"), 20000 * 512},
			{"node_disk_written_bytes_total", dev("sda1"), 36000 * 512},
			{"node_disk_io_time_seconds_total", dev("sda"), 1.2},
			{"node_disk_reads_completed_total", dev("loop0"), 50},
			{"node_uname_info", map[string]string{"nodename": "db1", "release": "6.1.0-28-amd64"}, 1},
		}},
		{"after", after, []sample{
			{"node_cpu_seconds_total", cpu("0", "user"), 3.5},
			{"node_cpu_seconds_total", cpu("0", "iowait"), 0.75},
			{"node_cpu_seconds_total", cpu("1", "steal"), 0.07},
			{"node_memory_MemAvailable_bytes", nil, 7000000 * 1024},
			{"node_memory_Cached_bytes", nil, 4500000 * 1024},
			{"node_network_receive_bytes_total", dev("eth0"), 900000},
			{"node_network_transmit_bytes_total", dev("eth0"), 650000},
			{"node_network_receive_packets_total", dev("lo"), 30},
			{"node_disk_writes_completed_total", dev("sda"), 2500},
			{"node_disk_read_bytes_total", dev("sda"), 26000 * 512},
			{"node_disk_io_time_seconds_total", dev("sda"), 3.7},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			writeProc(t, root, tc.snap) // the same handler: a new read, no restart
			mfs := scrape(t, h)
			for _, s := range tc.samples {
				got, ok := value(mfs, s.name, s.labels)
				if !ok {
					t.Errorf("%s%v: not served", s.name, s.labels)
					continue
				}
				if diff := got - s.want; diff > 1e-9 || diff < -1e-9 {
					t.Errorf("%s%v = %v, want %v", s.name, s.labels, got, s.want)
				}
			}
		})
	}
}

// TestHandlerLabelSets: every CPU in every mode, every interface and every
// device are served (lo and partitions too: the reader filters), and no
// series the reader does not know.
func TestHandlerLabelSets(t *testing.T) {
	mfs := scrape(t, Handler(writeProc(t, t.TempDir(), before)))
	labelValues := func(name, label string) []string {
		var vs []string
		for _, m := range mfs[name].GetMetric() {
			for _, lp := range m.GetLabel() {
				if lp.GetName() == label && !slices.Contains(vs, lp.GetValue()) {
					vs = append(vs, lp.GetValue())
				}
			}
		}
		sort.Strings(vs)
		return vs
	}
	for _, tc := range []struct {
		family, label string
		want          []string
	}{
		{"node_cpu_seconds_total", "cpu", []string{"0", "1"}},
		{"node_cpu_seconds_total", "mode", []string{"idle", "iowait", "irq", "nice", "softirq", "steal", "system", "user"}},
		{"node_network_receive_bytes_total", "device", []string{"eth0", "lo"}},
		{"node_network_transmit_packets_total", "device", []string{"eth0", "lo"}},
		{"node_disk_reads_completed_total", "device", []string{"loop0", "sda", "sda1"}},
		{"node_disk_io_time_seconds_total", "device", []string{"loop0", "sda", "sda1"}},
	} {
		if got := labelValues(tc.family, tc.label); !slices.Equal(got, tc.want) {
			t.Errorf("%s %s = %v, want %v", tc.family, tc.label, got, tc.want)
		}
	}
	if n := len(mfs["node_cpu_seconds_total"].GetMetric()); n != 16 {
		t.Errorf("node_cpu_seconds_total has %d series, want 2 CPUs × 8 modes", n)
	}
	want := []string{
		"node_cpu_seconds_total",
		"node_disk_io_time_seconds_total", "node_disk_read_bytes_total", "node_disk_reads_completed_total",
		"node_disk_writes_completed_total", "node_disk_written_bytes_total",
		"node_memory_Cached_bytes", "node_memory_MemAvailable_bytes", "node_memory_MemTotal_bytes",
		"node_memory_SwapFree_bytes", "node_memory_SwapTotal_bytes",
		"node_network_receive_bytes_total", "node_network_receive_packets_total",
		"node_network_transmit_bytes_total", "node_network_transmit_packets_total",
		"node_uname_info",
	}
	var got []string
	for name, mf := range mfs {
		got = append(got, name)
		wantType := dto.MetricType_COUNTER
		if !strings.HasSuffix(name, "_total") {
			wantType = dto.MetricType_GAUGE
		}
		if mf.GetType() != wantType {
			t.Errorf("%s is a %v, want a %v", name, mf.GetType(), wantType)
		}
	}
	sort.Strings(got)
	if !slices.Equal(got, want) {
		t.Errorf("families = %v, want %v", got, want)
	}
}

// TestHandlerFailsOnMissingFile: a file that cannot be read fails the
// request with its name, rather than serving a machine with no disks; so
// does Check, before anything is served.
func TestHandlerFailsOnMissingFile(t *testing.T) {
	for _, file := range []string{"stat", "meminfo", "net/dev", "diskstats"} {
		t.Run(file, func(t *testing.T) {
			root := writeProc(t, t.TempDir(), before)
			if err := os.Remove(filepath.Join(root, file)); err != nil {
				t.Fatal(err)
			}
			if err := Check(root); err == nil || !strings.Contains(err.Error(), file) {
				t.Errorf("Check = %v, want an error naming %s", err, file)
			}
			rec := httptest.NewRecorder()
			Handler(root).ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
			if rec.Code != http.StatusInternalServerError || !strings.Contains(rec.Body.String(), file) {
				t.Errorf("GET = %d %q, want 500 naming %s", rec.Code, rec.Body.String(), file)
			}
		})
	}
	if err := Check(writeProc(t, t.TempDir(), before)); err != nil {
		t.Errorf("Check of a whole /proc: %v", err)
	}
}

// TestHandlerOnThisMachine: the real /proc serves, where there is one.
func TestHandlerOnThisMachine(t *testing.T) {
	if _, err := os.Stat("/proc/stat"); err != nil {
		t.Skip("no /proc here")
	}
	mfs := scrape(t, Handler("/proc"))
	for _, name := range []string{"node_cpu_seconds_total", "node_memory_MemTotal_bytes", "node_uname_info"} {
		if len(mfs[name].GetMetric()) == 0 {
			t.Errorf("%s not served from /proc", name)
		}
	}
}

// TestScrapeReadsTheAgent: the run's --scrape observer reads the agent as
// it reads node_exporter, and filters what the agent serves unfiltered:
// the interval's deltas count eth0 but not lo, and sda but not its
// partition or the loop device.
func TestScrapeReadsTheAgent(t *testing.T) {
	root := writeProc(t, t.TempDir(), before)
	srv := httptest.NewServer(Handler(root))
	defer srv.Close()
	obs := observe.NewScrape("database host", srv.URL+"/metrics")
	st, err := obs.Start(context.Background())
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	defer obs.Close()
	if !strings.Contains(st.Server, "db1") || !strings.Contains(st.Server, "6.1.0-28-amd64") {
		t.Errorf("Start names the server %q, want db1 and its kernel release", st.Server)
	}
	writeProc(t, root, after)
	snap := obs.Cut(10 * time.Second)
	if snap.Gap != "" {
		t.Fatalf("Cut: gap %q", snap.Gap)
	}
	got := map[string]float64{}
	for _, c := range snap.Counters {
		got[c.Source+" "+c.Name] = c.Value
	}
	for _, want := range []struct {
		counter string
		value   float64
	}{
		{observe.SourceOSNet + " rx_bytes", 900000 - 500000},          // eth0 only
		{observe.SourceOSNet + " tx_packets", 6000 - 3000},            // eth0 only
		{observe.SourceOSDisk + " read_bytes", (26000 - 20000) * 512}, // sda only
		{observe.SourceOSDisk + " writes", 2500 - 2000},
		{observe.SourceOSDisk + " io_ms", 3700 - 1200},
		{observe.SourceOSCPU + " cpus", 2},
		// user 400 of 910 jiffies: user 400, system 200, idle 200, iowait 100, steal 10.
		{observe.SourceOSCPU + " user_pct", 100 * 400.0 / 910},
	} {
		v, ok := got[want.counter]
		if !ok {
			t.Errorf("%s: not in the interval's counters %v", want.counter, got)
			continue
		}
		if d := v - want.value; d > 1e-6 || d < -1e-6 {
			t.Errorf("%s = %v, want %v", want.counter, v, want.value)
		}
	}
}
