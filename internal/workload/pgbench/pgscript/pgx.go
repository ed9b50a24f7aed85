package pgscript

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5/pgconn"
)

// PgConn runs queries on a PostgreSQL session as libpq does for pgbench:
// the simple protocol in simple mode, unnamed extended-protocol statements
// in extended mode, and statements prepared once per session in prepared
// mode; all values travel as text. It is a Pipeliner.
type PgConn struct {
	conn     *pgconn.PgConn
	prepared map[string]bool
}

// NewPgConn wraps a pgx low-level connection.
func NewPgConn(c *pgconn.PgConn) *PgConn {
	return &PgConn{conn: c, prepared: map[string]bool{}}
}

// InTransaction reports whether the session is inside a transaction block.
func (c *PgConn) InTransaction() bool {
	s := c.conn.TxStatus()
	return s == 'T' || s == 'E'
}

// Exec runs q.
func (c *PgConn) Exec(ctx context.Context, q *Query) ([]Result, error) {
	switch q.Mode {
	case Simple:
		rs, err := c.conn.Exec(ctx, q.SQL).ReadAll()
		if err != nil {
			return nil, err
		}
		if !q.Rows {
			return nil, nil
		}
		out := make([]Result, len(rs))
		for i, r := range rs {
			out[i] = result(r.FieldDescriptions, r.Rows)
		}
		return out, nil
	case Prepared:
		if err := c.prepare(ctx, q); err != nil {
			return nil, err
		}
		r := c.conn.ExecPrepared(ctx, q.Name, q.Params, nil, nil).Read()
		if r.Err != nil {
			return nil, r.Err
		}
		if !q.Rows {
			return nil, nil
		}
		return []Result{result(r.FieldDescriptions, r.Rows)}, nil
	}
	r := c.conn.ExecParams(ctx, q.SQL, q.Params, nil, nil, nil).Read()
	if r.Err != nil {
		return nil, r.Err
	}
	if !q.Rows {
		return nil, nil
	}
	return []Result{result(r.FieldDescriptions, r.Rows)}, nil
}

func result(fields []pgconn.FieldDescription, rows [][][]byte) Result {
	r := Result{Columns: make([]string, len(fields)), Rows: len(rows)}
	for i, f := range fields {
		r.Columns[i] = f.Name
	}
	if len(rows) > 0 {
		last := rows[len(rows)-1]
		r.Last = make([]string, len(last))
		for i, v := range last {
			r.Last[i] = string(v) // NULL reads as "", as libpq's PQgetvalue
		}
	}
	return r
}

func (c *PgConn) prepare(ctx context.Context, q *Query) error {
	if c.prepared[q.Name] {
		return nil
	}
	if _, err := c.conn.Prepare(ctx, q.Name, q.SQL, nil); err != nil {
		return fmt.Errorf("prepare: %w", err)
	}
	c.prepared[q.Name] = true
	return nil
}

// ExecPipeline sends qs in pipeline mode with one sync at the end and
// returns the first error. As pgbench, it prepares the statements of a
// pipeline before it starts.
func (c *PgConn) ExecPipeline(ctx context.Context, qs []Query) error {
	for i := range qs {
		if qs[i].Mode == Prepared {
			if err := c.prepare(ctx, &qs[i]); err != nil {
				return err
			}
		}
	}
	p := c.conn.StartPipeline(ctx)
	for _, q := range qs {
		if q.Mode == Prepared {
			p.SendQueryPrepared(q.Name, q.Params, nil, nil)
		} else {
			p.SendQueryParams(q.SQL, q.Params, nil, nil, nil)
		}
	}
	var first error
	if err := p.Sync(); err != nil {
		first = err
	}
	for first == nil {
		res, err := p.GetResults()
		if err != nil {
			first = err
			break
		}
		if rr, ok := res.(*pgconn.ResultReader); ok {
			if _, err := rr.Close(); err != nil {
				first = err
			}
			continue
		}
		if _, ok := res.(*pgconn.PipelineSync); ok || res == nil {
			break
		}
	}
	// Close reads what is left up to the sync (the server skips the
	// queries after an error) and leaves pipeline mode.
	if err := p.Close(); err != nil && first == nil {
		first = err
	}
	return first
}
