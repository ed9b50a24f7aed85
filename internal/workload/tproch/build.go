package tproch

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/sledge-bench/sledge/internal/db"
	"github.com/sledge-bench/sledge/internal/sqlfile"
	"github.com/sledge-bench/sledge/internal/workload"
)

// BuildOptions configure a TPROC-H build.
type BuildOptions struct {
	SF      float64
	Workers int
	// Force drops an existing TPROC-H schema first.
	Force bool
	// Progress, if set, is called with the build's progress about every
	// 250 ms and at every phase change, never concurrently.
	Progress func(Progress)
}

// Progress is a snapshot of a build.
type Progress struct {
	// Phase is "drop", "schema", "prepare" (the generator's text pool and
	// the exact row count, when not made yet), "load", "index" or "analyze".
	Phase               string
	RowsDone, RowsTotal int64
	Table               string
}

// BuildReport describes a finished build.
type BuildReport struct {
	SF       float64
	Workers  int
	Rows     int64
	Tables   map[string]int64
	Duration time.Duration // the whole database load test: schema, load, keys, statistics
	Version  string        // the database's product and version
	// LoadRetries counts table parts loaded again after a transient
	// conflict between the parallel loaders (deadlock, lock wait timeout).
	LoadRetries int64
	// FinishedAt is the end of the load, which seeds the queries' parameters
	// by default (spec 2.1.3.3).
	FinishedAt time.Time
}

// ErrSchemaExists is wrapped by Build's error (a workload.SchemaError) when
// the database already holds a TPROC-H schema and Force is not set.
var ErrSchemaExists = workload.ErrSchemaExists

// metaTable records the build: scale factor, state and how many refresh
// pairs have run (the database evolves: every run uses new refresh sets).
const metaTable = "sledge_tproch_meta"

// dialect names the SQL folder of a database kind.
func dialect(k db.Kind) (string, error) {
	if slices.Contains(Dialects(), string(k)) {
		return string(k), nil // the folder is the kind's name; mysql is MariaDB's too
	}
	return "", fmt.Errorf("TPROC-H does not run on %s (it runs on DuckDB, PostgreSQL and MariaDB/MySQL)", k)
}

// Build creates the TPROC-H schema in t and loads it: tables, data in
// parallel (DuckDB appender, PostgreSQL COPY, MariaDB LOAD DATA), keys and
// indexes, statistics.
func Build(ctx context.Context, drv db.Driver, t db.Target, o BuildOptions) (BuildReport, error) {
	start := time.Now()
	rep := BuildReport{SF: o.SF, Workers: o.Workers, Tables: map[string]int64{}}
	if o.Workers < 1 {
		return rep, fmt.Errorf("workers must be at least 1, not %d", o.Workers)
	}
	dl, err := dialect(drv.Kind())
	if err != nil {
		return rep, err
	}
	g, err := NewGenerator(o.SF)
	if err != nil {
		return rep, err
	}
	// Before the first row can load, the text pool (about a second of one
	// core) must be built and, for the progress total, LINEITEM's exact row
	// count known (a pass over its line-count stream, ≈10 ms per SF): both
	// are made while the sessions connect and the schema is created, and the
	// load phase starts when they are ready, so that it reports rows that
	// exist of the total that will exist (not 0 rows for seconds, nor an
	// estimate that the end contradicts).
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	ready := make(chan int64, 1)
	go func() {
		total := make(chan int64, 1)
		if o.Progress != nil {
			go func() { total <- loadTotal(ctx, g) }()
		} else {
			total <- 0 // nobody to show it to
		}
		textPool()
		ready <- <-total
	}()
	b := &builder{drv: drv, target: t, dialect: dl, kind: drv.Kind(), opts: o, g: g, loadReady: ready}
	b.prog = newProgress(o.Progress)
	defer b.prog.stop()
	defer b.closeConns()
	err = b.run(ctx, &rep)
	rep.LoadRetries = b.retries.Load()
	if err != nil && ctx.Err() != nil && !errors.Is(err, ctx.Err()) {
		err = fmt.Errorf("%w (%v)", ctx.Err(), err)
	}
	rep.Duration = time.Since(start)
	rep.FinishedAt = time.Now()
	return rep, err
}

