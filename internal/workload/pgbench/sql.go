package pgbench

import (
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"slices"

	"github.com/sledge-bench/sledge/internal/db"
	"github.com/sledge-bench/sledge/internal/sqlfile"
)

// Every statement the build, check and drop send lives in sql/, one named
// statement per "-- name: X" block, organised as CH-benCHmark's is:
//
//	schema.sql        CREATE TABLE of the four tables
//	foreign_keys.sql  pgbench's foreign keys (--foreign-keys)
//	drop.sql          DROP TABLE IF EXISTS of everything a build makes
//	checks.sql        the sums of balances the check compares
//	postgres/keys.sql the primary keys PostgreSQL adds after the load
//
// Each base is written in the SQL PostgreSQL runs; a dialect whose text
// must differ has sql/<dialect>/<kind>.sql holding only those statements
// (sqlfile.Overlay). A file only one dialect has (keys.sql) has no base.
//
//go:embed sql
var sqlFiles embed.FS

// dialects are the folders under sql/.
var dialects = []string{"postgres", "mysql", "sqlite"}

// dialect maps a database kind to its folder under sql/.
func dialect(k db.Kind) (string, error) {
	if slices.Contains(dialects, string(k)) {
		return string(k), nil // the folder is the kind's name; mysql is MariaDB's too
	}
	return "", fmt.Errorf("pgbench has no SQL for %s (it builds on PostgreSQL, MariaDB/MySQL and SQLite)", k)
}

// statements returns one kind of file's statements as k runs them: the
// base overlaid with k's own file, or k's own file alone when there is no
// base, or none when neither exists.
func statements(k db.Kind, kind string) ([]sqlfile.Statement, error) {
	d, err := dialect(k)
	if err != nil {
		return nil, err
	}
	sqlDir, err := fs.Sub(sqlFiles, "sql")
	if err != nil {
		return nil, err
	}
	list, err := sqlfile.Load(sqlDir, "pgbench", d, kind)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return list, err
}
