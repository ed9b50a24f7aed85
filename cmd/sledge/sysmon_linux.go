//go:build linux

package main

import (
	"os"
	"syscall"

	"github.com/sledge-bench/sledge/internal/app"
)

// keepSysmonAwake re-executes Sledge once with GODEBUG=schedtrace set to its
// longest period, so that no trace is ever printed but the Go runtime's
// monitor thread (sysmon) never goes into deep sleep (app.SysmonEnv says
// why and when). The user's own GODEBUG is kept, and restored for child
// processes after the re-exec; SLEDGE_NO_REEXEC turns it off.
//
// It is the one reader of the environment besides newGlobalState, and runs
// before it: the re-exec replaces the process before anything is parsed, and
// the restored environment (marker removed, GODEBUG as the user set it) is
// what the global state then reads, and what children that inherit the
// process's environment (the sandbox's servers) get.
func keepSysmonAwake() {
	if orig, ok := os.LookupEnv(app.SysmonMarker); ok {
		_ = os.Unsetenv(app.SysmonMarker)
		if orig == "" {
			_ = os.Unsetenv("GODEBUG")
		} else {
			_ = os.Setenv("GODEBUG", orig)
		}
		return
	}
	if os.Getenv("SLEDGE_NO_REEXEC") != "" {
		return
	}
	b, err := os.ReadFile("/proc/uptime")
	if err != nil {
		return
	}
	up, ok := app.ParseUptime(b)
	if !ok {
		return
	}
	env, ok := app.SysmonEnv(os.Environ(), up)
	if !ok {
		return
	}
	exe, err := os.Executable()
	if err != nil {
		return
	}
	// On failure Sledge simply carries on in this process.
	_ = syscall.Exec(exe, os.Args, env)
}
