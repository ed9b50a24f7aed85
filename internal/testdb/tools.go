package testdb

import (
	"os"
	"os/exec"
	"testing"
)

// Command makes sure a command-line tool the tests drive is installed: when
// it is missing and the tests run as root, it installs the Debian package
// with apt-get (serialized across test binaries by the same lock as the
// MariaDB install). Without the tool the test is skipped, unless $CI is set:
// there it fails, so that tests cannot pass by not running.
func Command(t testing.TB, name, debianPackage string) string {
	t.Helper()
	if path, err := exec.LookPath(name); err == nil {
		return path
	}
	if os.Geteuid() == 0 {
		script := "command -v " + name + " || (apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q " + debianPackage + ")"
		if out, err := exec.Command("flock", "/tmp/sledge-apt.lock", "/bin/sh", "-c", script).CombinedOutput(); err != nil {
			t.Logf("installing %s: %v\n%s", debianPackage, err, out)
		}
	}
	path, err := exec.LookPath(name)
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("CI is set but %s is missing and could not be installed (apt-get install %s)", name, debianPackage)
		}
		t.Skipf("%s not installed (apt-get install %s)", name, debianPackage)
	}
	return path
}
