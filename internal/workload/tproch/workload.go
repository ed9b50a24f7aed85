package tproch

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"runtime"
	"strconv"
	"time"

	"github.com/sledge-bench/sledge/internal/config"
	"github.com/sledge-bench/sledge/internal/db"
	"github.com/sledge-bench/sledge/internal/metrics"
	"github.com/sledge-bench/sledge/internal/threshold"
	"github.com/sledge-bench/sledge/internal/workload"
)

// Name is TPROC-H's id in specs and job records.
const Name = "tproch"

func init() { workload.Register(Workload{}) }

// Workload is TPROC-H's entry in the workload registry.
type Workload struct{}

var (
	_ workload.Validator     = Workload{}
	_ workload.Builder       = Workload{}
	_ workload.Dropper       = Workload{}
	_ workload.Checker       = Workload{}
	_ workload.SchemaFinder  = Workload{}
	_ workload.BuildRecorder = Workload{}
	_ workload.Datagener     = Workload{}
	_ workload.Analytic      = Workload{}
)

func (Workload) Name() string      { return Name }
func (Workload) Title() string     { return "TPROC-H" }
func (Workload) Aliases() []string { return []string{"tproc-h"} }

// DefaultDB is the embedded DuckDB database.
func (Workload) DefaultDB(dataDir string) string {
	return "duckdb:" + filepath.Join(dataDir, "tproch.duckdb")
}

// ScaleLabel qualifies a scale factor outside the specification's list.
func ScaleLabel(sf float64) string {
	if IsStandardSF(sf) {
		return ""
	}
	return " (not a specification scale factor: for tests and quick looks)"
}

// minSF is the smallest scale factor the generator takes.
const minSF = 0.001

// Validate adds TPROC-H's own rules.
func (Workload) Validate(s config.Plan) config.FieldErrors {
	// A scale that is not positive is the spec's own error.
	if s.Kind == config.KindBuild && s.Scale > 0 && s.Scale < minSF {
		return config.FieldErrors{{Field: "scale", Msg: fmt.Sprintf("scale must be at least %g (got %g)", minSF, s.Scale)}}
	}
	// An iteration run counts OLTP transactions per VU; the analytic tests
	// have their own count (query_sets).
	if s.Kind == config.KindRun && s.Iterations != 0 {
		return config.FieldErrors{{Field: "iterations",
			Msg: "iterations applies to TPROC-C runs only: a TPROC-H run is a power test and, with streams, a throughput test of query_sets each"}}
	}
	// Per-VU timing keeps the engine's per-VU histograms of OLTP
	// transactions; a stream's query times are kept with every run.
	if s.Kind == config.KindRun && s.PerVUTiming {
		return config.FieldErrors{{Field: "per_vu_timing",
			Msg: "per_vu_timing applies to TPROC-C runs only: a TPROC-H run keeps every stream's query times (jobs ID N)"}}
	}
	if s.Kind == config.KindRun {
		if errs := workload.CheckThresholds(s, threshold.Scope{Title: "TPROC-H", Analytic: true}); len(errs) > 0 {
			return errs
		}
		field := ""
		switch {
		case s.Model == config.LoadRate:
			field = "rate"
		case s.Model == config.LoadTerminals:
			field = "terminals"
		case len(s.Stages) > 0:
			field = "stages"
		}
		if field != "" {
			return config.FieldErrors{{Field: field,
				Msg: field + " applies to TPROC-C runs only: a TPROC-H run is a power test and, with streams, a throughput test"}}
		}
	}
	if !s.Segment.IsWhole() || s.RunID != "" {
		field := "segment"
		if s.Segment.IsWhole() {
			field = "run_id"
		}
		return config.FieldErrors{{Field: field,
			Msg: "a TPROC-H job is not split over several processes: run it from one (its streams are its parallelism)"}}
	}
	return nil
}

func buildWorkers(s config.Plan) int {
	if s.Workers > 0 {
		return s.Workers
	}
	return runtime.NumCPU()
}

// PlanBuild resolves the workers and names the build's size.
func (Workload) PlanBuild(s *config.Plan) (string, map[string]string) {
	s.Workers = buildWorkers(*s)
	return fmt.Sprintf("TPROC-H scale factor %g%s", s.Scale, ScaleLabel(s.Scale)), map[string]string{
		"scale_factor": strconv.FormatFloat(s.Scale, 'g', -1, 64), "workers": strconv.Itoa(s.Workers),
		"force": strconv.FormatBool(s.Force),
	}
}

