//go:build !linux

package main

// keepSysmonAwake does nothing here: the re-exec trick is Linux-only.
func keepSysmonAwake() {}
