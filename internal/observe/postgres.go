package observe

import (
	"cmp"
	"context"
	_ "embed"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/sledge-bench/sledge/internal/db"
	"github.com/sledge-bench/sledge/internal/sqlfile"
)

// The PostgreSQL observer's statements, as data (postgres.sql).
//
//go:embed postgres.sql
var pgSQLText string

var pgSQL = func() map[string]string {
	list, err := sqlfile.Parse(pgSQLText)
	if err != nil {
		panic("observe: postgres.sql: " + err.Error())
	}
	return sqlfile.Map(list)
}()

const (
	// pgAppName is the observer session's application_name, and the source of
	// its own transaction counts.
	pgAppName = "sledge observe"
	// pgMarker is in every statement the observer sends (postgres.sql), so
	// that pg_stat_statements' entries for them can be told apart.
	pgMarker = "/* sledge observe */"

	pgConnectTimeout = 5 * time.Second
	// pgSampleTimeout bounds one activity sample: a server that cannot list
	// its sessions within it is treated as gone (the connection is dropped
	// and made again).
	pgSampleTimeout = time.Second
	// pgStatsTimeout bounds the statistics reads of one Cut (and of the
	// baseline after a reconnect).
	pgStatsTimeout = 2 * time.Second
	// pgConnWait bounds how long Cut waits for the connection, held by a
	// sample or a baseline read in flight (each bounded itself).
	pgConnWait   = pgStatsTimeout + pgSampleTimeout
	pgMinBackoff = 100 * time.Millisecond
	// pgMaxBackoff caps the wait between reconnection attempts, so that the
	// end of an outage is seen within about that.
	pgMaxBackoff = 2 * time.Second
	// pgMinPeriod bounds the sampling rate (100 per second).
	pgMinPeriod = 10 * time.Millisecond

	pgMaxStatementKeys = 500 // distinct statements aggregated per interval; the rest are "other"
	pgTopStatements    = 10  // statements reported per interval, from the samples and again from pg_stat_statements
	pgTextLen          = 200 // characters of a statement's text kept
)

// NewPostgres returns the observer of a PostgreSQL server (target.DSN is a
// postgres:// URL). It works on one connection of its own
// (application_name "sledge observe", read-only), never a virtual user's:
//
//   - Start reads the server's version, uptime and the settings not at their
//     defaults (but those describing a client's session: application_name,
//     client_encoding, DateStyle, TimeZone, lc_*, search_path, transaction_*),
//     checks that the role sees other roles' sessions (a superuser, or a member
//     of pg_monitor or pg_read_all_stats; else a note says so and the run goes
//     on), and uses pg_wait_sampling and pg_stat_statements when they are
//     installed in the database and loaded. The ctx given to Start must last
//     as long as the run: sampling and reconnecting stop when it is done.
//   - A goroutine samples pg_stat_activity opts.Rate times a second (a ticker:
//     late samples are skipped, never shifted) for opts.Database (default: the
//     URL's database), one query a sample: each active session but the
//     observer's is counted under its wait event (class wait_event_type, or
//     "CPU" when it waits on nothing) and its statement (query_id on
//     PostgreSQL 14 and later when compute_query_id computes one, else its
//     text, shortened, literals and all: so are statements waiting for a
//     relation's lock, which they take before they have an id). Idle
//     sessions, and idle in transaction ones, are not counted: what they
//     wait on is the client.
//   - Cut reads the cumulative statistics once (each statement once, within
//     2 s) and reports their change since the previous Cut (the first since
//     Start): pg_stat_database for the database; pg_stat_bgwriter (up to
//     PostgreSQL 16 with the checkpoints, from 17 on with the checkpoints in
//     pg_stat_checkpointer, under that view's column names); pg_stat_wal (14
//     and later); pg_stat_io summed by backend_type (16 and later);
//     pg_wait_sampling's profile by "class:event" (samples, server-wide, its
//     period as the gauge profile_period); and the statements' time and calls
//     from pg_stat_statements, merged into Statements by query id. Gauge
//     pg_stat_activity/active_sessions is the interval's average of active
//     sessions. Snapshot.Length is the wall time since the previous Cut (the
//     first: since Start), the span its samples and changes cover.
//   - The observer's own queries are transactions too: when it is connected
//     to the observed database, pg_stat_database's xact_commit and
//     xact_rollback count them. They are reported as they are, and the
//     observer's own count is given beside them as source "sledge
//     observe", names xact_commit and xact_rollback: as it sent them, while
//     a session publishes its statistics at most once a second (an idle
//     one within 10 s), so the two agree over a run, not to the interval.
//   - A view whose statistics were reset in the interval (its stats_reset
//     changed, or a counter went backwards) has no changes reported for that
//     interval: Gap says so, and the new values are the next baseline.
//   - When the connection drops, the intervals say so in Gap ("PostgreSQL
//     went away: …; reconnected after 2.1 s"); the sampling goroutine
//     reconnects with backoff (100 ms doubling to 2 s, jittered) and takes a
//     new statistics baseline at once, so no change spans the outage: the
//     interval of the reconnection reports the changes since then. Cut never
//     waits for the network longer than a few seconds: it returns what the
//     samples hold, and a statistics read that fails is a Gap.
//   - Close returns the cost: Cost.ServerShare is the CPU time of the
//     observer's server processes over the time it sampled (its first
//     session's start-up, a fixed cost, left out), read from /proc when the
//     server runs on this machine; otherwise the wall time it waited for its
//     queries, an upper bound (the network's round trips and the client's
//     own delays are in it).
func NewPostgres(target db.Target, opts Options) Observer {
	rate := opts.Rate
	if rate <= 0 {
		rate = DefaultRate
	}
	period := max(time.Duration(float64(time.Second)/rate), pgMinPeriod)
	return &pgObserver{target: target, opts: opts, period: period, sem: make(chan struct{}, 1),
		cpu: newBackendCPU("/proc", "postgres")}
}

