package tprocc

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/sledge-bench/sledge/internal/config"
	"github.com/sledge-bench/sledge/internal/db"
	"github.com/sledge-bench/sledge/internal/metrics"
	"github.com/sledge-bench/sledge/internal/report"
	"github.com/sledge-bench/sledge/internal/threshold"
	"github.com/sledge-bench/sledge/internal/workload"
)

// Name is TPROC-C's id in specs and job records.
const Name = "tprocc"

// PacedNOPMPerWarehouse is the ceiling of a paced run: ten terminals per
// warehouse waiting the specification's keying and think times reach at
// most about 12.86 New-Orders per minute per warehouse (12.605 with the
// 23-card deck).
const PacedNOPMPerWarehouse = 12.86

func init() { workload.Register(Workload{}) }

// Workload is TPROC-C's entry in the workload registry.
type Workload struct{}

var (
	_ workload.Validator       = Workload{}
	_ workload.TargetValidator = Workload{}
	_ workload.Builder         = Workload{}
	_ workload.FirstRunBuilder = Workload{}
	_ workload.BuildRecorder   = Workload{}
	_ workload.Checker         = Workload{}
	_ workload.Dropper         = Workload{}
	_ workload.Datagener       = Workload{}
	_ workload.OLTP            = Workload{}
)

func (Workload) Name() string      { return Name }
func (Workload) Title() string     { return "TPROC-C" }
func (Workload) Aliases() []string { return []string{"tproc-c"} }

// DefaultDB is the embedded SQLite database.
func (Workload) DefaultDB(dataDir string) string {
	return "sqlite:" + filepath.Join(dataDir, "tprocc.sqlite")
}

// Validate adds TPROC-C's own rules.
func (Workload) Validate(s config.Plan) config.FieldErrors {
	var errs config.FieldErrors
	switch s.Kind {
	case config.KindBuild:
		if s.Warehouses > maxWarehouses {
			errs = append(errs, config.FieldError{Field: "warehouses",
				Msg: fmt.Sprintf("warehouses must be at most %d (got %d)", maxWarehouses, s.Warehouses)})
		}
		for _, r := range s.Engine {
			if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
				errs = append(errs, config.FieldError{Field: "engine",
					Msg: fmt.Sprintf("engine %q is not a plain storage engine name (e.g. InnoDB, MyRocks, Aria)", s.Engine)})
				break
			}
		}
	case config.KindRun:
		if _, err := ParseMode(s.Mode); err != nil {
			errs = append(errs, config.FieldError{Field: "mode", Msg: fmt.Sprintf("mode %q: want auto, procs or sql", s.Mode)})
		}
		for name := range s.RateByType {
			if !slices.Contains(txNames, name) {
				errs = append(errs, config.FieldError{Field: "rate_by_type",
					Msg: fmt.Sprintf("rate_by_type: %q is not a TPROC-C transaction type: want %s", name, strings.Join(txNames, ", "))})
			}
		}
		errs = append(errs, workload.CheckThresholds(s, threshold.Scope{Title: "TPROC-C", TxNames: txNames})...)
	}
	return errs
}

// RateByType is a rate run's rate per transaction type, indexed as the
// runner's TxNames (nil for a total rate).
func RateByType(p config.Plan) []float64 {
	if p.RateByType == nil {
		return nil
	}
	out := make([]float64, len(txNames))
	for i, n := range txNames {
		out[i] = p.RateByType[n]
	}
	return out
}

// ValidateTarget refuses a storage engine where the database has none to
// choose.
func (Workload) ValidateTarget(s config.Plan, t db.Target) config.FieldErrors {
	if s.Kind == config.KindBuild && s.Engine != "" && t.Kind != db.MySQL {
		return config.FieldErrors{{Field: "engine",
			Msg: fmt.Sprintf("engine applies to MariaDB and MySQL only, not %s", t.Kind)}}
	}
	return nil
}

