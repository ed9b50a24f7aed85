package pgbench

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sledge-bench/sledge/internal/config"
	"github.com/sledge-bench/sledge/internal/db"
	"github.com/sledge-bench/sledge/internal/metrics"
	"github.com/sledge-bench/sledge/internal/report"
	"github.com/sledge-bench/sledge/internal/workload"
	"github.com/sledge-bench/sledge/internal/workload/pgbench/pgscript"
)

// DefaultScript is the script of a run that names none, as pgbench's.
const DefaultScript = "builtin:tpcb-like"

// builtinPrefix marks a built-in script in config.Spec.Scripts.
const builtinPrefix = "builtin:"

// parseScripts reads the run's scripts ("builtin:NAME[@W]" or
// "PATH[@W]"), each named as its transaction type: the built-in's name, or
// the file's base name; a name that repeats gets "#2", "#3" …
func parseScripts(specs []string) ([]pgscript.Weighted, error) {
	if len(specs) == 0 {
		specs = []string{DefaultScript}
	}
	var (
		out   []pgscript.Weighted
		errs  []error
		seen  = map[string]int{}
		total int64
	)
	for _, spec := range specs {
		what, weight, err := pgscript.SplitWeight(spec)
		if err != nil {
			errs = append(errs, fmt.Errorf("%q: %w", spec, err))
			continue
		}
		var sc *pgscript.Script
		if name, ok := strings.CutPrefix(what, builtinPrefix); ok {
			sc, err = pgscript.Builtin(name)
		} else {
			var b []byte
			if b, err = os.ReadFile(what); err == nil {
				sc, err = pgscript.Parse(filepath.Base(what), string(b))
			}
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("%q: %w", spec, err))
			continue
		}
		seen[sc.Name]++
		if n := seen[sc.Name]; n > 1 {
			sc.Name += "#" + strconv.Itoa(n)
		}
		total += int64(weight)
		out = append(out, pgscript.Weighted{Script: sc, Weight: weight})
	}
	if len(errs) == 0 && total == 0 {
		errs = append(errs, errors.New("the scripts' weights add up to 0"))
	}
	return out, errors.Join(errs...)
}

// parseDefines reads NAME=VALUE definitions.
func parseDefines(defs []string) ([]pgscript.Define, error) {
	var (
		out  []pgscript.Define
		errs []error
	)
	for _, d := range defs {
		v, err := pgscript.ParseDefine(d)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		out = append(out, v)
	}
	return out, errors.Join(errs...)
}

// pgxSession is a session that exposes its pgx connection (PostgreSQL's).
type pgxSession interface {
	Pgx() *pgx.Conn
}

// PrepareRun reads the build's record on a monitor session and derives
// one pgscript client per VU from the seed.
func (Workload) PrepareRun(ctx context.Context, env workload.Env, p config.Plan) (workload.OLTPRun, error) {
	if env.Driver.Kind() != db.Postgres {
		return nil, fmt.Errorf("pgbench runs on PostgreSQL only for now, not %s", env.Driver.Kind())
	}
	scripts, err := parseScripts(p.Scripts)
	if err != nil {
		return nil, err
	}
	defines, err := parseDefines(p.Defines)
	if err != nil {
		return nil, err
	}
	mode := pgscript.Simple
	if p.QueryMode != "" {
		if mode, err = pgscript.ParseQueryMode(p.QueryMode); err != nil {
			return nil, err
		}
	}
	iso, err := db.ParseIsolation(p.Isolation)
	if err != nil {
		return nil, err
	}
	mon, err := env.Driver.Connect(ctx, env.Target, db.Options{AppName: "sledge monitor", MustExist: true})
	if err != nil {
		return nil, err
	}
	r := &Runner{drv: env.Driver, target: env.Target, mon: mon, plan: p, mode: mode, iso: iso}
	fail := func(err error) (workload.OLTPRun, error) {
		_ = mon.Close(context.WithoutCancel(ctx))
		return nil, err
	}
	if r.meta, err = ReadMeta(ctx, mon, env.Driver.Kind()); err != nil {
		return fail(err)
	}
	r.seed = p.Seed
	if r.seed == 0 {
		r.seed = rand.Uint64()
	}
	r.setup, err = pgscript.New(pgscript.Config{Scripts: scripts, Clients: p.Sessions(), Threads: 1,
		Seed: r.seed, Scale: r.meta.Scale, Defines: defines, Mode: mode})
	if err != nil {
		return fail(err)
	}
	for _, s := range scripts {
		r.names = append(r.names, s.Script.Name)
	}
	r.builtinOnly = true // the default script is tpcb-like
	for _, spec := range p.Scripts {
		if !strings.HasPrefix(spec, builtinPrefix) {
			r.builtinOnly = false
		}
	}
	return r, nil
}

// Runner is a prepared pgbench run.
type Runner struct {
	drv    db.Driver
	target db.Target
	mon    db.Conn
	plan   config.Plan
	meta   Meta
	mode   pgscript.QueryMode
	iso    db.Isolation
	seed   uint64
	setup  *pgscript.Setup
	names  []string
	// builtinOnly: every script is a built-in one.
	builtinOnly bool
}

