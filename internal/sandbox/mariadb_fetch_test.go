package sandbox

import (
	"archive/zip"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeJar writes a zip of entries (a name ending in / a directory, else a
// file of mode 0644 holding its name) to a new file and returns its path.
func writeJar(t *testing.T, names ...string) string {
	t.Helper()
	jar := filepath.Join(t.TempDir(), "db.jar")
	f, err := os.Create(jar)
	if err != nil {
		t.Fatal(err)
	}
	zw := zip.NewWriter(f)
	for _, name := range names {
		h := &zip.FileHeader{Name: name, Method: zip.Deflate}
		h.SetMode(0o644)
		if strings.HasSuffix(name, "/") {
			h.SetMode(os.ModeDir | 0o755)
		}
		w, err := zw.CreateHeader(h)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasSuffix(name, "/") {
			w.Write([]byte(name))
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	return jar
}

func TestUnzipMariaDB(t *testing.T) {
	t.Parallel()
	const prefix = "ch/x/mariadb-11.4.5/linux/"
	tests := []struct {
		name    string
		entries []string
		want    map[string]os.FileMode // unpacked files and their modes; nil: an error
		wantErr string
	}{
		{"bin, scripts and share only, programs executable", []string{
			"META-INF/MANIFEST.MF", prefix, prefix + "bin/", prefix + "bin/mariadbd",
			prefix + "scripts/mariadb-install-db", prefix + "share/english/errmsg.sys",
			prefix + "libs/libmariadb.so.3", "README.md", "ch/x/mariadb-11.4.5/windows/bin/mariadbd.exe",
		}, map[string]os.FileMode{
			"bin/mariadbd": 0o755, "scripts/mariadb-install-db": 0o755, "share/english/errmsg.sys": 0o644,
		}, ""},
		{"a name leaving the directory", []string{prefix + "share/../../../etc/passwd"}, nil, "leaves the archive's directory"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			err := unzipMariaDB(writeJar(t, tt.entries...), prefix, dir)
			if tt.want == nil {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("unzipMariaDB: %v, want an error saying %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]os.FileMode{}
			filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
				if err == nil && !d.IsDir() {
					fi, _ := d.Info()
					rel, _ := filepath.Rel(dir, p)
					got[filepath.ToSlash(rel)] = fi.Mode().Perm()
				}
				return err
			})
			if len(got) != len(tt.want) {
				t.Errorf("unpacked %v, want %v", got, tt.want)
			}
			for name, mode := range tt.want {
				if got[name] != mode {
					t.Errorf("%s: mode %v, want %v (unpacked: %v)", name, got[name], mode, got)
				}
			}
		})
	}
}

func TestFetchMariaDBRefusesUnknownVersion(t *testing.T) {
	t.Parallel()
	cache := t.TempDir()
	_, err := FetchMariaDB(context.Background(), cache, "10.6")
	if err == nil || errors.Is(err, ErrFetch) || !strings.Contains(err.Error(), "the fetchable versions are 11.4") {
		t.Fatalf("FetchMariaDB(10.6): %v, want an error listing the fetchable versions, not a fetch failure", err)
	}
	if entries, _ := os.ReadDir(cache); len(entries) != 0 {
		t.Errorf("the cache holds %d entries after a refusal", len(entries))
	}
}

func TestFetchMariaDBReusesTheCache(t *testing.T) {
	t.Parallel()
	// A release already unpacked is used as is: no network.
	cache := t.TempDir()
	dir := filepath.Join(cache, "mariadb-"+mariaReleases()["11.4"].version)
	for _, p := range []string{"bin/mariadbd", "scripts/mariadb-install-db"} {
		if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(p)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, p), []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // a download would fail at once
	got, err := FetchMariaDB(ctx, cache, "11.4")
	want := filepath.Join(dir, "bin") + string(filepath.ListSeparator) + filepath.Join(dir, "scripts")
	if err != nil || got != want {
		t.Fatalf("FetchMariaDB = %q, %v; want %q", got, err, want)
	}
}
