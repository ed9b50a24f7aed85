package tprocc

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/sledge-bench/sledge/internal/config"
	"github.com/sledge-bench/sledge/internal/db"
	"github.com/sledge-bench/sledge/internal/report"
	"github.com/sledge-bench/sledge/internal/sqlfile"
	"github.com/sledge-bench/sledge/internal/workload"
)

// maxWarehouses bounds --warehouses: W_ID and the key widths are sized for it,
// and 100,000 warehouses (≈ 8 TB) is beyond any database Sledge will build.
const maxWarehouses = 100000

// BuildOptions configure a build.
type BuildOptions struct {
	Warehouses int
	// Workers is the number of parallel loading sessions; more than
	// Warehouses is clamped. SQLite has one writer: there the workers
	// generate in parallel and one session writes.
	Workers int
	// Seed selects the data: the same seed and warehouses give the same rows.
	Seed uint64
	// Force drops an existing TPROC-C schema first.
	Force bool
	// Engine is the MariaDB/MySQL storage engine of the tables (default
	// InnoDB); other databases have none to choose.
	Engine string
	// Loader chooses how rows travel: LoaderAuto (streams where the database
	// takes them, else INSERTs), LoaderStream or LoaderInsert.
	Loader string
	// Progress, if set, is called with the build's progress at most about
	// every 250 ms and at every phase change, never concurrently.
	Progress func(Progress)
	// Now is the load's timestamp (O_ENTRY_D, OL_DELIVERY_D, H_DATE,
	// C_SINCE) as "YYYY-MM-DD HH:MM:SS"; empty: the database's clock at the
	// start of the load. A fixed one makes the rows of two builds equal to
	// the second, so that queries over them (CH-benCHmark's answers) can be
	// compared across databases and days.
	Now string

	// Part runs one part of a build shared by several processes: PartWhole
	// (the default) runs all of it. The parts, in order: PartSchema once,
	// PartLoad by every process for its own warehouses (LoadFirst,
	// LoadCount: BuildPartsFor), PartFinish once when every load is done.
	// Warehouses and Seed are the whole build's in every part.
	Part string
	// LoadFirst and LoadCount are PartLoad's warehouses: LoadFirst ..
	// LoadFirst+LoadCount−1 (1-based). The load that starts at warehouse 1
	// (with at least one warehouse) loads ITEM too, which is global.
	LoadFirst, LoadCount int
}

// Parts of a build (BuildOptions.Part).
const (
	// PartWhole is the whole build.
	PartWhole = ""
	// PartSchema drops an existing schema (with Force) and creates the
	// tables and sledge_meta, marked as loading.
	PartSchema = "schema"
	// PartLoad loads a range of warehouses (and ITEM with warehouse 1) into
	// the tables PartSchema created.
	PartLoad = "load"
	// PartFinish is everything after the load: keys and indexes,
	// statistics, the routines, and sledge_meta marked ready.
	PartFinish = "finish"
)

// BuildPartsFor is the warehouses that the process with segment seg loads
// in a build of warehouses shared by several processes (PartLoad): first
// (1-based) and count, its share of the warehouses (config.Segment.Share).
// The segments of the processes partition the warehouses; a share may be
// empty (count 0) when there are more processes than warehouses.
func BuildPartsFor(seg config.Segment, warehouses int) (loadFirst, loadCount int) {
	first, count := seg.Share(warehouses)
	return first + 1, count
}

// Progress is a snapshot of a build.
type Progress struct {
	// Phase is one of "drop", "schema", "load", "index", "analyze".
	Phase string
	// RowsDone of RowsTotal: rows loaded in the load phase; in the index and
	// analyze phases, rows of the tables already indexed or analysed.
	RowsDone, RowsTotal int64
	// Table is the table most recently worked on.
	Table string
}

// BuildReport describes a finished build.
type BuildReport struct {
	Warehouses int
	Workers    int
	Rows       int64
	Tables     map[string]int64
	Duration   time.Duration
	CLoad      int
	Seed       uint64
	// Version is the server's product and version ("MariaDB 10.11.19"),
	// when it could be read.
	Version string
	// LoadRetries is the number of units (a table for one warehouse, or
	// ITEM) loaded again after a deadlock or lock wait timeout between the
	// loaders.
	LoadRetries int64
}

