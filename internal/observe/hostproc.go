package observe

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// LocalServer tells the host observer which of this host's processes are
// the database server's, so that their CPU is not counted as that of
// other processes: the machine is not shared because the database under
// test runs on it. The zero value is no server on this host (a remote
// one) or one inside this process (an embedded engine, counted as this
// process's own CPU).
type LocalServer struct {
	// Port is the TCP port the server listens on at a loopback address:
	// its processes are the one that owns the listening socket and its
	// descendants.
	Port int
	// Unknown, when not "", says why the server runs on this host but its
	// processes cannot be found (it is reached over a Unix socket): the
	// CPU of other processes is then not measured, since it cannot be told
	// from the server's.
	Unknown string
}

// procKey names a process across reads: a PID may be reused, its start
// time (in ticks since boot) tells the new process from the old.
type procKey struct {
	pid   int
	start uint64
}

// procStat is what the observer reads of /proc/PID/stat.
type procStat struct {
	ppid  int
	start uint64
	ticks uint64 // utime + stime, in USER_HZ ticks like /proc/stat
}

// parseProcStat reads a /proc/PID/stat line. The command name (field 2)
// is in parentheses and may hold spaces and parentheses: fields are
// counted after its last closing parenthesis, where the state is the 1st,
// the ppid the 2nd, utime and stime the 12th and 13th, and starttime the
// 20th.
func parseProcStat(b []byte) (procStat, error) {
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return procStat{}, errors.New("no command name")
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 20 {
		return procStat{}, fmt.Errorf("%d fields after the command name, want at least 20", len(f))
	}
	ppid, err := strconv.Atoi(f[1])
	if err != nil {
		return procStat{}, fmt.Errorf("ppid: %w", err)
	}
	var v [3]uint64
	for i, col := range []int{11, 12, 19} {
		if v[i], err = strconv.ParseUint(f[col], 10, 64); err != nil {
			return procStat{}, fmt.Errorf("field %d: %w", col+3, err)
		}
	}
	return procStat{ppid: ppid, ticks: v[0] + v[1], start: v[2]}, nil
}

// procReading is one read of the processes' CPU: this process's, and the
// local server's processes' by key (nil when there is no server to count
// or it was not found).
type procReading struct {
	self   uint64
	server map[procKey]uint64
}

// procAccount follows this process's and the local server's CPU from read
// to read.
type procAccount struct {
	procRoot string
	server   LocalServer
	root     *procKey // the server's listening process, once found
	// unknown is why the server's CPU cannot be told from the others' ("":
	// it can, or there is no server to tell).
	unknown string
}

// selfTicks is this process's CPU time (all its threads; not its
// children's, which are other processes).
func (a *procAccount) selfTicks() (uint64, error) {
	b, err := os.ReadFile(filepath.Join(a.procRoot, "self", "stat"))
	if err != nil {
		return 0, err
	}
	st, err := parseProcStat(b)
	if err != nil {
		return 0, fmt.Errorf("parsing %s: %w", filepath.Join(a.procRoot, "self", "stat"), err)
	}
	return st.ticks, nil
}

// read takes this process's CPU and, when a server is to be counted, its
// processes': found at the first read by its listening socket, found
// again when its process has gone (a restarted server), its descendants
// taken anew each time (a server forks a process per connection).
func (a *procAccount) read() (procReading, error) {
	self, err := a.selfTicks()
	if err != nil {
		return procReading{}, err
	}
	r := procReading{self: self}
	if a.server.Port == 0 || a.server.Unknown != "" {
		return r, nil
	}
	procs, err := a.processes()
	if err != nil {
		a.unknown = "cannot list this host's processes: " + err.Error()
		return r, nil
	}
	if a.root == nil || procs[a.root.pid].start != a.root.start {
		a.root = nil
		pid, why := a.listener(a.server.Port, procs)
		if pid == 0 {
			a.unknown = why
			return r, nil
		}
		a.root = &procKey{pid, procs[pid].start}
	}
	a.unknown = ""
	r.server = map[procKey]uint64{}
	for pid := range descendants(a.root.pid, procs) {
		st := procs[pid]
		r.server[procKey{pid, st.start}] = st.ticks
	}
	return r, nil
}

// processes reads every process's stat; one that ends while being read is
// left out.
func (a *procAccount) processes() (map[int]procStat, error) {
	ents, err := os.ReadDir(a.procRoot)
	if err != nil {
		return nil, err
	}
	out := map[int]procStat{}
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid <= 0 {
			continue
		}
		b, err := os.ReadFile(filepath.Join(a.procRoot, e.Name(), "stat"))
		if err != nil {
			continue
		}
		if st, err := parseProcStat(b); err == nil {
			out[pid] = st
		}
	}
	return out, nil
}

// descendants is pid and every process below it.
func descendants(pid int, procs map[int]procStat) map[int]bool {
	children := map[int][]int{}
	for p, st := range procs {
		children[st.ppid] = append(children[st.ppid], p)
	}
	out := map[int]bool{}
	next := []int{pid}
	for len(next) > 0 {
		p := next[len(next)-1]
		next = next[:len(next)-1]
		if out[p] {
			continue
		}
		out[p] = true
		next = append(next, children[p]...)
	}
	return out
}

