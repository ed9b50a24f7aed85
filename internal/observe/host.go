package observe

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Sources of the host observer's counters.
const (
	SourceOSCPU  = "os.cpu"
	SourceOSMem  = "os.mem"
	SourceOSNet  = "os.net"
	SourceOSDisk = "os.disk"
)

// sectorSize is the unit of /proc/diskstats' sector counts: the kernel
// always counts 512-byte sectors there, whatever the device's real sector
// size.
const sectorSize = 512

// host observes the machine it runs on through the operating system's
// cumulative figures in /proc. It needs no sampling goroutine: the figures
// are counters kept by the kernel, so reading them at Start and at each Cut
// gives the interval's deltas exactly.
type host struct {
	name     string
	procRoot string
	sysRoot  string
	server   LocalServer

	mu      sync.Mutex
	started bool
	prev    hostReading
	last    time.Duration // elapsed at the previous Cut (0 at Start)
	cost    Cost
	// procs follows this process's and the local server's CPU; nil when
	// this process's cannot be read. prevProc is its previous reading,
	// valid when haveProc.
	procs    *procAccount
	prevProc procReading
	haveProc bool
	freq     bool // the CPU frequency can be read
}

// HostOptions say where the host observer reads and what it must know of
// the run.
type HostOptions struct {
	ProcRoot string // "/proc" in production
	SysRoot  string // "/sys" in production: the CPU frequency
	// Server is the database server when it runs on this host, so that its
	// CPU is not counted as other processes'.
	Server LocalServer
}

// NewHost returns an observer of the operating system's CPU, memory,
// network and disk figures, of the CPU used by this process, by the local
// database server and by every other process, and of the CPU frequency.
// name is what the caller calls the machine, e.g. "client host".
func NewHost(name string, o HostOptions) Observer {
	return &host{name: name, procRoot: o.ProcRoot, sysRoot: o.SysRoot, server: o.Server}
}

func (h *host) Name() string { return h.name }

