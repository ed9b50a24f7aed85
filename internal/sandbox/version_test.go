package sandbox

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fakeBinaries makes a directory whose postgres says it is version
// (postgres --version's line), next to do-nothing initdb and pg_ctl.
func fakeBinaries(t *testing.T, versionLine string) string {
	t.Helper()
	dir := t.TempDir()
	for name, script := range map[string]string{
		"postgres": "#!/bin/sh\necho '" + versionLine + "'\n",
		"initdb":   "#!/bin/sh\nexit 1\n",
		"pg_ctl":   "#!/bin/sh\nexit 1\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestBinariesMajor(t *testing.T) {
	t.Parallel()
	tests := []struct{ line, want string }{
		{"postgres (PostgreSQL) 17.11", "17"},
		{"postgres (PostgreSQL) 15.14 (Debian 16.1-0+deb12u1)", "15"}, // a packager's suffix is no version
		{"postgres (PostgreSQL) 18beta1", "18"},
		{"postgres (PostgreSQL) 9.6.24", "9.6"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			t.Parallel()
			got, err := binariesMajor(context.Background(), fakeBinaries(t, tt.line))
			if err != nil || got != tt.want {
				t.Fatalf("binariesMajor(%q) = %q, %v; want %q", tt.line, got, err, tt.want)
			}
		})
	}
}

func TestStartRefusesAnotherMajorVersion(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, dataSubdir), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, dataSubdir, "PG_VERSION"), []byte("16\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := StartPostgres(context.Background(), dir, Options{BinDir: fakeBinaries(t, "postgres (PostgreSQL) 17.11")})
	if err == nil || !strings.Contains(err.Error(), "PostgreSQL 16's") || !strings.Contains(err.Error(), "is PostgreSQL 17") {
		t.Fatalf("StartPostgres: %v, want a refusal naming both versions", err)
	}
}
