package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/sledge-bench/sledge/internal/jobs"
	"github.com/sledge-bench/sledge/internal/metrics"
)

// jobOutput prints a job's lines to the console and keeps them (and the
// interval series) in the repository. Safe for concurrent use: the engine
// logs from VU goroutines.
type jobOutput struct {
	mu      sync.Mutex
	w       io.Writer
	repo    *jobs.Repo
	id      int64
	headTx  int // interval column shown as "p95" (New-Order)
	lastErr error
}

func (o *jobOutput) Logf(format string, args ...any) {
	o.line(fmt.Sprintf(format, args...))
}

// line prints and stores one line.
func (o *jobOutput) line(s string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	fmt.Fprintln(o.w, s)
	if o.repo != nil {
		if err := o.repo.AppendOutput(context.Background(), o.id, s); err != nil && o.lastErr == nil {
			o.lastErr = err
			fmt.Fprintf(os.Stderr, "sledge: warning: cannot store output in the jobs repository: %v\n", err)
		}
	}
}

func (o *jobOutput) Interval(iv metrics.Interval) {
	var p95 time.Duration
	name := "p95"
	if o.headTx >= 0 && o.headTx < len(iv.Tx) {
		p95 = iv.Tx[o.headTx].P95
		name = iv.Tx[o.headTx].Name + " p95"
	}
	o.line(fmt.Sprintf("[%6s] %-8s TPM %9s  NOPM %9s  %s %8s  errors %d",
		fmtElapsed(iv.Elapsed), iv.Phase, fmtInt(iv.TPM), fmtInt(iv.NOPM), name, fmtMS(p95), iv.Errors))
	if o.repo != nil {
		if err := o.repo.AddInterval(context.Background(), o.id, iv); err != nil {
			o.mu.Lock()
			if o.lastErr == nil {
				o.lastErr = err
				fmt.Fprintf(os.Stderr, "sledge: warning: cannot store interval in the jobs repository: %v\n", err)
			}
			o.mu.Unlock()
		}
	}
}

func fmtElapsed(d time.Duration) string {
	d = d.Round(time.Second)
	if d < time.Minute {
		return fmt.Sprintf("%ds", int(d.Seconds()))
	}
	return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
}

// fmtInt renders a rate with thousands separators.
func fmtInt(v float64) string {
	n := int64(v + 0.5)
	s := fmt.Sprint(n)
	if n < 0 {
		return s
	}
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}

func fmtMS(d time.Duration) string {
	ms := float64(d) / float64(time.Millisecond)
	switch {
	case ms < 10:
		return fmt.Sprintf("%.2f ms", ms)
	case ms < 1000:
		return fmt.Sprintf("%.1f ms", ms)
	}
	return fmt.Sprintf("%.0f ms", ms)
}

// isTerminal reports whether f is an interactive terminal (for progress bars).
func isTerminal(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// plural renders a count with its noun ("1 warehouse", "4 warehouses").
func plural(n int, noun string) string {
	if n != 1 {
		noun += "s"
	}
	return fmt.Sprintf("%d %s", n, noun)
}
