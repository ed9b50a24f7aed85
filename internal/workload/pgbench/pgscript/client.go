package pgscript

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"
)

// QueryMode is how SQL commands reach the server (pgbench's -M).
type QueryMode uint8

const (
	// Simple substitutes the variables' texts into the SQL and sends it
	// with the simple query protocol.
	Simple QueryMode = iota
	// Extended sends the SQL with $n parameters (one per :variable
	// reference) and the variables' texts as their values, unnamed.
	Extended
	// Prepared is Extended with each command prepared once per session.
	Prepared
)

func (m QueryMode) String() string {
	switch m {
	case Extended:
		return "extended"
	case Prepared:
		return "prepared"
	}
	return "simple"
}

// ParseQueryMode reads simple, extended or prepared.
func ParseQueryMode(s string) (QueryMode, error) {
	switch s {
	case "simple":
		return Simple, nil
	case "extended":
		return Extended, nil
	case "prepared":
		return Prepared, nil
	}
	return 0, fmt.Errorf("invalid query mode %q (simple, extended or prepared)", s)
}

// Query is one SQL command as the executor sends it.
type Query struct {
	Mode QueryMode
	// SQL is the text to send: variables substituted in simple mode
	// (which may hold several statements), with $n parameters otherwise.
	SQL string
	// Params are the parameters' texts; nil is SQL NULL (a variable that
	// does not exist). Empty in simple mode.
	Params [][]byte
	// Name is the statement's name in prepared mode: the same command of
	// the same script always has the same name, so a session prepares it
	// once.
	Name string
	// Rows says whether the results are needed: only then does Exec
	// return them.
	Rows bool
}

// Result is one result of a query: its column names, its number of rows
// and the texts of its last row (NULL as ""), as libpq gives them.
type Result struct {
	Columns []string
	Rows    int
	Last    []string
}

// Conn is the database session Run needs.
type Conn interface {
	// Exec runs q and returns its results when q.Rows is set (one per
	// statement of a simple-mode query).
	Exec(ctx context.Context, q *Query) ([]Result, error)
	// InTransaction reports whether the session is inside a transaction
	// block, failed or not.
	InTransaction() bool
}

// Pipeliner is a Conn that can also send a batch of queries before reading
// any result, as libpq's pipeline mode: the server runs them in order, up
// to the first error, as one implicit transaction unless they hold their
// own BEGIN and COMMIT. With a Conn that is not a Pipeliner, the commands
// of a pipeline run one after the other, each in its own transaction.
type Pipeliner interface {
	Conn
	// ExecPipeline sends qs (none of which needs its rows) and a sync,
	// and returns the first error.
	ExecPipeline(ctx context.Context, qs []Query) error
}

// Weighted is a script with its weight in the choice of scripts.
type Weighted struct {
	Script *Script
	Weight int
}

// Define is a predefined variable (pgbench's -D name=value).
type Define struct{ Name, Value string }

// Config is what a set of clients shares.
type Config struct {
	Scripts []Weighted
	Clients int
	// Threads is pgbench's -j: clients are dealt to threads in order, and
	// each thread has its own stream for choosing scripts (and for
	// throttling). Default 1; more threads than clients count as one per
	// client, as in pgbench.
	Threads int
	// Seed is the random seed (pgbench's --random-seed as a number).
	Seed uint64
	// Scale is the value of :scale unless a Define sets it. Default 1.
	Scale   int64
	Defines []Define
	Mode    QueryMode
	// AllowShell lets \shell and \setshell run commands with sh -c;
	// without it they fail.
	AllowShell bool
	// Debug receives the output of debug(); nil discards it.
	Debug io.Writer
}

// Setup holds the clients and threads of a run, with the random streams
// pgbench derives from the seed.
type Setup struct {
	cfg         Config
	totalWeight int64
	clients     []*Client
	threads     []*Thread
	prepNames   [][]string
}

// Thread is one of pgbench's threads: the streams its clients share.
type Thread struct {
	mu       sync.Mutex
	choose   Rand
	throttle Rand
	sample   Rand
}

// MaxWeight is the largest weight pgbench accepts.
const MaxWeight = math.MaxInt32