// buildWorkers is the build's parallel sessions: the spec's, else one per
// CPU, at most one per warehouse (a warehouse is the unit of work).
func buildWorkers(s config.Plan) int {
	if s.Workers > 0 {
		return min(s.Workers, s.Warehouses)
	}
	return max(1, min(runtime.NumCPU(), s.Warehouses))
}

// PlanBuild resolves the workers and names the build's size.
func (Workload) PlanBuild(s *config.Plan) (string, map[string]string) {
	s.Workers = buildWorkers(*s)
	kv := map[string]string{
		"warehouses": strconv.Itoa(s.Warehouses), "workers": strconv.Itoa(s.Workers),
		"seed": strconv.FormatUint(s.BuildSeed(), 10), "force": strconv.FormatBool(s.Force),
		"engine": s.Engine, "loader": s.Loader,
	}
	addSegmentSettings(kv, *s)
	return report.Plural(s.Warehouses, "warehouse"), kv
}

// addSegmentSettings records a plan's segment (when not the whole run) and
// run id (when given) with the job's settings.
func addSegmentSettings(kv map[string]string, s config.Plan) {
	if !s.Segment.IsWhole() {
		kv["segment"] = s.Segment.String()
	}
	if s.RunID != "" {
		kv["run_id"] = s.RunID
		kv["agent_wait"] = s.AgentWait.String()
	}
}

// Build creates and loads the schema. A spec with a segment (other than
// the whole run) runs the load part of its warehouses only (BuildPart
// PartLoad): whoever coordinates the build's processes runs the schema
// part before and the finish part after, once.
func (w Workload) Build(ctx context.Context, env workload.Env, s config.Plan) (workload.BuildReport, error) {
	if !s.Segment.IsWhole() {
		return w.BuildPart(ctx, env, s, PartLoad)
	}
	return w.BuildPart(ctx, env, s, PartWhole)
}

// BuildPart runs one part of the build (BuildOptions.Part): PartWhole,
// PartSchema, PartLoad — the warehouses of the spec's segment
// (BuildPartsFor), ITEM with the first — or PartFinish.
func (Workload) BuildPart(ctx context.Context, env workload.Env, s config.Plan, part string) (workload.BuildReport, error) {
	o := PlanOptions(env, s)
	o.Part = part
	size := report.Plural(s.Warehouses, "warehouse")
	if part == PartLoad {
		o.LoadFirst, o.LoadCount = BuildPartsFor(s.Segment, s.Warehouses)
		size = fmt.Sprintf("%s of %d (segment %s)", warehouseRange(o.LoadFirst, o.LoadCount), s.Warehouses, s.Segment)
	}
	rep, err := Build(ctx, env.Driver, env.Target, o)
	return rep.Workload(size), err
}

// PlanOptions are the options of the whole build plan s asks for, its
// progress reported to env: what `sledge build` runs, and what a workload
// built on TPROC-C's schema (CH-benCHmark) builds first.
func PlanOptions(env workload.Env, s config.Plan) BuildOptions {
	return BuildOptions{
		Warehouses: s.Warehouses, Workers: buildWorkers(s), Seed: s.BuildSeed(), Force: s.Force,
		Engine: s.Engine, Loader: s.Loader,
		Progress: func(p Progress) { env.Progress(workload.Progress(p)) },
	}
}

// Workload is the build's report as the job service records it, its size
// named size.
func (rep BuildReport) Workload(size string) workload.BuildReport {
	note := ""
	if rep.LoadRetries > 0 {
		note = fmt.Sprintf("%d table part(s) loaded again after a deadlock or lock wait timeout between the loaders", rep.LoadRetries)
	}
	return workload.BuildReport{Size: size, Warehouses: rep.Warehouses,
		Workers: rep.Workers, Rows: rep.Rows, Tables: rep.Tables, Duration: rep.Duration, Version: rep.Version, Note: note}
}