type pgObserver struct {
	target db.Target
	opts   Options
	period time.Duration

	// Set by Start, read-only afterwards.
	cfg          *pgx.ConnConfig
	dbname       string // the observed database
	ownDB        bool   // the observer's session is in it: its transactions count there
	activitySQL  string
	statsQueries []pgStatsQuery
	pgss         *pgStatements // nil when not used
	waitPeriod   float64       // pg_wait_sampling's profile period, ms (0: not used)

	// sem is the right to use conn: a sample, Cut's statistics reads and the
	// reconnection's baseline take it in turn. What follows is guarded by it.
	sem       chan struct{}
	conn      *pgx.Conn // nil while disconnected
	base      *pgStatsRead
	baseStale atomic.Bool // a Cut could not read the statistics: base no longer matches an interval's start

	mu        sync.Mutex // guards what follows
	agg       pgAgg
	down      bool // the connection is lost and not made again yet
	downSince time.Time
	downErr   string // why it was lost
	lastTry   string // why the last reconnection attempt failed
	gaps      []string
	cost      Cost
	own       [2]int64 // the observer's committed and failed statements
	started   time.Time
	lastCut   time.Time
	stopped   error // why sampling stopped before Close

	// cpu measures the server CPU of the observer's sessions when the
	// server runs here; pid is the current session's server process.
	cpu *backendCPU
	pid atomic.Int64

	closing   atomic.Bool
	cancel    context.CancelFunc
	done      chan struct{}
	closeOnce sync.Once
	final     Cost
}

// pgStatsQuery is one statistics statement of postgres.sql.
type pgStatsQuery struct {
	source string // the view it reads
	sql    string
	dbArg  bool // takes the database's name
	keyed  bool // rows by key (pg_stat_io, pg_wait_sampling); else one row
}

// pgStatements is pg_stat_statements, when used.
type pgStatements struct {
	sql, textSQL string
	texts        map[int64]string // statements' texts, by query id (Cut alone uses these maps)
	own          map[int64]bool   // the observer's own statements
}

type pgStatementStat struct {
	calls int64
	ms    float64
}

// pgReading is one view's values at one read.
type pgReading struct {
	cols   []string
	keys   []string             // in the order read
	vals   map[string][]float64 // key → one value per column
	resets map[string]string    // key → stats_reset
}

// pgStatsRead is one read of all the statistics.
type pgStatsRead struct {
	readings map[string]*pgReading
	failed   map[string]error // source → why it could not be read (the connection still works)
	stmts    map[int64]pgStatementStat
	own      [2]int64 // the observer's own statement counts before the read
	lost     error    // the connection failed
}

// pgAgg is an interval's activity samples.
type pgAgg struct {
	samples int
	active  int // session samples
	waits   map[[2]string]int
	stmts   map[string]*pgStmtAgg
}

type pgStmtAgg struct {
	id, text string
	n        int
}

func newPgAgg() pgAgg {
	return pgAgg{waits: map[[2]string]int{}, stmts: map[string]*pgStmtAgg{}}
}

// pgActive is one active session in a sample.
type pgActive struct {
	class, event string
	queryID      pgtype.Int8
	query        pgtype.Text
}

func (o *pgObserver) Name() string { return "PostgreSQL sessions and statistics" }

