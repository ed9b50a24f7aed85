package report

import (
	"strings"
	"testing"

	"github.com/sledge-bench/sledge/internal/metrics"
)

// auditItems are a mix judged against the deck, one too small to judge, one
// failed by failures, and one stored without range or verdict.
func auditItems() []metrics.AuditItem {
	failures := "4,630 of 100,000 attempted transactions failed (new_order 3,900 serialization; payment 730 deadlock): the completed mix is not the deck's"
	return []metrics.AuditItem{
		{Name: "mix new_order", Value: 43.49, Unit: "%", Target: "≈ 43.48 (deck)", Low: 42.85, High: 44.11, N: 100_000,
			OK: true, Verdict: metrics.VerdictOK},
		{Name: "mix delivery", Value: 3.1, Unit: "%", Target: ">= 4.0", Low: 4, High: 100, N: 97,
			OK: true, Verdict: metrics.VerdictNA, Note: "too few transactions to judge: 97, 230 needed"},
		{Name: "completed mix new_order", Value: 38.05, Unit: "%", Target: "≈ 43.48 (deck)", Low: 42.83, High: 44.13, N: 95_370,
			Verdict: metrics.VerdictOff, Note: failures},
		{Name: "completed mix payment", Value: 44.9, Unit: "%", Target: ">= 43.0", Low: 43, High: 100, N: 95_370,
			OK: true, Verdict: metrics.VerdictOK, Note: failures},
		{Name: "remote %", Value: 0.5, Unit: "%", Target: ">= 1"},
	}
}

func TestAuditRendering(t *testing.T) {
	t.Parallel()
	want := []string{
		"\n audit:\n",
		" mix new_order 43.49% (expected ≈ 43.48 (deck), accepted 42.85–44.11, n=100,000) ok\n",
		" mix delivery 3.10% (expected >= 4.0, accepted 4.00–100.00, n=97) n/a [1]\n",
		" completed mix new_order 38.05% (expected ≈ 43.48 (deck), accepted 42.83–44.13, n=95,370) OFF [2]\n",
		" completed mix payment 44.90% (expected >= 43.0, accepted 43.00–100.00, n=95,370) ok [2]\n",
		" remote % 0.50% (expected >= 1) OFF\n", // no range, no verdict: OK decides
		" [1] too few transactions to judge: 97, 230 needed\n",
		" [2] 4,630 of 100,000 attempted transactions failed (new_order 3,900 serialization; payment 730 deadlock): the completed mix is not the deck's\n",
	}
	cases := []struct {
		name  string
		write func(*strings.Builder, *metrics.RunResult) error
	}{
		{"live", func(b *strings.Builder, r *metrics.RunResult) error {
			return RunResult(b, "TPROC-C", 7, "postgres://db/tpcc", "PostgreSQL 17", r, false)
		}},
		{"stored", func(b *strings.Builder, r *metrics.RunResult) error {
			return StoredRunResult(b, "TPROC-C", finishedJob(), r)
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := runResult()
			r.Audit = auditItems()
			var b strings.Builder
			if err := c.write(&b, r); err != nil {
				t.Fatal(err)
			}
			checkText(t, b.String(), want, []string{"[3]", "n/a [2]"})
			if n := strings.Count(b.String(), "new_order 3,900 serialization"); n != 1 {
				t.Errorf("the failures' note is written %d times, want once:\n%s", n, b.String())
			}
		})
	}
}

func TestAuditJSON(t *testing.T) {
	t.Parallel()
	r := runResult()
	r.Audit = auditItems()
	res := object(t, ToResult(7, r))
	list, _ := res["audit"].([]any)
	if len(list) != 5 {
		t.Fatalf("audit = %v", res["audit"])
	}
	cases := []struct {
		i         int
		ok        bool
		verdict   string
		judged    bool
		low, high any
		n         float64
	}{
		{0, true, "ok", true, 42.85, 44.11, 100_000},
		{1, true, "n/a", false, 4.0, 100.0, 97},
		{2, false, "OFF", true, 42.83, 44.13, 95_370},
		{4, false, "OFF", true, nil, nil, 0}, // stored without a range
	}
	for _, c := range cases {
		m := list[c.i].(map[string]any)
		hasKeys(t, m, "name", "value", "unit", "target", "ok", "verdict", "judged", "low", "high", "n", "note")
		if m["ok"] != c.ok || m["verdict"] != c.verdict || m["judged"] != c.judged || m["low"] != c.low ||
			m["high"] != c.high || m["n"] != c.n {
			t.Errorf("audit[%d] = %v", c.i, m)
		}
	}
	if note := list[2].(map[string]any)["note"]; !strings.Contains(note.(string), "new_order 3,900 serialization") {
		t.Errorf("note = %v", note)
	}
}

func TestAuditWarnings(t *testing.T) {
	t.Parallel()
	got := metrics.AuditWarnings(auditItems())
	want := []string{
		"audit: completed mix new_order is 38.05%, expected ≈ 43.48 (deck) (accepted 42.83–44.13%): 4,630 of 100,000 attempted transactions failed (new_order 3,900 serialization; payment 730 deadlock): the completed mix is not the deck's",
		"audit: remote % is 0.50%, expected >= 1",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("warnings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
