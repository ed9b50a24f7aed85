package pgscript

import (
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/sledge-bench/sledge/internal/sandbox"
	"github.com/sledge-bench/sledge/internal/testdb"
)

// summary describes a parsed script in one line per command.
func summary(s *Script) []string {
	var out []string
	for _, c := range s.Commands {
		switch c.Kind {
		case SQL:
			line := c.SQL
			if c.Store == StoreLast {
				line += " \\gset " + c.Prefix
			} else if c.Store == StoreAll {
				line += " \\aset " + c.Prefix
			}
			out = append(out, strings.TrimSpace(line))
		case MetaSet:
			out = append(out, "set "+c.Var+" "+c.Expr.String())
		default:
			out = append(out, c.Text)
		}
	}
	return out
}

func TestParse(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, src string
		want      []string
		lines     []int
	}{
		{"sql", "SELECT 1;\nSELECT 2; SELECT 3;", []string{"SELECT 1;", "SELECT 2;", "SELECT 3;"}, []int{1, 2, 2}},
		{"no final semicolon", "SELECT 1", []string{"SELECT 1"}, []int{1}},
		{"comments", "-- lead\n\n  -- more\nSELECT 1 -- inner\n;\n/* block; */ SELECT 2;",
			[]string{"SELECT 1 -- inner\n;", "/* block; */ SELECT 2;"}, []int{4, 6}},
		{"multi-line", "UPDATE t\n  SET a = 1\n  WHERE b = 2;\nSELECT 1;", []string{"UPDATE t\n  SET a = 1\n  WHERE b = 2;", "SELECT 1;"}, []int{1, 4}},
		{"quotes", `SELECT ';', "a;b", E'\';', $$;$$, $x$ ; $x$, a$b;`,
			[]string{`SELECT ';', "a;b", E'\';', $$;$$, $x$ ; $x$, a$b;`}, []int{1}},
		{"parentheses", "CREATE RULE r AS ON INSERT TO t DO (SELECT 1; SELECT 2);",
			[]string{"CREATE RULE r AS ON INSERT TO t DO (SELECT 1; SELECT 2);"}, []int{1}},
		{"compound", `SELECT 1 \; SELECT 2;`, []string{"SELECT 1 ; SELECT 2;"}, []int{1}},
		{"set", "\\set x random(1, 10) * :scale\n\\SET y 1 +\\\n 2", []string{"set x random(1, 10) * :scale", "set y 1 +  2"}, []int{1, 2}},
		{"gset", "SELECT 1 AS a \\gset\nSELECT 2 AS b\n\\gset p_\nSELECT 3 AS c;\n\\aset", []string{"SELECT 1 AS a \\gset", "SELECT 2 AS b \\gset p_", "SELECT 3 AS c; \\aset"}, []int{1, 2, 4}},
		{"sleep", "\\sleep 10ms\n\\sleep :t us\n\\sleep 2", []string{`\sleep 10ms`, `\sleep :t us`, `\sleep 2`}, []int{1, 2, 3}},
		{"if", "\\if :a\nSELECT 1;\n\\elif :b\n\\else\n\\endif", []string{`\if :a`, "SELECT 1;", `\elif :b`, `\else`, `\endif`}, []int{1, 2, 3, 4, 5}},
		{"pipeline", "\\startpipeline\nSELECT 1;\n\\syncpipeline\n\\endpipeline", []string{`\startpipeline`, "SELECT 1;", `\syncpipeline`, `\endpipeline`}, []int{1, 2, 3, 4}},
		{"shell", "\\setshell v echo :x\n\\shell touch f", []string{`\setshell v echo :x`, `\shell touch f`}, []int{1, 2}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s, err := Parse("s.sql", tc.src)
			if err != nil {
				t.Fatal(err)
			}
			if s.Name != "s.sql" {
				t.Errorf("name %q", s.Name)
			}
			if got := summary(s); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("commands\n got %q\nwant %q", got, tc.want)
			}
			var lines []int
			for _, c := range s.Commands {
				lines = append(lines, c.Line)
			}
			if !reflect.DeepEqual(lines, tc.lines) {
				t.Errorf("lines %v, want %v", lines, tc.lines)
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	t.Parallel()
	cases := []struct{ src, want string }{
		{"", "s.sql:1: empty command list"},
		{"-- nothing\n", "s.sql:1: empty command list"},
		{"SELECT 1;\n\\set x 1 +", "s.sql:2: \\set x: syntax error"},
		{"\\set", "s.sql:1: \\set: missing variable name"},
		{"\\set x", "s.sql:1: \\set x: missing expression"},
		{"\\set 1x 2", `s.sql:1: \set: invalid variable name "1x"`},
		{"\\set x nosuch(1)", `unexpected function name "nosuch"`},
		{"\n\\frobnicate", `s.sql:2: invalid command "\frobnicate"`},
		{"\\gset", "s.sql:1: \\gset must follow an SQL command"},
		{"\\set x 1\n\\aset", "s.sql:2: \\aset must follow an SQL command"},
		{"SELECT 1 \\gset\n\\gset", "s.sql:2: \\gset must follow an SQL command"},
		{"SELECT 1 \\gset a b", "\\gset: too many arguments"},
		{"\\sleep", "\\sleep: missing argument"},
		{"\\sleep 1 2 3", "\\sleep: too many arguments"},
		{"\\sleep x", `invalid sleep time "x"`},
		{"\\sleep 10 min", `unrecognized time unit "min"`},
		{"\\sleep 10min", `unrecognized time unit "min"`},
		{"\\setshell x", "\\setshell: missing argument"},
		{"\\shell", "\\shell: missing command"},
		{"\\if", "\\if: missing expression"},
		{"\\if 1\n\\else\n\\else\n\\endif", "s.sql:3: \\else after \\else"},
		{"\\if 1\n\\else\n\\elif 2\n\\endif", "s.sql:3: \\elif after \\else"},
		{"\\elif 1", "s.sql:1: \\elif 1 without matching \\if"},
		{"SELECT 1;\n\\endif", "s.sql:2: \\endif without matching \\if"},
		{"\\if 1\nSELECT 1;", "s.sql:1: \\if without matching \\endif"},
		{"\\endpipeline x", "unexpected argument"},
		{"SELECT 'abc", "unterminated quoted string"},
		{"SELECT $a$ x", "unterminated dollar-quoted string"},
		{"SELECT /* x", "unterminated /* comment"},
	}
	for _, tc := range cases {
		t.Run(tc.src, func(t *testing.T) {
			t.Parallel()
			_, err := Parse("s.sql", tc.src)
			if err == nil {
				t.Fatalf("parsed, want error %q", tc.want)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q, want %q", err, tc.want)
			}
		})
	}
}

func TestParameterize(t *testing.T) {
	t.Parallel()
	cases := []struct {
		sql, want string
		vars      []string
	}{
		{"SELECT 1", "SELECT 1", nil},
		{"SELECT :a, :b_1, :a", "SELECT $1, $2, $3", []string{"a", "b_1", "a"}},
		{"SELECT :a::int, '::', ':b'", "SELECT $1::int, '::', '$2'", []string{"a", "b"}},
		{"SELECT :1, a:::b", "SELECT :1, a:::b", nil},
	}
	for _, tc := range cases {
		got, vars := parameterize(tc.sql)
		if got != tc.want || !reflect.DeepEqual(vars, tc.vars) {
			t.Errorf("parameterize(%q) = %q, %q; want %q, %q", tc.sql, got, vars, tc.want, tc.vars)
		}
	}
}

func TestSubstitute(t *testing.T) {
	t.Parallel()
	vs := NewVars()
	_ = vs.SetText("a", "1")
	_ = vs.Set("d", DoubleValue(0.1))
	_ = vs.Set("n", NullValue())
	cases := []struct{ sql, want string }{
		{"SELECT :a, ':a', :a::text", "SELECT 1, '1', 1::text"},
		{"SELECT :d, :n, :nosuch, ::a, :1", "SELECT 0.1, NULL, :nosuch, ::a, :1"},
	}
	for _, tc := range cases {
		if got := Substitute(tc.sql, vs); got != tc.want {
			t.Errorf("Substitute(%q) = %q, want %q", tc.sql, got, tc.want)
		}
	}
}

func TestSplitWeight(t *testing.T) {
	t.Parallel()
	cases := []struct {
		spec, name string
		weight     int
		err        string
	}{
		{"a.sql", "a.sql", 1, ""},
		{"a.sql@3", "a.sql", 3, ""},
		{"dir@x/a.sql@0", "dir@x/a.sql", 0, ""},
		{"a.sql@", "", 0, "invalid weight"},
		{"a.sql@x", "", 0, "invalid weight"},
		{"a.sql@-1", "", 0, "out of range"},
		{"a.sql@2147483648", "", 0, "out of range"},
		{"a.sql@99999999999999999999", "", 0, "out of range"},
	}
	for _, tc := range cases {
		name, w, err := SplitWeight(tc.spec)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("SplitWeight(%q): error %v, want %q", tc.spec, err, tc.err)
			}
			continue
		}
		if err != nil || name != tc.name || w != tc.weight {
			t.Errorf("SplitWeight(%q) = %q, %d, %v; want %q, %d", tc.spec, name, w, err, tc.name, tc.weight)
		}
	}
}

