package report

import (
	"context"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/sledge-bench/sledge/internal/jobs"
	"github.com/sledge-bench/sledge/internal/metrics"
	"github.com/sledge-bench/sledge/internal/workload"
)

// absent is what a diff shows for a figure a job does not have: never a 0
// that would read as measured.
const absent = "—"

// newOrderTx is the TPROC-C transaction whose p95 a diff compares (the
// name the workload records it under).
const newOrderTx = "new_order"

// DiffSide is what a diff shows of one job: its record and whichever of a
// run result, an analytic result and observations it has.
type DiffSide struct {
	Job       jobs.Job
	Run       *metrics.RunResult      // nil when the job has none
	Analytic  *metrics.AnalyticResult // nil when the job has none
	Obs       []jobs.Observation      // nil when the job was not observed
	Intervals []metrics.Interval      // places the observations in the measured window
	Config    map[string]string       // the job's settings: says whether metrics were off
	System    map[string]string       // the client machine it ran on
	// Trials are the NOPM of every run of the job's series (its trials,
	// sledge run --repeat), when it belongs to one.
	Trials []float64
}

// LoadDiffSide reads what a diff needs of job j.
func LoadDiffSide(ctx context.Context, s Store, j jobs.Job) (DiffSide, error) {
	d := DiffSide{Job: j}
	var err error
	if d.Run, err = s.RunResult(ctx, j.ID); err != nil {
		return d, err
	}
	if d.Analytic, err = s.AnalyticResult(ctx, j.ID); err != nil {
		return d, err
	}
	if d.Config, err = s.Config(ctx, j.ID); err != nil {
		return d, err
	}
	if d.System, err = s.System(ctx, j.ID); err != nil {
		return d, err
	}
	if d.Obs, d.Intervals, err = observations(ctx, s, j); err != nil {
		return d, err
	}
	if d.Intervals == nil && d.Run != nil {
		// The verdict needs the series of an unobserved run too.
		if d.Intervals, err = s.Intervals(ctx, j.ID); err != nil {
			return d, err
		}
	}
	if series := d.Config["series"]; series != "" && d.Run != nil {
		ids, err := s.JobsWithSetting(ctx, "series", series)
		if err != nil {
			return d, err
		}
		for _, id := range ids {
			r, err := s.RunResult(ctx, id)
			if err != nil {
				return d, err
			}
			if r != nil && r.Measured > 0 {
				d.Trials = append(d.Trials, r.NOPM)
			}
		}
	}
	return d, nil
}

// Diff writes jobs a and b side by side (b against a): their results, the
// server settings that differ and their top waits, as text or as JSON.
func Diff(ctx context.Context, w io.Writer, s Store, a, b jobs.Job, asJSON bool) error {
	da, err := LoadDiffSide(ctx, s, a)
	if err != nil {
		return err
	}
	db, err := LoadDiffSide(ctx, s, b)
	if err != nil {
		return err
	}
	if asJSON {
		return WriteJSON(w, ToDiff(da, db))
	}
	return DiffText(w, da, db)
}

// DiffRow is one figure of both jobs; NaN where a job does not have it.
type DiffRow struct {
	Name, Unit string
	A, B       float64
	format     func(float64) string
}

// Change is b against a in percent; NaN when either is absent or a is 0
// (no percentage of nothing).
func (r DiffRow) Change() float64 {
	if math.IsNaN(r.A) || math.IsNaN(r.B) || math.IsInf(r.A, 0) || math.IsInf(r.B, 0) || r.A == 0 {
		return math.NaN()
	}
	return 100 * (r.B - r.A) / math.Abs(r.A)
}

func (r DiffRow) text(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return absent
	}
	return r.format(v)
}

// changeText words a change: "+5.0%", "-12.3%", "0.0%"; absent when none.
func changeText(c float64) string {
	switch {
	case math.IsNaN(c):
		return absent
	case math.Abs(c) < 0.05:
		return "0.0%"
	}
	return fmt.Sprintf("%+.1f%%", c)
}

