package app

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/sledge-bench/sledge/internal/config"
	"github.com/sledge-bench/sledge/internal/jobs"
	"github.com/sledge-bench/sledge/internal/metrics"
	"github.com/sledge-bench/sledge/internal/output"
	"github.com/sledge-bench/sledge/internal/workload"
)

// newService is a service over a fresh repository, with its data directory
// and default databases in a temp dir. It does not own the process (it never
// sets GOMAXPROCS, which is the whole test binary's), so that tests may run
// in parallel; TestServiceProcessSettings tests a service that does.
func newService(t *testing.T) (*Service, *jobs.Repo) {
	t.Helper()
	repo, err := jobs.Open(context.Background(), filepath.Join(t.TempDir(), "jobs.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { repo.Close() })
	return New(Options{Repo: repo, Version: "test", Hub: output.NewHub(), DataDir: t.TempDir()}), repo
}

func jobCount(t *testing.T, repo *jobs.Repo) int {
	t.Helper()
	list, err := repo.List(context.Background(), jobs.ListFilter{})
	if err != nil {
		t.Fatal(err)
	}
	return len(list)
}

// TestServiceLifecycleSQLite runs build → run → check → drop on an SQLite
// file through the service alone, and checks what each left in the
// repository.
func TestServiceLifecycleSQLite(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs on SQLite")
	}
	parallel(t)
	svc, repo := newService(t)
	ctx := context.Background()
	target := "sqlite:" + filepath.Join(t.TempDir(), "c.db")

	build := config.New(config.KindBuild)
	build.DB = target
	var out bytes.Buffer
	o, err := svc.Run(ctx, Request{Spec: build, Console: &out})
	if err != nil || o.Status != metrics.StatusCompleted || o.Build == nil || o.Build.Rows < 500000 {
		t.Fatalf("build: %+v %v\n%s", o, err, out.String())
	}
	if b, err := repo.Build(ctx, o.ID); err != nil || b == nil || b.Warehouses != 1 || b.Rows != o.Build.Rows {
		t.Errorf("stored build %+v %v", b, err)
	}
	cfg, _ := repo.Config(ctx, o.ID)
	if cfg["warehouses"] != "1" || cfg["workers"] != "1" || cfg["seed"] != "1" {
		t.Errorf("build settings %v", cfg)
	}

	run := config.New(config.KindRun)
	run.DB, run.VU = target, 2
	run.Rampup, run.Duration, run.Interval = 0, config.Duration(2*time.Second), config.Duration(time.Second)
	out.Reset()
	o, err = svc.Run(ctx, Request{Spec: run, Console: &out, Settings: map[string]string{"from": "test"}})
	if err != nil || o.Status != metrics.StatusCompleted || o.Run == nil || o.Run.NewOrders == 0 {
		t.Fatalf("run: %+v %v\n%s", o, err, out.String())
	}
	if res, err := repo.RunResult(ctx, o.ID); err != nil || res == nil || res.NewOrders != o.Run.NewOrders || res.Warehouses != 1 {
		t.Errorf("stored result %+v %v", res, err)
	}
	cfg, _ = repo.Config(ctx, o.ID)
	for _, k := range []string{"vu", "mode", "seed", "warehouses", "c_run_last", "from"} {
		if cfg[k] == "" {
			t.Errorf("run settings lack %s: %v", k, cfg)
		}
	}
	if ivs, _ := repo.Intervals(ctx, o.ID); len(ivs) < 2 {
		t.Errorf("%d intervals stored", len(ivs))
	}
	lines, _ := repo.Output(ctx, o.ID)
	if len(lines) == 0 || !strings.Contains(out.String(), "TPROC-C result") || !strings.Contains(lines[0].Line, "run job") {
		t.Errorf("output: console %q, stored %d lines", out.String(), len(lines))
	}
	if j, _ := repo.Get(ctx, o.ID); j.Status != metrics.StatusCompleted || j.DBVersion == "" {
		t.Errorf("run job %+v", j)
	}

	check := config.New(config.KindCheck)
	check.DB = target
	o, err = svc.Run(ctx, Request{Spec: check})
	if err != nil || o.Check == nil || len(o.Check.Tables) != 9 || !o.OK() {
		t.Fatalf("check: %+v %v", o, err)
	}
	if items, _ := repo.Check(ctx, o.ID); len(items) != len(o.Check.Conditions) {
		t.Errorf("stored %d check items", len(items))
	}

	drop := config.New(config.KindDrop)
	drop.Confirm = true
	drop.DB = target
	if o, err = svc.Run(ctx, Request{Spec: drop}); err != nil || o.Status != metrics.StatusCompleted {
		t.Fatalf("drop: %+v %v", o, err)
	}
	// A check of a dropped schema is a job that failed, saying what it
	// found (each front end says what to do about it).
	if _, err := svc.Run(ctx, Request{Spec: check}); !errors.Is(err, workload.ErrNoSchema) || strings.Contains(err.Error(), "sledge build") {
		t.Errorf("check after drop: %v", err)
	}
	if n := jobCount(t, repo); n != 5 {
		t.Errorf("%d jobs, want 5", n)
	}
}

// TestServiceFirstRunBuildsEmbedded: a run on the default embedded database
// builds it first, as a job of its own.
func TestServiceFirstRunBuildsEmbedded(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs on SQLite")
	}
	parallel(t)
	svc, repo := newService(t)
	run := config.New(config.KindRun)
	run.VU, run.Rampup, run.Duration, run.Interval = 1, 0, config.Duration(time.Second), config.Duration(time.Second)
	var out bytes.Buffer
	o, err := svc.Run(context.Background(), Request{Spec: run, Console: &out})
	if err != nil || o.Status != metrics.StatusCompleted {
		t.Fatalf("run: %+v %v\n%s", o, err, out.String())
	}
	list, _ := repo.List(context.Background(), jobs.ListFilter{})
	if len(list) != 2 || list[1].Kind != "build" || list[0].Kind != "run" || list[0].ID != o.ID ||
		!strings.Contains(out.String(), "building 1 warehouse first") {
		t.Errorf("jobs %+v\n%s", list, out.String())
	}
}

