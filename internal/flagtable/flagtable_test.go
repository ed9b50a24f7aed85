package flagtable

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"
)

type (
	duration time.Duration
	format   string
	inner    struct{ Scale float64 }
	settings struct {
		VU           int
		Seed         uint64
		Rampup       duration
		StepDuration time.Duration
		Force        bool
		Format       format
		Scripts      []string
		Spec         inner
		Other        map[string]int
	}
)

const table = "vu\tvirtual users\n" +
	"seed\tthe seed\n" +
	"rampup\tramp-up\n" +
	"step-duration\teach step\n" +
	"force,f\tdrop first\n" +
	"format\ttbl or copy\n" +
	"script=Scripts\ta script (repeatable)\n" +
	"scale=Spec.Scale\tscale factor\n"

// TestBind: every flag gets its field's type, its value as default and its
// help; parsing sets the fields, named types and nested fields included.
func TestBind(t *testing.T) {
	t.Parallel()
	s := settings{VU: 4, Rampup: duration(time.Minute), Format: "tbl", Scripts: []string{"builtin:tpcb-like"}, Spec: inner{Scale: 1}}
	fl := pflag.NewFlagSet("t", pflag.ContinueOnError)
	if err := Bind(fl, table, &s); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ name, typ, def, usage string }{
		{"vu", "int", "4", "virtual users"},
		{"seed", "uint64", "0", "the seed"},
		{"rampup", "duration", "1m0s", "ramp-up"},
		{"step-duration", "duration", "0s", "each step"},
		{"force", "bool", "false", "drop first"},
		{"format", "string", "tbl", "tbl or copy"},
		{"script", "stringArray", "[builtin:tpcb-like]", "a script (repeatable)"},
		{"scale", "float64", "1", "scale factor"},
	} {
		f := fl.Lookup(tc.name)
		if f == nil {
			t.Errorf("--%s: not bound", tc.name)
			continue
		}
		if f.Value.Type() != tc.typ || f.DefValue != tc.def || f.Usage != tc.usage {
			t.Errorf("--%s: %s, default %q, %q; want %s, default %q, %q", tc.name, f.Value.Type(), f.DefValue, f.Usage, tc.typ, tc.def, tc.usage)
		}
	}
	if f := fl.ShorthandLookup("f"); f == nil || f.Name != "force" {
		t.Errorf("-f: %v, want --force's shorthand", f)
	}
	err := fl.Parse([]string{"--vu", "8", "--seed", "9", "--rampup", "2s", "--step-duration", "3s", "-f", "--format", "copy",
		"--script", "a.sql", "--script", "b.sql", "--scale", "0.1"})
	if err != nil {
		t.Fatal(err)
	}
	want := settings{VU: 8, Seed: 9, Rampup: duration(2 * time.Second), StepDuration: 3 * time.Second, Force: true, Format: "copy",
		Scripts: []string{"a.sql", "b.sql"}, Spec: inner{Scale: 0.1}}
	if s.VU != want.VU || s.Seed != want.Seed || s.Rampup != want.Rampup || s.StepDuration != want.StepDuration ||
		s.Force != want.Force || s.Format != want.Format || !slices.Equal(s.Scripts, want.Scripts) || s.Spec != want.Spec {
		t.Errorf("parsed into %+v, want %+v", s, want)
	}
}

// TestBindBadTable: a table that names no field, a field of no flag's type
// or a line without its help is refused, naming the line.
func TestBindBadTable(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ table, want string }{
		{"vu\tok\nnope\tno such field\n", "line 2: flag nope: no field nope"},
		{"other\ta map\n", "line 1: flag other: field other is a map[string]int, not a flag's type"},
		{"scale=Spec.Scale.X\tdeeper\n", "line 1: flag scale: no field Spec.Scale.X: float64 is no struct"},
		{"vu virtual users\n", "line 1: want NAME[,X][=FIELD], a tab and the help"},
	} {
		var s settings
		err := Bind(pflag.NewFlagSet("t", pflag.ContinueOnError), tc.table, &s)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Bind(%q) = %v, want %q", tc.table, err, tc.want)
		}
	}
}
