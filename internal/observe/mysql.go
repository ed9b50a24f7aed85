package observe

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	gomysql "github.com/go-sql-driver/mysql"

	"github.com/sledge-bench/sledge/internal/db"
	"github.com/sledge-bench/sledge/internal/db/mysql"
)

// The MySQL/MariaDB observer reads, never writes: it creates no schema,
// event, user or table, sets no global variable and installs nothing. All it
// needs is a login to the benchmark's database; PROCESS lets it see other
// users' sessions and InnoDB's row lock waits, and SELECT on
// performance_schema (when that is ON) adds wait summaries and statement
// digests. What it lacks it says in Start's notes.

// mysqlTimeout bounds every query of the observer and a Cut's wait for the
// connection, so that a server gone quiet cannot hold up the run's monitor.
const mysqlTimeout = 2 * time.Second

// mysqlSettings are the global variables that matter for performance, in
// the order they are reported; the ones a server does not have are absent.
var mysqlSettings = []string{
	"innodb_buffer_pool_size", "innodb_buffer_pool_instances",
	"innodb_log_file_size", "innodb_log_files_in_group", "innodb_redo_log_capacity", "innodb_log_buffer_size",
	"innodb_flush_log_at_trx_commit", "innodb_flush_method", "innodb_flush_neighbors",
	"innodb_io_capacity", "innodb_io_capacity_max", "innodb_read_io_threads", "innodb_write_io_threads",
	"innodb_doublewrite", "innodb_adaptive_hash_index", "innodb_change_buffering",
	"innodb_thread_concurrency", "innodb_lock_wait_timeout", "innodb_deadlock_detect", "innodb_file_per_table",
	"sync_binlog", "log_bin", "binlog_format",
	"max_connections", "thread_handling", "thread_pool_size", "thread_cache_size",
	"transaction_isolation", "tx_isolation", "innodb_snapshot_isolation",
	"performance_schema", "table_open_cache", "table_definition_cache",
	"tmp_table_size", "max_heap_table_size", "sort_buffer_size", "join_buffer_size",
	"query_cache_type", "query_cache_size", "skip_name_resolve",
}

// mysqlStatus are the SHOW GLOBAL STATUS figures of every Cut. Absent ones
// are skipped: Innodb_deadlocks and Rows_read are MariaDB's, and MariaDB
// 10.11 no longer has Innodb_rows_*, so the rows written are also counted
// by the handler calls (Handler_write …), which every engine and version
// has.
var mysqlStatus = []struct{ name, kind, unit string }{
	{"Questions", Delta, ""},
	{"Com_select", Delta, ""},
	{"Com_insert", Delta, ""},
	{"Com_update", Delta, ""},
	{"Com_delete", Delta, ""},
	{"Com_commit", Delta, ""},
	{"Com_rollback", Delta, ""},
	{"Innodb_rows_read", Delta, "rows"},
	{"Innodb_rows_inserted", Delta, "rows"},
	{"Innodb_rows_updated", Delta, "rows"},
	{"Innodb_rows_deleted", Delta, "rows"},
	{"Rows_read", Delta, "rows"},
	{"Handler_write", Delta, "rows"},
	{"Handler_update", Delta, "rows"},
	{"Handler_delete", Delta, "rows"},
	{"Innodb_buffer_pool_read_requests", Delta, "pages"},
	{"Innodb_buffer_pool_reads", Delta, "pages"},
	{"Innodb_buffer_pool_write_requests", Delta, "pages"},
	{"Innodb_buffer_pool_wait_free", Delta, ""},
	{"Innodb_buffer_pool_pages_dirty", Gauge, "pages"},
	{"Innodb_log_writes", Delta, ""},
	{"Innodb_log_waits", Delta, ""},
	{"Innodb_os_log_written", Delta, "bytes"},
	{"Innodb_data_reads", Delta, ""},
	{"Innodb_data_writes", Delta, ""},
	{"Innodb_data_fsyncs", Delta, ""},
	{"Innodb_row_lock_waits", Delta, ""},
	{"Innodb_row_lock_time", Delta, "ms"},
	{"Innodb_deadlocks", Delta, ""},
	{"Threads_running", Gauge, "threads"},
	{"Threads_connected", Gauge, "threads"},
	{"Created_tmp_disk_tables", Delta, ""},
	{"Created_tmp_tables", Delta, ""},
	{"Sort_merge_passes", Delta, ""},
	{"Select_full_join", Delta, ""},
	{"Slow_queries", Delta, ""},
}

