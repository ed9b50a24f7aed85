package tprocc

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/sledge-bench/sledge/internal/metrics"
)

// deckCounts is passes full passes of the 23-card deck.
func deckCounts(passes int64) []int64 {
	return []int64{10 * passes, 10 * passes, passes, passes, passes}
}

// byName indexes audit items by name.
func byName(items []metrics.AuditItem) map[string]metrics.AuditItem {
	m := map[string]metrics.AuditItem{}
	for _, a := range items {
		m[a.Name] = a
	}
	return m
}

// inputsFor is a window's generated inputs in their expected proportions.
func inputsFor(completed []int64) auditTotals {
	no, pay, os, del := completed[txNewOrder], completed[txPayment], completed[txOrderStatus], completed[txDelivery]
	return auditTotals{
		orderLines: 10 * no, remoteLines: no / 10, payments: pay, remotePayments: pay * 15 / 100,
		paymentsByName: pay * 60 / 100, ostats: os, ostatsByName: os * 60 / 100, deliveries: del,
	}
}

func TestAuditMix(t *testing.T) {
	type want struct {
		name, verdict string
	}
	cases := []struct {
		name       string
		completed  []int64
		rolledBack []int64
		failed     []map[string]int64
		want       []want
		absent     []string // items that must not be reported
	}{
		{
			name:      "the deck's mix passes",
			completed: deckCounts(1000), // 23,000 transactions
			want: []want{{"mix new_order", "ok"}, {"mix payment", "ok"}, {"mix order_status", "ok"},
				{"mix delivery", "ok"}, {"mix stock_level", "ok"}, {"new_order rollbacks", "ok"},
				{"remote order lines", "ok"}, {"remote payments", "ok"}, {"payments by last name", "ok"},
				{"order-status by last name", "ok"}, {"delivery districts skipped", "ok"}},
			absent: []string{"completed mix new_order"},
		},
		{
			// The issue: 38 % New-Order over thousands of transactions was "ok".
			name:      "38 % new_order fails",
			completed: []int64{3_805, 4_995, 400, 400, 400},
			want: []want{{"mix new_order", "OFF"}, {"mix payment", "ok"}, {"mix order_status", "ok"},
				{"mix delivery", "ok"}, {"mix stock_level", "ok"}},
		},
		{
			name:      "48 % new_order fails",
			completed: []int64{4_800, 4_400, 267, 267, 266},
			want:      []want{{"mix new_order", "OFF"}, {"mix payment", "ok"}},
		},
		{
			name:      "payment below its minimum over many transactions fails",
			completed: []int64{450_000, 420_000, 44_000, 43_000, 43_000},
			want:      []want{{"mix new_order", "OFF"}, {"mix payment", "OFF"}},
		},
		{
			name:      "payment below its minimum over few transactions is n/a",
			completed: []int64{110, 99, 11, 10, 10}, // 240
			want: []want{{"mix payment", "n/a"}, {"mix new_order", "ok"}, {"mix order_status", "ok"},
				{"mix delivery", "ok"}},
		},
		{
			name:      "too few transactions to judge",
			completed: []int64{6, 7, 1, 0, 1},
			want: []want{{"mix new_order", "n/a"}, {"mix payment", "n/a"}, {"mix order_status", "n/a"},
				{"mix delivery", "n/a"}, {"mix stock_level", "n/a"}, {"new_order rollbacks", "n/a"},
				{"remote order lines", "n/a"}, {"delivery districts skipped", "n/a"}},
		},
		{
			name:       "rollbacks off",
			completed:  deckCounts(2000),
			rolledBack: []int64{500, 0, 0, 0, 0}, // 2.5 % of 20,000
			want:       []want{{"new_order rollbacks", "OFF"}, {"mix new_order", "ok"}},
		},
		{
			// A SERIALIZABLE run: the deck drew its mix, failures took New-Orders
			// out of the completed one.
			name: "failures move the completed mix",
			completed: func() []int64 {
				c := deckCounts(2000)
				c[txNewOrder] -= 3_900
				c[txPayment] -= 700
				c[txDelivery] -= 30
				return c
			}(),
			failed: []map[string]int64{
				{"serialization": 3_800, "deadlock": 100}, {"deadlock": 700}, nil, {"serialization": 30}, nil,
			},
			want: []want{{"mix new_order", "ok"}, {"mix payment", "ok"}, {"mix delivery", "ok"},
				{"completed mix new_order", "OFF"}, {"completed mix payment", "ok"}},
		},
		{
			name: "a few failures do not move it",
			completed: func() []int64 {
				c := deckCounts(2000)
				c[txNewOrder] -= 1
				c[txPayment] -= 1
				return c
			}(),
			failed: []map[string]int64{{"serialization": 1}, {"deadlock": 1}, nil, nil, nil},
			want:   []want{{"mix new_order", "ok"}},
			absent: []string{"completed mix new_order", "completed mix payment"},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rb := c.rolledBack
			if rb == nil {
				rb = []int64{c.completed[txNewOrder] / 100, 0, 0, 0, 0}
			}
			items := auditWindow(4, c.completed, rb, c.failed, inputsFor(c.completed))
			got := byName(items)
			for _, w := range c.want {
				a, ok := got[w.name]
				if !ok {
					t.Errorf("no item %q", w.name)
					continue
				}
				if a.Status() != w.verdict {
					t.Errorf("%s = %.2f%% (accepted %s, n=%d): %s, want %s; note %q", w.name, a.Value, a.Accepted(), a.N, a.Status(), w.verdict, a.Note)
				}
				if a.OK != (w.verdict != metrics.VerdictOff) {
					t.Errorf("%s: OK %v with verdict %s", w.name, a.OK, a.Status())
				}
				if w.verdict != metrics.VerdictOK && a.Note == "" {
					t.Errorf("%s is %s without a note", w.name, w.verdict)
				}
			}
			for _, name := range c.absent {
				if a, ok := got[name]; ok {
					t.Errorf("unexpected item %+v", a)
				}
			}
			for _, a := range items {
				if !a.HasRange() {
					t.Errorf("%s has no accepted range", a.Name)
				}
				if a.Status() == metrics.VerdictOK && (a.Value < a.Low || a.Value > a.High) {
					t.Errorf("%s ok at %.2f outside %s", a.Name, a.Value, a.Accepted())
				}
			}
		})
	}
}

