package chbench

import (
	"embed"
	"fmt"
	"io/fs"
	"slices"
	"strconv"
	"strings"

	"github.com/sledge-bench/sledge/internal/db"
	"github.com/sledge-bench/sledge/internal/sqlfile"
)

// Every statement Sledge sends for CH-benCHmark's own part lives in sql/,
// one named statement per "-- name: X" block, organised as TPROC-H's is:
//
//	schema.sql   CREATE TABLE of SUPPLIER, NATION, REGION (every dialect)
//	drop.sql     their DROP TABLE IF EXISTS (every dialect)
//	checks.sql   the conditions on them, each a query of the rows breaking it
//	queries.sql  q1 … q22
//
// Each is a base written once in the standard SQL PostgreSQL runs; a
// dialect whose text must differ has sql/<dialect>/<kind>.sql holding only
// those statements, each with a "-- differs:" line, and the base
// statement's "-- overridden:" line names the dialects that replace it
// (sqlfile.Overlay). The TPROC-C tables under them are TPROC-C's own SQL.
//
//go:embed sql
var sqlFiles embed.FS

// dialect maps a database kind to its folder under sql/. DuckDB has none:
// TPROC-C, whose schema the queries read, does not build there.
func dialect(k db.Kind) (string, error) {
	if slices.Contains([]db.Kind{db.Postgres, db.MySQL, db.SQLite}, k) {
		return string(k), nil // the folder is the kind's name; mysql is MariaDB's too
	}
	return "", fmt.Errorf("CH-benCHmark has no SQL for %s (it runs on PostgreSQL, MariaDB/MySQL and SQLite)", k)
}

// statements returns one kind of file's statements as k runs them, in the
// base's order.
func statements(k db.Kind, kind string) ([]sqlfile.Statement, error) {
	d, err := dialect(k)
	if err != nil {
		return nil, err
	}
	sqlDir, err := fs.Sub(sqlFiles, "sql")
	if err != nil {
		return nil, err
	}
	return sqlfile.Load(sqlDir, "CH-benCHmark", d, kind)
}

// analyticTag leads every statement of the analytic streams: MySQL and
// MariaDB show no session name in their processlist, so the observer tells
// the streams' sessions from the virtual users' by the statement's leading
// comment (a comment changes no answer; the stored answers are checked
// with it).
const analyticTag = "/* " + AnalyticAppName + " */ "

// Queries returns the 22 analytic queries as k runs them (analyticTag
// first); element i is query i+1. They take no parameters.
func Queries(k db.Kind) ([22]string, error) {
	var out [22]string
	list, err := statements(k, "queries")
	if err != nil {
		return out, err
	}
	m := sqlfile.Map(list)
	if len(m) != len(out) {
		return out, fmt.Errorf("CH-benCHmark queries for %s: %d statements, want q1 … q22", k, len(m))
	}
	for i := range out {
		q, ok := m["q"+strconv.Itoa(i+1)]
		if !ok {
			return out, fmt.Errorf("CH-benCHmark queries for %s: no q%d", k, i+1)
		}
		out[i] = analyticTag + strings.TrimSuffix(strings.TrimSpace(q), ";")
	}
	return out, nil
}