// Build creates and loads the schema.
func (Workload) Build(ctx context.Context, env workload.Env, s config.Plan) (workload.BuildReport, error) {
	rep, err := Build(ctx, env.Driver, env.Target, BuildOptions{SF: s.Scale, Workers: buildWorkers(s), Force: s.Force,
		Progress: func(p Progress) { env.Progress(workload.Progress(p)) }})
	note := "load time as the specification counts it: schema, load, keys, statistics"
	if rep.LoadRetries > 0 {
		note += fmt.Sprintf("; %d table part(s) loaded again after a deadlock or lock wait timeout between the loaders", rep.LoadRetries)
	}
	return workload.BuildReport{Size: fmt.Sprintf("TPROC-H scale factor %g", s.Scale), Workers: rep.Workers,
		Rows: rep.Rows, Tables: rep.Tables, Duration: rep.Duration, Version: rep.Version, Note: note}, err
}

// Check verifies the tables, their row counts, the keys and indexes and, at
// SF 1, a sample of the queries' answers.
func (Workload) Check(ctx context.Context, env workload.Env, c db.Conn) (workload.CheckReport, error) {
	return Check(ctx, c, env.Target.Kind)
}

// SchemaExists reports whether any TPROC-H table or the build record exists.
func (Workload) SchemaExists(ctx context.Context, c db.Conn, k db.Kind) (bool, error) {
	return SchemaExists(ctx, c, k)
}

// BuildRecorded reports whether the TPROC-H build record exists.
func (Workload) BuildRecorded(ctx context.Context, c db.Conn, k db.Kind) (bool, error) {
	return BuildRecorded(ctx, c, k)
}

// Drop removes the schema.
func (Workload) Drop(ctx context.Context, env workload.Env, c db.Conn) error {
	return Drop(ctx, c, env.Target.Kind)
}

// DataFiles writes the small tables as one file each and splits the others
// into one file per worker.
func (Workload) DataFiles(s config.Plan, workers int, format workload.DataFormat) ([]workload.DataFile, error) {
	g, err := NewGenerator(s.Scale)
	if err != nil {
		return nil, err
	}
	workers = max(1, workers)
	var files []workload.DataFile
	for _, t := range Tables() {
		parts := workers
		if t == TableRegion || t == TableNation || t == TableSupplier {
			parts = 1
		}
		enc := FormatPipe
		if format == workload.DataCopy {
			enc = FormatCopy
		}
		for p := range parts {
			name := t.String() + "." + string(format)
			if parts > 1 {
				name = fmt.Sprintf("%s.%s.%d", t, format, p+1)
			}
			files = append(files, workload.DataFile{Name: name, Table: t.String(), Columns: t.Columns(),
				Write: func(ctx context.Context, w io.Writer) (int64, error) {
					src, err := g.Source(t, p, parts)
					if err != nil {
						return 0, err
					}
					lc := &lineCounter{w: w}
					_, err = io.Copy(lc, NewReader(ctx, src, enc))
					return lc.lines, err
				}})
		}
	}
	return files, nil
}

// lineCounter counts the rows (lines) passing through.
type lineCounter struct {
	w     io.Writer
	lines int64
}

func (c *lineCounter) Write(p []byte) (int, error) {
	for _, b := range p {
		if b == '\n' {
			c.lines++
		}
	}
	return c.w.Write(p)
}

// AnalyticSettings chooses the run's seed0 when the spec has none (the
// time, mmddhhmmss, as the specification prescribes), so that the recorded
// settings, the run and its result all show the seed used, and returns the
// settings recorded with the run.
func (Workload) AnalyticSettings(s *config.Plan) map[string]string {
	if s.Seed == 0 {
		s.Seed = uint64(defaultSeed(time.Now()))
	}
	return map[string]string{
		"streams": strconv.Itoa(s.Streams), "query_sets": strconv.Itoa(s.QuerySets),
		"refresh": strconv.FormatBool(s.Refresh), "validate": strconv.FormatBool(s.Validation),
		"seed": strconv.FormatUint(s.Seed, 10),
	}
}

// RunAnalytic runs the power test and, with streams, the throughput test.
func (Workload) RunAnalytic(ctx context.Context, env workload.Env, s config.Plan) (*metrics.AnalyticResult, error) {
	return Run(ctx, env.Driver, env.Target, RunOptions{Streams: s.Streams, QuerySets: s.QuerySets,
		Refresh: s.Refresh, Seed: int64(s.Seed), Validate: s.Validation, Logf: env.Logf, Query: env.Query, QueryStart: env.QueryStart})
}