// TxNames are the scripts' names.
func (r *Runner) TxNames() []string { return r.names }

// Classify is the driver's: a script's SQL error wraps the server's.
func (r *Runner) Classify(err error) db.ErrorClass { return r.drv.Classify(err) }

// Close closes the monitor session.
func (r *Runner) Close(ctx context.Context) error { return r.mon.Close(ctx) }

// NewWorker opens VU vu's session; its client is pgscript's client vu.
func (r *Runner) NewWorker(ctx context.Context, vu int) (workload.Worker, error) {
	clients := r.setup.Clients()
	if vu < 0 || vu >= len(clients) {
		return nil, fmt.Errorf("VU %d: the run has %d clients", vu+1, len(clients))
	}
	w := &Worker{r: r, client: clients[vu]}
	if err := w.connect(ctx); err != nil {
		return nil, err
	}
	return w, nil
}

// Settings are recorded with the job.
func (r *Runner) Settings() map[string]string {
	return map[string]string{
		"scripts": joinNames(r.scriptSpecs()), "query_mode": r.mode.String(), "seed": strconv.FormatUint(r.seed, 10),
		"scale": strconv.FormatInt(r.meta.Scale, 10), "defines": joinNames(r.plan.Defines),
		"isolation": isolationName(r.iso),
	}
}

func (r *Runner) scriptSpecs() []string {
	var out []string
	for _, s := range r.setup.Scripts() {
		out = append(out, s.Script.Name+"@"+strconv.Itoa(s.Weight))
	}
	return out
}

// Version is the server's product and version.
func (r *Runner) Version(ctx context.Context) (string, error) { return r.drv.Version(ctx, r.mon) }

// Describe is the run's set-up in a phrase.
func (r *Runner) Describe() string {
	return fmt.Sprintf("scale %d, %s, scripts %s, query mode %s", r.meta.Scale, report.Plural(r.plan.VU, "client"),
		joinNames(r.scriptSpecs()), r.mode)
}

// Notes has nothing to add yet.
func (r *Runner) Notes() []string { return nil }

// Complete records the query mode as the run's mode and, when every
// script is a built-in one, reads the sums of balances after the run (the
// VUs have stopped): the built-in scripts keep them consistent (Sums), so
// a difference means a transaction was half applied, and is a warning.
// Custom scripts may change balances as they like: nothing is said then.
func (r *Runner) Complete(res *metrics.RunResult) {
	res.Mode = r.mode.String()
	res.Isolation = isolationName(r.iso)
	if !r.builtinOnly {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), balanceTimeout)
	defer cancel()
	sums, err := Balances(ctx, r.mon, r.drv.Kind())
	switch {
	case err != nil:
		res.Warnings = append(res.Warnings, "pgbench: the sums of balances could not be read after the run: "+err.Error())
	case !sums.Consistent():
		res.Warnings = append(res.Warnings, "pgbench: after the run the sums of balances disagree ("+sums.String()+
			"): the built-in scripts keep sum(abalance) = sum(delta) and sum(tbalance) = sum(bbalance)")
	}
}

// balanceTimeout bounds the read of the sums after a run: a sum over the
// accounts of a large scale takes a while, but a run's end must not hang.
const balanceTimeout = 5 * time.Minute

// Worker is one VU: a pgscript client on its own session.
type Worker struct {
	r      *Runner
	client *pgscript.Client
	conn   db.Conn
	pg     *pgscript.PgConn
	script int
	// ran says the chosen script ran once already: running it again is a
	// retry, which replays the same draws (Client.Rewind).
	ran bool
}

func (w *Worker) connect(ctx context.Context) error {
	c, err := w.r.drv.Connect(ctx, w.r.target, db.Options{AppName: "sledge pgbench", Isolation: w.r.iso})
	if err != nil {
		return err
	}
	s, ok := c.(pgxSession)
	if !ok {
		_ = c.Close(ctx)
		return fmt.Errorf("pgbench: a %s session cannot run scripts", w.r.drv.Kind())
	}
	w.conn, w.pg = c, pgscript.NewPgConn(s.Pgx().PgConn())
	return nil
}

// Next chooses the next script.
func (w *Worker) Next() int {
	w.ran = false
	w.script = w.client.Choose()
	return w.script
}

// Execute runs the chosen script once, as one transaction; a retry draws
// the same values again.
func (w *Worker) Execute(ctx context.Context) error {
	if w.ran {
		w.client.Rewind()
	}
	w.ran = true
	_, err := w.client.Run(ctx, w.pg, w.script)
	return err
}

// Reconnect replaces the session (prepared statements go with it).
func (w *Worker) Reconnect(ctx context.Context) error {
	if w.conn != nil {
		_ = w.conn.Close(ctx)
	}
	return w.connect(ctx)
}

// Close closes the session.
func (w *Worker) Close(ctx context.Context) error { return w.conn.Close(ctx) }

// isolationName is the isolation as the job records it.
func isolationName(i db.Isolation) string {
	if i == db.DefaultIsolation {
		return "default"
	}
	return string(i)
}
