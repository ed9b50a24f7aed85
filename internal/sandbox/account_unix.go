//go:build unix

package sandbox

import (
	"errors"
	"fmt"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// account is the unprivileged user that runs initdb, pg_ctl and the server
// when Sledge itself runs as root (as CI containers usually do): PostgreSQL
// refuses to run as root. A nil *account means "the current user".
type account struct {
	uid, gid uint32
	name     string
}

// serverAccount picks who runs the server for the sandbox in dir. An
// existing cluster keeps its owner, because postgres refuses a data
// directory owned by anyone else; otherwise the postgres system user, else
// nobody.
func serverAccount(dir, dataDir string) (*account, error) {
	if os.Geteuid() != 0 {
		return nil, nil
	}
	for _, p := range []string{dataDir, dir} {
		fi, err := os.Stat(p)
		if err != nil {
			continue
		}
		if st, ok := fi.Sys().(*syscall.Stat_t); ok && st.Uid != 0 {
			a := &account{uid: st.Uid, gid: st.Gid, name: strconv.FormatUint(uint64(st.Uid), 10)}
			if u, err := user.LookupId(a.name); err == nil {
				a.name = u.Username
				if gid, err := strconv.ParseUint(u.Gid, 10, 32); err == nil {
					a.gid = uint32(gid)
				}
			}
			return a, nil
		}
	}
	for _, name := range []string{"postgres", "nobody"} {
		u, err := user.Lookup(name)
		if err != nil {
			continue
		}
		uid, err1 := strconv.ParseUint(u.Uid, 10, 32)
		gid, err2 := strconv.ParseUint(u.Gid, 10, 32)
		if err1 != nil || err2 != nil || uid == 0 {
			continue
		}
		return &account{uid: uint32(uid), gid: uint32(gid), name: name}, nil
	}
	return nil, errors.New("running as root, and PostgreSQL refuses to run as root, but there is no postgres " +
		"(or nobody) user to run it as: create a postgres system user or run Sledge as an ordinary user")
}

// sysProcAttr makes a child run as a (when not nil) and, with newGroup, in a
// process group of its own so that a Ctrl-C aimed at Sledge does not reach it.
func (a *account) sysProcAttr(newGroup bool) *syscall.SysProcAttr {
	if a == nil && !newGroup {
		return nil
	}
	attr := &syscall.SysProcAttr{Setpgid: newGroup}
	if a != nil {
		// Groups is empty on purpose: the child keeps only the primary group,
		// which is what checkReachable assumes.
		attr.Credential = &syscall.Credential{Uid: a.uid, Gid: a.gid, Groups: []uint32{}}
	}
	return attr
}

// chown gives path to a; a no-op for the current user.
func (a *account) chown(path string) error {
	if a == nil {
		return nil
	}
	if err := os.Lchown(path, int(a.uid), int(a.gid)); err != nil {
		return fmt.Errorf("give %s to user %s: %w", path, a.name, err)
	}
	return nil
}

// checkReachable reports an error if a cannot traverse every parent
// directory of dir: the server must reach its data directory, and a root
// home directory (mode 0700) is the usual obstacle.
func (a *account) checkReachable(dir string) error {
	if a == nil {
		return nil
	}
	for p := dir; p != filepath.Dir(p); {
		p = filepath.Dir(p)
		fi, err := os.Stat(p)
		if errors.Is(err, os.ErrNotExist) {
			continue // to be created, enterable by all (0755)
		}
		if err != nil {
			return err
		}
		st, ok := fi.Sys().(*syscall.Stat_t)
		if !ok {
			return nil
		}
		perm := fi.Mode().Perm()
		var x os.FileMode
		switch {
		case st.Uid == a.uid:
			x = perm & 0o100
		case st.Gid == a.gid:
			x = perm & 0o010
		default:
			x = perm & 0o001
		}
		if x == 0 {
			return fmt.Errorf("%w: the server runs as user %s (PostgreSQL refuses to run as root), which cannot enter %s (mode %v): "+
				"put the sandbox under a directory every user can enter, e.g. under %s, or run Sledge as an ordinary user",
				ErrUnreachable, a.name, p, perm, os.TempDir())
		}
	}
	return nil
}

func (a *account) String() string {
	if a == nil {
		return "the current user"
	}
	return "user " + a.name
}

// postmasterAlive reports whether pid is a live postmaster serving dataDir.
// The PID in a postmaster.pid left by a crash may since belong to another
// program (containers reuse low PIDs after every restart); postgres then
// refuses to start ("lock file already exists"), so liveness alone is not
// enough.
func postmasterAlive(pid int, dataDir string) bool {
	if pid <= 0 {
		return false
	}
	if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
		return false
	}
	if isZombie(pid) {
		return false
	}
	proc := "/proc/" + strconv.Itoa(pid)
	// The postmaster's working directory is its data directory.
	if cwd, err := os.Readlink(proc + "/cwd"); err == nil {
		want, err := filepath.EvalSymlinks(dataDir)
		if err != nil {
			want = dataDir
		}
		return cwd == want
	}
	if comm, err := os.ReadFile(proc + "/comm"); err == nil {
		c := strings.TrimSpace(string(comm))
		return c == "postgres" || c == "postmaster"
	}
	return true // no /proc (macOS): trust the signal check
}

// processExists reports whether any process (a zombie included) has pid.
func processExists(pid int) bool {
	return pid > 0 && !errors.Is(syscall.Kill(pid, 0), syscall.ESRCH)
}

// isZombie reports whether pid has exited but not been reaped yet, as a killed
// postmaster is until its parent (usually init) collects it.
func isZombie(pid int) bool {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	i := strings.LastIndexByte(string(stat), ')')
	return i >= 0 && strings.HasPrefix(string(stat[i+1:]), " Z")
}
