package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/sledge-bench/sledge/internal/jobs"
	"github.com/sledge-bench/sledge/internal/metrics"
	"github.com/sledge-bench/sledge/internal/observe"
)

func obsWith(name, server string, kv ...string) jobs.Observation {
	o := jobs.Observation{Name: name, Start: observe.Start{Server: server}}
	for i := 0; i+1 < len(kv); i += 2 {
		o.Start.Settings = append(o.Start.Settings, observe.Setting{Name: kv[i], Value: kv[i+1]})
	}
	return o
}

// settingsText flattens a settings diff for comparison: observer/name=a|b,
// with "-" for a side that lacks the setting, and server=a|b.
func settingsText(ds []ObserverDiff) string {
	v := func(p *string) string {
		if p == nil {
			return "-"
		}
		return *p
	}
	var parts []string
	for _, d := range ds {
		for _, s := range d.Settings {
			parts = append(parts, fmt.Sprintf("%s/%s=%s|%s", d.Name, s.Name, v(s.A), v(s.B)))
		}
		if d.ServerA != nil || d.ServerB != nil {
			parts = append(parts, fmt.Sprintf("%s/server=%s|%s", d.Name, v(d.ServerA), v(d.ServerB)))
		}
	}
	return strings.Join(parts, " ")
}

func TestDiffSettings(t *testing.T) {
	t.Parallel()
	const pg, host = "PostgreSQL sessions and statistics", "client host"
	tests := []struct {
		name string
		a, b []jobs.Observation
		want string
	}{
		{"same", []jobs.Observation{obsWith(pg, "PostgreSQL 17", "work_mem", "4MB")},
			[]jobs.Observation{obsWith(pg, "PostgreSQL 17", "work_mem", "4MB")}, ""},
		{"value differs", []jobs.Observation{obsWith(pg, "PostgreSQL 17", "work_mem", "4MB", "fsync", "on")},
			[]jobs.Observation{obsWith(pg, "PostgreSQL 17", "work_mem", "64MB", "fsync", "on")},
			pg + "/work_mem=4MB|64MB"},
		{"union, a's order then b's additions", []jobs.Observation{obsWith(pg, "PostgreSQL 17", "b_only_in_a", "1", "shared", "x")},
			[]jobs.Observation{obsWith(pg, "PostgreSQL 17", "z_only_in_b", "2", "shared", "x", "a_only_in_b", "3")},
			pg + "/b_only_in_a=1|- " + pg + "/z_only_in_b=-|2 " + pg + "/a_only_in_b=-|3"},
		{"server version", []jobs.Observation{obsWith(pg, "PostgreSQL 16.4")}, []jobs.Observation{obsWith(pg, "PostgreSQL 17.2")},
			pg + "/server=PostgreSQL 16.4|PostgreSQL 17.2"},
		{"observers matched by name", []jobs.Observation{obsWith(pg, "PostgreSQL 17", "work_mem", "4MB"), obsWith(host, "h", "cpus", "8")},
			[]jobs.Observation{obsWith(host, "h", "cpus", "16"), obsWith(pg, "PostgreSQL 17", "work_mem", "4MB")},
			host + "/cpus=8|16"},
		{"observer in one job only", []jobs.Observation{obsWith(pg, "PostgreSQL 17", "work_mem", "4MB")},
			[]jobs.Observation{obsWith(pg, "PostgreSQL 17", "work_mem", "4MB"), obsWith(host, "h", "cpus", "8")},
			host + "/cpus=-|8 " + host + "/server=-|h"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := settingsText(DiffSettings(tt.a, tt.b)); got != tt.want {
				t.Errorf("got  %q\nwant %q", got, tt.want)
			}
		})
	}
}

func runSide(id int64, r *metrics.RunResult) DiffSide {
	return DiffSide{Job: jobs.Job{ID: id, Kind: jobs.KindRun, Workload: "tprocc", Status: metrics.StatusCompleted}, Run: r}
}

