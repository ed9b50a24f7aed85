package observe

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

// userHZ is the unit of the CPU times in /proc/PID/stat: Linux reports them
// in USER_HZ, 100 per second on every architecture (the ABI fixes it).
const userHZ = 100

// backendCPU measures the server CPU an observer's own sessions used, when
// the server runs on this machine: each session's server process is read
// in /proc (user + system time). A session whose process is not found here
// — the server is elsewhere, or another user's processes are hidden — is not
// measured, and the share stays an estimate.
type backendCPU struct {
	procRoot string
	comm     string // the server process's name, "postgres" or "mariadbd"

	mu       sync.Mutex
	base     map[int]time.Duration // CPU per process when mark read it
	last     map[int]time.Duration // CPU per process, at its latest reading
	missing  bool                  // a session's process could not be read
	measured bool
}

func newBackendCPU(procRoot, comm string) *backendCPU {
	return &backendCPU{procRoot: procRoot, comm: comm, base: map[int]time.Duration{}, last: map[int]time.Duration{}}
}

// mark reads process pid and counts its CPU from now on: what it used
// before (a session's start-up) is left out of total.
func (b *backendCPU) mark(pid int) {
	if b == nil || pid <= 0 {
		return
	}
	cpu, ok := processCPU(b.procRoot, pid, b.comm)
	if !ok {
		return // read will say it cannot be measured
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.base[pid] = cpu
}

// read takes the CPU time of the session served by process pid (0: none).
// Call it while the session lives: at every cut and before closing.
func (b *backendCPU) read(pid int) {
	if b == nil || pid <= 0 {
		return
	}
	cpu, ok := processCPU(b.procRoot, pid, b.comm)
	b.mu.Lock()
	defer b.mu.Unlock()
	if !ok {
		b.missing = true
		return
	}
	b.last[pid] = cpu
	b.measured = true
}

// total is the CPU the sessions used, and whether every one was measured.
func (b *backendCPU) total() (time.Duration, bool) {
	if b == nil {
		return 0, false
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	var sum time.Duration
	for pid, d := range b.last {
		sum += d - b.base[pid]
	}
	return sum, b.measured && !b.missing
}

// processCPU reads user + system CPU time of process pid from procRoot,
// checking that the process is named comm (a PID of the server's host
// matched to one of this machine's would be another program).
func processCPU(procRoot string, pid int, comm string) (time.Duration, bool) {
	dir := filepath.Join(procRoot, strconv.Itoa(pid))
	name, err := os.ReadFile(filepath.Join(dir, "comm"))
	if err != nil || strings.TrimSpace(string(name)) != comm {
		return 0, false
	}
	stat, err := os.ReadFile(filepath.Join(dir, "stat"))
	if err != nil {
		return 0, false
	}
	// The command name (field 2) is in parentheses and may hold spaces:
	// count fields after its closing parenthesis. utime and stime are
	// fields 14 and 15, i.e. the 12th and 13th after it.
	s := string(stat)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0, false
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 13 {
		return 0, false
	}
	utime, err1 := strconv.ParseInt(f[11], 10, 64)
	stime, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, false
	}
	return time.Duration(utime+stime) * time.Second / userHZ, true
}