func (o *pgObserver) Start(ctx context.Context) (Start, error) {
	if o.cancel != nil {
		return Start{}, errors.New("PostgreSQL observer started twice")
	}
	cfg, err := pgx.ParseConfig(o.target.DSN)
	if err != nil {
		return Start{}, fmt.Errorf("parse PostgreSQL URL %s: %w", db.Redact(o.target.DSN), errors.Unwrap(err))
	}
	cfg.RuntimeParams["application_name"] = pgAppName
	// Belt and braces: the observer never writes, and never waits long.
	cfg.RuntimeParams["default_transaction_read_only"] = "on"
	cfg.RuntimeParams["statement_timeout"] = "5s"
	cfg.RuntimeParams["lock_timeout"] = "1s"
	// One statement, one transaction: its own transactions can be counted
	// (prepared statements would add one per preparation).
	cfg.DefaultQueryExecMode = pgx.QueryExecModeSimpleProtocol
	cfg.ConnectTimeout = pgConnectTimeout
	o.cfg = cfg

	sctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	conn, err := o.dial(sctx)
	if err != nil {
		return Start{}, fmt.Errorf("connect to %s: %w", db.Redact(o.target.DSN), err)
	}
	o.conn = conn
	st, err := o.setup(sctx)
	if err == nil {
		// The first interval's baseline.
		read := o.readStats(sctx)
		o.base = &read
		if o.base.lost != nil {
			err = fmt.Errorf("read the server's statistics: %w", o.base.lost)
		}
	}
	if err != nil {
		cctx, ccancel := context.WithTimeout(context.WithoutCancel(ctx), time.Second)
		conn.Close(cctx)
		ccancel()
		o.conn = nil
		return Start{}, fmt.Errorf("observe PostgreSQL at %s: %w", db.Redact(o.target.DSN), err)
	}
	for _, source := range slices.Sorted(maps.Keys(o.base.failed)) {
		st.Notes = append(st.Notes, fmt.Sprintf("%s cannot be read: %s", source, pgOneLine(o.base.failed[source])))
	}
	now := time.Now()
	o.agg = newPgAgg()
	o.started, o.lastCut = now, now
	// The session's start-up (authentication, catalog caches, the settings
	// and the first statistics read) is a fixed cost: the share reported is
	// that of sampling, from here.
	o.cpu.mark(int(o.pid.Load()))
	gctx, gcancel := context.WithCancel(ctx)
	o.cancel, o.done = gcancel, make(chan struct{})
	go o.run(gctx)
	return st, nil
}

// setup learns the server and decides what to read.
func (o *pgObserver) setup(ctx context.Context) (Start, error) {
	var (
		st      Start
		version string
		num     int
		uptime  float64
		curDB   string
		role    string
	)
	if err := o.queryRow(ctx, pgSQL["server"], nil, &version, &num, &uptime, &curDB, &role); err != nil {
		return st, err
	}
	if num < 100000 {
		return st, fmt.Errorf("PostgreSQL %s is older than the observer supports (10)", version)
	}
	short, _, _ := strings.Cut(version, " ")
	st.Server = "PostgreSQL " + short
	st.Uptime = time.Duration(uptime * float64(time.Second)).Round(time.Second)
	o.dbname = cmp.Or(o.opts.Database, curDB)
	o.ownDB = o.dbname == curDB

	// Settings.
	err := o.query(ctx, pgSQL["settings"], nil, func(r pgx.Rows) error {
		var s Setting
		if err := r.Scan(&s.Name, &s.Value, &s.Source); err != nil {
			return err
		}
		if strings.Contains(s.Name, "conninfo") {
			s.Value = pgPassword.ReplaceAllString(s.Value, "password=…")
		}
		st.Settings = append(st.Settings, s)
		return nil
	})
	if err != nil {
		return st, fmt.Errorf("read the settings: %w", err)
	}

	// Can the role see other roles' sessions?
	var monitor bool
	if err := o.queryRow(ctx, pgSQL["role"], nil, &monitor); err != nil {
		return st, fmt.Errorf("check the role's privileges: %w", err)
	}
	if !monitor {
		st.Notes = append(st.Notes, fmt.Sprintf(
			"role %s is neither a superuser nor a member of pg_monitor (or pg_read_all_stats): without pg_monitor only this role's sessions are seen (in activity and statements); GRANT pg_monitor TO %s",
			role, pgx.Identifier{role}.Sanitize()))
	}

	// Activity and statements' ids.
	o.activitySQL = pgSQL["activity"]
	if num < 140000 {
		o.activitySQL = pgSQL["activity_13"]
		st.Notes = append(st.Notes, "PostgreSQL before 14 gives no statement ids in pg_stat_activity: the sampled statements are told apart by their text")
	} else {
		var qid string
		if err := o.queryRow(ctx, pgSQL["compute_query_id"], nil, &qid); err != nil {
			return st, err
		}
		if qid == "off" {
			st.Notes = append(st.Notes, "compute_query_id is off: the sampled statements are told apart by their text, not their id")
		}
	}

	// Cumulative statistics, by version.
	add := func(source, name string, dbArg, keyed bool) {
		o.statsQueries = append(o.statsQueries, pgStatsQuery{source: source, sql: pgSQL[name], dbArg: dbArg, keyed: keyed})
	}
	add("pg_stat_database", "stats_database", true, false)
	if num < 170000 {
		add("pg_stat_bgwriter", "stats_bgwriter", false, false)
	} else {
		add("pg_stat_bgwriter", "stats_bgwriter_17", false, false)
		add("pg_stat_checkpointer", "stats_checkpointer", false, false)
	}
	switch {
	case num >= 180000:
		add("pg_stat_wal", "stats_wal_18", false, false)
	case num >= 140000:
		add("pg_stat_wal", "stats_wal", false, false)
	}
	if num >= 160000 {
		add("pg_stat_io", "stats_io", false, true)
	}

	// Extensions of the database the observer is connected to.
	schemas := map[string]string{}
	err = o.query(ctx, pgSQL["extensions"], nil, func(r pgx.Rows) error {
		var name, schema string
		if err := r.Scan(&name, &schema); err != nil {
			return err
		}
		schemas[name] = pgx.Identifier{schema}.Sanitize()
		return nil
	})
	if err != nil {
		return st, fmt.Errorf("list the extensions: %w", err)
	}
	if schema, ok := schemas["pg_wait_sampling"]; ok {
		sql := strings.ReplaceAll(pgSQL["wait_sampling_probe"], "{{schema}}", schema)
		var n int64
		if err := o.queryRow(ctx, sql, nil, &o.waitPeriod, &n); err != nil {
			if o.conn.IsClosed() {
				return st, err
			}
			o.waitPeriod = 0
			st.Notes = append(st.Notes, fmt.Sprintf("pg_wait_sampling is installed in database %s but cannot be read (is it in shared_preload_libraries?): not used: %s", curDB, pgOneLine(err)))
		} else {
			o.statsQueries = append(o.statsQueries, pgStatsQuery{
				source: "pg_wait_sampling", keyed: true,
				sql: strings.ReplaceAll(pgSQL["stats_wait_sampling"], "{{schema}}", schema)})
			st.Notes = append(st.Notes, fmt.Sprintf(
				"pg_wait_sampling is used: its wait profile (the server's own samples, every %g ms, of all its processes in all databases, idle sessions' ClientRead included) is read at every interval, as counters of source pg_wait_sampling in samples; the waits by session come from sampling pg_stat_activity as without it",
				o.waitPeriod))
		}
	}
	if schema, ok := schemas["pg_stat_statements"]; ok {
		if err := o.setupStatements(ctx, schema); err != nil {
			if o.conn.IsClosed() {
				return st, err
			}
			st.Notes = append(st.Notes, fmt.Sprintf("pg_stat_statements is installed in database %s but cannot be read (is it in shared_preload_libraries?): not used: %s", curDB, pgOneLine(err)))
		} else {
			st.Notes = append(st.Notes, "pg_stat_statements is used: the statements' time and calls in each interval come from it")
		}
	}
	if o.ownDB {
		st.Notes = append(st.Notes, fmt.Sprintf(
			"the observer's own queries (about %g a second) are transactions of database %s: pg_stat_database counts them in xact_commit; the observer's count is given beside it (source %q)",
			1/o.period.Seconds(), o.dbname, pgAppName))
	}
	return st, nil
}