func TestBuiltin(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, want, err string }{
		{"tpcb-like", "tpcb-like", ""},
		{"tpcb", "tpcb-like", ""},
		{"si", "simple-update", ""},
		{"select-only", "select-only", ""},
		{"s", "", "ambiguous"},
		{"nosuch", "", "no built-in script"},
		{"", "", "no built-in script"},
	} {
		s, err := Builtin(tc.name)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("Builtin(%q): error %v, want %q", tc.name, err, tc.err)
			}
			continue
		}
		if err != nil || s.Name != tc.want {
			t.Errorf("Builtin(%q) = %v, %v; want %s", tc.name, s, err, tc.want)
		}
	}
}

// TestBuiltinAsPgbench checks that the built-in scripts are the ones
// pgbench shows (the order of their random draws is part of the streams).
func TestBuiltinAsPgbench(t *testing.T) {
	t.Parallel()
	dir, err := sandbox.FindBinaries(testdb.PGBin())
	if err != nil {
		t.Skipf("no PostgreSQL binaries: %v", err)
	}
	for _, name := range BuiltinNames() {
		out, err := exec.Command(filepath.Join(dir, "pgbench"), "--show-script="+name).CombinedOutput()
		if err != nil {
			t.Fatalf("pgbench --show-script=%s: %v\n%s", name, err, out)
		}
		_, shown, _ := strings.Cut(string(out), "\n") // the first line names the script
		src, _ := BuiltinSource(name)
		if strings.TrimSpace(shown) != strings.TrimSpace(src) {
			t.Errorf("%s differs from pgbench's:\n%s\nwant\n%s", name, src, shown)
		}
	}
}

