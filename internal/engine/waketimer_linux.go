package engine

import (
	"os"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// kernelTimer is a timerfd on the monotonic clock, registered with the
// netpoller (it is non-blocking), so that a wait for it parks the
// goroutine, not the thread. Its system calls are raw — they never block —
// so that they do not wake the runtime's monitor thread (see wakeTimer).
type kernelTimer struct {
	fd int
	f  *os.File
	rc syscall.RawConn
	n  uint64 // the expirations read (unused)
}

func newKernelTimer() (*kernelTimer, error) {
	fd, err := unix.TimerfdCreate(unix.CLOCK_MONOTONIC, unix.TFD_NONBLOCK|unix.TFD_CLOEXEC)
	if err != nil {
		return nil, err
	}
	k := &kernelTimer{fd: fd, f: os.NewFile(uintptr(fd), "timerfd")}
	if k.rc, err = k.f.SyscallConn(); err != nil {
		_ = k.f.Close()
		return nil, err
	}
	return k, nil
}

// set arms the timer to expire once, in d. It cannot fail on a timerfd
// made and not closed; if it did, the runtime's timer set alongside still
// wakes the process and the waiter finds the descriptor unready: it would
// wait for the next set.
func (k *kernelTimer) set(d time.Duration) {
	d = max(d, time.Nanosecond) // a zero time disarms a timerfd
	spec := unix.ItimerSpec{Value: unix.NsecToTimespec(int64(d))}
	_, _, _ = unix.RawSyscall6(unix.SYS_TIMERFD_SETTIME, uintptr(k.fd), 0, uintptr(unsafe.Pointer(&spec)), 0, 0, 0)
}

// wait waits until the timer expired; false when it was closed.
func (k *kernelTimer) wait() bool {
	err := k.rc.Read(func(fd uintptr) bool {
		_, _, e := unix.RawSyscall(unix.SYS_READ, fd, uintptr(unsafe.Pointer(&k.n)), unsafe.Sizeof(k.n))
		return e != unix.EAGAIN
	})
	return err == nil
}

func (k *kernelTimer) close() { _ = k.f.Close() }
