package testdb

import (
	"os/exec"
	"syscall"
)

// DieWithTest makes cmd (not started yet) get SIGKILL when the test binary
// dies, however it dies (a -timeout panic, SIGKILL): a child left behind
// would hold its port, files and CPU. Linux only (Pdeathsig); elsewhere it
// does nothing, and such a child is killed by the test's cleanup only.
func DieWithTest(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
}
