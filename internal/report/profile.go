package report

import (
	"fmt"
	"io"
	"maps"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/sledge-bench/sledge/internal/metrics"
	"github.com/sledge-bench/sledge/internal/stats"
	"github.com/sledge-bench/sledge/internal/workload"
)

// Profile is a performance profile (sledge profile): one configuration run
// at increasing VU counts, a step per count, each step one job or a series
// of trials. Its id is its first job's.
type Profile struct {
	ID        int64
	Workload  string
	DB        string // the database's version, else its kind
	CreatedAt time.Time
	Steps     []ProfileStep
	// Settings are its first job's (sledge jobs show ID config): those of
	// every step but the VUs.
	Settings map[string]string
}

// ProfileTrial is one job of a profile's step: its id and status, and its
// figures when it measured a window (NaN where absent).
type ProfileTrial struct {
	JobID  int64
	Status string
	// Measured says the job has a run result with a measured window; the
	// figures below are NaN otherwise.
	Measured  bool
	NOPM, TPM float64
	P95MS     float64 // New-Order p95 in ms; NaN when none committed
}

// TrialOf is the profile trial of job id with run result r (nil: none).
func TrialOf(id int64, status string, r *metrics.RunResult) ProfileTrial {
	t := ProfileTrial{JobID: id, Status: status, NOPM: math.NaN(), TPM: math.NaN(), P95MS: math.NaN()}
	if r == nil || r.Measured <= 0 {
		return t
	}
	t.Measured, t.NOPM, t.TPM = true, r.NOPM, r.TPM
	for _, tx := range r.Tx {
		if tx.Name == newOrderTx && tx.Count > 0 {
			t.P95MS = MS(tx.P95)
		}
	}
	return t
}

// ProfileStep is one VU count of a profile and its trials, oldest first.
type ProfileStep struct {
	VUs    int
	Trials []ProfileTrial
}

func (s ProfileStep) values(f func(ProfileTrial) float64) []float64 {
	var out []float64
	for _, t := range s.Trials {
		if v := f(t); t.Measured && !math.IsNaN(v) {
			out = append(out, v)
		}
	}
	return out
}

// NOPMs are the NOPM of the step's trials that measured a window.
func (s ProfileStep) NOPMs() []float64 {
	return s.values(func(t ProfileTrial) float64 { return t.NOPM })
}

// NOPM is the step's NOPM: the trials' mean with its SD and 95% CI (NaN
// bounds with fewer than stats.MinCITrials trials; a NaN mean with none).
func (s ProfileStep) NOPM() stats.Summary { return stats.SummarizeNonNegative(s.NOPMs()) }

// TPM is the trials' mean TPM (NaN when none measured).
func (s ProfileStep) TPM() float64 {
	return stats.Summarize(s.values(func(t ProfileTrial) float64 { return t.TPM })).Mean
}

// P95MS is the trials' mean New-Order p95 in ms (NaN when none has one).
func (s ProfileStep) P95MS() float64 {
	return stats.Summarize(s.values(func(t ProfileTrial) float64 { return t.P95MS })).Mean
}

// JobIDs lists the step's jobs.
func (s ProfileStep) JobIDs() []int64 {
	out := make([]int64, len(s.Trials))
	for i, t := range s.Trials {
		out[i] = t.JobID
	}
	return out
}

// KneeRule is the knee's definition, as the reports and the README word it.
const KneeRule = "the knee is the last VU count before the first step whose NOPM gain over the previous step is less than half the linear gain, previous NOPM × (VU ratio − 1)"

// kneeShare is the share of the linear gain a step must reach to count as
// still scaling.
const kneeShare = 0.5

// Scales says whether going from prev to cur NOPM at VU counts pv to cv
// (pv < cv) gained at least half of the linear gain: cur − prev ≥
// ½·prev·(cv/pv − 1). A step from 0 NOPM scales when it gains anything.
func Scales(pv, cv int, prev, cur float64) bool {
	ideal := prev * (float64(cv)/float64(pv) - 1)
	if ideal <= 0 {
		return cur > prev
	}
	return cur-prev >= kneeShare*ideal
}

// Knee finds the knee of NOPM against VUs (vus ascending): the index of
// the last step of the unbroken run, from the first step, of steps that
// scale (Scales), when a later step fails to scale. found is false when
// there is no knee to tell: fewer than two steps, NOPM missing where it
// would decide, or still scaling at the last step (the knee is beyond the
// VU counts tried); index is then -1.
//
// Half the linear gain is the line between "adding VUs still buys
// throughput" and "VUs mostly queue": a flat curve has its knee at the
// first step, a linear one has none, a saturating one at the last step
// before the gains fall under half.
func Knee(vus []int, nopm []float64) (index int, found bool) {
	if len(vus) != len(nopm) || len(vus) < 2 {
		return -1, false
	}
	for i := 1; i < len(vus); i++ {
		if math.IsNaN(nopm[i-1]) || math.IsNaN(nopm[i]) || vus[i-1] <= 0 {
			return -1, false
		}
		if !Scales(vus[i-1], vus[i], nopm[i-1], nopm[i]) {
			return i - 1, true
		}
	}
	return -1, false
}

// Knee is the profile's knee (see Knee) on its steps' mean NOPM.
func (p Profile) Knee() (int, bool) {
	vus, nopm := p.series()
	return Knee(vus, nopm)
}