// Loaders.
const (
	LoaderAuto   = ""
	LoaderStream = "stream" // PostgreSQL COPY, MariaDB/MySQL LOAD DATA LOCAL INFILE
	LoaderInsert = "insert" // batched multi-row INSERTs from one writer
)

// ErrSchemaExists is wrapped by Build's error (a workload.SchemaError) when
// the database already holds a TPROC-C schema and Force is not set.
var ErrSchemaExists = workload.ErrSchemaExists

func (o *BuildOptions) validate() error {
	if o.Warehouses < 1 || o.Warehouses > maxWarehouses {
		return fmt.Errorf("warehouses must be between 1 and %d, not %d", maxWarehouses, o.Warehouses)
	}
	if o.Workers < 1 {
		return fmt.Errorf("workers must be at least 1, not %d", o.Workers)
	}
	switch o.Loader {
	case LoaderAuto, LoaderStream, LoaderInsert:
	default:
		return fmt.Errorf("unknown loader %q (want stream or insert)", o.Loader)
	}
	for _, r := range o.Engine {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return fmt.Errorf("storage engine %q is not a plain name (e.g. InnoDB, MyRocks, Aria)", o.Engine)
		}
	}
	if o.Now != "" {
		if _, err := time.Parse(time.DateTime, o.Now); err != nil {
			return fmt.Errorf("the load's timestamp %q is not YYYY-MM-DD HH:MM:SS", o.Now)
		}
	}
	switch o.Part {
	case PartWhole, PartSchema, PartFinish:
	case PartLoad:
		if o.LoadFirst < 1 || o.LoadCount < 0 || o.LoadFirst+o.LoadCount-1 > o.Warehouses {
			return fmt.Errorf("the warehouses to load, %d..%d, are not within 1..%d", o.LoadFirst, o.LoadFirst+o.LoadCount-1, o.Warehouses)
		}
	default:
		return fmt.Errorf("unknown build part %q (want schema, load or finish)", o.Part)
	}
	// A warehouse is the unit of parallel work (plus ITEM, which is small).
	o.Workers = min(o.Workers, o.Warehouses)
	if o.Part == PartLoad {
		o.Workers = max(1, min(o.Workers, o.LoadCount))
	}
	return nil
}

// loadRange is the warehouses the build loads (first .. last, 1-based) and
// whether it loads ITEM.
func (o *BuildOptions) loadRange() (first, last int, item bool) {
	if o.Part == PartLoad {
		return o.LoadFirst, o.LoadFirst + o.LoadCount - 1, o.LoadFirst == 1 && o.LoadCount > 0
	}
	return 1, o.Warehouses, true
}

// Build creates the TPROC-C schema in t and loads it: drop (with Force),
// tables, sledge_meta, ITEM and the warehouses split over Workers sessions,
// keys and indexes, statistics. On error or cancellation the partial schema
// stays behind, marked unfinished in sledge_meta; `sledge build --force` or
// `sledge drop` removes it. With a Part it runs that part only.
func Build(ctx context.Context, drv db.Driver, t db.Target, o BuildOptions) (BuildReport, error) {
	start := time.Now()
	if err := o.validate(); err != nil {
		return BuildReport{}, err
	}
	kind := drv.Kind()
	if _, err := dialectDir(kind); err != nil {
		return BuildReport{}, err
	}
	g := NewGenerator(o.Seed, CLoadFor(o.Seed))
	rep := BuildReport{Warehouses: o.Warehouses, Workers: o.Workers, Seed: o.Seed, CLoad: g.CLoad(),
		Tables: map[string]int64{}}
	b := &builder{drv: drv, target: t, kind: kind, opts: o, g: g, prog: newProgressReporter(o.Progress)}
	defer b.prog.stop()
	defer b.closeConns()
	err := b.run(ctx, &rep)
	if err != nil && ctx.Err() != nil && !errors.Is(err, ctx.Err()) {
		// The cancellation surfaced as some driver error; say what happened.
		err = fmt.Errorf("%w (%v)", ctx.Err(), err)
	}
	rep.Duration = time.Since(start)
	return rep, err
}

