package tproch

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/sledge-bench/sledge/internal/db"
)

// The refresh functions as plain SQL every engine takes: multi-row INSERTs
// with literal values and DELETEs by key lists, each function one
// transaction (an order and its lines always together).

const refreshBatch = 500 // rows per INSERT, keys per DELETE

// refreshStatements renders a refresh function's statements before it is
// timed (the specification allows staging the update data beforehand): RF1
// inserts the update set's new orders and their lines, RF2 deletes the set's
// old orders and all their lines.
func refreshStatements(g *Generator, set, fn int) ([]string, error) {
	if fn == 1 {
		var out []string
		for _, t := range []Table{TableOrders, TableLineitem} {
			src, err := g.RefreshSource(t, set)
			if err != nil {
				return nil, err
			}
			stmts, err := insertStatements(t, src)
			if err != nil {
				return nil, fmt.Errorf("generate %s of update set %d: %w", t, set, err)
			}
			out = append(out, stmts...)
		}
		return out, nil
	}
	keys := g.RefreshDeleteKeys(set)
	var out []string
	for i := 0; i < len(keys); i += refreshBatch {
		chunk := keys[i:min(i+refreshBatch, len(keys))]
		list := make([]byte, 0, len(chunk)*9)
		for j, k := range chunk {
			if j > 0 {
				list = append(list, ',')
			}
			list = strconv.AppendInt(list, k, 10)
		}
		out = append(out,
			"DELETE FROM lineitem WHERE l_orderkey IN ("+string(list)+")",
			"DELETE FROM orders WHERE o_orderkey IN ("+string(list)+")")
	}
	return out, nil
}

// insertStatements renders a source's rows as batched INSERTs.
func insertStatements(t Table, src *Source) ([]string, error) {
	head := "INSERT INTO " + t.String() + " (" + joinColumns(t) + ") VALUES "
	w := &literalWriter{}
	var out []string
	for {
		w.buf = append(w.buf[:0], head...)
		w.rows = 0
		for w.rows < refreshBatch {
			ok, err := src.Next(w)
			if err != nil {
				return nil, err
			}
			if !ok {
				break
			}
		}
		if w.rows > 0 {
			out = append(out, string(w.buf))
		}
		if w.rows < refreshBatch {
			return out, nil
		}
	}
}

// execRefresh runs a refresh function's statements as one transaction and
// returns the rows they affected.
func execRefresh(ctx context.Context, c db.Conn, stmts []string) (int64, error) {
	if err := c.Begin(ctx, false); err != nil {
		return 0, err
	}
	var total int64
	for _, q := range stmts {
		n, err := c.Exec(ctx, q)
		if err != nil {
			_ = c.Rollback(context.WithoutCancel(ctx))
			return total, err
		}
		total += n
	}
	return total, c.Commit(ctx)
}

// literalWriter renders rows as SQL literals: "(1, 'text', 12.34, DATE
// '1995-06-17')". Generated text holds no quotes or backslashes but is
// escaped anyway.
type literalWriter struct {
	buf   []byte
	rows  int
	inRow bool
}

func (w *literalWriter) sep() {
	if !w.inRow {
		if w.rows > 0 {
			w.buf = append(w.buf, ", "...)
		}
		w.buf = append(w.buf, '(')
		w.inRow = true
		return
	}
	w.buf = append(w.buf, ", "...)
}

func (w *literalWriter) Int(v int64) { w.sep(); w.buf = strconv.AppendInt(w.buf, v, 10) }

func (w *literalWriter) Text(b []byte) {
	w.sep()
	w.buf = append(w.buf, '\'')
	for _, ch := range b {
		if ch == '\'' {
			w.buf = append(w.buf, '\'')
		}
		w.buf = append(w.buf, ch)
	}
	w.buf = append(w.buf, '\'')
}

func (w *literalWriter) Decimal(h int64) {
	w.sep()
	if h < 0 {
		w.buf = append(w.buf, '-')
		h = -h
	}
	w.buf = strconv.AppendInt(w.buf, h/100, 10)
	w.buf = append(w.buf, '.', byte('0'+h%100/10), byte('0'+h%10))
}

func (w *literalWriter) Date(days int32) {
	w.sep()
	w.buf = append(w.buf, "DATE '"...)
	w.buf = time.Unix(int64(days)*86400, 0).UTC().AppendFormat(w.buf, "2006-01-02")
	w.buf = append(w.buf, '\'')
}

func (w *literalWriter) EndRow() error {
	w.buf = append(w.buf, ')')
	w.inRow = false
	w.rows++
	return nil
}
