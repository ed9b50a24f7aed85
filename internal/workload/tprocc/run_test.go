package tprocc

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/sledge-bench/sledge/internal/db"
	"github.com/sledge-bench/sledge/internal/db/postgres"
	"github.com/sledge-bench/sledge/internal/db/sqlite"
	"github.com/sledge-bench/sledge/internal/engine"
	"github.com/sledge-bench/sledge/internal/metrics"
	"github.com/sledge-bench/sledge/internal/workload"
)

// Integration tests of runs against real databases: the transactions must keep
// every consistency condition, the client's NOPM must match the database's,
// and the designed rollback must leave nothing behind.

type logOutput struct {
	t  *testing.T
	mu sync.Mutex
	iv []metrics.Interval
}

func (o *logOutput) Logf(format string, args ...any) { o.t.Logf(format, args...) }
func (o *logOutput) Interval(iv metrics.Interval) {
	o.mu.Lock()
	o.iv = append(o.iv, iv)
	o.mu.Unlock()
}

// requireConsistent runs the check and fails on any condition that does not
// hold (C11 is skipped by Check itself once the database has been run).
func requireConsistent(t *testing.T, drv db.Driver, tg db.Target, when string) CheckReport {
	t.Helper()
	ctx := context.Background()
	c, err := drv.Connect(ctx, tg, db.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	rep, err := Check(ctx, c, drv.Kind(), CheckOptions{})
	if err != nil {
		t.Fatalf("check %s: %v", when, err)
	}
	for _, cond := range rep.Conditions {
		if !cond.Passed && !cond.Skipped {
			t.Errorf("%s: %s fails (%d violations): %s %s", when, cond.Name, cond.Violations, cond.Description, cond.Note)
		}
	}
	return rep
}

// runFor runs windows of d from their first transaction (no ramp-up) until
// every transaction type has committed and a designed New-Order rollback
// has rolled back. A rollback is 1 % of New-Orders by chance, and seeing one
// by chance takes about 700 New-Orders (a 0.1 % chance of none): minutes of
// windows on a busy machine. Each window's seed is instead one that deals
// some VU a rollback in its first deck (rollbackSeed), which also holds
// every type: a window in which each VU gets through 23 transactions sees
// them all. A machine too busy for that runs another window (up to 20:
// under two copies of the suite MariaDB's sql mode needed more than 10
// windows of 2 s to see a Delivery).
// The windows are unpaced, taking all the CPU they get: 2 s, thousands of
// transactions on an idle machine (PostgreSQL's procs mode: over 4,000 a
// second), are as good as longer ones for what is checked, and a busy
// machine's short window is made up for by the next one.
func runFor(t *testing.T, drv db.Driver, tg db.Target, mode Mode, iso db.Isolation, vus int, d time.Duration) *metrics.RunResult {
	t.Helper()
	const maxWindows = 20
	var (
		res        *metrics.RunResult
		committed  = map[string]int64{}
		newOrders  int64
		dbOrders   int64 // the database's count of New-Orders, over the windows
		rolledBack int64
		seed       = uint64(98)
	)
	for w := 1; ; w++ {
		seed = rollbackSeed(t, drv, tg, mode, iso, vus, seed)
		res = runWindow(t, drv, tg, mode, iso, vus, d, seed)
		seed++ // the next window's search starts past this one
		done := true
		for _, tx := range res.Tx {
			committed[tx.Name] += tx.Count
			done = done && committed[tx.Name] > 0
		}
		newOrders += res.Tx[txNewOrder].Count
		dbOrders += res.DBNewOrders
		rolledBack += res.Tx[txNewOrder].RolledBack
		if done && rolledBack > 0 || w == maxWindows {
			break
		}
		t.Logf("%d New-Orders, %d rolled back in %d windows: another window", newOrders, rolledBack, w)
	}
	for _, tx := range res.Tx {
		if committed[tx.Name] == 0 {
			t.Errorf("no %s committed", tx.Name)
		}
	}
	if rolledBack == 0 {
		t.Errorf("no designed New-Order rollbacks in the windows (%d New-Orders)", newOrders)
	}
	if dbOrders == 0 {
		t.Error("the database's New-Order count did not move")
	}
	return res
}

// rollbackSeed returns the first seed from from on whose run deals some VU
// a designed New-Order rollback in its first deck of 23 transactions,
// predicted by the run's own terminals (NewRunner, newTerminal: the draws
// the run's VUs make with that seed).
func rollbackSeed(t *testing.T, drv db.Driver, tg db.Target, mode Mode, iso db.Isolation, vus int, from uint64) uint64 {
	t.Helper()
	ctx := context.Background()
	for seed := from; seed < from+200; seed++ {
		r, err := NewRunner(ctx, drv, tg, RunOptions{Mode: mode, Isolation: iso, Seed: seed})
		if err != nil {
			t.Fatal(err)
		}
		dealt := false
		for vu := 0; vu < vus && !dealt; vu++ {
			term := r.newTerminal(vu)
			for range len(deckCards) {
				if term.Next() == txNewOrder && term.gen.in.rollback {
					dealt = true
					break
				}
			}
		}
		r.Close(ctx)
		if dealt {
			return seed
		}
	}
	t.Fatalf("no seed in %d…%d deals a rollback in a first deck", from, from+199)
	return 0
}

// runStallAfter is the stall threshold of this package's test runs: long.
// They judge a run's counts and consistency, which a slow moment does not
// change; on a busy machine the storage can keep SQLite's single writer
// (and so every session) waiting for seconds, which the default threshold
// (half an interval, at least 2 s) would report as a stall and the run as
// degraded. The engine's own tests cover stall detection.
const runStallAfter = time.Minute

// runWindow runs one window and checks it: completed, commits without
// errors, NOPM agreeing with the database, percentiles in order, two
// intervals (each half the window).
func runWindow(t *testing.T, drv db.Driver, tg db.Target, mode Mode, iso db.Isolation, vus int, d time.Duration, seed uint64) *metrics.RunResult {
	t.Helper()
	ctx := context.Background()
	r, err := NewRunner(ctx, drv, tg, RunOptions{Mode: mode, Isolation: iso, Seed: seed})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close(ctx)
	out := &logOutput{t: t}
	release := windowSlot()
	res, err := engine.Run(ctx, r, engine.Config{VUs: vus, Duration: d, Interval: d / 2, MaxRetries: 5, StallAfter: runStallAfter}, out)
	release()
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != metrics.StatusCompleted {
		t.Fatalf("status %s", res.Status)
	}
	// A window may commit no New-Order on a busy machine (2 s of 4 VUs
	// committed 4 transactions under two copies of the suite): runFor
	// runs another one, and checks that every type committed and that the
	// database's count moved over its windows.
	if res.Errors != 0 {
		for _, tx := range res.Tx {
			t.Logf("%s errors %v", tx.Name, tx.Errors)
		}
		t.Fatalf("%d failed transactions", res.Errors)
	}
	if !res.DBCheckAgree {
		t.Fatalf("NOPM cross-check: database %d, client %d New-Orders", res.DBNewOrders, res.NewOrders)
	}
	for _, tx := range res.Tx {
		if tx.Count > 0 && (tx.P50 <= 0 || tx.P95 < tx.P50 || tx.Max < tx.P99) {
			t.Errorf("%s percentiles out of order: p50 %s p95 %s p99 %s max %s", tx.Name, tx.P50, tx.P95, tx.P99, tx.Max)
		}
	}
	if len(out.iv) < 2 {
		t.Errorf("%d intervals", len(out.iv))
	}
	t.Logf("%s/%s: NOPM %.0f (db %.0f), TPM %.0f, client CPU %.1f µs/tx", drv.Kind(), mode, res.NOPM, res.NOPMDBCheck, res.TPM, res.ClientCPUPerTxUS)
	return res
}

func TestRunPostgresBothModes(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs")
	}
	t.Parallel()
	drv := postgres.Driver{}
	tg := built(t, db.Postgres, 2, 3)
	requireConsistent(t, drv, tg, "after the build")
	runFor(t, drv, tg, ModeProcs, db.DefaultIsolation, 4, 2*time.Second)
	requireConsistent(t, drv, tg, "after the procs run")
	runFor(t, drv, tg, ModeSQL, db.DefaultIsolation, 4, 2*time.Second)
	rep := requireConsistent(t, drv, tg, "after the sql run")
	for _, c := range rep.Conditions {
		if c.Name == "C11" && !c.Skipped {
			t.Error("C11 checked after runs: it only holds before the first run")
		}
	}
}

