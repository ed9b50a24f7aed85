package tprocc

import (
	"errors"
	"testing"
	"time"

	"github.com/sledge-bench/sledge/internal/db"
	"github.com/sledge-bench/sledge/internal/db/mysql"
	"github.com/sledge-bench/sledge/internal/testdb"
)

// Integration tests on a private MariaDB server (testdb starts one per test
// binary, installing it from Debian's packages when root and missing). They
// mirror the PostgreSQL ones.

func mariadbTarget(t *testing.T) db.Target {
	t.Helper()
	tg, err := db.ParseTarget(testdb.MariaDB(t))
	if err != nil {
		t.Fatal(err)
	}
	return tg
}

func TestBuildMariaDB(t *testing.T) {
	if testing.Short() {
		t.Skip("loads two warehouses")
	}
	t.Parallel()
	ctx := t.Context()
	drv := mysql.Driver{}
	tg := mariadbTarget(t)
	const seed = 7

	plog := newProgressLog(t)
	start := time.Now()
	rep, err := Build(ctx, drv, tg, BuildOptions{Warehouses: 2, Workers: 2, Seed: seed, Progress: plog.record})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("MariaDB, 2 warehouses, 2 workers: %d rows in %s", rep.Rows, time.Since(start).Round(time.Millisecond))
	checkReportCounts(t, rep, seed, 2)
	if plog.maxDone["load"] != rep.Rows {
		t.Errorf("load progress reached %d, loaded %d", plog.maxDone["load"], rep.Rows)
	}

	c := connect(t, drv, tg)
	v, err := drv.Version(ctx, c)
	if err != nil || len(v) < len("MariaDB 1") || v[:len("MariaDB")] != "MariaDB" {
		t.Errorf("version %q (%v): want the MariaDB flavour detected", v, err)
	}
	crep, err := Check(ctx, c, db.MySQL, CheckOptions{})
	if err != nil {
		t.Fatal(err)
	}
	requireAllPass(t, crep)

	// The keys exist: a duplicate is refused.
	if _, err := c.Exec(ctx, "INSERT INTO warehouse SELECT * FROM warehouse WHERE w_id = 1"); err == nil ||
		drv.Classify(err) != db.ClassConstraint {
		t.Errorf("duplicate warehouse: %v", err)
	}
	// The tables are InnoDB (the default engine) and the procedures of procs
	// mode are installed.
	var engine string
	if err := c.QueryRow(ctx, "SELECT engine FROM information_schema.tables WHERE table_schema = DATABASE() AND table_name = 'stock'").Scan(&engine); err != nil || engine != "InnoDB" {
		t.Errorf("stock engine %q (%v)", engine, err)
	}
	var routines int
	if err := c.QueryRow(ctx, "SELECT count(*) FROM information_schema.routines WHERE routine_schema = DATABASE() AND routine_name LIKE 'sledge%'").Scan(&routines); err != nil || routines != 5 {
		t.Errorf("%d procedures installed (%v), want 5", routines, err)
	}

	_, err = Build(ctx, drv, tg, BuildOptions{Warehouses: 1, Workers: 1, Seed: seed})
	if !errors.Is(err, ErrSchemaExists) {
		t.Fatalf("second build: %v", err)
	}
	if _, err := Build(ctx, drv, tg, BuildOptions{Warehouses: 1, Workers: 1, Force: true, Engine: "NoSuchEngine"}); err == nil {
		t.Error("an unknown storage engine was accepted")
	}
	if err := Drop(ctx, c, db.MySQL); err != nil {
		t.Fatal(err)
	}
	if ok, err := SchemaExists(ctx, c, db.MySQL); err != nil || ok {
		t.Fatalf("after drop: exists=%v err=%v", ok, err)
	}
	if _, err := ReadMeta(ctx, c); !errors.Is(err, ErrNoSchema) {
		t.Fatalf("ReadMeta after drop: %v", err)
	}
}

// TestInsertLoaderMariaDB loads with INSERTs (the fallback for servers that
// refuse LOAD DATA LOCAL INFILE) a database that passes the check.
func TestInsertLoaderMariaDB(t *testing.T) {
	if testing.Short() {
		t.Skip("loads a warehouse")
	}
	t.Parallel()
	drv := mysql.Driver{}
	tg := mariadbTarget(t)
	rep, err := Build(t.Context(), drv, tg, BuildOptions{Warehouses: 1, Workers: 2, Seed: 2, Loader: LoaderInsert})
	if err != nil {
		t.Fatal(err)
	}
	checkReportCounts(t, rep, 2, 1)
	crep, err := Check(t.Context(), connect(t, drv, tg), db.MySQL, CheckOptions{})
	if err != nil {
		t.Fatal(err)
	}
	requireAllPass(t, crep)
}

// TestCheckDetectsViolationsMariaDB breaks a copy of the template (built by
// the streaming loader) in one place at a time, in parallel with the
// insert loader's build above rather than after it.
func TestCheckDetectsViolationsMariaDB(t *testing.T) {
	if testing.Short() {
		t.Skip("loads a warehouse")
	}
	t.Parallel()
	drv := mysql.Driver{}
	checkDetectsViolations(t, connect(t, drv, built(t, db.MySQL, 1, 3)), db.MySQL)
}

func TestRunMariaDBBothModes(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs")
	}
	t.Parallel()
	drv := mysql.Driver{}
	tg := built(t, db.MySQL, 1, 3)
	requireConsistent(t, drv, tg, "after the build")
	runFor(t, drv, tg, ModeProcs, db.DefaultIsolation, 4, 2*time.Second)
	requireConsistent(t, drv, tg, "after the procs run")
	runFor(t, drv, tg, ModeSQL, db.DefaultIsolation, 4, 2*time.Second)
	requireConsistent(t, drv, tg, "after the sql run")
}

func TestInvalidItemRollsBackMariaDB(t *testing.T) {
	t.Parallel()
	drv := mysql.Driver{}
	tg := built(t, db.MySQL, 1, 3)
	for _, mode := range []Mode{ModeProcs, ModeSQL} {
		testInvalidItemRollsBack(t, drv, tg, mode)
	}
	requireConsistent(t, drv, tg, "after the forced orders")
}
