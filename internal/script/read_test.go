package script

import (
	"bytes"
	"strings"
	"testing"
)

func TestReadState(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in      string
		wantDB  string
		wantErr string
	}{
		{in: `{"db":"pg","bm":"TPROC-C","vu":{"vu":"4"},"profileid":3}`, wantDB: "pg"},
		{in: `{}`},
		{in: ``, wantErr: "cli do: state on stdin: EOF"},
		{in: `{"db":`, wantErr: "cli do: state on stdin: "},
	} {
		st, err := ReadState(strings.NewReader(tc.in))
		switch {
		case tc.wantErr != "":
			if err == nil || !strings.HasPrefix(err.Error(), tc.wantErr) {
				t.Errorf("ReadState(%q): %v, want an error starting %q", tc.in, err, tc.wantErr)
			}
		case err != nil || st.DB != tc.wantDB:
			t.Errorf("ReadState(%q) = %+v, %v; want db %q", tc.in, st, err, tc.wantDB)
		}
	}
}

func TestReadSpec(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in   string
		want int // bytes read
	}{
		{`{"kind":"run"}`, 14},
		{"", 0},
		{strings.Repeat(" ", maxSpec+10), maxSpec},
	} {
		b, err := ReadSpec(strings.NewReader(tc.in))
		if err != nil || len(b) != tc.want {
			t.Errorf("ReadSpec of %d bytes: %d bytes, %v; want %d", len(tc.in), len(b), err, tc.want)
		}
	}
}

func TestWriteKeys(t *testing.T) {
	t.Parallel()
	js, err := KeysJSON()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		tcl  bool
		want []byte
	}{
		{false, js},
		{true, []byte(TclKeys())},
	} {
		var b bytes.Buffer
		if err := WriteKeys(&b, tc.tcl); err != nil || !bytes.Equal(b.Bytes(), tc.want) {
			t.Errorf("WriteKeys(tcl %v): %d bytes, %v; want the table's %d", tc.tcl, b.Len(), err, len(tc.want))
		}
	}
}