func (p Profile) series() ([]int, []float64) {
	vus := make([]int, len(p.Steps))
	nopm := make([]float64, len(p.Steps))
	for i, s := range p.Steps {
		vus[i], nopm[i] = s.VUs, s.NOPM().Mean
	}
	return vus, nopm
}

// stepGain is step i's NOPM change against step i−1 in percent, and the
// share of the linear gain it reached in percent (NaN for the first step
// or where NOPM is missing).
func (p Profile) stepGain(i int) (gainPct, linearPct float64) {
	if i == 0 {
		return math.NaN(), math.NaN()
	}
	prev, cur := p.Steps[i-1].NOPM().Mean, p.Steps[i].NOPM().Mean
	if math.IsNaN(prev) || math.IsNaN(cur) || prev <= 0 {
		return math.NaN(), math.NaN()
	}
	ideal := prev * (float64(p.Steps[i].VUs)/float64(p.Steps[i-1].VUs) - 1)
	gainPct = 100 * (cur - prev) / prev
	if ideal <= 0 {
		return gainPct, math.NaN()
	}
	return gainPct, 100 * (cur - prev) / ideal
}

// kneeText words the knee in one line.
func (p Profile) kneeText() string {
	k, ok := p.Knee()
	switch {
	case ok:
		return fmt.Sprintf("knee: %s (%s NOPM); the next step gained less than half the linear gain", vusText(p.Steps[k].VUs), Int(p.Steps[k].NOPM().Mean))
	case len(p.Steps) < 2:
		return "knee: not told (one step)"
	}
	for _, s := range p.Steps {
		if math.IsNaN(s.NOPM().Mean) {
			return "knee: not told (a step measured no NOPM)"
		}
	}
	return fmt.Sprintf("knee: not reached; NOPM still scaled at the last step (%s): try more VUs", vusText(p.Steps[len(p.Steps)-1].VUs))
}

func profileTitle(p Profile) string {
	s := fmt.Sprintf("Profile %d", p.ID)
	if p.Workload != "" {
		s += ": " + workload.Title(p.Workload)
	}
	if p.DB != "" {
		s += " on " + p.DB
	}
	return s
}

func idsText(ids []int64) string {
	parts := make([]string, len(ids))
	for i, id := range ids {
		parts[i] = strconv.FormatInt(id, 10)
	}
	return strings.Join(parts, ",")
}

// nopmCell is a step's NOPM: the mean, with ± the half-width of its 95%
// CI when there are stats.MinCITrials trials or more.
func nopmCell(s stats.Summary) string {
	if math.IsNaN(s.Mean) {
		return absent
	}
	if math.IsNaN(s.CI95High) {
		return Int(s.Mean)
	}
	// The lower bound raised to zero: a ± would reach below it.
	if half := s.CI95High - s.Mean; s.Mean-half < s.CI95Low-1e-9 {
		return Int(s.Mean) + " (" + Int(s.CI95Low) + "–" + Int(s.CI95High) + ")"
	}
	return Int(s.Mean) + " ± " + Int(s.CI95High-s.Mean)
}

func pctText(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return absent
	}
	return fmt.Sprintf("%+.1f%%", v)
}

func shareText(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return absent
	}
	return fmt.Sprintf("%.0f%%", v)
}

func perVU(s ProfileStep) float64 {
	m := s.NOPM().Mean
	if math.IsNaN(m) || s.VUs <= 0 {
		return math.NaN()
	}
	return m / float64(s.VUs)
}

// vusText is "1 VU", "8 VUs".
func vusText(n int) string {
	if n == 1 {
		return "1 VU"
	}
	return strconv.Itoa(n) + " VUs"
}

// perVUText is NOPM per VU: whole numbers from 100, one decimal below.
func perVUText(v float64) string {
	if math.Abs(v) >= 100 {
		return Int(v)
	}
	return fmt.Sprintf("%.1f", v)
}

func floatText(v float64, f func(float64) string) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return absent
	}
	return f(v)
}

