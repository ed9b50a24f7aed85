//go:build !linux

package main

import "testing"

// mountSmallFS skips: mounting a tmpfs to fill is Linux's.
func mountSmallFS(t *testing.T, size string) string {
	t.Skip("mounting a small file system to fill needs Linux")
	return ""
}
