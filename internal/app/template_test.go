package app

import (
	"testing"

	"github.com/sledge-bench/sledge/internal/testdb/tpcctest"
)

// tpccPostgres is a PostgreSQL database of the test's own holding TPROC-C
// as buildOne (or a default build) leaves it: one warehouse, the default
// seed, stored routines. It is a copy of a template the test binary built
// once, for the tests whose subject is not the build and that do not look
// for the build's job in their repository.
func tpccPostgres(t *testing.T) string {
	t.Helper()
	return tpcctest.Postgres(t, tpcctest.Options{})
}

// tpccSQLite is tpccPostgres on SQLite: a file named file in a directory of
// the test's own.
func tpccSQLite(t *testing.T, file string) string {
	t.Helper()
	return tpcctest.SQLite(t, tpcctest.Options{}, file)
}