// ProfileText writes a profile as `sledge profile` prints it: one row per
// step (VUs, jobs, NOPM ± the half-width of its 95% CI when trials ≥ 2,
// TPM, New-Order p95, NOPM per VU, the NOPM gain over the previous step and
// the share of the linear gain it reached), the knee marked.
func ProfileText(w io.Writer, p Profile) error {
	var sb strings.Builder
	fmt.Fprintln(&sb, profileTitle(p))
	k, found := p.Knee()
	tw := newTable(&sb, 0)
	fmt.Fprintln(tw, "  VUs\tjobs\tNOPM\tTPM\tnew_order p95\tNOPM/VU\tgain\tof linear\t")
	for i, s := range p.Steps {
		gain, lin := p.stepGain(i)
		mark := ""
		if found && i == k {
			mark = "◀ knee"
		}
		fmt.Fprintf(tw, "  %d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", s.VUs, idsText(s.JobIDs()), nopmCell(s.NOPM()),
			floatText(s.TPM(), Int), msText(s.P95MS()), floatText(perVU(s), perVUText),
			pctText(gain), shareText(lin), mark)
	}
	tw.Flush()
	fmt.Fprintln(&sb, p.kneeText())
	fmt.Fprintln(&sb, "(NOPM ± half the 95% confidence interval of the mean of a step's trials, from three trials: fewer show the mean alone; "+KneeRule+")")
	lines := strings.Split(sb.String(), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	return writeLines(w, strings.Join(lines, "\n"))
}

// ProfileJSON is a profile in JSON (sledge profile show ID --format json,
// GET /api/profiles/{id}).
type ProfileJSON struct {
	ID        string            `json:"id"`
	Workload  string            `json:"workload"`
	Database  string            `json:"database"`
	CreatedAt string            `json:"created_at"`
	Steps     []ProfileStepJSON `json:"steps"`
	// KneeVUs is the knee's VU count, null when there is none to tell;
	// Knee words it and KneeRule defines it.
	KneeVUs  *int   `json:"knee_vus"`
	Knee     string `json:"knee"`
	KneeRule string `json:"knee_rule"`
}

// ProfileStepJSON is one step; figures a step does not have are null.
type ProfileStepJSON struct {
	VUs    int      `json:"vus"`
	Jobs   []string `json:"jobs"`
	Trials int      `json:"trials"` // trials that measured a window
	NOPM   Float    `json:"nopm"`   // mean
	// NOPMSD needs two trials or more, NOPMCI95Low and NOPMCI95High three.
	NOPMSD       Float `json:"nopm_sd"`
	NOPMCI95Low  Float `json:"nopm_ci95_low"`
	NOPMCI95High Float `json:"nopm_ci95_high"`
	TPM          Float `json:"tpm"`
	P95MS        Float `json:"p95_ms"` // New-Order p95, mean of the trials
	NOPMPerVU    Float `json:"nopm_per_vu"`
	// GainPct is the NOPM change against the previous step; LinearPct the
	// share of the linear gain it reached (null for the first step).
	GainPct   Float `json:"gain_pct"`
	LinearPct Float `json:"linear_pct"`
	Knee      bool  `json:"knee"`
}

// ToProfile is the JSON shape of a profile.
func ToProfile(p Profile) ProfileJSON {
	out := ProfileJSON{ID: strconv.FormatInt(p.ID, 10), Workload: p.Workload, Database: p.DB,
		Steps: []ProfileStepJSON{}, Knee: p.kneeText(), KneeRule: KneeRule}
	if !p.CreatedAt.IsZero() {
		out.CreatedAt = p.CreatedAt.UTC().Format(time.RFC3339)
	}
	k, found := p.Knee()
	for i, s := range p.Steps {
		n := s.NOPM()
		gain, lin := p.stepGain(i)
		sj := ProfileStepJSON{VUs: s.VUs, Jobs: []string{}, Trials: n.N, NOPM: Float(n.Mean), NOPMSD: Float(n.SD),
			NOPMCI95Low: Float(n.CI95Low), NOPMCI95High: Float(n.CI95High), TPM: Float(s.TPM()), P95MS: Float(s.P95MS()),
			NOPMPerVU: Float(perVU(s)), GainPct: Float(gain), LinearPct: Float(lin), Knee: found && i == k}
		for _, id := range s.JobIDs() {
			sj.Jobs = append(sj.Jobs, strconv.FormatInt(id, 10))
		}
		out.Steps = append(out.Steps, sj)
	}
	if found {
		v := p.Steps[k].VUs
		out.KneeVUs = &v
	}
	return out
}

// ProfileCompareRow is one VU count both profiles ran.
type ProfileCompareRow struct {
	VUs     int
	A, B    stats.Summary // NOPM of each profile's step
	Verdict *Verdict      // nil when not judged (fewer than two trials on a side)
}

// Ratio is B's mean NOPM over A's (NaN when either is missing or A's is 0).
func (r ProfileCompareRow) Ratio() float64 {
	if math.IsNaN(r.A.Mean) || math.IsNaN(r.B.Mean) || r.A.Mean == 0 {
		return math.NaN()
	}
	return r.B.Mean / r.A.Mean
}

// VerdictText words the step's verdict as jobs diff does; a step with
// fewer than two trials on a side is not judged, and says so.
func (r ProfileCompareRow) VerdictText() string {
	if r.Verdict != nil {
		return r.Verdict.Text()
	}
	change := absent
	if ratio := r.Ratio(); !math.IsNaN(ratio) {
		change = fmt.Sprintf("%+.1f%%", 100*(ratio-1))
	}
	return fmt.Sprintf("NOPM %s: not judged (%d and %d trials; a verdict needs two or more on each side: sledge profile --repeat)", change, r.A.N, r.B.N)
}

// CompareProfiles pairs the steps of a and b with the same VU count, in
// a's order, each with its verdict: Welch's t-test of the trials' NOPM
// when both have two trials or more (as jobs diff judges two series).
func CompareProfiles(a, b Profile) []ProfileCompareRow {
	var out []ProfileCompareRow
	for _, sa := range a.Steps {
		for _, sb := range b.Steps {
			if sa.VUs != sb.VUs {
				continue
			}
			xa, xb := sa.NOPMs(), sb.NOPMs()
			r := ProfileCompareRow{VUs: sa.VUs, A: stats.SummarizeNonNegative(xa), B: stats.SummarizeNonNegative(xb)}
			if len(xa) >= 2 && len(xb) >= 2 && r.A.Mean > 0 {
				d := stats.Welch(xa, xb)
				r.Verdict = &Verdict{Significant: d.Significant, ChangePct: 100 * d.Diff / r.A.Mean,
					IntervalsA: len(xa), IntervalsB: len(xb), Trials: true}
			}
			out = append(out, r)
			break
		}
	}
	return out
}

// ProfileCompareText writes `sledge compare A B` of two profiles: per VU
// count both ran, the NOPM of each, B's ratio to A and the verdict; then
// each profile's knee.
func ProfileCompareText(w io.Writer, a, b Profile) error {
	var sb strings.Builder
	fmt.Fprintf(&sb, "Profile %d (A) vs profile %d (B); ratio is B over A\n", a.ID, b.ID)
	fmt.Fprintf(&sb, "  A: %s\n  B: %s\n", profileTitle(a), profileTitle(b))
	if a.Workload != b.Workload {
		fmt.Fprintf(&sb, "note: different workloads (%s, %s): their figures do not compare\n", workload.Title(a.Workload), workload.Title(b.Workload))
	}
	// What may explain a difference first.
	if diffs, n := profileSettingsDiff(a, b); len(diffs) == 0 {
		fmt.Fprintf(&sb, "Settings: the same (%d compared)\n", n)
	} else {
		fmt.Fprintf(&sb, "Settings that differ (%d of %d)\n", len(diffs), n)
		tw := newTable(&sb, 0)
		fmt.Fprintln(tw, "  setting\tA\tB")
		for _, d := range diffs {
			fmt.Fprintf(tw, "  %s\t%s\t%s\n", d.Name, orDash(d.A), orDash(d.B))
		}
		tw.Flush()
	}
	rows := CompareProfiles(a, b)
	if len(rows) == 0 {
		fmt.Fprintln(&sb, "  (no VU count in common)")
	} else {
		tw := newTable(&sb, 0)
		fmt.Fprintln(tw, "  VUs\tNOPM A\tNOPM B\tB/A\tverdict")
		for _, r := range rows {
			ratio := absent
			if v := r.Ratio(); !math.IsNaN(v) {
				ratio = fmt.Sprintf("%.2f×", v)
			}
			fmt.Fprintf(tw, "  %d\t%s\t%s\t%s\t%s\n", r.VUs, nopmCell(r.A), nopmCell(r.B), ratio, r.VerdictText())
		}
		tw.Flush()
	}
	fmt.Fprintf(&sb, "A %s\nB %s\n", a.kneeText(), b.kneeText())
	return writeLines(w, sb.String())
}

// profileSettingsDiff is DiffJobSettings of two profiles' first jobs,
// but for the VUs, which are each step's.
func profileSettingsDiff(a, b Profile) ([]JobSettingDiff, int) {
	without := func(m map[string]string) map[string]string {
		c := maps.Clone(m)
		delete(c, "vu")
		return c
	}
	return DiffJobSettings(DiffSide{Config: without(a.Settings)}, DiffSide{Config: without(b.Settings)})
}

// ProfileCompareJSON is `sledge compare A B --format json` of two profiles.
type ProfileCompareJSON struct {
	A ProfileJSON `json:"a"`
	B ProfileJSON `json:"b"`
	// Settings are the profiles' settings that differ (their first jobs',
	// but the VUs); SettingsCompared how many were compared.
	Settings         []JobSettingDiff        `json:"settings"`
	SettingsCompared int                     `json:"settings_compared"`
	Steps            []ProfileCompareRowJSON `json:"steps"`
}

// ProfileCompareRowJSON is one VU count both profiles ran.
type ProfileCompareRowJSON struct {
	VUs     int          `json:"vus"`
	NOPMA   Float        `json:"nopm_a"`
	NOPMB   Float        `json:"nopm_b"`
	Ratio   Float        `json:"ratio"`
	Verdict *VerdictJSON `json:"verdict"` // null when not judged
	Text    string       `json:"text"`
}

// ToProfileCompare is the JSON shape of a comparison of two profiles.
func ToProfileCompare(a, b Profile) ProfileCompareJSON {
	diffs, n := profileSettingsDiff(a, b)
	out := ProfileCompareJSON{A: ToProfile(a), B: ToProfile(b), Steps: []ProfileCompareRowJSON{},
		Settings: append([]JobSettingDiff{}, diffs...), SettingsCompared: n}
	for _, r := range CompareProfiles(a, b) {
		out.Steps = append(out.Steps, ProfileCompareRowJSON{VUs: r.VUs, NOPMA: Float(r.A.Mean), NOPMB: Float(r.B.Mean),
			Ratio: Float(r.Ratio()), Verdict: toVerdictJSON(r.Verdict), Text: r.VerdictText()})
	}
	return out
}

// chartPoint is one step on a chart: its VUs, value and, when known, the
// 95% CI of the value (NaN bounds otherwise).
type chartPoint struct {
	vus       int
	y, lo, hi float64
}

// chartSeries is one profile on a chart; knee is the index of its knee
// point, -1 for none.
type chartSeries struct {
	label, color string
	points       []chartPoint
	knee         int
}

// profileColors are the series' colors: A, then B.
var profileColors = []string{"#2f6fed", "#e8590c"}

// niceStep is a round step (1, 2 or 5 × 10^k) near raw.
func niceStep(raw float64) float64 {
	if raw <= 0 || math.IsNaN(raw) || math.IsInf(raw, 0) {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(raw)))
	for _, m := range []float64{1, 2, 5, 10} {
		if raw <= m*p {
			return m * p
		}
	}
	return 10 * p
}

