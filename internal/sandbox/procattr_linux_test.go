package sandbox

import (
	"os/exec"
	"syscall"
)

// dieWithTest makes cmd get SIGKILL should this test binary die before it
// (testdb.DieWithTest, which these tests cannot import).
func dieWithTest(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
}