// Sources of the observer's counters.
const (
	mysqlStatusSource      = "global_status"
	mysqlPSWaitSource      = "performance_schema.waits"       // SUM_TIMER_WAIT, ms
	mysqlPSWaitCountSource = "performance_schema.waits.count" // COUNT_STAR
	// mysqlPSWaitCap bounds the wait events reported per Cut (the largest
	// changes of wait time).
	mysqlPSWaitCap = 20
	// mysqlTopStatements bounds the statements reported per Cut.
	mysqlTopStatements = 10
	// mysqlTextLen is how much of a statement's text is kept.
	mysqlTextLen = 200
)

// mysqlFeatures is what Start found the login may read.
type mysqlFeatures struct {
	perfSchema bool // performance_schema is ON and readable
	rowLocks   bool // information_schema.INNODB_TRX is readable (PROCESS)
}

// mysqlObserver samples MySQL/MariaDB sessions and statistics. The sampling
// goroutine and Cut share one connection, taken in turn through sem.
type mysqlObserver struct {
	target db.Target
	opts   Options
	period time.Duration

	name string // set by Start (flavour known), read by Name

	// sem is the connection's lock: a channel so that Cut can stop waiting
	// for it after mysqlTimeout.
	sem    chan struct{}
	pool   *sql.DB
	conn   *mysqlSession // nil while disconnected; replaced under sem and mu
	feat   mysqlFeatures
	cancel context.CancelFunc
	done   chan struct{}

	mu   sync.Mutex // guards conn (reads), iv, cost, name, lostAt, lostErr, gens
	iv   mysqlInterval
	cost Cost
	// lostAt/lostErr say since when and why the connection is down.
	lostAt  time.Time
	lostErr error
	gens    int // connections opened

	// Baselines, owned by Cut (one goroutine) and Start.
	last     time.Duration // elapsed at the previous Cut
	status   map[string]float64
	psWaits  map[string]psWait
	baseConn int // connection generation the baselines were read on
}

// mysqlSession is one connection with its prepared sampling statement.
type mysqlSession struct {
	conn   *sql.Conn
	sample *sql.Stmt
	id     int64
	gen    int // numbers the connections: counters never subtract across two
}

// mysqlInterval is what the sampler collected since the last Cut.
type mysqlInterval struct {
	samples int
	waits   map[waitKey]int
	stmts   map[string]*stmtTally
	// kinds counts session samples by the kind their statement names
	// (statementKind) and wait class.
	kinds kindTally
	gap   string
}

type waitKey struct{ class, event string }

type stmtTally struct {
	id, text string
	n        int
}

type psWait struct{ count, ps float64 }

// NewMySQL returns an observer of the MySQL or MariaDB server of target
// (a mysql:// or mariadb:// URL, see mysql.Config).
func NewMySQL(target db.Target, opts Options) Observer {
	if !(opts.Rate > 0) { // also NaN
		opts.Rate = DefaultRate
	}
	period := max(time.Duration(float64(time.Second)/opts.Rate), time.Millisecond)
	return &mysqlObserver{
		target: target,
		opts:   opts,
		period: period,
		name:   "MySQL/MariaDB sessions and statistics",
		sem:    make(chan struct{}, 1),
		iv:     newMySQLInterval(),
	}
}

func newMySQLInterval() mysqlInterval {
	return mysqlInterval{waits: map[waitKey]int{}, stmts: map[string]*stmtTally{}, kinds: kindTally{}}
}

func (o *mysqlObserver) Name() string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.name
}

