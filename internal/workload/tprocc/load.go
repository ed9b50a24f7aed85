package tprocc

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/sledge-bench/sledge/internal/db"
)

// Loading moves generated rows into the database: PostgreSQL through COPY
// text streams generated on demand, SQLite through multi-row prepared INSERTs
// on its single writing connection.

// unit is one table scope of the load: a table for one warehouse, or ITEM.
type unit struct {
	t Table
	w int // 0 for ITEM
}

func (u unit) String() string {
	if u.t == TableItem {
		return "item"
	}
	return fmt.Sprintf("%s for warehouse %d", u.t, u.w)
}

// loadCounters counts generated rows per table, shared by all workers.
type loadCounters struct {
	rows  [numTables]atomic.Int64
	total atomic.Int64
	last  atomic.Uint32 // the table most recently worked on, for progress
	// retries counts the units loaded again after a transient conflict
	// between the loaders (copyUnit).
	retries atomic.Int64
}

func (c *loadCounters) add(t Table, n int64) {
	if n == 0 {
		return
	}
	c.rows[t].Add(n)
	c.total.Add(n)
	c.last.Store(uint32(t))
}

// ---------------------------------------------------------------- PostgreSQL

// copyStatement is "COPY t (c1, …) FROM STDIN" for a table.
func copyStatement(t Table) string {
	return "COPY " + tables[t].name + " (" + strings.Join(tables[t].cols, ", ") + ") FROM STDIN"
}

// copyReader is an io.Reader producing a table scope in COPY text format on
// demand: rows are generated as the driver asks for bytes, so a warehouse
// never sits in memory as a whole.
type copyReader struct {
	ctx  context.Context
	src  rowSource
	enc  *CopyEncoder
	t    Table
	off  int // bytes of enc.buf already handed out
	done bool
	rows int64
	ctr  *loadCounters
}

func (r *copyReader) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	if len(r.enc.buf)-r.off < len(p) && !r.done {
		if err := r.ctx.Err(); err != nil {
			return 0, err
		}
		// Keep the unsent tail, then generate until p can be filled.
		rest := copy(r.enc.buf, r.enc.buf[r.off:])
		r.enc.buf, r.off = r.enc.buf[:rest], 0
		var n int64
		for len(r.enc.buf) < len(p) {
			ok, err := r.src.next(r.enc)
			if err != nil {
				return 0, err
			}
			if !ok {
				r.done = true
				break
			}
			n++
		}
		r.rows += n
		r.ctr.add(r.t, n)
	}
	if r.off == len(r.enc.buf) {
		return 0, io.EOF
	}
	n := copy(p, r.enc.buf[r.off:])
	r.off += n
	return n, nil
}

// copyUnit loads one table scope with COPY. enc is the worker's encoder,
// reused from unit to unit. A unit whose load failed on a transient
// conflict with another loader (a deadlock, a lock wait timeout:
// db.RetryLoad) is loaded again from its first row: the failed statement
// (a COPY, or a LOAD DATA in its own transaction) was rolled back whole,
// and the unit's source makes the same rows again (its random streams
// depend only on the seed, the table, the warehouse and the district; the
// load timestamp is the encoder's). The rows the failed attempt counted
// are taken back, and the retry is counted.
func copyUnit(ctx context.Context, drv db.Driver, c db.TextCopier, g *Generator, enc *CopyEncoder, u unit, ctr *loadCounters) (int64, error) {
	var (
		n  int64
		rd *copyReader
	)
	err := db.RetryLoad(ctx, drv, func() error {
		src, err := g.source(u.t, u.w)
		if err != nil {
			return err
		}
		enc.Reset()
		rd = &copyReader{ctx: ctx, src: src, enc: enc, t: u.t, ctr: ctr}
		n, err = c.CopyText(ctx, copyStatement(u.t), rd)
		return err
	}, func() {
		ctr.add(u.t, -rd.rows)
		ctr.retries.Add(1)
	})
	if err != nil {
		if ctx.Err() != nil {
			err = ctx.Err()
		}
		return n, fmt.Errorf("load %s: %w", u, err)
	}
	if n != rd.rows {
		return n, fmt.Errorf("load %s: the server stored %d rows of %d sent", u, n, rd.rows)
	}
	return n, nil
}

