package tproch

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/sledge-bench/sledge/internal/db"
	"github.com/sledge-bench/sledge/internal/sqlfile"
	"github.com/sledge-bench/sledge/internal/workload"
)

// answerSample are the queries whose answers Check compares at SF 1: a
// sample, not all 22, so that a check takes seconds rather than a power
// test's minutes. Between them they read every table but REGION and NATION
// with scans, an EXISTS join and an outer join.
var answerSample = []int{1, 4, 6, 13, 14}

// Check verifies a TPROC-H build on c: the eight tables are there, their
// row counts are the generator's for the recorded scale factor (the
// specification's cardinalities), the keys and indexes the build creates
// exist, and, at SF 1 while the data is as loaded, a sample of the queries
// returns the stored answers. Everything is read in one read-only
// transaction.
func Check(ctx context.Context, c db.Conn, k db.Kind) (workload.CheckReport, error) {
	var rep workload.CheckReport
	dl, err := dialect(k)
	if err != nil {
		return rep, err
	}
	meta, err := ReadMeta(ctx, c, k)
	if err != nil {
		return rep, err
	}
	g, err := NewGenerator(meta.SF)
	if err != nil {
		return rep, err
	}
	want, err := buildIndexes(dl)
	if err != nil {
		return rep, err
	}
	if err := c.Begin(ctx, true); err != nil {
		return rep, fmt.Errorf("begin check transaction: %w", err)
	}
	defer func() { _ = c.Rollback(context.WithoutCancel(ctx)) }()
	if k == db.Postgres {
		// One snapshot for every query, and a guarantee that checking writes nothing.
		if _, err := c.Exec(ctx, "SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY"); err != nil {
			return rep, fmt.Errorf("set check transaction: %w", err)
		}
	}

	present, err := existingTables(ctx, c, k)
	if err != nil {
		return rep, err
	}
	var missing []string
	for _, t := range Tables() {
		if !present[t.String()] {
			missing = append(missing, t.String())
		}
	}
	tables := workload.Condition{Name: "tables", Description: "the eight TPROC-H tables exist",
		Passed: len(missing) == 0, Violations: int64(len(missing))}
	if len(missing) > 0 {
		tables.Note = "missing: " + strings.Join(missing, ", ")
	}
	rep.Conditions = append(rep.Conditions, tables)

	for _, t := range Tables() {
		cond := rowsCondition(g, meta, t)
		if !present[t.String()] {
			cond.Skipped, cond.Note = true, "the table is missing"
			rep.Conditions = append(rep.Conditions, cond.Condition)
			continue
		}
		var n int64
		if err := c.QueryRow(ctx, "SELECT count(*) FROM "+t.String()).Scan(&n); err != nil {
			return rep, fmt.Errorf("count rows of %s: %w", t, err)
		}
		rep.Tables = append(rep.Tables, workload.TableRows{Name: t.String(), Rows: n})
		cond.Passed = cond.matches(n)
		if !cond.Passed {
			cond.Violations, cond.Note = 1, joinNote("found "+rowCount(n), cond.Note)
		}
		rep.Conditions = append(rep.Conditions, cond.Condition)
	}

	idx, err := indexConditions(ctx, c, k, want, present)
	if err != nil {
		return rep, err
	}
	rep.Conditions = append(rep.Conditions, idx...)

	ans, err := answersCondition(ctx, c, dl, meta, len(missing) > 0)
	if err != nil {
		return rep, err
	}
	rep.Conditions = append(rep.Conditions, ans)
	return rep, nil
}

// rowsCond is a row-count condition and the range of counts that pass.
type rowsCond struct {
	workload.Condition
	min, max int64
}

func (c rowsCond) matches(n int64) bool { return n >= c.min && n <= c.max }

// perSF are the specification's cardinalities of the scaled tables at SF 1.
var perSF = map[Table]int64{TableSupplier: 10000, TableCustomer: 150000, TablePart: 200000,
	TablePartSupp: 800000, TableOrders: 1500000}