// TestServiceTPROCHOnDuckDB builds and runs TPROC-H on the embedded DuckDB
// through the service alone.
func TestServiceTPROCHOnDuckDB(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs on DuckDB")
	}
	parallel(t)
	svc, repo := newService(t)
	ctx := context.Background()
	build := config.New(config.KindBuild)
	build.Workload, build.Scale = "tproch", 0.01
	o, err := svc.Run(ctx, Request{Spec: build})
	if err != nil && strings.Contains(err.Error(), "cgo") {
		t.Skip("DuckDB needs cgo:", err)
	}
	if err != nil || o.Status != metrics.StatusCompleted || o.Build.Rows == 0 {
		t.Fatalf("build: %+v %v", o, err)
	}
	run := config.New(config.KindRun)
	run.Workload, run.Seed = "tproch", 42
	o, err = svc.Run(ctx, Request{Spec: run})
	if err != nil || o.Analytic == nil || len(o.Analytic.Queries) != 22 || !o.OK() {
		t.Fatalf("run: %+v %v", o, err)
	}
	j, _ := repo.Get(ctx, o.ID)
	if j.Workload != "tproch" || j.DBKind != "duckdb" || j.Status != metrics.StatusCompleted {
		t.Errorf("job %+v", j)
	}
	if res, _ := repo.AnalyticResult(ctx, o.ID); res == nil || res.Seed != 42 {
		t.Errorf("stored result %+v", res)
	}
	// TPROC-H's check is a job like TPROC-C's: its conditions are in the
	// outcome and stored with the job. The refresh-free run left the data
	// as loaded; the answers are SF 1's and skipped here.
	check := config.New(config.KindCheck)
	check.Workload = "tproch"
	o, err = svc.Run(ctx, Request{Spec: check})
	if err != nil || o.Check == nil || o.Check.Failed() != 0 || len(o.Check.Tables) != 8 {
		t.Fatalf("tproch check: %+v %v", o, err)
	}
	if j, _ := repo.Get(ctx, o.ID); j.Kind != config.KindCheck || j.Workload != "tproch" || j.Status != metrics.StatusCompleted {
		t.Errorf("check job %+v", j)
	}
	items, err := repo.Check(ctx, o.ID)
	if err != nil || len(items) != len(o.Check.Conditions) || items[len(items)-1].Name != "answers" || !items[len(items)-1].Skipped {
		t.Errorf("stored check %+v %v", items, err)
	}
}

// TestServiceRecordsNothingInvalid: invalid specs and unusable targets
// create no job.
func TestServiceRecordsNothingInvalid(t *testing.T) {
	parallel(t)
	svc, repo := newService(t)
	bad := func(kind string, set func(*config.Spec)) config.Spec {
		s := config.New(kind)
		set(&s)
		return s
	}
	for _, c := range []struct {
		spec  config.Spec
		field string
	}{
		{bad(config.KindBuild, func(s *config.Spec) { s.Warehouses = -5 }), "warehouses"},
		{bad(config.KindRun, func(s *config.Spec) { s.VU = 0 }), "vu"},
		{bad(config.KindRun, func(s *config.Spec) { s.Workload = "tpcx" }), "workload"},
		{bad(config.KindRun, func(s *config.Spec) { s.Mode = "turbo" }), "mode"},
		{bad(config.KindBuild, func(s *config.Spec) { s.Engine = "In;noDB" }), "engine"},
		{bad(config.KindBuild, func(s *config.Spec) { s.Workload, s.Scale = "tproch", 0.0001 }), "scale"},
		{bad("", func(*config.Spec) {}), "kind"},
		{bad(config.KindBuild, func(s *config.Spec) { s.Engine = "InnoDB" }), "engine"}, // SQLite has no engines
	} {
		_, err := svc.Start(context.Background(), Request{Spec: c.spec})
		fields := config.Fields(err)
		if len(fields) == 0 || fields[0].Field != c.field {
			t.Errorf("%+v: %v, want a field error for %s", c.spec, err, c.field)
		}
	}
	for _, dsn := range []string{"oracle://u@127.0.0.1/x", "mysql://u@127.0.0.1:1/"} {
		s := config.New(config.KindRun)
		s.DB = dsn
		var te TargetError
		if _, err := svc.Start(context.Background(), Request{Spec: s}); !errors.As(err, &te) {
			t.Errorf("%s: %v, want a TargetError", dsn, err)
		}
	}
	if n := jobCount(t, repo); n != 0 {
		t.Errorf("%d jobs recorded for invalid requests", n)
	}
}

