package tproch

import (
	"embed"
	"fmt"
	"io/fs"
	"strconv"
	"strings"

	"github.com/sledge-bench/sledge/internal/sqlfile"
)

// Every statement Sledge sends for TPROC-H lives in sql/, one named statement
// per "-- name: X" block:
//
//	schema.sql      CREATE TABLE per table, statement name = table name
//	drop.sql        DROP TABLE IF EXISTS per table, statement name = table name
//	queries.sql     q1 … q22
//	<dialect>/indexes.sql     keys and secondary indexes built after the load
//	                          (DuckDB: none)
//	<dialect>/vacuum.sql      the --between vacuum step
//	<dialect>/checkpoint.sql  the --between checkpoint step
//
// Dialects: "duckdb", "postgres", "mysql" (MariaDB 10.11 and MySQL 8,
// sessions with sql_mode ANSI_QUOTES).
//
// The kinds in sql/ itself are a base: each statement written once, in the
// standard SQL most dialects share. A dialect whose text must differ has
// sql/<dialect>/<kind>.sql holding only those statements, under the same
// names, each with a "-- differs:" line saying why; the base statement's
// "-- overridden:" line names the dialects that replace it, so the base is
// the one place to read any statement (sqlfile.Overlay merges the two and
// takes these lines out). A dialect with nothing to replace has no file. The
// kinds whose set of statements, not only their text, differs by dialect
// (indexes, vacuum, checkpoint) have no base: each dialect's file is whole.
// TestSQLLayout keeps all of this true.
//
// Query parameters follow qgen's convention. A query template holds
// placeholders ":1", ":2", … (a colon and the parameter's number, as in the
// reference kit's dbgen/queries/N.sql), and Substitute replaces them textually — they are not
// bind parameters: dates, intervals and IN lists appear inside the text.
//
//   - A value is inserted as-is, without quotes. The SQL supplies the quotes
//     where a literal needs them: date ':1', r_name = ':3', p_type like '%:2',
//     c_phone codes in (':1', ':2', …). Numbers are unquoted: p_size = :1,
//     l_quantity < :3, interval :1 day (mysql) or interval ':1' day.
//   - Every value is one placeholder, numbered exactly as qgen numbers it:
//     Q16's eight sizes are :3 … :10 and Q22's seven country codes :1 … :7,
//     each written out in the SQL, so QueryParams(q, …)[i-1] is qgen's
//     parameter i and the same lists serve every dialect.
//   - A value used several times in a query (Q2's region, Q7's nations, …)
//     is substituted everywhere it appears.
//
// Values are plain: dates YYYY-MM-DD, decimals like 0.06, integers, words
// from the dbgen lists. None contains a quote, and Substitute refuses one that
// does.
//
//go:embed sql
var sqlFiles embed.FS

// Dialects lists the SQL dialects TPROC-H has files for.
func Dialects() []string { return []string{"duckdb", "postgres", "mysql"} }

func checkDialect(dialect string) error {
	for _, d := range Dialects() {
		if d == dialect {
			return nil
		}
	}
	return fmt.Errorf("TPROC-H has no SQL for dialect %q (have duckdb, postgres, mysql)", dialect)
}

// readStatements returns the statements of one kind of file ("schema",
// "queries", …; ".sql" may be added) as dialect runs them, in file order.
func readStatements(dialect, file string) ([]sqlfile.Statement, error) {
	if err := checkDialect(dialect); err != nil {
		return nil, err
	}
	sqlDir, err := fs.Sub(sqlFiles, "sql")
	if err != nil {
		return nil, err
	}
	return sqlfile.Load(sqlDir, "TPROC-H", dialect, strings.TrimSuffix(file, ".sql"))
}

// SchemaStatements returns the statements of one DDL file of a dialect in file
// order: file is "schema", "indexes" or "drop" (".sql" may be added). The
// statements of schema.sql and drop.sql are named after their tables; those of
// indexes.sql may run in parallel with each other, and DuckDB's is empty.
func SchemaStatements(dialect, file string) ([]sqlfile.Statement, error) {
	switch strings.TrimSuffix(file, ".sql") {
	case "schema", "indexes", "drop":
	default:
		return nil, fmt.Errorf("TPROC-H has no DDL file %q (have schema, indexes, drop)", file)
	}
	return readStatements(dialect, file)
}

// LoadQueries returns the 22 query templates of a dialect; element i is query
// i+1, with qgen placeholders for Substitute.
func LoadQueries(dialect string) ([22]string, error) {
	var out [22]string
	list, err := readStatements(dialect, "queries")
	if err != nil {
		return out, err
	}
	m := sqlfile.Map(list)
	if len(m) != 22 {
		return out, fmt.Errorf("TPROC-H queries for %s: %d statements, want q1 … q22", dialect, len(m))
	}
	for i := range out {
		sql, ok := m["q"+strconv.Itoa(i+1)]
		if !ok {
			return out, fmt.Errorf("TPROC-H queries for %s: no q%d", dialect, i+1)
		}
		out[i] = sql
	}
	return out, nil
}

// Substitute replaces the placeholders :1 … :N of a query template with
// params[0] … params[N-1], inserted as-is (see the convention above). A
// placeholder is a colon followed by a maximal run of digits, so ":10" is
// parameter 10, never parameter 1 followed by "0". It is an error when a
// placeholder has no value, when a value is used by no placeholder, or when a
// value contains a single quote. Only the template is scanned: text inside a
// value is never substituted again.
func Substitute(template string, params []string) (string, error) {
	for i, p := range params {
		if strings.ContainsRune(p, '\'') {
			return "", fmt.Errorf("parameter %d (%q) contains a quote", i+1, p)
		}
	}
	used := make([]bool, len(params))
	var b strings.Builder
	b.Grow(len(template) + 64)
	for i := 0; i < len(template); {
		c := template[i]
		if c != ':' {
			b.WriteByte(c)
			i++
			continue
		}
		j := i + 1
		for j < len(template) && template[j] >= '0' && template[j] <= '9' {
			j++
		}
		if j == i+1 { // a colon not followed by a digit (e.g. a :: cast)
			b.WriteByte(c)
			i++
			continue
		}
		n, err := strconv.Atoi(template[i+1 : j])
		if err != nil || n < 1 || n > len(params) {
			return "", fmt.Errorf("placeholder %s has no value (%d parameters given)", template[i:j], len(params))
		}
		b.WriteString(params[n-1])
		used[n-1] = true
		i = j
	}
	for i, u := range used {
		if !u {
			return "", fmt.Errorf("parameter %d (%q) is used by no placeholder", i+1, params[i])
		}
	}
	return b.String(), nil
}