// Start connects, reads the server's version, uptime and settings, finds
// what the login may read, takes the counters' baselines and starts the
// sampler. ctx bounds the whole life of the observer (sampling and
// reconnecting), not only the connect: Close ends it sooner.
func (o *mysqlObserver) Start(ctx context.Context) (Start, error) {
	cfg, err := mysql.Config(o.target.DSN)
	if err != nil {
		return Start{}, err
	}
	if o.opts.Database == "" {
		o.opts.Database = cfg.DBName
	}
	cfg.Timeout = mysqlTimeout // dialing: reconnect attempts must not hang
	cfg.ReadTimeout = 4 * mysqlTimeout
	cfg.WriteTimeout = 4 * mysqlTimeout
	cfg.ConnectionAttributes = "program_name:sledge-observer"
	connector, err := gomysql.NewConnector(cfg)
	if err != nil {
		return Start{}, fmt.Errorf("observe %s: %w", db.Redact(o.target.DSN), db.RedactError(err, o.target.DSN))
	}
	o.pool = sql.OpenDB(connector)
	// One connection, never pooled: a connection that is closed after a
	// failure is gone, and the next one is a new session with a new id.
	o.pool.SetMaxOpenConns(1)
	o.pool.SetMaxIdleConns(0)

	st, err := o.start(ctx)
	if err != nil {
		o.release()
		return Start{}, fmt.Errorf("observe %s: %w", db.Redact(o.target.DSN), db.RedactError(err, o.target.DSN))
	}
	runCtx, cancel := context.WithCancel(ctx)
	o.cancel, o.done = cancel, make(chan struct{})
	go o.run(runCtx)
	return st, nil
}

func (o *mysqlObserver) start(ctx context.Context) (Start, error) {
	s, err := o.dial(ctx, false)
	if err != nil {
		return Start{}, err
	}
	o.conn = s
	c := s.conn
	var st Start
	var version, uptime string
	if err := o.queryRow(ctx, c, "SELECT VERSION()").Scan(&version); err != nil {
		return st, fmt.Errorf("read the server version: %w", err)
	}
	st.Server = mysql.FlavourVersion(version)
	o.mu.Lock()
	o.name = strings.Fields(st.Server)[0] + " sessions and statistics"
	o.mu.Unlock()
	var name string
	if err := o.queryRow(ctx, c, "SHOW GLOBAL STATUS LIKE 'Uptime'").Scan(&name, &uptime); err != nil {
		return st, fmt.Errorf("read the server uptime: %w", err)
	}
	if secs, err := strconv.ParseInt(uptime, 10, 64); err == nil {
		st.Uptime = time.Duration(secs) * time.Second
	}
	vars, err := o.nameValues(ctx, c, "SHOW GLOBAL VARIABLES WHERE Variable_name IN ("+sqlList(mysqlSettings)+")")
	if err != nil {
		return st, fmt.Errorf("read the server settings: %w", err)
	}
	origins := o.settingOrigins(ctx, c)
	for _, n := range mysqlSettings {
		if v, ok := vars[n]; ok {
			st.Settings = append(st.Settings, Setting{Name: n, Value: v, Source: origins[n]})
		}
	}
	st.Notes = o.probe(ctx, c, strings.EqualFold(vars["performance_schema"], "ON"))
	if err := o.prepareSample(ctx, s); err != nil {
		return st, err
	}
	o.baseline(ctx, s)
	return st, nil
}

// settingOrigins says where the settings came from, by name, on MariaDB
// (information_schema.SYSTEM_VARIABLES, 10.1 and later); MySQL does not
// say, and the map is then empty.
func (o *mysqlObserver) settingOrigins(ctx context.Context, c *sql.Conn) map[string]string {
	upper := make([]string, len(mysqlSettings))
	for i, n := range mysqlSettings {
		upper[i] = strings.ToUpper(n)
	}
	raw, err := o.nameValues(ctx, c, "SELECT LOWER(VARIABLE_NAME), GLOBAL_VALUE_ORIGIN FROM information_schema.SYSTEM_VARIABLES WHERE VARIABLE_NAME IN ("+sqlList(upper)+")")
	if err != nil {
		return nil
	}
	words := map[string]string{
		"COMPILE-TIME": "default",
		"CONFIG":       "configuration file",
		"COMMAND-LINE": "command line",
		"AUTO":         "set by the server",
		"SQL":          "SET GLOBAL",
		"ENVIRONMENT":  "environment",
	}
	out := make(map[string]string, len(raw))
	for n, origin := range raw {
		if w, ok := words[origin]; ok {
			out[n] = w
		} else {
			out[n] = strings.ToLower(origin)
		}
	}
	return out
}

