package report

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestProfileWriters: each profile command's writer gives the text form,
// or JSON that parses; an empty list says how to run a profile, as text,
// and is [] as JSON.
func TestProfileWriters(t *testing.T) {
	t.Parallel()
	a := testProfile(10, []int{1, 2}, [][]float64{{1000}, {2000}})
	b := testProfile(20, []int{1, 2}, [][]float64{{1100}, {2100}})
	for _, tc := range []struct {
		name     string
		write    func(w *bytes.Buffer, asJSON bool) error
		wantText string
		wantJSON string
	}{
		{"show", func(w *bytes.Buffer, j bool) error { return ProfileShow(w, a, j) }, "Profile 10: ", `"steps"`},
		{"list", func(w *bytes.Buffer, j bool) error { return ProfileList(w, []Profile{a, b}, j) }, "20 ", `"id": "20"`},
		{"list, none", func(w *bytes.Buffer, j bool) error { return ProfileList(w, nil, j) },
			"No profiles in the repository (run one with sledge profile --vu LIST).\n", "[]"},
		{"compare", func(w *bytes.Buffer, j bool) error { return ProfileCompare(w, a, b, j) }, "Profile 10", `"steps"`},
	} {
		var text, js bytes.Buffer
		if err := tc.write(&text, false); err != nil || !strings.Contains(text.String(), tc.wantText) {
			t.Errorf("%s: text %q (%v), want it to hold %q", tc.name, text.String(), err, tc.wantText)
		}
		if err := tc.write(&js, true); err != nil || !json.Valid(js.Bytes()) || !strings.Contains(js.String(), tc.wantJSON) {
			t.Errorf("%s: JSON %q (%v), want valid JSON holding %q", tc.name, js.String(), err, tc.wantJSON)
		}
	}
}

func TestWriteFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "p.html")
	p := testProfile(10, []int{1, 2}, [][]float64{{1000}, {2000}})
	for range 2 { // the second write truncates the first
		if err := WriteFile(path, func(w io.Writer) error { return ProfileHTML(w, p) }); err != nil {
			t.Fatal(err)
		}
	}
	var want bytes.Buffer
	if err := ProfileHTML(&want, p); err != nil {
		t.Fatal(err)
	}
	if got, err := os.ReadFile(path); err != nil || !bytes.Equal(got, want.Bytes()) {
		t.Errorf("the file holds %d bytes (%v), want the page's %d", len(got), err, want.Len())
	}
	if err := WriteFile(filepath.Join(dir, "no", "such", "dir.html"), func(io.Writer) error { return nil }); err == nil {
		t.Error("WriteFile into a missing directory: no error")
	}
}

// TestAppendFile: each write adds to what the file holds (created on the
// first); a missing directory or a failing writer is an error.
func TestAppendFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	text := func(s string) func(io.Writer) error {
		return func(w io.Writer) error { _, err := io.WriteString(w, s); return err }
	}
	for _, tc := range []struct {
		name, path string
		write      func(io.Writer) error
		want       string // the file's content after the write
		wantErr    bool
	}{
		{name: "created", path: "s.md", write: text("a\n"), want: "a\n"},
		{name: "appended", path: "s.md", write: text("b\n"), want: "a\nb\n"},
		{name: "writer fails", path: "s.md", write: func(io.Writer) error { return io.ErrShortWrite }, want: "a\nb\n", wantErr: true},
		{name: "missing directory", path: filepath.Join("no", "s.md"), write: text("c"), wantErr: true},
	} { // in order: each case appends to what the one before left
		path := filepath.Join(dir, tc.path)
		err := AppendFile(path, tc.write)
		if (err != nil) != tc.wantErr {
			t.Fatalf("%s: error %v, want one: %v", tc.name, err, tc.wantErr)
		}
		if got, _ := os.ReadFile(path); string(got) != tc.want {
			t.Errorf("%s: the file holds %q, want %q", tc.name, got, tc.want)
		}
	}
}
