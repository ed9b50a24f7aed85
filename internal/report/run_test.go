package report

import (
	"math"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/sledge-bench/sledge/internal/metrics"
	"github.com/sledge-bench/sledge/internal/workload"
)

// spaces matches the runs of blanks that tabwriter pads columns with.
var spaces = regexp.MustCompile(` {2,}`)

// squeeze collapses column padding to one space, so that tests state lines
// without depending on the widths of the other lines of a table.
func squeeze(s string) string { return spaces.ReplaceAllString(s, " ") }

// checkText fails unless squeezed out contains every want and no notWant.
func checkText(t *testing.T, out string, want, notWant []string) {
	t.Helper()
	sq := squeeze(out)
	for _, w := range want {
		if !strings.Contains(sq, w) {
			t.Errorf("output lacks %q:\n%s", w, out)
		}
	}
	for _, w := range notWant {
		if strings.Contains(sq, w) {
			t.Errorf("output has %q:\n%s", w, out)
		}
	}
}

// runResult is a measured, unpaced run with a database cross-check that
// agrees and no errors; cases change what they test.
func runResult() *metrics.RunResult {
	r := &metrics.RunResult{Status: metrics.StatusCompleted, VUs: 8, Warehouses: 10, Mode: "procs", Isolation: "default",
		Rampup: 10 * time.Second, Duration: time.Minute, Measured: 60 * time.Second, NOPM: 9000, TPM: 20000,
		NewOrders: 9000, Commits: 20000, RolledBack: 90, HasDBCheck: true, DBNewOrders: 9001, NOPMDBCheck: 9001, DBCheckAgree: true,
		DBCheckAllowance: 4, ClientCPU: 2 * time.Second, ClientCPUPerTxUS: 100}
	for _, n := range []string{"new_order", "payment"} {
		r.Tx = append(r.Tx, metrics.TxSummary{Name: n, Count: 1000, Mean: time.Millisecond, P50: time.Millisecond,
			P95: 2 * time.Millisecond, P99: 3 * time.Millisecond, Max: 9 * time.Millisecond, Errors: map[string]int64{}})
	}
	return r
}

func TestRunResult(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name     string
		edit     func(*metrics.RunResult)
		embedded bool
		want     []string
		notWant  []string
	}{
		{
			name: "unpaced",
			want: []string{
				"\nTPROC-C result (job 7): completed\n",
				"database PostgreSQL 17 at postgres://db/tpcc\n",
				"setup 10 warehouses, 8 VUs, mode procs, isolation default, unpaced (no keying/thinking time)\n",
				"window 60.0 s measured (ramp-up 10s not counted)\n",
				"NOPM 9,000 (database: 9,001 from Δ sum(d_next_o_id), 9001 vs 9000 client-counted, ±4 allowed: agrees)\n",
				"TPM 20,000 (server counter not available)\n",
				"counted TPM: commits the client saw (no rollbacks or failures); NOPM: committed New-Orders\n",
				"client CPU 100.0 µs per transaction (2.00 s over the window)\n",
				" new_order 1000 0 0 0 1.00 1.00 2.00 3.00 9.00\n",
			},
			notWant: []string{"efficiency", "errors by class", "retries (", "audit:", "warning:", "embedded", "every session"},
		},
		{
			name:    "no warehouses",
			edit:    func(r *metrics.RunResult) { r.Warehouses, r.Mode = 0, "prepared" },
			want:    []string{"setup 8 VUs, mode prepared, isolation default, unpaced (no keying/thinking time)\n"},
			notWant: []string{"0 warehouses"},
		},
		{
			name: "paced at the specification's times",
			edit: func(r *metrics.RunResult) { r.Pacing, r.PacedCeiling, r.NOPM = 1, 128.6, 64.3 },
			want: []string{
				"paced (the specification's keying and think times)\n",
				"efficiency 50.0% (NOPM / 128.60, the paced ceiling of 12.86 per warehouse)\n",
			},
			notWant: []string{"÷ the scale"},
		},
		{
			// The ceiling is the workload's: not recomputed from warehouses.
			name: "paced with scaled times",
			edit: func(r *metrics.RunResult) { r.Pacing, r.PacedCeiling, r.NOPM = 0.1, 2000, 1500 },
			want: []string{
				"scaled ×0.1 (not the specification's)",
				"efficiency 75.0% (NOPM / 2,000, the paced ceiling of 12.86 per warehouse ÷ the scale)\n",
			},
		},
		{
			name: "iteration run",
			edit: func(r *metrics.RunResult) {
				r.Iterations, r.Rampup, r.Duration, r.Measured = 1000, 0, 0, 42300*time.Millisecond
			},
			want: []string{
				"window 42.3 s elapsed: iteration run, 1000 transactions per VU (no ramp-up; from the start to the last VU's end)\n",
			},
			notWant: []string{"measured (ramp-up"},
		},
		{
			name:    "paced without a ceiling",
			edit:    func(r *metrics.RunResult) { r.Pacing = 1 },
			notWant: []string{"efficiency"},
		},
		{
			name:    "a ceiling but unpaced",
			edit:    func(r *metrics.RunResult) { r.PacedCeiling = 128.6 },
			notWant: []string{"efficiency"},
		},
		{
			name:    "nothing measured",
			edit:    func(r *metrics.RunResult) { r.Measured = 0 },
			want:    []string{"window nothing measured (stopped during ramp-up)\n"},
			notWant: []string{"NOPM", "TPM", "transaction"},
		},
		{
			name: "cross-check disagrees, server counter",
			edit: func(r *metrics.RunResult) { r.DBCheckAgree, r.HasServerTPM, r.ServerTPM = false, true, 21000 },
			want: []string{"allowed: DISAGREES)", "TPM 20,000 (server-wide commits+rollbacks: 21,000/min)",
				"counted TPM: commits the client saw (no rollbacks or failures); server-wide: commits+rollbacks of every session; NOPM: committed New-Orders\n"},
		},
		{
			name:    "no cross-check",
			edit:    func(r *metrics.RunResult) { r.HasDBCheck, r.DBNewOrders, r.NOPMDBCheck = false, 0, 0 },
			want:    []string{"NOPM 9,000 (not available)\n"},
			notWant: []string{"agrees"},
		},
		{
			name: "errors and retries",
			edit: func(r *metrics.RunResult) {
				r.Errors = 4
				r.Tx[0].Errors = map[string]int64{"serialization": 3, "deadlock": 1}
				r.Tx[1].Retried, r.Tx[1].FailedAfterRetries, r.Tx[1].Retries = 5, 1, 7
				r.Tx[1].RetriesByClass = map[string]int64{"deadlock": 4, "serialization": 3}
			},
			want: []string{
				"\n errors by class:\n",
				"new_order deadlock 1\n", "new_order serialization 3\n",
				"payment 5 retried, 1 failed after retries; deadlock 4 serialization 3\n",
			},
		},
		{
			name: "audit and warnings",
			edit: func(r *metrics.RunResult) {
				r.Audit = []metrics.AuditItem{{Name: "new_order %", Value: 45, Unit: "%", Target: "≈ 45", OK: true},
					{Name: "remote %", Value: 0.5, Unit: "%", Target: ">= 1", OK: false}}
				r.Warnings = []string{"short run"}
			},
			want: []string{"audit:\n", "new_order % 45.00% (expected ≈ 45) ok\n", "remote % 0.50% (expected >= 1) OFF\n",
				"\n\n warning: short run\n"},
		},
		{
			name:     "embedded engine",
			embedded: true,
			want:     []string{"(2.00 s over the window; includes the embedded database engine)\n"},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := runResult()
			if c.edit != nil {
				c.edit(r)
			}
			var b strings.Builder
			if err := RunResult(&b, "TPROC-C", 7, "postgres://db/tpcc", "PostgreSQL 17", r, c.embedded); err != nil {
				t.Fatal(err)
			}
			out := b.String()
			// Written as whole lines: callers store the report line by line.
			if !strings.HasSuffix(out, "\n") || strings.HasSuffix(out, "\n\n") {
				t.Errorf("output does not end with exactly one newline: %q", out)
			}
			checkText(t, out, c.want, c.notWant)
		})
	}
}

