package observe

// The PostgreSQL observer's use of pg_stat_statements: setting it up, and
// merging its time and calls, and its busiest statements, into the sampled
// statements of an interval.

import (
	"cmp"
	"context"
	"errors"
	"slices"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
)

// pgStatements is pg_stat_statements, when used.
type pgStatements struct {
	sql, textSQL string
	texts        map[int64]string // statements' texts, by query id (Cut alone uses these maps)
	own          map[int64]bool   // the observer's own statements
}

type pgStatementStat struct {
	calls int64
	ms    float64
}

func (o *pgObserver) setupStatements(ctx context.Context, schema string) error {
	var n int64
	if err := o.queryRow(ctx, strings.ReplaceAll(pgSQL["statements_probe"], "{{schema}}", schema), nil, &n); err != nil {
		return err
	}
	col := ""
	err := o.query(ctx, strings.ReplaceAll(pgSQL["statements_time_column"], "{{schema}}", schema), nil, func(r pgx.Rows) error {
		var c string
		if err := r.Scan(&c); err != nil {
			return err
		}
		if col == "" || c == "total_exec_time" {
			col = c
		}
		return nil
	})
	if err != nil {
		return err
	}
	if col == "" {
		return errors.New("its view has no total_exec_time column")
	}
	r := strings.NewReplacer("{{schema}}", schema, "{{time}}", col)
	o.pgss = &pgStatements{
		sql: r.Replace(pgSQL["statements"]), textSQL: r.Replace(pgSQL["statement_texts"]),
		texts: map[int64]string{}, own: map[int64]bool{},
	}
	return nil
}

// mergeStatements adds pg_stat_statements' time and calls to the sampled
// statements, and the statements that took the most time in the interval.
func (o *pgObserver) mergeStatements(sampled []Statement, stmts map[int64]pgStatementStat) []Statement {
	if len(stmts) == 0 || o.pgss == nil {
		return sampled
	}
	seen := map[string]int{}
	for i, s := range sampled {
		if s.ID == "" {
			continue
		}
		seen[s.ID] = i
		if id, err := strconv.ParseInt(s.ID, 10, 64); err == nil {
			if d, ok := stmts[id]; ok {
				sampled[i].Seconds, sampled[i].Calls = d.ms/1000, d.calls
			}
		}
	}
	ids := make([]int64, 0, len(stmts))
	for id := range stmts {
		if !o.pgss.own[id] {
			ids = append(ids, id)
		}
	}
	slices.SortFunc(ids, func(x, y int64) int {
		return cmp.Or(cmp.Compare(stmts[y].ms, stmts[x].ms), cmp.Compare(x, y))
	})
	ids = ids[:min(len(ids), 2*pgTopStatements)] // room for the observer's own, found below
	o.statementTexts(ids)
	n := 0
	for _, id := range ids {
		if n == pgTopStatements {
			break
		}
		if o.pgss.own[id] {
			continue
		}
		n++
		key := strconv.FormatInt(id, 10)
		if _, ok := seen[key]; ok {
			continue
		}
		d := stmts[id]
		sampled = append(sampled, Statement{ID: key, Text: o.pgss.texts[id], Seconds: d.ms / 1000, Calls: d.calls})
	}
	return sampled
}

// statementTexts fetches the texts of the statements not known yet, in one
// query, and marks the observer's own.
func (o *pgObserver) statementTexts(ids []int64) {
	var missing []int64
	for _, id := range ids {
		if _, ok := o.pgss.texts[id]; !ok {
			missing = append(missing, id)
		}
	}
	if len(missing) == 0 || !o.acquire(context.Background(), pgConnWait) {
		return
	}
	defer o.release()
	if o.conn == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), pgStatsTimeout)
	defer cancel()
	err := o.query(ctx, o.pgss.textSQL, []any{o.dbname, missing}, func(r pgx.Rows) error {
		var id int64
		var text string
		if err := r.Scan(&id, &text); err != nil {
			return err
		}
		if strings.Contains(text, pgMarker) {
			o.pgss.own[id] = true
		}
		o.pgss.texts[id] = pgShorten(text)
		return nil
	})
	if err != nil && (o.conn.IsClosed() || ctx.Err() != nil) {
		o.lose(pgTimeoutErr(err, ctx, "the statements' texts"))
	}
}