func compactNum(v float64) string {
	switch a := math.Abs(v); {
	case a >= 1e6:
		return strconv.FormatFloat(v/1e6, 'g', 3, 64) + "M"
	case a >= 1e4:
		return strconv.FormatFloat(v/1e3, 'g', 3, 64) + "k"
	}
	return strconv.FormatFloat(v, 'g', 4, 64)
}

// svgChart draws series of y against VUs as an inline SVG: a log-2 x axis
// with a tick at every VU count, y from 0, error bars where a point has a
// CI, and each series' knee ringed with a dashed line down to the axis.
func svgChart(id, title, yLabel string, series []chartSeries) string {
	const W, H, padL, padR, padT, padB = 640, 320, 64, 20, 34, 46
	pw, ph := float64(W-padL-padR), float64(H-padT-padB)
	minV, maxV, maxY := 0, 0, 0.0
	var vus []int
	for _, s := range series {
		for _, p := range s.points {
			if minV == 0 || p.vus < minV {
				minV = p.vus
			}
			maxV = max(maxV, p.vus)
			for _, y := range []float64{p.y, p.hi} {
				if !math.IsNaN(y) && !math.IsInf(y, 0) {
					maxY = max(maxY, y)
				}
			}
			if !containsInt(vus, p.vus) {
				vus = append(vus, p.vus)
			}
		}
	}
	x := func(v int) float64 {
		if maxV <= minV || minV <= 0 {
			return padL + pw/2
		}
		return padL + pw*0.04 + pw*0.92*(math.Log2(float64(v))-math.Log2(float64(minV)))/(math.Log2(float64(maxV))-math.Log2(float64(minV)))
	}
	// Headroom over the highest point for the knee's label.
	step := niceStep(maxY * 1.15 / 5)
	hi := math.Ceil(maxY*1.15/step) * step
	if hi <= 0 {
		hi = 1
	}
	y := func(v float64) float64 { return padT + ph - v/hi*ph }
	var b strings.Builder
	fmt.Fprintf(&b, `<svg id="%s" class="chart" xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" role="img" aria-label="%s">`, id, W, H, W, H, esc(title))
	fmt.Fprintf(&b, `<text x="%d" y="18" class="title">%s</text>`, padL, esc(title))
	for t := 0.0; t <= hi+step/2; t += step {
		yy := y(t)
		fmt.Fprintf(&b, `<line x1="%d" x2="%d" y1="%.1f" y2="%.1f" class="grid"/><text x="%d" y="%.1f" text-anchor="end" class="tick">%s</text>`,
			padL, W-padR, yy, yy, padL-6, yy+4, compactNum(t))
	}
	fmt.Fprintf(&b, `<line x1="%d" x2="%d" y1="%.1f" y2="%.1f" class="axis"/>`, padL, W-padR, padT+ph, padT+ph)
	for _, v := range vus {
		fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" text-anchor="middle" class="tick">%d</text>`, x(v), padT+ph+16, v)
	}
	fmt.Fprintf(&b, `<text x="%.1f" y="%d" text-anchor="middle" class="label">virtual users (log scale)</text>`, padL+pw/2, H-6)
	fmt.Fprintf(&b, `<text x="14" y="%.1f" text-anchor="middle" class="label" transform="rotate(-90 14 %.1f)">%s</text>`, padT+ph/2, padT+ph/2, esc(yLabel))
	for si, s := range series {
		var pts []string
		for _, p := range s.points {
			if !math.IsNaN(p.y) {
				pts = append(pts, fmt.Sprintf("%.1f,%.1f", x(p.vus), y(p.y)))
			}
		}
		fmt.Fprintf(&b, `<g class="series" data-series="%d"><polyline fill="none" stroke="%s" stroke-width="2" points="%s"/>`, si, s.color, strings.Join(pts, " "))
		for _, p := range s.points {
			if math.IsNaN(p.y) {
				continue
			}
			if !math.IsNaN(p.lo) && !math.IsNaN(p.hi) {
				fmt.Fprintf(&b, `<line x1="%.1f" x2="%.1f" y1="%.1f" y2="%.1f" stroke="%s" class="errbar"/>`, x(p.vus), x(p.vus), y(max(p.lo, 0)), y(p.hi), s.color)
			}
			fmt.Fprintf(&b, `<circle cx="%.1f" cy="%.1f" r="3.5" fill="%s"><title>%s: %s, %s</title></circle>`, x(p.vus), y(p.y), s.color, esc(s.label), vusText(p.vus), compactNum(p.y))
		}
		if s.knee >= 0 && s.knee < len(s.points) && !math.IsNaN(s.points[s.knee].y) {
			p := s.points[s.knee]
			kx, ky := x(p.vus), y(p.y)
			fmt.Fprintf(&b, `<g class="knee" data-vus="%d"><line x1="%.1f" x2="%.1f" y1="%.1f" y2="%.1f" stroke="%s" stroke-dasharray="4 3"/>`, p.vus, kx, kx, ky, padT+ph, s.color)
			fmt.Fprintf(&b, `<circle cx="%.1f" cy="%.1f" r="8" fill="none" stroke="%s" stroke-width="2"/>`, kx, ky, s.color)
			// The label right of the knee (left near the right edge, or
			// for the second series, so that two knees' labels part).
			lx, anchor := kx+12, "start"
			if (si%2 == 1 && kx > padL+pw*0.25) || kx > padL+pw*0.75 {
				lx, anchor = kx-12, "end"
			}
			label := "knee " + vusText(p.vus)
			if len(series) > 1 {
				label = strings.SplitN(s.label, ":", 2)[0] + " " + label
			}
			fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" text-anchor="%s" class="kneelabel" fill="%s">%s</text></g>`, lx, ky-12, anchor, s.color, esc(label))
		}
		b.WriteString(`</g>`)
	}
	if len(series) > 1 {
		lx := float64(W - padR - 150)
		for si, s := range series {
			ly := 14 + float64(si)*14
			fmt.Fprintf(&b, `<rect x="%.1f" y="%.1f" width="12" height="4" fill="%s"/><text x="%.1f" y="%.1f" class="legend">%s</text>`, lx, ly-4, s.color, lx+16, ly+1, esc(s.label))
		}
	}
	b.WriteString(`</svg>`)
	return b.String()
}

