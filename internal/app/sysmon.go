package app

import (
	"strconv"
	"strings"
	"time"
)

// Keeping the Go runtime's monitor thread (sysmon) awake: a VU spends most
// of its time waiting for the server, so all Ps are often idle at once.
// The runtime then puts sysmon into deep sleep and wakes it (a futex wake,
// then several 20 µs naps) on the next system call, which is the very next
// transaction's write. Measured on PostgreSQL in procs mode, that cycle was
// 40% of Sledge's client CPU per transaction (51 → 30 µs). With
// GODEBUG=schedtrace set, sysmon only naps with the usual back-off to
// 10 ms. The command re-executes the process once with SysmonEnv's
// environment, and the re-executed process restores the user's
// (SysmonMarker).

// SysmonMarker is the variable the re-executed process finds in its
// environment: the user's GODEBUG ("" when it was unset), to restore for
// child processes.
const SysmonMarker = "SLEDGE_SYSMON_AWAKE"

// sysmonPeriod is the longest schedtrace period (2^31-1 ms, about 24.8
// days; the runtime parses it as int32), so that no trace is ever printed.
const sysmonPeriod = 1<<31 - 1

// SysmonEnv is the environment to re-execute the process with (environ,
// KEY=VALUE, with schedtrace added to GODEBUG and SysmonMarker set); false
// when the process is to run as it is: the user's GODEBUG sets schedtrace
// already, or the machine has been up (uptime) for about the period or
// longer — the runtime prints a first trace when its monotonic clock
// exceeds the period.
func SysmonEnv(environ []string, uptime time.Duration) ([]string, bool) {
	orig := ""
	env := make([]string, 0, len(environ)+2)
	for _, kv := range environ {
		if v, ok := strings.CutPrefix(kv, "GODEBUG="); ok {
			orig = v
			continue
		}
		env = append(env, kv)
	}
	if strings.Contains(orig, "schedtrace=") || uptime >= sysmonPeriod*time.Millisecond-time.Hour {
		return nil, false
	}
	godebug := "schedtrace=" + strconv.Itoa(sysmonPeriod)
	if orig != "" {
		godebug = orig + "," + godebug
	}
	return append(env, "GODEBUG="+godebug, SysmonMarker+"="+orig), true
}

// ParseUptime reads the time since boot from /proc/uptime's content; it is
// at least the runtime's monotonic clock (that one stops during suspend).
func ParseUptime(procUptime []byte) (time.Duration, bool) {
	f := strings.Fields(string(procUptime))
	if len(f) == 0 {
		return 0, false
	}
	s, err := strconv.ParseFloat(f[0], 64)
	if err != nil {
		return 0, false
	}
	return time.Duration(s * float64(time.Second)), true
}