// warehouseRange names count warehouses from first: "warehouse 3",
// "warehouses 3-5", "no warehouse".
func warehouseRange(first, count int) string {
	switch count {
	case 0:
		return "no warehouse"
	case 1:
		return fmt.Sprintf("warehouse %d", first)
	}
	return fmt.Sprintf("warehouses %d-%d", first, first+count-1)
}

// SchemaExists reports whether c's database holds a TPROC-C schema.
func (Workload) SchemaExists(ctx context.Context, c db.Conn, k db.Kind) (bool, error) {
	return SchemaExists(ctx, c, k)
}

// BuildRecorded reports whether c's database holds sledge_meta, the record
// of a TPROC-C build.
func (Workload) BuildRecorded(ctx context.Context, c db.Conn, k db.Kind) (bool, error) {
	n, err := workload.CountTables(ctx, c, k, []string{"sledge_meta"})
	return n > 0, err
}

// FirstRunBuild is one warehouse with one worker and the default seed.
func (Workload) FirstRunBuild(s config.Plan) config.Spec {
	b := config.New(config.KindBuild)
	b.Workload, b.DB, b.Warehouses, b.Workers = Name, s.DB, 1, 1
	return b
}

// Check counts the rows and tests the consistency conditions.
func (Workload) Check(ctx context.Context, env workload.Env, c db.Conn) (workload.CheckReport, error) {
	rep, err := Check(ctx, c, env.Target.Kind, CheckOptions{})
	if err != nil {
		return workload.CheckReport{}, err
	}
	out := workload.CheckReport{}
	for _, t := range rep.Tables {
		out.Tables = append(out.Tables, workload.TableRows{Name: t.Name, Rows: t.Rows})
	}
	for _, c := range rep.Conditions {
		out.Conditions = append(out.Conditions, workload.Condition(c))
	}
	return out, nil
}

// Drop removes every table and routine of the schema.
func (Workload) Drop(ctx context.Context, env workload.Env, c db.Conn) error {
	return Drop(ctx, c, env.Target.Kind)
}

// DataFiles splits the per-warehouse tables into one file per worker; ITEM
// is one file.
func (Workload) DataFiles(s config.Plan, workers int, format workload.DataFormat) ([]workload.DataFile, error) {
	if s.Warehouses < 1 {
		return nil, fmt.Errorf("warehouses must be at least 1 (got %d)", s.Warehouses)
	}
	seed := s.BuildSeed()
	g := NewGenerator(seed, CLoadFor(seed))
	now := time.Now().UTC().Format("2006-01-02 15:04:05")
	parts := max(1, min(workers, s.Warehouses))
	var files []workload.DataFile
	for _, t := range AllTables() {
		if !t.PerWarehouse() {
			files = append(files, workload.DataFile{Name: t.String() + "." + string(format), Table: t.String(), Columns: t.Columns(),
				Write: func(ctx context.Context, w io.Writer) (int64, error) {
					return g.WriteFlatFile(ctx, w, t, 0, 0, now, format)
				}})
			continue
		}
		for p := range parts {
			first, last := p*s.Warehouses/parts+1, (p+1)*s.Warehouses/parts
			name := t.String() + "." + string(format)
			if parts > 1 {
				name = fmt.Sprintf("%s.%s.%d", t, format, p+1)
			}
			files = append(files, workload.DataFile{Name: name, Table: t.String(), Columns: t.Columns(),
				Write: func(ctx context.Context, w io.Writer) (int64, error) {
					return g.WriteFlatFile(ctx, w, t, first, last, now, format)
				}})
		}
	}
	return files, nil
}

