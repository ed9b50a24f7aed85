//go:build !linux

package testdb

import "os/exec"

// DieWithTest does nothing here: only Linux kills a child when its parent
// dies (see proc_linux.go).
func DieWithTest(cmd *exec.Cmd) {}
