package report

import (
	"fmt"
	"io"

	"github.com/sledge-bench/sledge/internal/threshold"
)

// Thresholds writes a run's thresholds with their verdicts: each one's
// measured value and pass or FAIL, with why a value is missing.
func Thresholds(w io.Writer, vs []threshold.Verdict) error {
	if len(vs) == 0 {
		return nil
	}
	head := "all passed"
	if n := threshold.Failed(vs); n > 0 {
		head = fmt.Sprintf("%d of %d failed", n, len(vs))
	}
	fmt.Fprintf(w, "\n  thresholds (%s):\n", head)
	tw := newTable(w, 0)
	for _, v := range vs {
		note := ""
		if v.Note != "" {
			note = " (" + v.Note + ")"
		}
		fmt.Fprintf(tw, "    %s\t%s\t%s%s\n", v.Text, v.Measured(), v.Status(), note)
	}
	return tw.Flush()
}

// ThresholdJSON is one threshold of a run with its verdict.
type ThresholdJSON struct {
	Threshold string `json:"threshold"` // as given: "p99(new_order)<50ms"
	Metric    string `json:"metric"`
	Name      string `json:"name"` // transaction type or error class; "" for all
	Op        string `json:"op"`
	Limit     Float  `json:"limit"` // in unit
	Unit      string `json:"unit"`  // ms, s, us, % or ""
	// Value is what the run measured, in unit; null when it could not be
	// measured (note says why; the threshold then fails).
	Value  *Float `json:"value"`
	Passed bool   `json:"passed"`
	Note   string `json:"note"`
}

// ToThresholds is the JSON shape of a run's verdicts (nil for none).
func ToThresholds(vs []threshold.Verdict) []ThresholdJSON {
	var out []ThresholdJSON
	for _, v := range vs {
		t := ThresholdJSON{Threshold: v.Text, Metric: v.Metric, Name: v.Name, Op: v.Op, Limit: Float(v.Limit),
			Unit: v.Unit, Passed: v.Pass, Note: v.Note}
		if v.HasValue {
			f := Float(v.Value)
			t.Value = &f
		}
		out = append(out, t)
	}
	return out
}