// probe finds what the login may read and says what it lacks and how to
// grant it.
func (o *mysqlObserver) probe(ctx context.Context, c *sql.Conn, psOn bool) []string {
	var notes []string
	var user string
	if err := o.queryRow(ctx, c, "SELECT CURRENT_USER()").Scan(&user); err != nil {
		user = "USER"
	}
	grantee := user
	if u, h, ok := strings.Cut(user, "@"); ok {
		grantee = "'" + u + "'@'" + h + "'"
	}
	var process int
	err := o.queryRow(ctx, c, "SELECT COUNT(*) FROM information_schema.USER_PRIVILEGES WHERE PRIVILEGE_TYPE = 'PROCESS'").Scan(&process)
	if err != nil || process == 0 {
		notes = append(notes, fmt.Sprintf("no PROCESS privilege: only %s's own sessions are sampled and InnoDB row lock waits are not seen (GRANT PROCESS ON *.* TO %s)", user, grantee))
	}
	var one int
	if err := o.queryRow(ctx, c, "SELECT 1 FROM information_schema.INNODB_TRX LIMIT 1").Scan(&one); err == nil || errors.Is(err, sql.ErrNoRows) {
		o.feat.rowLocks = true
	}
	if !psOn {
		return append(notes, "performance_schema is OFF: no wait event summaries nor statement digests, only session states (set performance_schema=ON in the server's configuration; it takes a restart)")
	}
	err = o.queryRow(ctx, c, "SELECT COUNT(*) FROM performance_schema.events_waits_summary_global_by_event_name").Scan(&one)
	if err != nil {
		return append(notes, fmt.Sprintf("cannot read performance_schema (%v): no wait event summaries nor statement digests (GRANT SELECT ON performance_schema.* TO %s)", err, grantee))
	}
	o.feat.perfSchema = true
	var enabled string
	err = o.queryRow(ctx, c, "SELECT ENABLED FROM performance_schema.setup_consumers WHERE NAME = 'events_statements_current'").Scan(&enabled)
	if err == nil && !strings.EqualFold(enabled, "YES") {
		notes = append(notes, "performance_schema consumer events_statements_current is off: statements are told by their text, without digests (enable it in the server's configuration: performance-schema-consumer-events-statements-current=ON)")
	}
	return notes
}

// dial opens a new session on the target database, with its sampling
// statement prepared when prepare is set (at Start the features that shape
// it are not known yet).
func (o *mysqlObserver) dial(ctx context.Context, prepare bool) (*mysqlSession, error) {
	ctx, cancel := context.WithTimeout(ctx, mysqlTimeout)
	defer cancel()
	c, err := o.pool.Conn(ctx)
	if err != nil {
		return nil, fmt.Errorf("connect: %w", err)
	}
	s := &mysqlSession{conn: c}
	o.mu.Lock()
	o.gens++
	s.gen = o.gens
	o.mu.Unlock()
	if err := o.queryRow(ctx, c, "SELECT CONNECTION_ID()").Scan(&s.id); err != nil {
		c.Close()
		return nil, fmt.Errorf("read the connection id: %w", err)
	}
	if prepare {
		if err := o.prepareSample(ctx, s); err != nil {
			c.Close()
			return nil, err
		}
	}
	return s, nil
}

func (o *mysqlObserver) prepareSample(ctx context.Context, s *mysqlSession) error {
	done := o.timed()
	stmt, err := s.conn.PrepareContext(ctx, mysqlSampleQuery(o.feat))
	done()
	if err != nil {
		return fmt.Errorf("prepare the sampling query: %w", err)
	}
	s.sample = stmt
	return nil
}

// mysqlSampleQuery lists the sessions at work in the database (?) other
// than the observer's own: id, state, statement text, digest, whether it
// waits for an InnoDB row lock and the head of the statement as sent (the
// digest's text drops comments, and a leading comment names the session's
// kind). performance_schema.threads is preferred
// when readable: unlike information_schema.PROCESSLIST it takes no global
// mutex on MySQL, and it joins to the statement digests.
func mysqlSampleQuery(f mysqlFeatures) string {
	const idle = "('Sleep', 'Daemon', 'Binlog Dump', 'Binlog Dump GTID')"
	rowLock := func(id string) string {
		if !f.rowLocks {
			return "0"
		}
		return "EXISTS (SELECT 1 FROM information_schema.INNODB_TRX x WHERE x.trx_mysql_thread_id = " + id + " AND x.trx_state = 'LOCK WAIT')"
	}
	if f.perfSchema {
		return "SELECT t.PROCESSLIST_ID, COALESCE(t.PROCESSLIST_STATE, ''), " +
			"COALESCE(LEFT(COALESCE(s.DIGEST_TEXT, t.PROCESSLIST_INFO), 1000), ''), COALESCE(s.DIGEST, ''), " +
			rowLock("t.PROCESSLIST_ID") + ", COALESCE(LEFT(t.PROCESSLIST_INFO, 100), '')" +
			" FROM performance_schema.threads t LEFT JOIN performance_schema.events_statements_current s" +
			" ON s.THREAD_ID = t.THREAD_ID AND s.END_EVENT_ID IS NULL" +
			" WHERE t.TYPE = 'FOREGROUND' AND t.PROCESSLIST_DB = ? AND t.PROCESSLIST_COMMAND NOT IN " + idle +
			" AND t.PROCESSLIST_ID <> CONNECTION_ID()"
	}
	return "SELECT p.ID, COALESCE(p.STATE, ''), COALESCE(LEFT(p.INFO, 1000), ''), '', " +
		rowLock("p.ID") + ", COALESCE(LEFT(p.INFO, 100), '')" +
		" FROM information_schema.PROCESSLIST p" +
		" WHERE p.DB = ? AND p.COMMAND NOT IN " + idle + " AND p.ID <> CONNECTION_ID()"
}

