package report

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"math"
	"regexp"
	"strings"
	"testing"
	"time"
)

func TestProfileKnee(t *testing.T) {
	t.Parallel()
	nan := math.NaN()
	for _, c := range []struct {
		name  string
		vus   []int
		nopm  []float64
		knee  int
		found bool
	}{
		{"flat", []int{1, 2, 4, 8}, []float64{1000, 1010, 990, 1005}, 0, true},
		{"linear", []int{1, 2, 4, 8, 16}, []float64{1000, 2000, 4000, 8000, 16000}, -1, false},
		{"saturating", []int{1, 2, 4, 8, 16, 32}, []float64{1000, 2000, 3900, 6000, 6500, 6600}, 3, true},
		{"falling after a peak", []int{1, 2, 4, 8}, []float64{1000, 1900, 3000, 2500}, 2, true},
		// 1000 → 1400 at 2 VUs gains 400 of an ideal 1000: under half.
		{"just under half", []int{1, 2, 4}, []float64{1000, 1499, 3000}, 0, true},
		{"exactly half scales", []int{1, 2, 4}, []float64{1000, 1500, 2000}, 1, true},
		// Uneven steps: 1 → 3 VUs is an ideal gain of 2×.
		{"uneven steps", []int{1, 3, 10}, []float64{1000, 2900, 4000}, 1, true},
		{"noise does not move the knee back", []int{1, 2, 4, 8}, []float64{1000, 1100, 2200, 4400}, 0, true},
		{"from zero", []int{1, 2}, []float64{0, 10}, -1, false},
		{"one step", []int{4}, []float64{1000}, -1, false},
		{"no steps", nil, nil, -1, false},
		{"missing NOPM", []int{1, 2, 4}, []float64{1000, nan, 1000}, -1, false},
		{"lengths differ", []int{1, 2}, []float64{1000}, -1, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			k, found := Knee(c.vus, c.nopm)
			if k != c.knee || found != c.found {
				t.Errorf("Knee(%v, %v) = %d, %v; want %d, %v", c.vus, c.nopm, k, found, c.knee, c.found)
			}
		})
	}
}

// testProfile builds a profile from per-step trials' NOPM (TPM = 2.2 ×
// NOPM, p95 = VUs ms).
func testProfile(id int64, vus []int, nopm [][]float64) Profile {
	p := Profile{ID: id, Workload: "tprocc", DB: "SQLite 3.46", CreatedAt: time.Date(2026, 11, 24, 10, 0, 0, 0, time.UTC)}
	next := id
	for i, v := range vus {
		s := ProfileStep{VUs: v}
		for _, n := range nopm[i] {
			s.Trials = append(s.Trials, ProfileTrial{JobID: next, Status: "completed", Measured: true, NOPM: n, TPM: 2.2 * n, P95MS: float64(v)})
			next++
		}
		p.Steps = append(p.Steps, s)
	}
	return p
}

