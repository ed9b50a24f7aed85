package report

import (
	"encoding/xml"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// Gate is a regression gate's record (sledge gate): two arms, A and B,
// run as interleaved trials in a recorded order, and each compared metric
// with its verdict.
type Gate struct {
	// ID is the gate's first job: every trial records it (setting "gate").
	ID int64
	// A and B say what each arm changes from the common spec
	// ("pacing=spec pacing-scale=0.01"), "" for nothing.
	A, B string
	// Seed drew the order; Order is the arms in the order they ran
	// ("ABBAAB").
	Seed  uint64
	Order string
	// Trials are the jobs in the order they ran.
	Trials []GateTrial
	// Rows are the compared metrics: one per --fail-if, or NOPM when none.
	Rows []GateRow
	// Resamples is the bootstrap's number of resamples.
	Resamples int
	// Stopped says why the gate ran fewer trials than planned ("" when it
	// ran them all): its rows then judge what ran, and it fails.
	Stopped string
	// Noisy are the trials whose window the client machine shared or
	// throttled ("job 12: noisy machine: …", the first of its warnings):
	// a gate gives no verdict from them unless AllowNoisy.
	Noisy      []string
	AllowNoisy bool
}

// GateTrial is one trial of a gate: its job, arm and end.
type GateTrial struct {
	JobID  int64
	Arm    string // "A" or "B"
	Status string
}

// GateRow is one metric compared between the arms.
type GateRow struct {
	// Label names the metric ("nopm", "p95(new_order)"), Unit its unit.
	Label, Unit string
	// Bound is the --fail-if bound as given, "" for a metric shown without
	// one.
	Bound string
	// A and B are the trials' values, in the order they ran.
	A, B []float64
	// AMean and BMean are the arms' means.
	AMean, BMean float64
	// Change is B's mean against A's in percent, with the bootstrap 95%
	// interval of that change (Low, High); P is the permutation test's
	// two-sided p-value. NaN when they cannot be computed.
	Change, Low, High, P float64
	// Significant says the interval excludes no change.
	Significant bool
	// Failed says the change is significant and beyond Bound.
	Failed bool
	// Note says why there is no verdict from values ("" when there is).
	Note string
}

// Verdict words a row's verdict: FAIL, pass, or "—" without a bound.
func (r GateRow) Verdict() string {
	switch {
	case r.Failed:
		return "FAIL"
	case r.Bound == "":
		return "—"
	}
	return "pass"
}

// Why says in words why the row passed or failed.
func (r GateRow) Why() string {
	switch {
	case r.Note != "":
		return r.Note
	case r.Failed:
		return fmt.Sprintf("%s changed by %s (95%% interval %s), significant and beyond %s", r.Label, pct(r.Change), r.interval(), r.Bound)
	case !r.Significant:
		return fmt.Sprintf("%s changed by %s (95%% interval %s): within the noise", r.Label, pct(r.Change), r.interval())
	case r.Bound == "":
		return fmt.Sprintf("%s changed by %s (95%% interval %s), significant", r.Label, pct(r.Change), r.interval())
	}
	return fmt.Sprintf("%s changed by %s (95%% interval %s), significant but not beyond %s", r.Label, pct(r.Change), r.interval(), r.Bound)
}

// Failed counts the rows that failed; a gate that stopped early fails
// as a whole (GateFailed).
func (g Gate) Failed() int {
	n := 0
	for _, r := range g.Rows {
		if r.Failed {
			n++
		}
	}
	return n
}

// Passed says the gate passed: it ran every trial and no row failed.
func (g Gate) Passed() bool { return g.Stopped == "" && g.Failed() == 0 && !g.refused() }

// refused says the gate gives no verdict: trials ran on a noisy machine.
func (g Gate) refused() bool { return len(g.Noisy) > 0 && !g.AllowNoisy }

func (g Gate) verdict() string {
	switch {
	case g.Stopped != "":
		return "FAIL (stopped: " + g.Stopped + ")"
	case g.refused():
		return fmt.Sprintf("FAIL (no verdict: %d of %d trials ran on a noisy machine; run the gate where nothing else runs, or give --allow-noisy)",
			len(g.Noisy), len(g.Trials))
	case g.Failed() > 0:
		return fmt.Sprintf("FAIL (%d of %d bounds)", g.Failed(), len(g.Rows))
	}
	return "pass"
}

func pct(v float64) string {
	if math.IsNaN(v) {
		return "—"
	}
	return fmt.Sprintf("%+.1f%%", v)
}

func (r GateRow) interval() string {
	if math.IsNaN(r.Low) {
		return "—"
	}
	return pct(r.Low) + " … " + pct(r.High)
}

func (r GateRow) mean(v float64) string {
	if math.IsNaN(v) {
		return "—"
	}
	if r.Unit != "" {
		return strconv.FormatFloat(v, 'f', 2, 64) + " " + r.Unit
	}
	return Int(v)
}

func pValue(p float64) string {
	if math.IsNaN(p) {
		return "—"
	}
	return strconv.FormatFloat(p, 'f', 3, 64)
}

func armText(s string) string {
	if s == "" {
		return "(the common settings)"
	}
	return s
}

// GateText writes a gate as the console shows it: the arms, the order,
// one row per metric and the verdict.
func GateText(w io.Writer, g Gate) error {
	var sb strings.Builder
	fmt.Fprintf(&sb, "Gate %d: A %s, B %s\n", g.ID, armText(g.A), armText(g.B))
	fmt.Fprintf(&sb, "  order %s (seed %d), jobs %s\n", g.Order, g.Seed, g.jobList())
	tw := newTable(&sb, 0)
	fmt.Fprintln(tw, "  metric\tA mean\tB mean\tchange\t95% interval\tp\tbound\tverdict")
	for _, r := range g.Rows {
		bound := r.Bound
		if bound == "" {
			bound = "—"
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", r.Label, r.mean(r.AMean), r.mean(r.BMean),
			pct(r.Change), r.interval(), pValue(r.P), bound, r.Verdict())
	}
	tw.Flush()
	for _, r := range g.Rows {
		fmt.Fprintf(&sb, "  %s: %s\n", r.Verdict(), r.Why())
	}
	for _, n := range g.Noisy {
		fmt.Fprintf(&sb, "  noisy trial: %s\n", n)
	}
	fmt.Fprintf(&sb, "Gate verdict: %s\n", g.verdict())
	_, err := io.WriteString(w, sb.String())
	return err
}

func (g Gate) jobList() string {
	ids := make([]string, len(g.Trials))
	for i, t := range g.Trials {
		ids[i] = fmt.Sprintf("%d%s", t.JobID, t.Arm)
	}
	return strings.Join(ids, " ")
}

// mdEscape keeps a cell's text from ending the cell or the table.
func mdEscape(s string) string {
	return strings.NewReplacer("|", `\|`, "\n", " ", "<", "&lt;", ">", "&gt;").Replace(s)
}

// GateMarkdown writes a gate as a Markdown summary, fit for a CI job's
// page (GitHub's $GITHUB_STEP_SUMMARY).
func GateMarkdown(w io.Writer, g Gate) error {
	var sb strings.Builder
	mark := "✅"
	if !g.Passed() {
		mark = "❌"
	}
	fmt.Fprintf(&sb, "## %s Sledge gate %d: %s\n\n", mark, g.ID, mdEscape(g.verdict()))
	fmt.Fprintf(&sb, "- **A**: %s\n- **B**: %s\n", mdEscape(armText(g.A)), mdEscape(armText(g.B)))
	fmt.Fprintf(&sb, "- **Order**: `%s` (seed %d), jobs %s\n\n", g.Order, g.Seed, g.jobList())
	sb.WriteString("| metric | A mean | B mean | change | 95% interval | p | bound | verdict |\n")
	sb.WriteString("|---|--:|--:|--:|---|--:|---|---|\n")
	for _, r := range g.Rows {
		fmt.Fprintf(&sb, "| %s | %s | %s | %s | %s | %s | %s | %s |\n", mdEscape(r.Label), r.mean(r.AMean), r.mean(r.BMean),
			pct(r.Change), mdEscape(r.interval()), pValue(r.P), mdEscape(r.Bound), r.Verdict())
	}
	sb.WriteString("\n")
	for _, r := range g.Rows {
		fmt.Fprintf(&sb, "- **%s**: %s\n", r.Verdict(), mdEscape(r.Why()))
	}
	fmt.Fprintf(&sb, "\nChange is B's mean against A's; the interval is a percentile bootstrap of the ratio of the means (%d resamples), p a two-sided permutation test. A bound fails when the change is beyond it and the interval excludes no change.\n", g.Resamples)
	_, err := io.WriteString(w, sb.String())
	return err
}

type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name       string          `xml:"name,attr"`
	Tests      int             `xml:"tests,attr"`
	Failures   int             `xml:"failures,attr"`
	Properties []junitProperty `xml:"properties>property"`
	Cases      []junitCase     `xml:"testcase"`
}

