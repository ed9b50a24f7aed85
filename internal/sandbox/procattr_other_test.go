//go:build !linux

package sandbox

import "os/exec"

// dieWithTest does nothing here: only Linux kills a child when its parent
// dies.
func dieWithTest(cmd *exec.Cmd) {}
