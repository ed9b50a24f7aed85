package spool

import (
	"errors"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

type value struct {
	N    int
	Rate float64 // NaN must survive: JSON could not carry it
	Text string
}

// TestSpoolRoundTrip: what is appended is read back in order, header
// first, NaN and all; the file is named after the job (and segment) and
// process.
func TestSpoolRoundTrip(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		head Header
		file string
	}{
		{"one process", Header{Repo: "/data/jobs.db", Job: 7, PID: 1234}, "job-7-pid-1234.spool"},
		{"agent", Header{Repo: "postgres://u:xxxxx@h/db", Job: 8, RunID: "r", Segment: "1/3", PID: 99}, "job-8-segment-1-3-pid-99.spool"},
		{"fraction", Header{Repo: "x", Job: 9, Segment: "0:1/2", PID: 5}, "job-9-segment-0_1-2-pid-5.spool"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := filepath.Join(t.TempDir(), "spool")
			f, err := Create(dir, tc.head)
			if err != nil {
				t.Fatal(err)
			}
			if filepath.Base(f.Path()) != tc.file {
				t.Errorf("file %s, want %s", filepath.Base(f.Path()), tc.file)
			}
			in := []value{{1, 2.5, "a"}, {2, math.NaN(), "b\nc"}}
			for i, v := range in {
				if err := f.Append(KindInterval, i+1, v); err != nil {
					t.Fatal(err)
				}
			}
			f.Close()
			c, err := Read(f.Path())
			if err != nil {
				t.Fatal(err)
			}
			if c.Header.Job != tc.head.Job || c.Header.Segment != tc.head.Segment || c.Header.Repo != tc.head.Repo || c.Damaged != 0 {
				t.Fatalf("header %+v, damaged %d", c.Header, c.Damaged)
			}
			if len(c.Records) != len(in) {
				t.Fatalf("%d records, want %d", len(c.Records), len(in))
			}
			for i, r := range c.Records {
				var v value
				if err := r.Decode(&v); err != nil {
					t.Fatal(err)
				}
				if r.Seq != i+1 || v.N != in[i].N || v.Text != in[i].Text ||
					(v.Rate != in[i].Rate && !(math.IsNaN(v.Rate) && math.IsNaN(in[i].Rate))) {
					t.Errorf("record %d: seq %d %+v, want %+v", i, r.Seq, v, in[i])
				}
			}
			paths, err := List(dir)
			if err != nil || len(paths) != 1 || paths[0] != f.Path() {
				t.Errorf("List: %v %v", paths, err)
			}
		})
	}
}

// TestSpoolTornLine: a crash while a line was written leaves part of it;
// Read keeps every whole record before it and counts the torn one.
func TestSpoolTornLine(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		tail  string
		whole int
	}{
		{"half a record", `{"kind":"interval","seq":3,"at":"2026-01-0`, 2},
		{"garbage", "\x00\x00\x00", 2},
		{"no tail", "", 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f, err := Create(t.TempDir(), Header{Repo: "r", Job: 3, PID: 1})
			if err != nil {
				t.Fatal(err)
			}
			for i := range 2 {
				if err := f.Append(KindInterval, i+1, value{N: i}); err != nil {
					t.Fatal(err)
				}
			}
			f.Close()
			raw, err := os.OpenFile(f.Path(), os.O_WRONLY|os.O_APPEND, 0)
			if err != nil {
				t.Fatal(err)
			}
			raw.WriteString(tc.tail)
			raw.Close()
			c, err := Read(f.Path())
			if err != nil {
				t.Fatal(err)
			}
			damaged := 0
			if tc.tail != "" {
				damaged = 1
			}
			if len(c.Records) != tc.whole || c.Damaged != damaged {
				t.Errorf("%d records, %d damaged; want %d, %d", len(c.Records), c.Damaged, tc.whole, damaged)
			}
		})
	}
}

// TestSpoolNoHeader: a file torn before its header was written is no spool.
func TestSpoolNoHeader(t *testing.T) {
	t.Parallel()
	for _, content := range []string{"", `{"repo":"r","jo`} {
		p := filepath.Join(t.TempDir(), "job-1-pid-1.spool")
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		if _, err := Read(p); err == nil || !strings.Contains(err.Error(), "no header") {
			t.Errorf("%q: %v, want no header", content, err)
		}
	}
}

