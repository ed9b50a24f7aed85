package tprocc

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sledge-bench/sledge/internal/db"
	"github.com/sledge-bench/sledge/internal/db/sqlite"
	"github.com/sledge-bench/sledge/internal/sqlfile"
	"github.com/sledge-bench/sledge/internal/workload"
)

// sqliteTarget is a database file in the test's temporary directory.
func sqliteTarget(t *testing.T) db.Target {
	t.Helper()
	return db.Target{Kind: db.SQLite, DSN: filepath.Join(t.TempDir(), "tprocc.db")}
}

func connect(t *testing.T, drv db.Driver, tg db.Target) db.Conn {
	t.Helper()
	c, err := drv.Connect(context.Background(), tg, db.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close(context.Background()) })
	return c
}

// progressLog records Progress calls and fails the test if two overlap.
type progressLog struct {
	t       *testing.T
	inside  atomic.Bool
	mu      sync.Mutex
	phases  []string
	maxDone map[string]int64
	total   map[string]int64
}

func newProgressLog(t *testing.T) *progressLog {
	return &progressLog{t: t, maxDone: map[string]int64{}, total: map[string]int64{}}
}

func (p *progressLog) record(u Progress) {
	if !p.inside.CompareAndSwap(false, true) {
		p.t.Error("Progress called concurrently")
	}
	defer p.inside.Store(false)
	p.mu.Lock()
	defer p.mu.Unlock()
	if n := len(p.phases); n == 0 || p.phases[n-1] != u.Phase {
		p.phases = append(p.phases, u.Phase)
	}
	p.maxDone[u.Phase] = max(p.maxDone[u.Phase], u.RowsDone)
	p.total[u.Phase] = u.RowsTotal
}

// wantCounts are the exact row counts of a fresh load of w warehouses,
// ORDER-LINE from the generator.
func wantCounts(seed uint64, w int) map[string]int64 {
	g := NewGenerator(seed, CLoadFor(seed))
	m := map[string]int64{}
	for _, t := range AllTables() {
		if t == TableItem {
			m[t.String()] = g.Rows(t, 0)
			continue
		}
		for i := 1; i <= w; i++ {
			m[t.String()] += g.Rows(t, i)
		}
	}
	return m
}

func checkReportCounts(t *testing.T, rep BuildReport, seed uint64, w int) {
	t.Helper()
	want := wantCounts(seed, w)
	var total int64
	for name, n := range want {
		if rep.Tables[name] != n {
			t.Errorf("%s: %d rows loaded, want %d", name, rep.Tables[name], n)
		}
		total += n
	}
	if rep.Rows != total {
		t.Errorf("report says %d rows, tables add up to %d", rep.Rows, total)
	}
}

// requireAllPass fails the test unless every condition passed (C11 included
// unless allowSkip).
func requireAllPass(t *testing.T, rep CheckReport) {
	t.Helper()
	if len(rep.Conditions) < 12 {
		t.Fatalf("only %d conditions reported", len(rep.Conditions))
	}
	for _, c := range rep.Conditions {
		if !c.Passed || c.Skipped {
			t.Errorf("%s %q: passed=%v skipped=%v violations=%d note=%q", c.Name, c.Description, c.Passed, c.Skipped, c.Violations, c.Note)
		}
	}
}

