package main

import (
	"os"

	"golang.org/x/sys/unix"
)

// dieWithParent has this process get SIGKILL when its parent dies, and
// exits at once if the parent is gone already (this process then belongs to
// init).
func dieWithParent() {
	_ = unix.Prctl(unix.PR_SET_PDEATHSIG, uintptr(unix.SIGKILL), 0, 0, 0)
	if os.Getppid() == 1 {
		os.Exit(1)
	}
}
