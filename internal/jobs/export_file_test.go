package jobs

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCreateExport writes an export's bytes to a file, compressed or not,
// and reads them back; a file that cannot be written is not left behind.
func TestCreateExport(t *testing.T) {
	t.Parallel()
	var data bytes.Buffer
	if err := WriteExport(&data, &ExportFile{Format: ExportFormat, Version: ExportVersion}, false); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, compress := range []bool{false, true} {
		path := filepath.Join(dir, "export")
		if compress {
			path += ".gz"
		}
		if err := CreateExport(path, data.Bytes(), compress); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if gz := len(b) > 1 && b[0] == 0x1f && b[1] == 0x8b; gz != compress {
			t.Errorf("compress %v: the file is gzip: %v", compress, gz)
		}
		f, err := ReadExport(bytes.NewReader(b))
		if err != nil {
			t.Fatalf("compress %v: %v", compress, err)
		}
		if f.Format != ExportFormat || f.Version != ExportVersion {
			t.Errorf("compress %v: read back %q version %d", compress, f.Format, f.Version)
		}
	}
	missing := filepath.Join(dir, "no-such-dir", "export")
	if err := CreateExport(missing, data.Bytes(), false); err == nil {
		t.Error("an export into a missing directory was written")
	}
	if _, err := os.Stat(missing); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a failed export left %s: %v", missing, err)
	}
}

// TestReadExportFiles reads exports by name, "-" from stdin and relative
// names in the directory given; one bad file fails them all, named as
// given.
func TestReadExportFiles(t *testing.T) {
	t.Parallel()
	var data bytes.Buffer
	if err := WriteExport(&data, &ExportFile{Format: ExportFormat, Version: ExportVersion}, false); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.json"), data.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "bad.json"), []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name    string
		names   []string
		want    int    // files read
		wantErr string // a part of the error, "" for none
	}{
		{name: "relative", names: []string{"a.json"}, want: 1},
		{name: "absolute and stdin", names: []string{filepath.Join(dir, "a.json"), "-"}, want: 2},
		{name: "not an export", names: []string{"a.json", "bad.json"}, wantErr: "bad.json: read export: format"},
		{name: "missing", names: []string{"none.json"}, wantErr: filepath.Join(dir, "none.json")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			files, err := ReadExportFiles(dir, bytes.NewReader(data.Bytes()), tc.names)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want one holding %q", err, tc.wantErr)
				}
				return
			}
			if err != nil || len(files) != tc.want {
				t.Fatalf("%d files (%v), want %d", len(files), err, tc.want)
			}
		})
	}
}
