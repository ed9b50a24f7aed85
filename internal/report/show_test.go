package report

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sledge-bench/sledge/internal/jobs"
	"github.com/sledge-bench/sledge/internal/metrics"
	"github.com/sledge-bench/sledge/internal/threshold"
	"github.com/sledge-bench/sledge/internal/workload"
	"github.com/sledge-bench/sledge/internal/workload/tproch"
)

// fakeOLTP is a registered workload, so that Show's titles come from the
// registry without linking a real OLTP workload into the tests.
type fakeOLTP struct{}

func (fakeOLTP) Name() string              { return "fakeoltp" }
func (fakeOLTP) Title() string             { return "FAKE-C" }
func (fakeOLTP) Aliases() []string         { return nil }
func (fakeOLTP) DefaultDB(_ string) string { return "" }

func init() { workload.Register(fakeOLTP{}) }

// fakeStore holds one job's data; err, when set, fails every read.
type fakeStore struct {
	run      *metrics.RunResult
	analytic *metrics.AnalyticResult
	ivs      []metrics.Interval
	config   map[string]string
	system   map[string]string
	output   []jobs.OutputLine
	build    *jobs.BuildResult
	check    []jobs.CheckItem
	obs      []jobs.Observation
	// thresholds are the run's verdicts.
	thresholds []threshold.Verdict
	err        error
}

func (s *fakeStore) RunResult(context.Context, int64) (*metrics.RunResult, error) {
	return s.run, s.err
}
func (s *fakeStore) AnalyticResult(context.Context, int64) (*metrics.AnalyticResult, error) {
	return s.analytic, s.err
}
func (s *fakeStore) Intervals(context.Context, int64) ([]metrics.Interval, error) {
	return s.ivs, s.err
}
func (s *fakeStore) Config(context.Context, int64) (map[string]string, error) { return s.config, s.err }
func (s *fakeStore) System(context.Context, int64) (map[string]string, error) { return s.system, s.err }
func (s *fakeStore) Output(context.Context, int64) ([]jobs.OutputLine, error) { return s.output, s.err }
func (s *fakeStore) Build(context.Context, int64) (*jobs.BuildResult, error)  { return s.build, s.err }
func (s *fakeStore) Check(context.Context, int64) ([]jobs.CheckItem, error)   { return s.check, s.err }
func (s *fakeStore) Observations(context.Context, int64) ([]jobs.Observation, error) {
	return s.obs, s.err
}

func (s *fakeStore) Agents(context.Context, int64) ([]jobs.Agent, error) { return nil, s.err }
func (s *fakeStore) Thresholds(context.Context, int64) ([]threshold.Verdict, error) {
	return s.thresholds, s.err
}
func (s *fakeStore) JobsWithSetting(context.Context, string, string) ([]int64, error) {
	return nil, s.err
}

// runStore is a finished OLTP run's data.
func runStore() *fakeStore {
	return &fakeStore{
		run: runResult(),
		ivs: []metrics.Interval{{Seq: 1, Phase: metrics.PhaseMeasure, Elapsed: 10 * time.Second, TPM: 100, NOPM: 45,
			Tx: []metrics.IntervalTx{{Name: "new_order", Count: 7}}}},
		config: map[string]string{"vu": "8", "db": "postgres://db/tpcc"},
		system: map[string]string{"cpus": "8"},
		output: []jobs.OutputLine{{Seq: 1, At: time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC), Line: "run job 7 started"},
			{Seq: 2, Line: "done"}},
	}
}

func oltpJob() jobs.Job {
	j := finishedJob()
	j.Workload = "fakeoltp"
	return j
}

func analyticJob() jobs.Job {
	j := finishedJob()
	j.Workload, j.Target, j.Headline = tproch.Name, "duckdb:/tmp/h.duckdb", nil
	return j
}

func TestSections(t *testing.T) {
	t.Parallel()
	var names []string
	for _, s := range Sections {
		if s.Name == "" || s.Help == "" {
			t.Errorf("section %+v lacks a name or help", s)
		}
		names = append(names, s.Name)
	}
	if got, want := strings.Join(names, " "), "result timing tcount config status output system build check metrics settings agents"; got != want {
		t.Errorf("sections = %s, want %s", got, want)
	}
	if got := SectionNames(); !slices.Equal(got, names) {
		t.Errorf("SectionNames() = %q, want %q", got, names)
	}
	help := strings.Split(strings.TrimSuffix(SectionsHelp(), "\n"), "\n")
	if len(help) != len(Sections) {
		t.Fatalf("SectionsHelp has %d lines, want one per section (%d)", len(help), len(Sections))
	}
	for i, s := range Sections {
		if want := fmt.Sprintf("  %-8s %s", s.Name, s.Help); help[i] != want {
			t.Errorf("SectionsHelp line %d = %q, want %q", i, help[i], want)
		}
	}
}

