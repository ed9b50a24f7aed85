// Package mysql is Sledge's driver for MariaDB and MySQL, one package for
// both flavours, through go-sql-driver/mysql. It detects which server it
// talks to (Version) so that jobs record the real product.
//
// Statements are written with PostgreSQL-style numbered parameters ($1, $2,
// …, repeatable and in any order) so that a dialect file can use the same
// argument list for a locking SELECT and the UPDATE after it; the session
// rewrites them to the server's positional ? once per statement.
package mysql

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"net"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	gomysql "github.com/go-sql-driver/mysql"

	"github.com/sledge-bench/sledge/internal/db"
)

// Driver opens MariaDB/MySQL sessions.
type Driver struct{}

func (Driver) Kind() db.Kind { return db.MySQL }

// Config turns a mysql:// or mariadb:// URL into the driver's configuration:
//
//	mysql://user:password@host:port/dbname?socket=/path/to/mysqld.sock
//
// The user defaults to root, the port to 3306; ?socket= connects through a
// Unix socket instead of TCP. Other query parameters are passed to
// go-sql-driver/mysql as its DSN parameters (e.g. tls=true).
func Config(dsn string) (*gomysql.Config, error) {
	u, err := db.ParseURL(dsn)
	if err != nil {
		return nil, fmt.Errorf("parse URL %s: %w", db.Redact(dsn), errors.Unwrap(err))
	}
	cfg := gomysql.NewConfig()
	cfg.User = "root"
	if u.User != nil {
		cfg.User = u.User.Username()
		cfg.Passwd, _ = u.User.Password()
	}
	cfg.DBName = strings.TrimPrefix(u.Path, "/")
	if cfg.DBName == "" {
		return nil, fmt.Errorf("%s: no database name in the URL (mysql://user@host:port/dbname)", db.Redact(dsn))
	}
	q := u.Query()
	if sock := q.Get("socket"); sock != "" {
		cfg.Net, cfg.Addr = "unix", sock
		q.Del("socket")
	} else {
		if u.Host == "" {
			return nil, fmt.Errorf("%s: no host in URL (or ?socket=PATH for a Unix socket)", db.Redact(dsn))
		}
		host, port := u.Hostname(), u.Port()
		if port == "" {
			port = "3306"
		}
		cfg.Net, cfg.Addr = "tcp", net.JoinHostPort(host, port)
	}
	if len(q) > 0 {
		// Let the driver validate its own parameters.
		parsed, err := gomysql.ParseDSN("/x?" + q.Encode())
		if err != nil {
			return nil, fmt.Errorf("%s: %w", db.Redact(dsn), db.RedactError(err, dsn))
		}
		cfg.Params, cfg.TLSConfig, cfg.TLS = parsed.Params, parsed.TLSConfig, parsed.TLS
	}
	cfg.Timeout = 10 * time.Second
	cfg.AllowNativePasswords = true
	cfg.Logger = driverLog{}
	return cfg, nil
}

// driverLog takes what go-sql-driver/mysql logs ("packets.go:58 unexpected
// EOF" when the server closed a connection, a malformed packet …), which it
// would otherwise print to stderr as "[mysql] …" lines in the middle of a
// run's output. Nothing is printed: a message goes, as a short cause, to
// the session's db.Options.DriverLog, or is counted in DroppedMessages.
type driverLog struct{ sink func(string) }

func (l driverLog) Print(v ...any) {
	msg := LogCause(fmt.Sprint(v...))
	if l.sink == nil {
		dropped.Add(1)
		return
	}
	l.sink(msg)
}

// dropped counts the driver's messages no session took.
var dropped atomic.Int64

// DroppedMessages is how many messages of the driver library this process
// received that no session's db.Options.DriverLog took (never printed).
func DroppedMessages() int64 { return dropped.Load() }

func init() {
	// The library's default logger for whatever has no Config (and a
	// Config made elsewhere): silent too.
	_ = gomysql.SetLogger(driverLog{})
}

