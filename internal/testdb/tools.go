package testdb

import (
	"context"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/sledge-bench/sledge/internal/sandbox"
)

// Command makes sure a command-line tool the tests drive is installed: when
// it is missing and the tests may install packages (root, apt-get), it
// installs the Debian package (sandbox.AptInstall). Without the tool the test
// is skipped, unless $CI is set: there it fails, so that tests cannot pass by
// not running.
func Command(t testing.TB, name, debianPackage string) string {
	t.Helper()
	if path, err := exec.LookPath(name); err == nil {
		return path
	}
	if sandbox.CanAptInstall() {
		ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
		defer cancel()
		if err := sandbox.AptInstall(ctx, debianPackage); err != nil {
			t.Logf("installing %s: %v", debianPackage, err)
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
