package tproch

import (
	"syscall"
	"unsafe"
)

// poolMemory returns size bytes for the text pool, backed by transparent
// huge pages where the kernel allows them (THP in madvise mode, a common
// default). Every text column copies from a random offset of the 300 MiB
// pool: with 4 KiB pages nearly every copy also misses the TLB. The mapping
// is never unmapped: the pool lives as long as the process.
func poolMemory(size int) []byte {
	const huge = 2 << 20
	m, err := syscall.Mmap(-1, 0, size+huge, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON)
	if err != nil {
		return make([]byte, size)
	}
	// Start on a huge-page boundary, so that every 2 MiB of the pool can be
	// one page.
	off := 0
	if r := int(uintptr(unsafe.Pointer(&m[0])) % huge); r != 0 {
		off = huge - r
	}
	p := m[off : off+size : off+size]
	_ = syscall.Madvise(p, syscall.MADV_HUGEPAGE) // refused where THP is off: no matter
	return p
}