// logPosition is the "packets.go:58 " the library puts before a message.
var logPosition = regexp.MustCompile(`^\S+\.go:\d+ +`)

// LogCause words a message of the driver library as its cause: a
// connection the server closed (EOF, reset) is "connection closed by the
// server", whatever the library's wording; others lose their source
// position.
func LogCause(msg string) string {
	msg = strings.TrimSpace(logPosition.ReplaceAllString(msg, ""))
	lower := strings.ToLower(msg)
	switch {
	case strings.Contains(lower, "eof"), strings.Contains(lower, "connection reset"),
		strings.Contains(lower, "broken pipe"), strings.Contains(lower, "closed network connection"),
		strings.Contains(lower, "bad idle connection"), strings.Contains(lower, "invalid connection"):
		return "connection closed by the server"
	case strings.Contains(lower, "unexpected sequence nr"):
		return "packets out of sequence"
	}
	return msg
}

// Connect opens one session. The isolation level is set for the session so
// that it applies equally to client-side transactions and to transactions
// inside stored procedures.
func (Driver) Connect(ctx context.Context, t db.Target, o db.Options) (db.Conn, error) {
	cfg, err := Config(t.DSN)
	if err != nil {
		return nil, err
	}
	if o.AppName != "" {
		cfg.ConnectionAttributes = "program_name:" + strings.ReplaceAll(o.AppName, ",", " ")
	}
	cfg.Logger = driverLog{sink: o.DriverLog}
	connector, err := gomysql.NewConnector(cfg)
	if err != nil {
		return nil, fmt.Errorf("connect to %s: %w", db.Redact(t.DSN), db.RedactError(err, t.DSN))
	}
	pool := sql.OpenDB(connector)
	// One session = one connection: prepared statements and transactions
	// belong to it, and the pool must never open a second one behind our back.
	pool.SetMaxOpenConns(1)
	conn, err := pool.Conn(ctx)
	if err != nil {
		pool.Close()
		return nil, fmt.Errorf("connect to %s: %w", db.Redact(t.DSN), db.RedactError(err, t.DSN))
	}
	c := &Conn{pool: pool, conn: conn, stmts: map[string]*statement{}}
	// ANSI_QUOTES: "identifier" quoting as in standard SQL, so that statements
	// shared with the other dialects (e.g. sledge_meta's "key" column, a
	// reserved word here) parse the same.
	setup := []string{"SET SESSION sql_mode = CONCAT(@@sql_mode, ',ANSI_QUOTES')"}
	switch o.Isolation {
	case db.ReadCommitted:
		setup = append(setup, "SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED")
	case db.RepeatableRead:
		setup = append(setup, "SET SESSION TRANSACTION ISOLATION LEVEL REPEATABLE READ")
	case db.Serializable:
		setup = append(setup, "SET SESSION TRANSACTION ISOLATION LEVEL SERIALIZABLE")
	}
	if o.Bulk {
		// Keys are checked by the generator's construction; the server need
		// not look up every secondary index entry while loading.
		setup = append(setup, "SET SESSION unique_checks = 0, foreign_key_checks = 0")
	}
	if s := snapshotSetting(o.SnapshotIsolation); s != "" {
		setup = append(setup, s)
	}
	for _, s := range setup {
		if _, err := conn.ExecContext(ctx, s); err != nil {
			if isUnknownVariable(err) && strings.Contains(s, snapshotVariable) {
				continue // MySQL, or a MariaDB before the variable: nothing to set
			}
			c.Close(ctx)
			return nil, fmt.Errorf("%s: %w", s, wrap(err))
		}
	}
	return c, nil
}

// snapshotVariable is MariaDB's InnoDB snapshot isolation switch.
const snapshotVariable = "innodb_snapshot_isolation"

