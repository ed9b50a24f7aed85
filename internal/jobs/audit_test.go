package jobs

import (
	"context"
	"reflect"
	"testing"

	"github.com/sledge-bench/sledge/internal/metrics"
)

// TestAuditStoredWhole: a stored result keeps each audit item's accepted
// range, sample, verdict and note, so it reads as the live one did — an
// item too small to judge stays n/a, never turns into ok.
func TestAuditStoredWhole(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, b backend) {
		ctx := context.Background()
		r := b.open(t)
		id := mustCreate(t, r, Job{Kind: KindRun}, nil)
		res := sampleRunResult()
		res.Audit = []metrics.AuditItem{
			{Name: "mix new_order", Value: 38.05, Unit: "%", Target: "≈ 43.48 (deck)", Low: 42.85, High: 44.11, N: 100000,
				OK: false, Verdict: metrics.VerdictOff, Note: "4,630 transactions failed"},
			{Name: "remote payments", Value: 20, Unit: "%", Target: "≈ 15", Low: 0, High: 40, N: 12,
				OK: true, Verdict: metrics.VerdictNA, Note: "too few to judge"},
			{Name: "keying time", Value: 18, Unit: " s", Target: "18", OK: true}, // no range, no verdict
		}
		if err := r.SaveRunResult(ctx, id, res); err != nil {
			t.Fatal(err)
		}
		got, err := r.RunResult(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got.Audit, res.Audit) {
			t.Errorf("audit read back\n%+v\nwant\n%+v", got.Audit, res.Audit)
		}
		if got.Audit[1].Status() != metrics.VerdictNA {
			t.Errorf("n/a item reads back as %s", got.Audit[1].Status())
		}
	})
}
