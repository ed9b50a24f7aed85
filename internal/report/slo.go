package report

import (
	"cmp"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/sledge-bench/sledge/internal/slo"
	"github.com/sledge-bench/sledge/internal/threshold"
)

// SLO is an SLO search (sledge slo): the highest open-loop rate at which
// its goals hold, found by steps of one run job each. Its id is its first
// job's.
type SLO struct {
	ID        int64
	Workload  string
	DB        string // the database's version, else its kind
	CreatedAt time.Time
	// Goals are the goals as given; Tx the transaction type whose p50 and
	// p99 the curve shows ("" for all).
	Goals []string
	Tx    string
	// MaxRate is the highest rate the search was allowed (0: none);
	// Warmup and StepDuration each step's unjudged ramp-up and measured
	// window.
	MaxRate              float64
	Warmup, StepDuration time.Duration
	Result               slo.Result
}

func (s SLO) title() string {
	t := fmt.Sprintf("SLO search %d", s.ID)
	if s.Workload != "" {
		t += fmt.Sprintf(" (%s, %s)", s.Workload, s.DB)
	}
	verb := " holds"
	if len(s.Goals) > 1 {
		verb = " hold"
	}
	return t + ": the highest rate at which " + strings.Join(s.Goals, " and ") + verb
}

func (s SLO) txLabel() string {
	if s.Tx == "" {
		return "all"
	}
	return s.Tx
}

func stepVerdict(st slo.Step) string {
	switch {
	case !st.Judged():
		return "not judged (" + st.Status + ")"
	case st.Pass:
		return "pass"
	case st.Saturated && threshold.Failed(st.Goals) == 0:
		return "FAIL (saturated)"
	case st.Saturated:
		return "FAIL, saturated"
	}
	return "FAIL"
}

func rateText(v float64) string {
	if math.IsNaN(v) {
		return absent
	}
	return strconv.FormatFloat(v, 'f', 1, 64)
}

func pct1(v float64) string {
	if math.IsNaN(v) {
		return absent
	}
	return strconv.FormatFloat(v, 'f', 1, 64) + "%"
}

// AnswerText words the search's answer with its uncertainty: the bracket
// [highest pass, lowest fail) and, for the answer step, each goal's margin;
// then why the search stopped early, answer or not.
func (s SLO) AnswerText() []string {
	r := s.Result
	var lines []string
	switch {
	case len(r.Steps) == 0:
		lines = append(lines, "No answer: no step ran.")
	case !r.Found && math.IsInf(r.High, 1):
		lines = append(lines, "No answer: no step ended to be judged.")
	case !r.Found:
		lines = append(lines, fmt.Sprintf("No answer: the goals failed at the start rate, %s transactions per second (a lower --start-rate).", slo.FormatRate(r.High)))
	case math.IsInf(r.High, 1) && r.Stopped != "":
		lines = append(lines, fmt.Sprintf("Answer: at least %s transactions per second: the goals held at every rate judged, but the search stopped before any failed.", slo.FormatRate(r.Low)))
	case math.IsInf(r.High, 1) && s.MaxRate > 0:
		lines = append(lines, fmt.Sprintf("Answer: at least %s transactions per second: the goals held at every rate tried, up to the highest allowed (a higher --max-rate).", slo.FormatRate(r.Low)))
	case math.IsInf(r.High, 1):
		lines = append(lines, fmt.Sprintf("Answer: at least %s transactions per second: the goals held at every rate tried, up to the highest a run offers.", slo.FormatRate(r.Low)))
	default:
		lines = append(lines, fmt.Sprintf("Answer: %s transactions per second: the goals held there and failed at %s, so the highest rate meeting them lies in [%s, %s) (within %.1f%%; precision %.0f%%).",
			slo.FormatRate(r.Low), slo.FormatRate(r.High), slo.FormatRate(r.Low), slo.FormatRate(r.High), 100*r.Width(), 100*r.Precision))
	}
	if r.Found {
		for _, v := range r.Steps[r.Answer].Goals {
			line := fmt.Sprintf("  %s: %s at the answer (job %d)", v.Text, v.Measured(), r.Steps[r.Answer].JobID)
			if abs, p, ok := slo.Margin(v); ok {
				line += fmt.Sprintf(", margin %s%s", threshold.FormatNumber(abs), v.Unit)
				if !math.IsNaN(p) {
					line += fmt.Sprintf(" (%.0f%% of the limit)", p)
				}
			}
			lines = append(lines, line)
		}
	}
	if r.Stopped != "" {
		lines = append(lines, "The search stopped early: "+r.Stopped+".")
	}
	return lines
}