// Start reads the baseline of every counter. Any of the four files missing
// means this is not Linux (or /proc is not mounted): nothing can be
// observed.
func (h *host) Start(ctx context.Context) (Start, error) {
	if err := ctx.Err(); err != nil {
		return Start{}, err
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	r := h.read()
	if err := r.err(); err != nil {
		return Start{}, fmt.Errorf("%s: OS metrics need Linux /proc: %w", h.name, err)
	}
	h.prev, h.last, h.started = r, 0, true
	st := h.describe(r)
	st.Notes = append(st.Notes, h.startNoise()...)
	return st, nil
}

// startNoise takes the baselines of what tells a noisy machine (this
// process's CPU, the local server's, the CPU frequency) and says what of
// it cannot be measured.
func (h *host) startNoise() []string {
	var notes []string
	h.procs, h.haveProc = &procAccount{procRoot: h.procRoot, server: h.server}, false
	var (
		pr  procReading
		err error
	)
	timed(&h.cost, func() { pr, err = h.procs.read() })
	if err != nil {
		h.procs = nil
		notes = append(notes, "this process's and other processes' CPU not measured: "+err.Error())
	} else {
		h.prevProc, h.haveProc = pr, true
		if why := cmp.Or(h.server.Unknown, h.procs.unknown); why != "" {
			notes = append(notes, "the database server's processes on this host cannot be told apart ("+why+
				"): other processes' CPU is not measured, only this process's")
		}
	}
	timed(&h.cost, func() { _, err = readFreq(h.sysRoot) })
	h.freq = err == nil
	if err != nil {
		notes = append(notes, "CPU frequency not available ("+err.Error()+"; usual on virtual machines)")
	}
	return notes
}

// noiseCounters are the interval's process and frequency figures.
func (h *host) noiseCounters(prev, cur hostReading) []Counter {
	var cs []Counter
	if h.procs != nil {
		var (
			pr  procReading
			err error
		)
		timed(&h.cost, func() { pr, err = h.procs.read() })
		switch {
		case err != nil:
			h.haveProc = false // the next interval has no baseline
		case h.haveProc && prev.cpu != nil && cur.cpu != nil:
			unknown := cmp.Or(h.server.Unknown, h.procs.unknown) != ""
			cs = append(cs, procCounters(*prev.cpu, *cur.cpu, h.prevProc, pr, unknown)...)
			fallthrough
		default:
			h.prevProc, h.haveProc = pr, true
		}
	}
	if h.freq {
		var (
			f   freqReading
			err error
		)
		timed(&h.cost, func() { f, err = readFreq(h.sysRoot) })
		if err == nil {
			cs = append(cs, freqCounters(f)...)
		}
	}
	return cs
}

// describe says what machine this is, from files that are nice to have:
// none of them failing stops the observer.
func (h *host) describe(r hostReading) Start {
	var st Start
	hostname := strings.TrimSpace(h.readOptional("sys/kernel/hostname"))
	if hostname == "" {
		hostname, _ = os.Hostname()
	}
	st.Server = hostname
	if rel := strings.TrimSpace(h.readOptional("sys/kernel/osrelease")); rel != "" {
		st.Server = strings.TrimSpace(hostname + " (Linux " + rel + ")")
	}
	if f := strings.Fields(h.readOptional("uptime")); len(f) > 0 {
		if s, err := strconv.ParseFloat(f[0], 64); err == nil {
			st.Uptime = time.Duration(s * float64(time.Second))
		}
	}
	if model := cpuModel(h.readOptional("cpuinfo")); model != "" {
		st.Settings = append(st.Settings, Setting{Name: "cpu_model", Value: model})
	}
	st.Settings = append(st.Settings,
		Setting{Name: "cpus", Value: strconv.Itoa(r.cpu.cpus)},
		Setting{Name: "mem_total", Value: strconv.FormatUint(r.mem.total, 10) + " bytes"},
	)
	return st
}

// Cut reads every file again and returns the changes since the previous
// read. A file that cannot be read leaves its section out and says so in
// Gap; its next interval has no baseline and says so too.
func (h *host) Cut(elapsed time.Duration) Snapshot {
	h.mu.Lock()
	defer h.mu.Unlock()
	snap := Snapshot{Elapsed: elapsed, Length: elapsed - h.last}
	if !h.started {
		snap.Gap = h.name + ": not started"
		return snap
	}
	cur := h.read()
	snap.Counters, snap.Gap = hostCounters(h.prev, cur, snap.Length)
	snap.Counters = append(snap.Counters, h.noiseCounters(h.prev, cur)...)
	h.prev, h.last = cur, elapsed
	return snap
}

func (h *host) Close() Cost {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.started = false
	return h.cost
}

// hostReading is one read of the four files; a section is nil when its
// file could not be read or parsed, with the reason in its error.
type hostReading struct {
	cpu  *cpuReading
	mem  *memReading
	net  map[string]netStat
	disk map[string]diskStat

	cpuErr, memErr, netErr, diskErr error
}

// err is the first file that failed, enough to say why nothing can be
// observed (they all fail together when there is no /proc).
func (r hostReading) err() error {
	for _, err := range []error{r.cpuErr, r.memErr, r.netErr, r.diskErr} {
		if err != nil {
			return err
		}
	}
	return nil
}

func (h *host) read() hostReading {
	var r hostReading
	if b, err := h.readFile("stat"); err != nil {
		r.cpuErr = err
	} else if r.cpu, err = parseStat(b); err != nil {
		r.cpuErr = fmt.Errorf("parsing %s: %w", h.path("stat"), err)
	}
	if b, err := h.readFile("meminfo"); err != nil {
		r.memErr = err
	} else if r.mem, err = parseMeminfo(b); err != nil {
		r.memErr = fmt.Errorf("parsing %s: %w", h.path("meminfo"), err)
	}
	if b, err := h.readFile("net/dev"); err != nil {
		r.netErr = err
	} else if r.net, err = parseNetDev(b); err != nil {
		r.netErr = fmt.Errorf("parsing %s: %w", h.path("net/dev"), err)
	}
	if b, err := h.readFile("diskstats"); err != nil {
		r.diskErr = err
	} else if r.disk, err = parseDiskstats(b); err != nil {
		r.diskErr = fmt.Errorf("parsing %s: %w", h.path("diskstats"), err)
	}
	return r
}

func (h *host) path(name string) string { return filepath.Join(h.procRoot, name) }

// readFile reads one file under procRoot, counting it in the observer's
// cost as a query.
func (h *host) readFile(name string) ([]byte, error) {
	start := time.Now()
	b, err := os.ReadFile(h.path(name))
	h.cost.Queries++
	h.cost.QueryTime += time.Since(start)
	return b, err // a *PathError: it names the file
}

func (h *host) readOptional(name string) string {
	b, err := h.readFile(name)
	if err != nil {
		return ""
	}
	return string(b)
}

// hostCounters turns two readings an interval apart into the interval's
// counters, and the reasons for any section left out.
func hostCounters(prev, cur hostReading, length time.Duration) ([]Counter, string) {
	var cs []Counter
	var gaps []string
	section := func(source string, curErr error, havePrev, haveCur bool, add func()) {
		switch {
		case curErr != nil:
			gaps = append(gaps, curErr.Error())
		case !havePrev:
			gaps = append(gaps, source+": no baseline (the previous read failed)")
		case haveCur:
			add()
		}
	}
	section(SourceOSCPU, cur.cpuErr, prev.cpu != nil, cur.cpu != nil, func() {
		cs = append(cs, cpuCounters(*prev.cpu, *cur.cpu)...)
	})
	// Memory figures are gauges: no baseline needed.
	section(SourceOSMem, cur.memErr, true, cur.mem != nil, func() {
		cs = append(cs, memCounters(*cur.mem)...)
	})
	section(SourceOSNet, cur.netErr, prev.net != nil, cur.net != nil, func() {
		cs = append(cs, netCounters(prev.net, cur.net, length)...)
	})
	section(SourceOSDisk, cur.diskErr, prev.disk != nil, cur.disk != nil, func() {
		cs = append(cs, diskCounters(prev.disk, cur.disk, length)...)
	})
	return cs, strings.Join(gaps, "; ")
}

// since is the change of a kernel counter, 0 when it went backwards (a
// device re-attached, a CPU hot-plugged): a negative delta means nothing.
func since(prev, cur uint64) float64 {
	if cur < prev {
		return 0
	}
	return float64(cur - prev)
}

// perSecond is a per-second rate over the interval, 0 for an empty one.
func perSecond(v float64, length time.Duration) float64 {
	if length <= 0 {
		return 0
	}
	return v / length.Seconds()
}

// --- CPU: /proc/stat ---

// cpuReading is the aggregate "cpu" line of /proc/stat, in jiffies, and the
// number of cpuN lines.
type cpuReading struct {
	user, nice, system, idle, iowait, irq, softirq, steal uint64
	cpus                                                  int
}

func parseStat(b []byte) (*cpuReading, error) {
	var r cpuReading
	found := false
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) == 0 || !strings.HasPrefix(f[0], "cpu") {
			continue
		}
		if f[0] != "cpu" {
			r.cpus++
			continue
		}
		// user nice system idle iowait irq softirq steal [guest guest_nice];
		// guest time is already counted in user and nice.
		if len(f) < 9 {
			return nil, fmt.Errorf("cpu line has %d fields, want at least 9", len(f))
		}
		dst := []*uint64{&r.user, &r.nice, &r.system, &r.idle, &r.iowait, &r.irq, &r.softirq, &r.steal}
		for i, p := range dst {
			v, err := strconv.ParseUint(f[i+1], 10, 64)
			if err != nil {
				return nil, fmt.Errorf("cpu line: %w", err)
			}
			*p = v
		}
		found = true
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if !found {
		return nil, errors.New(`no "cpu" line`)
	}
	return &r, nil
}

