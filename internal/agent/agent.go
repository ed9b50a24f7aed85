// Package agent serves this machine's operating-system figures over HTTP in
// the Prometheus text exposition format, under the names node_exporter gives
// them, so that a run against a remote database reads the database host's
// CPU, memory, network and disk the same way whether that host runs
// `sledge agent --os-metrics` or node_exporter: `sledge run --scrape URL`.
//
// The figures are the kernel's cumulative counters, read from /proc at each
// request and served as they are: every CPU, every interface (lo too) and
// every block device (partitions too). Choosing what to sum is the
// reader's business, as it is with node_exporter.
//
// Parsing is github.com/prometheus/procfs, the library node_exporter itself
// reads /proc with, so the values agree with node_exporter's to the unit.
package agent

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/prometheus/procfs"
	"github.com/prometheus/procfs/blockdevice"
)

// sectorSize is the unit of /proc/diskstats' sector counts: the kernel
// always counts 512-byte sectors there, whatever the device's real sector
// size.
const sectorSize = 512

// Handler serves the OS figures read from procRoot ("/proc" in production)
// at every request. A file that cannot be read fails the request (500, the
// reason in the body) rather than serving a partial set: a reader then
// records a gap with the reason instead of charting a device as idle.
func Handler(procRoot string) http.Handler {
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(newCollector(procRoot))
	return promhttp.HandlerFor(reg, promhttp.HandlerOpts{ErrorHandling: promhttp.HTTPErrorOnError})
}

// Check reads every file once, so that a command can refuse to start where
// there is nothing to serve (no Linux /proc) instead of failing every
// request later.
func Check(procRoot string) error {
	c := newCollector(procRoot)
	ch := make(chan prometheus.Metric)
	drained := make(chan struct{})
	go func() {
		for range ch { // the figures themselves are not wanted here
		}
		close(drained)
	}()
	defer func() { close(ch); <-drained }()
	for _, read := range []func(chan<- prometheus.Metric) error{c.collectCPU, c.collectMemory, c.collectNetwork, c.collectDisks} {
		if err := read(ch); err != nil {
			return err
		}
	}
	return nil
}

// collector reads /proc on every Collect; it keeps no state, so concurrent
// scrapes need no lock.
type collector struct {
	procRoot string

	cpu, uname                                                 *prometheus.Desc
	memTotal, memAvailable, memCached, swapTotal, swapFree     *prometheus.Desc
	netRxBytes, netTxBytes, netRxPackets, netTxPackets         *prometheus.Desc
	diskReads, diskWrites, diskReadBytes, diskWritten, diskIOT *prometheus.Desc
}

func newCollector(procRoot string) *collector {
	dev := []string{"device"}
	gauge := func(name, help string) *prometheus.Desc { return prometheus.NewDesc(name, help, nil, nil) }
	perDevice := func(name, help string) *prometheus.Desc { return prometheus.NewDesc(name, help, dev, nil) }
	return &collector{
		procRoot: procRoot,
		cpu:      prometheus.NewDesc("node_cpu_seconds_total", "Seconds the CPUs spent in each mode.", []string{"cpu", "mode"}, nil),
		uname: prometheus.NewDesc("node_uname_info", "Labeled system information as provided by the uname system call.",
			[]string{"nodename", "release"}, nil),
		memTotal:      gauge("node_memory_MemTotal_bytes", "Memory information field MemTotal_bytes."),
		memAvailable:  gauge("node_memory_MemAvailable_bytes", "Memory information field MemAvailable_bytes."),
		memCached:     gauge("node_memory_Cached_bytes", "Memory information field Cached_bytes."),
		swapTotal:     gauge("node_memory_SwapTotal_bytes", "Memory information field SwapTotal_bytes."),
		swapFree:      gauge("node_memory_SwapFree_bytes", "Memory information field SwapFree_bytes."),
		netRxBytes:    perDevice("node_network_receive_bytes_total", "Network device statistic receive_bytes."),
		netTxBytes:    perDevice("node_network_transmit_bytes_total", "Network device statistic transmit_bytes."),
		netRxPackets:  perDevice("node_network_receive_packets_total", "Network device statistic receive_packets."),
		netTxPackets:  perDevice("node_network_transmit_packets_total", "Network device statistic transmit_packets."),
		diskReads:     perDevice("node_disk_reads_completed_total", "The total number of reads completed successfully."),
		diskWrites:    perDevice("node_disk_writes_completed_total", "The total number of writes completed successfully."),
		diskReadBytes: perDevice("node_disk_read_bytes_total", "The total number of bytes read successfully."),
		diskWritten:   perDevice("node_disk_written_bytes_total", "The total number of bytes written successfully."),
		diskIOT:       perDevice("node_disk_io_time_seconds_total", "Total seconds spent doing I/Os."),
	}
}