// diffMetric is one headline figure and how to read it from a job; get
// returns NaN when the job does not have it.
type diffMetric struct {
	name, unit string
	format     func(float64) string
	get        func(DiffSide) float64
}

func runFigure(f func(*metrics.RunResult) float64) func(DiffSide) float64 {
	return func(d DiffSide) float64 {
		if d.Run == nil {
			return math.NaN()
		}
		return f(d.Run)
	}
}

func analyticFigure(f func(*metrics.AnalyticResult) float64) func(DiffSide) float64 {
	return func(d DiffSide) float64 {
		if d.Analytic == nil {
			return math.NaN()
		}
		return f(d.Analytic)
	}
}

var diffMetrics = []diffMetric{
	{"VUs", "", Int, runFigure(func(r *metrics.RunResult) float64 { return float64(r.VUs) })},
	{"warehouses", "", Int, runFigure(func(r *metrics.RunResult) float64 { return float64(r.Warehouses) })},
	{"NOPM", "", Int, runFigure(func(r *metrics.RunResult) float64 { return r.NOPM })},
	{"TPM", "", Int, runFigure(func(r *metrics.RunResult) float64 { return r.TPM })},
	{"New-Order p95", "ms", func(v float64) string { return fmt.Sprintf("%.2f ms", v) },
		runFigure(func(r *metrics.RunResult) float64 {
			for _, t := range r.Tx {
				if t.Name == newOrderTx && t.Count > 0 {
					return MS(t.P95)
				}
			}
			return math.NaN() // no New-Order committed: no latency to compare
		})},
	{"client CPU/tx", "µs", func(v float64) string { return fmt.Sprintf("%.0f µs", v) },
		runFigure(func(r *metrics.RunResult) float64 {
			if r.Commits == 0 {
				return math.NaN() // per nothing
			}
			return r.ClientCPUPerTxUS
		})},
	{"errors", "", Int, runFigure(func(r *metrics.RunResult) float64 { return float64(r.Errors) })},
	{"scale factor", "", func(v float64) string { return fmt.Sprintf("%g", v) },
		analyticFigure(func(r *metrics.AnalyticResult) float64 { return r.SF })},
	{"geomean", "s", func(v float64) string { return fmt.Sprintf("%.3f s", v) },
		analyticFigure(func(r *metrics.AnalyticResult) float64 { return r.GeomeanS })},
	{"power", PerHourSF, func(v float64) string { return fmt.Sprintf("%.1f %s", v, PerHourSF) },
		analyticFigure(func(r *metrics.AnalyticResult) float64 { return r.Power })},
	{"throughput", PerHourSF, func(v float64) string { return fmt.Sprintf("%.1f %s", v, PerHourSF) },
		analyticFigure(func(r *metrics.AnalyticResult) float64 {
			if r.Streams == 0 {
				return math.NaN() // no throughput test ran
			}
			return r.Throughput
		})},
}

// DiffResults are the headline figures either job has, in a fixed order:
// a figure neither has (TPROC-H's for two TPROC-C runs) is left out.
func DiffResults(a, b DiffSide) []DiffRow {
	var out []DiffRow
	for _, m := range diffMetrics {
		r := DiffRow{Name: m.name, Unit: m.unit, A: m.get(a), B: m.get(b), format: m.format}
		if math.IsNaN(r.A) && math.IsNaN(r.B) {
			continue
		}
		out = append(out, r)
	}
	return out
}

// SettingDiff is one server setting whose value differs between the jobs;
// A or B is nil when that job's observer did not report it.
type SettingDiff struct {
	Observer string
	Name     string
	A, B     *string
}

// ObserverDiff is what differs of one observer (matched by name) between
// the jobs: its settings and its server's version.
type ObserverDiff struct {
	Name             string
	Settings         []SettingDiff
	ServerA, ServerB *string // both nil when the versions are the same
}