// SLOText writes the search: its curve as a table, step by step, and the
// answer.
func SLOText(w io.Writer, s SLO) error {
	var sb strings.Builder
	fmt.Fprintln(&sb, s.title())
	tw := newTable(&sb, 0)
	tx := s.txLabel()
	fmt.Fprintf(tw, "  step\tphase\toffered/s\tachieved/s\t%s p50\t%s p99\terrors\tverdict\tjob\t\n", tx, tx)
	for i, st := range s.Result.Steps {
		mark := ""
		if s.Result.Found && i == s.Result.Answer {
			mark = "◀ answer"
		}
		fmt.Fprintf(tw, "  %d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%d\t%s\n", i+1, st.Phase, slo.FormatRate(st.Offered), rateText(st.Achieved),
			msText(st.P50), msText(st.P99), pct1(st.ErrorsPct), stepVerdict(st), st.JobID, mark)
	}
	tw.Flush()
	for _, l := range s.AnswerText() {
		fmt.Fprintln(&sb, l)
	}
	if s.StepDuration > 0 {
		fmt.Fprintf(&sb, "(each step: %s of warm-up at its rate, not judged, then %s measured; saturated: the achieved rate below the offered beyond chance, the queue grown over the window, or arrivals dropped)\n", s.Warmup, s.StepDuration)
	}
	lines := strings.Split(sb.String(), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	return writeLines(w, strings.Join(lines, "\n"))
}

// SLOJSON is an SLO search in JSON (sledge slo show ID --format json, GET
// /api/slo/{id}). Rates are transactions per second, latencies ms; what
// was not measured is null. high is null when no rate failed; answer null
// when even the start rate failed.
type SLOJSON struct {
	ID           string        `json:"id"`
	Workload     string        `json:"workload"`
	Database     string        `json:"database"`
	CreatedAt    string        `json:"created_at"`
	Goals        []string      `json:"goals"`
	Tx           string        `json:"tx"`
	MaxRate      Float         `json:"max_rate"`
	WarmupS      float64       `json:"warmup_s"`
	StepS        float64       `json:"step_s"`
	Precision    float64       `json:"precision"`
	Answer       Float         `json:"answer"`
	Low          Float         `json:"low"`
	High         Float         `json:"high"`
	AnswerJob    *string       `json:"answer_job"`
	AnswerText   []string      `json:"answer_text"`
	Stopped      string        `json:"stopped,omitempty"`
	Steps        []SLOStepJSON `json:"steps"`
	GoalMargins  []SLOGoalJSON `json:"goal_margins"`
	LatencyLimit Float         `json:"latency_limit_ms"`
}

// SLOStepJSON is one step of the curve.
type SLOStepJSON struct {
	Step      int     `json:"step"`
	Phase     string  `json:"phase"`
	Job       string  `json:"job"`
	Status    string  `json:"status"`
	Offered   float64 `json:"offered"`
	Achieved  Float   `json:"achieved"`
	P50MS     Float   `json:"p50_ms"`
	P99MS     Float   `json:"p99_ms"`
	ErrorsPct Float   `json:"errors_pct"`
	Saturated bool    `json:"saturated"`
	// Pass counts toward the answer only when Judged (the step's job
	// ended); Verdict is the table's word for the step.
	Pass    bool          `json:"pass"`
	Judged  bool          `json:"judged"`
	Verdict string        `json:"verdict"`
	Goals   []SLOGoalJSON `json:"goals"`
}

// SLOGoalJSON is one goal judged on a step.
type SLOGoalJSON struct {
	Goal      string `json:"goal"`
	Value     Float  `json:"value"`
	Unit      string `json:"unit"`
	Pass      bool   `json:"pass"`
	Note      string `json:"note,omitempty"`
	Margin    Float  `json:"margin,omitempty"`
	MarginPct Float  `json:"margin_pct,omitempty"`
}

func goalJSON(v threshold.Verdict) SLOGoalJSON {
	g := SLOGoalJSON{Goal: v.Text, Value: Float(math.NaN()), Unit: v.Unit, Pass: v.Pass, Note: v.Note, Margin: Float(math.NaN()), MarginPct: Float(math.NaN())}
	if v.HasValue {
		g.Value = Float(v.Value)
	}
	if abs, p, ok := slo.Margin(v); ok {
		g.Margin, g.MarginPct = Float(abs), Float(p)
	}
	return g
}

// latencyLimitMS is the first latency goal's limit in ms (NaN: none).
func (s SLO) latencyLimitMS() float64 {
	for _, g := range s.Goals {
		t, err := threshold.Parse(g)
		if err != nil {
			continue
		}
		switch t.Unit {
		case "ms":
			return t.Limit
		case "s":
			return t.Limit * 1e3
		case "us":
			return t.Limit / 1e3
		}
	}
	return math.NaN()
}

// ToSLO is the JSON shape of an SLO search.
func ToSLO(s SLO) SLOJSON {
	r := s.Result
	out := SLOJSON{ID: strconv.FormatInt(s.ID, 10), Workload: s.Workload, Database: s.DB, Goals: slices.Clone(s.Goals), Tx: s.Tx,
		MaxRate: Float(math.NaN()), WarmupS: s.Warmup.Seconds(), StepS: s.StepDuration.Seconds(), Precision: r.Precision,
		Answer: Float(math.NaN()), Low: Float(math.NaN()), High: Float(r.High), AnswerText: s.AnswerText(), Stopped: r.Stopped,
		Steps: []SLOStepJSON{}, GoalMargins: []SLOGoalJSON{}, LatencyLimit: Float(s.latencyLimitMS())}
	if out.Goals == nil {
		out.Goals = []string{}
	}
	if !s.CreatedAt.IsZero() {
		out.CreatedAt = s.CreatedAt.UTC().Format(time.RFC3339)
	}
	if s.MaxRate > 0 {
		out.MaxRate = Float(s.MaxRate)
	}
	if r.Found {
		out.Answer, out.Low = Float(r.Low), Float(r.Low)
		id := strconv.FormatInt(r.Steps[r.Answer].JobID, 10)
		out.AnswerJob = &id
		for _, v := range r.Steps[r.Answer].Goals {
			out.GoalMargins = append(out.GoalMargins, goalJSON(v))
		}
	}
	for i, st := range r.Steps {
		js := SLOStepJSON{Step: i + 1, Phase: st.Phase, Job: strconv.FormatInt(st.JobID, 10), Status: st.Status, Offered: st.Offered,
			Achieved: Float(st.Achieved), P50MS: Float(st.P50), P99MS: Float(st.P99), ErrorsPct: Float(st.ErrorsPct),
			Saturated: st.Saturated, Pass: st.Pass && st.Judged(), Judged: st.Judged(), Verdict: stepVerdict(st), Goals: []SLOGoalJSON{}}
		for _, v := range st.Goals {
			js.Goals = append(js.Goals, goalJSON(v))
		}
		out.Steps = append(out.Steps, js)
	}
	return out
}

// SLOShow writes a search as text or JSON.
func SLOShow(w io.Writer, s SLO, asJSON bool) error {
	if !asJSON {
		return SLOText(w, s)
	}
	return WriteJSON(w, ToSLO(s))
}

// sloChart draws the curve as an inline SVG: against the offered rate
// (log scale), the goal's transaction's p50 and p99 (left) or the achieved
// rate with the line achieved = offered (right); passing steps filled,
// failing ones hollow, the latency goal's limit dashed, the answer ringed.
func sloChart(id, title, yLabel string, s SLO, achieved bool) string {
	const W, H, padL, padR, padT, padB = 560, 320, 64, 20, 34, 46
	pw, ph := float64(W-padL-padR), float64(H-padT-padB)
	steps := slices.Clone(s.Result.Steps)
	answer := math.NaN()
	if s.Result.Found {
		answer = s.Result.Low
	}
	slices.SortStableFunc(steps, func(a, b slo.Step) int { return cmp.Compare(a.Offered, b.Offered) })
	minX, maxX, maxY := math.Inf(1), 0.0, 0.0
	for _, st := range steps {
		minX, maxX = math.Min(minX, st.Offered), math.Max(maxX, st.Offered)
		vals := []float64{st.P50, st.P99}
		if achieved {
			vals = []float64{st.Achieved, st.Offered}
		}
		for _, v := range vals {
			if !math.IsNaN(v) && !math.IsInf(v, 0) {
				maxY = math.Max(maxY, v)
			}
		}
	}
	limit := s.latencyLimitMS()
	if !achieved && !math.IsNaN(limit) {
		maxY = math.Max(maxY, limit)
	}
	x := func(v float64) float64 {
		if !(maxX > minX) || minX <= 0 {
			return padL + pw/2
		}
		return padL + pw*0.04 + pw*0.92*(math.Log(v)-math.Log(minX))/(math.Log(maxX)-math.Log(minX))
	}
	step := niceStep(maxY * 1.1 / 5)
	hi := math.Ceil(maxY*1.1/step) * step
	if hi <= 0 {
		hi = 1
	}
	y := func(v float64) float64 { return padT + ph - math.Min(v, hi)/hi*ph }
	var b strings.Builder
	fmt.Fprintf(&b, `<svg id="%s" class="chart" xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" role="img" aria-label="%s">`, id, W, H, W, H, esc(title))
	fmt.Fprintf(&b, `<text x="%d" y="18" class="title">%s</text>`, padL, esc(title))
	for t := 0.0; t <= hi+step/2; t += step {
		yy := y(t)
		fmt.Fprintf(&b, `<line x1="%d" x2="%d" y1="%.1f" y2="%.1f" class="grid"/><text x="%d" y="%.1f" text-anchor="end" class="tick">%s</text>`,
			padL, W-padR, yy, yy, padL-6, yy+4, compactNum(t))
	}
	fmt.Fprintf(&b, `<line x1="%d" x2="%d" y1="%.1f" y2="%.1f" class="axis"/>`, padL, W-padR, padT+ph, padT+ph)
	for i, st := range steps {
		if i > 0 && x(st.Offered)-x(steps[i-1].Offered) < 28 {
			continue // ticks that would overlap: the points say their rate on hover
		}
		fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" text-anchor="middle" class="tick">%s</text>`, x(st.Offered), padT+ph+16, compactNum(st.Offered))
	}
	fmt.Fprintf(&b, `<text x="%.1f" y="%d" text-anchor="middle" class="label">offered rate, transactions per second (log scale)</text>`, padL+pw/2, H-6)
	fmt.Fprintf(&b, `<text x="14" y="%.1f" text-anchor="middle" class="label" transform="rotate(-90 14 %.1f)">%s</text>`, padT+ph/2, padT+ph/2, esc(yLabel))
	type line struct {
		color, label string
		v            func(slo.Step) float64
	}
	lines := []line{{"#2f6fed", "p99", func(st slo.Step) float64 { return st.P99 }}, {"#7a8699", "p50", func(st slo.Step) float64 { return st.P50 }}}
	if achieved {
		lines = []line{{"#2f6fed", "achieved", func(st slo.Step) float64 { return st.Achieved }}}
		if len(steps) > 0 {
			fmt.Fprintf(&b, `<line x1="%.1f" x2="%.1f" y1="%.1f" y2="%.1f" stroke="#98a2b3" stroke-dasharray="4 3" class="ideal"/>`,
				x(minX), x(maxX), y(minX), y(maxX))
		}
	} else if !math.IsNaN(limit) {
		fmt.Fprintf(&b, `<g class="limit"><line x1="%d" x2="%d" y1="%.1f" y2="%.1f" stroke="#b42318" stroke-dasharray="6 4"/><text x="%d" y="%.1f" text-anchor="end" class="kneelabel" fill="#b42318">goal %s ms</text></g>`,
			padL, W-padR, y(limit), y(limit), W-padR, y(limit)-4, compactNum(limit))
	}
	for i, l := range lines {
		if !achieved { // the legend: which line is which
			lx, ly := float64(W-padR-90), 14+float64(i)*13
			fmt.Fprintf(&b, `<rect x="%.1f" y="%.1f" width="12" height="4" fill="%s"/><text x="%.1f" y="%.1f" class="legend">%s</text>`, lx, ly-4, l.color, lx+16, ly+1, l.label)
		}
		var pts []string
		for _, st := range steps {
			if v := l.v(st); !math.IsNaN(v) {
				pts = append(pts, fmt.Sprintf("%.1f,%.1f", x(st.Offered), y(v)))
			}
		}
		fmt.Fprintf(&b, `<g class="series" data-series="%s"><polyline fill="none" stroke="%s" stroke-width="2" points="%s"/>`, l.label, l.color, strings.Join(pts, " "))
		for _, st := range steps {
			v := l.v(st)
			if math.IsNaN(v) {
				continue
			}
			fill := l.color
			if !st.Pass || !st.Judged() {
				fill = "#fff"
			}
			fmt.Fprintf(&b, `<circle cx="%.1f" cy="%.1f" r="4" fill="%s" stroke="%s" stroke-width="1.5" data-pass="%t"><title>%s/s (job %d): %s %s, %s</title></circle>`,
				x(st.Offered), y(v), fill, l.color, st.Pass && st.Judged(), slo.FormatRate(st.Offered), st.JobID, l.label, compactNum(v), stepVerdict(st))
		}
		b.WriteString(`</g>`)
	}
	if !math.IsNaN(answer) {
		ax := x(answer)
		fmt.Fprintf(&b, `<g class="answer"><line x1="%.1f" x2="%.1f" y1="%d" y2="%.1f" stroke="#1a7f37" stroke-dasharray="4 3"/><text x="%.1f" y="%d" text-anchor="middle" class="kneelabel" fill="#1a7f37">answer %s/s</text></g>`,
			ax, ax, padT, padT+ph, ax, padT-4, slo.FormatRate(answer))
	}
	b.WriteString(`</svg>`)
	return b.String()
}

// SLOHTML writes a search as one self-contained HTML page (no script, no
// external file): the curve as SVG charts — latency and achieved rate
// against the offered rate, the goal and the answer marked — the table and
// the answer.
func SLOHTML(w io.Writer, s SLO) error {
	var b strings.Builder
	title := s.title()
	htmlHead(&b, "Sledge · "+title)
	sub := fmt.Sprintf("SLO search %d", s.ID)
	if !s.CreatedAt.IsZero() {
		sub = "started " + s.CreatedAt.UTC().Format("2006-01-02 15:04 UTC")
	}
	fmt.Fprintf(&b, "<h1>%s</h1>\n<p class=\"sub\">%s</p>\n", esc(title), esc(sub))
	tx := s.txLabel()
	fmt.Fprintf(&b, "<div class=\"charts\">\n%s\n%s\n</div>\n",
		sloChart("chart-latency", tx+" latency against the offered rate", "latency (ms)", s, false),
		sloChart("chart-achieved", "Achieved against offered rate", "achieved (per second)", s, true))
	for _, l := range s.AnswerText() {
		fmt.Fprintf(&b, "<p class=\"answer\">%s</p>\n", esc(l))
	}
	fmt.Fprintf(&b, "<table class=\"slo\"><thead><tr><th class=\"num\">step</th><th>phase</th><th class=\"num\">offered/s</th><th class=\"num\">achieved/s</th><th class=\"num\">%s p50</th><th class=\"num\">%s p99</th><th class=\"num\">errors</th><th>verdict</th><th class=\"num\">job</th></tr></thead><tbody>\n", esc(tx), esc(tx))
	for i, st := range s.Result.Steps {
		cls := ""
		if s.Result.Found && i == s.Result.Answer {
			cls = ` class="knee"`
		}
		fmt.Fprintf(&b, "<tr%s><td class=\"num\">%d</td><td>%s</td><td class=\"num\">%s</td><td class=\"num\">%s</td><td class=\"num\">%s</td><td class=\"num\">%s</td><td class=\"num\">%s</td><td>%s</td><td class=\"num\">%d</td></tr>\n",
			cls, i+1, esc(st.Phase), slo.FormatRate(st.Offered), rateText(st.Achieved), esc(msText(st.P50)), esc(msText(st.P99)), esc(pct1(st.ErrorsPct)), esc(stepVerdict(st)), st.JobID)
	}
	b.WriteString("</tbody></table>\n")
	if s.StepDuration > 0 {
		fmt.Fprintf(&b, "<p class=\"note\">Each step: %s of warm-up at its rate, not judged, then %s measured. Filled points passed, hollow ones failed; saturated: the achieved rate below the offered beyond chance, the queue grown over the window, or arrivals dropped.</p>\n", esc(s.Warmup.String()), esc(s.StepDuration.String()))
	}
	b.WriteString("</body>\n</html>\n")
	_, err := io.WriteString(w, b.String())
	return err
}
