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
	"sync"
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

	mu        sync.Mutex
	terminals []*terminal // read by Complete, once the VUs have stopped
}

var _ workload.Pool = (*Runner)(nil)

// TxNames are the scripts' names.
func (r *Runner) TxNames() []string { return r.names }

// Classify is the driver's: a script's SQL error wraps the server's.
func (r *Runner) Classify(err error) db.ErrorClass { return r.drv.Classify(err) }

// Close closes the monitor session.
func (r *Runner) Close(ctx context.Context) error { return r.mon.Close(ctx) }

// NewWorker opens VU vu's session; its client is pgscript's client vu.
func (r *Runner) NewWorker(ctx context.Context, vu int) (workload.Worker, error) {
	t, err := r.newTerminal(vu)
	if err != nil {
		return nil, err
	}
	w := &Worker{terminal: t, session: &session{r: r}}
	if err := w.session.connect(ctx); err != nil {
		return nil, err
	}
	return w, nil
}

// NewTerminal is pgscript's client vu, apart from any session (a rate
// run's arrivals draw their inputs from it).
func (r *Runner) NewTerminal(vu int) workload.Terminal {
	t, err := r.newTerminal(vu)
	if err != nil {
		// The engine asks for no more terminals than the run's clients
		// (config.Plan.Sessions): a broken invariant, not bad input.
		panic(err)
	}
	return t
}

// NewSession opens one session of a rate run's pool.
func (r *Runner) NewSession(ctx context.Context) (workload.Session, error) {
	s := &session{r: r}
	if err := s.connect(ctx); err != nil {
		return nil, err
	}
	return s, nil
}

func (r *Runner) newTerminal(vu int) (*terminal, error) {
	clients := r.setup.Clients()
	if vu < 0 || vu >= len(clients) {
		return nil, fmt.Errorf("VU %d: the run has %d clients", vu+1, len(clients))
	}
	t := &terminal{client: clients[vu]}
	for _, sc := range r.setup.Scripts() {
		t.timing = append(t.timing, make([]commandStat, len(sc.Script.Commands)))
	}
	r.mu.Lock()
	r.terminals = append(r.terminals, t)
	r.mu.Unlock()
	return t, nil
}

// Settings are recorded with the job.
func (r *Runner) Settings() map[string]string {
	return map[string]string{
		"scripts": joinNames(r.scriptSpecs()), "query_mode": r.mode.String(), "seed": strconv.FormatUint(r.seed, 10),
		"scale": strconv.FormatInt(r.meta.Scale, 10), "defines": joinNames(r.plan.Defines),
		"isolation": isolationName(r.iso), "per_statement": strconv.FormatBool(r.plan.PerStatement),
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
	res.Commands = r.commandTimings()
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

// commandTimings adds up the VUs' timings of each script command, in
// script and command order.
func (r *Runner) commandTimings() []metrics.CommandTiming {
	if r.setup == nil {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []metrics.CommandTiming
	for si, sc := range r.setup.Scripts() {
		for ci, cmd := range sc.Script.Commands {
			c := metrics.CommandTiming{Tx: r.names[si], Index: ci, Command: cmd.Text}
			for _, t := range r.terminals {
				st := t.timing[si][ci]
				c.Count += st.count
				c.Total += st.total
				c.Failures += st.failures
			}
			out = append(out, c)
		}
	}
	return out
}

// commandStat is one VU's account of one script command.
type commandStat struct {
	count, failures int64
	total           time.Duration
}

// balanceTimeout bounds the read of the sums after a run: a sum over the
// accounts of a large scale takes a while, but a run's end must not hang.
const balanceTimeout = 5 * time.Minute

// terminal is one pgscript client: its variables, random streams and
// account of its commands' latencies.
type terminal struct {
	client *pgscript.Client
	script int
	// ran says the chosen script ran once already: running it again is a
	// retry, which replays the same draws (Client.Rewind); tries counts
	// the retries so far.
	ran   bool
	tries int
	// timing is the client's account of each command, by script
	// (pgbench's per-statement latencies): the latencies pgscript
	// measures anyway, added up.
	timing [][]commandStat
}

// Next chooses the next script.
func (t *terminal) Next() int {
	t.ran, t.tries = false, 0
	t.script = t.client.Choose()
	return t.script
}

// Choose makes script tx the next one.
func (t *terminal) Choose(tx int) {
	t.ran, t.tries = false, 0
	t.script = tx
}

// ExecuteOn runs the chosen script on s, a session of the same runner.
func (t *terminal) ExecuteOn(ctx context.Context, s workload.Session) error {
	return t.run(ctx, s.(*session).pg)
}

// run runs the chosen script once, as one transaction; a retry draws the
// same values again.
func (t *terminal) run(ctx context.Context, pg pgscript.Conn) error {
	if t.ran {
		t.client.Rewind()
		t.tries++
		// A retry replays the same draws: sent at once, it meets the same
		// rows held by the same competitor and fails again (5 of 3,044
		// serializable tpcb-like transactions failed after 50 tries). A
		// short random wait, growing with the tries, lets the competitor
		// commit first.
		if err := backoff(ctx, t.tries); err != nil {
			return err
		}
	}
	t.ran = true
	out, err := t.client.Run(ctx, pg, t.script)
	if out.Latency == nil {
		return err
	}
	st := t.timing[out.Script]
	for i, d := range out.Latency {
		if d >= 0 {
			st[i].count++
			st[i].total += d
		}
	}
	if out.Failed >= 0 {
		st[out.Failed].failures++
	}
	return err
}

// maxBackoff bounds the wait before a retry.
const maxBackoff = 20 * time.Millisecond

// backoff waits before retry number try (1, 2, …): a random time up to
// 100 µs doubled each try, at most maxBackoff ("full jitter").
func backoff(ctx context.Context, try int) error {
	ceiling := min(maxBackoff, 100*time.Microsecond<<min(try-1, 16))
	d := time.Duration(rand.Int64N(int64(ceiling)) + 1)
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-timer.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// session is one database session that runs scripts.
type session struct {
	r    *Runner
	conn db.Conn
	pg   pgscript.Conn // pgscript's over pgx on PostgreSQL, sqlConn elsewhere
}

func (s *session) connect(ctx context.Context) error {
	c, err := s.r.drv.Connect(ctx, s.r.target, db.Options{AppName: "sledge pgbench", Isolation: s.r.iso})
	if err != nil {
		return err
	}
	s.conn = c
	if ps, ok := c.(pgxSession); ok {
		s.pg = pgscript.NewPgConn(ps.Pgx().PgConn())
	} else {
		s.pg = &sqlConn{c: c}
	}
	return nil
}

// Reconnect replaces the session (prepared statements go with it).
func (s *session) Reconnect(ctx context.Context) error {
	if s.conn != nil {
		_ = s.conn.Close(ctx)
	}
	return s.connect(ctx)
}

// Close closes the session.
func (s *session) Close(ctx context.Context) error { return s.conn.Close(ctx) }

// Worker is one VU: a pgscript client on its own session.
type Worker struct {
	*terminal
	*session
}

// Execute runs the chosen script once on the VU's session.
func (w *Worker) Execute(ctx context.Context) error { return w.run(ctx, w.pg) }

// isolationName is the isolation as the job records it.
func isolationName(i db.Isolation) string {
	if i == db.DefaultIsolation {
		return "default"
	}
	return string(i)
}