// cpuCounters are the shares of the interval's jiffies; they add up to 100
// (the interval's total is the sum of the same six parts).
func cpuCounters(prev, cur cpuReading) []Counter {
	parts := []struct {
		name string
		d    float64
	}{
		{"user_pct", since(prev.user, cur.user) + since(prev.nice, cur.nice)},
		{"sys_pct", since(prev.system, cur.system)},
		{"iowait_pct", since(prev.iowait, cur.iowait)},
		{"irq_pct", since(prev.irq, cur.irq) + since(prev.softirq, cur.softirq)},
		{"steal_pct", since(prev.steal, cur.steal)},
		{"idle_pct", since(prev.idle, cur.idle)},
	}
	var total float64
	for _, p := range parts {
		total += p.d
	}
	var cs []Counter
	// No jiffies passed (an interval shorter than a tick): no shares to give.
	if total > 0 {
		for _, p := range parts {
			cs = append(cs, Counter{Source: SourceOSCPU, Name: p.name, Kind: Gauge, Unit: "%", Value: 100 * p.d / total})
		}
	}
	return append(cs, Counter{Source: SourceOSCPU, Name: "cpus", Kind: Gauge, Value: float64(cur.cpus)})
}

// --- memory: /proc/meminfo ---

// memReading is /proc/meminfo's figures that matter, in bytes.
type memReading struct {
	total, available, cached, swapTotal, swapFree uint64
}

