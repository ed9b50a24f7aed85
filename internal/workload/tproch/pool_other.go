//go:build !linux

package tproch

import "sync/atomic"

// poolMemory returns size bytes for the text pool.
func poolMemory(size int) []byte { return make([]byte, size) }

// prefaultPool does nothing: make has zeroed the pool already.
func prefaultPool([]byte, *atomic.Int64) (wait func()) { return func() {} }
