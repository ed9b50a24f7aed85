// Package pyembed carries the sledge Python package (python/sledge) inside
// the Go binary, so that `sledge cli py` works from any directory without an
// installation step.
package pyembed

import (
	"embed"
	"io/fs"
	"os"
	"path/filepath"
)

//go:embed sledge/*.py
var files embed.FS

// Extract writes the package into dir (as dir/sledge/…), ready for PYTHONPATH.
func Extract(dir string) error {
	return fs.WalkDir(files, "sledge", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		dst := filepath.Join(dir, filepath.FromSlash(path))
		if d.IsDir() {
			return os.MkdirAll(dst, 0o755)
		}
		b, err := files.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(dst, b, 0o644)
	})
}
