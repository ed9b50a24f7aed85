// Package postgres is Sledge's PostgreSQL driver, built on pgx's native
// interface (not database/sql) so the transaction hot path stays lean.
package postgres

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/sledge-bench/sledge/internal/db"
)

// Driver opens PostgreSQL sessions.
type Driver struct{}

func (Driver) Kind() db.Kind { return db.Postgres }

// Connect opens one session. The isolation level becomes the session default
// (default_transaction_isolation) so that it applies equally to client-side
// transactions and to single-statement calls of server-side routines.
func (Driver) Connect(ctx context.Context, t db.Target, o db.Options) (db.Conn, error) {
	// Errors may quote the URL, or (read otherwise) a piece of it.
	pgURL := db.PostgresURL(t.DSN)
	cfg, err := pgx.ParseConfig(pgURL)
	if err != nil {
		return nil, fmt.Errorf("parse PostgreSQL URL %s: %w", db.Redact(t.DSN), db.RedactError(errors.Unwrap(err), t.DSN, pgURL))
	}
	switch o.ExecMode {
	case db.Simple:
		cfg.DefaultQueryExecMode = pgx.QueryExecModeSimpleProtocol
	default:
		cfg.DefaultQueryExecMode = pgx.QueryExecModeCacheStatement
	}
	if o.AppName != "" {
		cfg.RuntimeParams["application_name"] = o.AppName
	}
	switch o.Isolation {
	case db.ReadCommitted:
		cfg.RuntimeParams["default_transaction_isolation"] = "read committed"
	case db.RepeatableRead:
		cfg.RuntimeParams["default_transaction_isolation"] = "repeatable read"
	case db.Serializable:
		cfg.RuntimeParams["default_transaction_isolation"] = "serializable"
	}
	if o.Bulk {
		// A crash during a load means reloading anyway; do not wait for WAL flushes.
		cfg.RuntimeParams["synchronous_commit"] = "off"
	}
	c, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("connect to %s: %w", db.Redact(t.DSN), db.RedactError(connectError(err), t.DSN, pgURL))
	}
	conn := &Conn{c: c}
	if o.ExecMode != db.Simple {
		conn.prepared = map[string]*statement{}
	}
	return conn, nil
}

// connectError reports the attempt that matters of a failed connection.
// pgx makes one attempt per address and TLS mode (sslmode=prefer, the
// default, tries TLS first, then a plain connection) and joins their errors
// in a pgconn.ConnectError: on a server without TLS every error then began
// with "tls error: server refused TLS connection", followed by the plain
// attempt's real reason (wrong password, no such database). Attempts that
// only found the server refusing TLS and were followed by another attempt,
// and repeated messages, are left out; the error chain keeps the
// ConnectError (and so every attempt's error) for errors.Is/As.
func connectError(err error) error {
	var ce *pgconn.ConnectError
	if !errors.As(err, &ce) {
		return err
	}
	joined, ok := ce.Unwrap().(interface{ Unwrap() []error })
	if !ok {
		return err
	}
	attempts := joined.Unwrap()
	var kept []string
	for i, a := range attempts {
		if i < len(attempts)-1 && strings.Contains(a.Error(), "server refused TLS connection") {
			continue
		}
		if msg := a.Error(); !slices.Contains(kept, msg) {
			kept = append(kept, msg)
		}
	}
	if len(kept) == 0 {
		return err
	}
	return &reportedConnectError{
		msg: fmt.Sprintf("failed to connect to `user=%s database=%s`: %s", ce.Config.User, ce.Config.Database, strings.Join(kept, "; ")),
		err: err,
	}
}

// reportedConnectError is a ConnectError worded by connectError.
type reportedConnectError struct {
	msg string
	err error
}

func (e *reportedConnectError) Error() string { return e.msg }
func (e *reportedConnectError) Unwrap() error { return e.err }

