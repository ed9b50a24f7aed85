package tprocc

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/sledge-bench/sledge/internal/db"
	"github.com/sledge-bench/sledge/internal/workload"
)

// CheckOptions select what Check runs.
type CheckOptions struct {
	// Only lists the conditions to test ("C1" … "C12"); empty tests all.
	// Row counts are always taken.
	Only []string
}

// TableCount is the row count of one table.
type TableCount struct {
	Name string
	Rows int64
}

// CheckCondition is the outcome of one consistency condition or row-count
// expectation.
type CheckCondition struct {
	Name        string // "C1" … "C12", or "rows <table>" for the initial cardinalities
	Description string
	Passed      bool
	Skipped     bool
	// Violations counts the rows (warehouses, districts, orders, customers
	// …) breaking the condition.
	Violations int64
	Note       string
}

// CheckReport is the result of Check.
type CheckReport struct {
	Meta       Meta
	Tables     []TableCount
	Conditions []CheckCondition
	Duration   time.Duration
}

// Passed reports whether no condition failed (skipped ones do not count).
func (r CheckReport) Passed() bool {
	for _, c := range r.Conditions {
		if !c.Skipped && !c.Passed {
			return false
		}
	}
	return true
}

// checkNames are the named statements of checks.sql that are conditions.
var checkNames = []string{"c1", "c2", "c3", "c4", "c5", "c6", "c7", "c8", "c9", "c10", "c11", "c12"}

// Check verifies a TPROC-C database: the schema is present, the nine tables'
// row counts, the twelve consistency conditions [3.3.2.1–3.3.2.12] and, while
// the data is still as loaded, the initial cardinalities. Condition 11 holds
// only until the first Delivery, so it is skipped once a run marked the data
// dirty. Everything is read in one read-only transaction: one snapshot.
func Check(ctx context.Context, conn db.Conn, kind db.Kind, o CheckOptions) (CheckReport, error) {
	start := time.Now()
	meta, err := ReadMeta(ctx, conn)
	if err != nil {
		return CheckReport{}, err
	}
	stmts, err := statementMap(kind, "checks.sql")
	if err != nil {
		return CheckReport{}, err
	}
	only := map[string]bool{}
	for _, n := range o.Only {
		n = strings.ToLower(strings.TrimSpace(n))
		if !slices.Contains(checkNames, n) {
			return CheckReport{}, fmt.Errorf("unknown condition %q (want C1 … C12)", n)
		}
		only[n] = true
	}

	if err := conn.Begin(ctx, true); err != nil {
		return CheckReport{}, fmt.Errorf("begin check transaction: %w", err)
	}
	defer func() { _ = conn.Rollback(context.WithoutCancel(ctx)) }()
	if kind == db.Postgres {
		// One snapshot for every query, and a guarantee that checking writes nothing.
		if _, err := conn.Exec(ctx, "SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY"); err != nil {
			return CheckReport{}, fmt.Errorf("set check transaction: %w", err)
		}
	}

	rep := CheckReport{Meta: meta}
	counts := map[string]int64{}
	for _, t := range AllTables() {
		var n int64
		if err := conn.QueryRow(ctx, "SELECT count(*) FROM "+t.String()).Scan(&n); err != nil {
			return rep, fmt.Errorf("count rows of %s: %w", t, err)
		}
		counts[t.String()] = n
		rep.Tables = append(rep.Tables, TableCount{Name: t.String(), Rows: n})
	}

	for _, name := range checkNames {
		q, ok := stmts[name]
		if !ok {
			return rep, fmt.Errorf("TPROC-C checks for %s lack condition %s", kind, name)
		}
		c := CheckCondition{Name: strings.ToUpper(name), Description: firstComment(q)}
		switch {
		case len(only) > 0 && !only[name]:
			c.Skipped, c.Note = true, "not selected"
		case name == "c11" && meta.Dirty:
			c.Skipped, c.Note = true, "holds only before the first run"
		default:
			n, err := countRows(ctx, conn, q)
			if err != nil {
				return rep, fmt.Errorf("condition %s (%s): %w", c.Name, c.Description, err)
			}
			c.Violations, c.Passed = n, n == 0
		}
		if name == "c2" && !c.Skipped {
			if q, ok := stmts["c2_empty"]; ok {
				n, err := countRows(ctx, conn, q)
				if err != nil {
					return rep, fmt.Errorf("condition C2 (empty districts): %w", err)
				}
				if n > 0 {
					c.Note = fmt.Sprintf("warning: %d districts have no undelivered orders", n)
				}
			}
		}
		rep.Conditions = append(rep.Conditions, c)
	}

	if !meta.Dirty {
		rep.Conditions = append(rep.Conditions, cardinalityChecks(meta, counts)...)
	}
	rep.Duration = time.Since(start)
	return rep, nil
}

// countRows counts the rows a condition query returns.
func countRows(ctx context.Context, conn db.Conn, q string) (int64, error) {
	q = strings.TrimSuffix(strings.TrimSpace(q), ";")
	var n int64
	err := conn.QueryRow(ctx, "SELECT count(*) FROM (\n"+q+"\n) violations").Scan(&n)
	return n, err
}

// firstComment is the text of a statement's first "--" line.
func firstComment(sql string) string {
	for _, line := range strings.Split(sql, "\n") {
		if c, ok := strings.CutPrefix(strings.TrimSpace(line), "--"); ok {
			return strings.TrimSpace(c)
		}
	}
	return ""
}

// exactOrderLineLimit bounds the warehouses for which Check recomputes the
// exact ORDER-LINE count from the seed (30,000 draws per warehouse).
const exactOrderLineLimit = 2000

// cardinalityChecks compares the row counts with a fresh load's [reference §3].
func cardinalityChecks(m Meta, counts map[string]int64) []CheckCondition {
	w := int64(m.Warehouses)
	var out []CheckCondition
	for _, t := range AllTables() {
		name := t.String()
		got := counts[name]
		c := CheckCondition{Name: "rows " + name}
		switch {
		case t == TableItem:
			c.Description = rowCount(numItems)
			c.Passed = got == numItems
		case t == TableOrderLine && m.Format == buildFormat && m.Warehouses <= exactOrderLineLimit:
			g := NewGenerator(m.Seed, m.CLoad)
			var want int64
			for i := 1; i <= m.Warehouses; i++ {
				want += g.orderLineRows(i)
			}
			c.Description = fmt.Sprintf("sum(O_OL_CNT) = %s rows (≈ 300,000 per warehouse; exact for seed %d)",
				thousands(want), m.Seed)
			c.Passed = got == want
		case t == TableOrderLine:
			// Five to fifteen lines per order, mean ten: within ±1% of the
			// mean for any real number of orders.
			mean := tables[t].rows * w
			c.Description = fmt.Sprintf("≈ %s rows (300,000 per warehouse ±1%%)", thousands(mean))
			c.Passed = got >= mean*99/100 && got <= mean*101/100
		default:
			want := tables[t].rows * w
			c.Description = fmt.Sprintf("%s (%s per warehouse)", rowCount(want), thousands(tables[t].rows))
			c.Passed = got == want
		}
		if !c.Passed {
			c.Violations = 1
			c.Note = "found " + rowCount(got)
		}
		out = append(out, c)
	}
	return out
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
