package workload

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/sledge-bench/sledge/internal/db"
	"github.com/sledge-bench/sledge/internal/sqlfile"
)

// RunMaintenance runs the statements of a workload's maintenance file
// (sql/<dialect>/vacuum.sql, checkpoint.sql) on c, in file order, over the
// workload's tables, and says what it did (a Maintainer's answer).
//
// In a statement's SQL, {table} runs it once per table with the table
// named in its place, and {tables} names all of them, comma-separated.
// Comment lines in a statement's body direct how it runs (they are not
// sent to the database):
//
//	-- note: TEXT    added to what the log says (what the step does or not)
//	-- needs: TEXT   the privilege it needs, said when the database refuses it
//	-- rows: status  it returns MariaDB/MySQL's admin status rows (Table, Op,
//	                 Msg_type, Msg_text): a row of Msg_type error fails it
//	-- rows: busy    it returns one row (busy, log, checkpointed), busy not 0
//	                 when it could not finish (SQLite's wal_checkpoint)
func RunMaintenance(ctx context.Context, c db.Conn, stmts []sqlfile.Statement, tables []string) (Maintenance, error) {
	if len(stmts) == 0 {
		return Maintenance{}, fmt.Errorf("no statement to run")
	}
	var did, notes []string
	for _, st := range stmts {
		m := parseMaintenance(st.SQL)
		if m.note != "" {
			notes = append(notes, m.note)
		}
		says := m.says(len(tables))
		runs := []string{m.sql}
		switch {
		case strings.Contains(m.sql, "{table}"):
			runs = runs[:0]
			for _, t := range tables {
				runs = append(runs, strings.ReplaceAll(m.sql, "{table}", t))
			}
		case strings.Contains(m.sql, "{tables}"):
			runs[0] = strings.ReplaceAll(m.sql, "{tables}", strings.Join(tables, ", "))
		}
		for _, q := range runs {
			if err := m.run(ctx, c, q); err != nil {
				if m.needs != "" && refused(err) {
					return Maintenance{}, fmt.Errorf("%s was refused: it needs %s: %w", says, m.needs, err)
				}
				return Maintenance{}, fmt.Errorf("%s: %w", oneLine(q), err)
			}
		}
		did = append(did, says)
	}
	return Maintenance{Did: strings.Join(did, ", then "), Note: strings.Join(notes, "; ")}, nil
}

// maintenanceStatement is a statement of a maintenance file with its
// directives taken out.
type maintenanceStatement struct {
	sql, note, needs, rows string
}

func parseMaintenance(text string) maintenanceStatement {
	var (
		m    maintenanceStatement
		body []string
	)
	for _, line := range strings.Split(text, "\n") {
		t := strings.TrimSpace(line)
		if rest, ok := strings.CutPrefix(t, "--"); ok {
			key, val, _ := strings.Cut(strings.TrimSpace(rest), ":")
			val = strings.TrimSpace(val)
			switch strings.TrimSpace(key) {
			case "note":
				m.note = strings.TrimSpace(m.note + " " + val)
				continue
			case "needs":
				m.needs = strings.TrimSpace(m.needs + " " + val)
				continue
			case "rows":
				m.rows = val
				continue
			}
		}
		body = append(body, line)
	}
	m.sql = strings.TrimSpace(strings.Join(body, "\n"))
	return m
}

// says names the statement in the log: "VACUUM (ANALYZE) of 9 tables",
// "FLUSH TABLES … FOR EXPORT of 9 tables", "CHECKPOINT".
func (m maintenanceStatement) says(tables int) string {
	s := oneLine(m.sql)
	of := fmt.Sprintf(" of %d tables", tables)
	if tables == 1 {
		of = " of 1 table"
	}
	switch {
	case strings.Contains(s, "{table}"):
		s = strings.Join(strings.Fields(strings.ReplaceAll(s, "{table}", "")), " ") + of
	case strings.Contains(s, "{tables}"):
		s = strings.ReplaceAll(s, "{tables}", "…") + of
	}
	return s
}

// oneLine is a statement on one line, without its semicolon and comments.
func oneLine(q string) string {
	var words []string
	for _, line := range strings.Split(q, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "--") {
			continue
		}
		words = append(words, strings.Fields(line)...)
	}
	return strings.TrimSuffix(strings.Join(words, " "), ";")
}

func (m maintenanceStatement) run(ctx context.Context, c db.Conn, q string) error {
	switch m.rows {
	case "":
		_, err := c.Exec(ctx, q)
		return err
	case "status":
		rows, err := c.Query(ctx, q)
		if err != nil {
			return err
		}
		defer rows.Close()
		var failed []string
		for rows.Next() {
			var table, op, typ, text sql.NullString
			if err := rows.Scan(&table, &op, &typ, &text); err != nil {
				return err
			}
			if strings.EqualFold(typ.String, "error") {
				failed = append(failed, table.String+": "+text.String)
			}
		}
		if err := rows.Err(); err != nil {
			return err
		}
		if len(failed) > 0 {
			return fmt.Errorf("%s", strings.Join(failed, "; "))
		}
		return nil
	case "busy":
		var busy, log, done int64
		if err := c.QueryRow(ctx, q).Scan(&busy, &log, &done); err != nil {
			return err
		}
		if busy != 0 {
			return fmt.Errorf("could not finish: another session was using the database (%d of %d WAL frames written back)", done, log)
		}
		return nil
	}
	return fmt.Errorf("unknown rows directive %q", m.rows)
}

// refused reports whether err is the database refusing a statement for
// want of a privilege.
func refused(err error) bool {
	if db.SQLState(err) == "42501" { // insufficient_privilege
		return true
	}
	msg := strings.ToLower(err.Error())
	for _, s := range []string{"denied", "permission", "privilege", "must be superuser"} {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return false
}
