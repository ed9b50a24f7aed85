//go:build !linux

package shell

import "os/exec"

// dieWithParent does nothing here: only Linux kills a child when its
// parent dies (see proc_linux.go). A front end is stopped with its context
// (exec.CommandContext) when sledge ends on a signal it handles.
func dieWithParent(cmd *exec.Cmd) {}

// lockThread is needed by Linux's dieWithParent only.
func lockThread() (unlock func()) { return func() {} }