// New derives the clients' and threads' states from cfg, in pgbench's
// order: a base stream seeded with the seed; one draw from it seeds each
// client's stream; then (unless defined) one draw is :default_seed; then
// three draws seed each thread's choice, throttling and sampling streams.
func New(cfg Config) (*Setup, error) {
	if len(cfg.Scripts) == 0 {
		return nil, errors.New("no script")
	}
	if cfg.Clients < 1 {
		return nil, fmt.Errorf("number of clients must be at least 1 (not %d)", cfg.Clients)
	}
	if cfg.Threads == 0 {
		cfg.Threads = 1
	}
	if cfg.Threads < 1 {
		return nil, fmt.Errorf("number of threads must be at least 1 (not %d)", cfg.Threads)
	}
	// as pgbench: no more threads than clients (fewer threads, fewer draws)
	cfg.Threads = min(cfg.Threads, cfg.Clients)
	if cfg.Scale == 0 {
		cfg.Scale = 1
	}
	s := &Setup{cfg: cfg}
	for i, w := range cfg.Scripts {
		if w.Weight < 0 || w.Weight > MaxWeight {
			return nil, fmt.Errorf("script %s: weight %d out of range (0 .. %d)", w.Script.Name, w.Weight, MaxWeight)
		}
		s.totalWeight += int64(w.Weight)
		names := make([]string, len(w.Script.Commands))
		for j, c := range w.Script.Commands {
			names[j] = fmt.Sprintf("P_%d_%d", i, j)
			if cfg.Mode != Simple && len(c.ParamVars) > maxParams {
				return nil, &ParseError{w.Script.Name, c.Line, fmt.Sprintf("statement has too many arguments (maximum is %d)", maxParams)}
			}
		}
		s.prepNames = append(s.prepNames, names)
	}
	if s.totalWeight == 0 {
		return nil, errors.New("total script weight must not be zero")
	}
	base := NewRand(cfg.Seed)
	vars := NewVars()
	for _, d := range cfg.Defines {
		if err := vars.SetText(d.Name, d.Value); err != nil {
			return nil, fmt.Errorf("define %s: %w", d.Name, err)
		}
	}
	s.clients = make([]*Client, cfg.Clients)
	for i := range s.clients {
		s.clients[i] = &Client{ID: i, setup: s, vars: vars.clone(), rand: NewRand(base.Uint64())}
	}
	defaults := []struct {
		name string
		val  func(i int) int64
	}{
		{"scale", func(int) int64 { return cfg.Scale }},
		{"client_id", func(i int) int64 { return int64(i) }},
		{"default_seed", nil},
		{"random_seed", func(int) int64 { return int64(cfg.Seed) }},
	}
	for _, d := range defaults {
		if vars.Has(d.name) {
			continue
		}
		val := d.val
		if val == nil {
			seed := int64(base.Uint64())
			val = func(int) int64 { return seed }
		}
		for i, c := range s.clients {
			_ = c.vars.Set(d.name, IntValue(val(i)))
		}
	}
	s.threads = make([]*Thread, cfg.Threads)
	dealt := 0
	for i := range s.threads {
		t := &Thread{choose: NewRand(base.Uint64()), throttle: NewRand(base.Uint64()), sample: NewRand(base.Uint64())}
		s.threads[i] = t
		n := (cfg.Clients - dealt + cfg.Threads - i - 1) / (cfg.Threads - i)
		for _, c := range s.clients[dealt : dealt+n] {
			c.thread = t
		}
		dealt += n
	}
	return s, nil
}

// Clients returns the clients, by id.
func (s *Setup) Clients() []*Client { return s.clients }

// Threads returns the threads; client i's is Clients()[i].Thread().
func (s *Setup) Threads() []*Thread { return s.threads }

// Scripts returns the scripts with their weights.
func (s *Setup) Scripts() []Weighted { return s.cfg.Scripts }

// Mode returns the query mode.
func (s *Setup) Mode() QueryMode { return s.cfg.Mode }

// Poisson draws the next delay of the thread's throttling stream, whose
// series averages center (pgbench's schedule under --rate).
func (t *Thread) Poisson(center float64) int64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.throttle.Poisson(center)
}

