package main

import (
	"os"
	"syscall"
	"testing"
)

// mountSmallFS mounts a tmpfs of size (mount's size=, e.g. "2m") on a
// directory of the test's own and unmounts it when the test ends; it skips
// the test when this process may not mount (not root, no privilege in a
// container).
func mountSmallFS(t *testing.T, size string) string {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("mounting a small file system to fill needs root")
	}
	dir := t.TempDir()
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, "size="+size); err != nil {
		t.Skipf("cannot mount a small tmpfs on %s to fill: %v", dir, err)
	}
	t.Cleanup(func() {
		if err := syscall.Unmount(dir, syscall.MNT_DETACH); err != nil {
			t.Errorf("unmount %s: %v", dir, err)
		}
	})
	return dir
}
