package observe

// The PostgreSQL observer's activity samples: pg_stat_activity's active
// sessions, counted by wait event and statement over an interval.

import (
	"cmp"
	"context"
	"slices"
	"strconv"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
)

// pgAgg is an interval's activity samples.
type pgAgg struct {
	samples int
	active  int // session samples
	waits   map[[2]string]int
	stmts   map[string]*pgStmtAgg
	// byApp counts session samples by application_name and wait class.
	byApp kindTally
}

type pgStmtAgg struct {
	id, text string
	n        int
}

func newPgAgg() pgAgg {
	return pgAgg{waits: map[[2]string]int{}, stmts: map[string]*pgStmtAgg{}, byApp: kindTally{}}
}

// pgActive is one active session in a sample.
type pgActive struct {
	class, event string
	queryID      pgtype.Int8
	query        pgtype.Text
	app          string
}

// sample takes one activity sample.
func (o *pgObserver) sample(ctx context.Context) {
	if !o.acquire(ctx, 0) {
		return
	}
	defer o.release()
	if o.conn == nil {
		return // lost by a Cut meanwhile
	}
	qctx, cancel := context.WithTimeout(ctx, pgSampleTimeout)
	defer cancel()
	var batch []pgActive
	err := o.query(qctx, o.activitySQL, []any{o.dbname}, func(r pgx.Rows) error {
		var a pgActive
		if err := r.Scan(&a.class, &a.event, &a.queryID, &a.query, &a.app); err != nil {
			return err
		}
		batch = append(batch, a)
		return nil
	})
	if err != nil {
		if ctx.Err() != nil {
			return // stopping
		}
		if o.conn.IsClosed() || qctx.Err() != nil {
			o.lose(pgTimeoutErr(err, qctx, "an activity sample"))
			return
		}
		o.gap("an activity sample failed: " + pgOneLine(err))
		return
	}
	o.mu.Lock()
	o.agg.add(batch)
	o.cost.Samples++
	o.mu.Unlock()
}

// add counts one sample.
func (a *pgAgg) add(batch []pgActive) {
	a.samples++
	a.active += len(batch)
	for _, s := range batch {
		a.waits[[2]string{s.class, s.event}]++
		a.byApp.add(s.app, s.class)
		var id, key string
		text := pgShorten(s.query.String)
		if s.queryID.Valid && s.queryID.Int64 != 0 {
			id = strconv.FormatInt(s.queryID.Int64, 10)
			key = "id:" + id
		} else {
			key = "text:" + text
		}
		st, ok := a.stmts[key]
		if !ok {
			if len(a.stmts) >= pgMaxStatementKeys {
				key, id, text = "other", "", "(other statements)"
				st = a.stmts[key]
			}
			if st == nil {
				st = &pgStmtAgg{id: id, text: text}
				a.stmts[key] = st
			}
		}
		st.n++
	}
}

// appCounters are the interval's active sessions by application_name and
// wait class, as gauges in average active sessions: counter "aas CLASS" of
// source "pg_stat_activity application NAME" ("(unnamed)" when a session
// gives none), so that the kinds of session a run has (a mixed run's
// analytic streams and its virtual users) have their waits apart.
func (a *pgAgg) appCounters() []Counter {
	return a.byApp.counters(pgKindSource, a.samples)
}

// waitList is the interval's waits, highest first.
func (a *pgAgg) waitList() []Wait {
	if a.samples == 0 {
		return nil
	}
	out := make([]Wait, 0, len(a.waits))
	for k, n := range a.waits {
		out = append(out, Wait{Class: k[0], Event: k[1], AAS: float64(n) / float64(a.samples)})
	}
	slices.SortFunc(out, func(x, y Wait) int {
		return cmp.Or(cmp.Compare(y.AAS, x.AAS), cmp.Compare(x.Class, y.Class), cmp.Compare(x.Event, y.Event))
	})
	return out
}

// statementList is the interval's sampled statements, most seen first.
func (a *pgAgg) statementList() []Statement {
	if a.samples == 0 {
		return nil
	}
	out := make([]Statement, 0, len(a.stmts))
	for _, s := range a.stmts {
		out = append(out, Statement{ID: s.id, Text: s.text, AAS: float64(s.n) / float64(a.samples)})
	}
	slices.SortFunc(out, func(x, y Statement) int {
		return cmp.Or(cmp.Compare(y.AAS, x.AAS), cmp.Compare(x.Text, y.Text))
	})
	return out[:min(len(out), pgTopStatements)]
}