// DiffSettings compares the settings of the observers of both jobs,
// matching observers by name: for each, the union of the setting names
// (a's order, then b's additions) whose values differ or that one side
// lacks. Observers appear in a's order, then b's additions.
func DiffSettings(a, b []jobs.Observation) []ObserverDiff {
	var names []string
	find := func(obs []jobs.Observation, name string) *jobs.Observation {
		for i := range obs {
			if obs[i].Name == name {
				return &obs[i]
			}
		}
		return nil
	}
	for _, o := range append(append([]jobs.Observation{}, a...), b...) {
		if !slices.Contains(names, o.Name) {
			names = append(names, o.Name)
		}
	}
	var out []ObserverDiff
	for _, name := range names {
		oa, ob := find(a, name), find(b, name)
		d := ObserverDiff{Name: name}
		va, vb := settingValues(oa), settingValues(ob)
		var keys []string
		for _, o := range []*jobs.Observation{oa, ob} {
			if o == nil {
				continue
			}
			for _, s := range o.Start.Settings {
				if !slices.Contains(keys, s.Name) {
					keys = append(keys, s.Name)
				}
			}
		}
		for _, k := range keys {
			x, inA := va[k]
			y, inB := vb[k]
			if inA && inB && x == y {
				continue
			}
			sd := SettingDiff{Observer: name, Name: k}
			if inA {
				sd.A = &x
			}
			if inB {
				sd.B = &y
			}
			d.Settings = append(d.Settings, sd)
		}
		sa, sb := observerServer(oa), observerServer(ob)
		if !(sa == nil && sb == nil) && (sa == nil || sb == nil || *sa != *sb) {
			d.ServerA, d.ServerB = sa, sb
		}
		out = append(out, d)
	}
	return out
}

func settingValues(o *jobs.Observation) map[string]string {
	m := map[string]string{}
	if o != nil {
		for _, s := range o.Start.Settings {
			m[s.Name] = s.Value
		}
	}
	return m
}

func observerServer(o *jobs.Observation) *string {
	if o == nil || o.Start.Server == "" {
		return nil
	}
	s := o.Start.Server
	return &s
}

// notObservedWhy says why job d has no observations to compare.
func notObservedWhy(d DiffSide) string {
	j := d.Job
	switch {
	case j.Kind != jobs.KindRun:
		return fmt.Sprintf("a %s job is not observed", j.Kind)
	case j.Status == metrics.StatusRunning:
		return "it is still running"
	case d.Config["metrics"] == "off":
		return "metrics were off"
	}
	return "metrics were off, or the job was recorded before Sledge observed servers"
}

// settingsUnavailable is the line for each job without observations
// ("settings: not observed for job N (REASON)" without its "settings: ").
func settingsUnavailable(a, b DiffSide) []string {
	var out []string
	for _, d := range []DiffSide{a, b} {
		if len(d.Obs) == 0 {
			out = append(out, fmt.Sprintf("not observed for job %d (%s)", d.Job.ID, notObservedWhy(d)))
		}
	}
	return out
}

// diffNotes warn that the jobs do not compare like for like: kindNotes,
// then that their servers' versions differ.
func diffNotes(a, b DiffSide) []string {
	notes := kindNotes(a, b)
	// Only when both are known: a job that never reached its server (a
	// failed connection) has none, and says so itself.
	if va, vb := a.Job.DBVersion, b.Job.DBVersion; va != "" && vb != "" && va != vb {
		notes = append(notes, fmt.Sprintf("different servers (job %d on %s, job %d on %s): a difference may be the server's",
			a.Job.ID, va, b.Job.ID, vb))
	}
	return notes
}

// kindNotes warn that the jobs are of different kinds or workloads.
func kindNotes(a, b DiffSide) []string {
	var notes []string
	if a.Job.Kind != b.Job.Kind {
		notes = append(notes, fmt.Sprintf("job %d is a %s and job %d a %s", a.Job.ID, a.Job.Kind, b.Job.ID, b.Job.Kind))
	}
	if a.Job.Workload != b.Job.Workload {
		notes = append(notes, fmt.Sprintf("different workloads (job %d %s, job %d %s): their figures do not compare",
			a.Job.ID, workload.Title(a.Job.Workload), b.Job.ID, workload.Title(b.Job.Workload)))
	}
	return notes
}