func TestRunResultNaNRates(t *testing.T) {
	t.Parallel()
	// A rate over an empty window renders as today: no panic, a number.
	r := runResult()
	r.NOPM = math.NaN()
	var b strings.Builder
	if err := RunResult(&b, "TPROC-C", 1, "t", "v", r, false); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "NOPM") {
		t.Errorf("no NOPM line:\n%s", b.String())
	}
}

func TestPacingLabel(t *testing.T) {
	t.Parallel()
	cases := []struct {
		p    float64
		want string
	}{
		{0, "unpaced (no keying/thinking time)"},
		{1, "paced (the specification's keying and think times)"},
		{0.5, "paced with keying and think times scaled ×0.5 (not the specification's)"},
	}
	for _, c := range cases {
		if got := PacingLabel(c.p); got != c.want {
			t.Errorf("PacingLabel(%g) = %q, want %q", c.p, got, c.want)
		}
	}
}

func TestCheck(t *testing.T) {
	t.Parallel()
	tables := []workload.TableRows{{Name: "warehouse", Rows: 2}, {Name: "order_line", Rows: 3_000_000}}
	cases := []struct {
		name       string
		conditions []workload.Condition
		wantFailed int
		want       []string
	}{
		{
			name: "all hold",
			conditions: []workload.Condition{{Name: "3.3.2.1", Description: "W_YTD = sum(D_YTD)", Passed: true},
				{Name: "3.3.2.11", Description: "order counts", Skipped: true, Note: "only before the first run"}},
			want: []string{"3.3.2.1 PASS W_YTD = sum(D_YTD)\n", "3.3.2.11 skip order counts — only before the first run\n",
				"\nall conditions hold\n"},
		},
		{
			name: "failures",
			conditions: []workload.Condition{{Name: "3.3.2.1", Description: "a", Violations: 3},
				{Name: "3.3.2.2", Description: "b", Violations: 1}, {Name: "3.3.2.3", Description: "c", Passed: true}},
			wantFailed: 2,
			want:       []string{"3.3.2.1 FAIL (3 violations) a\n", "\n2 conditions failed\n"},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var b strings.Builder
			failed, err := Check(&b, "TPROC-C", "postgres://db/tpcc", workload.CheckReport{Tables: tables, Conditions: c.conditions})
			if err != nil {
				t.Fatal(err)
			}
			if failed != c.wantFailed {
				t.Errorf("failed = %d, want %d", failed, c.wantFailed)
			}
			checkText(t, b.String(), append([]string{"TPROC-C check of postgres://db/tpcc\n\n table rows\n",
				" warehouse 2\n", " order_line 3000000\n"}, c.want...), nil)
		})
	}
}