// rowsCondition is the expected row count of t [spec 4.2.5]: REGION and
// NATION are fixed, the others scale with SF and are exactly what the
// generator makes (LINEITEM's count is its sum of lines per order). The
// refresh functions replace 0.1% of the orders and their lines per pair:
// once a pair has run, ORDERS and LINEITEM are held to within 1%.
func rowsCondition(g *Generator, m Meta, t Table) rowsCond {
	name := t.String()
	c := rowsCond{Condition: workload.Condition{Name: "rows " + name}}
	want := g.Rows(t)
	switch t {
	case TableRegion, TableNation:
		c.Description = rowCount(want) + " (fixed)"
	case TableLineitem:
		want = g.ExactLineitemRows()
		c.Description = fmt.Sprintf("%s (≈ 6,000,000 × SF; exact for this generator)", rowCount(want))
	default:
		c.Description = fmt.Sprintf("%s (%s × SF)", rowCount(want), thousands(perSF[t]))
	}
	c.min, c.max = want, want
	if m.RefreshPairs > 0 && (t == TableOrders || t == TableLineitem) {
		c.min, c.max = want*99/100, want*101/100
		c.Description = fmt.Sprintf("≈ %s ±1%%", rowCount(want))
		c.Note = fmt.Sprintf("%d refresh pair(s) have run since the load", m.RefreshPairs)
	}
	return c
}

// existingTables reports which of the eight tables exist in the current
// schema.
func existingTables(ctx context.Context, c db.Conn, k db.Kind) (map[string]bool, error) {
	names := "'" + strings.Join(tableNames[:], "', '") + "'" // fixed identifiers
	schema := "current_schema()"
	if k == db.MySQL {
		schema = "DATABASE()"
	}
	rows, err := c.Query(ctx, "SELECT table_name FROM information_schema.tables WHERE table_schema = "+schema+
		" AND table_name IN ("+names+")")
	if err != nil {
		return nil, fmt.Errorf("look for TPROC-H tables: %w", err)
	}
	defer rows.Close()
	out := map[string]bool{}
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			return nil, fmt.Errorf("look for TPROC-H tables: %w", err)
		}
		out[strings.ToLower(n)] = true
	}
	return out, rows.Err()
}

// index is a key or index the build creates.
type index struct {
	table   string
	name    string // "" for a primary key
	primary bool
	cols    []string
}

func (i index) condition() workload.Condition {
	if i.primary {
		return workload.Condition{Name: "key " + i.table,
			Description: fmt.Sprintf("primary key of %s (%s)", i.table, strings.Join(i.cols, ", "))}
	}
	return workload.Condition{Name: "index " + i.name,
		Description: fmt.Sprintf("index on %s (%s)", i.table, strings.Join(i.cols, ", "))}
}

var (
	addPrimaryRE  = regexp.MustCompile(`(?is)^ALTER TABLE (\w+) ADD PRIMARY KEY \(([^)]*)\)$`)
	createIndexRE = regexp.MustCompile(`(?is)^CREATE INDEX (\w+) ON (\w+) \(([^)]*)\)$`)
	addIndexRE    = regexp.MustCompile(`(?is)^ALTER TABLE (\w+) ADD INDEX (\w+) \(([^)]*)\)$`)
	inlineKeyRE   = regexp.MustCompile(`(?is)PRIMARY KEY \(([^)]*)\)`)
)