func TestShow(t *testing.T) {
	t.Parallel()
	buildJob := finishedJob()
	buildJob.Kind, buildJob.Headline = jobs.KindBuild, nil
	checkJob := finishedJob()
	checkJob.Kind, checkJob.Headline = jobs.KindCheck, nil

	cases := []struct {
		name    string
		store   *fakeStore
		j       jobs.Job
		section string
		asJSON  bool
		want    []string // in the squeezed output
		notWant []string
	}{
		{name: "summary of a run", store: runStore(), j: oltpJob(),
			want:    []string{"job 7\n", "kind run fakeoltp\n", "\n\nFAKE-C result (job 7): completed\n", " new_order 1000"},
			notWant: []string{"TPROC-H", "build:", "conditions"}},
		{name: "summary of a run as JSON", store: runStore(), j: oltpJob(), asJSON: true,
			want:    []string{`"job": {`, `"result": {`, `"build": null`, `"check": null`},
			notWant: []string{`"analytic"`}},
		{name: "summary of an analytic run", store: &fakeStore{analytic: analyticResult()}, j: analyticJob(),
			want: []string{"kind run tproch\n", "\n\nTPROC-H result (job 7): completed", " database duckdb:/tmp/h.duckdb\n"}},
		{name: "summary of an analytic run as JSON", store: &fakeStore{analytic: analyticResult()}, j: analyticJob(), asJSON: true,
			want: []string{`"analytic": {`, `"result": null`}},
		{name: "summary of a build", store: &fakeStore{build: &jobs.BuildResult{Warehouses: 1, Rows: 5, Tables: map[string]int64{"a": 5}}},
			j: buildJob, want: []string{"kind build tprocc\n", "\n\nbuild: 1 warehouses"}},
		{name: "summary of a check", store: &fakeStore{check: []jobs.CheckItem{{Name: "1", Passed: true}}}, j: checkJob,
			asJSON: true, want: []string{`"check": [`, `"result": null`, `"build": null`}},
		{name: "status", store: &fakeStore{}, j: oltpJob(), section: "status", want: []string{"status completed\n"},
			notWant: []string{"result"}},
		{name: "status as JSON", store: &fakeStore{}, j: oltpJob(), section: "status", asJSON: true,
			want: []string{`"id": 7,`, `"workload": "fakeoltp"`}},
		{name: "result", store: runStore(), j: oltpJob(), section: "result",
			want: []string{"FAKE-C result (job 7): completed\n", "committed 20,000"}, notWant: []string{"kind run"}},
		{name: "result as JSON", store: runStore(), j: oltpJob(), section: "result", asJSON: true,
			want: []string{`"job_id": 7,`, `"transaction_order": [`}},
		// The data decides: an analytic result is shown whatever the workload.
		{name: "analytic result", store: &fakeStore{analytic: analyticResult()}, j: oltpJob(), section: "result",
			want: []string{"\nTPROC-H result (job 7)", " database postgres://bench:xxxxx@db/tpcc\n"}},
		{name: "analytic result as JSON", store: &fakeStore{analytic: analyticResult()}, j: analyticJob(), section: "result",
			asJSON: true, want: []string{`"workload": "tproch"`, `"stream_totals": [`}},
		{name: "timing", store: runStore(), j: oltpJob(), section: "timing",
			want: []string{" transaction count rollbacks"}, notWant: []string{"result (job"}},
		{name: "timing as JSON", store: runStore(), j: oltpJob(), section: "timing", asJSON: true,
			want: []string{`"new_order": {`, `"histogram": ""`}, notWant: []string{`"job_id"`}},
		{name: "tcount", store: runStore(), j: oltpJob(), section: "tcount",
			want: []string{"seq phase elapsed TPM NOPM errors new_order p95 ms\n", "1 measure 10s 100 45 0 7 0.00\n"}},
		{name: "tcount as JSON", store: runStore(), j: oltpJob(), section: "tcount", asJSON: true,
			want: []string{`"seq": 1,`, `"vus": []`}},
		// An empty series is still a series for programs.
		{name: "no tcount as JSON", store: &fakeStore{}, j: oltpJob(), section: "tcount", asJSON: true,
			want: []string{"[]\n"}},
		{name: "config", store: runStore(), j: oltpJob(), section: "config", want: []string{"db postgres://db/tpcc\nvu 8\n"}},
		{name: "config as JSON", store: runStore(), j: oltpJob(), section: "config", asJSON: true,
			want: []string{`"vu": "8"`}},
		{name: "system", store: runStore(), j: oltpJob(), section: "system", want: []string{"cpus 8\n"}},
		{name: "output", store: runStore(), j: oltpJob(), section: "output", want: []string{"run job 7 started\ndone\n"}},
		{name: "output as JSON", store: runStore(), j: oltpJob(), section: "output", asJSON: true,
			want: []string{`"at": "2025-03-01T12:00:00Z"`, `"line": "done"`}},
		{name: "no output as JSON", store: &fakeStore{}, j: oltpJob(), section: "output", asJSON: true, want: []string{"[]\n"}},
		{name: "build", store: &fakeStore{build: &jobs.BuildResult{Warehouses: 1, Rows: 5}}, j: buildJob, section: "build",
			want: []string{"build: 1 warehouses with 0 workers: 5 rows"}},
		{name: "build as JSON", store: &fakeStore{build: &jobs.BuildResult{Warehouses: 1, Rows: 5}}, j: buildJob,
			section: "build", asJSON: true, want: []string{`"rows": 5,`, `"tables": {}`}},
		{name: "check", store: &fakeStore{check: []jobs.CheckItem{{Name: "1", Violations: 2}}}, j: checkJob, section: "check",
			want: []string{" 1 FAIL (2 violations)", "1 conditions failed\n"}},
		{name: "check as JSON", store: &fakeStore{check: []jobs.CheckItem{{Name: "1", Violations: 2}}}, j: checkJob,
			section: "check", asJSON: true, want: []string{`"violations": 2,`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var b strings.Builder
			if err := Show(context.Background(), &b, c.store, c.j, c.section, c.asJSON); err != nil {
				t.Fatal(err)
			}
			checkText(t, b.String(), c.want, c.notWant)
		})
	}
}

