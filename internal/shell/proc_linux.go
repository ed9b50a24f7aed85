package shell

import (
	"os/exec"
	"runtime"
	"syscall"
)

// dieWithParent makes cmd (not started yet) get SIGKILL when the sledge
// process that starts it dies, however it dies: a front end left behind by
// a killed `sledge cli` would go on running its script (or wait at the
// prompt) with nobody to answer it.
//
// Linux sends the signal when the thread that started the child ends, not
// the process: the caller keeps its goroutine on one thread (lockThread)
// from the start to the end of the child.
func dieWithParent(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
}

// lockThread keeps the calling goroutine on its thread until the returned
// function is called (see dieWithParent).
func lockThread() (unlock func()) {
	runtime.LockOSThread()
	return runtime.UnlockOSThread
}
