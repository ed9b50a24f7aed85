package jobs

import (
	"context"
	"database/sql"
	"strconv"
	"strings"
	"sync"
)

// dialect is what differs between the repository's two backends, SQLite
// and PostgreSQL. Every repository method is written once, in SQLite's
// placeholder style (? and ?N), and runs through db and tx below, which
// rebind the query for the backend; the schema and its migrations are
// scripts per dialect (see migrations).
type dialect struct {
	name string // "sqlite" or "postgres"
	// dollar: placeholders are $1, $2, … (PostgreSQL) instead of ? and ?N.
	dollar bool
	// lockJob ends the query that checks a job exists in a write
	// transaction: on PostgreSQL it locks the job's row (FOR UPDATE), so
	// that writers of one job take turns at its read-modify-write sequences
	// (the next output seq, replacing a result). SQLite needs nothing: a
	// write transaction holds the database's write lock from BEGIN
	// IMMEDIATE.
	lockJob string
	// writeTx are the options of write transactions: SQLite's driver
	// default (BEGIN IMMEDIATE, from the DSN); READ COMMITTED on PostgreSQL,
	// whatever the server's default_transaction_isolation, so that a writer
	// waits for a job's row lock instead of failing with a serialization
	// error.
	writeTx *sql.TxOptions
	// readTx are the options of read transactions: one consistent snapshot
	// for the whole read. SQLite's read transactions are snapshots by
	// nature (WAL); PostgreSQL's default READ COMMITTED takes one per
	// statement, so reads ask for REPEATABLE READ.
	readTx *sql.TxOptions

	rebound sync.Map // query → rebound query (the queries are few and constant)
}

var (
	sqliteDialect   = &dialect{name: "sqlite", readTx: &sql.TxOptions{ReadOnly: true}}
	postgresDialect = &dialect{name: "postgres", dollar: true, lockJob: " FOR UPDATE",
		writeTx: &sql.TxOptions{Isolation: sql.LevelReadCommitted},
		readTx:  &sql.TxOptions{ReadOnly: true, Isolation: sql.LevelRepeatableRead}}
)

// rebind returns query in the dialect's placeholder style: unchanged for
// SQLite, $N for PostgreSQL.
func (d *dialect) rebind(query string) string {
	if !d.dollar {
		return query
	}
	if q, ok := d.rebound.Load(query); ok {
		return q.(string)
	}
	q := dollarPlaceholders(query)
	d.rebound.Store(query, q)
	return q
}

// dollarPlaceholders turns SQLite's placeholders into PostgreSQL's: ?N
// becomes $N, and a bare ? becomes $K with K one more than the largest
// number given so far (SQLite's own rule, so that ?1 … ? mixes mean the
// same). Question marks inside quoted strings, quoted names and -- comments
// are left alone.
func dollarPlaceholders(q string) string {
	var b strings.Builder
	b.Grow(len(q) + 8)
	largest := 0
	for i := 0; i < len(q); i++ {
		c := q[i]
		switch {
		case c == '\'' || c == '"':
			// Copy the quoted part; a doubled quote ('') closes and reopens.
			j := strings.IndexByte(q[i+1:], c)
			if j < 0 {
				b.WriteString(q[i:])
				return b.String()
			}
			b.WriteString(q[i : i+j+2])
			i += j + 1
		case c == '-' && i+1 < len(q) && q[i+1] == '-':
			j := strings.IndexByte(q[i:], '\n')
			if j < 0 {
				b.WriteString(q[i:])
				return b.String()
			}
			b.WriteString(q[i : i+j+1])
			i += j
		case c == '?':
			j := i + 1
			for j < len(q) && q[j] >= '0' && q[j] <= '9' {
				j++
			}
			n := largest + 1
			if j > i+1 {
				n, _ = strconv.Atoi(q[i+1 : j])
			}
			largest = max(largest, n)
			b.WriteByte('$')
			b.WriteString(strconv.Itoa(n))
			i = j - 1
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// repoDB is the repository's connection pool; every query passes through the
// dialect's rebind. It deliberately has no method that would bypass it.
type repoDB struct {
	raw *sql.DB
	d   *dialect
}

func (x *repoDB) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	return x.raw.ExecContext(ctx, x.d.rebind(query), args...)
}

func (x *repoDB) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	return x.raw.QueryContext(ctx, x.d.rebind(query), args...)
}

func (x *repoDB) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	return x.raw.QueryRowContext(ctx, x.d.rebind(query), args...)
}

// BeginTx begins a transaction: a write transaction with the dialect's
// writeTx, a read one with its readTx.
func (x *repoDB) BeginTx(ctx context.Context, opts *sql.TxOptions) (*repoTx, error) {
	t, err := x.raw.BeginTx(ctx, opts)
	if err != nil {
		return nil, err
	}
	return &repoTx{raw: t, d: x.d}, nil
}

func (x *repoDB) Close() error { return x.raw.Close() }

// repoTx is a transaction whose queries pass through the dialect's rebind.
type repoTx struct {
	raw *sql.Tx
	d   *dialect
}

func (x *repoTx) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	return x.raw.ExecContext(ctx, x.d.rebind(query), args...)
}

func (x *repoTx) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	return x.raw.QueryContext(ctx, x.d.rebind(query), args...)
}

func (x *repoTx) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	return x.raw.QueryRowContext(ctx, x.d.rebind(query), args...)
}

func (x *repoTx) PrepareContext(ctx context.Context, query string) (*sql.Stmt, error) {
	return x.raw.PrepareContext(ctx, x.d.rebind(query))
}

func (x *repoTx) Commit() error   { return x.raw.Commit() }
func (x *repoTx) Rollback() error { return x.raw.Rollback() }