func containsInt(xs []int, v int) bool {
	for _, x := range xs {
		if x == v {
			return true
		}
	}
	return false
}

func esc(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;", "'", "&#39;").Replace(s)
}

// profileSeries is a profile's NOPM (with its CIs) and p95 as chart series.
func profileSeries(p Profile, label, color string) (nopm, p95 chartSeries) {
	k, found := p.Knee()
	if !found {
		k = -1
	}
	nopm = chartSeries{label: label, color: color, knee: k}
	p95 = chartSeries{label: label, color: color, knee: k}
	for _, s := range p.Steps {
		n := s.NOPM()
		nopm.points = append(nopm.points, chartPoint{vus: s.VUs, y: n.Mean, lo: n.CI95Low, hi: n.CI95High})
		p95.points = append(p95.points, chartPoint{vus: s.VUs, y: s.P95MS(), lo: math.NaN(), hi: math.NaN()})
	}
	return nopm, p95
}

const profileCSS = `body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;color:#1d2433;margin:24px auto;max-width:1320px;padding:0 16px}
h1{font-size:20px;margin:0 0 4px}h2{font-size:16px;margin:24px 0 8px}.sub{color:#5b6474;margin:0 0 16px}
.charts{display:flex;flex-wrap:wrap;gap:16px}.chart{max-width:100%;height:auto;border:1px solid #e3e6eb;border-radius:6px;background:#fff}
.chart .grid{stroke:#e3e6eb}.chart .axis{stroke:#98a2b3}.chart text{font-size:11px;fill:#5b6474}.chart .title{font-size:13px;font-weight:600;fill:#1d2433}
.chart .label{font-size:12px}.chart .kneelabel{font-size:11px;font-weight:600}.chart .errbar{stroke-width:1.5}
table{border-collapse:collapse;margin:8px 0}th,td{padding:4px 10px;border-bottom:1px solid #e3e6eb;text-align:left}td.num,th.num{text-align:right;font-variant-numeric:tabular-nums}
tr.knee td{background:#fff4e6;font-weight:600}.note{color:#5b6474;font-size:12px}.sig{color:#b42318;font-weight:600}`