// Sample draws from the thread's sampling stream, in [0, 1) (pgbench's
// --sampling-rate).
func (t *Thread) Sample() float64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.sample.Float64()
}

// Client is one of pgbench's clients: its variables and random stream. It
// is used by one goroutine at a time.
type Client struct {
	ID     int
	setup  *Setup
	thread *Thread
	vars   *Vars
	rand   Rand
	saved  Rand // the stream at the start of the last Run, for retries

	latency  []time.Duration
	pipeline bool
	batch    []Query // the pipeline's queries not yet sent
	cur      struct{ script, command int }
}

// Vars returns the client's variables.
func (c *Client) Vars() *Vars { return c.vars }

// Thread returns the client's thread.
func (c *Client) Thread() *Thread { return c.thread }

// Choose picks the next script by weight, from the thread's stream (no draw
// with a single script).
func (c *Client) Choose() int {
	if len(c.setup.cfg.Scripts) == 1 {
		return 0
	}
	c.thread.mu.Lock()
	w := c.thread.choose.Uniform(0, c.setup.totalWeight-1)
	c.thread.mu.Unlock()
	for i, s := range c.setup.cfg.Scripts {
		w -= int64(s.Weight)
		if w < 0 {
			return i
		}
	}
	return len(c.setup.cfg.Scripts) - 1
}

// Rewind restores the random stream to where the last Run began, so that
// running the same script again draws the same values: pgbench's retry of
// a transaction after a serialization failure or a deadlock.
func (c *Client) Rewind() { c.rand = c.saved }

// Outcome is what one Run measured.
type Outcome struct {
	Script int
	// Latency is each command's duration, by command index; -1 for the
	// commands not executed (skipped by \if or after an error). It is
	// reused by the client's next Run.
	Latency []time.Duration
	// Failed is the index of the command that failed; -1 when none did.
	Failed int
}

// CommandError is an error of one command. Err keeps the driver's error
// of an SQL command (and with it the SQLSTATE that classifies it);
// otherwise the command failed in the script itself (an expression, a
// variable, \sleep, \shell), which pgbench treats as fatal for the client.
type CommandError struct {
	Script  string
	Line    int
	Command string
	SQL     bool
	Err     error
}

func (e *CommandError) Error() string {
	return fmt.Sprintf("%s:%d: %s: %v", e.Script, e.Line, e.Command, e.Err)
}

func (e *CommandError) Unwrap() error { return e.Err }