// pgPassword finds a password in a connection string.
var pgPassword = regexp.MustCompile(`password\s*=\s*('(?:[^'\\]|\\.)*'|\S+)`)

func (o *pgObserver) setupStatements(ctx context.Context, schema string) error {
	var n int64
	if err := o.queryRow(ctx, strings.ReplaceAll(pgSQL["statements_probe"], "{{schema}}", schema), nil, &n); err != nil {
		return err
	}
	col := ""
	err := o.query(ctx, strings.ReplaceAll(pgSQL["statements_time_column"], "{{schema}}", schema), nil, func(r pgx.Rows) error {
		var c string
		if err := r.Scan(&c); err != nil {
			return err
		}
		if col == "" || c == "total_exec_time" {
			col = c
		}
		return nil
	})
	if err != nil {
		return err
	}
	if col == "" {
		return errors.New("its view has no total_exec_time column")
	}
	r := strings.NewReplacer("{{schema}}", schema, "{{time}}", col)
	o.pgss = &pgStatements{
		sql: r.Replace(pgSQL["statements"]), textSQL: r.Replace(pgSQL["statement_texts"]),
		texts: map[int64]string{}, own: map[int64]bool{},
	}
	return nil
}

// dial opens the observer's session.
func (o *pgObserver) dial(ctx context.Context) (*pgx.Conn, error) {
	ctx, cancel := context.WithTimeout(ctx, pgConnectTimeout)
	defer cancel()
	c, err := pgx.ConnectConfig(ctx, o.cfg.Copy())
	if err == nil {
		o.pid.Store(int64(c.PgConn().PID()))
	}
	return c, err
}

// query runs one statement on the connection (the caller holds it) and
// hands each row to each, accounting for the time and the transaction.
func (o *pgObserver) query(ctx context.Context, sql string, args []any, each func(pgx.Rows) error) error {
	t0 := time.Now()
	rows, err := o.conn.Query(ctx, sql, args...)
	if err == nil {
		for rows.Next() {
			if err = each(rows); err != nil {
				break
			}
		}
		rows.Close()
		if err == nil {
			err = rows.Err()
		}
	}
	d := time.Since(t0)
	var pgErr *pgconn.PgError
	o.mu.Lock()
	o.cost.Queries++
	o.cost.QueryTime += d
	switch {
	case err == nil:
		o.own[0]++
	case errors.As(err, &pgErr) && !o.conn.IsClosed():
		o.own[1]++
	}
	o.mu.Unlock()
	return err
}