// PrepareRun connects the run's monitor session and reads the build.
func (Workload) PrepareRun(ctx context.Context, env workload.Env, s config.Plan) (workload.OLTPRun, error) {
	mode, err := ParseMode(s.Mode)
	if err != nil {
		return nil, err
	}
	iso, err := db.ParseIsolation(s.Isolation)
	if err != nil {
		return nil, err
	}
	execMode, err := db.ParseExecMode(s.ExecMode)
	if err != nil {
		return nil, err
	}
	snap, err := db.ParseSnapshotIsolation(s.SnapshotIsolation)
	if err != nil {
		return nil, err
	}
	r, err := NewRunner(ctx, env.Driver, env.Target, RunOptions{
		Mode: mode, Isolation: iso, SnapshotIsolation: snap, ExecMode: execMode, RandomHome: s.RandomHome, Seed: s.Seed,
		Segment: s.Segment, VUs: s.VU,
	})
	if err != nil {
		return nil, err
	}
	return &oltpRun{Runner: r, spec: s, iso: iso, execMode: execMode}, nil
}

// oltpRun is a prepared TPROC-C run as the job service sees it.
type oltpRun struct {
	*Runner
	spec     config.Plan
	iso      db.Isolation
	execMode db.ExecMode
}

func isolationName(i db.Isolation) string {
	if i == db.DefaultIsolation {
		return "default"
	}
	return string(i)
}

func (r *oltpRun) Settings() map[string]string {
	c := r.Constants()
	kv := map[string]string{
		"mode": string(r.Mode()), "isolation": isolationName(r.iso), "exec_mode": string(r.execMode),
		"random_home": strconv.FormatBool(r.spec.RandomHome), "seed": strconv.FormatUint(r.Seed(), 10),
		"warehouses": strconv.Itoa(r.Warehouses()), "c_load": strconv.Itoa(r.CLoad()),
		"c_run_last": strconv.Itoa(c.CLast), "c_id": strconv.Itoa(c.CID), "c_ol_i_id": strconv.Itoa(c.OLIID),
	}
	// The session settings Sledge chooses: asked for, and, on a server
	// that has it, what the sessions run with.
	if r.drv.Kind() == db.MySQL && r.opts.SnapshotIsolation != "" {
		kv["snapshot_isolation"] = string(r.opts.SnapshotIsolation)
	}
	if v := r.SnapshotValue(); v != "" {
		kv["innodb_snapshot_isolation"] = v
	}
	addSegmentSettings(kv, r.spec)
	return kv
}

// Terminals is how many terminals a terminal run has: as asked, else 10
// per warehouse when paced [4.2.2], else one per session; at least one per
// session. A rate run's arrivals draw their inputs from 10 terminals per
// warehouse (at least one per session), so that every (warehouse,
// district) is a home, however few the sessions.
func (r *oltpRun) Terminals() int {
	n := r.spec.Sessions()
	switch {
	case r.spec.Model == config.LoadRate:
		n = max(n, min(config.TerminalsPerWarehouse*r.Warehouses(), config.MaxTerminals))
	case r.spec.Terminals > 0:
		n = max(n, r.spec.Terminals)
	case r.spec.PacingFactor() > 0:
		n = max(n, config.TerminalsPerWarehouse*r.Warehouses())
	}
	return n
}

// Audit is the runner's audit, except that a rate run with a rate per
// transaction type has the mix it asked for, not the deck's: its mix items
// are not judged.
func (r *oltpRun) Audit(completed, rolledBack []int64, failed []map[string]int64) []metrics.AuditItem {
	items := r.Runner.Audit(completed, rolledBack, failed)
	if r.spec.RateByType == nil {
		return items
	}
	for i, a := range items {
		if strings.HasPrefix(a.Name, "mix ") {
			items[i] = verdict(a, metrics.VerdictNA, "the mix is the rates asked per transaction type, not the deck's")
		}
	}
	return items
}

// RateByType is the rate per transaction type of a rate run (nil: a total
// rate, the types drawn from the deck).
func (r *oltpRun) RateByType() []float64 { return RateByType(r.spec) }

