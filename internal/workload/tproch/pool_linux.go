package tproch

import (
	"sync"
	"sync/atomic"
	"syscall"
	"unsafe"
)

const hugePage = 2 << 20

// poolMemory returns size bytes for the text pool, backed by transparent
// huge pages where the kernel allows them (THP in madvise mode, a common
// default). Every text column copies from a random offset of the 300 MiB
// pool: with 4 KiB pages nearly every copy also misses the TLB. The mapping
// is never unmapped: the pool lives as long as the process.
func poolMemory(size int) []byte {
	m, err := syscall.Mmap(-1, 0, size+hugePage, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON)
	if err != nil {
		return make([]byte, size)
	}
	// Start on a huge-page boundary, so that every 2 MiB of the pool can be
	// one page.
	off := 0
	if r := int(uintptr(unsafe.Pointer(&m[0])) % hugePage); r != 0 {
		off = hugePage - r
	}
	p := m[off : off+size : off+size]
	_ = syscall.Madvise(p, syscall.MADV_HUGEPAGE) // refused where THP is off: no matter
	return p
}

// madvPopulateWrite is Linux's MADV_POPULATE_WRITE (5.14): fault pages in,
// writable, without touching their contents.
const madvPopulateWrite = 23

// prefaultPool faults the pool's pages in on another goroutine, from the
// end down, while the caller writes it from the start (its progress in
// written), and stops where the two meet; wait waits for it. The kernel
// zeroes every page on its first touch, and on a virtual machine that was
// half of the pool's time: so it is split between two cores, and the
// build's wait for the pool, whose sentences can only be made one after the
// other, is the shorter. Where the kernel refuses, the writer faults the
// rest itself.
func prefaultPool(pool []byte, written *atomic.Int64) (wait func()) {
	var wg sync.WaitGroup
	wg.Go(func() {
		for end := len(pool); end > 0; end -= hugePage {
			start := max(end-hugePage, 0)
			if int64(start) <= written.Load()+hugePage {
				return
			}
			if syscall.Madvise(pool[start:end], madvPopulateWrite) != nil {
				return
			}
		}
	})
	return wg.Wait
}