func TestDiffResults(t *testing.T) {
	t.Parallel()
	full := &metrics.RunResult{VUs: 8, Warehouses: 4, NOPM: 1000, TPM: 2300, Commits: 100, ClientCPUPerTxUS: 40, Errors: 0,
		Tx: []metrics.TxSummary{{Name: "new_order", Count: 50, P95: 4 * time.Millisecond}}}
	better := &metrics.RunResult{VUs: 8, Warehouses: 4, NOPM: 1500, TPM: 2300, Commits: 100, ClientCPUPerTxUS: 30, Errors: 3,
		Tx: []metrics.TxSummary{{Name: "new_order", Count: 50, P95: 3 * time.Millisecond}}}
	noCommits := &metrics.RunResult{VUs: 8, Warehouses: 4, Tx: []metrics.TxSummary{{Name: "new_order"}}}
	analytic := DiffSide{Job: jobs.Job{ID: 3, Kind: jobs.KindRun, Workload: "tproch"},
		Analytic: &metrics.AnalyticResult{SF: 1, GeomeanS: 2, Power: 100, Streams: 0}}
	tests := []struct {
		name string
		a, b DiffSide
		want string // name a b change, per row
	}{
		{"changes", runSide(1, full), runSide(2, better),
			"VUs 8 8 0.0%; warehouses 4 4 0.0%; NOPM 1,000 1,500 +50.0%; TPM 2,300 2,300 0.0%; " +
				"New-Order p95 4.00 ms 3.00 ms -25.0%; client CPU/tx 40 µs 30 µs -25.0%; errors 0 3 —"},
		{"absent, never zero", runSide(1, full), runSide(2, noCommits),
			"VUs 8 8 0.0%; warehouses 4 4 0.0%; NOPM 1,000 0 -100.0%; TPM 2,300 0 -100.0%; " +
				"New-Order p95 4.00 ms — —; client CPU/tx 40 µs — —; errors 0 0 —"},
		{"no result", runSide(1, full), runSide(2, nil),
			"VUs 8 — —; warehouses 4 — —; NOPM 1,000 — —; TPM 2,300 — —; " +
				"New-Order p95 4.00 ms — —; client CPU/tx 40 µs — —; errors 0 — —"},
		{"different workloads", runSide(1, nil), analytic,
			"scale factor — 1 —; geomean — 2.000 s —; power — 100.0 queries per hour × SF —"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var rows []string
			for _, r := range DiffResults(tt.a, tt.b) {
				rows = append(rows, strings.Join([]string{r.Name, r.text(r.A), r.text(r.B), changeText(r.Change())}, " "))
			}
			if got := strings.Join(rows, "; "); got != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
}

func TestDiffChange(t *testing.T) {
	t.Parallel()
	nan := math.NaN()
	tests := []struct {
		a, b float64
		want string
	}{
		{100, 110, "+10.0%"}, {100, 90, "-10.0%"}, {100, 100, "0.0%"}, {0, 5, "—"},
		{nan, 5, "—"}, {5, nan, "—"}, {-10, -5, "+50.0%"}, {3, 4, "+33.3%"},
	}
	for _, tt := range tests {
		if got := changeText((DiffRow{A: tt.a, B: tt.b}).Change()); got != tt.want {
			t.Errorf("change %v → %v = %s, want %s", tt.a, tt.b, got, tt.want)
		}
	}
}

func TestDiffTextNotes(t *testing.T) {
	t.Parallel()
	const pg = "PostgreSQL sessions and statistics"
	a := runSide(1, &metrics.RunResult{VUs: 8, NOPM: 10})
	a.Obs = []jobs.Observation{obsWith(pg, "PostgreSQL 17", "work_mem", "4MB")}
	b := DiffSide{Job: jobs.Job{ID: 2, Kind: jobs.KindRun, Workload: "tproch", Status: metrics.StatusCompleted},
		Config: map[string]string{"metrics": "off"}}
	build := DiffSide{Job: jobs.Job{ID: 3, Kind: jobs.KindBuild, Workload: "tprocc", Status: metrics.StatusCompleted}}
	same := runSide(4, nil)
	same.Obs = []jobs.Observation{obsWith(pg, "PostgreSQL 17", "work_mem", "4MB")}
	on := func(d DiffSide, version string) DiffSide { d.Job.DBVersion = version; return d }
	tests := []struct {
		name      string
		a, b      DiffSide
		want, not []string
	}{
		{"not observed, different workloads", a, b,
			[]string{"note: different workloads (job 1 ", "settings: not observed for job 2 (metrics were off)"},
			[]string{"work_mem", "Top waits"}},
		{"a build", a, build,
			[]string{"note: job 1 is a run and job 3 a build", "settings: not observed for job 3 (a build job is not observed)"},
			[]string{"different workloads"}},
		{"nothing differs", a, same,
			[]string{pg + ": none differ", "VUs 8 — —"},
			[]string{"note:", "not observed"}},
		{"different server versions", on(a, "PostgreSQL 16.15"), on(same, "PostgreSQL 17.11"),
			[]string{"note: different servers (job 1 on PostgreSQL 16.15, job 4 on PostgreSQL 17.11): a difference may be the server's"},
			nil},
		{"the same server version", on(a, "PostgreSQL 17.11"), on(same, "PostgreSQL 17.11"),
			nil, []string{"note:"}},
		{"a job whose server is unknown", on(a, "PostgreSQL 17.11"), same,
			nil, []string{"note:"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := DiffText(&buf, tt.a, tt.b); err != nil {
				t.Fatal(err)
			}
			out := buf.String()
			flat := strings.Join(strings.Fields(out), " ") // the columns' widths do not matter here
			for _, w := range tt.want {
				if !strings.Contains(flat, w) {
					t.Errorf("lacks %q:\n%s", w, out)
				}
			}
			for _, n := range tt.not {
				if strings.Contains(flat, n) {
					t.Errorf("has %q:\n%s", n, out)
				}
			}
			for l := range strings.SplitSeq(out, "\n") {
				if strings.HasSuffix(l, " ") {
					t.Errorf("trailing blanks: %q", l)
				}
			}
		})
	}
}

func TestDiffJSONShape(t *testing.T) {
	t.Parallel()
	const pg = "PostgreSQL sessions and statistics"
	a := runSide(1, &metrics.RunResult{VUs: 8, NOPM: 10})
	a.Obs = []jobs.Observation{obsWith(pg, "PostgreSQL 16", "work_mem", "4MB")}
	b := runSide(2, nil)
	b.Obs = []jobs.Observation{obsWith(pg, "PostgreSQL 17", "fsync", "off")}
	var buf bytes.Buffer
	if err := WriteJSON(&buf, ToDiff(a, b)); err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(buf.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"a", "b", "notes", "results", "settings", "settings_unavailable", "servers", "waits"} {
		if _, ok := got[k]; !ok {
			t.Errorf("no key %q in %s", k, buf.String())
		}
	}
	if id := got["b"].(map[string]any)["id"]; id != 2.0 {
		t.Errorf("b.id = %v", id)
	}
	results := got["results"].([]any)
	nopm := results[1].(map[string]any) // VUs, warehouses, NOPM …
	if nopm["name"] != "warehouses" {
		t.Fatalf("results[1] = %v", nopm)
	}
	for _, r := range results {
		m := r.(map[string]any)
		if m["name"] == "NOPM" && (m["a"] != 10.0 || m["b"] != nil || m["change_pct"] != nil) {
			t.Errorf("NOPM = %v, want a 10, b and change_pct null", m)
		}
	}
	want := `[{"a":"4MB","b":null,"name":"work_mem","observer":"` + pg + `"},{"a":null,"b":"off","name":"fsync","observer":"` + pg + `"}]`
	if s, _ := json.Marshal(got["settings"]); string(s) != want {
		t.Errorf("settings = %s\nwant %s", s, want)
	}
	if got["settings_unavailable"] != nil {
		t.Errorf("settings_unavailable = %v, want null", got["settings_unavailable"])
	}

	b.Obs = nil
	buf.Reset()
	if err := WriteJSON(&buf, ToDiff(a, b)); err != nil {
		t.Fatal(err)
	}
	var missing struct {
		Settings            []any    `json:"settings"`
		SettingsUnavailable []string `json:"settings_unavailable"`
	}
	if err := json.Unmarshal(buf.Bytes(), &missing); err != nil {
		t.Fatal(err)
	}
	if missing.Settings == nil || len(missing.Settings) != 0 || len(missing.SettingsUnavailable) != 1 ||
		!strings.HasPrefix(missing.SettingsUnavailable[0], "not observed for job 2 (") {
		t.Errorf("not observed: %s", buf.String())
	}
}

// TestDiffJobSettings: the jobs' own settings that differ come first,
// before the figures (job 4 --mode procs vs job 5 --mode sql printed
// "NOPM −89.0 %" and then "none differ"), the machine's facts after them,
// identifiers and the NURand constants never.
func TestDiffJobSettings(t *testing.T) {
	t.Parallel()
	a := runSide(4, &metrics.RunResult{VUs: 8, NOPM: 1000})
	b := runSide(5, &metrics.RunResult{VUs: 8, NOPM: 110})
	a.Config = map[string]string{"mode": "procs", "vu": "8", "rampup": "10s", "pacing": "off", "series": "4", "c_id": "17", "seed": "1"}
	b.Config = map[string]string{"mode": "sql", "vu": "8", "rampup": "30s", "pacing": "off", "series": "5", "c_id": "99", "seed": "1", "stages": "1m:8"}
	a.System = map[string]string{"host": "db1", "cpus": "2", "sledge_version": "1.2"}
	b.System = map[string]string{"host": "db2", "cpus": "2", "sledge_version": "1.2"}
	diffs, n := DiffJobSettings(a, b)
	got := fmt.Sprint(diffs)
	if want := "[{mode procs sql} {rampup 10s 30s} {stages  1m:8} {client host db1 db2}]"; got != want || n != 6+3 {
		t.Errorf("DiffJobSettings = %s (%d compared), want %s (9)", got, n, want)
	}
	var buf bytes.Buffer
	if err := DiffText(&buf, a, b); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	settings, figures := strings.Index(out, "Job settings that differ (4 of 9)"), strings.Index(out, "NOPM")
	if settings < 0 || figures < 0 || settings > figures || !regexp.MustCompile(`(?m)^  mode +procs +sql$`).MatchString(out) ||
		!regexp.MustCompile(`(?m)^  stages +— +1m:8$`).MatchString(out) {
		t.Errorf("the settings that differ do not lead:\n%s", out)
	}
	b.Config, b.System = a.Config, a.System
	buf.Reset()
	if err := DiffText(&buf, a, b); err != nil || !strings.Contains(buf.String(), "Job settings: the same (8 compared)") {
		t.Errorf("the same settings:\n%s", buf.String())
	}
	js := ToDiff(a, runSide(5, nil))
	if js.JobSettings == nil || js.JobSettingsCompared != 5 {
		t.Errorf("JSON: job_settings %v, compared %d", js.JobSettings, js.JobSettingsCompared)
	}
}

// TestJobsCompareLeadsWithCause: GET /api/compare (ToJobsCompare) carries
// what jobs diff prints first — the job settings that differ, whether the
// server versions and the client machine differ — so that the web compare
// page shows them before the numbers (issue 28: mode procs against sql
// read "NOPM −89 %" with nothing to say why).
func TestJobsCompareLeadsWithCause(t *testing.T) {
	t.Parallel()
	side := func(id int64, version, mode, host string, obs ...jobs.Observation) DiffSide {
		d := runSide(id, &metrics.RunResult{VUs: 8, NOPM: 1000})
		d.Job.DBVersion = version
		d.Config = map[string]string{"mode": mode, "vu": "8", "series": fmt.Sprint(id)}
		d.System = map[string]string{"host": host, "cpus": "2"}
		d.Obs = obs
		return d
	}
	pg := "postgres"
	build := side(2, "PostgreSQL 17.2", "procs", "h1")
	build.Job.Kind = jobs.KindBuild
	tests := []struct {
		name     string
		a, b     DiffSide
		settings string // name=a|b, …
		servers  string
		machine  bool
		notes    int
	}{
		{"the same", side(1, "PostgreSQL 17.2", "procs", "h1"), side(2, "PostgreSQL 17.2", "procs", "h1"), "", "", false, 0},
		{"mode and machine", side(1, "PostgreSQL 17.2", "procs", "h1"), side(2, "PostgreSQL 17.2", "sql", "h2"),
			"mode=procs|sql client host=h1|h2", "", true, 0},
		{"server version", side(1, "PostgreSQL 16.4", "procs", "h1", obsWith(pg, "PostgreSQL 16.4")),
			side(2, "PostgreSQL 17.2", "procs", "h1", obsWith(pg, "PostgreSQL 17.2")), "", "database=PostgreSQL 16.4|PostgreSQL 17.2", false, 0},
		{"a version unknown", side(1, "", "procs", "h1"), side(2, "PostgreSQL 17.2", "procs", "h1"), "", "", false, 0},
		{"the database host's kernel", side(1, "PostgreSQL 17.2", "procs", "h1", obsWith("host", "db (Linux 6.1)")),
			side(2, "PostgreSQL 17.2", "procs", "h1", obsWith("host", "db (Linux 6.12)")), "", "host=db (Linux 6.1)|db (Linux 6.12)", false, 0},
		{"a build", side(1, "PostgreSQL 17.2", "procs", "h1"), build, "", "", false, 1},
	}
	text := func(ds []JobSettingDiff) string {
		var parts []string
		for _, d := range ds {
			parts = append(parts, fmt.Sprintf("%s=%s|%s", d.Name, d.A, d.B))
		}
		return strings.Join(parts, " ")
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := ToJobsCompare(tt.a, tt.b)
			if got := text(c.SettingsDiffer); got != tt.settings || c.SettingsCompared != 2+2 {
				t.Errorf("settings_differ %q (%d compared), want %q (4)", got, c.SettingsCompared, tt.settings)
			}
			if got := text(c.ServersDiffer); got != tt.servers {
				t.Errorf("servers_differ %q, want %q", got, tt.servers)
			}
			if c.MachineDiffers != tt.machine || len(c.Notes) != tt.notes {
				t.Errorf("machine_differs %v, notes %q; want %v, %d notes", c.MachineDiffers, c.Notes, tt.machine, tt.notes)
			}
			// Empty lists, never null: the page iterates them.
			b, _ := json.Marshal(c)
			if regexp.MustCompile(`"(settings_differ|servers_differ|notes)":null`).Match(b) {
				t.Errorf("a list is null: %s", b)
			}
		})
	}
}