// ProfileHTML writes a profile as one self-contained HTML page (no script,
// no external file): NOPM and New-Order p95 against VUs as inline SVG with
// the knee marked, and the table of ProfileText.
func ProfileHTML(w io.Writer, p Profile) error {
	var b strings.Builder
	title := profileTitle(p)
	htmlHead(&b, "Sledge · "+title)
	fmt.Fprintf(&b, "<h1>%s</h1>\n<p class=\"sub\">%s · %s</p>\n", esc(title), esc(createdText(p)), esc(p.kneeText()))
	nopm, p95 := profileSeries(p, fmt.Sprintf("profile %d", p.ID), profileColors[0])
	fmt.Fprintf(&b, "<div class=\"charts\">\n%s\n%s\n</div>\n", svgChart("chart-nopm", "NOPM against VUs", "NOPM", []chartSeries{nopm}),
		svgChart("chart-p95", "New-Order p95 against VUs", "p95 (ms)", []chartSeries{p95}))
	profileTableHTML(&b, p)
	fmt.Fprintf(&b, "<p class=\"note\">NOPM ± half the 95%% confidence interval of the mean of a step's trials (three or more: fewer show the mean alone). %s.</p>\n", esc(capitalize(KneeRule)))
	b.WriteString("</body>\n</html>\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// ProfileCompareHTML writes two profiles overlaid (A blue, B orange, a
// legend) with the per-VU comparison and both tables, self-contained.
func ProfileCompareHTML(w io.Writer, a, b Profile) error {
	var sb strings.Builder
	title := fmt.Sprintf("Profile %d vs profile %d", a.ID, b.ID)
	htmlHead(&sb, "Sledge · "+title)
	fmt.Fprintf(&sb, "<h1>%s</h1>\n<p class=\"sub\">A: %s · B: %s</p>\n", esc(title), esc(profileTitle(a)), esc(profileTitle(b)))
	na, pa := profileSeries(a, fmt.Sprintf("A: profile %d", a.ID), profileColors[0])
	nb, pb := profileSeries(b, fmt.Sprintf("B: profile %d", b.ID), profileColors[1])
	fmt.Fprintf(&sb, "<div class=\"charts\">\n%s\n%s\n</div>\n", svgChart("chart-nopm", "NOPM against VUs", "NOPM", []chartSeries{na, nb}),
		svgChart("chart-p95", "New-Order p95 against VUs", "p95 (ms)", []chartSeries{pa, pb}))
	sb.WriteString("<h2>B against A</h2>\n<table id=\"compare\"><thead><tr><th class=\"num\">VUs</th><th class=\"num\">NOPM A</th><th class=\"num\">NOPM B</th><th class=\"num\">B/A</th><th>verdict</th></tr></thead><tbody>\n")
	for _, r := range CompareProfiles(a, b) {
		ratio := absent
		if v := r.Ratio(); !math.IsNaN(v) {
			ratio = fmt.Sprintf("%.2f×", v)
		}
		cls := ""
		if r.Verdict != nil && r.Verdict.Significant {
			cls = ` class="sig"`
		}
		fmt.Fprintf(&sb, "<tr><td class=\"num\">%d</td><td class=\"num\">%s</td><td class=\"num\">%s</td><td class=\"num\">%s</td><td%s>%s</td></tr>\n",
			r.VUs, esc(nopmCell(r.A)), esc(nopmCell(r.B)), ratio, cls, esc(r.VerdictText()))
	}
	sb.WriteString("</tbody></table>\n")
	for _, x := range []struct {
		name string
		p    Profile
	}{{"A", a}, {"B", b}} {
		fmt.Fprintf(&sb, "<h2>%s: %s</h2>\n<p class=\"sub\">%s · %s</p>\n", x.name, esc(profileTitle(x.p)), esc(createdText(x.p)), esc(x.p.kneeText()))
		profileTableHTML(&sb, x.p)
	}
	fmt.Fprintf(&sb, "<p class=\"note\">%s.</p>\n", esc(capitalize(KneeRule)))
	sb.WriteString("</body>\n</html>\n")
	_, err := io.WriteString(w, sb.String())
	return err
}

func htmlHead(b *strings.Builder, title string) {
	fmt.Fprintf(b, "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>%s</title>\n<style>\n%s\n</style>\n</head>\n<body>\n", esc(title), profileCSS)
}

func createdText(p Profile) string {
	if p.CreatedAt.IsZero() {
		return "profile " + strconv.FormatInt(p.ID, 10)
	}
	return "started " + p.CreatedAt.UTC().Format("2006-01-02 15:04 UTC")
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

func profileTableHTML(b *strings.Builder, p Profile) {
	k, found := p.Knee()
	b.WriteString("<table class=\"profile\"><thead><tr><th class=\"num\">VUs</th><th>jobs</th><th class=\"num\">NOPM</th><th class=\"num\">TPM</th><th class=\"num\">New-Order p95</th><th class=\"num\">NOPM/VU</th><th class=\"num\">gain</th><th class=\"num\">of linear</th><th></th></tr></thead><tbody>\n")
	for i, s := range p.Steps {
		gain, lin := p.stepGain(i)
		cls, mark := "", ""
		if found && i == k {
			cls, mark = ` class="knee"`, "◀ knee"
		}
		fmt.Fprintf(b, "<tr%s><td class=\"num\">%d</td><td>%s</td><td class=\"num\">%s</td><td class=\"num\">%s</td><td class=\"num\">%s</td><td class=\"num\">%s</td><td class=\"num\">%s</td><td class=\"num\">%s</td><td>%s</td></tr>\n",
			cls, s.VUs, idsText(s.JobIDs()), esc(nopmCell(s.NOPM())), floatText(s.TPM(), Int), esc(msText(s.P95MS())),
			floatText(perVU(s), perVUText), pctText(gain), shareText(lin), mark)
	}
	b.WriteString("</tbody></table>\n")
}

// ProfilesText lists profiles (sledge profile list): id, when, workload,
// database, the VU counts of the steps, the jobs and the knee.
func ProfilesText(w io.Writer, ps []Profile) error {
	var sb strings.Builder
	tw := newTable(&sb, 0)
	fmt.Fprintln(tw, "PROFILE\tSTARTED\tWORKLOAD\tDATABASE\tVUS\tJOBS\tKNEE")
	for _, p := range ps {
		var vus []string
		jobs := 0
		for _, s := range p.Steps {
			vus = append(vus, strconv.Itoa(s.VUs))
			jobs += len(s.Trials)
		}
		knee := absent
		if k, ok := p.Knee(); ok {
			knee = vusText(p.Steps[k].VUs)
		}
		started := absent
		if !p.CreatedAt.IsZero() {
			started = p.CreatedAt.Local().Format("2006-01-02 15:04")
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%d\t%s\n", p.ID, started, orDash(workload.Title(p.Workload)), orDash(p.DB),
			strings.Join(vus, ","), jobs, knee)
	}
	tw.Flush()
	return writeLines(w, sb.String())
}

// ToProfiles is the JSON shape of a list of profiles.
func ToProfiles(ps []Profile) []ProfileJSON {
	out := []ProfileJSON{}
	for _, p := range ps {
		out = append(out, ToProfile(p))
	}
	return out
}

// NotJudgedText is the verdict line of two jobs whose NOPM cannot be
// judged (NOPMVerdict is nil).
const NotJudgedText = "NOPM: not judged (a verdict needs two TPROC-C runs with three or more measured intervals each, or two series of trials: sledge run --repeat)"

// CompareJSON is GET /api/compare?a=A&b=B: what sledge compare A B says of
// B against A. Kind is "profiles" when both are the first jobs of
// profiles (Steps then holds the step-by-step comparison), else "jobs"
// (Verdict is jobs diff's nopm_verdict).
type CompareJSON struct {
	A    string `json:"a"`
	B    string `json:"b"`
	Kind string `json:"kind"`
	// Verdict is null when the jobs cannot be judged, and for profiles.
	Verdict *VerdictJSON `json:"verdict"`
	// Text is the verdict in words (NotJudgedText when null); for
	// profiles, one line per common VU count.
	Text  string                  `json:"text"`
	Steps []ProfileCompareRowJSON `json:"steps"`
	// What may explain a difference, to be shown before it (as jobs diff
	// and compare print it first). SettingsDiffer are the jobs' own
	// settings that differ (DiffJobSettings: a run's or a build's, then
	// the client machine's facts named "client …"); for profiles their
	// first jobs' but the VUs. SettingsCompared is how many were compared.
	SettingsDiffer   []JobSettingDiff `json:"settings_differ"`
	SettingsCompared int              `json:"settings_compared"`
	// ServersDiffer are the database server versions that differ: the
	// jobs' ("database", when both are known) and each observer's server
	// both jobs recorded, named by the observer (a host observer's is the
	// machine's name and kernel).
	ServersDiffer []JobSettingDiff `json:"servers_differ"`
	// MachineDiffers says the jobs ran on client machines that differ
	// (one of SettingsDiffer's "client …" facts).
	MachineDiffers bool `json:"machine_differs"`
	// Notes say the jobs are of different kinds or workloads (jobs diff's
	// notes but the servers', which ServersDiffer has).
	Notes []string `json:"notes"`
}

// ToJobsCompare is the CompareJSON of two jobs.
func ToJobsCompare(a, b DiffSide) CompareJSON {
	js, n := DiffJobSettings(a, b)
	out := CompareJSON{A: strconv.FormatInt(a.Job.ID, 10), B: strconv.FormatInt(b.Job.ID, 10), Kind: "jobs",
		Steps: []ProfileCompareRowJSON{}, Text: NotJudgedText,
		SettingsDiffer: append([]JobSettingDiff{}, js...), SettingsCompared: n,
		ServersDiffer: serversDiffer(a, b), MachineDiffers: machineDiffers(js), Notes: append([]string{}, kindNotes(a, b)...)}
	if v := NOPMVerdict(a, b); v != nil {
		out.Verdict, out.Text = toVerdictJSON(v), v.Text()
	}
	return out
}

// serversDiffer are the server versions of jobs a and b that differ: the
// jobs' own when both are known (one that never reached its server has
// none), then each observer's that both recorded, unless it says what the
// jobs' already say.
func serversDiffer(a, b DiffSide) []JobSettingDiff {
	out := []JobSettingDiff{}
	va, vb := a.Job.DBVersion, b.Job.DBVersion
	if va != "" && vb != "" && va != vb {
		out = append(out, JobSettingDiff{Name: "database", A: va, B: vb})
	}
	for _, od := range DiffSettings(a.Obs, b.Obs) {
		if od.ServerA == nil || od.ServerB == nil || (*od.ServerA == va && *od.ServerB == vb) {
			continue
		}
		out = append(out, JobSettingDiff{Name: od.Name, A: *od.ServerA, B: *od.ServerB})
	}
	return out
}

// machineDiffers says whether settings that differ include a fact of the
// client machine.
func machineDiffers(ds []JobSettingDiff) bool {
	for _, d := range ds {
		if strings.HasPrefix(d.Name, clientPrefix) {
			return true
		}
	}
	return false
}

// ToProfilesCompare is the CompareJSON of two profiles.
func ToProfilesCompare(a, b Profile) CompareJSON {
	diffs, n := profileSettingsDiff(a, b)
	out := CompareJSON{A: strconv.FormatInt(a.ID, 10), B: strconv.FormatInt(b.ID, 10), Kind: "profiles",
		Steps: ToProfileCompare(a, b).Steps, SettingsDiffer: append([]JobSettingDiff{}, diffs...), SettingsCompared: n,
		ServersDiffer: []JobSettingDiff{}, MachineDiffers: machineDiffers(diffs), Notes: []string{}}
	if a.DB != b.DB && a.DB != "" && b.DB != "" {
		out.ServersDiffer = append(out.ServersDiffer, JobSettingDiff{Name: "database", A: a.DB, B: b.DB})
	}
	var lines []string
	for _, s := range out.Steps {
		lines = append(lines, fmt.Sprintf("%s: %s", vusText(s.VUs), s.Text))
	}
	if len(lines) == 0 {
		lines = append(lines, "no VU count in common")
	}
	out.Text = strings.Join(lines, "\n")
	return out
}