func TestProfileText(t *testing.T) {
	t.Parallel()
	p := testProfile(10, []int{1, 2, 4, 8}, [][]float64{{1000, 1100, 1050}, {2000, 2100, 2050}, {3900, 4000, 3950}, {4100, 4000, 4050}})
	var b bytes.Buffer
	if err := ProfileText(&b, p); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"Profile 10: ", " on SQLite 3.46", "1,050  ",
		"VUs  jobs", "NOPM/VU", "of linear",
		"10,11,12", "1,050 ± 124", // mean of 1000, 1100 and 1050, t(2) = 4.303 × 50/√3
		"4,050 ± 124  8,910", "◀ knee",
		"knee: 4 VUs (3,950 NOPM)",
		"half the linear gain",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the table lacks %q:\n%s", want, out)
		}
	}
	if n := strings.Count(out, "◀ knee"); n != 1 {
		t.Errorf("%d knee marks, want 1:\n%s", n, out)
	}
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, "◀ knee") && !strings.HasPrefix(strings.TrimSpace(l), "4 ") {
			t.Errorf("the knee is marked on %q, want the 4 VU row", l)
		}
	}

	// One trial a step: no ±; still scaling: no knee.
	p = testProfile(20, []int{1, 2}, [][]float64{{1000}, {2000}})
	b.Reset()
	if err := ProfileText(&b, p); err != nil {
		t.Fatal(err)
	}
	out = b.String()
	if strings.Contains(out, "±  ") || strings.Contains(out, "◀ knee") || !strings.Contains(out, "knee: not reached") {
		t.Errorf("a linear profile of single trials:\n%s", out)
	}
	if !strings.Contains(out, "+100.0%") || !strings.Contains(out, "100%") {
		t.Errorf("the gain of the second step is missing:\n%s", out)
	}

	// Two trials a step: the mean alone (t(1) = 12.7 would give
	// 1,050 ± 635).
	p = testProfile(30, []int{1, 2}, [][]float64{{1000, 1100}, {2000, 2100}})
	b.Reset()
	if err := ProfileText(&b, p); err != nil {
		t.Fatal(err)
	}
	if out = b.String(); strings.Contains(out, "1,050 ±") || !strings.Contains(out, "30,31  1,050") {
		t.Errorf("two trials a step:\n%s", out)
	}

	// An interval whose lower bound is held at zero shows its bounds: a ±
	// would reach below zero NOPM.
	p = testProfile(40, []int{1}, [][]float64{{100, 100, 3000}})
	b.Reset()
	if err := ProfileText(&b, p); err != nil {
		t.Fatal(err)
	}
	if out = b.String(); !regexp.MustCompile(`40,41,42 +1,067 \(0–5,226\)`).MatchString(out) {
		t.Errorf("an interval held at zero:\n%s", out)
	}
}

