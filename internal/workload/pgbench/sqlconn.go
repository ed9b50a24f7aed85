package pgbench

import (
	"context"
	"strconv"
	"strings"

	"github.com/sledge-bench/sledge/internal/db"
	"github.com/sledge-bench/sledge/internal/workload/pgbench/pgscript"
)

// sqlConn runs scripts on a session of a database other than PostgreSQL
// (MariaDB/MySQL, SQLite) through Sledge's driver: pgbench's transaction
// control (BEGIN, END, COMMIT, ROLLBACK, ABORT) becomes the driver's own
// Begin, Commit and Rollback (SQLite's BEGIN IMMEDIATE, MariaDB's START
// TRANSACTION: what differs per dialect is there, so the built-in scripts
// run as they are), and the $n parameters of the extended and prepared
// modes become the ? both take.
type sqlConn struct {
	c    db.Conn
	inTx bool
}

var _ pgscript.Conn = (*sqlConn)(nil)

// columner is a driver's rows that name their columns (database/sql's).
type columner interface {
	Columns() ([]string, error)
}

// InTransaction reports whether a BEGIN has not been ended yet.
func (s *sqlConn) InTransaction() bool { return s.inTx }

// Exec runs q: one statement (a simple-mode command holding several is the
// server's to take or refuse).
func (s *sqlConn) Exec(ctx context.Context, q *pgscript.Query) ([]pgscript.Result, error) {
	text := strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(q.SQL), ";"))
	switch strings.ToUpper(strings.Join(strings.Fields(text), " ")) {
	case "BEGIN", "BEGIN TRANSACTION", "BEGIN WORK", "START TRANSACTION":
		if err := s.c.Begin(ctx, false); err != nil {
			return nil, err
		}
		s.inTx = true
		return nil, nil
	case "END", "END TRANSACTION", "COMMIT", "COMMIT WORK", "END WORK":
		s.inTx = false
		return nil, s.c.Commit(ctx)
	case "ROLLBACK", "ABORT", "ROLLBACK WORK":
		s.inTx = false
		return nil, s.c.Rollback(ctx)
	}
	sqlText, args := text, []any(nil)
	if q.Mode != pgscript.Simple {
		sqlText, args = questionMarks(text, q.Params)
	}
	if !q.Rows {
		_, err := s.c.Exec(ctx, sqlText, args...)
		return nil, err
	}
	rows, err := s.c.Query(ctx, sqlText, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var res pgscript.Result
	if c, ok := rows.(columner); ok {
		if res.Columns, err = c.Columns(); err != nil {
			return nil, err
		}
	}
	vals := make([]*string, len(res.Columns))
	dest := make([]any, len(vals))
	for i := range vals {
		dest[i] = &vals[i]
	}
	for rows.Next() {
		if err := rows.Scan(dest...); err != nil {
			return nil, err
		}
		res.Rows++
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if res.Rows > 0 {
		res.Last = make([]string, len(vals))
		for i, v := range vals {
			if v != nil {
				res.Last[i] = *v
			}
		}
	}
	return []pgscript.Result{res}, nil
}

// questionMarks rewrites PostgreSQL's $n parameters as ?, each with its
// value in order (a parameter used twice is passed twice); NULL is nil.
// Quoted text is left alone.
func questionMarks(sql string, params [][]byte) (string, []any) {
	var (
		b     strings.Builder
		args  []any
		quote byte
	)
	for i := 0; i < len(sql); i++ {
		c := sql[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '\'' || c == '"':
			quote = c
		case c == '$' && i+1 < len(sql) && sql[i+1] >= '0' && sql[i+1] <= '9':
			j := i + 1
			for j < len(sql) && sql[j] >= '0' && sql[j] <= '9' {
				j++
			}
			n, err := strconv.Atoi(sql[i+1 : j])
			if err == nil && n >= 1 && n <= len(params) {
				if p := params[n-1]; p != nil {
					args = append(args, string(p))
				} else {
					args = append(args, nil)
				}
				b.WriteByte('?')
				i = j - 1
				continue
			}
		}
		b.WriteByte(c)
	}
	return b.String(), args
}