func (o *pgObserver) queryRow(ctx context.Context, sql string, args []any, dest ...any) error {
	found := false
	err := o.query(ctx, sql, args, func(r pgx.Rows) error {
		found = true
		return r.Scan(dest...)
	})
	if err == nil && !found {
		err = pgx.ErrNoRows
	}
	return err
}

// run samples until ctx ends, reconnecting when the connection is lost.
func (o *pgObserver) run(ctx context.Context) {
	defer close(o.done)
	tick := time.NewTicker(o.period)
	defer tick.Stop()
	backoff := pgMinBackoff
	var retryAt time.Time
	for {
		select {
		case <-ctx.Done():
			if !o.closing.Load() {
				o.mu.Lock()
				o.stopped = context.Cause(ctx)
				o.mu.Unlock()
			}
			return
		case <-tick.C:
		}
		o.mu.Lock()
		down := o.down
		o.mu.Unlock()
		if down {
			if time.Now().Before(retryAt) {
				continue
			}
			if err := o.reconnect(ctx); err != nil {
				o.mu.Lock()
				o.lastTry = pgOneLine(err)
				o.mu.Unlock()
				// ±20% jitter, as the virtual users' reconnections.
				retryAt = time.Now().Add(time.Duration(float64(backoff) * (0.8 + 0.4*rand.Float64())))
				backoff = min(2*backoff, pgMaxBackoff)
				continue
			}
			backoff = pgMinBackoff
		}
		o.sample(ctx)
	}
}

// acquire takes the connection, waiting at most wait (0: until ctx ends).
func (o *pgObserver) acquire(ctx context.Context, wait time.Duration) bool {
	var timeout <-chan time.Time
	if wait > 0 {
		t := time.NewTimer(wait)
		defer t.Stop()
		timeout = t.C
	}
	select {
	case o.sem <- struct{}{}:
		return true
	case <-ctx.Done():
		return false
	case <-timeout:
		return false
	}
}

func (o *pgObserver) release() { <-o.sem }

// sample takes one activity sample.
func (o *pgObserver) sample(ctx context.Context) {
	if !o.acquire(ctx, 0) {
		return
	}
	defer o.release()
	if o.conn == nil {
		return // lost by a Cut meanwhile
	}
	qctx, cancel := context.WithTimeout(ctx, pgSampleTimeout)
	defer cancel()
	var batch []pgActive
	err := o.query(qctx, o.activitySQL, []any{o.dbname}, func(r pgx.Rows) error {
		var a pgActive
		if err := r.Scan(&a.class, &a.event, &a.queryID, &a.query); err != nil {
			return err
		}
		batch = append(batch, a)
		return nil
	})
	if err != nil {
		if ctx.Err() != nil {
			return // stopping
		}
		if o.conn.IsClosed() || qctx.Err() != nil {
			o.lose(pgTimeoutErr(err, qctx, "an activity sample"))
			return
		}
		o.gap("an activity sample failed: " + pgOneLine(err))
		return
	}
	o.mu.Lock()
	o.agg.add(batch)
	o.cost.Samples++
	o.mu.Unlock()
}

// add counts one sample.
func (a *pgAgg) add(batch []pgActive) {
	a.samples++
	a.active += len(batch)
	for _, s := range batch {
		a.waits[[2]string{s.class, s.event}]++
		var id, key string
		text := pgShorten(s.query.String)
		if s.queryID.Valid && s.queryID.Int64 != 0 {
			id = strconv.FormatInt(s.queryID.Int64, 10)
			key = "id:" + id
		} else {
			key = "text:" + text
		}
		st, ok := a.stmts[key]
		if !ok {
			if len(a.stmts) >= pgMaxStatementKeys {
				key, id, text = "other", "", "(other statements)"
				st = a.stmts[key]
			}
			if st == nil {
				st = &pgStmtAgg{id: id, text: text}
				a.stmts[key] = st
			}
		}
		st.n++
	}
}

// lose records that the connection is gone and closes it; the caller holds
// it. The sampler reconnects.
func (o *pgObserver) lose(err error) {
	if o.conn != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		o.conn.Close(ctx)
		cancel()
		o.conn = nil
	}
	o.base = nil
	o.mu.Lock()
	if !o.down {
		o.down, o.downSince, o.downErr, o.lastTry = true, time.Now(), pgOneLine(err), ""
	}
	o.mu.Unlock()
}

// reconnect makes the connection again and takes a new statistics baseline.
func (o *pgObserver) reconnect(ctx context.Context) error {
	c, err := o.dial(ctx)
	if err != nil {
		return err
	}
	if !o.acquire(ctx, 0) {
		c.Close(context.Background())
		return ctx.Err()
	}
	defer o.release()
	o.conn = c
	rctx, cancel := context.WithTimeout(ctx, pgStatsTimeout)
	read := o.readStats(rctx)
	cancel()
	if read.lost != nil {
		err := pgTimeoutErr(read.lost, rctx, "the statistics")
		o.lose(err)
		return err
	}
	o.base = &read
	o.baseStale.Store(false)
	now := time.Now()
	o.mu.Lock()
	o.down = false
	o.cost.Reconnects++
	o.gaps = append(o.gaps, fmt.Sprintf("PostgreSQL went away: %s; reconnected after %.1f s (statistics restart from then)",
		o.downErr, now.Sub(o.downSince).Seconds()))
	o.mu.Unlock()
	return nil
}