func (c *collector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{
		c.cpu, c.uname,
		c.memTotal, c.memAvailable, c.memCached, c.swapTotal, c.swapFree,
		c.netRxBytes, c.netTxBytes, c.netRxPackets, c.netTxPackets,
		c.diskReads, c.diskWrites, c.diskReadBytes, c.diskWritten, c.diskIOT,
	} {
		ch <- d
	}
}

// Collect reads each file; one that fails becomes an invalid metric, which
// the handler turns into a 500 naming the file.
func (c *collector) Collect(ch chan<- prometheus.Metric) {
	for _, s := range []struct {
		desc *prometheus.Desc
		read func(chan<- prometheus.Metric) error
	}{
		{c.cpu, c.collectCPU},
		{c.memTotal, c.collectMemory},
		{c.netRxBytes, c.collectNetwork},
		{c.diskReads, c.collectDisks},
	} {
		if err := s.read(ch); err != nil {
			ch <- prometheus.NewInvalidMetric(s.desc, err)
		}
	}
	c.collectUname(ch)
}

func (c *collector) fs() (procfs.FS, error) {
	fs, err := procfs.NewFS(c.procRoot)
	if err != nil {
		return procfs.FS{}, fmt.Errorf("OS metrics need Linux /proc: %w", err)
	}
	return fs, nil
}

// collectCPU serves every cpuN line of /proc/stat; procfs has already
// turned the kernel's USER_HZ ticks (100 a second) into seconds. The
// aggregate "cpu" line is left out, as node_exporter leaves it out: it is
// the sum of the others.
func (c *collector) collectCPU(ch chan<- prometheus.Metric) error {
	fs, err := c.fs()
	if err != nil {
		return err
	}
	st, err := fs.Stat()
	if err != nil {
		return fmt.Errorf("reading %s: %w", filepath.Join(c.procRoot, "stat"), err)
	}
	if len(st.CPU) == 0 {
		return fmt.Errorf("reading %s: no cpuN lines", filepath.Join(c.procRoot, "stat"))
	}
	for id, t := range st.CPU {
		cpu := strconv.FormatInt(id, 10)
		// Guest time is already counted in user and nice, so it is not a
		// mode of its own here (node_exporter serves it as another series).
		for _, m := range []struct {
			mode string
			v    float64
		}{
			{"user", t.User}, {"nice", t.Nice}, {"system", t.System}, {"idle", t.Idle},
			{"iowait", t.Iowait}, {"irq", t.IRQ}, {"softirq", t.SoftIRQ}, {"steal", t.Steal},
		} {
			ch <- prometheus.MustNewConstMetric(c.cpu, prometheus.CounterValue, m.v, cpu, m.mode)
		}
	}
	return nil
}

