package chbench

import (
	"context"
	"fmt"
	"strings"

	"github.com/sledge-bench/sledge/internal/db"
	"github.com/sledge-bench/sledge/internal/workload"
	"github.com/sledge-bench/sledge/internal/workload/tprocc"
)

// Check verifies a CH-benCHmark database: TPROC-C's check (its tables, the
// twelve consistency conditions, the initial cardinalities), then the added
// tables' row counts and the conditions of checks.sql on their keys. The
// transactions never write the added tables, so their conditions hold
// after any run.
func Check(ctx context.Context, c db.Conn, kind db.Kind) (workload.CheckReport, error) {
	state, err := buildState(ctx, c, kind)
	if err != nil {
		return workload.CheckReport{}, err
	}
	switch state {
	case stateReady:
	case "":
		return workload.CheckReport{}, &workload.SchemaError{Err: workload.ErrNoSchema, Workload: Name,
			Msg: "no CH-benCHmark schema found: the database holds no CH-benCHmark build record"}
	default:
		return workload.CheckReport{}, &workload.SchemaError{Err: workload.ErrSchemaUnusable, Workload: Name,
			Msg: "the CH-benCHmark build did not finish"}
	}
	rep, err := tprocc.Check(ctx, c, kind, tprocc.CheckOptions{})
	if err != nil {
		return workload.CheckReport{}, err
	}
	out := workload.CheckReport{}
	for _, t := range rep.Tables {
		out.Tables = append(out.Tables, workload.TableRows{Name: t.Name, Rows: t.Rows})
	}
	for _, cond := range rep.Conditions {
		out.Conditions = append(out.Conditions, workload.Condition(cond))
	}
	added, err := addedConditions(ctx, c, kind)
	out.Tables = append(out.Tables, added.Tables...)
	out.Conditions = append(out.Conditions, added.Conditions...)
	return out, err
}

// addedConditions counts the added tables' rows and tests checks.sql's
// conditions on them.
func addedConditions(ctx context.Context, c db.Conn, kind db.Kind) (workload.CheckReport, error) {
	var out workload.CheckReport
	want := map[string]int64{"region": numRegions, "nation": numNations, "supplier": numSuppliers}
	for _, tb := range addedTables {
		var n int64
		if err := c.QueryRow(ctx, "SELECT count(*) FROM "+tb).Scan(&n); err != nil {
			return out, fmt.Errorf("count rows of %s: %w", tb, err)
		}
		out.Tables = append(out.Tables, workload.TableRows{Name: tb, Rows: n})
		cond := workload.Condition{Name: "rows " + tb, Description: workload.Thousands(want[tb]) + " rows",
			Passed: n == want[tb]}
		if !cond.Passed {
			cond.Violations, cond.Note = 1, "found "+workload.Thousands(n)+" rows"
		}
		out.Conditions = append(out.Conditions, cond)
	}
	checks, err := statements(kind, "checks")
	if err != nil {
		return out, err
	}
	for _, s := range checks {
		q := strings.TrimSuffix(strings.TrimSpace(s.SQL), ";")
		var n int64
		if err := c.QueryRow(ctx, "SELECT count(*) FROM (\n"+q+"\n) violations").Scan(&n); err != nil {
			return out, fmt.Errorf("condition %s: %w", s.Name, err)
		}
		out.Conditions = append(out.Conditions, workload.Condition{Name: s.Name, Description: firstComment(s.SQL),
			Passed: n == 0, Violations: n})
	}
	// Distinct keys: with the range condition above and 10,000 rows, every
	// key 0 … 9,999 is there (the primary key makes them distinct where
	// it exists; a partial build may lack it).
	var distinct int64
	if err := c.QueryRow(ctx, "SELECT count(DISTINCT su_suppkey) FROM supplier").Scan(&distinct); err != nil {
		return out, fmt.Errorf("count supplier keys: %w", err)
	}
	out.Conditions = append(out.Conditions, workload.Condition{Name: "supplier distinct keys", Description: "every SU_SUPPKEY once",
		Passed: distinct == numSuppliers, Violations: max(0, numSuppliers-distinct)})
	return out, nil
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