// run samples at the observer's rate until ctx ends, reconnecting when the
// connection is lost.
func (o *mysqlObserver) run(ctx context.Context) {
	defer close(o.done)
	tick := time.NewTicker(o.period)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		if o.session() == nil {
			o.reconnect(ctx)
			continue
		}
		o.sample(ctx)
	}
}

// session returns the current session, nil while disconnected. Only the
// sampling goroutine replaces it, so it may read it without sem.
func (o *mysqlObserver) session() *mysqlSession {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.conn
}

// reconnect dials with a growing pause between attempts until it has a
// session or ctx ends. Dialing happens outside sem: a Cut meanwhile reports
// a gap at once instead of waiting.
func (o *mysqlObserver) reconnect(ctx context.Context) {
	pause := 100 * time.Millisecond
	for {
		s, err := o.dial(ctx, true)
		if err == nil {
			o.sem <- struct{}{}
			o.mu.Lock()
			o.conn = s
			o.cost.Reconnects++
			o.lostAt, o.lostErr = time.Time{}, nil
			o.mu.Unlock()
			<-o.sem
			return
		}
		o.mu.Lock()
		o.lostErr = err
		o.mu.Unlock()
		select {
		case <-ctx.Done():
			return
		case <-time.After(pause):
		}
		pause = min(2*pause, 5*time.Second)
	}
}