func TestShowMissing(t *testing.T) {
	t.Parallel()
	running := oltpJob()
	running.Status, running.EndedAt = metrics.StatusRunning, time.Time{}
	failed := oltpJob()
	failed.Status = metrics.StatusFailed
	tprochFailed := analyticJob()
	tprochFailed.Status = metrics.StatusFailed
	build := oltpJob()
	build.Kind = jobs.KindBuild

	cases := []struct {
		name    string
		j       jobs.Job
		section string
		asJSON  bool
		want    string
	}{
		{"result of a running job", running, "result", false, "job 7 (run) has no run result: it is still running"},
		{"result of a failed job", failed, "result", true, "job 7 (run) has no run result: it is failed"},
		{"result of a failed analytic run", tprochFailed, "result", false, "job 7 (run) has no TPROC-H result: it is failed"},
		{"timing of an analytic run", analyticJob(), "timing", false, "job 7 (run) has no run result"},
		{"tcount", oltpJob(), "tcount", false, "job 7 (run) has no interval series"},
		{"build of a run", oltpJob(), "build", true, "job 7 (run) has no build result"},
		{"check of a build", build, "check", false, "job 7 (build) has no check result"},
		{"unknown section", oltpJob(), "nope", false, `unknown section "nope"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var b strings.Builder
			err := Show(context.Background(), &b, &fakeStore{}, c.j, c.section, c.asJSON)
			if err == nil || err.Error() != c.want {
				t.Errorf("error = %v, want %q", err, c.want)
			}
			if b.Len() != 0 {
				t.Errorf("wrote %q for a missing section", b.String())
			}
		})
	}
}

func TestShowStoreError(t *testing.T) {
	t.Parallel()
	boom := errors.New("disk on fire")
	for _, section := range append([]string{""}, SectionNames()...) {
		if section == "status" { // read from the job itself
			continue
		}
		err := Show(context.Background(), &strings.Builder{}, &fakeStore{err: boom}, oltpJob(), section, false)
		if !errors.Is(err, boom) {
			t.Errorf("section %q: error = %v, want the store's", section, err)
		}
	}
}

func TestNoSection(t *testing.T) {
	t.Parallel()
	cases := []struct {
		status string
		want   string
	}{
		{metrics.StatusCompleted, "job 3 (check) has no check result"},
		{metrics.StatusInterrupted, "job 3 (check) has no check result"},
		{metrics.StatusRunning, "job 3 (check) has no check result: it is still running"},
		{metrics.StatusAbandoned, "job 3 (check) has no check result: it is abandoned"},
	}
	for _, c := range cases {
		err := NoSection(jobs.Job{ID: 3, Kind: jobs.KindCheck, Status: c.status}, "check result")
		if err.Error() != c.want {
			t.Errorf("status %s: %q, want %q", c.status, err, c.want)
		}
	}
}
