package tprocc

import (
	"bufio"
	"embed"
	"fmt"
	"strings"

	"github.com/sledge-bench/sledge/internal/db"
)

// Every statement Sledge sends for TPROC-C lives in sql/<dialect>/*.sql, one
// named statement per "-- name: X" block. A newcomer finds any transaction's
// SQL for any database there.
//
//go:embed sql
var sqlFiles embed.FS

// Statement is one named SQL statement from a dialect file.
type Statement struct {
	Name string
	SQL  string
}

// dialectDir maps a database kind to its folder under sql/.
func dialectDir(k db.Kind) (string, error) {
	switch k {
	case db.Postgres:
		return "postgres", nil
	case db.SQLite:
		return "sqlite", nil
	case db.MySQL:
		return "mysql", nil // MariaDB and MySQL
	}
	return "", fmt.Errorf("TPROC-C has no SQL for %s", k)
}

// statements reads sql/<dialect>/<file> in file order.
func statements(k db.Kind, file string) ([]Statement, error) {
	dir, err := dialectDir(k)
	if err != nil {
		return nil, err
	}
	b, err := sqlFiles.ReadFile("sql/" + dir + "/" + file)
	if err != nil {
		return nil, fmt.Errorf("TPROC-C SQL for %s: %w", k, err)
	}
	return parseStatements(string(b))
}

// statementMap reads a file into name → SQL.
func statementMap(k db.Kind, file string) (map[string]string, error) {
	list, err := statements(k, file)
	if err != nil {
		return nil, err
	}
	m := make(map[string]string, len(list))
	for _, s := range list {
		m[s.Name] = s.SQL
	}
	return m, nil
}

// parseStatements splits a file at "-- name: X" lines. Text before the first
// name is a file comment. A trailing semicolon is kept: PL/pgSQL bodies need
// theirs and drivers accept one.
func parseStatements(text string) ([]Statement, error) {
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
