package observe

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// procSnapshot is one state of the fixture /proc's four counter files.
type procSnapshot struct {
	stat, meminfo, netDev, diskstats string
}

// diskLine is a /proc/diskstats line with the fields the observer reads
// set and the others at values it must ignore.
func diskLine(major, minor int, name string, reads, sectorsRead, writes, sectorsWritten, ioMs uint64) string {
	return fmt.Sprintf("%4d %7d %s %d 7 %d 9 %d 11 %d 13 0 %d 17 0 0 0 0 0 0\n",
		major, minor, name, reads, sectorsRead, writes, sectorsWritten, ioMs)
}

const netDevHeader = `Inter-|   Receive                                                |  Transmit
 face |bytes    packets errs drop fifo frame compressed multicast|bytes    packets errs drop fifo colls carrier compressed
`

func netLine(name string, rxBytes, rxPackets, txBytes, txPackets uint64) string {
	return fmt.Sprintf("%6s: %d %d 3 4 5 6 7 8 %d %d 3 4 5 6 7 8\n", name, rxBytes, rxPackets, txBytes, txPackets)
}

// The two snapshots are 10 s apart. Between them: 1000 jiffies split
// 40/20/10/5/5/20 %; eth0+eth1 receive 15000 bytes in 150 packets and send
// 6000 in 60 (lo's traffic is left out); sda and nvme0n1 do 900 reads of
// 19000 sectors and 1800 writes of 36000 sectors, busy 2700 ms (their
// partitions, loop0 and dm-0 are left out).
var (
	procBefore = procSnapshot{
		stat: `cpu  1000 100 500 8000 200 50 50 100 7 7
cpu0 500 50 250 4000 100 25 25 50 0 0
cpu1 500 50 250 4000 100 25 25 50 0 0
cpu2 0 0 0 0 0 0 0 0 0 0
cpu3 0 0 0 0 0 0 0 0 0 0
intr 12345 0 0
ctxt 999
`,
		meminfo: "MemTotal:       16000000 kB\nMemFree:         1000000 kB\nMemAvailable:    7000000 kB\nCached:          2000000 kB\nSwapTotal:       2000000 kB\nSwapFree:        2000000 kB\nHugePages_Total:       0\n",
		netDev: netDevHeader +
			netLine("lo", 1e9, 1e6, 1e9, 1e6) +
			netLine("eth0", 1000, 10, 2000, 20) +
			netLine("eth1", 500, 5, 0, 0),
		diskstats: diskLine(7, 0, "loop0", 5, 50, 5, 50, 5) +
			diskLine(8, 0, "sda", 100, 1000, 200, 4000, 300) +
			diskLine(8, 1, "sda1", 100, 1000, 200, 4000, 300) +
			diskLine(259, 0, "nvme0n1", 0, 0, 0, 0, 0) +
			diskLine(259, 1, "nvme0n1p1", 0, 0, 0, 0, 0) +
			diskLine(253, 0, "dm-0", 0, 0, 0, 0, 0),
	}
	procAfter = procSnapshot{
		stat: `cpu  1300 200 700 8200 300 80 70 150 9 9
cpu0 650 100 350 4100 150 40 35 75 0 0
cpu1 650 100 350 4100 150 40 35 75 0 0
cpu2 0 0 0 0 0 0 0 0 0 0
cpu3 0 0 0 0 0 0 0 0 0 0
intr 23456 0 0
ctxt 1999
`,
		meminfo: "MemTotal:       16000000 kB\nMemFree:         1000000 kB\nMemAvailable:    6000000 kB\nCached:          3000000 kB\nSwapTotal:       2000000 kB\nSwapFree:        1500000 kB\nHugePages_Total:       0\n",
		netDev: netDevHeader +
			netLine("lo", 9e9, 9e6, 9e9, 9e6) +
			netLine("eth0", 11000, 110, 7000, 70) +
			netLine("eth1", 5500, 55, 1000, 10),
		diskstats: diskLine(7, 0, "loop0", 5000, 50000, 5000, 50000, 5000) +
			diskLine(8, 0, "sda", 600, 11000, 1200, 24000, 2300) +
			diskLine(8, 1, "sda1", 600, 11000, 1200, 24000, 2300) +
			diskLine(259, 0, "nvme0n1", 400, 9000, 800, 16000, 700) +
			diskLine(259, 1, "nvme0n1p1", 400, 9000, 800, 16000, 700) +
			diskLine(253, 0, "dm-0", 9999, 99999, 9999, 99999, 9999),
	}
)