// MissingDatabase reports whether err says the database a session was to
// connect to does not exist (SQLSTATE 3D000).
func (Driver) MissingDatabase(err error) bool { return db.SQLState(err) == "3D000" }

// A bulk load retries a part that waited too long on another loader's
// locks (db.RetryLoad).
var _ db.LockTimeouter = Driver{}

// LockTimeout reports lock_not_available (55P03: lock_timeout, NOWAIT): a
// wait on another session's lock, not a statement time limit.
func (Driver) LockTimeout(err error) bool { return db.SQLState(err) == "55P03" }

// Classify maps PostgreSQL errors by SQLSTATE.
func (Driver) Classify(err error) db.ErrorClass {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		return db.ClassifySQLState(pgErr.Code)
	}
	if c, ok := db.ClassifyCommon(err); ok {
		return c
	}
	if pgconn.SafeToRetry(err) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return db.ClassConnection
	}
	var connErr *pgconn.ConnectError
	if errors.As(err, &connErr) {
		return db.ClassConnection
	}
	return db.ClassOther
}

// Version returns e.g. "PostgreSQL 15.18".
func (Driver) Version(ctx context.Context, c db.Conn) (string, error) {
	var v string
	if err := c.QueryRow(ctx, "SHOW server_version").Scan(&v); err != nil {
		return "", fmt.Errorf("read server_version: %w", err)
	}
	return "PostgreSQL " + v, nil
}

// CreateDatabase creates database name owned by owner through the
// administrator's session admin (see db.Admin). A missing owner is created
// first, as a login role with password.
//
// CREATE ROLE takes no parameters, so the password travels as a string
// literal in the statement's text (and shows in the server's log where it
// logs DDL statements).
func (Driver) CreateDatabase(ctx context.Context, admin db.Conn, name, owner, password string) (bool, error) {
	ident := pgx.Identifier{name}.Sanitize()
	fail := func(err error) (bool, error) { return false, fmt.Errorf("create database %s: %w", ident, err) }
	switch {
	case name == "":
		return false, errors.New("create database: no database name given")
	case strings.ContainsRune(name, 0), strings.ContainsRune(owner, 0):
		return fail(errors.New("a name holds a NUL byte"))
	case strings.ContainsRune(password, 0):
		return fail(errors.New("the password holds a NUL byte"))
	}
	var exists bool
	if err := admin.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)", name).Scan(&exists); err != nil {
		return fail(err)
	}
	if exists {
		return false, nil
	}
	create := "CREATE DATABASE " + ident
	if owner != "" {
		if _, err := ensureRole(ctx, admin, owner, password); err != nil {
			return fail(err)
		}
		create += " OWNER " + pgx.Identifier{owner}.Sanitize()
	}
	if _, err := admin.Exec(ctx, create); err != nil {
		if db.SQLState(err) == "42P04" { // duplicate_database: created meanwhile
			return false, nil
		}
		return fail(err)
	}
	return true, nil
}

// ensureRole creates role owner as a login with password unless it exists,
// and reports whether it did.
func ensureRole(ctx context.Context, admin db.Conn, owner, password string) (bool, error) {
	role := pgx.Identifier{owner}.Sanitize()
	var exists bool
	if err := admin.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = $1)", owner).Scan(&exists); err != nil {
		return false, fmt.Errorf("look up role %s: %w", role, err)
	}
	if exists {
		return false, nil
	}
	stmt := "CREATE ROLE " + role + " LOGIN"
	if password != "" {
		stmt += " PASSWORD " + quoteLiteral(password)
	}
	if _, err := admin.Exec(ctx, stmt); err != nil {
		if db.SQLState(err) == "42710" { // duplicate_object: created meanwhile
			return false, nil
		}
		return false, fmt.Errorf("create role %s: %w", role, err)
	}
	return true, nil
}