// snapshotSetting is the statement that gives a session the snapshot
// isolation asked for, or "" to leave the server's setting.
func snapshotSetting(si db.SnapshotIsolation) string {
	switch si {
	case db.SnapshotOn:
		return "SET SESSION " + snapshotVariable + " = ON"
	case db.SnapshotOff:
		return "SET SESSION " + snapshotVariable + " = OFF"
	}
	return ""
}

// isUnknownVariable reports ER_UNKNOWN_SYSTEM_VARIABLE.
func isUnknownVariable(err error) bool {
	var me *gomysql.MySQLError
	return errors.As(err, &me) && me.Number == erUnknownSystemVariable
}

// SnapshotIsolation reads the session's innodb_snapshot_isolation ("ON" or
// "OFF"); ok is false on a server without the variable (MySQL, MariaDB
// before 10.6.18).
func (c *Conn) SnapshotIsolation(ctx context.Context) (value string, ok bool, err error) {
	var v string
	err = c.conn.QueryRowContext(ctx, "SELECT @@SESSION."+snapshotVariable).Scan(&v)
	switch {
	case isUnknownVariable(err):
		return "", false, nil
	case err != nil:
		return "", false, fmt.Errorf("read %s: %w", snapshotVariable, wrap(err))
	}
	switch v {
	case "1":
		v = "ON"
	case "0":
		v = "OFF"
	}
	return v, true, nil
}

// MySQL error numbers Sledge classifies (see the servers' error references).
const (
	erCheckRead         = 1020 // "Record has changed since last read": MariaDB innodb_snapshot_isolation
	erLockWaitTimeout   = 1205
	erLockDeadlock      = 1213
	erLockNowait        = 3572 // MySQL 8 NOWAIT
	erDupEntry          = 1062
	erDupKeyName        = 1586
	erDupUnique         = 1169
	erForeignDupKey     = 1557
	erNoReferencedRow   = 1216
	erRowIsReferenced   = 1217
	erNoReferencedRow2  = 1452
	erRowIsReferenced2  = 1451
	erBadNull           = 1048
	erCheckViolated     = 3819 // MySQL CHECK constraint
	erConstraintFailed  = 4025 // MariaDB CHECK constraint
	erQueryInterrupted  = 1317
	erConnectionKilled  = 1927
	erServerShutdown    = 1053
	erTooManyConns      = 1040
	erAbortingConn      = 1152
	erNetReadError      = 1158
	erNetReadInterrupt  = 1159
	erNetWriteError     = 1160
	erNetWriteInterrupt = 1161
	erNewAbortingConn   = 1184
	erClientIdleTimeout = 4031 // MySQL 8: disconnected for inactivity
	erStatementTimeout  = 1969 // MariaDB max_statement_time
	erMySQLExecTimeout  = 3024 // MySQL max_execution_time
	crServerGone        = 2006
	crServerLost        = 2013
	crServerLostExt     = 2055
	crConnectionError   = 2002
	crConnHostError     = 2003
	erUnknownComError   = 1047
	erLockAbortedOnKill = 1689
	erBadDB             = 1049

	erUnknownSystemVariable = 1193
)

