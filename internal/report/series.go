package report

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/sledge-bench/sledge/internal/metrics"
	"github.com/sledge-bench/sledge/internal/stats"
	"github.com/sledge-bench/sledge/internal/threshold"
)

// SeriesTrial is one trial of a series: its job and result.
type SeriesTrial struct {
	JobID int64
	Run   *metrics.RunResult
	// Thresholds are the trial's verdicts (--threshold): every trial of
	// a series is judged on its own window.
	Thresholds []threshold.Verdict
}

// Series writes a series of trials of one configuration: each trial's NOPM,
// TPM and New-Order p95, then their mean, standard deviation and the 95%
// confidence interval of the mean (Student's t, from three trials; never
// below zero), so that a number comes with its error bar.
func Series(w io.Writer, trials []SeriesTrial) error {
	var sb strings.Builder
	fmt.Fprintf(&sb, "Series of %d trials\n", len(trials))
	tw := newTable(&sb, 0)
	judged := slices.ContainsFunc(trials, func(t SeriesTrial) bool { return len(t.Thresholds) > 0 })
	verdict := func(t SeriesTrial) string {
		switch n := threshold.Failed(t.Thresholds); {
		case !judged:
			return ""
		case len(t.Thresholds) == 0:
			return "\t—"
		case n == 0:
			return "\tpass"
		default:
			return fmt.Sprintf("\tFAIL (%d of %d)", n, len(t.Thresholds))
		}
	}
	header := "  trial\tjob\tstatus\tNOPM\tTPM\tnew_order p95"
	if judged {
		header += "\tthresholds"
	}
	fmt.Fprintln(tw, header)
	var nopm, tpm, p95 []float64
	for i, t := range trials {
		r := t.Run
		if r == nil {
			fmt.Fprintf(tw, "  %d\t%d\t—\t—\t—\t—%s\n", i+1, t.JobID, verdict(t))
			continue
		}
		p := math.NaN()
		for _, tx := range r.Tx {
			if tx.Name == newOrderTx && tx.Count > 0 {
				p = float64(tx.P95.Microseconds()) / 1000
			}
		}
		fmt.Fprintf(tw, "  %d\t%d\t%s\t%s\t%s\t%s%s\n", i+1, t.JobID, r.Status, Int(r.NOPM), Int(r.TPM), msText(p), verdict(t))
		nopm, tpm = append(nopm, r.NOPM), append(tpm, r.TPM)
		if !math.IsNaN(p) {
			p95 = append(p95, p)
		}
	}
	tw.Flush()
	if len(nopm) >= 2 {
		tw = newTable(&sb, 0)
		fmt.Fprintln(tw, "  \tmean\tSD\t95% CI of the mean")
		row := func(name string, xs []float64, format func(float64) string) {
			if len(xs) < 2 {
				return
			}
			s := stats.SummarizeNonNegative(xs)
			ci := fmt.Sprintf("— (%d trials: too few, it takes %d)", s.N, stats.MinCITrials)
			if !math.IsNaN(s.CI95Low) {
				ci = format(s.CI95Low) + " – " + format(s.CI95High)
			}
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\n", name, format(s.Mean), format(s.SD), ci)
		}
		row("NOPM", nopm, Int)
		row("TPM", tpm, Int)
		row("new_order p95", p95, msText)
		tw.Flush()
	} else {
		fmt.Fprintln(&sb, "  (one trial measured: no error bar)")
	}
	return writeLines(w, sb.String())
}

func msText(ms float64) string {
	if math.IsNaN(ms) {
		return absent
	}
	return fmt.Sprintf("%.2f ms", ms)
}
