package observe

// The PostgreSQL observer's cumulative statistics (pg_stat_database,
// pg_stat_bgwriter, pg_stat_checkpointer, pg_stat_wal, pg_stat_io,
// pg_wait_sampling): read at every Cut and reported as their changes since
// the previous read, a reset view left out.

import (
	"context"
	"fmt"
	"slices"

	"github.com/jackc/pgx/v5"
)

// pgStatsQuery is one statistics statement of postgres.sql.
type pgStatsQuery struct {
	source string // the view it reads
	sql    string
	dbArg  bool // takes the database's name
	keyed  bool // rows by key (pg_stat_io, pg_wait_sampling); else one row
}

// pgReading is one view's values at one read.
type pgReading struct {
	cols   []string
	keys   []string             // in the order read
	vals   map[string][]float64 // key → one value per column
	resets map[string]string    // key → stats_reset
}

// pgStatsRead is one read of all the statistics.
type pgStatsRead struct {
	readings map[string]*pgReading
	failed   map[string]error // source → why it could not be read (the connection still works)
	stmts    map[int64]pgStatementStat
	own      [2]int64 // the observer's own statement counts before the read
	lost     error    // the connection failed
}

// cutStats reads the statistics and returns their changes since the
// baseline, which they replace; and the statements' changes.
func (o *pgObserver) cutStats() ([]Counter, map[int64]pgStatementStat, []string) {
	if !o.acquire(context.Background(), pgConnWait) {
		o.baseStale.Store(true)
		return nil, nil, []string{"statistics not read: the observer's connection stayed busy"}
	}
	defer o.release()
	if o.conn == nil { // lost since Cut looked: the reconnection takes a new baseline
		o.mu.Lock()
		why := o.lostWords() + ": " + o.downErr
		o.mu.Unlock()
		return nil, nil, []string{why}
	}
	ctx, cancel := context.WithTimeout(context.Background(), pgStatsTimeout)
	defer cancel()
	cur := o.readStats(ctx)
	if cur.lost != nil {
		o.lose(pgTimeoutErr(cur.lost, ctx, "the statistics"))
		o.mu.Lock()
		why := o.lostWords() + ": " + o.downErr
		o.mu.Unlock()
		return nil, nil, []string{why}
	}
	prev := o.base
	if o.baseStale.Swap(false) {
		prev = nil
	}
	o.base = &cur
	var (
		out []Counter
		why []string
	)
	for source, err := range cur.failed {
		why = append(why, fmt.Sprintf("%s not read: %s", source, pgOneLine(err)))
	}
	slices.Sort(why)
	if prev == nil {
		return nil, nil, append(why, "statistics restart from this interval's end (no earlier read to compare with)")
	}
	for _, q := range o.statsQueries {
		c, p := cur.readings[q.source], prev.readings[q.source]
		if c == nil {
			continue // failed: said above
		}
		if p == nil {
			why = append(why, q.source+" restarts from this interval's end (its previous read failed)")
			continue
		}
		d, ok := pgDeltas(q, p, c)
		if !ok {
			why = append(why, q.source+" was reset in this interval: its changes are left out")
			continue
		}
		out = append(out, d...)
		switch q.source {
		case "pg_stat_database":
			if o.ownDB {
				out = append(out,
					Counter{Source: pgAppName, Name: "xact_commit", Kind: Delta, Value: float64(cur.own[0] - prev.own[0])},
					Counter{Source: pgAppName, Name: "xact_rollback", Kind: Delta, Value: float64(cur.own[1] - prev.own[1])})
			}
		case "pg_wait_sampling":
			out = append(out, Counter{Source: q.source, Name: "profile_period", Kind: Gauge, Unit: "ms", Value: o.waitPeriod})
		}
	}
	var stmts map[int64]pgStatementStat
	if cur.stmts != nil && prev.stmts != nil {
		stmts = map[int64]pgStatementStat{}
		for id, c := range cur.stmts {
			p := prev.stmts[id]
			if c.calls < p.calls || c.ms < p.ms {
				p = pgStatementStat{} // evicted and made again, or reset: counted from zero
			}
			if d := (pgStatementStat{calls: c.calls - p.calls, ms: c.ms - p.ms}); d.calls > 0 || d.ms > 0 {
				stmts[id] = d
			}
		}
	}
	return out, stmts, why
}