// TestSpoolClaim: a file its writer still holds is busy for another
// claimant; once the writer closes it, it can be claimed and removed.
func TestSpoolClaim(t *testing.T) {
	t.Parallel()
	f, err := Create(t.TempDir(), Header{Repo: "r", Job: 4, PID: 1, Created: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Append(KindFinish, 0, "completed"); err != nil {
		t.Fatal(err)
	}
	if _, err := Claim(f.Path()); !errors.Is(err, ErrBusy) {
		t.Fatalf("claim of a file being written: %v, want ErrBusy", err)
	}
	f.Close()
	c, err := Claim(f.Path())
	if err != nil {
		t.Fatal(err)
	}
	if c.Header.Job != 4 || len(c.Records) != 1 {
		t.Fatalf("claimed %+v", c.Contents)
	}
	if _, err := Claim(f.Path()); !errors.Is(err, ErrBusy) {
		t.Errorf("second claim: %v, want ErrBusy", err)
	}
	if err := c.Remove(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(f.Path()); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("file still there after Remove: %v", err)
	}
}

// TestSpoolListOrder: files are listed by job number, not as text.
func TestSpoolListOrder(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, n := range []string{"job-10-pid-1.spool", "job-9-pid-1.spool", "job-9-segment-0-2-pid-3.spool", "other.txt"} {
		os.WriteFile(filepath.Join(dir, n), nil, 0o600)
	}
	paths, err := List(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range paths {
		names = append(names, filepath.Base(p))
	}
	want := "job-9-pid-1.spool job-9-segment-0-2-pid-3.spool job-10-pid-1.spool"
	if strings.Join(names, " ") != want {
		t.Errorf("List: %v, want %s", names, want)
	}
	if p, err := List(filepath.Join(dir, "none")); err != nil || p != nil {
		t.Errorf("List of a missing directory: %v %v", p, err)
	}
}

// TestSpoolMoveTo: a file moved to another directory holds every whole
// record, in order, under the same header and name, and is gone from the
// first; a torn line is left behind. A directory that cannot be written
// leaves the file as it was, still appendable.
func TestSpoolMoveTo(t *testing.T) {
	t.Parallel()
	head := Header{Repo: "/data/jobs.db", Job: 4, PID: 77}
	f, err := Create(filepath.Join(t.TempDir(), "a"), head)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		if err := f.Append(KindInterval, i+1, value{N: i, Rate: math.NaN()}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := f.f.WriteString(`{"kind":"interval","se`); err != nil { // a torn fourth
		t.Fatal(err)
	}

	blocked := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(blocked, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := f.MoveTo(blocked); err == nil {
		t.Fatal("moved into a directory that is a file")
	}
	if _, err := os.Stat(f.Path()); err != nil {
		t.Fatalf("the file after a failed move: %v", err)
	}

	old := f.Path()
	to := filepath.Join(t.TempDir(), "b")
	g, err := f.MoveTo(to)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(old); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the old file after the move: %v", err)
	}
	if g.Path() != filepath.Join(to, filepath.Base(old)) {
		t.Errorf("moved to %s, want %s", g.Path(), filepath.Join(to, filepath.Base(old)))
	}
	if err := g.Append(KindResult, 0, value{N: 9}); err != nil {
		t.Fatal(err)
	}
	g.Close()
	c, err := Read(g.Path())
	if err != nil {
		t.Fatal(err)
	}
	if c.Header.Job != head.Job || c.Header.Repo != head.Repo || c.Damaged != 0 || len(c.Records) != 4 {
		t.Fatalf("header %+v, %d records, %d damaged; want job 4's, 4 records, none damaged", c.Header, len(c.Records), c.Damaged)
	}
	wantN := []int{0, 1, 2, 9}
	for i, r := range c.Records {
		var v value
		if err := r.Decode(&v); err != nil {
			t.Fatal(err)
		}
		if v.N != wantN[i] || (i < 3 && (r.Seq != i+1 || !math.IsNaN(v.Rate))) {
			t.Errorf("record %d: %s seq %d %+v, want N %d", i, r.Kind, r.Seq, v, wantN[i])
		}
	}
}

// TestSpoolClaimWaitsForAnEndedWriter: a lock on a file whose writer (of
// this host) has ended is held only by a descriptor a forked child has not
// closed yet; Claim waits for it to go. A live writer's lock is ErrBusy at
// once.
func TestSpoolClaimWaitsForAnEndedWriter(t *testing.T) {
	t.Parallel()
	host, _ := os.Hostname()
	ended := exec.Command("true")
	if err := ended.Run(); err != nil {
		t.Skipf("no process to end: %v", err)
	}
	for _, tc := range []struct {
		name  string
		pid   int
		claim bool
	}{
		{"writer ended", ended.Process.Pid, true},
		{"writer alive", os.Getpid(), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f, err := Create(t.TempDir(), Header{Repo: "r", Job: 5, Host: host, PID: tc.pid})
			if err != nil {
				t.Fatal(err)
			}
			if tc.claim {
				// The lock lingers a moment after the writer, as in a
				// child between fork and exec.
				go func() {
					time.Sleep(20 * time.Millisecond)
					f.Close()
				}()
			} else {
				defer f.Close() // held throughout
			}
			c, err := Claim(f.Path())
			switch {
			case tc.claim && err != nil:
				t.Fatalf("claim of an ended writer's file: %v", err)
			case !tc.claim && !errors.Is(err, ErrBusy):
				t.Fatalf("claim of a live writer's file: %v, want ErrBusy", err)
			case c != nil:
				c.Close()
			}
		})
	}
}