// gap records why part of the current interval was not observed.
func (o *pgObserver) gap(why string) {
	o.mu.Lock()
	o.gaps = append(o.gaps, why)
	o.mu.Unlock()
}

func (o *pgObserver) Cut(elapsed time.Duration) Snapshot {
	o.cpu.read(int(o.pid.Load()))
	now := time.Now()
	o.mu.Lock()
	agg := o.agg
	o.agg = newPgAgg()
	length := now.Sub(o.lastCut)
	o.lastCut = now
	gaps := o.gaps
	o.gaps = nil
	if o.down {
		why := fmt.Sprintf("PostgreSQL went away: %s; not back after %.1f s", o.downErr, now.Sub(o.downSince).Seconds())
		if o.lastTry != "" {
			why += " (last attempt: " + o.lastTry + ")"
		}
		gaps = append(gaps, why)
	}
	if o.stopped != nil {
		gaps = append(gaps, "sampling stopped: "+o.stopped.Error())
	}
	down := o.down || o.stopped != nil
	o.mu.Unlock()

	snap := Snapshot{Elapsed: elapsed, Length: length, Samples: agg.samples}
	snap.Waits = agg.waitList()
	sampled := agg.statementList()
	if agg.samples > 0 {
		snap.Counters = append(snap.Counters, Counter{Source: "pg_stat_activity", Name: "active_sessions", Kind: Gauge,
			Unit: "sessions", Value: float64(agg.active) / float64(agg.samples)})
	}

	var stmts map[int64]pgStatementStat
	if !down {
		var more []Counter
		var why []string
		more, stmts, why = o.cutStats()
		snap.Counters = append(snap.Counters, more...)
		gaps = append(gaps, why...)
	}
	snap.Statements = o.mergeStatements(sampled, stmts)
	snap.Gap = strings.Join(slices.Compact(gaps), "; ")
	return snap
}

// cutStats reads the statistics and returns their changes since the
// baseline, which they replace; and the statements' changes.
func (o *pgObserver) cutStats() ([]Counter, map[int64]pgStatementStat, []string) {
	if !o.acquire(context.Background(), pgConnWait) {
		o.baseStale.Store(true)
		return nil, nil, []string{"statistics not read: the observer's connection stayed busy"}
	}
	defer o.release()
	if o.conn == nil { // lost since Cut looked: the reconnection takes a new baseline
		o.mu.Lock()
		why := "PostgreSQL went away: " + o.downErr
		o.mu.Unlock()
		return nil, nil, []string{why}
	}
	ctx, cancel := context.WithTimeout(context.Background(), pgStatsTimeout)
	defer cancel()
	cur := o.readStats(ctx)
	if cur.lost != nil {
		o.lose(pgTimeoutErr(cur.lost, ctx, "the statistics"))
		o.mu.Lock()
		why := "PostgreSQL went away: " + o.downErr
		o.mu.Unlock()
		return nil, nil, []string{why}
	}
	prev := o.base
	if o.baseStale.Swap(false) {
		prev = nil
	}
	o.base = &cur
	var (
		out []Counter
		why []string
	)
	for source, err := range cur.failed {
		why = append(why, fmt.Sprintf("%s not read: %s", source, pgOneLine(err)))
	}
	slices.Sort(why)
	if prev == nil {
		return nil, nil, append(why, "statistics restart from this interval's end (no earlier read to compare with)")
	}
	for _, q := range o.statsQueries {
		c, p := cur.readings[q.source], prev.readings[q.source]
		if c == nil {
			continue // failed: said above
		}
		if p == nil {
			why = append(why, q.source+" restarts from this interval's end (its previous read failed)")
			continue
		}
		d, ok := pgDeltas(q, p, c)
		if !ok {
			why = append(why, q.source+" was reset in this interval: its changes are left out")
			continue
		}
		out = append(out, d...)
		switch q.source {
		case "pg_stat_database":
			if o.ownDB {
				out = append(out,
					Counter{Source: pgAppName, Name: "xact_commit", Kind: Delta, Value: float64(cur.own[0] - prev.own[0])},
					Counter{Source: pgAppName, Name: "xact_rollback", Kind: Delta, Value: float64(cur.own[1] - prev.own[1])})
			}
		case "pg_wait_sampling":
			out = append(out, Counter{Source: q.source, Name: "profile_period", Kind: Gauge, Unit: "ms", Value: o.waitPeriod})
		}
	}
	var stmts map[int64]pgStatementStat
	if cur.stmts != nil && prev.stmts != nil {
		stmts = map[int64]pgStatementStat{}
		for id, c := range cur.stmts {
			p := prev.stmts[id]
			if c.calls < p.calls || c.ms < p.ms {
				p = pgStatementStat{} // evicted and made again, or reset: counted from zero
			}
			if d := (pgStatementStat{calls: c.calls - p.calls, ms: c.ms - p.ms}); d.calls > 0 || d.ms > 0 {
				stmts[id] = d
			}
		}
	}
	return out, stmts, why
}