// listener finds the process that owns the socket listening on TCP port,
// from the sockets of /proc/net/tcp and tcp6 and the processes' open
// files; 0 and why when it cannot (another user's processes' files are
// not readable without privileges).
func (a *procAccount) listener(port int, procs map[int]procStat) (int, string) {
	inodes := map[string]bool{}
	for _, name := range []string{"net/tcp", "net/tcp6"} {
		b, err := os.ReadFile(filepath.Join(a.procRoot, name))
		if err != nil {
			continue // no IPv6, say
		}
		for _, ino := range listeningInodes(b, port) {
			inodes["socket:["+ino+"]"] = true
		}
	}
	if len(inodes) == 0 {
		return 0, fmt.Sprintf("no socket listens on port %d here", port)
	}
	denied := false
	for pid := range procs {
		dir := filepath.Join(a.procRoot, strconv.Itoa(pid), "fd")
		fds, err := os.ReadDir(dir)
		if err != nil {
			denied = denied || errors.Is(err, os.ErrPermission)
			continue
		}
		for _, fd := range fds {
			if link, err := os.Readlink(filepath.Join(dir, fd.Name())); err == nil && inodes[link] {
				return pid, ""
			}
		}
	}
	if denied {
		return 0, fmt.Sprintf("the process listening on port %d is not visible (another user's, and Sledge is not root)", port)
	}
	return 0, fmt.Sprintf("no process of this host owns the socket listening on port %d", port)
}

// listeningInodes are the inodes of the sockets of a /proc/net/tcp{,6}
// table listening on port, at any local address.
func listeningInodes(b []byte, port int) []string {
	want := fmt.Sprintf("%04X", port)
	var out []string
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		// sl local_address rem_address st tx_queue:rx_queue tr:tm->when
		// retrnsmt uid timeout inode …
		f := strings.Fields(sc.Text())
		if len(f) < 10 || f[3] != "0A" { // 0A: TCP_LISTEN
			continue
		}
		_, p, ok := strings.Cut(f[1], ":")
		if ok && strings.EqualFold(p, want) {
			out = append(out, f[9])
		}
	}
	return out
}

// procCounters are an interval's shares of the host's CPU used by this
// process (self_pct), the local server's processes (server_pct, when it
// is counted) and every other process (others_pct: the host's user, nice
// and system time less those; interrupts are left out, since the
// benchmark's own network traffic causes most of them). others_pct is
// left out when the server runs here but was not found: its CPU would be
// counted as others'.
func procCounters(prevCPU, curCPU cpuReading, prev, cur procReading, unknown bool) []Counter {
	total := since(prevCPU.user, curCPU.user) + since(prevCPU.nice, curCPU.nice) + since(prevCPU.system, curCPU.system) +
		since(prevCPU.iowait, curCPU.iowait) + since(prevCPU.irq, curCPU.irq) + since(prevCPU.softirq, curCPU.softirq) +
		since(prevCPU.steal, curCPU.steal) + since(prevCPU.idle, curCPU.idle)
	if total <= 0 {
		return nil
	}
	busy := since(prevCPU.user, curCPU.user) + since(prevCPU.nice, curCPU.nice) + since(prevCPU.system, curCPU.system)
	self := since(prev.self, cur.self)
	pct := func(name string, v float64) Counter {
		return Counter{Source: SourceOSCPU, Name: name, Kind: Gauge, Unit: "%", Value: 100 * v / total}
	}
	cs := []Counter{pct("self_pct", self)}
	var server float64
	if cur.server != nil {
		for k, t := range cur.server {
			// A process born in the interval used all its CPU in it.
			server += since(prev.server[k], t)
		}
		cs = append(cs, pct("server_pct", server))
	}
	if !unknown {
		cs = append(cs, pct("others_pct", max(0, busy-self-server)))
	}
	return cs
}

// --- CPU frequency: sysfs cpufreq ---

// freqReading is the current frequency of each CPU, in MHz.
type freqReading []float64

// readFreq reads scaling_cur_freq (kHz) of every CPU under sysRoot. None
// there (most virtual machines, a kernel without cpufreq) is an error.
func readFreq(sysRoot string) (freqReading, error) {
	pattern := filepath.Join(sysRoot, "devices", "system", "cpu", "cpu[0-9]*", "cpufreq", "scaling_cur_freq")
	paths, _ := filepath.Glob(pattern) // the pattern is well-formed
	if len(paths) == 0 {
		return nil, fmt.Errorf("no %s", pattern)
	}
	var out freqReading
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		khz, err := strconv.ParseFloat(strings.TrimSpace(string(b)), 64)
		if err != nil || khz <= 0 {
			return nil, fmt.Errorf("parsing %s: %q", p, strings.TrimSpace(string(b)))
		}
		out = append(out, khz/1000)
	}
	return out, nil
}

// freqCounters are the lowest, mean and highest CPU frequency at the
// interval's end.
func freqCounters(f freqReading) []Counter {
	lo, hi, sum := f[0], f[0], 0.0
	for _, v := range f {
		lo, hi, sum = min(lo, v), max(hi, v), sum+v
	}
	g := func(name string, v float64) Counter {
		return Counter{Source: SourceOSCPU, Name: name, Kind: Gauge, Unit: "MHz", Value: v}
	}
	return []Counter{g("freq_min_mhz", lo), g("freq_mean_mhz", sum/float64(len(f))), g("freq_max_mhz", hi)}
}

// timed runs fn counting it in cost as one query.
func timed(cost *Cost, fn func()) {
	start := time.Now()
	fn()
	cost.Queries++
	cost.QueryTime += time.Since(start)
}
