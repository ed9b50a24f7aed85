// Package pgbench is pgbench's workload: its four tables built as pgbench
// -i builds them, checked and dropped, and runs of its built-in scripts
// (tpcb-like, simple-update, select-only) and of custom scripts in
// pgbench's own format, executed by pgscript with pgbench's semantics and
// random streams, measured by Sledge's engine: one transaction is one
// execution of a script, and the transaction types are the scripts.
//
// What exists so far: build, check and drop on PostgreSQL, MariaDB/MySQL
// and SQLite; runs on PostgreSQL (pgscript has a session adapter for pgx
// only), closed-loop or at a rate, reported in pgbench's words
// (report.go). pgbench's own command line is read by package cmdline.
package pgbench

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/sledge-bench/sledge/internal/config"
	"github.com/sledge-bench/sledge/internal/db"
	"github.com/sledge-bench/sledge/internal/threshold"
	"github.com/sledge-bench/sledge/internal/workload"
)

// Name is pgbench's id in specs and job records.
const Name = "pgbench"

func init() { workload.Register(Workload{}) }

// Workload is pgbench's entry in the workload registry.
type Workload struct{}

var (
	_ workload.Validator       = Workload{}
	_ workload.TargetValidator = Workload{}
	_ workload.Builder         = Workload{}
	_ workload.SchemaFinder    = Workload{}
	_ workload.BuildRecorder   = Workload{}
	_ workload.Checker         = Workload{}
	_ workload.Dropper         = Workload{}
	_ workload.OLTP            = Workload{}
)

func (Workload) Name() string      { return Name }
func (Workload) Title() string     { return "pgbench" }
func (Workload) Aliases() []string { return nil }

// DefaultDB is an embedded SQLite database of its own.
func (Workload) DefaultDB(dataDir string) string {
	return "sqlite:" + filepath.Join(dataDir, "pgbench.sqlite")
}

// scaleOf is the build's scale as pgbench's whole number; ok is false for
// a fractional or out-of-range one.
func scaleOf(p config.Plan) (int64, bool) {
	s := p.Scale
	if s < 1 || s != math.Trunc(s) || s > math.MaxInt32 {
		return 0, false
	}
	return int64(s), true
}

// Validate adds pgbench's rules: a whole scale for a build, and scripts
// and definitions that parse for a run.
func (Workload) Validate(p config.Plan) config.FieldErrors {
	var errs config.FieldErrors
	switch p.Kind {
	case config.KindBuild:
		if _, ok := scaleOf(p); !ok && p.Scale > 0 {
			errs = append(errs, config.FieldError{Field: "scale",
				Msg: fmt.Sprintf("scale must be a whole number of at least 1 for pgbench (got %g)", p.Scale)})
		}
		if !p.Segment.IsWhole() {
			errs = append(errs, config.FieldError{Field: "segment", Msg: "segment: a pgbench build is made by one process, not in segments"})
		}
	case config.KindRun:
		scripts, err := parseScripts(p.Scripts)
		if err != nil {
			errs = append(errs, config.FieldError{Field: "scripts", Msg: "scripts: " + err.Error()})
		} else {
			names := make([]string, len(scripts))
			for i, s := range scripts {
				names[i] = s.Script.Name
			}
			errs = append(errs, workload.CheckThresholds(p, threshold.Scope{Title: "pgbench", TxNames: names})...)
		}
		if _, err := parseDefines(p.Defines); err != nil {
			errs = append(errs, config.FieldError{Field: "defines", Msg: "defines: " + err.Error()})
		}
		for _, what := range []struct {
			field string
			set   bool
		}{{"rate_by_type", p.RateByType != nil}, {"terminals", p.Terminals > 0},
			{"pacing", p.PacingFactor() > 0}, {"segment", !p.Segment.IsWhole()}} {
			if what.set {
				errs = append(errs, config.FieldError{Field: what.field,
					Msg: what.field + ": not available for pgbench runs (closed-loop clients, or arrivals at one --rate over their sessions)"})
			}
		}
	}
	return errs
}

// ValidateTarget refuses the options a database cannot honour, and runs
// where no session adapter exists yet.
func (Workload) ValidateTarget(p config.Plan, t db.Target) config.FieldErrors {
	if _, err := dialect(t.Kind); err != nil {
		return config.FieldErrors{{Field: "db", Msg: err.Error()}}
	}
	var errs config.FieldErrors
	switch p.Kind {
	case config.KindBuild:
		if t.Kind != db.Postgres && p.Fillfactor != 0 {
			errs = append(errs, config.FieldError{Field: "fillfactor", Msg: fmt.Sprintf("fillfactor applies to PostgreSQL only, not %s", t.Kind)})
		}
		if t.Kind != db.Postgres && p.Partitions != 0 {
			errs = append(errs, config.FieldError{Field: "partitions", Msg: fmt.Sprintf("partitions apply to PostgreSQL only, not %s", t.Kind)})
		}
		if t.Kind == db.SQLite && p.ForeignKeys {
			errs = append(errs, config.FieldError{Field: "foreign_keys", Msg: "foreign_keys: SQLite cannot add them to the loaded tables"})
		}
	}
	return errs
}

// PlanBuild names the build's size and its settings.
func (Workload) PlanBuild(p *config.Plan) (string, map[string]string) {
	p.Workers = 1
	scale, _ := scaleOf(*p)
	kv := map[string]string{
		"scale": strconv.FormatInt(scale, 10), "force": strconv.FormatBool(p.Force),
		"fillfactor": strconv.Itoa(p.Fillfactor), "foreign_keys": strconv.FormatBool(p.ForeignKeys),
		"partitions": strconv.Itoa(p.Partitions), "partition_method": p.PartitionMethod,
	}
	return sizeName(scale), kv
}

// Build is Build with the plan's options.
func (Workload) Build(ctx context.Context, env workload.Env, p config.Plan) (workload.BuildReport, error) {
	scale, _ := scaleOf(p)
	return Build(ctx, env.Driver, env.Target, BuildOptions{
		Scale: scale, Fillfactor: p.Fillfactor, ForeignKeys: p.ForeignKeys,
		Partitions: p.Partitions, PartitionMethod: p.PartitionMethod, Force: p.Force, Progress: env.Progress,
	})
}

// SchemaExists reports whether any pgbench table or the build's record is
// there.
func (Workload) SchemaExists(ctx context.Context, c db.Conn, k db.Kind) (bool, error) {
	return schemaExists(ctx, c, k)
}

// BuildRecorded reports whether the build's record is there.
func (Workload) BuildRecorded(ctx context.Context, c db.Conn, k db.Kind) (bool, error) {
	n, err := workload.CountTables(ctx, c, k, []string{metaTable})
	return n > 0, err
}

// Check is Check.
func (Workload) Check(ctx context.Context, env workload.Env, c db.Conn) (workload.CheckReport, error) {
	return Check(ctx, c, env.Target.Kind)
}

// Drop is Drop.
func (Workload) Drop(ctx context.Context, env workload.Env, c db.Conn) error {
	return Drop(ctx, c, env.Target.Kind)
}

// joinNames lists names with commas.
func joinNames(names []string) string { return strings.Join(names, ", ") }