// Classify maps server error numbers, then SQLSTATE, then common failures.
// InnoDB reports conflicts between serializable transactions as deadlocks
// (1213, SQLSTATE 40001), and MariaDB's snapshot isolation a row changed
// after the transaction's read view as 1020 (SQLSTATE HY000, which says
// nothing): both are conflicts, retried under --max-retries like
// serialization failures. A lock wait timeout (1205) is a timeout: the
// transaction waited innodb_lock_wait_timeout, and a retry would hide that.
func (Driver) Classify(err error) db.ErrorClass {
	var me *gomysql.MySQLError
	if errors.As(err, &me) {
		switch me.Number {
		case erCheckRead:
			return db.ClassSerialization
		case erLockDeadlock:
			return db.ClassDeadlock
		case erLockWaitTimeout, erLockNowait, erQueryInterrupted, erStatementTimeout, erMySQLExecTimeout:
			return db.ClassTimeout
		case erDupEntry, erDupKeyName, erDupUnique, erForeignDupKey, erNoReferencedRow, erRowIsReferenced,
			erNoReferencedRow2, erRowIsReferenced2, erBadNull, erCheckViolated, erConstraintFailed:
			return db.ClassConstraint
		case erConnectionKilled, erServerShutdown, erTooManyConns, erAbortingConn, erNetReadError,
			erNetReadInterrupt, erNetWriteError, erNetWriteInterrupt, erNewAbortingConn, erClientIdleTimeout,
			crServerGone, crServerLost, crServerLostExt, crConnectionError, crConnHostError,
			erUnknownComError, erLockAbortedOnKill:
			return db.ClassConnection
		}
		return db.ClassifySQLState(string(me.SQLState[:]))
	}
	if c, ok := db.ClassifyCommon(err); ok {
		return c
	}
	if errors.Is(err, driver.ErrBadConn) || errors.Is(err, gomysql.ErrInvalidConn) ||
		errors.Is(err, sql.ErrConnDone) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return db.ClassConnection
	}
	return db.ClassOther
}

// A bulk load retries a part that waited too long on another loader's
// locks (db.RetryLoad).
var _ db.LockTimeouter = Driver{}

// LockTimeout reports a lock wait timeout (1205) or a NOWAIT lock refused
// (3572): a wait on another session's lock, not a statement time limit.
func (Driver) LockTimeout(err error) bool {
	var me *gomysql.MySQLError
	return errors.As(err, &me) && (me.Number == erLockWaitTimeout || me.Number == erLockNowait)
}

// MissingDatabase reports whether err says the database a session was to
// connect to does not exist (ER_BAD_DB_ERROR, "Unknown database").
func (Driver) MissingDatabase(err error) bool {
	var me *gomysql.MySQLError
	return errors.As(err, &me) && me.Number == erBadDB
}

// Version returns "MariaDB 10.11.6" or "MySQL 8.0.36".
func (Driver) Version(ctx context.Context, c db.Conn) (string, error) {
	var v string
	if err := c.QueryRow(ctx, "SELECT VERSION()").Scan(&v); err != nil {
		return "", fmt.Errorf("read server version: %w", err)
	}
	return FlavourVersion(v), nil
}

// FlavourVersion names the product behind a VERSION() string: MariaDB says so
// in it ("10.11.6-MariaDB-0+deb12u1"), MySQL does not ("8.0.36").
func FlavourVersion(v string) string {
	num, _, _ := strings.Cut(v, "-")
	if strings.Contains(strings.ToLower(v), "mariadb") {
		return "MariaDB " + num
	}
	return "MySQL " + num
}

// CreateDatabase creates database name through the administrator's session
// admin (see db.Admin). MariaDB and MySQL have no database owners: owner and
// password are ignored (grants are the administrator's business).
func (Driver) CreateDatabase(ctx context.Context, admin db.Conn, name, owner, password string) (bool, error) {
	ident := "`" + strings.ReplaceAll(name, "`", "``") + "`"
	fail := func(err error) (bool, error) { return false, fmt.Errorf("create database %s: %w", ident, err) }
	switch {
	case name == "":
		return false, errors.New("create database: no database name given")
	case strings.ContainsRune(name, 0):
		return fail(errors.New("the name holds a NUL byte"))
	}
	// Compared as bytes: where names are case-sensitive (lower_case_table_names
	// = 0) "Tpcc" is not "tpcc"; where they are not, the name is stored
	// folded, and CREATE DATABASE IF NOT EXISTS below then finds it.
	var n int
	err := admin.QueryRow(ctx, "SELECT COUNT(*) FROM information_schema.SCHEMATA WHERE CAST(SCHEMA_NAME AS BINARY) = CAST($1 AS BINARY)", name).Scan(&n)
	if err != nil {
		return fail(err)
	}
	if n > 0 {
		return false, nil
	}
	// Sent as text, not prepared. It affects one row when it creates the
	// database and none (with a warning) when it exists already, as it may
	// have since the check above.
	q := "CREATE DATABASE IF NOT EXISTS " + ident
	var affected int64
	if c, ok := admin.(*Conn); ok {
		res, err := c.conn.ExecContext(ctx, q)
		if err != nil {
			return fail(wrap(err))
		}
		affected, err = res.RowsAffected()
		if err != nil {
			return fail(err)
		}
	} else if affected, err = admin.Exec(ctx, q); err != nil {
		return fail(err)
	}
	return affected > 0, nil
}

