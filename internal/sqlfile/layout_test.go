package sqlfile

import (
	"strings"
	"testing"
	"testing/fstest"
)

// Each rule of LayoutProblems can fail.
func TestLayoutProblems(t *testing.T) {
	t.Parallel()
	base := "-- base\n\n-- name: a\n-- overridden: pg (why)\nSELECT 1;\n\n-- name: b\nSELECT 2;\n"
	over := "-- pg\n\n-- name: a\n-- differs: pg needs 10\nSELECT 10;\n"
	files := func(kv ...string) fstest.MapFS {
		m := fstest.MapFS{}
		for i := 0; i+1 < len(kv); i += 2 {
			m[kv[i]] = &fstest.MapFile{Data: []byte(kv[i+1])}
		}
		return m
	}
	cases := []struct {
		name string
		fsys fstest.MapFS
		want string // in the one problem reported; "" = none
	}{
		{"sound", files("k.sql", base, "pg/k.sql", over, "pg/own.sql", "-- name: x\nVACUUM;\n", "my/own.sql", "-- name: y\nANALYZE;\n"), ""},
		{"identical override", files("k.sql", strings.Replace(base, "-- name: b\n", "-- name: b\n-- overridden: pg\n", 1), "pg/k.sql", over+"\n-- name: b\n-- differs: no reason\nSELECT 2;\n"), "pg/k.sql b is identical to the base"},
		{"override without a reason", files("k.sql", base, "pg/k.sql", "-- name: a\nSELECT 10;\n"), "pg/k.sql a has no -- differs: line"},
		{"base names a dialect that does not override", files("k.sql", base), "k.sql a: -- overridden: names [pg], overridden by []"},
		{"base leaves out a dialect that overrides", files("k.sql", strings.Replace(base, "pg (why)", "my", 1), "pg/k.sql", over), "k.sql a: -- overridden: names [my], overridden by [pg]"},
		{"override file with nothing in it", files("k.sql", "-- name: a\nSELECT 1;\n", "my/k.sql", "-- nothing\n"), "my/k.sql overrides nothing"},
		{"override of no base statement", files("k.sql", base, "pg/k.sql", over+"\n-- name: c\n-- differs: typo\nSELECT 3;\n"), "names no statement of the base"},
		{"directive in a file with no base", files("pg/own.sql", "-- name: x\n-- differs: of what?\nVACUUM;\n"), "pg/own.sql x: -- differs: without a base"},
		{"unknown dialect directory", files("k.sql", "-- name: a\nSELECT 1;\n", "sqlite/k.sql", "-- name: a\n-- differs: x\nSELECT 9;\n"), "sqlite/k.sql: not a base file nor a known dialect's"},
	}
	for _, c := range cases {
		got := LayoutProblems(c.fsys, []string{"pg", "my"})
		switch {
		case c.want == "" && len(got) != 0:
			t.Errorf("%s: problems %q, want none", c.name, got)
		case c.want != "" && (len(got) != 1 || !strings.Contains(got[0], c.want)):
			t.Errorf("%s: problems %q, want one containing %q", c.name, got, c.want)
		}
	}
}