// users names what offers the load: VUs, terminals over sessions, or
// arrivals at a rate.
func (r *oltpRun) users() string {
	s := r.spec
	switch s.Model {
	case config.LoadTerminals:
		return fmt.Sprintf("%s over %s", report.Plural(r.Terminals(), "terminal"), report.Plural(s.Sessions(), "connection"))
	case config.LoadRate:
		rate := fmt.Sprintf("%g transactions/s", s.TotalRate())
		if s.RateByType != nil {
			rate += " (" + config.FormatRateByType(s.RateByType) + ")"
		}
		return fmt.Sprintf("open-loop arrivals at %s over %s", rate, report.Plural(s.Sessions(), "connection"))
	}
	return report.Plural(s.VU, "VU")
}

func (r *oltpRun) Describe() string {
	d := fmt.Sprintf("%s, %s, mode %s", report.Plural(r.Warehouses(), "warehouse"), r.users(), r.Mode())
	if s := r.spec.Stages; s != nil {
		d += "; stages " + config.FormatStages(s)
	}
	if n := r.spec.Iterations; n > 0 {
		d += fmt.Sprintf(", %s per VU (an iteration run)", report.Plural(n, "transaction"))
	}
	if seg := r.spec.Segment; !seg.IsWhole() {
		first, count := seg.Share(r.spec.VU)
		vus := fmt.Sprintf("VU %d", first+1)
		if count > 1 {
			vus = fmt.Sprintf("VUs %d-%d", first+1, first+count)
		}
		d += fmt.Sprintf("; segment %s: %s", seg, vus)
		if wf, wc, own := r.HomeWarehouses(); own {
			d += " homed on " + warehouseRange(wf, wc)
		}
	}
	return d
}

func (r *oltpRun) Notes() []string {
	var notes []string
	if _, _, own := r.HomeWarehouses(); !own {
		seg := r.spec.Segment
		notes = append(notes, fmt.Sprintf("segment %s gets no warehouse of its own (%s): its VUs are homed over all of them, as in a whole run, sharing districts with other segments' VUs",
			seg, report.Plural(r.Warehouses(), "warehouse")))
	}
	w := r.Warehouses()
	users, what := r.spec.VU, "VUs"
	switch r.spec.Model {
	case config.LoadTerminals:
		users, what = r.Terminals(), "terminals"
	case config.LoadRate:
		users = 0 // arrivals have no home of their own beyond the sessions'
	}
	if users > 10*w {
		notes = append(notes, fmt.Sprintf("%d %s on %d warehouses is more than 10 per warehouse; expect contention on district rows", users, what, w))
	}
	if r.spec.PacingFactor() > 0 && users != 10*w {
		how := fmt.Sprintf("use %d VUs", 10*w)
		if r.spec.Model == config.LoadTerminals {
			how = fmt.Sprintf("use %d terminals (the default)", 10*w)
		}
		notes = append(notes, fmt.Sprintf("paced runs emulate 10 terminals per warehouse: %s for %s", how, report.Plural(w, "warehouse")))
	}
	return notes
}

func (r *oltpRun) Complete(res *metrics.RunResult) {
	res.Warehouses = r.Warehouses()
	res.Mode = string(r.Mode())
	res.Isolation = isolationName(r.iso)
	// A staged run's load changes stage by stage: its efficiency against
	// one ceiling would mean nothing (the stages' rows say what each did).
	if p := r.spec.PacingFactor(); p > 0 && r.spec.Stages == nil {
		// A paced terminal (or VU) offers at most a tenth of a warehouse's
		// 12.86 NOPM; ten per warehouse reach the warehouses' ceiling.
		// Scaled times raise it in proportion.
		users := r.spec.VU
		if r.spec.Model == config.LoadTerminals {
			users = r.Terminals()
		}
		res.PacedCeiling = PacedNOPMPerWarehouse * float64(users) / config.TerminalsPerWarehouse / p
	}
}
