//go:build !linux

package tproch

// poolMemory returns size bytes for the text pool.
func poolMemory(size int) []byte { return make([]byte, size) }