// Run executes script number script once, as one pgbench transaction, on
// conn. After an SQL error it rolls back the transaction block the session
// is in, if any, and returns a *CommandError wrapping the driver's error.
func (c *Client) Run(ctx context.Context, conn Conn, script int) (Outcome, error) {
	c.saved = c.rand
	sc := c.setup.cfg.Scripts[script].Script
	if cap(c.latency) < len(sc.Commands) {
		c.latency = make([]time.Duration, len(sc.Commands))
	}
	lat := c.latency[:len(sc.Commands)]
	for i := range lat {
		lat[i] = -1
	}
	out := Outcome{Script: script, Latency: lat, Failed: -1}
	c.cur.script = script
	c.pipeline = false
	c.batch = c.batch[:0]
	pipeliner, _ := conn.(Pipeliner)
	en := &env{vars: c.vars, rand: &c.rand, debug: c.setup.cfg.Debug, where: c.where}
	fail := func(cmd *Command, sqlErr bool, err error) (Outcome, error) {
		if sqlErr && conn.InTransaction() {
			// a failed block stays failed until rolled back; pgbench rolls
			// it back before retrying or counting the failure
			if _, rerr := conn.Exec(ctx, &Query{Mode: Simple, SQL: "ROLLBACK"}); rerr != nil {
				err = fmt.Errorf("%w (and the rollback failed: %v)", err, rerr)
			}
		}
		c.pipeline = false
		c.batch = c.batch[:0]
		for k := range sc.Commands {
			if &sc.Commands[k] == cmd {
				out.Failed = k
				break
			}
		}
		return out, &CommandError{Script: sc.Name, Line: cmd.Line, Command: cmd.Text, SQL: sqlErr, Err: err}
	}
	for i := 0; i < len(sc.Commands); {
		cmd := &sc.Commands[i]
		c.cur.command = i
		start := time.Now()
		next := i + 1
		switch cmd.Kind {
		case SQL:
			if c.pipeline && cmd.Store != StoreNone {
				return fail(cmd, false, errors.New("\\gset and \\aset are not allowed in pipeline mode"))
			}
			if c.pipeline && pipeliner != nil {
				c.batch = append(c.batch, c.query(script, i, cmd))
				break
			}
			if err := c.execSQL(ctx, conn, script, i, cmd); err != nil {
				var se *storeError
				if errors.As(err, &se) {
					return fail(cmd, false, err)
				}
				return fail(cmd, true, err)
			}
		case MetaSet:
			v, err := cmd.Expr.root.eval(en)
			if err != nil {
				return fail(cmd, false, err)
			}
			if err := c.vars.Set(cmd.Var, v); err != nil {
				return fail(cmd, false, err)
			}
		case MetaIf, MetaElif:
			// reached in sequence, an \elif ends the branch that ran
			if cmd.Kind == MetaElif {
				next = cmd.endif + 1
				break
			}
			j, err := c.branch(en, sc, i)
			if err != nil {
				return fail(&sc.Commands[j], false, err)
			}
			next = j
		case MetaElse:
			next = cmd.endif + 1
		case MetaEndif:
		case MetaSleep:
			d, err := sleepDuration(c.vars, cmd.Args)
			if err != nil {
				return fail(cmd, false, err)
			}
			if err := sleep(ctx, d); err != nil {
				return fail(cmd, false, err)
			}
		case MetaShell, MetaSetShell:
			if err := c.shell(ctx, cmd); err != nil {
				return fail(cmd, false, err)
			}
		case MetaStartPipeline:
			switch {
			case c.setup.cfg.Mode == Simple:
				return fail(cmd, false, errors.New("cannot use pipeline mode with the simple query protocol"))
			case c.pipeline:
				return fail(cmd, false, errors.New("already in pipeline mode"))
			}
			c.pipeline = true
		case MetaSyncPipeline, MetaEndPipeline:
			if !c.pipeline {
				return fail(cmd, false, errors.New("not in pipeline mode"))
			}
			if len(c.batch) > 0 {
				if err := pipeliner.ExecPipeline(ctx, c.batch); err != nil {
					return fail(cmd, true, err)
				}
				c.batch = c.batch[:0]
			}
			c.pipeline = cmd.Kind == MetaSyncPipeline
		}
		lat[i] = time.Since(start)
		i = next
	}
	if c.pipeline {
		return fail(&sc.Commands[len(sc.Commands)-1], false, errors.New("end of script reached with pipeline open"))
	}
	return out, nil
}

// branch evaluates the condition of the \if at i and, while it and the
// following \elif conditions are false, moves to the next branch; it
// returns the index of the first command to run (the index of the command
// that failed, on error).
func (c *Client) branch(en *env, sc *Script, i int) (int, error) {
	for {
		cmd := &sc.Commands[i]
		switch cmd.Kind {
		case MetaElse, MetaEndif:
			return i + 1, nil
		}
		c.cur.command = i
		v, err := cmd.Expr.root.eval(en)
		if err != nil {
			return i, err
		}
		if v.truth() {
			return i + 1, nil
		}
		i = cmd.next
	}
}

func (c *Client) where() string {
	return fmt.Sprintf("script=%d,command=%d", c.cur.script, c.cur.command+1)
}

// storeError is a \gset or \aset failure: a script error, not an SQL one.
type storeError struct{ msg string }

func (e *storeError) Error() string { return e.msg }

// query builds the query of SQL command i of script script in the
// client's mode.
func (c *Client) query(script, i int, cmd *Command) Query {
	q := Query{Mode: c.setup.cfg.Mode, Rows: cmd.Store != StoreNone}
	if q.Mode == Simple {
		q.SQL = Substitute(cmd.SQL, c.vars)
		return q
	}
	q.SQL = cmd.ParamSQL
	q.Params = make([][]byte, len(cmd.ParamVars))
	for k, name := range cmd.ParamVars {
		if t, ok := c.vars.Text(name); ok {
			q.Params[k] = []byte(t)
		}
	}
	if q.Mode == Prepared {
		q.Name = c.setup.prepNames[script][i]
	}
	return q
}