func TestProfileJSON(t *testing.T) {
	t.Parallel()
	p := testProfile(10, []int{1, 2, 4}, [][]float64{{1000, 1100}, {1050, 1000}, {1000, 1020}})
	p.Steps = append(p.Steps, ProfileStep{VUs: 8, Trials: []ProfileTrial{TrialOf(99, "failed", nil)}})
	var b bytes.Buffer
	if err := WriteJSON(&b, ToProfile(p)); err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(b.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	if got["id"] != "10" || got["knee_vus"] != 1.0 || !strings.Contains(got["knee_rule"].(string), "half the linear gain") {
		t.Errorf("profile JSON: %s", b.String())
	}
	steps := got["steps"].([]any)
	if len(steps) != 4 {
		t.Fatalf("%d steps", len(steps))
	}
	first, last := steps[0].(map[string]any), steps[3].(map[string]any)
	if first["knee"] != true || first["nopm_sd"] == nil || first["gain_pct"] != nil || first["trials"] != 2.0 {
		t.Errorf("first step: %v", first)
	}
	if last["nopm"] != nil || last["trials"] != 0.0 || last["jobs"].([]any)[0] != "99" {
		t.Errorf("a failed step: %v", last)
	}
}

func TestProfileHTML(t *testing.T) {
	t.Parallel()
	p := testProfile(10, []int{1, 2, 4, 8}, [][]float64{{1000, 1100, 1050}, {2000, 2100, 2050}, {3900, 4000, 3950}, {4100, 4000, 4050}})
	p.Workload = `<script>alert(1)</script>`
	var b bytes.Buffer
	if err := ProfileHTML(&b, p); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	checkSelfContained(t, out)
	for _, want := range []string{`<svg id="chart-nopm"`, `<svg id="chart-p95"`, `class="knee" data-vus="4"`, "knee 4 VUs", `<tr class="knee">`, "half the linear gain"} {
		if !strings.Contains(out, want) {
			t.Errorf("the HTML lacks %q", want)
		}
	}
	if strings.Contains(out, "<script>alert") {
		t.Error("a workload name is not escaped")
	}
	// Both charts: one polyline through the four steps, error bars for
	// the NOPM only.
	for _, id := range []string{"chart-nopm", "chart-p95"} {
		svg := svgOf(t, out, id)
		if n := strings.Count(svg, "<circle"); n != 5 { // four points and the knee's ring
			t.Errorf("%s: %d circles, want 5", id, n)
		}
		if pts := regexp.MustCompile(`points="([^"]*)"`).FindStringSubmatch(svg); pts == nil || len(strings.Fields(pts[1])) != 4 {
			t.Errorf("%s: polyline %v, want 4 points", id, pts)
		}
	}
	if !strings.Contains(svgOf(t, out, "chart-nopm"), `class="errbar"`) || strings.Contains(svgOf(t, out, "chart-p95"), `class="errbar"`) {
		t.Error("error bars: want them on NOPM (three trials a step), not on p95")
	}
}

func TestProfileCompare(t *testing.T) {
	t.Parallel()
	a := testProfile(10, []int{1, 2, 4}, [][]float64{{1000, 1010, 990}, {2000, 2010, 1990}, {2500, 2510, 2490}})
	b := testProfile(20, []int{2, 4, 8}, [][]float64{{2005, 1995, 2000}, {3000, 3010, 2990}, {3100, 3000, 3050}})
	rows := CompareProfiles(a, b)
	if len(rows) != 2 || rows[0].VUs != 2 || rows[1].VUs != 4 {
		t.Fatalf("rows %+v, want 2 and 4 VUs", rows)
	}
	if v := rows[0].Verdict; v == nil || v.Significant || !v.Trials {
		t.Errorf("2 VUs: %+v, want within the noise of the trials", v)
	}
	if v := rows[1].Verdict; v == nil || !v.Significant || math.Abs(v.ChangePct-20) > 0.01 {
		t.Errorf("4 VUs: %+v, want +20%% beyond the noise", v)
	}
	var out bytes.Buffer
	if err := ProfileCompareText(&out, a, b); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Profile 10 (A) vs profile 20 (B)", "1.20×", "NOPM +20.0%: beyond the noise of the trials (Welch's t-test at 5%, 3 and 3 trials)",
		"within the noise of the trials", "A knee: 2 VUs", "B knee: 4 VUs"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the comparison lacks %q:\n%s", want, out.String())
		}
	}

	// Single trials are not judged.
	a1 := testProfile(10, []int{1, 2}, [][]float64{{1000}, {2000}})
	b1 := testProfile(20, []int{1, 2}, [][]float64{{1100, 1000}, {2200, 2100}})
	rows = CompareProfiles(a1, b1)
	if rows[0].Verdict != nil || !strings.Contains(rows[0].VerdictText(), "not judged (1 and 2 trials") {
		t.Errorf("single trials: %q", rows[0].VerdictText())
	}
	var h bytes.Buffer
	if err := ProfileCompareHTML(&h, a, b); err != nil {
		t.Fatal(err)
	}
	html := h.String()
	checkSelfContained(t, html)
	for _, want := range []string{"A: profile 10", "B: profile 20", `stroke="#e8590c"`, `stroke="#2f6fed"`, `class="sig"`, "beyond the noise"} {
		if !strings.Contains(html, want) {
			t.Errorf("the compare HTML lacks %q", want)
		}
	}
	if n := strings.Count(svgOf(t, html, "chart-nopm"), `class="series"`); n != 2 {
		t.Errorf("%d series on the NOPM chart, want 2", n)
	}
	var j bytes.Buffer
	if err := WriteJSON(&j, ToProfileCompare(a1, b1)); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(j.String(), `"verdict": null`) || !strings.Contains(j.String(), "not judged") {
		t.Errorf("compare JSON: %s", j.String())
	}
}

// checkSelfContained: no script, no external reference, and every SVG is
// well-formed XML.
func checkSelfContained(t *testing.T, html string) {
	t.Helper()
	for _, bad := range []string{"<script", "src=", "href=", "@import", "url("} {
		if strings.Contains(html, bad) {
			t.Errorf("the HTML has %q: not self-contained", bad)
		}
	}
	for _, m := range regexp.MustCompile(`(?s)<svg.*?</svg>`).FindAllString(html, -1) {
		d := xml.NewDecoder(strings.NewReader(m))
		for {
			_, err := d.Token()
			if err != nil {
				if err.Error() != "EOF" {
					t.Errorf("an SVG is not well-formed: %v", err)
				}
				break
			}
		}
	}
}

func svgOf(t *testing.T, html, id string) string {
	t.Helper()
	m := regexp.MustCompile(`(?s)<svg id="` + id + `".*?</svg>`).FindString(html)
	if m == "" {
		t.Fatalf("no <svg id=%q>", id)
	}
	return m
}
