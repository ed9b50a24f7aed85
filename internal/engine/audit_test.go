package engine

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sledge-bench/sledge/internal/db"
	"github.com/sledge-bench/sledge/internal/metrics"
	"github.com/sledge-bench/sledge/internal/workload"
)

// auditWorkload is a workload.Auditor whose transactions fail now and then:
// every third "a" with a serialization error, every fifth "b" with a
// deadlock. It records what the engine hands its Audit and answers with
// canned items.
type auditWorkload struct {
	items []metrics.AuditItem

	mu                             sync.Mutex
	marked                         bool
	completed, rolledBack, attempt []int64
	failed                         []map[string]int64
}

func (f *auditWorkload) TxNames() []string { return []string{"a", "b"} }
func (f *auditWorkload) Classify(err error) db.ErrorClass {
	var ce classErr
	if errors.As(err, &ce) {
		return ce.c
	}
	return db.ClassOther
}
func (f *auditWorkload) Close(context.Context) error { return nil }
func (f *auditWorkload) NewWorker(context.Context, int) (workload.Worker, error) {
	return &auditWorker{}, nil
}
func (f *auditWorkload) MarkAudit() {
	f.mu.Lock()
	f.marked = true
	f.mu.Unlock()
}
func (f *auditWorkload) Audit(completed, rolledBack []int64, failed []map[string]int64) []metrics.AuditItem {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.completed, f.rolledBack, f.failed = completed, rolledBack, failed
	return f.items
}

type auditWorker struct{ n, tx int }

func (w *auditWorker) Next() int { w.n++; w.tx = w.n % 2; return w.tx }
func (w *auditWorker) Execute(context.Context) error {
	time.Sleep(time.Millisecond)
	switch {
	case w.tx == 0 && w.n%3 == 0:
		return classErr{db.ClassSerialization}
	case w.tx == 1 && w.n%5 == 0:
		return classErr{db.ClassDeadlock}
	}
	return nil
}
func (w *auditWorker) Reconnect(context.Context) error { return nil }
func (w *auditWorker) Close(context.Context) error     { return nil }

// The engine hands the Auditor the failures by type and class beside the
// completed counts, and words only OFF items as warnings.
func TestAuditGetsFailures(t *testing.T) {
	t.Parallel()
	f := &auditWorkload{items: []metrics.AuditItem{
		{Name: "mix a", Value: 50, Unit: "%", Target: "≈ 50", Low: 45, High: 55, N: 1000, OK: true, Verdict: metrics.VerdictOK},
		{Name: "completed mix a", Value: 40, Unit: "%", Target: "≈ 50", Low: 45, High: 55, N: 900, Verdict: metrics.VerdictOff,
			Note: "100 failed (a 100 serialization)"},
		{Name: "completed mix b", Value: 60, Unit: "%", Target: "≈ 50", Low: 45, High: 55, N: 900, Verdict: metrics.VerdictOff,
			Note: "100 failed (a 100 serialization)"},
		{Name: "rare", Value: 0, Unit: "%", Target: "≈ 1", Low: 0, High: 5, N: 3, OK: true, Verdict: metrics.VerdictNA,
			Note: "too few to judge"},
	}}
	res, err := Run(context.Background(), f, testConfig(), &captureOutput{})
	if err != nil {
		t.Fatal(err)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.marked || len(f.completed) != 2 || len(f.rolledBack) != 2 || len(f.failed) != 2 {
		t.Fatalf("Audit got completed %v, rolled back %v, failed %v (marked %v)", f.completed, f.rolledBack, f.failed, f.marked)
	}
	for i, tx := range res.Tx {
		if f.completed[i] != tx.Count+tx.RolledBack {
			t.Errorf("%s: Audit got %d completed, the result has %d", tx.Name, f.completed[i], tx.Count+tx.RolledBack)
		}
		if len(f.failed[i]) != len(tx.Errors) {
			t.Errorf("%s: Audit got failures %v, the result has %v", tx.Name, f.failed[i], tx.Errors)
		}
		for cls, n := range tx.Errors {
			if f.failed[i][cls] != n {
				t.Errorf("%s: Audit got %d %s failures, the result has %d", tx.Name, f.failed[i][cls], cls, n)
			}
		}
	}
	if f.failed[0]["serialization"] == 0 || f.failed[1]["deadlock"] == 0 {
		t.Errorf("failures by class: %v, want serialization on a and deadlock on b", f.failed)
	}

	var audit []string
	for _, w := range res.Warnings {
		if strings.HasPrefix(w, "audit: ") {
			audit = append(audit, w)
		}
	}
	want := []string{
		"audit: completed mix a is 40.00%, expected ≈ 50 (accepted 45.00–55.00%): 100 failed (a 100 serialization)",
		"audit: completed mix b is 60.00%, expected ≈ 50 (accepted 45.00–55.00%)", // the shared note once
	}
	if strings.Join(audit, "\n") != strings.Join(want, "\n") {
		t.Errorf("audit warnings:\n%s\nwant:\n%s", strings.Join(audit, "\n"), strings.Join(want, "\n"))
	}
}