type junitProperty struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Failure   *junitFailure `xml:"failure,omitempty"`
	SystemOut string        `xml:"system-out,omitempty"`
}

type junitFailure struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",chardata"`
}

// GateJUnit writes a gate as a JUnit XML report: one test case per
// compared metric (named by its bound), failed when the bound failed, and
// one for the trials, failed when the gate stopped early.
func GateJUnit(w io.Writer, g Gate) error {
	suite := junitSuite{Name: fmt.Sprintf("sledge gate %d", g.ID), Properties: []junitProperty{
		{"a", g.A}, {"b", g.B}, {"order", g.Order}, {"seed", strconv.FormatUint(g.Seed, 10)}, {"jobs", g.jobList()},
	}}
	trials := junitCase{Name: "trials", Classname: "sledge.gate", SystemOut: fmt.Sprintf("%d trials in the order %s", len(g.Trials), g.Order)}
	if g.Stopped != "" {
		trials.Failure = &junitFailure{Message: "stopped: " + g.Stopped, Type: "stopped", Text: g.Stopped}
	}
	suite.Cases = append(suite.Cases, trials)
	for _, r := range g.Rows {
		name := r.Bound
		if name == "" {
			name = r.Label
		}
		c := junitCase{Name: name, Classname: "sledge.gate", SystemOut: r.Why()}
		if r.Failed {
			c.Failure = &junitFailure{Message: r.Why(), Type: "regression", Text: r.Why()}
		}
		suite.Cases = append(suite.Cases, c)
	}
	for _, c := range suite.Cases {
		suite.Tests++
		if c.Failure != nil {
			suite.Failures++
		}
	}
	doc := junitSuites{Name: "sledge gate", Tests: suite.Tests, Failures: suite.Failures, Suites: []junitSuite{suite}}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}
