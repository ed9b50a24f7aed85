package report

import (
	"bytes"
	"encoding/xml"
	"math"
	"strings"
	"testing"
)

func testGate(failed bool) Gate {
	g := Gate{ID: 7, A: "pacing=off", B: "pacing=spec pacing-scale=0.01", Seed: 42, Order: "ABBAAB", Resamples: 10000,
		Trials: []GateTrial{{7, "A", "completed"}, {8, "B", "completed"}, {9, "B", "completed"},
			{10, "A", "completed"}, {11, "A", "completed"}, {12, "B", "completed"}}}
	row := GateRow{Label: "nopm", Bound: "nopm<-3%", A: []float64{1000, 1010, 990}, B: []float64{500, 505, 495},
		AMean: 1000, BMean: 500, Change: -50, Low: -51, High: -49, P: 0.1, Significant: true, Failed: true}
	if !failed {
		row.B, row.BMean, row.Change, row.Low, row.High, row.P = row.A, 1000, 0, -1.2, 1.1, 1
		row.Significant, row.Failed = false, false
	}
	lat := GateRow{Label: "p95(new_order)", Unit: "ms", AMean: 2.5, BMean: math.NaN(), Change: math.NaN(), Low: math.NaN(),
		High: math.NaN(), P: math.NaN(), Note: "B has no new_order transactions"}
	g.Rows = []GateRow{row, lat}
	return g
}

func TestGateText(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		failed bool
		want   []string
	}{
		{true, []string{"Gate 7: A pacing=off, B pacing=spec pacing-scale=0.01", "order ABBAAB (seed 42)", "7A 8B 9B 10A 11A 12B",
			"-50.0%", "-51.0% … -49.0%", "0.100", "FAIL: nopm changed by -50.0%", "significant and beyond nopm<-3%",
			"—: B has no new_order transactions", "Gate verdict: FAIL (1 of 2 bounds)"}},
		{false, []string{"+0.0%", "within the noise", "Gate verdict: pass"}},
	} {
		var b bytes.Buffer
		if err := GateText(&b, testGate(c.failed)); err != nil {
			t.Fatal(err)
		}
		for _, w := range c.want {
			if !strings.Contains(b.String(), w) {
				t.Errorf("failed=%v: the text lacks %q:\n%s", c.failed, w, b.String())
			}
		}
	}
}

func TestGateMarkdown(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	if err := GateMarkdown(&b, testGate(true)); err != nil {
		t.Fatal(err)
	}
	md := b.String()
	for _, w := range []string{"## ❌ Sledge gate 7: FAIL (1 of 2 bounds)", "- **A**: pacing=off", "`ABBAAB` (seed 42)",
		"| metric | A mean | B mean | change |", "| nopm | 1,000 | 500 | -50.0% |", "nopm&lt;-3%", "- **FAIL**:", "10000 resamples"} {
		if !strings.Contains(md, w) {
			t.Errorf("the Markdown lacks %q:\n%s", w, md)
		}
	}
	// Every table line has the header's number of cells.
	for _, line := range strings.Split(md, "\n") {
		if strings.HasPrefix(line, "|") && strings.Count(strings.ReplaceAll(line, `\|`, ""), "|") != 9 {
			t.Errorf("a table line with the wrong number of cells: %q", line)
		}
	}
	b.Reset()
	if err := GateMarkdown(&b, testGate(false)); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "## ✅ Sledge gate 7: pass") {
		t.Errorf("a passed gate's heading:\n%s", b.String())
	}
}

func TestGateJUnit(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		gate     Gate
		failures int
	}{
		{testGate(true), 1},
		{testGate(false), 0},
		{func() Gate { g := testGate(false); g.Stopped = "trial 3 failed <&>"; return g }(), 1},
	} {
		var b bytes.Buffer
		if err := GateJUnit(&b, c.gate); err != nil {
			t.Fatal(err)
		}
		var doc struct {
			XMLName  xml.Name `xml:"testsuites"`
			Tests    int      `xml:"tests,attr"`
			Failures int      `xml:"failures,attr"`
			Suites   []struct {
				Name  string `xml:"name,attr"`
				Cases []struct {
					Name    string `xml:"name,attr"`
					Failure *struct {
						Message string `xml:"message,attr"`
					} `xml:"failure"`
				} `xml:"testcase"`
			} `xml:"testsuite"`
		}
		if err := xml.Unmarshal(b.Bytes(), &doc); err != nil {
			t.Fatalf("not valid XML: %v\n%s", err, b.String())
		}
		if doc.Tests != 3 || doc.Failures != c.failures || len(doc.Suites) != 1 || len(doc.Suites[0].Cases) != 3 {
			t.Fatalf("tests %d failures %d (want 3, %d):\n%s", doc.Tests, doc.Failures, c.failures, b.String())
		}
		cases := doc.Suites[0].Cases
		if cases[0].Name != "trials" || cases[1].Name != "nopm<-3%" || cases[2].Name != "p95(new_order)" {
			t.Errorf("test case names %q %q %q", cases[0].Name, cases[1].Name, cases[2].Name)
		}
		failed := 0
		for _, tc := range cases {
			if tc.Failure != nil {
				failed++
				if tc.Failure.Message == "" {
					t.Errorf("test case %q fails without a message", tc.Name)
				}
			}
		}
		if failed != c.failures {
			t.Errorf("%d failed test cases, want %d", failed, c.failures)
		}
	}
}