// notCompared are job settings that tell jobs apart but do not explain a
// difference: a series' or profile's identifiers, and the NURand constants
// a run draws for itself (the specification asks for them to vary).
var notCompared = map[string]bool{"series": true, "trial": true, "profile": true, "profile_vu": true,
	"c_id": true, "c_ol_i_id": true, "c_run_last": true}

// machineKeys are the facts about the client machine compared: a job on
// another machine, or with another Sledge, may differ for that alone.
var machineKeys = []string{"host", "cpus", "cpu_model", "memory", "os", "os_name", "sledge_version", "go_version"}

// clientPrefix names a fact about the client machine among the job
// settings that differ.
const clientPrefix = "client "

// JobSettingDiff is one setting of the two jobs that differs (a run's or a
// build's, or a fact about the client machine); "" where a job has none.
type JobSettingDiff struct {
	Name string `json:"name"`
	A    string `json:"a"`
	B    string `json:"b"`
}

// DiffJobSettings lists the jobs' settings (sledge jobs show ID config)
// that differ, by name, then the client machines' facts that do (prefixed
// "client "): what explains a difference, before the numbers. The second
// result is how many settings were compared.
func DiffJobSettings(a, b DiffSide) ([]JobSettingDiff, int) {
	var out []JobSettingDiff
	keys := map[string]bool{}
	for k := range a.Config {
		keys[k] = true
	}
	for k := range b.Config {
		keys[k] = true
	}
	compared := 0
	for _, k := range slices.Sorted(maps.Keys(keys)) {
		if notCompared[k] {
			continue
		}
		compared++
		if a.Config[k] != b.Config[k] {
			out = append(out, JobSettingDiff{Name: k, A: a.Config[k], B: b.Config[k]})
		}
	}
	if a.System != nil && b.System != nil {
		for _, k := range machineKeys {
			if a.System[k] == "" && b.System[k] == "" {
				continue
			}
			compared++
			if a.System[k] != b.System[k] {
				out = append(out, JobSettingDiff{Name: clientPrefix + k, A: a.System[k], B: b.System[k]})
			}
		}
	}
	return out, compared
}

// diffWaits pairs the observers both jobs summarized that sampled sessions,
// by name, for the waits side by side.
func diffWaits(a, b DiffSide) [][2]ObserverSummary {
	sa, sb := Summarize(a.Obs, a.Intervals), Summarize(b.Obs, b.Intervals)
	if sa == nil || sb == nil {
		return nil
	}
	var out [][2]ObserverSummary
	for _, x := range sa.Observers {
		for _, y := range sb.Observers {
			if x.Name == y.Name && !(math.IsNaN(x.AAS) && math.IsNaN(y.AAS)) {
				out = append(out, [2]ObserverSummary{x, y})
				break
			}
		}
	}
	return out
}

// waitList is an observer's CPU then its top waits, as a diff lists them;
// nothing when it sampled no sessions.
func waitList(s ObserverSummary) []WaitShare {
	if math.IsNaN(s.AAS) {
		return nil
	}
	return append([]WaitShare{s.CPU}, s.Waits...)
}

func jobLabel(d DiffSide) string { return fmt.Sprintf("job %d", d.Job.ID) }

func dbText(j jobs.Job) string {
	switch {
	case j.DBVersion != "":
		return j.DBVersion
	case j.DBKind != "":
		return j.DBKind
	}
	return absent
}

func orAbsent(s *string) string {
	if s == nil {
		return absent
	}
	return *s
}