// Failures are reported by type and class, once, with what they did to the
// mix.
func TestAuditMixFailuresByTypeAndClass(t *testing.T) {
	completed := deckCounts(5000) // 115,000 drawn
	failed := []map[string]int64{
		{"serialization": 3_900, "deadlock": 20}, {"deadlock": 700}, {"other": 10}, nil, nil,
	}
	for tx, errs := range failed {
		for _, n := range errs {
			completed[tx] -= n
		}
	}
	items := auditWindow(4, completed, []int64{completed[0] / 100, 0, 0, 0, 0}, failed, inputsFor(completed))
	got := byName(items)
	note := got["completed mix new_order"].Note
	for _, w := range []string{"4,630 of 115,000 attempted transactions failed",
		"new_order 3,900 serialization, 20 deadlock; payment 700 deadlock; order_status 10 other",
		"the completed mix is not the deck's"} {
		if !strings.Contains(note, w) {
			t.Errorf("completed mix note %q lacks %q", note, w)
		}
	}
	if a := got["mix new_order"]; a.Status() != metrics.VerdictOK || math.Abs(a.Value-100*10.0/23) > 0.001 || a.N != 115_000 {
		t.Errorf("attempted mix new_order: %+v, want the deck's 43.48 %% of 115,000", a)
	}
	if a := got["completed mix new_order"]; a.Status() != metrics.VerdictOff || a.N != 115_000-4_630 {
		t.Errorf("completed mix new_order: %+v", a)
	}
	warnings := metrics.AuditWarnings(items)
	var withList int
	for _, w := range warnings {
		if strings.Contains(w, "new_order 3,900 serialization") {
			withList++
		}
	}
	if withList != 1 {
		t.Errorf("the failures are listed in %d warnings, want 1:\n%s", withList, strings.Join(warnings, "\n"))
	}
	if len(warnings) == 0 || !strings.HasPrefix(warnings[0], "audit: completed mix new_order is 41.75%") {
		t.Errorf("warnings: %q", warnings)
	}
}

