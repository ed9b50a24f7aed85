package tprocc

import (
	"embed"
	"fmt"
	"slices"

	"github.com/sledge-bench/sledge/internal/db"
	"github.com/sledge-bench/sledge/internal/sqlfile"
)

// Every statement Sledge sends for TPROC-C lives in sql/<dialect>/*.sql, one
// named statement per "-- name: X" block. A newcomer finds any transaction's
// SQL for any database there.
//
//go:embed sql
var sqlFiles embed.FS

// Statement is one named SQL statement from a dialect file.
type Statement = sqlfile.Statement

// dialectDir maps a database kind to its folder under sql/.
func dialectDir(k db.Kind) (string, error) {
	if slices.Contains([]db.Kind{db.Postgres, db.MySQL, db.SQLite}, k) {
		return string(k), nil // the folder is the kind's name; mysql is MariaDB's too
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

func parseStatements(text string) ([]Statement, error) { return sqlfile.Parse(text) }
