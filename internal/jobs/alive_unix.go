//go:build unix

package jobs

import (
	"errors"
	"syscall"
)

// processAlive reports whether process pid exists. Signal 0 checks without
// signalling; EPERM means it exists but belongs to another user. An unknown
// pid (≤ 0) counts as alive: better to leave a job running than to declare a
// live one dead (and kill(0, …) would address our own process group).
func processAlive(pid int) bool {
	if pid <= 0 {
		return true
	}
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