// buildIndexes reads the keys and indexes a build creates on a dialect from
// the build's own SQL, so that the check and the build cannot drift apart:
// indexes.sql, and on MariaDB/MySQL the primary keys declared with the
// tables. A statement of indexes.sql the check does not understand is an
// error (TestBuildIndexes finds it).
func buildIndexes(dialect string) ([]index, error) {
	var out []index
	if dialect == "mysql" {
		stmts, err := SchemaStatements(dialect, "schema.sql")
		if err != nil {
			return nil, err
		}
		for _, s := range stmts {
			if m := inlineKeyRE.FindStringSubmatch(s.SQL); m != nil {
				out = append(out, index{table: sqlfile.Table(s.SQL), primary: true, cols: splitCols(m[1])})
			}
		}
	}
	stmts, err := SchemaStatements(dialect, "indexes.sql")
	if err != nil {
		return nil, err
	}
	for _, s := range stmts {
		q := strings.TrimSuffix(strings.TrimSpace(withoutComments(s.SQL)), ";")
		if m := addPrimaryRE.FindStringSubmatch(q); m != nil {
			out = append(out, index{table: m[1], primary: true, cols: splitCols(m[2])})
		} else if m := createIndexRE.FindStringSubmatch(q); m != nil {
			out = append(out, index{table: m[2], name: m[1], cols: splitCols(m[3])})
		} else if m := addIndexRE.FindStringSubmatch(q); m != nil {
			out = append(out, index{table: m[1], name: m[2], cols: splitCols(m[3])})
		} else {
			return nil, fmt.Errorf("TPROC-H check: %s/indexes.sql %s is neither a primary key nor an index it knows", dialect, s.Name)
		}
	}
	return out, nil
}

// withoutComments drops a statement's "--" lines.
func withoutComments(sql string) string {
	var keep []string
	for _, line := range strings.Split(sql, "\n") {
		if !strings.HasPrefix(strings.TrimSpace(line), "--") {
			keep = append(keep, line)
		}
	}
	return strings.Join(keep, "\n")
}

func splitCols(s string) []string {
	var out []string
	for _, c := range strings.Split(s, ",") {
		out = append(out, strings.ToLower(strings.TrimSpace(c)))
	}
	return out
}

// catalogIndexes lists the indexes of the TPROC-H tables as the database
// has them: table, index name, whether it is the primary key, and the
// columns in key order. DuckDB is never asked: its build creates none.
func catalogIndexes(ctx context.Context, c db.Conn, k db.Kind) ([]index, error) {
	names := "'" + strings.Join(tableNames[:], "', '") + "'" // fixed identifiers
	var q string
	switch k {
	case db.Postgres:
		q = `SELECT t.relname, ic.relname, i.indisprimary::int, a.attname
FROM pg_index i
JOIN pg_class t ON t.oid = i.indrelid
JOIN pg_class ic ON ic.oid = i.indexrelid
JOIN pg_namespace ns ON ns.oid = t.relnamespace
CROSS JOIN LATERAL unnest(i.indkey::int2[]) WITH ORDINALITY AS k(attnum, n)
JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = k.attnum
WHERE ns.nspname = current_schema() AND t.relname IN (` + names + `)
ORDER BY t.relname, ic.relname, k.n`
	case db.MySQL:
		q = `SELECT table_name, index_name, CASE WHEN index_name = 'PRIMARY' THEN 1 ELSE 0 END, column_name
FROM information_schema.statistics
WHERE table_schema = DATABASE() AND table_name IN (` + names + `)
ORDER BY table_name, index_name, seq_in_index`
	default:
		return nil, nil
	}
	rows, err := c.Query(ctx, q)
	if err != nil {
		return nil, fmt.Errorf("read the indexes of the TPROC-H tables: %w", err)
	}
	defer rows.Close()
	var out []index
	for rows.Next() {
		var table, name, col string
		var primary int
		if err := rows.Scan(&table, &name, &primary, &col); err != nil {
			return nil, fmt.Errorf("read the indexes of the TPROC-H tables: %w", err)
		}
		table, name, col = strings.ToLower(table), strings.ToLower(name), strings.ToLower(col)
		if n := len(out); n > 0 && out[n-1].table == table && out[n-1].name == name {
			out[n-1].cols = append(out[n-1].cols, col)
			continue
		}
		out = append(out, index{table: table, name: name, primary: primary == 1, cols: []string{col}})
	}
	return out, rows.Err()
}