func parseMeminfo(b []byte) (*memReading, error) {
	kb := map[string]uint64{}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		name, rest, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		f := strings.Fields(rest)
		if len(f) == 0 {
			continue
		}
		v, err := strconv.ParseUint(f[0], 10, 64)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		if len(f) > 1 && f[1] == "kB" {
			v *= 1024
		}
		kb[name] = v
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	total, ok := kb["MemTotal"]
	if !ok {
		return nil, errors.New("no MemTotal")
	}
	avail, ok := kb["MemAvailable"]
	if !ok {
		// Kernels before 3.14 have no MemAvailable; this is its usual estimate.
		avail = kb["MemFree"] + kb["Buffers"] + kb["Cached"]
	}
	return &memReading{
		total: total, available: avail, cached: kb["Cached"],
		swapTotal: kb["SwapTotal"], swapFree: kb["SwapFree"],
	}, nil
}

func memCounters(m memReading) []Counter {
	g := func(name string, v float64) Counter {
		return Counter{Source: SourceOSMem, Name: name, Kind: Gauge, Unit: "bytes", Value: v}
	}
	return []Counter{
		g("total", float64(m.total)),
		g("available", float64(m.available)),
		g("used", since(m.available, m.total)),
		g("cached", float64(m.cached)),
		g("swap_used", since(m.swapFree, m.swapTotal)),
	}
}

// --- network: /proc/net/dev ---

type netStat struct {
	rxBytes, rxPackets, txBytes, txPackets uint64
}

// parseNetDev reads every interface but lo: the loopback's traffic is the
// machine talking to itself (a local database's own clients), not the
// network's load.
func parseNetDev(b []byte) (map[string]netStat, error) {
	m := map[string]netStat{}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		name, rest, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue // the two header lines
		}
		name = strings.TrimSpace(name)
		if name == "lo" {
			continue
		}
		// Receive: bytes packets errs drop fifo frame compressed multicast,
		// then Transmit: bytes packets …
		f := strings.Fields(rest)
		if len(f) < 10 {
			return nil, fmt.Errorf("interface %s has %d fields, want at least 10", name, len(f))
		}
		var v [4]uint64
		for i, col := range []int{0, 1, 8, 9} {
			n, err := strconv.ParseUint(f[col], 10, 64)
			if err != nil {
				return nil, fmt.Errorf("interface %s: %w", name, err)
			}
			v[i] = n
		}
		m[name] = netStat{rxBytes: v[0], rxPackets: v[1], txBytes: v[2], txPackets: v[3]}
	}
	return m, sc.Err()
}

// netCounters sums the interval's traffic over the interfaces present at
// both reads.
func netCounters(prev, cur map[string]netStat, length time.Duration) []Counter {
	var rxB, txB, rxP, txP float64
	for name, c := range cur {
		p, ok := prev[name]
		if !ok {
			continue
		}
		rxB += since(p.rxBytes, c.rxBytes)
		txB += since(p.txBytes, c.txBytes)
		rxP += since(p.rxPackets, c.rxPackets)
		txP += since(p.txPackets, c.txPackets)
	}
	return []Counter{
		{Source: SourceOSNet, Name: "rx_bytes", Kind: Delta, Unit: "bytes", Value: rxB},
		{Source: SourceOSNet, Name: "tx_bytes", Kind: Delta, Unit: "bytes", Value: txB},
		{Source: SourceOSNet, Name: "rx_packets", Kind: Delta, Unit: "packets", Value: rxP},
		{Source: SourceOSNet, Name: "tx_packets", Kind: Delta, Unit: "packets", Value: txP},
		{Source: SourceOSNet, Name: "rx_bytes_per_s", Kind: Gauge, Unit: "bytes/s", Value: perSecond(rxB, length)},
		{Source: SourceOSNet, Name: "tx_bytes_per_s", Kind: Gauge, Unit: "bytes/s", Value: perSecond(txB, length)},
	}
}

