package tprocc

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sledge-bench/sledge/internal/db"
	"github.com/sledge-bench/sledge/internal/db/postgres"
	"github.com/sledge-bench/sledge/internal/testdb"
)

// TestMain runs the package's tests with testdb's private PostgreSQL cluster
// (started on first use, stopped afterwards).
func TestMain(m *testing.M) { testdb.Main(m) }

func postgresTarget(t *testing.T) db.Target {
	t.Helper()
	tg, err := db.ParseTarget(testdb.Postgres(t))
	if err != nil {
		t.Fatal(err)
	}
	return tg
}

func TestBuildPostgres(t *testing.T) {
	if testing.Short() {
		t.Skip("loads two warehouses")
	}
	t.Parallel()
	ctx := t.Context()
	drv := postgres.Driver{}
	tg := postgresTarget(t)
	const seed = 7

	plog := newProgressLog(t)
	start := time.Now()
	rep, err := Build(ctx, drv, tg, BuildOptions{Warehouses: 2, Workers: 2, Seed: seed, Progress: plog.record})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("PostgreSQL, 2 warehouses, 2 workers: %d rows in %s", rep.Rows, time.Since(start).Round(time.Millisecond))
	checkReportCounts(t, rep, seed, 2)
	if plog.maxDone["load"] != rep.Rows {
		t.Errorf("load progress reached %d, loaded %d", plog.maxDone["load"], rep.Rows)
	}

	c := connect(t, drv, tg)
	crep, err := Check(ctx, c, db.Postgres, CheckOptions{})
	if err != nil {
		t.Fatal(err)
	}
	requireAllPass(t, crep)

	// The keys exist: a duplicate is refused.
	if _, err := c.Exec(ctx, "INSERT INTO warehouse SELECT * FROM warehouse WHERE w_id = 1"); err == nil ||
		drv.Classify(err) != db.ClassConstraint {
		t.Errorf("duplicate warehouse: %v", err)
	}
	// The routines of procs mode are installed.
	var routines int
	if err := c.QueryRow(ctx, "SELECT count(*) FROM pg_proc WHERE proname LIKE 'sledge\\_%'").Scan(&routines); err != nil || routines == 0 {
		t.Errorf("%d routines installed (%v)", routines, err)
	}

	_, err = Build(ctx, drv, tg, BuildOptions{Warehouses: 1, Workers: 1, Seed: seed})
	if !errors.Is(err, ErrSchemaExists) {
		t.Fatalf("second build: %v", err)
	}
	if err := Drop(ctx, c, db.Postgres); err != nil {
		t.Fatal(err)
	}
	if ok, err := SchemaExists(ctx, c, db.Postgres); err != nil || ok {
		t.Fatalf("after drop: exists=%v err=%v", ok, err)
	}
}

func TestReadMetaWithoutSchemaPostgres(t *testing.T) {
	c := connect(t, postgres.Driver{}, postgresTarget(t))
	_, err := ReadMeta(t.Context(), c)
	if !errors.Is(err, ErrNoSchema) {
		t.Fatalf("ReadMeta on an empty database: %v", err)
	}
}

func TestBuildPostgresCancelForceAndCheck(t *testing.T) {
	if testing.Short() {
		t.Skip("loads a warehouse")
	}
	t.Parallel()
	drv := postgres.Driver{}
	tg := postgresTarget(t)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	var (
		once    sync.Once
		stopped time.Time
	)
	_, err := Build(ctx, drv, tg, BuildOptions{Warehouses: 2, Workers: 2, Seed: 1, Progress: func(p Progress) {
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
	if d := time.Since(stopped); d > 3*time.Second {
		t.Errorf("build took %s to stop after cancellation", d)
	}

	c := connect(t, drv, tg)
	if _, err := ReadMeta(t.Context(), c); err == nil || !strings.Contains(err.Error(), "did not finish") {
		t.Errorf("ReadMeta after an interrupted build: %v", err)
	}
	// Force replaces the partial schema.
	rep, err := Build(t.Context(), drv, tg, BuildOptions{Warehouses: 1, Workers: 1, Seed: 2, Force: true})
	if err != nil {
		t.Fatal(err)
	}
	checkReportCounts(t, rep, 2, 1)
	m, err := ReadMeta(t.Context(), c)
	if err != nil || m.Warehouses != 1 || m.Seed != 2 || m.Dirty {
		t.Fatalf("meta after forced rebuild: %+v, %v", m, err)
	}
	// On one warehouse (checks of two take twice as long): the conditions
	// catch what they should; the helper ends with MarkDirty.
	checkDetectsViolations(t, c, db.Postgres)
	if m, err := ReadMeta(t.Context(), c); err != nil || !m.Dirty {
		t.Fatalf("meta after MarkDirty: %+v, %v", m, err)
	}
}
