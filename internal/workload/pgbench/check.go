package pgbench

import (
	"context"
	"fmt"
	"strings"

	"github.com/sledge-bench/sledge/internal/db"
	"github.com/sledge-bench/sledge/internal/workload"
)

// Check counts the tables' rows against the build's scale and compares
// the sums of balances: every tpcb-like transaction adds its delta to one
// account, one teller and one branch and records it in the history, and
// every simple-update one to an account and the history only, so
// sum(abalance) = sum(delta) and sum(tbalance) = sum(bbalance) after any
// number of committed ones of either (with tpcb-like alone all four are
// equal). The history grows with every run: its rows are counted, not
// judged.
func Check(ctx context.Context, c db.Conn, kind db.Kind) (workload.CheckReport, error) {
	m, err := ReadMeta(ctx, c, kind)
	if err != nil {
		return workload.CheckReport{}, err
	}
	var out workload.CheckReport
	for _, tb := range tables {
		var n int64
		if err := c.QueryRow(ctx, "SELECT count(*) FROM "+tb).Scan(&n); err != nil {
			return out, fmt.Errorf("count rows of %s: %w", tb, err)
		}
		out.Tables = append(out.Tables, workload.TableRows{Name: tb, Rows: n})
		if tb == "pgbench_history" {
			continue
		}
		want, _ := rowsOf(tb, m.Scale)
		cond := workload.Condition{Name: "rows " + tb,
			Description: fmt.Sprintf("%s rows at scale %d", workload.Thousands(want), m.Scale), Passed: n == want}
		if !cond.Passed {
			cond.Violations, cond.Note = 1, "found "+workload.Thousands(n)+" rows"
		}
		out.Conditions = append(out.Conditions, cond)
	}
	sums, err := Balances(ctx, c, kind)
	if err != nil {
		return out, err
	}
	for _, cond := range []workload.Condition{
		{Name: "account balances", Description: "sum(abalance) = sum(delta) of pgbench_history", Passed: sums.Accounts == sums.History},
		{Name: "teller balances", Description: "sum(tbalance) = sum(bbalance)", Passed: sums.Tellers == sums.Branches},
	} {
		if !cond.Passed {
			cond.Violations, cond.Note = 1, sums.String()
		}
		out.Conditions = append(out.Conditions, cond)
	}
	return out, nil
}

// Sums are the sums of balances (and of the history's deltas).
type Sums struct {
	Accounts, Tellers, Branches, History int64
}

// Consistent reports whether the sums agree as the built-in scripts keep
// them: accounts with the history, tellers with branches.
func (s Sums) Consistent() bool {
	return s.Accounts == s.History && s.Tellers == s.Branches
}

func (s Sums) String() string {
	return fmt.Sprintf("accounts %d, tellers %d, branches %d, history %d", s.Accounts, s.Tellers, s.Branches, s.History)
}

// Balances reads the sums checks.sql names.
func Balances(ctx context.Context, c db.Conn, kind db.Kind) (Sums, error) {
	stmts, err := statements(kind, "checks")
	if err != nil {
		return Sums{}, err
	}
	var s Sums
	dest := map[string]*int64{"accounts": &s.Accounts, "tellers": &s.Tellers, "branches": &s.Branches, "history": &s.History}
	for _, st := range stmts {
		p, ok := dest[st.Name]
		if !ok {
			return Sums{}, fmt.Errorf("pgbench checks.sql: unknown sum %q", st.Name)
		}
		if err := c.QueryRow(ctx, strings.TrimSuffix(strings.TrimSpace(st.SQL), ";")).Scan(p); err != nil {
			return Sums{}, fmt.Errorf("sum of %s: %w", st.Name, err)
		}
	}
	return s, nil
}