// AdoptDatabase makes the existing database admin is connected to ready for
// owner's build (see db.Adopter), as HammerDB's build does with an empty
// database a DBA created: since PostgreSQL 15 only the database's owner may
// create tables in its public schema, so a login that does not own it could
// not build there.
func (Driver) AdoptDatabase(ctx context.Context, admin db.Conn, owner, password string) ([]string, error) {
	switch {
	case owner == "":
		return nil, nil
	case strings.ContainsRune(owner, 0):
		return nil, errors.New("adopt database: the owner's name holds a NUL byte")
	case strings.ContainsRune(password, 0):
		return nil, errors.New("adopt database: the password holds a NUL byte")
	}
	var did []string
	created, err := ensureRole(ctx, admin, owner, password)
	if err != nil {
		return nil, err
	}
	if created {
		did = append(did, "created role "+owner)
	}
	var (
		name   string
		owns   bool
		tables int64
	)
	// Superusers count as members of every role: they need nothing.
	err = admin.QueryRow(ctx, `SELECT d.datname, pg_has_role($1, d.datdba, 'MEMBER'),
		(SELECT count(*) FROM pg_catalog.pg_tables WHERE schemaname NOT IN ('pg_catalog', 'information_schema'))
		FROM pg_catalog.pg_database d WHERE d.datname = current_database()`, owner).Scan(&name, &owns, &tables)
	if err != nil {
		return did, fmt.Errorf("read the owner of the current database: %w", err)
	}
	if owns || tables > 0 {
		return did, nil
	}
	ident, role := pgx.Identifier{name}.Sanitize(), pgx.Identifier{owner}.Sanitize()
	if _, err := admin.Exec(ctx, "ALTER DATABASE "+ident+" OWNER TO "+role); err != nil {
		return did, fmt.Errorf("make %s the owner of database %s: %w", role, ident, err)
	}
	return append(did, "made "+owner+" its owner"), nil
}