func (c *collector) collectMemory(ch chan<- prometheus.Metric) error {
	fs, err := c.fs()
	if err != nil {
		return err
	}
	mi, err := fs.Meminfo()
	if err != nil {
		return fmt.Errorf("reading %s: %w", filepath.Join(c.procRoot, "meminfo"), err)
	}
	if mi.MemTotalBytes == nil {
		return fmt.Errorf("reading %s: no MemTotal", filepath.Join(c.procRoot, "meminfo"))
	}
	// A field the kernel does not have (MemAvailable before Linux 3.14,
	// swap on a kernel without it) is left out, as node_exporter leaves it
	// out: the reader decides what a missing figure means.
	for _, g := range []struct {
		desc *prometheus.Desc
		v    *uint64
	}{
		{c.memTotal, mi.MemTotalBytes}, {c.memAvailable, mi.MemAvailableBytes}, {c.memCached, mi.CachedBytes},
		{c.swapTotal, mi.SwapTotalBytes}, {c.swapFree, mi.SwapFreeBytes},
	} {
		if g.v != nil {
			ch <- prometheus.MustNewConstMetric(g.desc, prometheus.GaugeValue, float64(*g.v))
		}
	}
	return nil
}

func (c *collector) collectNetwork(ch chan<- prometheus.Metric) error {
	fs, err := c.fs()
	if err != nil {
		return err
	}
	nd, err := fs.NetDev()
	if err != nil {
		return fmt.Errorf("reading %s: %w", filepath.Join(c.procRoot, "net/dev"), err)
	}
	for name, l := range nd {
		ch <- prometheus.MustNewConstMetric(c.netRxBytes, prometheus.CounterValue, float64(l.RxBytes), name)
		ch <- prometheus.MustNewConstMetric(c.netTxBytes, prometheus.CounterValue, float64(l.TxBytes), name)
		ch <- prometheus.MustNewConstMetric(c.netRxPackets, prometheus.CounterValue, float64(l.RxPackets), name)
		ch <- prometheus.MustNewConstMetric(c.netTxPackets, prometheus.CounterValue, float64(l.TxPackets), name)
	}
	return nil
}

// collectDisks serves every device of /proc/diskstats, partitions, loop
// and device-mapper volumes included: which of them to sum (whole disks,
// so no I/O counts twice) is the reader's choice, as with node_exporter.
func (c *collector) collectDisks(ch chan<- prometheus.Metric) error {
	// Only /proc/diskstats is read; blockdevice wants a sysfs root as well
	// and merely checks that it is a directory, so procRoot stands in for
	// it (a host without /sys, e.g. a fixture, still serves its disks).
	bfs, err := blockdevice.NewFS(c.procRoot, c.procRoot)
	if err != nil {
		return fmt.Errorf("OS metrics need Linux /proc: %w", err)
	}
	stats, err := bfs.ProcDiskstats()
	if err != nil {
		return fmt.Errorf("reading %s: %w", filepath.Join(c.procRoot, "diskstats"), err)
	}
	for _, d := range stats {
		name := d.DeviceName
		ch <- prometheus.MustNewConstMetric(c.diskReads, prometheus.CounterValue, float64(d.ReadIOs), name)
		ch <- prometheus.MustNewConstMetric(c.diskWrites, prometheus.CounterValue, float64(d.WriteIOs), name)
		ch <- prometheus.MustNewConstMetric(c.diskReadBytes, prometheus.CounterValue, float64(d.ReadSectors)*sectorSize, name)
		ch <- prometheus.MustNewConstMetric(c.diskWritten, prometheus.CounterValue, float64(d.WriteSectors)*sectorSize, name)
		ch <- prometheus.MustNewConstMetric(c.diskIOT, prometheus.CounterValue, float64(d.IOsTotalTicks)/1000, name)
	}
	return nil
}

// collectUname says which machine and kernel these are. Both files are nice
// to have: the figures are no less true without them, so a missing one
// never fails the request (the host name then comes from the system call).
func (c *collector) collectUname(ch chan<- prometheus.Metric) {
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join(c.procRoot, "sys", "kernel", name))
		if err != nil {
			return ""
		}
		return strings.TrimSpace(string(b))
	}
	nodename := read("hostname")
	if nodename == "" {
		nodename, _ = os.Hostname()
	}
	ch <- prometheus.MustNewConstMetric(c.uname, prometheus.GaugeValue, 1, nodename, read("osrelease"))
}
