package sandbox

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// ErrNotInstalled is returned (errors.Is) when no PostgreSQL server binaries
// can be found. Callers such as test helpers use it to tell "PostgreSQL is not
// installed here" apart from a sandbox that failed to start.
var ErrNotInstalled = errors.New("PostgreSQL server binaries not found")

// debianRoot is where Debian and Ubuntu install each major version side by
// side (/usr/lib/postgresql/15/bin, …) without putting pg_ctl on PATH.
const debianRoot = "/usr/lib/postgresql"

// FindBinaries returns the directory holding initdb and pg_ctl (and, next to
// them, postgres): chosen, when the user chose one (Sledge's command reads
// $SLEDGE_PG_BIN), else the directory of pg_ctl on PATH, else the highest
// version under /usr/lib/postgresql/*/bin.
func FindBinaries(chosen string) (string, error) {
	return findBinaries(chosen, "")
}

// findBinaries is FindBinaries preferring major version want (the version of
// an existing cluster, which only a server of the same major version can run)
// among the side-by-side installations.
func findBinaries(chosen, want string) (string, error) {
	if chosen != "" {
		// An explicit choice is never second-guessed by a fallback.
		if !hasBinaries(chosen) {
			return "", fmt.Errorf("%w in %s, the directory chosen (it needs initdb, pg_ctl and postgres)", ErrNotInstalled, chosen)
		}
		return filepath.Abs(chosen)
	}
	if want != "" {
		if dir := filepath.Join(debianRoot, want, "bin"); hasBinaries(dir) {
			return dir, nil
		}
	}
	if p, err := exec.LookPath("pg_ctl"); err == nil {
		// PATH entries are often symlinks (/usr/local/bin, Homebrew); pg_ctl
		// finds postgres next to its real location, and so must we.
		if real, err := filepath.EvalSymlinks(p); err == nil {
			p = real
		}
		if p, err = filepath.Abs(p); err == nil && hasBinaries(filepath.Dir(p)) {
			return filepath.Dir(p), nil
		}
	}
	if dir := highestDebianVersion(); dir != "" {
		return dir, nil
	}
	return "", fmt.Errorf("%w: looked on PATH and in %s/*/bin; install the PostgreSQL server "+
		"(Debian/Ubuntu: apt-get install postgresql; Fedora: dnf install postgresql-server; macOS: brew install postgresql) "+
		"or set SLEDGE_PG_BIN to the directory holding initdb and pg_ctl", ErrNotInstalled, debianRoot)
}

func hasBinaries(dir string) bool {
	for _, name := range []string{"initdb", "pg_ctl", "postgres"} {
		fi, err := os.Stat(filepath.Join(dir, name))
		if err != nil || fi.IsDir() || fi.Mode().Perm()&0o111 == 0 {
			return false
		}
	}
	return true
}

// highestDebianVersion returns the bin directory of the highest major version
// under debianRoot, comparing versions numerically (so 10 beats 9.6).
func highestDebianVersion() string {
	entries, err := os.ReadDir(debianRoot)
	if err != nil {
		return ""
	}
	var versions []string
	for _, e := range entries {
		if hasBinaries(filepath.Join(debianRoot, e.Name(), "bin")) {
			versions = append(versions, e.Name())
		}
	}
	if len(versions) == 0 {
		return ""
	}
	slices.SortFunc(versions, compareVersions)
	return filepath.Join(debianRoot, versions[len(versions)-1], "bin")
}

// compareVersions orders dotted version strings numerically, part by part;
// a non-numeric part sorts before any number.
func compareVersions(a, b string) int {
	pa, pb := strings.Split(a, "."), strings.Split(b, ".")
	for i := 0; i < max(len(pa), len(pb)); i++ {
		na, nb := -1, -1
		if i < len(pa) {
			if n, err := strconv.Atoi(pa[i]); err == nil {
				na = n
			}
		}
		if i < len(pb) {
			if n, err := strconv.Atoi(pb[i]); err == nil {
				nb = n
			}
		}
		if na != nb {
			return na - nb
		}
	}
	return strings.Compare(a, b)
}