// ---------------------------------------------------------------- SQLite

// sqliteBatchRows is how many rows one INSERT carries. Multi-row statements
// amortise the per-statement cost of database/sql and the driver; 128 rows of
// the widest table (customer, 21 columns) stay far below SQLite's limit of
// 32,766 parameters.
const sqliteBatchRows = 128

// sqliteCommitRows is how many rows a write transaction holds before it
// commits: big enough to make commits rare, small enough to keep the WAL
// (which grows with the open transaction) moderate.
const sqliteCommitRows = 50000

// textRef locates a string argument inside a batch's text buffer.
type textRef struct {
	arg        int
	start, end int
}

// insertBatch is a RowWriter collecting the arguments of one multi-row
// INSERT. String values are gathered into one buffer and turned into Go
// strings with a single conversion per batch (substrings share it).
type insertBatch struct {
	t    Table
	rows int
	args []any
	text []byte
	refs []textRef
	now  any // the load timestamp, boxed once
}

func (b *insertBatch) reset(t Table) {
	b.t, b.rows = t, 0
	b.args, b.text, b.refs = b.args[:0], b.text[:0], b.refs[:0]
}

func (b *insertBatch) Int(v int64) { b.args = append(b.args, v) }
func (b *insertBatch) Text(s []byte) {
	b.refs = append(b.refs, textRef{arg: len(b.args), start: len(b.text), end: len(b.text) + len(s)})
	b.text = append(b.text, s...)
	b.args = append(b.args, nil)
}
func (b *insertBatch) Str(s string) { b.args = append(b.args, s) }

// Money and Decimal4 become REAL, the schema's money type on SQLite: the
// exact integer is divided once, and IEEE division rounds correctly, so the
// stored value is the double nearest to the decimal, exactly what SQLite
// stores for the literal "123.45".
func (b *insertBatch) Money(cents int64) { b.args = append(b.args, float64(cents)/100) }
func (b *insertBatch) Decimal4(v int64)  { b.args = append(b.args, float64(v)/10000) }
func (b *insertBatch) Null()             { b.args = append(b.args, nil) }
func (b *insertBatch) Now()              { b.args = append(b.args, b.now) }
func (b *insertBatch) EndRow() error {
	b.rows++
	return nil
}

// seal turns the collected text into string arguments.
func (b *insertBatch) seal() {
	if len(b.refs) == 0 {
		return
	}
	s := string(b.text)
	for _, r := range b.refs {
		b.args[r.arg] = s[r.start:r.end]
	}
}

// sqliteLoader runs the SQLite load: producers generate batches for their
// units, one writer executes them on the only writing connection. SQLite
// allows one writer at a time, so more sessions would only queue on its lock;
// the producers let generation run ahead of the writer on another core.
type sqliteLoader struct {
	conn  db.Conn
	g     *Generator
	now   any
	ctr   *loadCounters
	stmts map[[2]int]string // (table, rows) → INSERT text
	free  chan *insertBatch
	full  chan *insertBatch
}

// insertSQL returns "INSERT INTO t (cols) VALUES (?, …), …" for n rows.
func (l *sqliteLoader) insertSQL(t Table, n int) string {
	key := [2]int{int(t), n}
	if q, ok := l.stmts[key]; ok {
		return q
	}
	cols := tables[t].cols
	var b strings.Builder
	b.WriteString("INSERT INTO " + tables[t].name + " (" + strings.Join(cols, ", ") + ") VALUES ")
	row := "(" + strings.Repeat("?, ", len(cols)-1) + "?)"
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(row)
	}
	q := b.String()
	l.stmts[key] = q
	return q
}