// Conn is one MariaDB/MySQL connection with its own prepared statements.
type Conn struct {
	pool    *sql.DB
	conn    *sql.Conn
	mu      sync.Mutex // guards stmts; a Conn is used by one goroutine, but Close may race
	stmts   map[string]*statement
	readers atomic.Int64 // numbers LOAD DATA reader registrations
	args    []any        // reused argument list for rewritten statements
	loading bool         // the session's lock wait is a bulk load's (CopyText)
}

// bulkLockWait is how long a bulk load's session waits for a lock
// (innodb_lock_wait_timeout, seconds): the parts of one table load in
// parallel, each in one transaction, and one may wait at a key range's
// edge for another to commit, longer than the server's default 50 s when
// the machine is busy (a TPROC-H lineitem part failed so); a deadlock is
// still detected at once.
const bulkLockWait = 86400

// statement is a prepared statement and, for $n parameters, which caller
// argument goes to each ? in order.
type statement struct {
	stmt  *sql.Stmt
	order []int // nil: arguments pass through as given
}

func (c *Conn) statement(ctx context.Context, q string) (*statement, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if s, ok := c.stmts[q]; ok {
		return s, nil
	}
	text, order, err := rewriteParams(q)
	if err != nil {
		return nil, err
	}
	ps, err := c.conn.PrepareContext(ctx, text)
	if err != nil {
		return nil, wrap(err)
	}
	s := &statement{stmt: ps, order: order}
	c.stmts[q] = s
	return s, nil
}

// bind orders the caller's arguments for the statement's ? markers and turns
// integer slices (the routines' item lists) into comma-separated text.
func (c *Conn) bind(s *statement, args []any) []any {
	if s.order == nil {
		for i, a := range args {
			args[i] = convertArg(a)
		}
		return args
	}
	out := c.args[:0]
	for _, i := range s.order {
		if i < len(args) {
			out = append(out, convertArg(args[i]))
		} else {
			out = append(out, nil) // the server reports the missing argument
		}
	}
	c.args = out
	return out
}

func convertArg(a any) any {
	switch v := a.(type) {
	case []int32:
		b := make([]byte, 0, len(v)*6)
		for i, n := range v {
			if i > 0 {
				b = append(b, ',')
			}
			b = strconv.AppendInt(b, int64(n), 10)
		}
		return string(b)
	case []int:
		b := make([]byte, 0, len(v)*6)
		for i, n := range v {
			if i > 0 {
				b = append(b, ',')
			}
			b = strconv.AppendInt(b, int64(n), 10)
		}
		return string(b)
	}
	return a
}

func (c *Conn) Exec(ctx context.Context, q string, args ...any) (int64, error) {
	if len(args) == 0 && !strings.Contains(q, "$") {
		// DDL and routine bodies: the server does not prepare them all, and
		// they run once. Sent as text.
		res, err := c.conn.ExecContext(ctx, q)
		if err != nil {
			return 0, wrap(err)
		}
		return res.RowsAffected()
	}
	s, err := c.statement(ctx, q)
	if err != nil {
		return 0, err
	}
	res, err := s.stmt.ExecContext(ctx, c.bind(s, args)...)
	if err != nil {
		return 0, wrap(err)
	}
	return res.RowsAffected()
}

type row struct {
	r   *sql.Row
	err error
}

func (r row) Scan(dest ...any) error {
	if r.err != nil {
		return r.err
	}
	return wrap(r.r.Scan(dest...))
}