func TestParseDefine(t *testing.T) {
	t.Parallel()
	cases := []struct {
		in   string
		want Define
		err  string
	}{
		{"a=1", Define{"a", "1"}, ""},
		{"a=b=c", Define{"a", "b=c"}, ""},
		{"a= x", Define{"a", " x"}, ""},
		{"a", Define{}, "name=value"},
		{"=1", Define{}, "name=value"},
		{"a=", Define{}, "name=value"},
		{"1a=1", Define{}, "invalid variable name"},
	}
	for _, tc := range cases {
		d, err := ParseDefine(tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("ParseDefine(%q): %v, want error %q", tc.in, err, tc.err)
			}
			continue
		}
		if err != nil || d != tc.want {
			t.Errorf("ParseDefine(%q) = %+v, %v; want %+v", tc.in, d, err, tc.want)
		}
	}
}

func TestParseSeed(t *testing.T) {
	t.Parallel()
	if s, err := ParseSeed("18446744073709551615"); err != nil || s != 18446744073709551615 {
		t.Errorf("ParseSeed(max) = %d, %v", s, err)
	}
	for _, bad := range []string{"", "-1", "time", "1x", "18446744073709551616"} {
		if _, err := ParseSeed(bad); err == nil {
			t.Errorf("ParseSeed(%q) accepted", bad)
		}
	}
}
