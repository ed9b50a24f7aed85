package sqlfile

import (
	"errors"
	"io/fs"
	"reflect"
	"strings"
	"testing"
	"testing/fstest"
)

func TestLoad(t *testing.T) {
	t.Parallel()
	dir := fstest.MapFS{
		"queries.sql":       {Data: []byte("-- name: q1\n-- overridden: my\nSELECT 1;\n-- name: q2\nSELECT 2;\n")},
		"my/queries.sql":    {Data: []byte("-- name: q1\n-- differs: no such function\nSELECT 10;\n")},
		"postgres/keys.sql": {Data: []byte("-- name: pk\nALTER TABLE t ADD PRIMARY KEY (a);\n")},
		"bad.sql":           {Data: []byte("-- name: a\nSELECT 1;\n-- name: a\nSELECT 2;\n")},
		"my/orphan.sql":     {Data: []byte("-- name: z\nSELECT 0;\n")},
		"broken.sql":        {Data: []byte("-- name: a\nSELECT 1;\n")},
		"my/broken.sql":     {Data: []byte("-- name: b\nSELECT 2;\n")},
	}
	cases := []struct {
		dialect, kind string
		want          []string // name=SQL
		err           string   // a part of the error, "" for none
		notExist      bool
	}{
		{"postgres", "queries", []string{"q1=SELECT 1;", "q2=SELECT 2;"}, "", false},
		{"my", "queries", []string{"q1=SELECT 10;", "q2=SELECT 2;"}, "", false},
		{"postgres", "keys", []string{"pk=ALTER TABLE t ADD PRIMARY KEY (a);"}, "", false},
		{"my", "orphan", []string{"z=SELECT 0;"}, "", false},
		{"my", "keys", nil, "W has no keys SQL for my", true},
		{"my", "bad", nil, "W SQL bad.sql", false},
		{"my", "broken", nil, "W SQL my/broken.sql over broken.sql", false},
	}
	for _, c := range cases {
		got, err := Load(dir, "W", c.dialect, c.kind)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) || errors.Is(err, fs.ErrNotExist) != c.notExist {
				t.Errorf("%s/%s: err %v, want one containing %q (not exist: %v)", c.dialect, c.kind, err, c.err, c.notExist)
			}
			continue
		}
		var names []string
		for _, s := range got {
			names = append(names, s.Name+"="+strings.TrimSpace(s.SQL))
		}
		if err != nil || !reflect.DeepEqual(names, c.want) {
			t.Errorf("%s/%s: %q, %v; want %q", c.dialect, c.kind, names, err, c.want)
		}
	}
}