// --- disk: /proc/diskstats ---

type diskStat struct {
	reads, sectorsRead, writes, sectorsWritten, ioMs uint64
}

// physicalDisk matches whole physical (or virtual-machine) disks: SCSI/SATA
// sda, virtio vda, Xen xvda, IDE hda, NVMe nvme0n1, SD/eMMC mmcblk0. Their
// partitions (sda1, nvme0n1p1, mmcblk0p1) are left out, or every I/O would
// count twice; so are loop, ram, zram, md and optical devices, whose I/O
// either lands on a whole disk too or is not disk I/O at all.
var physicalDisk = regexp.MustCompile(`^(?:(?:x?v|s|h)d[a-z]+|nvme\d+n\d+|mmcblk\d+)$`)

// deviceMapper matches dm-0, dm-1 …: LVM and dm-crypt volumes. Their I/O
// also lands on the physical disks below them, so they count only when no
// physical disk is listed (a container or VM that sees only its volumes).
var deviceMapper = regexp.MustCompile(`^dm-\d+$`)

// parseDiskstats returns the devices whose I/O is summed: the whole
// physical disks, or the device-mapper volumes when there are none.
func parseDiskstats(b []byte) (map[string]diskStat, error) {
	all := map[string]diskStat{}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		// major minor name reads reads_merged sectors_read ms_reading
		// writes writes_merged sectors_written ms_writing in_flight io_ms …
		f := strings.Fields(sc.Text())
		if len(f) < 13 {
			continue
		}
		name := f[2]
		var v [5]uint64
		for i, col := range []int{3, 5, 7, 9, 12} {
			n, err := strconv.ParseUint(f[col], 10, 64)
			if err != nil {
				return nil, fmt.Errorf("device %s: %w", name, err)
			}
			v[i] = n
		}
		all[name] = diskStat{reads: v[0], sectorsRead: v[1], writes: v[2], sectorsWritten: v[3], ioMs: v[4]}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
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

// countedDisks picks, of the devices /proc/diskstats lists, those whose I/O
// is summed: the whole physical disks, or else the device-mapper volumes.
func countedDisks(names []string) []string {
	var phys, dm []string
	for _, n := range names {
		switch {
		case physicalDisk.MatchString(n):
			phys = append(phys, n)
		case deviceMapper.MatchString(n):
			dm = append(dm, n)
		}
	}
	if len(phys) > 0 {
		return phys
	}
	return dm
}

// diskCounters sums the interval's I/O over the devices present at both
// reads. iops and mbps are the figures HammerDB's job metrics show.
func diskCounters(prev, cur map[string]diskStat, length time.Duration) []Counter {
	var reads, writes, rBytes, wBytes, ioMs float64
	for name, c := range cur {
		p, ok := prev[name]
		if !ok {
			continue
		}
		reads += since(p.reads, c.reads)
		writes += since(p.writes, c.writes)
		rBytes += sectorSize * since(p.sectorsRead, c.sectorsRead)
		wBytes += sectorSize * since(p.sectorsWritten, c.sectorsWritten)
		ioMs += since(p.ioMs, c.ioMs)
	}
	return []Counter{
		{Source: SourceOSDisk, Name: "reads", Kind: Delta, Value: reads},
		{Source: SourceOSDisk, Name: "writes", Kind: Delta, Value: writes},
		{Source: SourceOSDisk, Name: "read_bytes", Kind: Delta, Unit: "bytes", Value: rBytes},
		{Source: SourceOSDisk, Name: "write_bytes", Kind: Delta, Unit: "bytes", Value: wBytes},
		{Source: SourceOSDisk, Name: "io_ms", Kind: Delta, Unit: "ms", Value: ioMs},
		{Source: SourceOSDisk, Name: "iops", Kind: Gauge, Unit: "1/s", Value: perSecond(reads+writes, length)},
		{Source: SourceOSDisk, Name: "mbps", Kind: Gauge, Unit: "MB/s", Value: perSecond(rBytes+wBytes, length) / 1e6},
	}
}

// cpuModel is the first "model name" of /proc/cpuinfo ("" on CPUs that
// name themselves otherwise, e.g. some ARM kernels).
func cpuModel(cpuinfo string) string {
	for line := range strings.Lines(cpuinfo) {
		k, v, ok := strings.Cut(line, ":")
		if ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return ""
}