// writeProc writes a snapshot's files (and the descriptive ones) under root.
func writeProc(t *testing.T, root string, s procSnapshot) {
	t.Helper()
	files := map[string]string{
		"stat":                 s.stat,
		"meminfo":              s.meminfo,
		"net/dev":              s.netDev,
		"diskstats":            s.diskstats,
		"sys/kernel/hostname":  "db1\n",
		"sys/kernel/osrelease": "6.1.0-test\n",
		"uptime":               "3600.50 7000.00\n",
		"cpuinfo":              "processor\t: 0\nvendor_id\t: GenuineIntel\nmodel name\t: Test CPU @ 3.00GHz\n\nprocessor\t: 1\nmodel name\t: Test CPU @ 3.00GHz\n",
	}
	for name, text := range files {
		path := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// counterMap indexes counters by "source/name", failing on duplicates.
func counterMap(t *testing.T, cs []Counter) map[string]Counter {
	t.Helper()
	m := map[string]Counter{}
	for _, c := range cs {
		key := c.Source + "/" + c.Name
		if _, dup := m[key]; dup {
			t.Errorf("counter %s twice", key)
		}
		m[key] = c
	}
	return m
}

func TestHostFixtureCounters(t *testing.T) {
	t.Parallel()
	root, sys := t.TempDir(), t.TempDir()
	writeProc(t, root, procBefore)
	// This process used 100 of the interval's 1000 ticks; the CPUs ran at
	// 2 and 3 GHz at its end.
	write(t, filepath.Join(root, "self/stat"), procStatLine(300, 1, 30, 20, 500))
	write(t, filepath.Join(sys, "devices/system/cpu/cpu0/cpufreq/scaling_cur_freq"), "2000000\n")
	write(t, filepath.Join(sys, "devices/system/cpu/cpu1/cpufreq/scaling_cur_freq"), "3000000\n")
	o := NewHost("client and database host", HostOptions{ProcRoot: root, SysRoot: sys})
	if got := o.Name(); got != "client and database host" {
		t.Errorf("Name() = %q", got)
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
	wantSettings := []Setting{
		{Name: "cpu_model", Value: "Test CPU @ 3.00GHz"},
		{Name: "cpus", Value: "4"},
		{Name: "mem_total", Value: "16384000000 bytes"},
	}
	if !slices.Equal(st.Settings, wantSettings) {
		t.Errorf("Settings = %v, want %v", st.Settings, wantSettings)
	}
	if len(st.Notes) != 0 {
		t.Errorf("Notes = %v, want none", st.Notes)
	}

	writeProc(t, root, procAfter)
	write(t, filepath.Join(root, "self/stat"), procStatLine(300, 1, 100, 50, 500))
	snap := o.Cut(10 * time.Second)
	if snap.Gap != "" {
		t.Errorf("Gap = %q", snap.Gap)
	}
	if snap.Elapsed != 10*time.Second || snap.Length != 10*time.Second {
		t.Errorf("Elapsed, Length = %v, %v; want 10s, 10s", snap.Elapsed, snap.Length)
	}

	const kB = 1024
	want := []Counter{
		{SourceOSCPU, "user_pct", Gauge, "%", 40},
		{SourceOSCPU, "sys_pct", Gauge, "%", 20},
		{SourceOSCPU, "iowait_pct", Gauge, "%", 10},
		{SourceOSCPU, "irq_pct", Gauge, "%", 5},
		{SourceOSCPU, "steal_pct", Gauge, "%", 5},
		{SourceOSCPU, "idle_pct", Gauge, "%", 20},
		{SourceOSCPU, "cpus", Gauge, "", 4},
		// user + nice + system: 600 ticks, 100 of them this process's.
		{SourceOSCPU, "self_pct", Gauge, "%", 10},
		{SourceOSCPU, "others_pct", Gauge, "%", 50},
		{SourceOSCPU, "freq_min_mhz", Gauge, "MHz", 2000},
		{SourceOSCPU, "freq_mean_mhz", Gauge, "MHz", 2500},
		{SourceOSCPU, "freq_max_mhz", Gauge, "MHz", 3000},
		{SourceOSMem, "total", Gauge, "bytes", 16000000 * kB},
		{SourceOSMem, "available", Gauge, "bytes", 6000000 * kB},
		{SourceOSMem, "used", Gauge, "bytes", 10000000 * kB},
		{SourceOSMem, "cached", Gauge, "bytes", 3000000 * kB},
		{SourceOSMem, "swap_used", Gauge, "bytes", 500000 * kB},
		{SourceOSNet, "rx_bytes", Delta, "bytes", 15000},
		{SourceOSNet, "tx_bytes", Delta, "bytes", 6000},
		{SourceOSNet, "rx_packets", Delta, "packets", 150},
		{SourceOSNet, "tx_packets", Delta, "packets", 60},
		{SourceOSNet, "rx_bytes_per_s", Gauge, "bytes/s", 1500},
		{SourceOSNet, "tx_bytes_per_s", Gauge, "bytes/s", 600},
		{SourceOSDisk, "reads", Delta, "", 900},
		{SourceOSDisk, "writes", Delta, "", 1800},
		{SourceOSDisk, "read_bytes", Delta, "bytes", 19000 * 512},
		{SourceOSDisk, "write_bytes", Delta, "bytes", 36000 * 512},
		{SourceOSDisk, "io_ms", Delta, "ms", 2700},
		{SourceOSDisk, "iops", Gauge, "1/s", 270},
		{SourceOSDisk, "mbps", Gauge, "MB/s", 2.816},
	}
	got := counterMap(t, snap.Counters)
	if len(got) != len(want) {
		t.Errorf("got %d counters, want %d: %v", len(got), len(want), snap.Counters)
	}
	for _, w := range want {
		g, ok := got[w.Source+"/"+w.Name]
		switch {
		case !ok:
			t.Errorf("no counter %s/%s", w.Source, w.Name)
		case g.Kind != w.Kind || g.Unit != w.Unit || math.Abs(g.Value-w.Value) > 1e-9:
			t.Errorf("%s/%s = %+v, want %+v", w.Source, w.Name, g, w)
		}
	}

	// The next interval starts where this one ended: nothing changed.
	snap = o.Cut(15 * time.Second)
	if snap.Length != 5*time.Second {
		t.Errorf("second Length = %v, want 5s", snap.Length)
	}
	got = counterMap(t, snap.Counters)
	for _, name := range []string{SourceOSNet + "/rx_bytes", SourceOSDisk + "/reads", SourceOSDisk + "/iops"} {
		if v := got[name].Value; v != 0 {
			t.Errorf("second interval %s = %v, want 0", name, v)
		}
	}
	if _, ok := got[SourceOSCPU+"/user_pct"]; ok {
		t.Errorf("CPU shares reported for an interval with no jiffies")
	}

	cost := o.Close()
	if cost.Queries < 12 { // 4 files at Start and at each of two Cuts
		t.Errorf("Cost.Queries = %d, want at least 12", cost.Queries)
	}
	if cost.QueryTime <= 0 {
		t.Errorf("Cost.QueryTime = %v, want > 0", cost.QueryTime)
	}
}

func TestHostGapWhenAFileGoes(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	writeProc(t, root, procBefore)
	o := NewHost("client host", HostOptions{ProcRoot: root})
	if _, err := o.Start(context.Background()); err != nil {
		t.Fatalf("Start: %v", err)
	}
	writeProc(t, root, procAfter)
	if err := os.Remove(filepath.Join(root, "net/dev")); err != nil {
		t.Fatal(err)
	}
	snap := o.Cut(10 * time.Second)
	if !strings.Contains(snap.Gap, "net/dev") {
		t.Errorf("Gap = %q, want it to name net/dev", snap.Gap)
	}
	got := counterMap(t, snap.Counters)
	if _, ok := got[SourceOSNet+"/rx_bytes"]; ok {
		t.Errorf("network counters reported without /proc/net/dev")
	}
	if got[SourceOSDisk+"/reads"].Value != 900 {
		t.Errorf("disk reads = %v, want 900 (the other files still count)", got[SourceOSDisk+"/reads"].Value)
	}

	// Back again, but the interval has no baseline for the network.
	writeProc(t, root, procAfter)
	snap = o.Cut(20 * time.Second)
	if !strings.Contains(snap.Gap, "no baseline") {
		t.Errorf("Gap = %q, want no baseline", snap.Gap)
	}
	snap = o.Cut(30 * time.Second)
	if snap.Gap != "" {
		t.Errorf("Gap = %q once every file is back", snap.Gap)
	}
	o.Close()
}

func TestHostStartWithoutProc(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		setup func(t *testing.T, root string)
	}{
		{"no directory", func(*testing.T, string) {}},
		{"no diskstats", func(t *testing.T, root string) {
			if err := os.Mkdir(root, 0o755); err != nil {
				t.Fatal(err)
			}
			writeProc(t, root, procBefore)
			if err := os.Remove(filepath.Join(root, "diskstats")); err != nil {
				t.Fatal(err)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := filepath.Join(t.TempDir(), "proc")
			tc.setup(t, root)
			o := NewHost("client host", HostOptions{ProcRoot: root})
			_, err := o.Start(context.Background())
			if err == nil || !strings.Contains(err.Error(), "need Linux /proc") {
				t.Fatalf("Start error = %v, want one saying OS metrics need Linux /proc", err)
			}
			if snap := o.Cut(time.Second); snap.Gap == "" || len(snap.Counters) != 0 {
				t.Errorf("Cut after a failed Start = %+v, want a gap and no counters", snap)
			}
		})
	}
}

func TestHostCountedDisks(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		devices []string
		want    []string
	}{
		{"sata with partitions", []string{"sda", "sda1", "sda2", "sdb", "sdb1"}, []string{"sda", "sdb"}},
		{"many sata disks", []string{"sdz", "sdaa", "sdaa1"}, []string{"sdz", "sdaa"}},
		{"virtio and xen", []string{"vda", "vda1", "xvda", "xvda1", "hda", "hda1"}, []string{"vda", "xvda", "hda"}},
		{"nvme", []string{"nvme0n1", "nvme0n1p1", "nvme0n1p2", "nvme1n1", "nvme10n2p3"}, []string{"nvme0n1", "nvme1n1"}},
		{"sd card", []string{"mmcblk0", "mmcblk0p1", "mmcblk0boot0"}, []string{"mmcblk0"}},
		{"virtual devices left out", []string{"loop0", "loop1", "ram0", "zram0", "sr0", "md0", "nbd0", "vda"}, []string{"vda"}},
		{"dm only beside physical disks", []string{"sda", "sda2", "dm-0", "dm-1"}, []string{"sda"}},
		{"dm when no physical disk", []string{"loop0", "dm-0", "dm-1"}, []string{"dm-0", "dm-1"}},
		{"nothing countable", []string{"loop0", "zram0"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := countedDisks(tc.devices); !slices.Equal(got, tc.want) {
				t.Errorf("countedDisks(%v) = %v, want %v", tc.devices, got, tc.want)
			}
		})
	}
}

func TestHostMeminfoWithoutMemAvailable(t *testing.T) {
	t.Parallel()
	// Kernels before 3.14: available is estimated as free + buffers + cached.
	m, err := parseMeminfo([]byte("MemTotal: 1000 kB\nMemFree: 100 kB\nBuffers: 20 kB\nCached: 300 kB\n"))
	if err != nil {
		t.Fatal(err)
	}
	if want := uint64(420 * 1024); m.available != want {
		t.Errorf("available = %d, want %d", m.available, want)
	}
	if _, err := parseMeminfo([]byte("MemFree: 100 kB\n")); err == nil {
		t.Errorf("meminfo without MemTotal parsed without error")
	}
}

func TestHostRealProc(t *testing.T) {
	t.Parallel()
	if _, err := os.Stat("/proc/stat"); err != nil {
		t.Skip("no Linux /proc here:", err)
	}
	o := NewHost("client host", HostOptions{ProcRoot: "/proc", SysRoot: "/sys"})
	st, err := o.Start(context.Background())
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	if st.Server == "" {
		t.Errorf("Server is empty")
	}
	// Burn a little CPU so the interval has jiffies on any machine.
	deadline := time.Now().Add(300 * time.Millisecond)
	for n := 0; time.Now().Before(deadline); n++ {
		_ = n * n
	}
	snap := o.Cut(300 * time.Millisecond)
	defer o.Close()
	if snap.Gap != "" {
		t.Errorf("Gap = %q", snap.Gap)
	}
	got := counterMap(t, snap.Counters)
	var sum float64
	for _, name := range []string{"user_pct", "sys_pct", "iowait_pct", "irq_pct", "steal_pct", "idle_pct"} {
		c, ok := got[SourceOSCPU+"/"+name]
		if !ok {
			t.Fatalf("no %s", name)
		}
		if c.Value < 0 || c.Value > 100 {
			t.Errorf("%s = %v, want 0..100", name, c.Value)
		}
		sum += c.Value
	}
	if math.Abs(sum-100) > 1 {
		t.Errorf("CPU shares sum to %v, want 100 ± 1", sum)
	}
	if got[SourceOSCPU+"/cpus"].Value < 1 {
		t.Errorf("cpus = %v, want at least 1", got[SourceOSCPU+"/cpus"].Value)
	}
	total, avail := got[SourceOSMem+"/total"].Value, got[SourceOSMem+"/available"].Value
	if total <= 0 || avail < 0 || avail > total {
		t.Errorf("memory total, available = %v, %v; want 0 ≤ available ≤ total, total > 0", total, avail)
	}
	for _, c := range snap.Counters {
		if c.Value < 0 || math.IsNaN(c.Value) || math.IsInf(c.Value, 0) {
			t.Errorf("%s/%s = %v", c.Source, c.Name, c.Value)
		}
	}
}
