package jobs

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
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
