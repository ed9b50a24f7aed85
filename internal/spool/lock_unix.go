//go:build unix

package spool

import (
	"errors"
	"os"
	"syscall"
)

var errLocked = errors.New("locked")

// lock takes an exclusive lock on f without waiting; errLocked when another
// process (or another open file of this one) holds it.
func lock(f *os.File) error {
	err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
	if errors.Is(err, syscall.EWOULDBLOCK) {
		return errLocked
	}
	return err
}

// ownedByMe reports whether fi belongs to this process's effective user.
func ownedByMe(fi os.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && int(st.Uid) == os.Geteuid()
}

// processGone reports whether no process has that pid.
func processGone(pid int) bool {
	return errors.Is(syscall.Kill(pid, 0), syscall.ESRCH)
}