type builder struct {
	drv     db.Driver
	target  db.Target
	dialect string
	kind    db.Kind
	opts    BuildOptions
	g       *Generator
	prog    *progress
	conns   []db.Conn
	retries atomic.Int64 // table parts loaded again (db.RetryLoad)
	// loadReady gives the load's exact row total once the text pool is
	// built too.
	loadReady <-chan int64
}

func (b *builder) closeConns() {
	for _, c := range b.conns {
		_ = c.Close(context.Background())
	}
}

func (b *builder) connect(ctx context.Context) (db.Conn, error) {
	c, err := b.drv.Connect(ctx, b.target, db.Options{Bulk: true, AppName: "sledge build"})
	if err != nil {
		return nil, err
	}
	b.conns = append(b.conns, c)
	return c, nil
}

func (b *builder) run(ctx context.Context, rep *BuildReport) error {
	main, err := b.connect(ctx)
	if err != nil {
		return err
	}
	if v, err := b.drv.Version(ctx, main); err == nil {
		rep.Version = v
	}
	exists, err := SchemaExists(ctx, main, b.kind)
	if err != nil {
		return err
	}
	if exists {
		if !b.opts.Force {
			return &workload.SchemaError{Err: ErrSchemaExists, Workload: Name, Msg: "database already holds a TPROC-H schema"}
		}
		b.prog.phase("drop", 0, 0)
		if err := Drop(ctx, main, b.kind); err != nil {
			return err
		}
	}
	b.prog.phase("schema", 0, 0)
	if err := execFile(ctx, main, b.dialect, "schema.sql", "create table"); err != nil {
		return err
	}
	if _, err := main.Exec(ctx, `CREATE TABLE `+metaTable+` ("key" VARCHAR(64) PRIMARY KEY, value VARCHAR(255) NOT NULL)`); err != nil {
		return fmt.Errorf("create %s: %w", metaTable, err)
	}
	if err := writeMeta(ctx, main, map[string]string{
		"workload": "tproch", "scale_factor": strconv.FormatFloat(b.opts.SF, 'g', -1, 64),
		"refresh_pairs": "0", "state": "loading", "built_at": time.Now().UTC().Format(time.RFC3339),
	}); err != nil {
		return err
	}

	conns := []db.Conn{main}
	for len(conns) < b.opts.Workers {
		c, err := b.connect(ctx)
		if err != nil {
			return fmt.Errorf("open loading session: %w", err)
		}
		conns = append(conns, c)
	}
	if err := b.load(ctx, conns, rep); err != nil {
		return err
	}
	if err := b.indexes(ctx, conns, rep.Tables); err != nil {
		return err
	}
	if err := b.analyze(ctx, conns, rep.Tables); err != nil {
		return err
	}
	_, err = main.Exec(ctx, `UPDATE `+metaTable+` SET value = 'ready' WHERE "key" = 'state'`)
	if err != nil {
		return fmt.Errorf("mark the build finished: %w", err)
	}
	return nil
}

// unit is one slice of one table for one loading session.
type unit struct {
	t           Table
	part, parts int
}

// loadUnits splits the big tables into one part per worker, biggest first,
// so the sessions stay busy to the end; the small ones go whole.
func loadUnits(workers int) []unit {
	var us []unit
	for _, t := range []Table{TableLineitem, TableOrders, TablePartSupp, TablePart, TableCustomer} {
		for p := 0; p < workers; p++ {
			us = append(us, unit{t, p, workers})
		}
	}
	for _, t := range []Table{TableSupplier, TableNation, TableRegion} {
		us = append(us, unit{t, 0, 1})
	}
	return us
}