// The tolerance of a random share narrows as 1/√n down to its floor, and the
// items' accepted ranges with it.
func TestAuditBoundsScaleWithSampleSize(t *testing.T) {
	p := 10.0 / 23
	cases := []struct {
		n       int64
		tol     float64 // percentage points, either side
		precise float64
	}{
		{1_000, 4 * 100 * math.Sqrt(p*(1-p)/1_000), 0.001},     // 6.27
		{100_000, 4 * 100 * math.Sqrt(p*(1-p)/100_000), 0.001}, // 0.63
		{10_000_000, 4 * 100 * math.Sqrt(p*(1-p)/10_000_000), 0.001},
		{1_000_000_000, auditFloorPP, 0}, // the floor
	}
	prev := math.Inf(1)
	for _, c := range cases {
		got := shareTolerance(p, c.n)
		if math.Abs(got-c.tol) > c.precise {
			t.Errorf("n=%d: tolerance %.4f, want %.4f", c.n, got, c.tol)
		}
		if got > prev {
			t.Errorf("n=%d: tolerance %.4f wider than at a smaller n (%.4f)", c.n, got, prev)
		}
		prev = got
		passes := c.n / 23
		a := byName(mixItems("mix ", deckCounts(passes)))["mix new_order"]
		if math.Abs((a.High-a.Low)/2-shareTolerance(p, 23*passes)) > 1e-9 || math.Abs((a.High+a.Low)/2-100*p) > 1e-9 {
			t.Errorf("n=%d: accepted %s, want %.2f ± %.4f", 23*passes, a.Accepted(), 100*p, shareTolerance(p, 23*passes))
		}
	}
	// 38 % is within the tolerance of 300 transactions, not of 3,000.
	for _, c := range []struct {
		n    int64
		want string
	}{{300, metrics.VerdictOK}, {3_000, metrics.VerdictOff}} {
		no := c.n * 38 / 100
		counts := []int64{no, c.n - no - 3*c.n/20, c.n / 20, c.n / 20, c.n / 20}
		if a := byName(mixItems("mix ", counts))["mix new_order"]; a.Status() != c.want {
			t.Errorf("38%% new_order over %d: %s (accepted %s), want %s", c.n, a.Status(), a.Accepted(), c.want)
		}
	}
	// Minima are exact bounds whatever the sample.
	for _, n := range []int64{10, 1_000_000} {
		a := byName(mixItems("mix ", deckCounts(n)))["mix payment"]
		if a.Low != 43 || a.High != 100 {
			t.Errorf("payment over %d passes: accepted %s, want 43.00–100.00", n, a.Accepted())
		}
	}
}

// The real deck, walked by many VUs whose window starts and ends in the
// middle of a pass, never sets off the attempted mix; neither do the real
// generator's inputs.
func TestAuditMixOfRealDecksPasses(t *testing.T) {
	for seed := uint64(1); seed <= 20; seed++ {
		r := NewRand(seed, 9)
		counts := make([]int64, numTx)
		for vu := 0; vu < 50; vu++ {
			d := newDeck()
			for range r.Int(0, 22) { // the window opens mid-pass
				d.draw(r)
			}
			for range r.Int(50, 2_000) {
				counts[d.draw(r)]++
			}
		}
		for _, a := range mixItems("mix ", counts) {
			if a.Status() != metrics.VerdictOK {
				t.Errorf("seed %d: %s %.2f%% (accepted %s, n=%d): %s %s", seed, a.Name, a.Value, a.Accepted(), a.N, a.Status(), a.Note)
			}
		}
	}

	g := newTestGenerator(4, 2)
	counts := make([]int64, numTx)
	for range 50_000 {
		counts[g.next()]++
	}
	a := g.audit
	in := auditTotals{
		orderLines: a.orderLines.Load(), remoteLines: a.remoteLines.Load(), payments: a.payments.Load(),
		remotePayments: a.remotePayments.Load(), paymentsByName: a.paymentsByName.Load(),
		ostats: a.ostats.Load(), ostatsByName: a.ostatsByName.Load(), deliveries: a.deliveries.Load(),
	}
	rb := []int64{counts[txNewOrder] / 100, 0, 0, 0, 0}
	for _, a := range auditWindow(4, counts, rb, nil, in) {
		if a.Status() != metrics.VerdictOK {
			t.Errorf("generator: %s %.2f%% (accepted %s, n=%d): %s %s", a.Name, a.Value, a.Accepted(), a.N, a.Status(), a.Note)
		}
	}
}

// Too few observations: the verdict is n/a, not ok, and not a failure.
func TestAuditNotApplicable(t *testing.T) {
	items := auditWindow(4, []int64{5, 5, 0, 1, 0}, []int64{0, 0, 0, 0, 0}, nil, auditTotals{orderLines: 50, payments: 5})
	for _, a := range items {
		if a.Status() != metrics.VerdictNA {
			t.Errorf("%s: %s over n=%d, want n/a", a.Name, a.Status(), a.N)
			continue
		}
		if !a.OK || a.Note == "" {
			t.Errorf("%s: n/a with OK %v, note %q", a.Name, a.OK, a.Note)
		}
	}
	if w := metrics.AuditWarnings(items); len(w) != 0 {
		t.Errorf("n/a items warned: %q", w)
	}
	a := byName(items)["mix delivery"]
	if want := fmt.Sprintf("too few transactions to judge: 11, %d needed", 230); a.Note != want {
		t.Errorf("mix delivery note %q, want %q", a.Note, want)
	}
}
