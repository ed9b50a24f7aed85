package tprocc

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/sledge-bench/sledge/internal/db"
	"github.com/sledge-bench/sledge/internal/db/mysql"
	"github.com/sledge-bench/sledge/internal/db/postgres"
	"github.com/sledge-bench/sledge/internal/db/sqlite"
	"github.com/sledge-bench/sledge/internal/testdb"
)

// windowSlots bounds the measured windows that run at once to one per CPU
// (go test's default parallelism): a window's transactions are what its
// test counts (rollbacks by design, conflicts), and unpaced windows each
// saturate the CPUs. The rest of the tests (builds, checks) run alongside.
var windowSlots = make(chan struct{}, runtime.GOMAXPROCS(0))

// windowSlot waits for a window slot, held until release is called.
func windowSlot() (release func()) {
	windowSlots <- struct{}{}
	return func() { <-windowSlots }
}

// built is a database of the test's own holding TPROC-C built with
// warehouses and seed (the workers a build uses change no row): a copy of
// a template the test binary builds once for each (testdb.PostgresFrom,
// testdb.MariaDBFrom, testdb.SQLiteFrom), for the tests whose subject is
// not the build. On MariaDB a copy takes about as long as a build, but costs
// a third of its CPU (one warehouse: 2.0 s of the server against 5.4 s for
// the build, on a busy machine), and the suite is CPU-bound.
func built(t *testing.T, kind db.Kind, warehouses int, seed uint64) db.Target {
	t.Helper()
	key := fmt.Sprintf("tprocc w%d s%d", warehouses, seed)
	build := func(drv db.Driver) testdb.BuildFunc {
		return func(ctx context.Context, url string) error {
			tg, err := db.ParseTarget(url)
			if err != nil {
				return err
			}
			_, err = Build(ctx, drv, tg, BuildOptions{Warehouses: warehouses, Workers: min(2, warehouses), Seed: seed})
			return err
		}
	}
	var url string
	switch kind {
	case db.Postgres:
		url = testdb.PostgresFrom(t, key, build(postgres.Driver{}))
	case db.MySQL:
		url = testdb.MariaDBFrom(t, key, build(mysql.Driver{}))
	case db.SQLite:
		url = testdb.SQLiteFrom(t, key, "tprocc.db", build(sqlite.Driver{}))
	default:
		t.Fatalf("no TPROC-C template on %s", kind)
	}
	tg, err := db.ParseTarget(url)
	if err != nil {
		t.Fatal(err)
	}
	if kind == db.SQLite && !strings.HasSuffix(tg.DSN, "tprocc.db") {
		t.Fatalf("SQLite copy at %s", tg.DSN)
	}
	return tg
}