// sample takes one activity sample into the current interval.
func (o *mysqlObserver) sample(ctx context.Context) {
	o.sem <- struct{}{}
	defer func() { <-o.sem }()
	s := o.session()
	if s == nil {
		return
	}
	rows, err := o.sampleRows(ctx, s)
	if err != nil {
		o.fail(s, fmt.Errorf("sample sessions: %w", err))
		return
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	o.cost.Samples++
	o.iv.samples++
	for _, r := range rows {
		class, event := mysqlWaitClass(r.state, r.rowLock)
		o.iv.waits[waitKey{class, event}]++
		o.iv.kinds.add(statementKind(r.head), class)
		key, text := r.digest, shortenSQL(r.info, mysqlTextLen)
		if key == "" {
			key = text
		}
		if key == "" {
			continue
		}
		t := o.iv.stmts[key]
		if t == nil {
			t = &stmtTally{id: r.digest, text: text}
			o.iv.stmts[key] = t
		}
		t.n++
	}
}

type mysqlThread struct {
	state, info, digest string
	rowLock             bool
	head                string // the statement's start as sent
}

func (o *mysqlObserver) sampleRows(ctx context.Context, s *mysqlSession) ([]mysqlThread, error) {
	ctx, cancel := context.WithTimeout(ctx, mysqlTimeout)
	defer cancel()
	defer o.timed()()
	rows, err := s.sample.QueryContext(ctx, o.opts.Database)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []mysqlThread
	seen := map[int64]bool{} // a thread may have a row per nesting level
	for rows.Next() {
		var (
			id int64
			t  mysqlThread
		)
		if err := rows.Scan(&id, &t.state, &t.info, &t.digest, &t.rowLock, &t.head); err != nil {
			return nil, err
		}
		if !seen[id] {
			seen[id] = true
			out = append(out, t)
		}
	}
	return out, rows.Err()
}

// fail records a failed query in the interval's gap; when the connection
// is lost it drops the session, which the sampler then replaces. Called
// holding sem.
func (o *mysqlObserver) fail(s *mysqlSession, err error) {
	lost := mysql.Driver{}.Classify(err) == db.ClassConnection || errors.Is(err, context.DeadlineExceeded)
	o.mu.Lock()
	if o.iv.gap == "" {
		o.iv.gap = err.Error()
		if lost {
			o.iv.gap = "lost the connection: " + o.iv.gap
		}
	}
	if lost && o.conn == s {
		o.conn = nil
		o.lostAt, o.lostErr = time.Now(), err
	}
	o.mu.Unlock()
	if lost {
		s.close()
	}
}

func (s *mysqlSession) close() {
	if s.sample != nil {
		s.sample.Close()
	}
	s.conn.Close()
}

// Cut closes the interval: the sampler's tallies, the counters' changes
// since the previous Cut (one SHOW GLOBAL STATUS, and one query of
// performance_schema's wait summaries when readable) and the gauges.
func (o *mysqlObserver) Cut(elapsed time.Duration) Snapshot {
	snap := Snapshot{Elapsed: elapsed, Length: elapsed - o.last}
	o.last = elapsed
	counters, gap := o.readCounters()
	o.mu.Lock()
	iv := o.iv
	o.iv = newMySQLInterval()
	o.mu.Unlock()
	snap.Samples = iv.samples
	snap.Gap = joinGaps(iv.gap, gap)
	snap.Waits = iv.waitList()
	snap.Statements = iv.statementList()
	snap.Counters = append(counters, iv.kinds.counters(mysqlKindSource, iv.samples)...)
	return snap
}

// readCounters reads the counters on the current session, waiting for it
// no longer than mysqlTimeout, and returns them with the gap, if any.
// The wait for the connection and the queries share one deadline.
func (o *mysqlObserver) readCounters() ([]Counter, string) {
	ctx, cancel := context.WithTimeout(context.Background(), mysqlTimeout)
	defer cancel()
	select {
	case o.sem <- struct{}{}:
	case <-ctx.Done():
		return nil, "counters not read: the connection stayed busy"
	}
	defer func() { <-o.sem }()
	s := o.session()
	if s == nil {
		o.mu.Lock()
		defer o.mu.Unlock()
		return nil, fmt.Sprintf("not connected for %v (%v): reconnecting", time.Since(o.lostAt).Round(time.Millisecond), o.lostErr)
	}
	status, err := o.readStatus(ctx, s.conn)
	if err != nil {
		o.fail(s, fmt.Errorf("read global status: %w", err))
		return nil, ""
	}
	var waits map[string]psWait
	if o.feat.perfSchema {
		if waits, err = o.readPSWaits(ctx, s.conn); err != nil {
			o.fail(s, fmt.Errorf("read performance_schema waits: %w", err))
		}
	}
	gap := ""
	same := s.gen == o.baseConn && o.status != nil
	switch {
	case o.status == nil:
		gap = "no counter baseline: counters start from this cut"
	case !same:
		gap = "counters restart from this cut: the connection was renewed"
	}
	out := statusCounters(o.status, status, same)
	if same && waits != nil && o.psWaits != nil {
		out = append(out, psWaitCounters(o.psWaits, waits)...)
	}
	o.status, o.baseConn = status, s.gen
	if waits != nil {
		o.psWaits = waits
	}
	return out, gap
}

// baseline reads the counters' starting values at Start.
func (o *mysqlObserver) baseline(ctx context.Context, s *mysqlSession) {
	ctx, cancel := context.WithTimeout(ctx, mysqlTimeout)
	defer cancel()
	o.baseConn = s.gen
	o.status, _ = o.readStatus(ctx, s.conn)
	if o.feat.perfSchema {
		o.psWaits, _ = o.readPSWaits(ctx, s.conn)
	}
}

func (o *mysqlObserver) readStatus(ctx context.Context, c *sql.Conn) (map[string]float64, error) {
	names := make([]string, len(mysqlStatus))
	for i, s := range mysqlStatus {
		names[i] = s.name
	}
	vals, err := o.nameValues(ctx, c, "SHOW GLOBAL STATUS WHERE Variable_name IN ("+sqlList(names)+")")
	if err != nil {
		return nil, err
	}
	out := make(map[string]float64, len(vals))
	for n, v := range vals {
		if f, err := strconv.ParseFloat(v, 64); err == nil {
			out[n] = f
		}
	}
	return out, nil
}

// readPSWaits reads the server's wait summaries; "idle" (a session waiting
// for its client) is not a server wait and is left out.
func (o *mysqlObserver) readPSWaits(ctx context.Context, c *sql.Conn) (map[string]psWait, error) {
	defer o.timed()()
	rows, err := c.QueryContext(ctx, "SELECT EVENT_NAME, COUNT_STAR, SUM_TIMER_WAIT FROM performance_schema.events_waits_summary_global_by_event_name WHERE COUNT_STAR > 0 AND EVENT_NAME <> 'idle'")
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]psWait{}
	for rows.Next() {
		var name, count, ps string // unsigned 64-bit: parsed as floats
		if err := rows.Scan(&name, &count, &ps); err != nil {
			return nil, err
		}
		w := psWait{}
		w.count, _ = strconv.ParseFloat(count, 64)
		w.ps, _ = strconv.ParseFloat(ps, 64)
		out[name] = w
	}
	return out, rows.Err()
}

