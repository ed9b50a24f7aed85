// Package tpcctest gives a test a fresh database holding TPROC-C as `sledge
// build` leaves it, copied from a template built once per test binary (see
// testdb.PostgresFrom): a copy costs a fraction of a build.
//
// A test whose subject is the build (its speed, its progress, its job in
// the repository, a split build) builds for itself. So do TPROC-C's own
// tests, which this package cannot serve (it imports tprocc).
package tpcctest

import (
	"context"
	"fmt"
	"testing"

	"github.com/sledge-bench/sledge/internal/config"
	"github.com/sledge-bench/sledge/internal/db"
	"github.com/sledge-bench/sledge/internal/db/drivers"
	"github.com/sledge-bench/sledge/internal/testdb"
	"github.com/sledge-bench/sledge/internal/workload/tprocc"
)

// Options are the build's: the data depends on them alone (the workers a
// build uses change its speed, not its rows).
type Options struct {
	// Warehouses, 0: 1 (as `sledge build`).
	Warehouses int
	// Seed is the generator's seed, 0: config.DefaultBuildSeed (as `sledge
	// build` without --seed).
	Seed uint64
}

func (o Options) normal() Options {
	if o.Warehouses <= 0 {
		o.Warehouses = 1
	}
	if o.Seed == 0 {
		o.Seed = config.DefaultBuildSeed
	}
	return o
}

func (o Options) key() string {
	o = o.normal()
	return fmt.Sprintf("tprocc w%d s%d", o.Warehouses, o.Seed)
}

// Build builds TPROC-C on the empty database at url as `sledge build` does
// with o (schema, data, indexes, statistics, stored routines and
// sledge_meta), with two loading sessions.
func Build(ctx context.Context, url string, o Options) error {
	o = o.normal()
	tg, err := db.ParseTarget(url)
	if err != nil {
		return err
	}
	drv, err := drivers.For(tg.Kind)
	if err != nil {
		return err
	}
	_, err = tprocc.Build(ctx, drv, tg, tprocc.BuildOptions{Warehouses: o.Warehouses, Workers: min(2, o.Warehouses), Seed: o.Seed})
	return err
}

func builder(o Options) testdb.BuildFunc {
	return func(ctx context.Context, url string) error { return Build(ctx, url, o) }
}

// Postgres returns the URL of a new PostgreSQL database of the test's own
// holding TPROC-C built with o (testdb.PostgresFrom).
func Postgres(t testing.TB, o Options) string {
	t.Helper()
	return testdb.PostgresFrom(t, o.key(), builder(o))
}

// MariaDB returns the URL of a new MariaDB database of the test's own
// holding TPROC-C built with o, stored routines included
// (testdb.MariaDBFrom).
func MariaDB(t testing.TB, o Options) string {
	t.Helper()
	return testdb.MariaDBFrom(t, o.key(), builder(o))
}

// SQLite returns the URL (sqlite:PATH) of a new SQLite file, named file
// ("" is tpcc.db) in a directory of the test's own, holding TPROC-C built
// with o (testdb.SQLiteFrom).
func SQLite(t testing.TB, o Options, file string) string {
	t.Helper()
	return testdb.SQLiteFrom(t, o.key(), file, builder(o))
}

// SQLiteAt writes to path a SQLite file holding TPROC-C built with o: for a
// test that needs the database at a given place (the embedded default in a
// data directory: tprocc.Workload{}.DefaultDB).
func SQLiteAt(t testing.TB, o Options, path string) {
	t.Helper()
	testdb.CopySQLite(t, o.key(), path, builder(o))
}
