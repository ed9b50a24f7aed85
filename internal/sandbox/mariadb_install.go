package sandbox

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"
)

// aptLock serializes installations by concurrently running processes (go
// test runs a binary per package in parallel): apt-get refuses to run while
// another holds dpkg's lock, rather than wait.
const aptLock = "/tmp/sledge-apt.lock"

// EnsureMariaDB finds the MariaDB binaries (FindMariaDB(chosen)) and, where
// they are missing and this process may install packages (root, apt-get, no
// directories chosen for the binaries), installs Debian's mariadb-server
// first. The error
// wraps ErrNotInstalled when MariaDB is still missing. logf, if set, hears
// that an installation starts. Test helpers use it: the test command must
// bring what it needs on a fresh machine.
func EnsureMariaDB(ctx context.Context, chosen string, logf func(format string, args ...any)) (MariaDBBinaries, error) {
	bins, err := FindMariaDB(chosen)
	if err == nil || chosen != "" || !CanAptInstall() {
		return bins, err
	}
	if logf != nil {
		logf("%v; installing mariadb-server with apt-get", err)
	}
	ctx, cancel := context.WithTimeout(ctx, 15*time.Minute)
	defer cancel()
	ierr := installMariaDB(ctx)
	// Checked whatever apt-get said: it may fail over the system server it
	// could not start after installing the binaries.
	bins, err = FindMariaDB(chosen)
	if err != nil {
		if ierr == nil {
			ierr = errors.New("it succeeded, but did not provide them")
		}
		return bins, fmt.Errorf("%w\n(installing mariadb-server: %v)", err, ierr)
	}
	if ierr != nil && logf != nil {
		logf("%v\n(but MariaDB is installed now)", ierr)
	}
	return bins, nil
}

// installMariaDB installs Debian's mariadb-server package. The package's
// attempt to start the system's own server may be refused (policy-rc.d, no
// init system): that is fine, sandboxes never use that server.
func installMariaDB(ctx context.Context) error { return AptInstall(ctx, "mariadb-server") }

// CanAptInstall reports whether this process may install Debian packages:
// root, with apt-get.
func CanAptInstall() bool {
	if os.Geteuid() != 0 {
		return false
	}
	_, err := exec.LookPath("apt-get")
	return err == nil
}

// AptInstall installs a Debian package with apt-get, holding aptLock with
// flock(1) (util-linux, on every system that has apt-get) so that only one
// process installs at a time and the others wait. Under the lock it first
// checks whether another process installed the package meanwhile. Test
// helpers use it for what the test command must bring on a fresh machine.
func AptInstall(ctx context.Context, pkg string) error {
	script := `dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'ok installed' && exit 0
apt-get update -q && apt-get install -y -q -o DPkg::Lock::Timeout=600 "$1"`
	flock, err := exec.LookPath("flock")
	if err != nil {
		return fmt.Errorf("flock(1), to take %s, is missing: %w", aptLock, err)
	}
	cmd := exec.CommandContext(ctx, flock, aptLock, "/bin/sh", "-c", script, "sh", pkg)
	cmd.Env = append(os.Environ(), "DEBIAN_FRONTEND=noninteractive")
	cmd.WaitDelay = 10 * time.Second
	out, err := cmd.CombinedOutput()
	if err != nil {
		if len(out) > 4096 {
			out = out[len(out)-4096:]
		}
		return fmt.Errorf("apt-get install %s: %w\n%s", pkg, err, strings.TrimSpace(string(out)))
	}
	return nil
}
