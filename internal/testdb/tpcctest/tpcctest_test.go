package tpcctest

import (
	"context"
	"testing"

	"github.com/sledge-bench/sledge/internal/db"
	"github.com/sledge-bench/sledge/internal/db/drivers"
	"github.com/sledge-bench/sledge/internal/testdb"
	"github.com/sledge-bench/sledge/internal/workload/tprocc"
)

func TestMain(m *testing.M) { testdb.Main(m) }

// A copy holds TPROC-C as the build left it: the build's warehouses and
// seed, every consistency condition (C11 included: no run yet) and the
// stored routines of procs mode.
func TestCopiesAreBuilds(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds TPROC-C")
	}
	for _, c := range []struct {
		name     string
		url      func(t *testing.T) string
		routines string // counts the TPROC-C routines
	}{
		{"postgres", func(t *testing.T) string { return Postgres(t, Options{Warehouses: 1, Seed: 5}) },
			"SELECT count(*) FROM pg_proc WHERE proname LIKE 'sledge\\_%'"},
		{"mariadb", func(t *testing.T) string { return MariaDB(t, Options{Warehouses: 1, Seed: 5}) },
			"SELECT COUNT(*) FROM information_schema.ROUTINES WHERE ROUTINE_SCHEMA = DATABASE() AND ROUTINE_NAME LIKE 'sledge\\_%'"},
		{"sqlite", func(t *testing.T) string { return SQLite(t, Options{Warehouses: 1, Seed: 5}, "") }, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			for range 2 { // the template's first copy and a later one
				tg, err := db.ParseTarget(c.url(t))
				if err != nil {
					t.Fatal(err)
				}
				drv, err := drivers.For(tg.Kind)
				if err != nil {
					t.Fatal(err)
				}
				conn, err := drv.Connect(ctx, tg, db.Options{})
				if err != nil {
					t.Fatal(err)
				}
				defer conn.Close(ctx)
				rep, err := tprocc.Check(ctx, conn, tg.Kind, tprocc.CheckOptions{})
				if err != nil {
					t.Fatal(err)
				}
				if rep.Meta.Warehouses != 1 || rep.Meta.Seed != 5 || rep.Meta.Dirty || !rep.Passed() {
					t.Errorf("copy: meta %+v, passed %v", rep.Meta, rep.Passed())
				}
				for _, cond := range rep.Conditions {
					if cond.Skipped || !cond.Passed {
						t.Errorf("%s: passed %v, skipped %v (%s)", cond.Name, cond.Passed, cond.Skipped, cond.Note)
					}
				}
				if c.routines != "" {
					var n int
					if err := conn.QueryRow(ctx, c.routines).Scan(&n); err != nil || n < 5 {
						t.Errorf("%d TPROC-C routines (%v), want the five transactions'", n, err)
					}
				}
			}
		})
	}
}