func TestBuildSQLite(t *testing.T) {
	if testing.Short() {
		t.Skip("loads a warehouse")
	}
	t.Parallel()
	ctx := context.Background()
	drv := sqlite.Driver{}
	tg := sqliteTarget(t)
	const seed = 42

	plog := newProgressLog(t)
	start := time.Now()
	rep, err := Build(ctx, drv, tg, BuildOptions{Warehouses: 1, Workers: 1, Seed: seed, Progress: plog.record})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("SQLite, 1 warehouse: %d rows in %s (%.0f rows/s)", rep.Rows, time.Since(start).Round(time.Millisecond),
		float64(rep.Rows)/rep.Duration.Seconds())
	checkReportCounts(t, rep, seed, 1)
	if rep.CLoad != CLoadFor(seed) || rep.Seed != seed || rep.Workers != 1 || rep.Warehouses != 1 {
		t.Errorf("report %+v", rep)
	}
	if got := strings.Join(plog.phases, ","); got != "schema,load,index,analyze" {
		t.Errorf("phases %s", got)
	}
	if plog.maxDone["load"] != rep.Rows || plog.total["load"] != rep.Rows {
		t.Errorf("load progress reached %d of %d, loaded %d", plog.maxDone["load"], plog.total["load"], rep.Rows)
	}

	c := connect(t, drv, tg)
	m, err := ReadMeta(ctx, c)
	if err != nil {
		t.Fatal(err)
	}
	if m.Warehouses != 1 || m.Seed != seed || m.CLoad != rep.CLoad || m.Dirty || m.Format != buildFormat ||
		time.Since(m.BuiltAt) > time.Hour {
		t.Errorf("meta %+v", m)
	}
	crep, err := Check(ctx, c, db.SQLite, CheckOptions{})
	if err != nil {
		t.Fatal(err)
	}
	requireAllPass(t, crep)

	// A second build is refused with a message that says what it found
	// (each front end adds what its user can do about it).
	_, err = Build(ctx, drv, tg, BuildOptions{Warehouses: 1, Workers: 1, Seed: seed})
	var se *workload.SchemaError
	if !errors.Is(err, ErrSchemaExists) || !errors.As(err, &se) || se.Workload != Name {
		t.Fatalf("second build: %v", err)
	}
	const wantMsg = "database already holds a TPROC-C schema (1 warehouse)"
	if err.Error() != wantMsg {
		t.Errorf("second build:\n got %q\nwant %q", err, wantMsg)
	}

	// With Force it rebuilds: 2 warehouses from 2 generating workers into
	// SQLite's single writer.
	rep, err = Build(ctx, drv, tg, BuildOptions{Warehouses: 2, Workers: 2, Seed: seed + 1, Force: true})
	if err != nil {
		t.Fatal(err)
	}
	checkReportCounts(t, rep, seed+1, 2)
	crep, err = Check(ctx, c, db.SQLite, CheckOptions{})
	if err != nil {
		t.Fatal(err)
	}
	requireAllPass(t, crep)
	if crep.Meta.Warehouses != 2 {
		t.Errorf("meta after rebuild: %+v", crep.Meta)
	}

	if err := Drop(ctx, c, db.SQLite); err != nil {
		t.Fatal(err)
	}
	if ok, err := SchemaExists(ctx, c, db.SQLite); err != nil || ok {
		t.Fatalf("after drop: exists=%v err=%v", ok, err)
	}
	var n int
	if err := c.QueryRow(ctx, "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite%'").Scan(&n); err != nil || n != 0 {
		t.Fatalf("after drop: %d tables (%v)", n, err)
	}
}

func TestReadMetaWithoutSchema(t *testing.T) {
	ctx := context.Background()
	tg := sqliteTarget(t)
	c := connect(t, sqlite.Driver{}, tg)
	_, err := ReadMeta(ctx, c)
	if !errors.Is(err, ErrNoSchema) {
		t.Fatalf("ReadMeta on an empty database: %v", err)
	}
	want := "no TPROC-C schema found in " + tg.DSN
	if err.Error() != want {
		t.Errorf("got %q\nwant %q", err, want)
	}
	if _, err := Check(ctx, c, db.SQLite, CheckOptions{}); !errors.Is(err, ErrNoSchema) {
		t.Errorf("Check on an empty database: %v", err)
	}
	if ok, err := SchemaExists(ctx, c, db.SQLite); err != nil || ok {
		t.Errorf("SchemaExists on an empty database: %v %v", ok, err)
	}
}

func TestSchemaExistsSeesPartialSchema(t *testing.T) {
	ctx := context.Background()
	c := connect(t, sqlite.Driver{}, sqliteTarget(t))
	if _, err := c.Exec(ctx, "CREATE TABLE stock (s_i_id INTEGER)"); err != nil {
		t.Fatal(err)
	}
	if ok, err := SchemaExists(ctx, c, db.SQLite); err != nil || !ok {
		t.Fatalf("partial schema not seen: %v %v", ok, err)
	}
	if err := Drop(ctx, c, db.SQLite); err != nil {
		t.Fatal(err)
	}
	if ok, err := SchemaExists(ctx, c, db.SQLite); err != nil || ok {
		t.Fatalf("after drop: %v %v", ok, err)
	}
}

