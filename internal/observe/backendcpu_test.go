package observe

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestProcessCPU(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	write := func(pid, comm, stat string) {
		dir := filepath.Join(root, pid)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "comm"), []byte(comm+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "stat"), []byte(stat), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// utime 250 and stime 50 ticks: 3 s; a name with spaces and a ')'.
	write("41", "postgres", "41 (postgres: a (b) c) S 1 41 41 0 -1 4194560 100 0 0 0 250 50 0 0 20 0 1 0 100 0 0\n")
	write("42", "bash", "42 (bash) S 1 42 42 0 -1 4194560 100 0 0 0 999 1 0 0 20 0 1 0 100 0 0\n")
	for _, tc := range []struct {
		pid  int
		want time.Duration
		ok   bool
	}{{41, 3 * time.Second, true}, {42, 0, false}, {43, 0, false}} {
		got, ok := processCPU(root, tc.pid, "postgres")
		if got != tc.want || ok != tc.ok {
			t.Errorf("pid %d: %v %v, want %v %v", tc.pid, got, ok, tc.want, tc.ok)
		}
	}
	b := newBackendCPU(root, "postgres")
	b.read(41)
	if d, ok := b.total(); d != 3*time.Second || !ok {
		t.Errorf("total %v %v", d, ok)
	}
	// Marked at 3 s, read at 3.5 s: only the half second after the mark.
	b.mark(41)
	write("41", "postgres", "41 (postgres: a (b) c) S 1 41 41 0 -1 4194560 100 0 0 0 290 60 0 0 20 0 1 0 100 0 0\n")
	b.read(41)
	if d, ok := b.total(); d != 500*time.Millisecond || !ok {
		t.Errorf("total after the mark %v %v, want 500ms", d, ok)
	}
	b.read(42) // not the server's: the share is no longer measured whole
	if _, ok := b.total(); ok {
		t.Error("a session not measured still counts as measured")
	}
}
