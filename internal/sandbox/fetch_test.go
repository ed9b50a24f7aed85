package sandbox

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// tarGz makes a gzipped tar of entries (a Linkname makes a symlink, a
// name ending in / a directory).
func tarGz(t *testing.T, entries []tar.Header, body string) []byte {
	t.Helper()
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	for _, h := range entries {
		switch {
		case h.Typeflag != 0:
		case strings.HasSuffix(h.Name, "/"):
			h.Typeflag, h.Mode = tar.TypeDir, 0o755
		default:
			h.Typeflag, h.Size = tar.TypeReg, int64(len(body))
			if h.Mode == 0 {
				h.Mode = 0o644
			}
		}
		if err := tw.WriteHeader(&h); err != nil {
			t.Fatal(err)
		}
		if h.Typeflag == tar.TypeReg {
			tw.Write([]byte(body))
		}
	}
	tw.Close()
	gz.Close()
	return buf.Bytes()
}

func TestUntarGz(t *testing.T) {
	t.Parallel()
	top := "postgresql-18.6.0-x86_64-unknown-linux-gnu/"
	good := []tar.Header{
		{Name: top},
		{Name: top + "bin/"},
		{Name: top + "bin/postgres", Mode: 0o755},
		{Name: top + "lib/libpq.so.5.18"},
		{Name: top + "lib/libpq.so.5", Typeflag: tar.TypeSymlink, Linkname: "libpq.so.5.18"},
		{Name: top + "lib/libpq.hard", Typeflag: tar.TypeLink, Linkname: top + "lib/libpq.so.5.18"},
	}
	tests := []struct {
		name    string
		entries []tar.Header
		wantErr string
	}{
		{"a server tree", good, ""},
		{"a name leaving the directory", append(good, tar.Header{Name: top + "../../etc/passwd"}), "leaves"},
		{"a relative symlink leaving it", append(good, tar.Header{Name: top + "lib/x", Typeflag: tar.TypeSymlink, Linkname: "../../../etc"}), "leaves"},
		{"an absolute symlink", append(good, tar.Header{Name: top + "lib/y", Typeflag: tar.TypeSymlink, Linkname: "/etc/passwd"}), "leaves"},
		{"a device", append(good, tar.Header{Name: top + "dev", Typeflag: tar.TypeChar}), "unexpected entry type"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			err := untarGz(bytes.NewReader(tarGz(t, tt.entries, "elf")), dir, 1)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("untarGz: %v, want an error saying %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			fi, err := os.Stat(filepath.Join(dir, "bin", "postgres"))
			if err != nil || fi.Mode().Perm() != 0o755 {
				t.Fatalf("bin/postgres: %v, %v; want it unpacked under the stripped name, executable", fi, err)
			}
			for _, name := range []string{"libpq.so.5", "libpq.hard"} {
				if b, err := os.ReadFile(filepath.Join(dir, "lib", name)); err != nil || string(b) != "elf" {
					t.Errorf("lib/%s: %q, %v", name, b, err)
				}
			}
		})
	}
}

func TestFetchPostgresRefusesUnknownMajor(t *testing.T) {
	t.Parallel()
	cache := t.TempDir()
	_, err := FetchPostgres(context.Background(), cache, 9)
	if err == nil || errors.Is(err, ErrFetch) || !strings.Contains(err.Error(), "16, 17, 18") {
		t.Fatalf("FetchPostgres(9): %v, want an error listing the fetchable versions, not a fetch failure", err)
	}
	if entries, _ := os.ReadDir(cache); len(entries) != 0 {
		t.Errorf("the cache holds %d entries after a refusal", len(entries))
	}
}

func TestFetchPostgresReusesTheCache(t *testing.T) {
	t.Parallel()
	// A release already unpacked is used as is: no pip, no network.
	cache := t.TempDir()
	bin := filepath.Join(cache, "postgresql-"+pgReleases()[17].version, "bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"initdb", "pg_ctl", "postgres"} {
		if err := os.WriteFile(filepath.Join(bin, name), []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // a download would fail at once
	got, err := FetchPostgres(ctx, cache, 17)
	if err != nil || got != bin {
		t.Fatalf("FetchPostgres = %q, %v; want %q", got, err, bin)
	}
}

func TestCacheDir(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		xdg, home string
		root      bool
		want      string // "" for an error
	}{
		{"XDG_CACHE_HOME", "/x", "/home/u", false, "/x/sledge"},
		{"XDG_CACHE_HOME for root too", "/x", "/root", true, "/x/sledge"},
		{"the home directory", "", "/home/u", false, "/home/u/.cache/sledge"},
		{"root: out of its private home", "", "/root", true, RootCacheDir},
		{"nothing to go by", "", "", false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := CacheDir(tt.xdg, tt.home, tt.root)
			if tt.want == "" {
				if err == nil {
					t.Fatalf("CacheDir = %q, want an error", got)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("CacheDir = %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}