// builder holds one build's state.
type builder struct {
	drv    db.Driver
	target db.Target
	kind   db.Kind
	opts   BuildOptions
	g      *Generator
	prog   *progressReporter
	conns  []db.Conn // conns[0] is the main session
}

func (b *builder) closeConns() {
	for _, c := range b.conns {
		if c != nil {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			_ = c.Close(ctx)
			cancel()
		}
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
	part := b.opts.Part
	if part == PartWhole || part == PartSchema {
		if err := b.schema(ctx, main); err != nil {
			return err
		}
	} else if err := b.checkLoading(ctx, main); err != nil {
		return err
	}
	switch part {
	case PartSchema:
		return nil
	case PartWhole, PartLoad:
		if err := b.load(ctx, main, rep); err != nil {
			return err
		}
		if part == PartLoad {
			return nil
		}
	}
	rows := rep.Tables
	if part == PartFinish {
		// Loaded by other processes: the rows the generator makes, to weigh
		// the progress of the index builds and order them.
		rows = b.expectedRows()
		if b.kind != db.SQLite {
			if _, err := b.workerConns(ctx); err != nil {
				return err
			}
		}
	}
	if err := b.indexes(ctx, rows); err != nil {
		return err
	}
	if err := b.analyze(ctx, rows); err != nil {
		return err
	}
	// The routines of --mode procs (where the dialect has them); a run would
	// install them too, but a built database should be ready for any mode.
	if err := InstallProcs(ctx, main, b.kind); err != nil {
		return err
	}
	return markReady(ctx, main)
}

// schema drops an existing schema (with Force) and creates the tables and
// sledge_meta, marked as loading.
func (b *builder) schema(ctx context.Context, main db.Conn) error {
	exists, err := SchemaExists(ctx, main, b.kind)
	if err != nil {
		return err
	}
	if exists {
		if !b.opts.Force {
			what := "an unfinished build"
			if m, err := ReadMeta(ctx, main); err == nil {
				what = report.Plural(m.Warehouses, "warehouse")
			}
			return &workload.SchemaError{Err: ErrSchemaExists, Workload: Name,
				Msg: fmt.Sprintf("database already holds a TPROC-C schema (%s)", what)}
		}
		b.prog.phase("drop", 0, 0)
		if err := Drop(ctx, main, b.kind); err != nil {
			return err
		}
	}

	b.prog.phase("schema", 0, 0)
	if b.kind == db.MySQL {
		engine := cmp.Or(b.opts.Engine, "InnoDB")
		if _, err := main.Exec(ctx, "SET SESSION default_storage_engine = "+engine); err != nil {
			return fmt.Errorf("storage engine %s: %w", engine, err)
		}
	} else if b.opts.Engine != "" {
		return fmt.Errorf("a storage engine applies to MariaDB and MySQL only, not %s", b.kind)
	}
	if err := execFile(ctx, main, b.kind, "schema.sql", "create table"); err != nil {
		return err
	}
	meta := Meta{Warehouses: b.opts.Warehouses, Seed: b.opts.Seed, CLoad: b.g.CLoad(),
		BuiltAt: time.Now(), Format: buildFormat}
	return writeMeta(ctx, main, b.kind, meta)
}

// load loads ITEM and the warehouses of the build (or of its load part)
// and counts the rows into rep.
func (b *builder) load(ctx context.Context, main db.Conn, rep *BuildReport) error {
	now := b.opts.Now
	if now == "" {
		var err error
		if now, err = serverNow(ctx, main, b.kind); err != nil {
			return err
		}
	}
	first, last, item := b.opts.loadRange()
	units := loadRangeUnits(b.kind, first, last, item)
	var total int64
	for _, u := range units {
		total += b.g.Rows(u.t, u.w)
	}
	ctr := &loadCounters{}
	b.prog.phase("load", 0, total)
	b.prog.watch(ctr)
	streams, err := b.useStreams(ctx, main)
	if err != nil {
		return err
	}
	if streams {
		err = b.loadStreams(ctx, now, units, ctr)
	} else {
		if b.kind != db.SQLite {
			// One writer loads; the index builds still run in parallel.
			if _, err := b.workerConns(ctx); err != nil {
				return err
			}
		}
		err = loadSQLite(ctx, main, b.g, now, units, b.opts.Workers, ctr)
	}
	b.prog.watch(nil)
	rep.LoadRetries = ctr.retries.Load()
	if err != nil {
		return err
	}
	for _, tb := range AllTables() {
		n := ctr.rows[tb].Load()
		rep.Tables[tb.String()] = n
		rep.Rows += n
	}
	return nil
}

// expectedRows is the rows of every table of the whole build, as the
// generator makes them.
func (b *builder) expectedRows() map[string]int64 {
	rows := map[string]int64{}
	for _, u := range loadUnits(b.kind, b.opts.Warehouses) {
		rows[u.t.String()] += b.g.Rows(u.t, u.w)
	}
	return rows
}

// checkLoading makes sure that a load or finish part finds what the schema
// part made: sledge_meta of this build (its warehouses and seed), still
// loading.
func (b *builder) checkLoading(ctx context.Context, main db.Conn) error {
	n, err := workload.CountTables(ctx, main, b.kind, []string{"sledge_meta"})
	if err != nil {
		return err
	}
	if n == 0 {
		return fmt.Errorf("no TPROC-C schema to %s: the build's schema part comes first", b.opts.Part)
	}
	rows, err := main.Query(ctx, `SELECT "key", value FROM sledge_meta`)
	if err != nil {
		return fmt.Errorf("read sledge_meta: %w", err)
	}
	kv := map[string]string{}
	for rows.Next() {
		var k, v string
		if err := rows.Scan(&k, &v); err != nil {
			rows.Close()
			return fmt.Errorf("read sledge_meta: %w", err)
		}
		kv[k] = v
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("read sledge_meta: %w", err)
	}
	want := map[string]string{"workload": Name, "warehouses": strconv.Itoa(b.opts.Warehouses),
		"seed": strconv.FormatUint(b.opts.Seed, 10)}
	for _, k := range []string{"workload", "warehouses", "seed"} {
		if kv[k] != want[k] {
			return fmt.Errorf("the TPROC-C schema being built is of %s %q, this %s part's %q: every part of a build must be given the same settings",
				k, kv[k], b.opts.Part, want[k])
		}
	}
	if kv["state"] != stateLoading {
		return fmt.Errorf("the TPROC-C build is %s, not loading: nothing to %s", cmp.Or(kv["state"], "in no known state"), b.opts.Part)
	}
	return nil
}

// useStreams decides between streaming loads and INSERTs. MySQL servers
// refuse LOAD DATA LOCAL INFILE unless local_infile is on (MySQL 8's default
// is off): then the build falls back to INSERTs, or fails if streams were
// asked for, saying what to change.
func (b *builder) useStreams(ctx context.Context, main db.Conn) (bool, error) {
	_, canStream := main.(db.TextCopier)
	if b.kind == db.MySQL && canStream && b.opts.Loader != LoaderInsert {
		var on int
		if err := main.QueryRow(ctx, "SELECT @@GLOBAL.local_infile").Scan(&on); err != nil {
			return false, fmt.Errorf("read local_infile: %w", err)
		}
		if on == 0 {
			if b.opts.Loader == LoaderStream {
				return false, config.FieldError{Field: "loader", Msg: "loader stream: the server has local_infile=OFF, so LOAD DATA LOCAL INFILE is refused: SET GLOBAL local_infile = 1, or build with the insert loader"}
			}
			canStream = false
		}
	}
	switch b.opts.Loader {
	case LoaderInsert:
		return false, nil
	case LoaderStream:
		if !canStream {
			return false, config.FieldError{Field: "loader", Msg: fmt.Sprintf("loader stream: %s cannot load streams; build with the insert loader", b.kind)}
		}
	}
	return canStream, nil
}

// loadUnits lists a whole build's load (loadRangeUnits of every warehouse
// and ITEM).
func loadUnits(kind db.Kind, warehouses int) []unit {
	return loadRangeUnits(kind, 1, warehouses, true)
}

// loadRangeUnits lists the load's work: warehouses first .. last, and ITEM
// when item. Servers (parallel streams): the big tables first, warehouse by
// warehouse so that parallel sessions mostly write different tables, then
// ITEM and the small ones to even out the end. SQLite (one writer): ITEM,
// then each warehouse's tables in order, so every table grows at its end,
// in key order.
func loadRangeUnits(kind db.Kind, first, last int, item bool) []unit {
	var us []unit
	if kind == db.SQLite {
		if item {
			us = append(us, unit{t: TableItem})
		}
		for w := first; w <= last; w++ {
			for _, t := range AllTables()[1:] {
				us = append(us, unit{t: t, w: w})
			}
		}
		return us
	}
	for w := first; w <= last; w++ {
		for _, t := range []Table{TableStock, TableOrderLine, TableCustomer} {
			us = append(us, unit{t: t, w: w})
		}
	}
	if item {
		us = append(us, unit{t: TableItem})
	}
	for w := first; w <= last; w++ {
		for _, t := range []Table{TableHistory, TableOrders, TableNewOrder, TableDistrict, TableWarehouse} {
			us = append(us, unit{t: t, w: w})
		}
	}
	return us
}

// loadStreams runs the units on Workers sessions, each taking the next unit
// from a shared queue and streaming it in COPY text format (PostgreSQL COPY,
// MariaDB/MySQL LOAD DATA LOCAL INFILE).
func (b *builder) loadStreams(ctx context.Context, now string, units []unit, ctr *loadCounters) error {
	conns, err := b.workerConns(ctx)
	if err != nil {
		return err
	}
	queue := make(chan unit, len(units))
	for _, u := range units {
		queue <- u
	}
	close(queue)
	g, ctx := errgroup.WithContext(ctx)
	for i := range conns {
		g.Go(func() error {
			c, ok := conns[i].(db.TextCopier)
			if !ok {
				return fmt.Errorf("the %s driver cannot stream rows", b.kind)
			}
			enc := NewCopyEncoder(now)
			for u := range queue {
				if _, err := copyUnit(ctx, b.drv, c, b.g, enc, u, ctr); err != nil {
					return err
				}
			}
			return nil
		})
	}
	return g.Wait()
}

// workerConns returns Workers sessions: the main one and Workers−1 more,
// opened in parallel. PostgreSQL sessions get settings for bulk work.
func (b *builder) workerConns(ctx context.Context) ([]db.Conn, error) {
	n := b.opts.Workers
	extra := make([]db.Conn, n-1)
	g, gctx := errgroup.WithContext(ctx)
	for i := range n - 1 {
		g.Go(func() error {
			c, err := b.drv.Connect(gctx, b.target, db.Options{Bulk: true, AppName: "sledge build"})
			extra[i] = c
			return err
		})
	}
	err := g.Wait()
	for _, c := range extra {
		if c != nil {
			b.conns = append(b.conns, c)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("open loading session: %w", err)
	}
	conns := append([]db.Conn{b.conns[0]}, extra...)
	if b.kind == db.Postgres {
		settings := []string{
			// Index builds sort whole tables; the default 64MB spills early.
			"SET maintenance_work_mem = '256MB'",
		}
		if n > 1 {
			// The build runs one index per session already; the server's own
			// parallel workers would compete with the other sessions.
			settings = append(settings, "SET max_parallel_maintenance_workers = 0")
		}
		for _, c := range conns {
			for _, s := range settings {
				if _, err := c.Exec(ctx, s); err != nil {
					return nil, fmt.Errorf("%s: %w", s, err)
				}
			}
		}
	}
	return conns, nil
}

// indexes creates the keys and secondary indexes of indexes.sql. On
// PostgreSQL they run in parallel over the sessions, biggest table first, and
// never two on one table at once (ALTER TABLE … ADD PRIMARY KEY locks the
// table: a second statement on it would only wait).
func (b *builder) indexes(ctx context.Context, rows map[string]int64) error {
	stmts, err := statements(b.kind, "indexes.sql")
	if err != nil {
		return err
	}
	type job struct {
		Statement
		table string
		rows  int64
	}
	jobs := make([]job, len(stmts))
	var total int64
	for i, s := range stmts {
		tb := sqlfile.Table(s.SQL)
		jobs[i] = job{s, tb, rows[tb]}
		total += rows[tb]
	}
	b.prog.phase("index", 0, total)
	if b.kind == db.SQLite {
		for _, j := range jobs {
			if _, err := b.conns[0].Exec(ctx, j.SQL); err != nil {
				return fmt.Errorf("create index %s: %w", j.Name, err)
			}
			b.prog.advance(j.rows, j.table)
		}
		return nil
	}
	slices.SortStableFunc(jobs, func(a, b job) int { return cmp.Compare(b.rows, a.rows) })
	var (
		mu   sync.Mutex
		cond = sync.NewCond(&mu)
		busy = map[string]bool{}
		left = jobs
	)
	// take returns the biggest pending job whose table is free, waiting while
	// all pending jobs are on busy tables; ok is false when none are left.
	take := func(ctx context.Context) (job, bool) {
		mu.Lock()
		defer mu.Unlock()
		for len(left) > 0 && ctx.Err() == nil {
			for i, j := range left {
				if !busy[j.table] {
					busy[j.table] = true
					left = slices.Delete(left, i, i+1)
					return j, true
				}
			}
			cond.Wait()
		}
		return job{}, false
	}
	release := func(j job) {
		mu.Lock()
		busy[j.table] = false
		mu.Unlock()
		cond.Broadcast()
	}
	conns := b.conns[:b.opts.Workers]
	g, ctx := errgroup.WithContext(ctx)
	for i := range conns {
		g.Go(func() error {
			// When the build is cancelled or another session fails, sessions
			// waiting for a free table must wake up to see it.
			stop := context.AfterFunc(ctx, func() { mu.Lock(); cond.Broadcast(); mu.Unlock() })
			defer stop()
			for {
				j, ok := take(ctx)
				if !ok {
					return ctx.Err()
				}
				if _, err := conns[i].Exec(ctx, j.SQL); err != nil {
					return fmt.Errorf("create index %s: %w", j.Name, err)
				}
				release(j)
				b.prog.advance(j.rows, j.table)
			}
		})
	}
	return g.Wait()
}

// analyze gathers optimizer statistics: one ANALYZE on SQLite; per table in
// parallel on the servers: ANALYZE TABLE on MariaDB/MySQL, VACUUM (FREEZE,
// ANALYZE) on PostgreSQL. The vacuum costs little
// right after the index builds (their scans set the hint bits already) and
// hands the first run a table in steady state: pages all-visible (index-only
// scans need no heap visits) and frozen, so neither hint-bit writes nor an
// anti-wraparound vacuum of the initial data fall into a measured window.
func (b *builder) analyze(ctx context.Context, rows map[string]int64) error {
	var total int64
	for _, n := range rows {
		total += n
	}
	b.prog.phase("analyze", 0, total)
	if b.kind == db.SQLite {
		if _, err := b.conns[0].Exec(ctx, "ANALYZE"); err != nil {
			return fmt.Errorf("analyze: %w", err)
		}
		// Move the load out of the write-ahead log into the database file, so
		// the first run does not pay for the checkpoint.
		if _, err := b.conns[0].Exec(ctx, "PRAGMA wal_checkpoint(TRUNCATE)"); err != nil {
			return fmt.Errorf("checkpoint: %w", err)
		}
		b.prog.advance(total, "")
		return nil
	}
	names := make([]string, 0, len(rows))
	for _, t := range AllTables() {
		names = append(names, t.String())
	}
	slices.SortStableFunc(names, func(a, b string) int { return cmp.Compare(rows[b], rows[a]) })
	queue := make(chan string, len(names))
	for _, n := range names {
		queue <- n
	}
	close(queue)
	analyze := "VACUUM (FREEZE, ANALYZE) "
	if b.kind == db.MySQL {
		analyze = "ANALYZE TABLE "
	}
	conns := b.conns[:b.opts.Workers]
	g, ctx := errgroup.WithContext(ctx)
	for i := range conns {
		g.Go(func() error {
			for name := range queue {
				if _, err := conns[i].Exec(ctx, analyze+name); err != nil {
					return fmt.Errorf("vacuum and analyze %s: %w", name, err)
				}
				b.prog.advance(rows[name], name)
			}
			return nil
		})
	}
	return g.Wait()
}

// serverNow is the load's "now" from the database's own clock, in the form
// its transactions write timestamps (PostgreSQL and MariaDB/MySQL: local time
// of the session; SQLite: datetime('now'), UTC).
func serverNow(ctx context.Context, c db.Conn, kind db.Kind) (string, error) {
	q := "SELECT datetime('now')"
	switch kind {
	case db.Postgres:
		q = "SELECT to_char(localtimestamp(0), 'YYYY-MM-DD HH24:MI:SS')"
	case db.MySQL:
		q = "SELECT DATE_FORMAT(NOW(), '%Y-%m-%d %H:%i:%s')"
	}
	var now string
	if err := c.QueryRow(ctx, q).Scan(&now); err != nil {
		return "", fmt.Errorf("read the database's clock: %w", err)
	}
	return now, nil
}

// execFile runs every statement of a dialect file in order.
func execFile(ctx context.Context, c db.Conn, kind db.Kind, file, what string) error {
	stmts, err := statements(kind, file)
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

// Drop removes every table and routine Sledge created for TPROC-C; a partial
// schema too.
func Drop(ctx context.Context, conn db.Conn, kind db.Kind) error {
	return execFile(ctx, conn, kind, "drop.sql", "drop")
}

// progressReporter serialises calls of the user's Progress function: phase
// changes report at once, a ticker reports the running counts every 250 ms.
type progressReporter struct {
	fn   func(Progress)
	mu   sync.Mutex // held while calling fn, so fn never runs concurrently
	cur  Progress
	ctr  *loadCounters
	quit chan struct{}
	done chan struct{}
}

const progressEvery = 250 * time.Millisecond

func newProgressReporter(fn func(Progress)) *progressReporter {
	p := &progressReporter{fn: fn, quit: make(chan struct{}), done: make(chan struct{})}
	if fn == nil {
		close(p.done)
		return p
	}
	go func() {
		defer close(p.done)
		t := time.NewTicker(progressEvery)
		defer t.Stop()
		for {
			select {
			case <-t.C:
				p.report()
			case <-p.quit:
				return
			}
		}
	}()
	return p
}

func (p *progressReporter) stop() {
	select {
	case <-p.quit:
	default:
		close(p.quit)
	}
	<-p.done
}

// phase starts a phase and reports it.
func (p *progressReporter) phase(name string, done, total int64) {
	if p.fn == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.cur = Progress{Phase: name, RowsDone: done, RowsTotal: total}
	p.fn(p.cur)
}

// watch makes the ticker read the load counters (nil: stop reading them).
func (p *progressReporter) watch(c *loadCounters) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ctr != nil && c == nil && p.fn != nil {
		// Final numbers of the load.
		p.cur.RowsDone = p.ctr.total.Load()
		p.fn(p.cur)
	}
	p.ctr = c
}

// advance adds to the phase's done count (index and analyze phases).
func (p *progressReporter) advance(n int64, table string) {
	if p.fn == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.cur.RowsDone += n
	if table != "" {
		p.cur.Table = table
	}
}

func (p *progressReporter) report() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cur.Phase == "" {
		return
	}
	if p.ctr != nil {
		p.cur.RowsDone = p.ctr.total.Load()
		if p.ctr.total.Load() > 0 {
			p.cur.Table = Table(p.ctr.last.Load()).String()
		}
	}
	p.fn(p.cur)
}