// TestServiceProcessSettings: a service that owns its process decides
// GOMAXPROCS once, from its first run; one inside a server never changes it
// and refuses specs that ask.
func TestServiceProcessSettings(t *testing.T) {
	// Not parallel: it sets GOMAXPROCS, which is the whole binary's (the
	// other tests' services do not own the process, and leave it alone).
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	svc, _ := newService(t)
	s := config.New(config.KindRun)
	s.ClientCPUs = 1
	if err := svc.Validate(s); len(config.Fields(err)) != 1 || config.Fields(err)[0].Field != "client_cpus" {
		t.Errorf("server service accepted client_cpus: %v", err)
	}
	if got, want := ClientCPUs(0, 1), 1; got != want {
		t.Errorf("ClientCPUs(0, 1) = %d", got)
	}
	if got := ClientCPUs(0, 10000); got != runtime.NumCPU() {
		t.Errorf("ClientCPUs(0, 10000) = %d, want all %d", got, runtime.NumCPU())
	}
	if got := ClientCPUs(1000, 1); got != runtime.NumCPU() {
		t.Errorf("ClientCPUs(1000, 1) = %d", got)
	}
	owner := New(Options{OwnsProcess: true})
	runtime.GOMAXPROCS(runtime.NumCPU())
	owner.decideClientCPUs(config.Plan{Spec: config.Spec{VU: 1}, Model: config.LoadClosed}, false)
	if got := runtime.GOMAXPROCS(0); got != 1 {
		t.Errorf("after the first run's decision: %d", got)
	}
	owner.decideClientCPUs(config.Plan{Spec: config.Spec{VU: 10000}, Model: config.LoadClosed}, false)
	if got := runtime.GOMAXPROCS(0); got != 1 {
		t.Errorf("a second run changed GOMAXPROCS to %d", got)
	}
	// An embedded database works inside the client: all cores by default.
	embedded := New(Options{OwnsProcess: true})
	embedded.decideClientCPUs(config.Plan{Spec: config.Spec{VU: 4}, Model: config.LoadClosed}, true)
	if got := runtime.GOMAXPROCS(0); got != runtime.NumCPU() {
		t.Errorf("embedded run: GOMAXPROCS %d, want all %d", got, runtime.NumCPU())
	}
}

func TestClientCPUs(t *testing.T) {
	parallel(t)
	n := runtime.NumCPU()
	cases := []struct {
		flag, vus, want int
	}{
		{0, 1, 1},
		{0, 16, 1},
		{0, 17, min(2, n)},
		{0, 10000, n},
		{1, 500, 1},
		{n + 5, 4, n},
	}
	for _, c := range cases {
		if got := ClientCPUs(c.flag, c.vus); got != c.want {
			t.Errorf("ClientCPUs(%d, %d) = %d; want %d", c.flag, c.vus, got, c.want)
		}
	}
	s := config.New(config.KindRun)
	s.ClientCPUs = -1
	if err := s.Validate(); err == nil {
		t.Error("negative client CPUs accepted")
	}
}

// TestWorded: a target error is the db field's, field errors are worded by
// the front end's names one a line, other errors are left as they are.
func TestWorded(t *testing.T) {
	t.Parallel()
	name := func(field string) string { return "<" + field + ">" }
	other := errors.New("boom")
	for _, tc := range []struct {
		err  error
		want string
	}{
		{TargetError{errors.New(`unknown scheme "x"`)}, `<db>: unknown scheme "x"`},
		{fmt.Errorf("wrapped: %w", config.FieldErrors{{Field: "max_retries", Msg: "max_retries must be 0 or more"}, {Field: "vu", Msg: "too many"}}),
			"<max_retries> must be 0 or more\n<vu>: too many"},
		{other, "boom"},
	} {
		if got := Worded(tc.err, name); got.Error() != tc.want {
			t.Errorf("Worded(%v) = %q, want %q", tc.err, got, tc.want)
		}
	}
	if Worded(other, name) != other {
		t.Error("Worded changed an error of no field")
	}
}
