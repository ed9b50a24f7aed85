package script

import (
	"encoding/hex"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sledge-bench/sledge/internal/testdb"
)

// HammerDB's JSON layout, as its jobs command prints it.
func TestJSONLayout(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		v    value
		want string
	}{
		{"one-item list inline", list{"TPROC-C"}, `["TPROC-C"]`},
		{"list", list{"3", "2026-11-23 15:16:33"}, "[\n  \"3\",\n  \"2026-11-23 15:16:33\"\n]"},
		{"empty list", list{}, "[\n  \n]"},
		{"no data under one key", object{{"7", splitMessage("Jobid has no timing data")}},
			"{\"7\": {\n    \"Jobid\": \"has\",\n    \"no\": \"timing\",\n    \"data\": \"\"\n  }}"},
		{"nested objects", object{{"NEWORD", object{{"calls", "5"}, {"p99_ms", "1.5"}}}, {"SLEV", object{{"calls", "1"}}}},
			"{\n  \"NEWORD\": {\n    \"calls\": \"5\",\n    \"p99_ms\": \"1.5\"\n  },\n  \"SLEV\": {\"calls\": \"1\"}\n}"},
		{"escapes", list{"a/b \"q\" \\ \n\t\x01"}, `["a\/b \"q\" \\ \n\t\u0001"]`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := jsonText(tc.v)
			if got != tc.want {
				t.Errorf("got\n%s\nwant\n%s", got, tc.want)
			}
			if !json.Valid([]byte(got)) {
				t.Errorf("not valid JSON: %s", got)
			}
		})
	}
}

func TestSplitMessage(t *testing.T) {
	t.Parallel()
	got := jsonText(object{{"9", splitMessage("Jobid has no transaction counter data")}})
	want := "{\"9\": {\n    \"Jobid\": \"has\",\n    \"no\": \"transaction\",\n    \"counter\": \"data\"\n  }}"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

func TestNumber(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		x    float64
		d    int
		want string
	}{{422832, 3, "422832.0"}, {1.3291, 3, "1.329"}, {53.9, 3, "53.9"}, {0.0004, 3, "0.0"}, {2, 0, "2.0"}} {
		if got := number(tc.x, tc.d); got != tc.want {
			t.Errorf("number(%v, %d) = %q, want %q", tc.x, tc.d, got, tc.want)
		}
	}
}

// Tcl reads back every element of a list written by tclText exactly.
func TestTclTextRoundTrip(t *testing.T) {
	t.Parallel()
	tclsh := testdb.Command(t, "tclsh", "tcl")
	words := []string{"plain", "", "two words", "{braced}", "un{balanced", "}", "a$b", "[cmd]", `back\slash`,
		`trailing\`, "semi;colon", "quote\"d", "#hash", "new\nline", "tab\there", "ünïcødé €", "{a} {b", `\{`}
	v := list{}
	for _, w := range words {
		v = append(v, w)
	}
	v = append(v, object{{"key with space", "value {x}"}, {"k", ""}})
	file := filepath.Join(t.TempDir(), "list.txt")
	if err := os.WriteFile(file, []byte(tclText(v)), 0o644); err != nil {
		t.Fatal(err)
	}
	script := `set f [open [lindex $argv 0]]; fconfigure $f -encoding utf-8; set l [read $f]
foreach w $l { puts [binary encode hex [encoding convertto utf-8 $w]] }`
	scriptFile := filepath.Join(t.TempDir(), "read.tcl")
	if err := os.WriteFile(scriptFile, []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(tclsh, scriptFile, file)
	testdb.DieWithTest(cmd)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("tclsh: %v\n%s\nlist: %s", err, out, tclText(v))
	}
	got := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
	want := append([]string{}, words...)
	want = append(want, `{key with space} {value {x}} k {}`)
	if len(got) != len(want) {
		t.Fatalf("tclsh read %d elements, want %d:\n%s\nlist: %s", len(got), len(want), out, tclText(v))
	}
	for i, h := range got {
		b, _ := hex.DecodeString(h)
		if string(b) != want[i] {
			t.Errorf("element %d: Tcl read %q, want %q (list: %s)", i, b, want[i], tclText(v))
		}
	}
}
