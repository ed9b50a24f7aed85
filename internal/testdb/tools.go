package testdb

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
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

// Home isolates a test's Sledge data directory (where the embedded default
// databases go) and jobs repository in temp dirs, through the environment
// every front end reads ($SLEDGE_HOME, $SLEDGE_DB, $SLEDGE_REPO, and $TMP
// for the HammerDB layer's files), and returns
// the repository's path.
func Home(t testing.TB) string {
	t.Helper()
	t.Setenv("SLEDGE_HOME", t.TempDir())
	t.Setenv("SLEDGE_DB", "")
	repo := filepath.Join(t.TempDir(), "jobs.db")
	t.Setenv("SLEDGE_REPO", repo)
	// HammerDB's temporary directory (vuset logtotemp, jobs ID save) is the
	// first of $TMP, $TMPDIR, …: keep a test's logs out of the shared /tmp.
	t.Setenv("TMP", t.TempDir())
	return repo
}