// statusCounters turns two readings of global status into the interval's
// counters: gauges always, deltas only when prev is a baseline on the same
// connection (deltas) and the counter did not go backwards (FLUSH STATUS,
// a server restart).
func statusCounters(prev, cur map[string]float64, deltas bool) []Counter {
	var out []Counter
	for _, s := range mysqlStatus {
		v, ok := cur[s.name]
		if !ok {
			continue
		}
		if s.kind == Delta {
			p, had := prev[s.name]
			if !deltas || !had || v < p {
				continue
			}
			v -= p
		}
		out = append(out, Counter{Source: mysqlStatusSource, Name: s.name, Kind: s.kind, Unit: s.unit, Value: v})
	}
	return out
}

// psWaitCounters returns the wait events whose time grew, the largest
// first, at most mysqlPSWaitCap of them: time in ms and number of waits.
func psWaitCounters(prev, cur map[string]psWait) []Counter {
	type change struct {
		name      string
		count, ms float64
	}
	var changes []change
	for name, w := range cur {
		p := prev[name]
		if w.ps <= p.ps || w.count < p.count {
			continue
		}
		changes = append(changes, change{name, w.count - p.count, (w.ps - p.ps) / 1e9})
	}
	sort.Slice(changes, func(i, j int) bool {
		if changes[i].ms != changes[j].ms {
			return changes[i].ms > changes[j].ms
		}
		return changes[i].name < changes[j].name
	})
	if len(changes) > mysqlPSWaitCap {
		changes = changes[:mysqlPSWaitCap]
	}
	out := make([]Counter, 0, 2*len(changes))
	for _, c := range changes {
		out = append(out,
			Counter{Source: mysqlPSWaitSource, Name: c.name, Kind: Delta, Unit: "ms", Value: c.ms},
			Counter{Source: mysqlPSWaitCountSource, Name: c.name, Kind: Delta, Unit: "", Value: c.count})
	}
	return out
}

func (iv mysqlInterval) waitList() []Wait {
	if iv.samples == 0 {
		return nil
	}
	out := make([]Wait, 0, len(iv.waits))
	for k, n := range iv.waits {
		out = append(out, Wait{Class: k.class, Event: k.event, AAS: float64(n) / float64(iv.samples)})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].AAS != out[j].AAS {
			return out[i].AAS > out[j].AAS
		}
		return out[i].Class+out[i].Event < out[j].Class+out[j].Event
	})
	return out
}

func (iv mysqlInterval) statementList() []Statement {
	if iv.samples == 0 {
		return nil
	}
	tallies := make([]*stmtTally, 0, len(iv.stmts))
	for _, t := range iv.stmts {
		tallies = append(tallies, t)
	}
	sort.Slice(tallies, func(i, j int) bool {
		if tallies[i].n != tallies[j].n {
			return tallies[i].n > tallies[j].n
		}
		return tallies[i].text < tallies[j].text
	})
	if len(tallies) > mysqlTopStatements {
		tallies = tallies[:mysqlTopStatements]
	}
	out := make([]Statement, len(tallies))
	for i, t := range tallies {
		out[i] = Statement{ID: t.id, Text: t.text, AAS: float64(t.n) / float64(iv.samples)}
	}
	return out
}

// Close stops the sampler, closes the connection and returns the cost.
func (o *mysqlObserver) Close() Cost {
	if o.cancel != nil {
		o.cancel()
		<-o.done
	}
	o.release()
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.cost
}

func (o *mysqlObserver) release() {
	o.mu.Lock()
	s := o.conn
	o.conn = nil
	o.mu.Unlock()
	if s != nil {
		s.close()
	}
	if o.pool != nil {
		o.pool.Close()
	}
}