func TestInterruptedBuildIsRecognised(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	drv := sqlite.Driver{}
	tg := sqliteTarget(t)
	var once sync.Once
	start := time.Now()
	var stopped time.Time
	_, err := Build(ctx, drv, tg, BuildOptions{Warehouses: 1, Workers: 2, Seed: 1, Progress: func(p Progress) {
		if p.Phase == "load" && p.RowsDone > 0 {
			once.Do(func() { stopped = time.Now(); cancel() })
		}
	}})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled build returned %v", err)
	}
	if stopped.IsZero() {
		t.Fatal("never saw load progress")
	}
	if d := time.Since(stopped); d > 2*time.Second {
		t.Errorf("build took %s to stop after cancellation (started %s before)", d, stopped.Sub(start))
	}

	c := connect(t, drv, tg)
	if _, err := ReadMeta(t.Context(), c); err == nil || !strings.Contains(err.Error(), "did not finish") {
		t.Errorf("ReadMeta after an interrupted build: %v", err)
	}
	_, err = Build(t.Context(), drv, tg, BuildOptions{Warehouses: 1, Workers: 1, Seed: 1})
	if !errors.Is(err, ErrSchemaExists) || !strings.Contains(err.Error(), "(an unfinished build)") {
		t.Errorf("build over an interrupted one: %v", err)
	}
}

func TestBuildOptionsValidate(t *testing.T) {
	cases := []struct {
		o           BuildOptions
		wantErr     string
		wantWorkers int
	}{
		{o: BuildOptions{Warehouses: 0, Workers: 1}, wantErr: "warehouses must be between 1 and 100000, not 0"},
		{o: BuildOptions{Warehouses: 100001, Workers: 1}, wantErr: "warehouses must be between 1 and 100000, not 100001"},
		{o: BuildOptions{Warehouses: 4, Workers: 0}, wantErr: "workers must be at least 1, not 0"},
		{o: BuildOptions{Warehouses: 4, Workers: -2}, wantErr: "workers must be at least 1, not -2"},
		{o: BuildOptions{Warehouses: 2, Workers: 8}, wantWorkers: 2},
		{o: BuildOptions{Warehouses: 100000, Workers: 3}, wantWorkers: 3},
	}
	for _, c := range cases {
		o := c.o
		err := o.validate()
		if c.wantErr != "" {
			if err == nil || err.Error() != c.wantErr {
				t.Errorf("%+v: got %v, want %q", c.o, err, c.wantErr)
			}
			continue
		}
		if err != nil || o.Workers != c.wantWorkers {
			t.Errorf("%+v: err %v, workers %d, want %d", c.o, err, o.Workers, c.wantWorkers)
		}
	}
	// Build validates before it touches the database.
	if _, err := Build(context.Background(), sqlite.Driver{}, db.Target{Kind: db.SQLite, DSN: "/nonexistent/x.db"},
		BuildOptions{Warehouses: 0, Workers: 1}); err == nil || !strings.Contains(err.Error(), "warehouses") {
		t.Errorf("Build with 0 warehouses: %v", err)
	}
}

func TestLoadUnitsCoverEverythingOnce(t *testing.T) {
	for _, kind := range []db.Kind{db.Postgres, db.SQLite} {
		seen := map[unit]int{}
		for _, u := range loadUnits(kind, 3) {
			seen[u]++
		}
		if len(seen) != 1+3*8 {
			t.Errorf("%s: %d distinct units", kind, len(seen))
		}
		for u, n := range seen {
			if n != 1 {
				t.Errorf("%s: %s listed %d times", kind, u, n)
			}
		}
	}
}

func TestIndexTable(t *testing.T) {
	cases := map[string]string{
		"ALTER TABLE item ADD PRIMARY KEY (i_id);":                                               "item",
		"-- Payment by name\nCREATE UNIQUE INDEX customer_by_name ON customer (c_w_id, c_d_id);": "customer",
		"CREATE INDEX x ON orders(o_w_id)":                                                       "orders",
	}
	for sql, want := range cases {
		if got := sqlfile.Table(sql); got != want {
			t.Errorf("sqlfile.Table(%q) = %q, want %q", sql, got, want)
		}
	}
	for _, kind := range []db.Kind{db.Postgres, db.SQLite} {
		stmts, err := statements(kind, "indexes.sql")
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range stmts {
			tb := sqlfile.Table(s.SQL)
			found := false
			for _, x := range AllTables() {
				found = found || x.String() == tb
			}
			if !found {
				t.Errorf("%s %s: table %q is not a TPROC-C table", kind, s.Name, tb)
			}
		}
	}
}