func (b *builder) load(ctx context.Context, conns []db.Conn, rep *BuildReport) error {
	var counts [numTables]atomic.Int64
	var total int64
	select {
	case total = <-b.loadReady:
	default:
		// Still making the text pool or the count: a phase of its own, so
		// that neither the schema nor the load seems to hang.
		b.prog.phase("prepare", 0, 0)
		select {
		case total = <-b.loadReady:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	b.prog.phase("load", 0, total)
	b.prog.setWatch(func() (int64, string) {
		var n int64
		for i := range counts {
			n += counts[i].Load()
		}
		return n, ""
	})
	units := loadUnits(len(conns))
	queue := make(chan unit, len(units))
	for _, u := range units {
		queue <- u
	}
	close(queue)
	g, ctx := errgroup.WithContext(ctx)
	for i := range conns {
		g.Go(func() error {
			for u := range queue {
				n, err := b.loadUnit(ctx, conns[i], u, &counts[u.t])
				if err != nil {
					return fmt.Errorf("load %s part %d/%d: %w", u.t, u.part+1, u.parts, err)
				}
				_ = n
			}
			return nil
		})
	}
	err := g.Wait()
	if err != nil {
		b.prog.setWatch(nil)
		return err
	}
	for _, t := range Tables() {
		n := counts[t].Load()
		rep.Tables[t.String()] = n
		rep.Rows += n
	}
	// The last report: every row loaded, whatever the last tick showed.
	b.prog.end(rep.Rows)
	return nil
}

// loadTotal is the exact number of rows a build loads, 0 if ctx ended
// first.
func loadTotal(ctx context.Context, g *Generator) int64 {
	total, err := g.countLineitemRows(ctx)
	if err != nil {
		return 0
	}
	for _, t := range Tables() {
		if t != TableLineitem {
			total += g.Rows(t)
		}
	}
	return total
}

// loadUnit streams one unit through the session's fastest path.
func (b *builder) loadUnit(ctx context.Context, c db.Conn, u unit, count *atomic.Int64) (int64, error) {
	switch c := c.(type) {
	case db.BulkAppender:
		src, err := b.g.Source(u.t, u.part, u.parts)
		if err != nil {
			return 0, err
		}
		app, err := c.Appender(ctx, u.t.String())
		if err != nil {
			return 0, err
		}
		w := &appendWriter{app: app, vals: make([]driver.Value, 0, len(u.t.Columns())), count: count}
		for {
			if err := ctx.Err(); err != nil {
				_ = app.Close()
				return w.rows, err
			}
			ok, err := src.Next(w)
			if err != nil {
				_ = app.Close()
				return w.rows, err
			}
			if !ok {
				break
			}
		}
		count.Add(w.rows % 1024)
		return w.rows, app.Close()
	case db.TextCopier:
		copySQL := "COPY " + u.t.String() + " (" + joinColumns(u.t) + ") FROM STDIN"
		if b.kind == db.Postgres {
			// Binary: the server stores the values as they come instead of
			// parsing every number and date (see encode_binary.go).
			copySQL += " (FORMAT binary)"
		}
		var (
			n int64
			r *rowReader
		)
		err := db.RetryLoad(ctx, b.drv, func() error {
			// Every attempt from the part's first row: a failed statement
			// (a COPY, or a LOAD DATA in its own transaction) was rolled
			// back whole.
			src, err := b.g.Source(u.t, u.part, u.parts)
			if err != nil {
				return err
			}
			if b.kind == db.Postgres {
				r = newBinaryReader(ctx, src, count)
			} else {
				r = newCountingReader(ctx, src, FormatCopy, count)
			}
			n, err = c.CopyText(ctx, copySQL, r)
			if err == nil && n != r.rows {
				// MariaDB's LOAD DATA LOCAL skips a row whose key repeats
				// with a warning only: a build must not end with fewer
				// rows than it reports.
				err = fmt.Errorf("the server stored %d of the %d rows sent (a row whose key repeats is skipped)", n, r.rows)
			}
			return err
		}, func() {
			count.Add(-r.rows)
			b.retries.Add(1)
		})
		return n, err
	}
	return 0, fmt.Errorf("the %s driver has no bulk load path", b.kind)
}

func joinColumns(t Table) string { return strings.Join(t.Columns(), ", ") }

// appendWriter feeds generated rows to DuckDB's appender: decimals as their
// unscaled integer (DECIMAL(15,2) is stored as hundredths), dates as time
// values, text as bytes. The generator's text is only valid during the Text
// call, so each row's text is copied into an arena (reused from row to row;
// the appender copies it in AppendRow) and the slices are cut at EndRow,
// when the arena no longer moves.
type appendWriter struct {
	app   db.RowAppender
	vals  []driver.Value
	arena []byte
	texts []textRef
	rows  int64
	count *atomic.Int64
}

type textRef struct{ val, start, end int }

func (w *appendWriter) Int(v int64) { w.vals = append(w.vals, v) }
func (w *appendWriter) Text(b []byte) {
	start := len(w.arena)
	w.arena = append(w.arena, b...)
	w.texts = append(w.texts, textRef{len(w.vals), start, len(w.arena)})
	w.vals = append(w.vals, nil)
}
func (w *appendWriter) Decimal(hundredths int64) { w.vals = append(w.vals, hundredths) }
func (w *appendWriter) Date(days int32) {
	w.vals = append(w.vals, time.Unix(int64(days)*86400, 0).UTC())
}
func (w *appendWriter) EndRow() error {
	for _, t := range w.texts {
		w.vals[t.val] = w.arena[t.start:t.end:t.end]
	}
	err := w.app.AppendRow(w.vals...)
	w.vals, w.arena, w.texts = w.vals[:0], w.arena[:0], w.texts[:0]
	if err != nil {
		return err
	}
	w.rows++
	if w.rows%1024 == 0 {
		w.count.Add(1024)
	}
	return nil
}

// indexes runs indexes.sql: tables in parallel, the statements of one table
// in file order (a second ALTER TABLE on a table would only wait).
func (b *builder) indexes(ctx context.Context, conns []db.Conn, rows map[string]int64) error {
	stmts, err := SchemaStatements(b.dialect, "indexes.sql")
	if err != nil {
		return err
	}
	byTable := map[string][]string{}
	var order []string
	var total int64
	for _, s := range stmts {
		tb := sqlfile.Table(s.SQL)
		if _, seen := byTable[tb]; !seen {
			order = append(order, tb)
			total += rows[tb]
		}
		byTable[tb] = append(byTable[tb], s.SQL)
	}
	sort.SliceStable(order, func(i, j int) bool { return rows[order[i]] > rows[order[j]] })
	b.prog.phase("index", 0, total)
	queue := make(chan string, len(order))
	for _, tb := range order {
		queue <- tb
	}
	close(queue)
	g, ctx := errgroup.WithContext(ctx)
	for i := range conns {
		g.Go(func() error {
			for tb := range queue {
				for _, q := range byTable[tb] {
					if _, err := conns[i].Exec(ctx, q); err != nil {
						return fmt.Errorf("index on %s: %w", tb, err)
					}
				}
				b.prog.advance(rows[tb], tb)
			}
			return nil
		})
	}
	return g.Wait()
}

// analyze gathers optimizer statistics per table.
func (b *builder) analyze(ctx context.Context, conns []db.Conn, rows map[string]int64) error {
	var total int64
	for _, n := range rows {
		total += n
	}
	b.prog.phase("analyze", 0, total)
	if b.kind == db.DuckDB {
		// One statement for the whole database; then write the load out of
		// the WAL so the first query does not pay for the checkpoint.
		for _, q := range []string{"ANALYZE", "CHECKPOINT"} {
			if _, err := conns[0].Exec(ctx, q); err != nil {
				return fmt.Errorf("%s: %w", q, err)
			}
		}
		b.prog.advance(total, "")
		return nil
	}
	stmt := "VACUUM (FREEZE, ANALYZE) "
	if b.kind == db.MySQL {
		stmt = "ANALYZE TABLE "
	}
	queue := make(chan Table, numTables)
	for _, t := range Tables() {
		queue <- t
	}
	close(queue)
	g, ctx := errgroup.WithContext(ctx)
	for i := range conns {
		g.Go(func() error {
			for t := range queue {
				if _, err := conns[i].Exec(ctx, stmt+t.String()); err != nil {
					return fmt.Errorf("analyze %s: %w", t, err)
				}
				b.prog.advance(rows[t.String()], t.String())
			}
			return nil
		})
	}
	return g.Wait()
}

// execFile runs every statement of a dialect file in order.
func execFile(ctx context.Context, c db.Conn, dialect, file, what string) error {
	stmts, err := SchemaStatements(dialect, file)
	if err != nil {
		return err
	}
	for _, s := range stmts {
		if _, err := c.Exec(ctx, s.SQL); err != nil {
			return fmt.Errorf("%s %s: %w", what, s.Name, err)
		}
	}
	return nil
}

// Drop removes the TPROC-H tables and the build record.
func Drop(ctx context.Context, c db.Conn, k db.Kind) error {
	dl, err := dialect(k)
	if err != nil {
		return err
	}
	if err := execFile(ctx, c, dl, "drop.sql", "drop"); err != nil {
		return err
	}
	if _, err := c.Exec(ctx, "DROP TABLE IF EXISTS "+metaTable); err != nil {
		return fmt.Errorf("drop %s: %w", metaTable, err)
	}
	return nil
}

// SchemaExists reports whether any TPROC-H table or the build record exists.
func SchemaExists(ctx context.Context, c db.Conn, k db.Kind) (bool, error) {
	names := []string{metaTable}
	for _, t := range Tables() {
		names = append(names, t.String())
	}
	return anyTable(ctx, c, k, names)
}

// BuildRecorded reports whether the build record (sledge_tproch_meta)
// exists.
func BuildRecorded(ctx context.Context, c db.Conn, k db.Kind) (bool, error) {
	return anyTable(ctx, c, k, []string{metaTable})
}

// anyTable reports whether any of the tables named (fixed identifiers, no
// user input) exists in the session's schema.
func anyTable(ctx context.Context, c db.Conn, k db.Kind, tables []string) (bool, error) {
	names := "'" + strings.Join(tables, "', '") + "'"
	q := "SELECT count(*) FROM information_schema.tables WHERE table_schema = current_schema() AND table_name IN (" + names + ")"
	if k == db.MySQL {
		q = "SELECT count(*) FROM information_schema.tables WHERE table_schema = DATABASE() AND table_name IN (" + names + ")"
	}
	var n int
	if err := c.QueryRow(ctx, q).Scan(&n); err != nil {
		return false, fmt.Errorf("look for TPROC-H tables: %w", err)
	}
	return n > 0, nil
}

func writeMeta(ctx context.Context, c db.Conn, kv map[string]string) error {
	keys := make([]string, 0, len(kv))
	for k := range kv {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		// Fixed keys and values Sledge produces: no quoting issues.
		if _, err := c.Exec(ctx, `INSERT INTO `+metaTable+` ("key", value) VALUES ('`+k+`', '`+kv[k]+`')`); err != nil {
			return fmt.Errorf("write %s %s: %w", metaTable, k, err)
		}
	}
	return nil
}

// Meta is what a build recorded.
type Meta struct {
	SF           float64
	RefreshPairs int // refresh pairs run so far: the next run uses set RefreshPairs+1
	Ready        bool
}

// ErrNoSchema is wrapped by ReadMeta's error (a workload.SchemaError) when
// there is no TPROC-H build.
var ErrNoSchema = workload.ErrNoSchema

// ReadMeta reads the build record.
func ReadMeta(ctx context.Context, c db.Conn, k db.Kind) (Meta, error) {
	var m Meta
	exists, err := SchemaExists(ctx, c, k)
	if err != nil {
		return m, err
	}
	if !exists {
		return m, &workload.SchemaError{Err: ErrNoSchema, Workload: Name, Msg: "no TPROC-H schema here"}
	}
	rows, err := c.Query(ctx, `SELECT "key", value FROM `+metaTable)
	if err != nil {
		return m, fmt.Errorf("read %s: %w", metaTable, err)
	}
	defer rows.Close()
	kv := map[string]string{}
	for rows.Next() {
		var k, v string
		if err := rows.Scan(&k, &v); err != nil {
			return m, err
		}
		kv[k] = v
	}
	if err := rows.Err(); err != nil {
		return m, err
	}
	if m.SF, err = strconv.ParseFloat(kv["scale_factor"], 64); err != nil {
		return m, fmt.Errorf("%s: scale_factor %q: %w", metaTable, kv["scale_factor"], err)
	}
	m.RefreshPairs, _ = strconv.Atoi(kv["refresh_pairs"])
	m.Ready = kv["state"] == "ready"
	if !m.Ready {
		return m, &workload.SchemaError{Err: workload.ErrSchemaUnusable, Workload: Name, Msg: "the TPROC-H build did not finish"}
	}
	return m, nil
}
