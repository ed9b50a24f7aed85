//go:build linux

package main

import (
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// keepSysmonAwake re-executes Sledge once with GODEBUG=schedtrace set to its
// longest period (2^31-1 ms, about 24.8 days), so that no trace is ever printed
// but the Go runtime's monitor thread (sysmon) never goes into deep sleep.
//
// Why: a VU spends most of its time waiting for the server, so all Ps are
// often idle at once. The runtime then puts sysmon into deep sleep and wakes it
// (a futex wake, then several 20 µs naps) on the next system call, which is
// the very next transaction's write. Measured on PostgreSQL in procs mode,
// that cycle was 40% of Sledge's client CPU per transaction (51 → 30 µs). With
// schedtrace set, sysmon only naps with the usual back-off to 10 ms.
//
// The runtime prints a first trace when the monotonic clock exceeds the period,
// so machines up for longer than that are left alone. The user's own GODEBUG
// is kept, and restored for child processes after the re-exec.
//
// It is the one reader of the environment besides newGlobalState, and runs
// before it: the re-exec replaces the process before anything is parsed, and
// the restored environment (marker removed, GODEBUG as the user set it) is
// what the global state then reads, and what children that inherit the
// process's environment (the sandbox's servers) get.
func keepSysmonAwake() {
	const marker = "SLEDGE_SYSMON_AWAKE"
	const period = 1<<31 - 1 // ms; the runtime parses schedtrace as int32
	if orig, ok := os.LookupEnv(marker); ok {
		_ = os.Unsetenv(marker)
		if orig == "" {
			_ = os.Unsetenv("GODEBUG")
		} else {
			_ = os.Setenv("GODEBUG", orig)
		}
		return
	}
	orig := os.Getenv("GODEBUG")
	if strings.Contains(orig, "schedtrace=") || os.Getenv("SLEDGE_NO_REEXEC") != "" {
		return
	}
	if up, ok := uptime(); !ok || up >= period*time.Millisecond-time.Hour {
		return
	}
	exe, err := os.Executable()
	if err != nil {
		return
	}
	godebug := "schedtrace=" + strconv.Itoa(period)
	if orig != "" {
		godebug = orig + "," + godebug
	}
	env := make([]string, 0, len(os.Environ())+2)
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "GODEBUG=") {
			env = append(env, kv)
		}
	}
	env = append(env, "GODEBUG="+godebug, marker+"="+orig)
	// On failure Sledge simply carries on in this process.
	_ = syscall.Exec(exe, os.Args, env)
}

// uptime reads the time since boot, which is at least the runtime's monotonic
// clock (that one stops during suspend).
func uptime() (time.Duration, bool) {
	b, err := os.ReadFile("/proc/uptime")
	if err != nil {
		return 0, false
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return 0, false
	}
	s, err := strconv.ParseFloat(f[0], 64)
	if err != nil {
		return 0, false
	}
	return time.Duration(s * float64(time.Second)), true
}
