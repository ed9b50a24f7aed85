package sqlfile

import (
	"reflect"
	"testing"
)

func TestOverlay(t *testing.T) {
	t.Parallel()
	base := []Statement{
		{"a", "-- overridden: my (a reason, with a comma)\n-- kept comment\nSELECT 1"},
		{"b", "SELECT 2"},
		{"c", "-- overridden: pg, my\nSELECT 3"},
	}
	cases := []struct {
		name     string
		base     []Statement
		override []Statement
		want     []Statement
		wantErr  bool
	}{
		{"no override: the base without its directives", base, nil,
			[]Statement{{"a", "-- kept comment\nSELECT 1"}, {"b", "SELECT 2"}, {"c", "SELECT 3"}}, false},
		{"overrides replace by name, base order kept", base,
			[]Statement{{"c", "-- differs: why c\nSELECT 30"}, {"a", "-- differs: why a\n-- kept too\nSELECT 10"}},
			[]Statement{{"a", "-- kept too\nSELECT 10"}, {"b", "SELECT 2"}, {"c", "SELECT 30"}}, false},
		{"an override without a reason is merged as written", base,
			[]Statement{{"b", "SELECT 20"}},
			[]Statement{{"a", "-- kept comment\nSELECT 1"}, {"b", "SELECT 20"}, {"c", "SELECT 3"}}, false},
		{"a directive only at the top is one", []Statement{{"a", "SELECT 1\n-- overridden: my"}}, nil,
			[]Statement{{"a", "SELECT 1\n-- overridden: my"}}, false},
		{"an override naming no base statement", base, []Statement{{"d", "SELECT 4"}}, nil, true},
		{"a repeated override", base, []Statement{{"b", "SELECT 5"}, {"b", "SELECT 6"}}, nil, true},
		{"a repeated base statement", []Statement{{"a", "SELECT 1"}, {"a", "SELECT 2"}}, nil, nil, true},
		{"an override that is only its directive", base, []Statement{{"b", "-- differs: nothing"}}, nil, true},
		{"empty base, empty override", nil, nil, []Statement{}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			got, err := Overlay(c.base, c.override)
			if (err != nil) != c.wantErr {
				t.Fatalf("err %v, wantErr %v", err, c.wantErr)
			}
			if !c.wantErr && !reflect.DeepEqual(got, c.want) {
				t.Errorf("got %q, want %q", got, c.want)
			}
		})
	}
	if base[0].SQL != "-- overridden: my (a reason, with a comma)\n-- kept comment\nSELECT 1" {
		t.Errorf("Overlay changed its input: %q", base[0].SQL)
	}
}

func TestOverlayDirectives(t *testing.T) {
	t.Parallel()
	cases := []struct {
		sql         string
		overridden  []string
		differs     string
		differsSays bool
	}{
		{"-- overridden: duckdb (cast to DATE), mysql (INTERVAL n, no quotes)\nSELECT 1", []string{"duckdb", "mysql"}, "", false},
		{"  -- overridden:postgres\nSELECT 1", []string{"postgres"}, "", false},
		{"-- overridden:\nSELECT 1", nil, "", false},
		{"-- differs:  MySQL's INTERVAL takes a bare number \nSELECT 1", nil, "MySQL's INTERVAL takes a bare number", true},
		{"-- a comment\n-- overridden: mysql\nSELECT 1", nil, "", false},
		{"SELECT 1", nil, "", false},
	}
	for _, c := range cases {
		s := Statement{"x", c.sql}
		if got := OverriddenBy(s); !reflect.DeepEqual(got, c.overridden) {
			t.Errorf("OverriddenBy(%q) = %q, want %q", c.sql, got, c.overridden)
		}
		if got, ok := Differs(s); got != c.differs || ok != c.differsSays {
			t.Errorf("Differs(%q) = %q, %v; want %q, %v", c.sql, got, ok, c.differs, c.differsSays)
		}
	}
}
