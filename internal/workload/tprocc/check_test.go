package tprocc

import (
	"slices"
	"strings"
	"testing"

	"github.com/sledge-bench/sledge/internal/db"
	"github.com/sledge-bench/sledge/internal/db/sqlite"
)

func TestCheckDetectsViolationsSQLite(t *testing.T) {
	if testing.Short() {
		t.Skip("loads a warehouse")
	}
	t.Parallel()
	drv := sqlite.Driver{}
	tg := built(t, db.SQLite, 1, 3)
	checkDetectsViolations(t, connect(t, drv, tg), db.SQLite)
}

// checkDetectsViolations breaks a freshly built database in one place at a
// time and expects exactly the conditions that depend on it to fail, then
// repairs it. The statements are plain SQL that every dialect accepts.
//
// Each break is checked against the conditions whose queries read the table
// it changed (readers): one that does not read it cannot change from the
// all-pass of the intact database, checked in full at the end. That is a
// third of the work on MariaDB, where a full check takes seconds, and
// loses nothing: a condition expected to fail that is not among the
// readers shows as missing.
func checkDetectsViolations(t *testing.T, c db.Conn, kind db.Kind) {
	t.Helper()
	ctx := t.Context()
	readers := conditionReaders(t, kind)
	cases := []struct {
		name      string
		break_    string
		repair    string
		wantFails []string
	}{
		{"warehouse YTD off by a cent",
			"UPDATE warehouse SET w_ytd = w_ytd + 0.01 WHERE w_id = 1",
			"UPDATE warehouse SET w_ytd = w_ytd - 0.01 WHERE w_id = 1",
			[]string{"C1", "C8"}},
		{"district next order id",
			"UPDATE district SET d_next_o_id = d_next_o_id + 1 WHERE d_w_id = 1 AND d_id = 3",
			"UPDATE district SET d_next_o_id = d_next_o_id - 1 WHERE d_w_id = 1 AND d_id = 3",
			[]string{"C2"}},
		{"hole in NEW-ORDER",
			"DELETE FROM new_order WHERE no_w_id = 1 AND no_d_id = 2 AND no_o_id = 2500",
			"INSERT INTO new_order (no_o_id, no_d_id, no_w_id) VALUES (2500, 2, 1)",
			[]string{"C3", "C5", "C11", "rows new_order"}},
		{"order line count",
			"UPDATE orders SET o_ol_cnt = o_ol_cnt + 1 WHERE o_w_id = 1 AND o_d_id = 1 AND o_id = 1",
			"UPDATE orders SET o_ol_cnt = o_ol_cnt - 1 WHERE o_w_id = 1 AND o_d_id = 1 AND o_id = 1",
			[]string{"C4", "C6"}},
		{"undelivered line with a delivery date",
			"UPDATE order_line SET ol_delivery_d = '2020-01-01 00:00:00' WHERE ol_w_id = 1 AND ol_d_id = 1 AND ol_o_id = 2500 AND ol_number = 1",
			"UPDATE order_line SET ol_delivery_d = NULL WHERE ol_w_id = 1 AND ol_d_id = 1 AND ol_o_id = 2500 AND ol_number = 1",
			[]string{"C7", "C10", "C12"}},
		{"customer balance",
			"UPDATE customer SET c_balance = c_balance + 1 WHERE c_w_id = 1 AND c_d_id = 1 AND c_id = 7",
			"UPDATE customer SET c_balance = c_balance - 1 WHERE c_w_id = 1 AND c_d_id = 1 AND c_id = 7",
			[]string{"C10", "C12"}},
		{"payment amount",
			"UPDATE history SET h_amount = 11 WHERE h_c_w_id = 1 AND h_c_d_id = 1 AND h_c_id = 5",
			"UPDATE history SET h_amount = 10 WHERE h_c_w_id = 1 AND h_c_d_id = 1 AND h_c_id = 5",
			[]string{"C8", "C9", "C10"}},
		{"a missing stock row",
			"DELETE FROM stock WHERE s_w_id = 1 AND s_i_id = 17",
			"INSERT INTO stock SELECT 17, 1, s_quantity, s_dist_01, s_dist_02, s_dist_03, s_dist_04, s_dist_05, s_dist_06, s_dist_07, s_dist_08, s_dist_09, s_dist_10, 0, 0, 0, s_data FROM stock WHERE s_w_id = 1 AND s_i_id = 18",
			[]string{"rows stock"}},
	}
	for _, tc := range cases {
		if n, err := c.Exec(ctx, tc.break_); err != nil || n != 1 {
			t.Fatalf("%s: %s: %d rows, %v", tc.name, tc.break_, n, err)
		}
		only := readers[changedTable(t, tc.break_)]
		if len(only) == 0 {
			only = []string{"C1"} // none reads it (an empty Only is every condition): its row count tells
		}
		rep, err := Check(ctx, c, kind, CheckOptions{Only: only})
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		var failed []string
		for _, cond := range rep.Conditions {
			if !cond.Passed && !cond.Skipped {
				failed = append(failed, cond.Name)
				if cond.Violations < 1 {
					t.Errorf("%s: %s failed with %d violations", tc.name, cond.Name, cond.Violations)
				}
			}
		}
		if !slices.Equal(failed, tc.wantFails) {
			t.Errorf("%s: failed %v, want %v", tc.name, failed, tc.wantFails)
		}
		if _, err := c.Exec(ctx, tc.repair); err != nil {
			t.Fatalf("%s: repair: %v", tc.name, err)
		}
	}
	rep, err := Check(ctx, c, kind, CheckOptions{})
	if err != nil {
		t.Fatal(err)
	}
	requireAllPass(t, rep)

	rep, err = Check(ctx, c, kind, CheckOptions{Only: []string{"C1", "c12"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, cond := range rep.Conditions {
		selected := cond.Name == "C1" || cond.Name == "C12" || strings.HasPrefix(cond.Name, "rows ")
		if selected == cond.Skipped || (selected && !cond.Passed) {
			t.Errorf("Only C1, C12: %+v", cond)
		}
	}
	if _, err := Check(ctx, c, kind, CheckOptions{Only: []string{"C13"}}); err == nil {
		t.Error("condition C13 accepted")
	}

	// After a run (dirty) C11 and the initial cardinalities no longer apply.
	if err := MarkDirty(ctx, c); err != nil {
		t.Fatal(err)
	}
	rep, err = Check(ctx, c, kind, CheckOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Meta.Dirty || len(rep.Conditions) != 12 {
		t.Fatalf("dirty check: dirty=%v, %d conditions", rep.Meta.Dirty, len(rep.Conditions))
	}
	for _, cond := range rep.Conditions {
		switch {
		case cond.Name == "C11":
			if !cond.Skipped || cond.Note != "holds only before the first run" {
				t.Errorf("dirty C11: %+v", cond)
			}
		case !cond.Passed || cond.Skipped:
			t.Errorf("dirty %s: %+v", cond.Name, cond)
		}
	}
}

// conditionReaders maps each table to the conditions ("C1" …) whose query
// in kind's checks.sql names it (comments aside, where "every customer"
// names no table).
func conditionReaders(t *testing.T, kind db.Kind) map[string][]string {
	t.Helper()
	stmts, err := statementMap(kind, "checks.sql")
	if err != nil {
		t.Fatal(err)
	}
	readers := map[string][]string{}
	for _, name := range checkNames {
		var code []string
		for _, line := range strings.Split(stmts[name], "\n") {
			if !strings.HasPrefix(strings.TrimSpace(line), "--") {
				code = append(code, line)
			}
		}
		words := strings.FieldsFunc(strings.ToLower(strings.Join(code, "\n")), func(r rune) bool {
			return !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9')
		})
		for _, tb := range AllTables() {
			if slices.Contains(words, tb.String()) {
				readers[tb.String()] = append(readers[tb.String()], strings.ToUpper(name))
			}
		}
	}
	if len(readers["order_line"]) == 0 || len(readers["warehouse"]) == 0 {
		t.Fatalf("%s checks: readers %v: the table names were not found", kind, readers)
	}
	return readers
}

// changedTable is the table an UPDATE or DELETE statement changes.
func changedTable(t *testing.T, stmt string) string {
	t.Helper()
	f := strings.Fields(strings.ToLower(stmt))
	name := ""
	switch {
	case len(f) > 1 && f[0] == "update":
		name = f[1]
	case len(f) > 2 && f[0] == "delete":
		name = f[2]
	}
	for _, tb := range AllTables() {
		if name == tb.String() {
			return name
		}
	}
	t.Fatalf("%q: not an UPDATE or DELETE of a TPROC-C table", stmt)
	return ""
}

func TestChecksFilesAreComplete(t *testing.T) {
	for _, kind := range []db.Kind{db.Postgres, db.SQLite} {
		m, err := statementMap(kind, "checks.sql")
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range checkNames {
			q, ok := m[name]
			if !ok {
				t.Errorf("%s: no condition %s", kind, name)
				continue
			}
			if firstComment(q) == "" {
				t.Errorf("%s %s: no description comment", kind, name)
			}
			if strings.Contains(strings.TrimSpace(q), ";") {
				t.Errorf("%s %s: a semicolon would break the count(*) wrapper", kind, name)
			}
		}
	}
}

func TestThousands(t *testing.T) {
	cases := map[int64]string{0: "0", 7: "7", 999: "999", 1000: "1,000", 300000: "300,000",
		1234567: "1,234,567", -30000: "-30,000"}
	for n, want := range cases {
		if got := thousands(n); got != want {
			t.Errorf("thousands(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestCardinalityChecks(t *testing.T) {
	m := Meta{Warehouses: 2, Seed: 5, CLoad: CLoadFor(5), Format: buildFormat}
	counts := wantCounts(m.Seed, m.Warehouses)
	for _, c := range cardinalityChecks(m, counts) {
		if !c.Passed {
			t.Errorf("%+v", c)
		}
	}
	counts["order_line"]++
	for _, c := range cardinalityChecks(m, counts) {
		if c.Passed == (c.Name == "rows order_line") {
			t.Errorf("one extra order line: %+v", c)
		}
	}
	// An older build format cannot be recomputed: ±1% of the mean.
	m.Format = 0
	counts["order_line"] = 600000 + 5000
	for _, c := range cardinalityChecks(m, counts) {
		if c.Name == "rows order_line" && !c.Passed {
			t.Errorf("within 1%%: %+v", c)
		}
	}
	counts["order_line"] = 600000 + 7000
	for _, c := range cardinalityChecks(m, counts) {
		if c.Name == "rows order_line" && c.Passed {
			t.Errorf("beyond 1%%: %+v", c)
		}
	}
}
