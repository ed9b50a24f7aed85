package sqlfile

import (
	"reflect"
	"testing"
)

func TestParse(t *testing.T) {
	cases := []struct {
		name    string
		text    string
		want    []Statement
		wantErr bool
	}{
		{"two statements, file comment ignored", "-- about this file\n\n-- name: a\nSELECT 1;\n\n-- name: b\n-- a comment kept in b\nSELECT\n  2\n",
			[]Statement{{"a", "SELECT 1;"}, {"b", "-- a comment kept in b\nSELECT\n  2"}}, false},
		{"indented name line", "  -- name:  x \nSELECT 3", []Statement{{"x", "SELECT 3"}}, false},
		{"repeated name", "-- name: a\nSELECT 1\n-- name: a\nSELECT 2", nil, true},
		{"empty name", "-- name:\nSELECT 1", nil, true},
		{"empty statement", "-- name: a\n\n-- name: b\nSELECT 1", nil, true},
		{"no statements", "-- nothing here\n", nil, false},
	}
	for _, c := range cases {
		got, err := Parse(c.text)
		if (err != nil) != c.wantErr {
			t.Errorf("%s: err %v, wantErr %v", c.name, err, c.wantErr)
			continue
		}
		if !c.wantErr && !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: got %q, want %q", c.name, got, c.want)
		}
	}
	if m := Map([]Statement{{"a", "x"}, {"b", "y"}}); m["a"] != "x" || m["b"] != "y" || len(m) != 2 {
		t.Errorf("Map = %v", m)
	}
}

func TestTable(t *testing.T) {
	for sql, want := range map[string]string{
		"ALTER TABLE item ADD PRIMARY KEY (i_id);":                                         "item",
		"-- on the table below\nCREATE UNIQUE INDEX by_name ON Customer (c_w_id, c_d_id);": "customer",
		"CREATE INDEX x ON orders(o_w_id)":                                                 "orders",
		"ALTER TABLE lineitem ADD INDEX l_shipdate (l_shipdate)":                           "lineitem",
		"SELECT 1": "",
	} {
		if got := Table(sql); got != want {
			t.Errorf("Table(%q) = %q, want %q", sql, got, want)
		}
	}
}