// indexConditions has one condition per key or index the build creates,
// passed when the table has a primary key (or an index) on the same
// columns in the same order: its name does not matter.
func indexConditions(ctx context.Context, c db.Conn, k db.Kind, want []index, present map[string]bool) ([]workload.Condition, error) {
	if len(want) == 0 {
		return []workload.Condition{{Name: "keys", Description: "keys and indexes of the build", Skipped: true,
			Note: "the build creates none on " + product(k) + ": its queries run on scans and hash joins"}}, nil
	}
	have, err := catalogIndexes(ctx, c, k)
	if err != nil {
		return nil, err
	}
	var out []workload.Condition
	for _, w := range want {
		cond := w.condition()
		switch {
		case !present[w.table]:
			cond.Skipped, cond.Note = true, "the table is missing"
		case slices.ContainsFunc(have, func(h index) bool {
			return h.table == w.table && h.primary == w.primary && slices.Equal(h.cols, w.cols)
		}):
			cond.Passed = true
		default:
			cond.Violations, cond.Note = 1, "missing"
		}
		out = append(out, cond)
	}
	return out, nil
}

// answersCondition runs the sample of queries with the validation
// parameters and compares their rows with the stored answers. The answers
// are SF 1's and the loaded data's: at other scales, or once the refresh
// functions have changed the data, the condition is skipped and says why.
func answersCondition(ctx context.Context, c db.Conn, dl string, m Meta, tablesMissing bool) (workload.Condition, error) {
	qs := make([]string, len(answerSample))
	for i, q := range answerSample {
		qs[i] = "Q" + strconv.Itoa(q)
	}
	cond := workload.Condition{Name: "answers",
		Description: strings.Join(qs, ", ") + " with the validation parameters return the stored SF 1 answers"}
	switch {
	case m.SF != 1:
		cond.Skipped = true
		cond.Note = fmt.Sprintf("the stored answers are for scale factor 1; this schema is scale factor %g", m.SF)
		return cond, nil
	case m.RefreshPairs > 0:
		cond.Skipped = true
		cond.Note = fmt.Sprintf("%d refresh pair(s) have changed the data since the load; the answers are the loaded data's", m.RefreshPairs)
		return cond, nil
	case tablesMissing:
		cond.Skipped, cond.Note = true, "tables are missing"
		return cond, nil
	}
	return compareSample(ctx, c, dl, cond)
}

// compareSample runs the sample and counts the queries whose rows differ
// from the stored answers; the note says how the first one differs.
func compareSample(ctx context.Context, c db.Conn, dl string, cond workload.Condition) (workload.Condition, error) {
	templates, err := LoadQueries(dl)
	if err != nil {
		return cond, err
	}
	var notes []string
	for _, q := range answerSample {
		text, err := Substitute(templates[q-1], ValidationParams(q))
		if err != nil {
			return cond, err
		}
		rows, err := c.Query(ctx, text)
		if err != nil {
			return cond, fmt.Errorf("Q%d: %w", q, err)
		}
		got, err := ReadAnswer(rows)
		rows.Close()
		if err != nil {
			return cond, fmt.Errorf("Q%d: %w", q, err)
		}
		if err := CompareAnswer(q, got); err != nil {
			cond.Violations++
			notes = append(notes, fmt.Sprintf("Q%d: %v", q, err))
		}
	}
	cond.Passed = cond.Violations == 0
	if len(notes) > 0 {
		cond.Note = strings.Join(notes, "; ")
	}
	return cond, nil
}

// product names a database kind in a note.
func product(k db.Kind) string {
	switch k {
	case db.DuckDB:
		return "DuckDB"
	case db.Postgres:
		return "PostgreSQL"
	case db.MySQL:
		return "MariaDB/MySQL"
	}
	return string(k)
}

func joinNote(a, b string) string {
	if b == "" {
		return a
	}
	return a + "; " + b
}

// thousands formats n with comma separators (workload.Thousands).
func thousands(n int64) string { return workload.Thousands(n) }

// rowCount is "1 row", "30,000 rows".
func rowCount(n int64) string {
	if n == 1 {
		return "1 row"
	}
	return thousands(n) + " rows"
}