func TestRunSQLite(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs")
	}
	t.Parallel()
	drv := sqlite.Driver{}
	tg := built(t, db.SQLite, 1, 3)
	requireConsistent(t, drv, tg, "after the build")
	if _, err := NewRunner(context.Background(), drv, tg, RunOptions{Mode: ModeProcs}); err == nil {
		t.Fatal("procs mode accepted on SQLite")
	}
	runFor(t, drv, tg, ModeAuto, db.DefaultIsolation, 3, 2*time.Second)
	requireConsistent(t, drv, tg, "after the run")
}

// forcedInvalidOrder sets up a New-Order whose last item is the unused id.
func forcedInvalidOrder(t *testing.T, w workload.Worker) *terminal {
	t.Helper()
	term := w.(*worker).terminal
	term.tx = txNewOrder
	in := &term.gen.in
	*in = inputs{w: 1, d: 4, customer: 17, nLines: 5, allLocal: 1, rollback: true}
	for i := 0; i < 4; i++ {
		in.lines[i] = orderLine{itemID: int32(100 + i), supplyW: 1, quantity: 3}
	}
	in.lines[4] = orderLine{itemID: unusedItemID, supplyW: 1, quantity: 3}
	return term
}

// snapshot is what a rolled-back New-Order must not change.
func snapshot(t *testing.T, c db.Conn) string {
	t.Helper()
	ctx := context.Background()
	var next, orders, newOrders, lines, ytd int64
	for _, q := range []struct {
		sql string
		dst *int64
	}{
		{"SELECT d_next_o_id FROM district WHERE d_w_id = 1 AND d_id = 4", &next},
		{"SELECT count(*) FROM orders WHERE o_w_id = 1 AND o_d_id = 4", &orders},
		{"SELECT count(*) FROM new_order WHERE no_w_id = 1 AND no_d_id = 4", &newOrders},
		{"SELECT count(*) FROM order_line WHERE ol_w_id = 1 AND ol_d_id = 4", &lines},
		{"SELECT sum(s_ytd) FROM stock WHERE s_w_id = 1 AND s_i_id BETWEEN 100 AND 103", &ytd},
	} {
		if err := c.QueryRow(ctx, q.sql).Scan(q.dst); err != nil {
			t.Fatalf("%s: %v", q.sql, err)
		}
	}
	return fmt.Sprintf("d_next_o_id %d, orders %d, new_order %d, order_line %d, stock ytd %d", next, orders, newOrders, lines, ytd)
}