// DiffText writes `sledge jobs diff A B`: the headline figures side by
// side with b's change against a, the server settings that differ, and
// the top waits when both jobs were observed.
func DiffText(w io.Writer, a, b DiffSide) error {
	var sb strings.Builder
	la, lb := "A: "+jobLabel(a), "B: "+jobLabel(b)
	fmt.Fprintf(&sb, "Job %d (A) vs job %d (B); change is B against A\n", a.Job.ID, b.Job.ID)
	for _, n := range diffNotes(a, b) {
		fmt.Fprintf(&sb, "note: %s\n", n)
	}
	// What may explain a difference comes first, then the difference.
	if diffs, n := DiffJobSettings(a, b); len(diffs) == 0 {
		fmt.Fprintf(&sb, "Job settings: the same (%d compared)\n", n)
	} else {
		fmt.Fprintf(&sb, "Job settings that differ (%d of %d)\n", len(diffs), n)
		tw := newTable(&sb, 0)
		fmt.Fprintf(tw, "  setting\t%s\t%s\n", la, lb)
		for _, d := range diffs {
			fmt.Fprintf(tw, "  %s\t%s\t%s\n", d.Name, orDash(d.A), orDash(d.B))
		}
		tw.Flush()
	}
	fmt.Fprintln(&sb)
	tw := newTable(&sb, 0)
	fmt.Fprintf(tw, "  \t%s\t%s\tchange\n", la, lb)
	for _, r := range [][3]string{
		{"status", a.Job.Status, b.Job.Status},
		{"workload", workload.Title(a.Job.Workload), workload.Title(b.Job.Workload)},
		{"database", dbText(a.Job), dbText(b.Job)},
	} {
		fmt.Fprintf(tw, "  %s\t%s\t%s\t\n", r[0], orDash(r[1]), orDash(r[2]))
	}
	for _, r := range DiffResults(a, b) {
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\n", r.Name, r.text(r.A), r.text(r.B), changeText(r.Change()))
	}
	tw.Flush() // cannot fail: it writes to a strings.Builder
	if v := NOPMVerdict(a, b); v != nil {
		fmt.Fprintf(&sb, "verdict: %s\n", v.Text())
	}

	fmt.Fprintln(&sb, "\nServer settings that differ")
	if missing := settingsUnavailable(a, b); len(missing) > 0 {
		for _, m := range missing {
			fmt.Fprintf(&sb, "  settings: %s\n", m)
		}
	} else {
		for _, od := range DiffSettings(a.Obs, b.Obs) {
			if len(od.Settings) == 0 && od.ServerA == nil && od.ServerB == nil {
				fmt.Fprintf(&sb, "  %s: none differ\n", od.Name)
				continue
			}
			fmt.Fprintf(&sb, "  %s\n", od.Name)
			tw := newTable(&sb, 0)
			fmt.Fprintf(tw, "    setting\t%s\t%s\n", la, lb)
			for _, s := range od.Settings {
				fmt.Fprintf(tw, "    %s\t%s\t%s\n", s.Name, orAbsent(s.A), orAbsent(s.B))
			}
			if od.ServerA != nil || od.ServerB != nil {
				fmt.Fprintf(tw, "    server version\t%s\t%s\n", orAbsent(od.ServerA), orAbsent(od.ServerB))
			}
			tw.Flush()
		}
	}

	for _, pair := range diffWaits(a, b) {
		fmt.Fprintf(&sb, "\nTop waits over the measured window: %s\n", pair[0].Name)
		wa, wb := waitList(pair[0]), waitList(pair[1])
		tw := newTable(&sb, 0)
		fmt.Fprintf(tw, "    \t%s\t%s\n", la, lb)
		for i := range max(len(wa), len(wb)) {
			fmt.Fprintf(tw, "    %d\t%s\t%s\n", i+1, waitText(wa, i), waitText(wb, i))
		}
		tw.Flush()
	}
	// The rows without a change end in the change column's padding.
	lines := strings.Split(sb.String(), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	return writeLines(w, strings.Join(lines, "\n"))
}

func orDash(s string) string {
	if s == "" {
		return absent
	}
	return s
}

func waitText(ws []WaitShare, i int) string {
	if i >= len(ws) {
		return absent
	}
	wt := ws[i]
	return fmt.Sprintf("%s %.2f AAS (%.0f%%)", wt.Label(), wt.AAS, 100*wt.Share)
}

// DiffJSON is `sledge jobs diff A B --format json`.
type DiffJSON struct {
	A     JobJSON  `json:"a"`
	B     JobJSON  `json:"b"`
	Notes []string `json:"notes"`
	// JobSettings are the jobs' own settings that differ (a run's or a
	// build's, and the client machine's facts, "client …"), first: what
	// may explain the results' difference; JobSettingsCompared how many
	// were compared.
	JobSettings         []JobSettingDiff `json:"job_settings"`
	JobSettingsCompared int              `json:"job_settings_compared"`
	Results             []DiffResultJSON `json:"results"`
	// Settings are the settings that differ; SettingsUnavailable says
	// which job was not observed and why (null when both were).
	Settings            []DiffSettingJSON `json:"settings"`
	SettingsUnavailable []string          `json:"settings_unavailable"`
	Servers             []DiffServerJSON  `json:"servers"`
	Waits               []DiffWaitsJSON   `json:"waits"`
	// NOPMVerdict says whether the NOPM difference is beyond the noise of
	// the runs' measured intervals; null when they cannot be judged.
	NOPMVerdict *VerdictJSON `json:"nopm_verdict"`
}

// DiffResultJSON is one headline figure of both jobs; null where a job
// does not have it, change_pct null when there is no change to compute.
type DiffResultJSON struct {
	Name      string `json:"name"`
	Unit      string `json:"unit"`
	A         Float  `json:"a"`
	B         Float  `json:"b"`
	ChangePct Float  `json:"change_pct"`
}

// DiffSettingJSON is one setting that differs; a or b is null when that
// job's observer did not report it.
type DiffSettingJSON struct {
	Observer string  `json:"observer"`
	Name     string  `json:"name"`
	A        *string `json:"a"`
	B        *string `json:"b"`
}

// DiffServerJSON is an observer whose server version differs.
type DiffServerJSON struct {
	Observer string  `json:"observer"`
	A        *string `json:"a"`
	B        *string `json:"b"`
}

// DiffWaitsJSON is one observer's CPU and top waits in each job.
type DiffWaitsJSON struct {
	Observer string     `json:"observer"`
	A        []WaitJSON `json:"a"`
	B        []WaitJSON `json:"b"`
}

// ToDiff is the JSON shape of a diff.
func ToDiff(a, b DiffSide) DiffJSON {
	js, n := DiffJobSettings(a, b)
	out := DiffJSON{A: ToJob(a.Job), B: ToJob(b.Job), Notes: append([]string{}, diffNotes(a, b)...),
		JobSettings: append([]JobSettingDiff{}, js...), JobSettingsCompared: n,
		Results: []DiffResultJSON{}, Settings: []DiffSettingJSON{}, Servers: []DiffServerJSON{}, Waits: []DiffWaitsJSON{}}
	for _, r := range DiffResults(a, b) {
		out.Results = append(out.Results, DiffResultJSON{Name: r.Name, Unit: r.Unit, A: Float(r.A), B: Float(r.B), ChangePct: Float(r.Change())})
	}
	if missing := settingsUnavailable(a, b); len(missing) > 0 {
		out.SettingsUnavailable = missing
	} else {
		for _, od := range DiffSettings(a.Obs, b.Obs) {
			for _, s := range od.Settings {
				out.Settings = append(out.Settings, DiffSettingJSON(s))
			}
			if od.ServerA != nil || od.ServerB != nil {
				out.Servers = append(out.Servers, DiffServerJSON{Observer: od.Name, A: od.ServerA, B: od.ServerB})
			}
		}
	}
	for _, pair := range diffWaits(a, b) {
		wj := DiffWaitsJSON{Observer: pair[0].Name, A: waitsJSON(waitList(pair[0])), B: waitsJSON(waitList(pair[1]))}
		out.Waits = append(out.Waits, wj)
	}
	out.NOPMVerdict = toVerdictJSON(NOPMVerdict(a, b))
	return out
}

func waitsJSON(ws []WaitShare) []WaitJSON {
	out := []WaitJSON{}
	for _, w := range ws {
		share := Float(w.Share)
		out = append(out, WaitJSON{Class: w.Class, Event: w.Event, AAS: Float(w.AAS), Share: &share})
	}
	return out
}