func (c *Conn) QueryRow(ctx context.Context, q string, args ...any) db.Row {
	s, err := c.statement(ctx, q)
	if err != nil {
		return row{err: err}
	}
	return row{r: s.stmt.QueryRowContext(ctx, c.bind(s, args)...)}
}

type rows struct{ *sql.Rows }

func (r rows) Close()                 { _ = r.Rows.Close() }
func (r rows) Scan(dest ...any) error { return wrap(r.Rows.Scan(dest...)) }
func (r rows) Err() error             { return wrap(r.Rows.Err()) }

func (c *Conn) Query(ctx context.Context, q string, args ...any) (db.Rows, error) {
	s, err := c.statement(ctx, q)
	if err != nil {
		return nil, err
	}
	r, err := s.stmt.QueryContext(ctx, c.bind(s, args)...)
	if err != nil {
		return nil, wrap(err)
	}
	return rows{r}, nil
}

func (c *Conn) Begin(ctx context.Context, readOnly bool) error {
	q := "START TRANSACTION"
	if readOnly {
		q = "START TRANSACTION READ ONLY"
	}
	_, err := c.conn.ExecContext(ctx, q)
	return wrap(err)
}

func (c *Conn) Commit(ctx context.Context) error {
	_, err := c.conn.ExecContext(ctx, "COMMIT")
	return wrap(err)
}

func (c *Conn) Rollback(ctx context.Context) error {
	_, err := c.conn.ExecContext(ctx, "ROLLBACK")
	return wrap(err)
}

func (c *Conn) Close(ctx context.Context) error {
	c.mu.Lock()
	for _, s := range c.stmts {
		_ = s.stmt.Close()
	}
	c.stmts = nil
	c.mu.Unlock()
	err := c.conn.Close()
	if perr := c.pool.Close(); err == nil {
		err = perr
	}
	return err
}

// ServerCommitsLag is nothing: SHOW GLOBAL STATUS sums every session's
// counters when it is read.
func (c *Conn) ServerCommitsLag() time.Duration { return 0 }

// ServerCommits sums Com_commit and Com_rollback: server-wide counters of
// COMMIT and ROLLBACK statements (including those inside stored procedures)
// of every session, not only Sledge's.
func (c *Conn) ServerCommits(ctx context.Context) (int64, error) {
	r, err := c.conn.QueryContext(ctx, "SHOW GLOBAL STATUS WHERE Variable_name IN ('Com_commit', 'Com_rollback')")
	if err != nil {
		return 0, fmt.Errorf("read Com_commit and Com_rollback: %w", wrap(err))
	}
	defer r.Close()
	var total int64
	for r.Next() {
		var name string
		var v int64
		if err := r.Scan(&name, &v); err != nil {
			return 0, fmt.Errorf("read Com_commit and Com_rollback: %w", wrap(err))
		}
		total += v
	}
	return total, wrap(r.Err())
}

// CopyText loads rows given in PostgreSQL COPY text format, which is also
// LOAD DATA's default format (tab-separated, \N for NULL, backslash escapes),
// streamed from r with LOAD DATA LOCAL INFILE. copySQL is "COPY table (cols)
// FROM STDIN". The server must allow it (local_infile=ON, MariaDB's default).
func (c *Conn) CopyText(ctx context.Context, copySQL string, r io.Reader) (int64, error) {
	table, cols, err := parseCopy(copySQL)
	if err != nil {
		return 0, err
	}
	if !c.loading {
		_, err := c.conn.ExecContext(ctx, fmt.Sprintf("SET SESSION innodb_lock_wait_timeout = %d", bulkLockWait))
		var me *gomysql.MySQLError
		if err != nil && !(errors.As(err, &me) && me.Number == erUnknownSystemVariable) {
			return 0, fmt.Errorf("set the load's lock wait: %w", wrap(err))
		}
		c.loading = true
	}
	name := fmt.Sprintf("sledge-%p-%d", c, c.readers.Add(1))
	gomysql.RegisterReaderHandler(name, func() io.Reader { return r })
	defer gomysql.DeregisterReaderHandler(name)
	q := "LOAD DATA LOCAL INFILE 'Reader::" + name + "' INTO TABLE " + table +
		" CHARACTER SET utf8mb4 (" + cols + ")"
	res, err := c.conn.ExecContext(ctx, q)
	if err != nil {
		return 0, fmt.Errorf("LOAD DATA into %s: %w", table, wrap(err))
	}
	return res.RowsAffected()
}