// pgUnits are the counters' units, by column.
var pgUnits = map[string]string{
	"blks_read": "blocks", "blks_hit": "blocks",
	"tup_returned": "rows", "tup_fetched": "rows", "tup_inserted": "rows", "tup_updated": "rows", "tup_deleted": "rows",
	"temp_bytes": "bytes", "blk_read_time": "ms", "blk_write_time": "ms",
	"checkpoint_write_time": "ms", "checkpoint_sync_time": "ms",
	"buffers_checkpoint": "blocks", "buffers_clean": "blocks", "buffers_backend": "blocks",
	"write_time": "ms", "sync_time": "ms", "buffers_written": "blocks",
	"wal_bytes": "bytes",
	"reads":     "ops", "writes": "ops", "extends": "ops",
	"samples": "samples",
}

// pgDeltas is the change of a view from p to c; false when the view was
// reset in between (stats_reset changed, a row vanished or a counter went
// backwards). Views of one row report every counter; keyed views only the
// rows and counters that changed.
func pgDeltas(q pgStatsQuery, p, c *pgReading) ([]Counter, bool) {
	for _, k := range p.keys {
		if _, ok := c.vals[k]; !ok || c.resets[k] != p.resets[k] {
			return nil, false
		}
	}
	var out []Counter
	for _, k := range c.keys {
		pv := p.vals[k] // nil: a new row (a wait event first seen), from zero
		if pv == nil && !q.keyed {
			return nil, false
		}
		for i, col := range c.cols {
			var d float64
			if pv != nil {
				d = c.vals[k][i] - pv[i]
			} else {
				d = c.vals[k][i]
			}
			if d < 0 {
				return nil, false
			}
			if q.keyed && d == 0 {
				continue
			}
			name := col
			switch {
			case q.keyed && len(c.cols) == 1:
				name = k
			case q.keyed:
				name = k + "." + col
			}
			out = append(out, Counter{Source: q.source, Name: name, Kind: Delta, Unit: pgUnits[col], Value: d})
		}
	}
	return out, true
}

// readStats reads every statistics view (the caller holds the connection).
func (o *pgObserver) readStats(ctx context.Context) pgStatsRead {
	r := pgStatsRead{readings: map[string]*pgReading{}, failed: map[string]error{}}
	o.mu.Lock()
	r.own = o.own
	o.mu.Unlock()
	fail := func(source string, err error) bool {
		if o.conn.IsClosed() || ctx.Err() != nil {
			r.lost = err
			return true
		}
		r.failed[source] = err
		return false
	}
	for _, q := range o.statsQueries {
		rd, err := o.readView(ctx, q)
		if err != nil {
			if fail(q.source, err) {
				return r
			}
			continue
		}
		r.readings[q.source] = rd
	}
	if o.pgss != nil {
		m := map[int64]pgStatementStat{}
		err := o.query(ctx, o.pgss.sql, []any{o.dbname}, func(rows pgx.Rows) error {
			var id int64
			var s pgStatementStat
			if err := rows.Scan(&id, &s.calls, &s.ms); err != nil {
				return err
			}
			m[id] = s
			return nil
		})
		if err != nil {
			if fail("pg_stat_statements", err) {
				return r
			}
		} else {
			r.stmts = m
		}
	}
	return r
}

func (o *pgObserver) readView(ctx context.Context, q pgStatsQuery) (*pgReading, error) {
	var args []any
	if q.dbArg {
		args = []any{o.dbname}
	}
	rd := &pgReading{vals: map[string][]float64{}, resets: map[string]string{}}
	err := o.query(ctx, q.sql, args, func(r pgx.Rows) error {
		if rd.cols == nil {
			for _, f := range r.FieldDescriptions()[2:] {
				rd.cols = append(rd.cols, f.Name)
			}
		}
		var key, reset string
		vals := make([]float64, len(rd.cols))
		dest := []any{&key, &reset}
		for i := range vals {
			dest = append(dest, &vals[i])
		}
		if err := r.Scan(dest...); err != nil {
			return err
		}
		rd.keys = append(rd.keys, key)
		rd.vals[key], rd.resets[key] = vals, reset
		return nil
	})
	if err != nil {
		return nil, err
	}
	return rd, nil
}

// waitList is the interval's waits, highest first.
func (a *pgAgg) waitList() []Wait {
	if a.samples == 0 {
		return nil
	}
	out := make([]Wait, 0, len(a.waits))
	for k, n := range a.waits {
		out = append(out, Wait{Class: k[0], Event: k[1], AAS: float64(n) / float64(a.samples)})
	}
	slices.SortFunc(out, func(x, y Wait) int {
		return cmp.Or(cmp.Compare(y.AAS, x.AAS), cmp.Compare(x.Class, y.Class), cmp.Compare(x.Event, y.Event))
	})
	return out
}