func (c *Client) execSQL(ctx context.Context, conn Conn, script, i int, cmd *Command) error {
	q := c.query(script, i, cmd)
	results, err := conn.Exec(ctx, &q)
	if err != nil {
		return err
	}
	switch cmd.Store {
	case StoreLast:
		if len(results) == 0 || results[len(results)-1].Rows != 1 {
			rows := 0
			if len(results) > 0 {
				rows = results[len(results)-1].Rows
			}
			return &storeError{fmt.Sprintf("\\gset: expected one row, got %d", rows)}
		}
		return c.store(cmd.Prefix, results[len(results)-1])
	case StoreAll:
		for _, r := range results {
			if r.Rows > 0 {
				if err := c.store(cmd.Prefix, r); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

func (c *Client) store(prefix string, r Result) error {
	for k, col := range r.Columns {
		if err := c.vars.SetText(prefix+col, r.Last[k]); err != nil {
			return &storeError{fmt.Sprintf("error storing into variable %s: %v", prefix+col, err)}
		}
	}
	return nil
}

// sleepDuration reads \sleep's arguments as pgbench does: a number or a
// :variable (read like C's atoi), in seconds unless a unit (us, ms, s)
// follows.
func sleepDuration(vars *Vars, args []string) (time.Duration, error) {
	text := args[0]
	if strings.HasPrefix(text, ":") {
		v, ok := vars.Text(text[1:])
		if !ok {
			return 0, fmt.Errorf("undefined variable %q", text[1:])
		}
		text = v
		if n := atoi(v); n == 0 && (v == "" || !isDigit(v[0])) {
			return 0, fmt.Errorf("invalid sleep time %q for variable %q", v, args[0][1:])
		}
	}
	n := atoi(text)
	unit := "s"
	if len(args) > 1 {
		unit = strings.ToLower(args[1])
	}
	switch unit {
	case "ms":
		n *= 1000
	case "s":
		n *= 1000000
	}
	return time.Duration(n) * time.Microsecond, nil
}

// atoi is C's atoi: leading white space, a sign, digits, then anything.
func atoi(s string) int64 {
	s = strings.TrimLeft(s, " \t\n\r\f\v")
	neg := false
	if s != "" && (s[0] == '+' || s[0] == '-') {
		neg = s[0] == '-'
		s = s[1:]
	}
	var n int64
	for i := 0; i < len(s) && isDigit(s[i]); i++ {
		n = n*10 + int64(s[i]-'0')
		if n > math.MaxInt32 {
			n = math.MaxInt32
		}
	}
	if neg {
		return -n
	}
	return n
}

func sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// ErrShellNotAllowed is the error of \shell and \setshell when the
// configuration does not allow them.
var ErrShellNotAllowed = errors.New("shell commands are not allowed")

func (c *Client) shell(ctx context.Context, cmd *Command) error {
	if !c.setup.cfg.AllowShell {
		return ErrShellNotAllowed
	}
	words := cmd.Args
	if cmd.Kind == MetaSetShell {
		words = words[1:]
	}
	parts := make([]string, len(words))
	for k, w := range words {
		switch {
		case strings.HasPrefix(w, "::"):
			parts[k] = w[1:]
		case strings.HasPrefix(w, ":"):
			v, ok := c.vars.Text(w[1:])
			if !ok {
				return fmt.Errorf("undefined variable %q", w)
			}
			parts[k] = v
		default:
			parts[k] = w
		}
	}
	run := exec.CommandContext(ctx, "sh", "-c", strings.Join(parts, " "))
	if cmd.Kind == MetaShell {
		if err := run.Run(); err != nil {
			return fmt.Errorf("could not run shell command: %w", err)
		}
		return nil
	}
	out, err := run.Output()
	if err != nil {
		return fmt.Errorf("could not run shell command: %w", err)
	}
	first := strings.SplitN(string(out), "\n", 2)[0]
	n, err := strconv.ParseInt(strings.TrimSpace(first), 10, 32)
	if err != nil {
		return fmt.Errorf("shell command must return an integer (not %q)", first)
	}
	return c.vars.Set(cmd.Args[0], IntValue(n))
}