// parseCopy takes "COPY table (a, b) FROM STDIN" apart.
func parseCopy(s string) (table, cols string, err error) {
	rest, ok := strings.CutPrefix(strings.TrimSpace(s), "COPY ")
	if !ok {
		return "", "", fmt.Errorf("not a COPY statement: %q", s)
	}
	open, close := strings.IndexByte(rest, '('), strings.LastIndexByte(rest, ')')
	if open < 0 || close < open {
		return "", "", fmt.Errorf("COPY statement without a column list: %q", s)
	}
	return strings.TrimSpace(rest[:open]), rest[open+1 : close], nil
}

// sqlStateError gives MySQL errors the SQLState() method db.SQLState looks
// for (go-sql-driver keeps it in a field).
type sqlStateError struct{ *gomysql.MySQLError }

func (e sqlStateError) SQLState() string { return string(e.MySQLError.SQLState[:]) }
func (e sqlStateError) Unwrap() error    { return e.MySQLError }

func wrap(err error) error {
	var me *gomysql.MySQLError
	if err != nil && errors.As(err, &me) {
		if _, already := err.(sqlStateError); !already {
			return sqlStateError{me}
		}
	}
	return err
}

// rewriteParams turns $n markers into ? and returns which argument (0-based)
// each ? takes. Text inside quotes and comments is left alone. A statement
// without $n markers returns a nil order.
func rewriteParams(q string) (string, []int, error) {
	if !strings.Contains(q, "$") {
		return q, nil, nil
	}
	var (
		b     strings.Builder
		order []int
	)
	b.Grow(len(q))
	for i := 0; i < len(q); {
		ch := q[i]
		switch {
		case ch == '\'' || ch == '"' || ch == '`':
			j := i + 1
			for j < len(q) && q[j] != ch {
				if q[j] == '\\' && ch != '`' {
					j++
				}
				j++
			}
			j = min(j+1, len(q))
			b.WriteString(q[i:j])
			i = j
		case ch == '-' && strings.HasPrefix(q[i:], "-- "), ch == '#':
			j := strings.IndexByte(q[i:], '\n')
			if j < 0 {
				j = len(q) - i
			}
			b.WriteString(q[i : i+j])
			i += j
		case ch == '/' && strings.HasPrefix(q[i:], "/*"):
			j := strings.Index(q[i+2:], "*/")
			end := len(q)
			if j >= 0 {
				end = i + 2 + j + 2
			}
			b.WriteString(q[i:end])
			i = end
		case ch == '$' && i+1 < len(q) && q[i+1] >= '1' && q[i+1] <= '9':
			j := i + 1
			for j < len(q) && q[j] >= '0' && q[j] <= '9' {
				j++
			}
			n, err := strconv.Atoi(q[i+1 : j])
			if err != nil {
				return "", nil, fmt.Errorf("parameter %s: %w", q[i:j], err)
			}
			order = append(order, n-1)
			b.WriteByte('?')
			i = j
		default:
			b.WriteByte(ch)
			i++
		}
	}
	return b.String(), order, nil
}

var (
	_ db.Conn                = (*Conn)(nil)
	_ db.TextCopier          = (*Conn)(nil)
	_ db.ServerCommitCounter = (*Conn)(nil)
	_ db.Driver              = Driver{}
	_ db.Admin               = Driver{}
)