// statementList is the interval's sampled statements, most seen first.
func (a *pgAgg) statementList() []Statement {
	if a.samples == 0 {
		return nil
	}
	out := make([]Statement, 0, len(a.stmts))
	for _, s := range a.stmts {
		out = append(out, Statement{ID: s.id, Text: s.text, AAS: float64(s.n) / float64(a.samples)})
	}
	slices.SortFunc(out, func(x, y Statement) int {
		return cmp.Or(cmp.Compare(y.AAS, x.AAS), cmp.Compare(x.Text, y.Text))
	})
	return out[:min(len(out), pgTopStatements)]
}

// mergeStatements adds pg_stat_statements' time and calls to the sampled
// statements, and the statements that took the most time in the interval.
func (o *pgObserver) mergeStatements(sampled []Statement, stmts map[int64]pgStatementStat) []Statement {
	if len(stmts) == 0 || o.pgss == nil {
		return sampled
	}
	seen := map[string]int{}
	for i, s := range sampled {
		if s.ID == "" {
			continue
		}
		seen[s.ID] = i
		if id, err := strconv.ParseInt(s.ID, 10, 64); err == nil {
			if d, ok := stmts[id]; ok {
				sampled[i].Seconds, sampled[i].Calls = d.ms/1000, d.calls
			}
		}
	}
	ids := make([]int64, 0, len(stmts))
	for id := range stmts {
		if !o.pgss.own[id] {
			ids = append(ids, id)
		}
	}
	slices.SortFunc(ids, func(x, y int64) int {
		return cmp.Or(cmp.Compare(stmts[y].ms, stmts[x].ms), cmp.Compare(x, y))
	})
	ids = ids[:min(len(ids), 2*pgTopStatements)] // room for the observer's own, found below
	o.statementTexts(ids)
	n := 0
	for _, id := range ids {
		if n == pgTopStatements {
			break
		}
		if o.pgss.own[id] {
			continue
		}
		n++
		key := strconv.FormatInt(id, 10)
		if _, ok := seen[key]; ok {
			continue
		}
		d := stmts[id]
		sampled = append(sampled, Statement{ID: key, Text: o.pgss.texts[id], Seconds: d.ms / 1000, Calls: d.calls})
	}
	return sampled
}

// statementTexts fetches the texts of the statements not known yet, in one
// query, and marks the observer's own.
func (o *pgObserver) statementTexts(ids []int64) {
	var missing []int64
	for _, id := range ids {
		if _, ok := o.pgss.texts[id]; !ok {
			missing = append(missing, id)
		}
	}
	if len(missing) == 0 || !o.acquire(context.Background(), pgConnWait) {
		return
	}
	defer o.release()
	if o.conn == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), pgStatsTimeout)
	defer cancel()
	err := o.query(ctx, o.pgss.textSQL, []any{o.dbname, missing}, func(r pgx.Rows) error {
		var id int64
		var text string
		if err := r.Scan(&id, &text); err != nil {
			return err
		}
		if strings.Contains(text, pgMarker) {
			o.pgss.own[id] = true
		}
		o.pgss.texts[id] = pgShorten(text)
		return nil
	})
	if err != nil && (o.conn.IsClosed() || ctx.Err() != nil) {
		o.lose(pgTimeoutErr(err, ctx, "the statements' texts"))
	}
}

func (o *pgObserver) Close() Cost {
	o.closeOnce.Do(func() {
		if o.cancel == nil {
			return // never started
		}
		o.closing.Store(true)
		o.cancel()
		<-o.done
		o.sem <- struct{}{}
		if o.conn != nil {
			o.cpu.read(int(o.pid.Load()))
			ctx, cancel := context.WithTimeout(context.Background(), pgStatsTimeout)
			o.conn.Close(ctx)
			cancel()
			o.conn = nil
		}
		<-o.sem
		o.mu.Lock()
		o.final = o.cost
		wall := time.Since(o.started)
		o.mu.Unlock()
		if wall > 0 {
			o.final.ServerShare = min(1, o.final.QueryTime.Seconds()/wall.Seconds())
			if used, ok := o.cpu.total(); ok {
				o.final.ServerShare = used.Seconds() / wall.Seconds() // measured: its server processes' CPU
			}
		}
	})
	return o.final
}

// pgTimeoutErr words a statement's timeout (which pgx reports as a broken
// connection) as such.
func pgTimeoutErr(err error, ctx context.Context, what string) error {
	if ctx.Err() != nil || pgconn.Timeout(err) {
		return fmt.Errorf("%s took too long (no answer within the observer's bound)", what)
	}
	return err
}

// pgShorten collapses a statement's white space and cuts it to pgTextLen
// characters.
func pgShorten(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > pgTextLen {
		s = string(r[:pgTextLen-1]) + "…"
	}
	return s
}

// pgOneLine is an error's message on one line.
func pgOneLine(err error) string {
	return strings.Join(strings.Fields(err.Error()), " ")
}
