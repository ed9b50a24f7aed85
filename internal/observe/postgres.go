package observe

// The PostgreSQL observer: its statements (postgres.sql), NewPostgres and
// the Observer methods (Start with its setup, Cut, Close). Its connection
// is in postgres_conn.go, the activity samples in postgres_sample.go, the
// cumulative statistics in postgres_stats.go and pg_stat_statements in
// postgres_statements.go.

import (
	"cmp"
	"context"
	_ "embed"
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"

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
//     went away: …; reconnected after 2.1 s"; "PostgreSQL did not answer in
//     time: …" when a sample or statistics read got no answer within its
//     bound, as from a server saturated by a thousand sessions, and the
//     observer gave the connection up for that); the sampling goroutine
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
	downSlow  bool   // lost because it did not answer in time, not because it went away
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

func (o *pgObserver) Name() string { return "PostgreSQL sessions and statistics" }

func (o *pgObserver) Start(ctx context.Context) (Start, error) {
	if o.cancel != nil {
		return Start{}, errors.New("PostgreSQL observer started twice")
	}
	// Errors may quote the URL, or (read otherwise) a piece of it.
	pgURL := db.PostgresURL(o.target.DSN)
	cfg, err := pgx.ParseConfig(pgURL)
	if err != nil {
		return Start{}, fmt.Errorf("parse PostgreSQL URL %s: %w", db.Redact(o.target.DSN), db.RedactError(errors.Unwrap(err), o.target.DSN, pgURL))
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
		return Start{}, fmt.Errorf("connect to %s: %w", db.Redact(o.target.DSN), db.RedactError(err, o.target.DSN, pgURL))
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
		return Start{}, fmt.Errorf("observe PostgreSQL at %s: %w", db.Redact(o.target.DSN), db.RedactError(err, o.target.DSN, pgURL))
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
	st.Uptime = time.Duration(uptime * float64(time.Second)).Round(time.Millisecond)
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
		why := fmt.Sprintf("%s: %s; not back after %.1f s", o.lostWords(), o.downErr, now.Sub(o.downSince).Seconds())
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
		snap.Counters = append(snap.Counters, agg.appCounters()...)
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