// queryRow runs a one-row query on c, counted in the cost.
func (o *mysqlObserver) queryRow(ctx context.Context, c *sql.Conn, q string) *sql.Row {
	defer o.timed()()
	return c.QueryRowContext(ctx, q)
}

// nameValues runs a SHOW … WHERE query of name/value rows.
func (o *mysqlObserver) nameValues(ctx context.Context, c *sql.Conn, q string) (map[string]string, error) {
	defer o.timed()()
	rows, err := c.QueryContext(ctx, q)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]string{}
	for rows.Next() {
		var n, v string
		if err := rows.Scan(&n, &v); err != nil {
			return nil, err
		}
		out[n] = v
	}
	return out, rows.Err()
}

// timed counts one query in the cost; the function it returns adds the
// time waited, called when the caller has read the answer.
func (o *mysqlObserver) timed() func() {
	began := time.Now()
	return func() {
		d := time.Since(began)
		o.mu.Lock()
		o.cost.Queries++
		o.cost.QueryTime += d
		o.mu.Unlock()
	}
}

// mysqlWaitClass maps a session's state (the processlist's State column)
// to a wait class and event. MySQL has no wait events in the processlist,
// only states, so the state is the event and the class is read from its
// words, first rule first:
//
//   - a session InnoDB reports in LOCK WAIT: Lock, "InnoDB row lock"
//     (its state would say "Updating" or "Sending data");
//   - a state naming a lock ("Waiting for table metadata lock", "System
//     lock", "Locked"), but not "Unlocking tables": Lock;
//   - a state naming a commit ("waiting for handler commit", "Commit",
//     "Waiting for prior transaction to commit"): Commit;
//   - the client's network ("Reading from net", "Writing to net", "Sending
//     to client"): Client;
//   - flushing, reading or writing files, converting to an on-disk table:
//     IO;
//   - no state, or a state of work in the executor ("executing", "Sending
//     data", "optimizing", "statistics", "Updating", "Sorting result" …):
//     CPU (on the server's CPU or in InnoDB's buffer pool, which states do
//     not separate);
//   - anything else ("User sleep", "Waiting on cond", "Killed"): Other.
func mysqlWaitClass(state string, rowLock bool) (class, event string) {
	if rowLock {
		return "Lock", "InnoDB row lock"
	}
	s := strings.ToLower(state)
	switch {
	case strings.Contains(s, "lock") && !strings.HasPrefix(s, "unlocking"):
		return "Lock", state
	case strings.Contains(s, "commit"):
		return "Commit", state
	case strings.Contains(s, " net") || strings.Contains(s, "to client"):
		return "Client", state
	case strings.Contains(s, "flush") || strings.HasPrefix(s, "reading") || strings.HasPrefix(s, "writing") ||
		strings.Contains(s, "on disk") || strings.Contains(s, "ondisk") || strings.Contains(s, "to disk"):
		return "IO", state
	case s == "" || mysqlCPUState(s):
		return "CPU", state
	}
	return "Other", state
}

// mysqlCPUState reports whether a (lower-cased) state is work in the
// executor rather than a wait.
func mysqlCPUState(s string) bool {
	for _, p := range []string{
		"executing", "sending data", "optimizing", "statistics", "preparing", "init", "starting",
		"updating", "update", "deleting", "searching rows", "sorting", "creating sort index",
		"copying to", "creating tmp table", "removing tmp table", "creating table", "after create",
		"end", "query end", "closing tables", "freeing items", "cleaning up", "opening table",
		"checking permissions", "checking table", "filling schema table", "removing duplicates",
		"unlocking tables", "storing result", "altering table",
	} {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

// shortenSQL collapses a statement's white space and cuts it to n runes.
func shortenSQL(q string, n int) string {
	q = strings.Join(strings.Fields(q), " ")
	if r := []rune(q); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return q
}

// sqlList renders names as a list of SQL string literals. The names are
// this file's constants, never input.
func sqlList(names []string) string {
	quoted := make([]string, len(names))
	for i, n := range names {
		quoted[i] = "'" + n + "'"
	}
	return strings.Join(quoted, ", ")
}

func joinGaps(gaps ...string) string {
	var out []string
	for _, g := range gaps {
		if g != "" {
			out = append(out, g)
		}
	}
	return strings.Join(out, "; ")
}
