// Package sqlfile reads Sledge's SQL dialect files: plain SQL where each
// statement is introduced by a "-- name: X" line, so that a newcomer finds any
// statement of any workload for any database in one place (BenchBase keeps
// its SQL as data the same way).
package sqlfile

import (
	"bufio"
	"fmt"
	"strings"
)

// Statement is one named SQL statement from a dialect file.
type Statement struct {
	Name string
	SQL  string
}

// Map turns a file's statements into name → SQL.
func Map(list []Statement) map[string]string {
	m := make(map[string]string, len(list))
	for _, s := range list {
		m[s.Name] = s.SQL
	}
	return m
}

// Parse splits a file at "-- name: X" lines. Text before the first
// name is a file comment. A trailing semicolon is kept: PL/pgSQL bodies need
// theirs and drivers accept one.
func Parse(text string) ([]Statement, error) {
	var (
		out  []Statement
		cur  *Statement
		body strings.Builder
		seen = map[string]bool{}
	)
	flush := func() {
		if cur != nil {
			cur.SQL = strings.TrimSpace(body.String())
			out = append(out, *cur)
		}
		body.Reset()
	}
	sc := bufio.NewScanner(strings.NewReader(text))
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if name, ok := strings.CutPrefix(strings.TrimSpace(line), "-- name:"); ok {
			flush()
			name = strings.TrimSpace(name)
			if name == "" || seen[name] {
				return nil, fmt.Errorf("statement name %q empty or repeated", name)
			}
			seen[name] = true
			cur = &Statement{Name: name}
			continue
		}
		if cur != nil {
			body.WriteString(line)
			body.WriteByte('\n')
		}
	}
	flush()
	for _, s := range out {
		if s.SQL == "" {
			return nil, fmt.Errorf("statement %q has no SQL", s.Name)
		}
	}
	return out, sc.Err()
}

// Table finds the table a key or index statement works on: "ALTER TABLE t
// …" or "CREATE … INDEX name ON t (…)"; comment lines are skipped. Builds
// use it to run statements of different tables in parallel.
func Table(sql string) string {
	var b strings.Builder
	for _, line := range strings.Split(sql, "\n") {
		if !strings.HasPrefix(strings.TrimSpace(line), "--") {
			b.WriteString(line)
			b.WriteByte('\n')
		}
	}
	f := strings.Fields(b.String())
	for i := 0; i+1 < len(f); i++ {
		if strings.EqualFold(f[i], "TABLE") || strings.EqualFold(f[i], "ON") {
			name, _, _ := strings.Cut(f[i+1], "(")
			return strings.ToLower(name)
		}
	}
	return ""
}