// produce generates units into batches and hands them to the writer.
func (l *sqliteLoader) produce(ctx context.Context, units <-chan unit) error {
	for u := range units {
		src, err := l.g.source(u.t, u.w)
		if err != nil {
			return err
		}
		for done := false; !done; {
			var b *insertBatch
			select {
			case b = <-l.free:
			case <-ctx.Done():
				return ctx.Err()
			}
			b.reset(u.t)
			for b.rows < sqliteBatchRows {
				ok, err := src.next(b)
				if err != nil {
					return fmt.Errorf("generate %s: %w", u, err)
				}
				if !ok {
					done = true
					break
				}
			}
			if b.rows == 0 {
				l.free <- b // never blocks: the batch came from free
				continue
			}
			b.seal()
			select {
			case l.full <- b:
			case <-ctx.Done():
				return ctx.Err()
			}
		}
	}
	return nil
}

// write executes batches until full is closed, committing every
// sqliteCommitRows rows.
func (l *sqliteLoader) write(ctx context.Context) (err error) {
	inTx, pending := false, 0
	defer func() {
		if inTx && err != nil {
			_ = l.conn.Rollback(context.WithoutCancel(ctx))
		}
	}()
	for b := range l.full {
		if !inTx {
			if err := l.conn.Begin(ctx, false); err != nil {
				return fmt.Errorf("begin load transaction: %w", err)
			}
			inTx = true
		}
		if _, err := l.conn.Exec(ctx, l.insertSQL(b.t, b.rows), b.args...); err != nil {
			if ctx.Err() != nil {
				err = ctx.Err()
			}
			return fmt.Errorf("insert into %s: %w", b.t, err)
		}
		l.ctr.add(b.t, int64(b.rows))
		pending += b.rows
		l.free <- b
		if pending >= sqliteCommitRows {
			if err := l.conn.Commit(ctx); err != nil {
				return fmt.Errorf("commit load transaction: %w", err)
			}
			inTx, pending = false, 0
		}
	}
	if inTx {
		if err := l.conn.Commit(ctx); err != nil {
			return fmt.Errorf("commit load transaction: %w", err)
		}
		inTx = false
	}
	return nil
}

// loadSQLite loads every unit through conn with producers generating.
func loadSQLite(ctx context.Context, conn db.Conn, g *Generator, now string, units []unit, producers int, ctr *loadCounters) error {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	l := &sqliteLoader{
		conn: conn, g: g, now: any(now), ctr: ctr, stmts: map[[2]int]string{},
		// A few batches per producer in flight: enough to keep the writer busy.
		free: make(chan *insertBatch, 4*producers),
		full: make(chan *insertBatch, 4*producers),
	}
	for range cap(l.free) {
		l.free <- &insertBatch{now: l.now}
	}
	queue := make(chan unit, len(units))
	for _, u := range units {
		queue <- u
	}
	close(queue)

	var (
		wg       sync.WaitGroup
		firstErr error
		once     sync.Once
	)
	fail := func(err error) {
		once.Do(func() { firstErr = err; cancel(err) })
	}
	for range producers {
		wg.Go(func() {
			if err := l.produce(ctx, queue); err != nil {
				fail(err)
			}
		})
	}
	writerDone := make(chan struct{})
	go func() {
		defer close(writerDone)
		if err := l.write(ctx); err != nil {
			// Cancel at once: producers blocked on a full queue must stop.
			fail(err)
		}
	}()
	wg.Wait()
	close(l.full)
	<-writerDone
	if firstErr != nil {
		// A producer stopped by the cancellation that the writer caused
		// reports context.Canceled; prefer the cause.
		if errors.Is(firstErr, context.Canceled) {
			if cause := context.Cause(ctx); cause != nil && !errors.Is(cause, context.Canceled) {
				return cause
			}
		}
		return firstErr
	}
	return nil
}