func testInvalidItemRollsBack(t *testing.T, drv db.Driver, tg db.Target, mode Mode) {
	ctx := context.Background()
	r, err := NewRunner(ctx, drv, tg, RunOptions{Mode: mode, Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close(ctx)
	w, err := r.NewWorker(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close(ctx)
	before := snapshot(t, r.monitor)
	term := forcedInvalidOrder(t, w)
	if err := w.Execute(ctx); !errors.Is(err, workload.ErrRolledBack) {
		t.Fatalf("%s: invalid item gave %v, want the designed rollback", mode, err)
	}
	if after := snapshot(t, r.monitor); after != before {
		t.Fatalf("%s: rolled-back New-Order left traces:\nbefore %s\nafter  %s", mode, before, after)
	}
	// The same order with a valid last item commits and changes all of it.
	term = forcedInvalidOrder(t, w)
	term.gen.in.lines[4].itemID = 104
	term.gen.in.rollback = false
	if err := w.Execute(ctx); err != nil {
		t.Fatalf("%s: valid order: %v", mode, err)
	}
	if after := snapshot(t, r.monitor); after == before {
		t.Fatalf("%s: a committed New-Order changed nothing (%s)", mode, after)
	}
}

func TestInvalidItemRollsBackPostgres(t *testing.T) {
	t.Parallel()
	drv := postgres.Driver{}
	tg := built(t, db.Postgres, 1, 3)
	for _, mode := range []Mode{ModeProcs, ModeSQL} {
		testInvalidItemRollsBack(t, drv, tg, mode)
	}
	requireConsistent(t, drv, tg, "after the forced orders")
}

func TestInvalidItemRollsBackSQLite(t *testing.T) {
	t.Parallel()
	drv := sqlite.Driver{}
	tg := built(t, db.SQLite, 1, 3)
	testInvalidItemRollsBack(t, drv, tg, ModeSQL)
	requireConsistent(t, drv, tg, "after the forced orders")
}

// TestReconnectAfterBackendsTerminated kills every VU's server session in the
// middle of a run: the failures are counted as connection errors, never as
// commits, and the VUs reconnect and carry on.
func TestReconnectAfterBackendsTerminated(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs")
	}
	t.Parallel()
	ctx := context.Background()
	drv := postgres.Driver{}
	tg := built(t, db.Postgres, 1, 3)
	r, err := NewRunner(ctx, drv, tg, RunOptions{Mode: ModeProcs, Seed: 8})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close(ctx)
	admin, err := drv.Connect(ctx, tg, db.Options{AppName: "test admin"})
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close(ctx)
	var killed int64
	timer := time.AfterFunc(3*time.Second, func() {
		err := admin.QueryRow(ctx, `SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
			WHERE application_name = 'sledge vu' AND datname = current_database()`).Scan(&killed)
		if err != nil {
			t.Errorf("terminate backends: %v", err)
		}
	})
	defer timer.Stop()
	out := &logOutput{t: t}
	res, err := engine.Run(ctx, r, engine.Config{VUs: 3, Duration: 7 * time.Second, Interval: time.Second}, out)
	if err != nil {
		t.Fatal(err)
	}
	if killed != 3 {
		t.Fatalf("terminated %d sessions, want the 3 VUs'", killed)
	}
	var connErrs int64
	for _, tx := range res.Tx {
		connErrs += tx.Errors["connection"]
	}
	if connErrs == 0 || connErrs > 3 {
		t.Fatalf("%d connection errors, want one per terminated VU in flight (1..3)", connErrs)
	}
	// Transactions committed in the last intervals: the VUs came back.
	last := out.iv[len(out.iv)-1]
	var n int64
	for _, tx := range last.Tx {
		n += tx.Count
	}
	if n == 0 {
		t.Fatalf("nothing committed in the last interval after the reconnect: %+v", last)
	}
	if !res.DBCheckAgree {
		t.Fatalf("NOPM cross-check: database %d, client %d", res.DBNewOrders, res.NewOrders)
	}
	requireConsistent(t, drv, tg, "after the reconnects")
}

// TestSerializableWithRetries runs the client-side transactions under
// SERIALIZABLE on one warehouse, where conflicts are certain: the failures
// are classified as serialization errors, retried, and never break the data.
func TestSerializableWithRetries(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs")
	}
	t.Parallel()
	ctx := context.Background()
	drv := postgres.Driver{}
	tg := built(t, db.Postgres, 1, 3)
	r, err := NewRunner(ctx, drv, tg, RunOptions{Mode: ModeSQL, Isolation: db.Serializable, Seed: 10})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close(ctx)
	// An unpaced window: 2 s hold hundreds of conflicts, as many as 6 s did.
	res, err := engine.Run(ctx, r, engine.Config{VUs: 6, Duration: 2 * time.Second, Interval: time.Second, MaxRetries: 20}, &logOutput{t: t})
	if err != nil {
		t.Fatal(err)
	}
	var retries, serialization, other int64
	for _, tx := range res.Tx {
		retries += tx.Retries
		for cls, n := range tx.Errors {
			if cls == "serialization" {
				serialization += n
			} else {
				other += n
			}
		}
	}
	if retries == 0 {
		t.Fatal("no retries under SERIALIZABLE with 6 VUs on one warehouse")
	}
	if other != 0 {
		t.Fatalf("%d errors other than serialization failures", other)
	}
	if !res.DBCheckAgree {
		t.Fatalf("NOPM cross-check: database %d, client %d", res.DBNewOrders, res.NewOrders)
	}
	t.Logf("SERIALIZABLE: %d commits, %d retries, %d failures after retries", res.Commits, retries, serialization)
	requireConsistent(t, drv, tg, "after the serializable run")
}