// quoteLiteral makes s (without NUL bytes) a string constant. The escape
// string syntax, E'…' with backslashes and quotes doubled, reads the same
// whatever the server's standard_conforming_strings.
func quoteLiteral(s string) string {
	s = strings.ReplaceAll(s, `\`, `\\`)
	return "E'" + strings.ReplaceAll(s, "'", "''") + "'"
}

// Conn is one pgx session.
type Conn struct {
	c *pgx.Conn
	// prepared holds the statements Exec has prepared, by SQL text, with
	// their parameters' encode plans (nil in simple protocol mode).
	prepared map[string]*statement
	eqb      pgx.ExtendedQueryBuilder
	params   [][]byte
	formats  []int16
	buf      []byte
	spans    []span
	watch    sessionWatch
}

// sessionWatch interrupts the statement in flight when the context it runs
// under is cancelled, as pgx does (a socket deadline in the past: the read
// fails and the session is closed), but it registers with a context once per
// session instead of once per statement: a VU runs all its statements under
// one context, and pgx's per-statement watch was a measurable part of the
// client's CPU per transaction.
type sessionWatch struct {
	stop func() bool

	mu    sync.Mutex
	ctx   context.Context // the context watched
	conn  net.Conn
	busy  bool // a statement is in flight
	fired bool // its deadline was moved to interrupt it
}

// begin marks a statement as in flight on conn under ctx.
func (w *sessionWatch) begin(ctx context.Context, conn net.Conn) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if ctx.Done() != nil && ctx != w.ctx {
		if w.stop != nil {
			w.stop()
		}
		w.ctx, w.stop = ctx, context.AfterFunc(ctx, func() { w.interrupt(ctx) })
	}
	w.conn, w.busy = conn, true
	return nil
}

// end marks the statement done, taking back a deadline set too late to
// interrupt it.
func (w *sessionWatch) end() {
	w.mu.Lock()
	w.busy = false
	if w.fired {
		w.fired = false
		_ = w.conn.SetDeadline(time.Time{})
	}
	w.mu.Unlock()
}

// interrupt runs when ctx is cancelled; a context the session has since
// stopped watching (its cancellation may arrive late) changes nothing.
func (w *sessionWatch) interrupt(ctx context.Context) {
	w.mu.Lock()
	if w.busy && w.ctx == ctx {
		w.fired = true
		_ = w.conn.SetDeadline(time.Now())
	}
	w.mu.Unlock()
}

// close stops watching (the session is closing).
func (w *sessionWatch) close() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.stop != nil {
		w.stop()
		w.stop, w.ctx = nil, nil
	}
}

// maxPrepared bounds the statements a session prepares for Exec; the
// workloads' hot paths use a few dozen.
const maxPrepared = 256

// statement is a prepared statement and the encode plan of each parameter
// for the Go type last bound to it: a VU binds the same types every time, so
// the plans are looked up once instead of per call.
type statement struct {
	sd      *pgconn.StatementDescription
	types   []reflect.Type
	plans   []pgtype.EncodePlan
	formats []int16
}

// Pgx exposes the underlying connection for PostgreSQL-only code (tests, tools).
func (c *Conn) Pgx() *pgx.Conn { return c.c }

// Exec runs a statement for its effect. With arguments — every VU's hot
// path — it goes through pgconn itself: the statement is prepared once per
// session, its arguments are encoded with cached plans into reused buffers,
// the result is discarded as it arrives (pgx's Exec copies every row first),
// and cancellation is watched once per session rather than per statement.
func (c *Conn) Exec(ctx context.Context, sql string, args ...any) (int64, error) {
	if c.prepared == nil || len(args) == 0 {
		tag, err := c.c.Exec(ctx, sql, args...)
		return tag.RowsAffected(), err
	}
	st := c.prepared[sql]
	if st == nil && len(c.prepared) >= maxPrepared {
		// Many distinct statements (generated SQL): pgx's own bounded cache.
		tag, err := c.c.Exec(ctx, sql, args...)
		return tag.RowsAffected(), err
	}
	if st == nil {
		sd, err := c.c.Prepare(ctx, sql, sql)
		if err != nil {
			return 0, err
		}
		n := len(sd.ParamOIDs)
		st = &statement{sd: sd, types: make([]reflect.Type, n), plans: make([]pgtype.EncodePlan, n), formats: make([]int16, n)}
		c.prepared[sql] = st
	}
	params, formats, err := c.bind(st, args)
	if err != nil {
		return 0, err
	}
	if err := c.watch.begin(ctx, c.c.PgConn().Conn()); err != nil {
		return 0, err
	}
	// Results are discarded, so they come as text: no formats to send.
	tag, err := c.c.PgConn().ExecPrepared(context.Background(), st.sd.Name, params, formats, nil).Close()
	c.watch.end()
	if err != nil && ctx.Err() != nil {
		err = fmt.Errorf("%w (%w)", ctx.Err(), err)
	}
	return tag.RowsAffected(), err
}

// bind encodes args for st with the plans cached for their types, planning
// again when a type changes; arguments pgtype has no plan for go through
// pgx's own builder.
func (c *Conn) bind(st *statement, args []any) ([][]byte, []int16, error) {
	if len(args) != len(st.sd.ParamOIDs) {
		return nil, nil, fmt.Errorf("statement has %d parameters, %d arguments given", len(st.sd.ParamOIDs), len(args))
	}
	m := c.c.TypeMap()
	c.buf = c.buf[:0]
	c.formats = c.formats[:0]
	c.spans = c.spans[:0]
	for i, arg := range args {
		if arg == nil {
			c.formats = append(c.formats, pgtype.BinaryFormatCode)
			c.spans = append(c.spans, span{end: -1})
			continue
		}
		if a, ok := arg.([]int32); ok {
			// New-Order's item, warehouse and quantity lists: written as a
			// text array literal directly, which costs a fraction of
			// pgtype's generic array encoding.
			start := len(c.buf)
			c.buf = appendInt32Array(c.buf, a)
			c.formats = append(c.formats, pgtype.TextFormatCode)
			c.spans = append(c.spans, span{start, len(c.buf)})
			continue
		}
		if buf, ok := appendBinaryInt(c.buf, st.sd.ParamOIDs[i], arg); ok {
			// Whole numbers into int2/int4/int8: most of every call's
			// arguments, written directly in binary.
			c.spans = append(c.spans, span{len(c.buf), len(buf)})
			c.buf = buf
			c.formats = append(c.formats, pgtype.BinaryFormatCode)
			continue
		}
		t := reflect.TypeOf(arg)
		if st.types[i] != t {
			oid := st.sd.ParamOIDs[i]
			format := m.FormatCodeForOID(oid)
			if _, ok := arg.(string); ok {
				format = pgtype.TextFormatCode // as pgx does: the server parses text
			}
			plan := m.PlanEncode(oid, format, arg)
			if plan == nil {
				return c.bindWithPgx(st, args)
			}
			st.types[i], st.plans[i], st.formats[i] = t, plan, format
		}
		start := len(c.buf)
		buf, err := st.plans[i].Encode(arg, c.buf)
		if err != nil {
			return c.bindWithPgx(st, args)
		}
		c.formats = append(c.formats, st.formats[i])
		if buf == nil {
			c.spans = append(c.spans, span{end: -1}) // SQL NULL
			continue
		}
		c.buf = buf
		c.spans = append(c.spans, span{start, len(buf)})
	}
	// buf may have moved while it grew: cut the values out at the end.
	c.params = c.params[:0]
	for _, sp := range c.spans {
		if sp.end < 0 {
			c.params = append(c.params, nil)
		} else {
			c.params = append(c.params, c.buf[sp.start:sp.end:sp.end])
		}
	}
	return c.params, c.formats, nil
}

// appendBinaryInt appends a Go integer as a binary int2, int4 or int8 for
// a parameter of that type; false when arg is not an integer, the parameter
// not of those types, or the value out of its range (pgx then reports it).
func appendBinaryInt(buf []byte, oid uint32, arg any) ([]byte, bool) {
	var v int64
	switch a := arg.(type) {
	case int:
		v = int64(a)
	case int32:
		v = int64(a)
	case int64:
		v = a
	case int16:
		v = int64(a)
	default:
		return buf, false
	}
	switch oid {
	case pgtype.Int2OID:
		if v < math.MinInt16 || v > math.MaxInt16 {
			return buf, false
		}
		return binary.BigEndian.AppendUint16(buf, uint16(v)), true
	case pgtype.Int4OID:
		if v < math.MinInt32 || v > math.MaxInt32 {
			return buf, false
		}
		return binary.BigEndian.AppendUint32(buf, uint32(v)), true
	case pgtype.Int8OID:
		return binary.BigEndian.AppendUint64(buf, uint64(v)), true
	}
	return buf, false
}

// appendInt32Array appends a as a PostgreSQL array literal: {1,2,3}.
func appendInt32Array(buf []byte, a []int32) []byte {
	buf = append(buf, '{')
	for i, v := range a {
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = strconv.AppendInt(buf, int64(v), 10)
	}
	return append(buf, '}')
}

// span is where one encoded parameter lies in Conn.buf; end < 0 is NULL.
type span struct{ start, end int }

// bindWithPgx encodes args with pgx's builder (types without a plan, or
// an encode error to report as pgx would).
func (c *Conn) bindWithPgx(st *statement, args []any) ([][]byte, []int16, error) {
	if err := c.eqb.Build(c.c.TypeMap(), st.sd, args); err != nil {
		return nil, nil, err
	}
	return c.eqb.ParamValues, c.eqb.ParamFormats, nil
}

func (c *Conn) QueryRow(ctx context.Context, sql string, args ...any) db.Row {
	return c.c.QueryRow(ctx, sql, args...)
}

func (c *Conn) Query(ctx context.Context, sql string, args ...any) (db.Rows, error) {
	r, err := c.c.Query(ctx, sql, args...)
	if err != nil {
		return nil, err
	}
	return r, nil
}

// Begin, Commit and Rollback are plain statements rather than pgx.Tx values:
// the VU owns its session and a Tx object would be one allocation per
// transaction for nothing.
func (c *Conn) Begin(ctx context.Context, readOnly bool) error {
	_, err := c.c.Exec(ctx, "BEGIN")
	return err
}

func (c *Conn) Commit(ctx context.Context) error {
	tag, err := c.c.Exec(ctx, "COMMIT")
	if err == nil && tag.String() == "ROLLBACK" {
		// COMMIT of an aborted transaction reports success with tag ROLLBACK.
		return errors.New("commit: transaction was rolled back by the server")
	}
	return err
}

func (c *Conn) Rollback(ctx context.Context) error {
	_, err := c.c.Exec(ctx, "ROLLBACK")
	return err
}

func (c *Conn) Close(ctx context.Context) error {
	c.watch.close()
	return c.c.Close(ctx)
}

// CopyText loads rows in COPY text format.
func (c *Conn) CopyText(ctx context.Context, copySQL string, r io.Reader) (int64, error) {
	tag, err := c.c.PgConn().CopyFrom(ctx, r, copySQL)
	if err != nil && ctx.Err() == nil && c.connectionLost(err) {
		// pgx says only "unexpected EOF", "broken pipe" or "use of closed
		// network connection" when the server went away mid-COPY.
		err = fmt.Errorf("the connection to the server was lost: %w", err)
	}
	return tag.RowsAffected(), err
}

// connectionLost reports whether err is the connection ending under a
// statement (the server gone, killed, or cut off) rather than an error the
// server sent: pgx closes the connection once its socket fails, whichever
// of its reads or writes found it first.
func (c *Conn) connectionLost(err error) bool {
	var pgErr *pgconn.PgError
	return !errors.As(err, &pgErr) && c.c.PgConn().IsClosed()
}

// ServerCommits reads this database's commit and rollback counters from
// pg_stat_database. They are server-wide for the database: every session counts.
// The statistics collector lags by up to a second (stats_fetch_consistency);
// callers use it for a side-by-side figure, not as the result.
func (c *Conn) ServerCommits(ctx context.Context) (int64, error) {
	var n int64
	// pg_stat_clear_snapshot makes repeated reads in one session see fresh values.
	if _, err := c.c.Exec(ctx, "SELECT pg_stat_clear_snapshot()"); err != nil {
		return 0, fmt.Errorf("clear statistics snapshot: %w", err)
	}
	err := c.c.QueryRow(ctx,
		"SELECT xact_commit + xact_rollback FROM pg_stat_database WHERE datname = current_database()").Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("read pg_stat_database: %w", err)
	}
	return n, nil
}

// ServerCommitsLag: a session adds its transactions to pg_stat_database
// at most once a second while it is busy (PostgreSQL 15 and later; before,
// it sent them to the statistics collector every half second, which wrote
// them out as often). It does so without waiting for the database's shared
// entry: when another session holds it, the commits stay pending until the
// next try, a second later. So a read may miss two seconds of commits (seen:
// a 5 s window of 3 VUs at 53,000 TPM, quiet machine, read 995 commits
// short, beyond one second's 889).
func (c *Conn) ServerCommitsLag() time.Duration { return 2 * time.Second }

var (
	_ db.Conn                = (*Conn)(nil)
	_ db.TextCopier          = (*Conn)(nil)
	_ db.ServerCommitCounter = (*Conn)(nil)
	_ db.Driver              = Driver{}
	_ db.Admin               = Driver{}
)
