//go:build !linux

package main

// dieWithParent does nothing here: only Linux has a parent-death signal.
func dieWithParent() {}