// pgUnits are the counters' units, by column.
var pgUnits = map[string]string{
	"blks_read": "blocks", "blks_hit": "blocks",
	"tup_returned": "rows", "tup_fetched": "rows", "tup_inserted": "rows", "tup_updated": "rows", "tup_deleted": "rows",
	"temp_bytes": "bytes", "blk_read_time": "ms", "blk_write_time": "ms",
	"checkpoint_write_time": "ms", "checkpoint_sync_time": "ms",
	"buffers_checkpoint": "blocks", "buffers_clean": "blocks", "buffers_backend": "blocks",
	"write_time": "ms", "sync_time": "ms", "buffers_written": "blocks",
	"wal_bytes": "bytes",
	"reads":     "ops", "writes": "ops", "extends": "ops",
	"samples": "samples",
}

// pgDeltas is the change of a view from p to c; false when the view was
// reset in between (stats_reset changed, a row vanished or a counter went
// backwards). Views of one row report every counter; keyed views only the
// rows and counters that changed.
func pgDeltas(q pgStatsQuery, p, c *pgReading) ([]Counter, bool) {
	for _, k := range p.keys {
		if _, ok := c.vals[k]; !ok || c.resets[k] != p.resets[k] {
			return nil, false
		}
	}
	var out []Counter
	for _, k := range c.keys {
		pv := p.vals[k] // nil: a new row (a wait event first seen), from zero
		if pv == nil && !q.keyed {
			return nil, false
		}
		for i, col := range c.cols {
			var d float64
			if pv != nil {
				d = c.vals[k][i] - pv[i]
			} else {
				d = c.vals[k][i]
			}
			if d < 0 {
				return nil, false
			}
			if q.keyed && d == 0 {
				continue
			}
			name := col
			switch {
			case q.keyed && len(c.cols) == 1:
				name = k
			case q.keyed:
				name = k + "." + col
			}
			out = append(out, Counter{Source: q.source, Name: name, Kind: Delta, Unit: pgUnits[col], Value: d})
		}
	}
	return out, true
}

// readStats reads every statistics view (the caller holds the connection).
func (o *pgObserver) readStats(ctx context.Context) pgStatsRead {
	r := pgStatsRead{readings: map[string]*pgReading{}, failed: map[string]error{}}
	o.mu.Lock()
	r.own = o.own
	o.mu.Unlock()
	fail := func(source string, err error) bool {
		if o.conn.IsClosed() || ctx.Err() != nil {
			r.lost = err
			return true
		}
		r.failed[source] = err
		return false
	}
	for _, q := range o.statsQueries {
		rd, err := o.readView(ctx, q)
		if err != nil {
			if fail(q.source, err) {
				return r
			}
			continue
		}
		r.readings[q.source] = rd
	}
	if o.pgss != nil {
		m := map[int64]pgStatementStat{}
		err := o.query(ctx, o.pgss.sql, []any{o.dbname}, func(rows pgx.Rows) error {
			var id int64
			var s pgStatementStat
			if err := rows.Scan(&id, &s.calls, &s.ms); err != nil {
				return err
			}
			m[id] = s
			return nil
		})
		if err != nil {
			if fail("pg_stat_statements", err) {
				return r
			}
		} else {
			r.stmts = m
		}
	}
	return r
}

func (o *pgObserver) readView(ctx context.Context, q pgStatsQuery) (*pgReading, error) {
	var args []any
	if q.dbArg {
		args = []any{o.dbname}
	}
	rd := &pgReading{vals: map[string][]float64{}, resets: map[string]string{}}
	err := o.query(ctx, q.sql, args, func(r pgx.Rows) error {
		if rd.cols == nil {
			for _, f := range r.FieldDescriptions()[2:] {
				rd.cols = append(rd.cols, f.Name)
			}
		}
		var key, reset string
		vals := make([]float64, len(rd.cols))
		dest := []any{&key, &reset}
		for i := range vals {
			dest = append(dest, &vals[i])
		}
		if err := r.Scan(dest...); err != nil {
			return err
		}
		rd.keys = append(rd.keys, key)
		rd.vals[key], rd.resets[key] = vals, reset
		return nil
	})
	if err != nil {
		return nil, err
	}
	return rd, nil
}
