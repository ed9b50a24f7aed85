//go:build !unix

package sandbox

import (
	"os"
	"syscall"
)

// account is the user running the server; on these systems always the
// current user (nil), since there is no root to step down from.
type account struct{}

func serverAccount(dir, dataDir string) (*account, error) { return nil, nil }

func (a *account) sysProcAttr(newGroup bool) *syscall.SysProcAttr { return nil }
func (a *account) chown(path string) error                        { return nil }
func (a *account) checkReachable(dir string) error                { return nil }
func (a *account) String() string                                 { return "the current user" }

// postmasterAlive cannot tell a reused PID from the postmaster here; it only
// checks that the process exists.
func postmasterAlive(pid int, dataDir string) bool { return processExists(pid) }

func processExists(pid int) bool {
	if pid <= 0 {
		return false
	}
	p, err := os.FindProcess(pid)
	if err != nil {
		return false
	}
	p.Release()
	return true
}

func isZombie(pid int) bool { return false }
