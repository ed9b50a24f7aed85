package tproch

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

var placeholderRE = regexp.MustCompile(`:[0-9]+`)

// placeholders returns the distinct parameter numbers a template uses.
func placeholders(t *testing.T, sql string) []int {
	t.Helper()
	var out []int
	for _, m := range placeholderRE.FindAllString(sql, -1) {
		n, err := strconv.Atoi(m[1:])
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	slices.Sort(out)
	return out
}

func TestSchemaFiles(t *testing.T) {
	t.Parallel()
	for _, d := range Dialects() {
		schema, err := SchemaStatements(d, "schema")
		if err != nil {
			t.Fatalf("%s schema: %v", d, err)
		}
		if len(schema) != len(Tables()) {
			t.Errorf("%s schema: %d statements, want %d", d, len(schema), len(Tables()))
		}
		drop, err := SchemaStatements(d, "drop.sql")
		if err != nil {
			t.Fatalf("%s drop: %v", d, err)
		}
		if len(drop) != len(Tables()) {
			t.Errorf("%s drop: %d statements, want %d", d, len(drop), len(Tables()))
		}
		for i, tb := range Tables() {
			name := tb.String()
			// schema.sql in load order, every column of tables.go in order.
			if i < len(schema) {
				s := schema[i]
				if s.Name != name {
					t.Errorf("%s schema statement %d is %q, want %q", d, i, s.Name, name)
				}
				if !strings.HasPrefix(s.SQL, "CREATE TABLE "+name+" (") {
					t.Errorf("%s schema %s does not create table %s: %.40q", d, s.Name, name, s.SQL)
				}
				var cols []string
				for _, line := range strings.Split(s.SQL, "\n")[1:] {
					f := strings.Fields(line)
					if len(f) >= 2 && f[0] != "PRIMARY" && f[0] != ")" && f[0] != ");" {
						cols = append(cols, f[0])
					}
				}
				if !slices.Equal(cols, tb.Columns()) {
					t.Errorf("%s %s columns %v, want %v", d, name, cols, tb.Columns())
				}
				hasPK := strings.Contains(s.SQL, "PRIMARY KEY")
				if hasPK != (d == "mysql") {
					t.Errorf("%s %s: PRIMARY KEY in CREATE TABLE = %v", d, name, hasPK)
				}
				if strings.Contains(strings.ToLower(s.SQL), "float") || strings.Contains(strings.ToLower(s.SQL), "double") {
					t.Errorf("%s %s: inexact type", d, name)
				}
			}
			found := false
			for _, s := range drop {
				if s.Name == name {
					found = true
					if !strings.HasPrefix(s.SQL, "DROP TABLE IF EXISTS "+name) {
						t.Errorf("%s drop %s: %q", d, name, s.SQL)
					}
				}
			}
			if !found {
				t.Errorf("%s drop.sql has no statement %s", d, name)
			}
		}
		idx, err := SchemaStatements(d, "indexes")
		if err != nil {
			t.Fatalf("%s indexes: %v", d, err)
		}
		if d == "duckdb" {
			if len(idx) != 0 {
				t.Errorf("duckdb indexes: %d statements, want none", len(idx))
			}
			continue
		}
		if len(idx) == 0 {
			t.Errorf("%s indexes: none", d)
		}
		pks := 0
		for _, s := range idx {
			if strings.Contains(s.SQL, "PRIMARY KEY") {
				pks++
			}
			// The builder groups index statements by the table after TABLE/ON.
			tb := ""
			f := strings.Fields(strings.ReplaceAll(s.SQL, "(", " "))
			for i := 0; i+1 < len(f); i++ {
				if w := strings.ToUpper(f[i]); w == "TABLE" || w == "ON" {
					tb = f[i+1]
					break
				}
			}
			if _, ok := ParseTable(tb); !ok {
				t.Errorf("%s index %s: table %q not recognised", d, s.Name, tb)
			}
		}
		wantPKs := 0
		if d == "postgres" {
			wantPKs = len(Tables())
		}
		if pks != wantPKs {
			t.Errorf("%s indexes: %d primary keys, want %d", d, pks, wantPKs)
		}
	}
	if _, err := SchemaStatements("sqlite", "schema"); err == nil {
		t.Error("unknown dialect accepted")
	}
	if _, err := SchemaStatements("postgres", "queries"); err == nil {
		t.Error("queries.sql accepted as a DDL file")
	}
}

// wantPlaceholders is the number of qgen parameters of each query.
var wantPlaceholders = [22]int{1, 3, 2, 1, 2, 3, 2, 3, 1, 1, 2, 3, 2, 1, 1, 10, 2, 1, 6, 3, 1, 7}

func TestQueryTemplates(t *testing.T) {
	t.Parallel()
	limits := map[int]string{2: "limit 100", 3: "limit 10", 10: "limit 20", 18: "limit 100", 21: "limit 100"}
	for _, d := range Dialects() {
		qs, err := LoadQueries(d)
		if err != nil {
			t.Fatalf("%s: %v", d, err)
		}
		for i, sql := range qs {
			q := i + 1
			ph := placeholders(t, sql)
			want := make([]int, wantPlaceholders[i])
			for j := range want {
				want[j] = j + 1
			}
			if !slices.Equal(ph, want) {
				t.Errorf("%s q%d placeholders %v, want %v", d, q, ph, want)
			}
			lower := strings.ToLower(sql)
			if l, ok := limits[q]; ok {
				if !strings.HasSuffix(strings.TrimSpace(lower), l) {
					t.Errorf("%s q%d does not end with %q", d, q, l)
				}
			} else if strings.Contains(lower, "limit") {
				t.Errorf("%s q%d has a LIMIT", d, q)
			}
			if strings.Contains(lower, "float") || strings.Contains(lower, "double") {
				t.Errorf("%s q%d casts to an inexact type", d, q)
			}
			if strings.Contains(lower, "create view") {
				t.Errorf("%s q%d uses a view", d, q)
			}
			if strings.Contains(sql, `"`) {
				t.Errorf("%s q%d has a double quote", d, q)
			}
		}
		if !strings.HasPrefix(strings.ToLower(qs[14]), "-- top supplier") || !strings.Contains(strings.ToLower(qs[14]), "with revenue") {
			t.Errorf("%s q15 is not the WITH variant", d)
		}
		if !strings.Contains(strings.ToLower(qs[12]), "left outer join") {
			t.Errorf("%s q13 has no left outer join", d)
		}
	}
	if _, err := LoadQueries("oracle"); err == nil {
		t.Error("unknown dialect accepted")
	}
}

// Every query of every dialect takes the values of both parameter sources.
func TestQueriesSubstitute(t *testing.T) {
	t.Parallel()
	for _, d := range Dialects() {
		qs, err := LoadQueries(d)
		if err != nil {
			t.Fatal(err)
		}
		for i, tmpl := range qs {
			q := i + 1
			sets := [][]string{ValidationParams(q)}
			for _, seed := range []int64{1, 42, 1231235959, 987654321} {
				for _, sf := range []float64{0.01, 1, 30, 1000} {
					sets = append(sets, QueryParams(q, seed, sf))
				}
			}
			for _, p := range sets {
				text, err := Substitute(tmpl, p)
				if err != nil {
					t.Errorf("%s q%d %v: %v", d, q, p, err)
					continue
				}
				if m := placeholderRE.FindString(text); m != "" {
					t.Errorf("%s q%d: %s left in the text", d, q, m)
				}
				for _, v := range p {
					if !strings.Contains(text, v) {
						t.Errorf("%s q%d: value %q missing", d, q, v)
					}
				}
			}
		}
	}
	// Spot checks of the substituted text.
	pg, _ := LoadQueries("postgres")
	my, _ := LoadQueries("mysql")
	s, _ := Substitute(pg[0], ValidationParams(1))
	if !strings.Contains(s, "date '1998-12-01' - interval '90' day") {
		t.Errorf("postgres q1: %s", s)
	}
	s, _ = Substitute(my[0], ValidationParams(1))
	if !strings.Contains(s, "date '1998-12-01' - interval 90 day") {
		t.Errorf("mysql q1: %s", s)
	}
	s, _ = Substitute(pg[15], ValidationParams(16))
	if !strings.Contains(s, "p_size in (49, 14, 23, 45, 19, 3, 36, 9)") || !strings.Contains(s, "not like 'MEDIUM POLISHED%'") {
		t.Errorf("postgres q16: %s", s)
	}
	s, _ = Substitute(pg[21], ValidationParams(22))
	if !strings.Contains(s, "('13', '31', '23', '29', '30', '18', '17')") {
		t.Errorf("postgres q22: %s", s)
	}
	s, _ = Substitute(pg[12], ValidationParams(13))
	if !strings.Contains(s, "o_comment not like '%special%requests%'") {
		t.Errorf("postgres q13: %s", s)
	}
}

func TestSubstitute(t *testing.T) {
	t.Parallel()
	p := []string{"a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k"}
	got, err := Substitute("x :1 :10 :11 :2:3 ':4' (:5,:6) :7:8:9", p)
	if err != nil {
		t.Fatal(err)
	}
	if want := "x a j k bc 'd' (e,f) ghi"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	// Repeated placeholders, colons that are not placeholders, values that
	// look like placeholders are not substituted again.
	got, err = Substitute("a::int :1 :1 x: :2", []string{":2", "v"})
	if err != nil || got != "a::int :2 :2 x: v" {
		t.Errorf("got %q, %v", got, err)
	}
	for _, c := range []struct {
		tmpl   string
		params []string
	}{
		{":1 :2", []string{"a"}},                 // :2 has no value
		{":1", []string{"a", "b"}},               // b unused
		{":0", []string{"a"}},                    // no parameter 0
		{":1", []string{"o'brien"}},              // a quote
		{":1 :1", nil},                           // no values at all
		{"x", []string{"a"}},                     // nothing to substitute
		{":10", []string{"a"}},                   // :10 is not :1 followed by 0
		{":99999999999999999999", []string{"a"}}, // overflow
	} {
		if s, err := Substitute(c.tmpl, c.params); err == nil {
			t.Errorf("Substitute(%q, %q) = %q, want an error", c.tmpl, c.params, s)
		}
	}
	if s, err := Substitute("select 1", nil); err != nil || s != "select 1" {
		t.Errorf("no placeholders: %q, %v", s, err)
	}
}
