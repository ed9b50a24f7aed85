package pgbench

import (
	"context"
	"errors"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sledge-bench/sledge/internal/config"
	"github.com/sledge-bench/sledge/internal/db"
	"github.com/sledge-bench/sledge/internal/db/mysql"
	"github.com/sledge-bench/sledge/internal/db/postgres"
	"github.com/sledge-bench/sledge/internal/db/sqlite"
	"github.com/sledge-bench/sledge/internal/metrics"
	"github.com/sledge-bench/sledge/internal/sqlfile"
	"github.com/sledge-bench/sledge/internal/testdb"
	"github.com/sledge-bench/sledge/internal/workload"
)

// TestMain runs the package's tests with testdb's private servers.
func TestMain(m *testing.M) { testdb.Main(m) }

type engine struct {
	name   string
	drv    db.Driver
	target func(t *testing.T) db.Target
}

func serverTarget(url func(testing.TB) string) func(t *testing.T) db.Target {
	return func(t *testing.T) db.Target {
		tg, err := db.ParseTarget(url(t))
		if err != nil {
			t.Fatal(err)
		}
		return tg
	}
}

var engines = []engine{
	{"postgres", postgres.Driver{}, serverTarget(testdb.Postgres)},
	{"mariadb", mysql.Driver{}, serverTarget(testdb.MariaDB)},
	{"sqlite", sqlite.Driver{}, func(t *testing.T) db.Target {
		return db.Target{Kind: db.SQLite, DSN: filepath.Join(t.TempDir(), "pgbench.sqlite")}
	}},
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

func TestSQLLayout(t *testing.T) {
	t.Parallel()
	for _, p := range sqlfile.LayoutProblems(mustSub(t), dialects) {
		t.Error(p)
	}
	for _, k := range []db.Kind{db.Postgres, db.MySQL, db.SQLite} {
		for _, f := range []string{"schema", "drop", "checks", "foreign_keys", "keys"} {
			if _, err := statements(k, f); err != nil {
				t.Errorf("%s %s: %v", k, f, err)
			}
		}
	}
}

// TestBuildCheckDrop builds scale 1 on each database, checks it (row
// counts, balances), breaks the balances and sees the check fail, refuses
// a second build without force, and drops everything.
func TestBuildCheckDrop(t *testing.T) {
	if testing.Short() {
		t.Skip("builds 100,000 accounts on every database")
	}
	t.Parallel()
	for _, e := range engines {
		t.Run(e.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			tg := e.target(t)
			o := BuildOptions{Scale: 1, ForeignKeys: e.drv.Kind() != db.SQLite}
			rep, err := Build(ctx, e.drv, tg, o)
			if err != nil {
				t.Fatal(err)
			}
			want := map[string]int64{"pgbench_branches": 1, "pgbench_tellers": 10, "pgbench_accounts": 100000, "pgbench_history": 0}
			for tb, n := range want {
				if rep.Tables[tb] != n {
					t.Errorf("build loaded %d rows of %s, want %d", rep.Tables[tb], tb, n)
				}
			}
			c := connect(t, e.drv, tg)
			crep, err := Check(ctx, c, e.drv.Kind())
			if err != nil {
				t.Fatal(err)
			}
			if crep.Failed() != 0 || len(crep.Conditions) != 5 || len(crep.Tables) != 4 {
				t.Fatalf("check of a fresh build: %+v", crep)
			}
			var filler string
			if err := c.QueryRow(ctx, "SELECT bid FROM pgbench_accounts WHERE aid = 100000").Scan(&filler); err != nil || filler != "1" {
				t.Errorf("account 100000's branch: %q %v", filler, err)
			}
			// A transaction's delta recorded in the history but not in the
			// balances breaks the balance condition.
			if _, err := c.Exec(ctx, "INSERT INTO pgbench_history (tid, bid, aid, delta) VALUES (1, 1, 1, 5)"); err != nil {
				t.Fatal(err)
			}
			if crep, err = Check(ctx, c, e.drv.Kind()); err != nil || crep.Failed() != 1 {
				t.Errorf("check with an unbalanced history: %+v %v", crep, err)
			}
			// A run of built-in scripts that left them so warns; one with a
			// custom script says nothing (its script may do as it likes).
			for _, builtinOnly := range []bool{true, false} {
				var res metrics.RunResult
				(&Runner{drv: e.drv, mon: c, builtinOnly: builtinOnly}).Complete(&res)
				if warned := len(res.Warnings) == 1 && strings.Contains(res.Warnings[0], "disagree"); warned != builtinOnly {
					t.Errorf("built-in scripts only %v: warnings %q", builtinOnly, res.Warnings)
				}
			}
			if _, err := Build(ctx, e.drv, tg, o); !errors.Is(err, workload.ErrSchemaExists) {
				t.Errorf("second build without force: %v", err)
			}
			if err := Drop(ctx, c, e.drv.Kind()); err != nil {
				t.Fatal(err)
			}
			if ok, err := schemaExists(ctx, c, e.drv.Kind()); err != nil || ok {
				t.Errorf("after drop, schema exists %v %v", ok, err)
			}
			if _, err := Check(ctx, c, e.drv.Kind()); !errors.Is(err, workload.ErrNoSchema) {
				t.Errorf("check after drop: %v", err)
			}
		})
	}
}

// TestBuildPartitionsPostgres: fillfactor and both partition methods make
// the partitions pgbench makes, holding every account.
func TestBuildPartitionsPostgres(t *testing.T) {
	if testing.Short() {
		t.Skip("builds on PostgreSQL")
	}
	t.Parallel()
	ctx := context.Background()
	for _, method := range []string{PartitionRange, PartitionHash} {
		t.Run(method, func(t *testing.T) {
			t.Parallel()
			tg := serverTarget(testdb.Postgres)(t)
			o := BuildOptions{Scale: 1, Fillfactor: 90, Partitions: 3, PartitionMethod: method, ForeignKeys: true}
			if _, err := Build(ctx, postgres.Driver{}, tg, o); err != nil {
				t.Fatal(err)
			}
			c := connect(t, postgres.Driver{}, tg)
			var parts, rows int64
			if err := c.QueryRow(ctx, "SELECT count(*) FROM pg_inherits WHERE inhparent = 'pgbench_accounts'::regclass").Scan(&parts); err != nil || parts != 3 {
				t.Errorf("%d partitions (%v), want 3", parts, err)
			}
			if err := c.QueryRow(ctx, "SELECT count(*) FROM pgbench_accounts_2").Scan(&rows); err != nil || rows == 0 || rows == 100000 {
				t.Errorf("partition 2 holds %d rows (%v)", rows, err)
			}
			var opts string
			if err := c.QueryRow(ctx, "SELECT array_to_string(reloptions, ',') FROM pg_class WHERE relname = 'pgbench_tellers'").Scan(&opts); err != nil || opts != "fillfactor=90" {
				t.Errorf("tellers' options %q %v", opts, err)
			}
			m, err := ReadMeta(ctx, c, db.Postgres)
			if err != nil || m.Partitions != 3 || m.PartitionMethod != method || m.Fillfactor != 90 || !m.ForeignKeys {
				t.Errorf("meta %+v %v", m, err)
			}
			if crep, err := Check(ctx, c, db.Postgres); err != nil || crep.Failed() != 0 {
				t.Errorf("check %+v %v", crep, err)
			}
		})
	}
}

// TestBuildRefusesOptions: options a database cannot honour are refused
// before anything is made.
func TestBuildRefusesOptions(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		kind db.Kind
		o    BuildOptions
		want string
	}{
		{"fillfactor on sqlite", db.SQLite, BuildOptions{Scale: 1, Fillfactor: 90}, "PostgreSQL only"},
		{"partitions on mariadb", db.MySQL, BuildOptions{Scale: 1, Partitions: 2}, "PostgreSQL only"},
		{"foreign keys on sqlite", db.SQLite, BuildOptions{Scale: 1, ForeignKeys: true}, "SQLite cannot"},
		{"scale 0", db.Postgres, BuildOptions{}, "at least 1"},
		{"bad method", db.Postgres, BuildOptions{Scale: 1, Partitions: 2, PartitionMethod: "list"}, "want range or hash"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			if err := c.o.check(c.kind); err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("%v, want %q", err, c.want)
			}
		})
	}
}

// TestValidate: the spec's pgbench settings are refused with field errors.
func TestValidate(t *testing.T) {
	t.Parallel()
	run := func(f func(*config.Spec)) config.Spec {
		s := config.New(config.KindRun)
		s.Workload = Name
		f(&s)
		return s
	}
	build := func(f func(*config.Spec)) config.Spec {
		s := config.New(config.KindBuild)
		s.Workload = Name
		f(&s)
		return s
	}
	cases := []struct {
		name  string
		spec  config.Spec
		kind  db.Kind
		field string // "" valid
	}{
		{"default run", run(func(*config.Spec) {}), db.Postgres, ""},
		{"weighted builtins", run(func(s *config.Spec) {
			s.Scripts = []string{"builtin:select-only@9", "builtin:tpcb@1"}
		}), db.Postgres, ""},
		{"unknown builtin", run(func(s *config.Spec) { s.Scripts = []string{"builtin:nope"} }), db.Postgres, "scripts"},
		{"missing file", run(func(s *config.Spec) { s.Scripts = []string{"/nonexistent/x.sql"} }), db.Postgres, "scripts"},
		{"bad weight", run(func(s *config.Spec) { s.Scripts = []string{"builtin:tpcb-like@x"} }), db.Postgres, "scripts"},
		{"zero weights", run(func(s *config.Spec) { s.Scripts = []string{"builtin:tpcb-like@0"} }), db.Postgres, "scripts"},
		{"bad query mode", run(func(s *config.Spec) { s.QueryMode = "fast" }), db.Postgres, "query_mode"},
		{"bad define", run(func(s *config.Spec) { s.Defines = []string{"novalue"} }), db.Postgres, "defines"},
		{"bad define name", run(func(s *config.Spec) { s.Defines = []string{"a-b=1"} }), db.Postgres, "defines"},
		{"rate", run(func(s *config.Spec) { s.Rate, s.LatencyLimit = 10, config.Duration(time.Millisecond) }), db.Postgres, ""},
		{"rate per script", run(func(s *config.Spec) { s.RateByType = "tpcb-like=10" }), db.Postgres, "rate_by_type"},
		{"terminals", run(func(s *config.Spec) { s.Terminals, s.Connections = 4, 2 }), db.Postgres, "terminals"},
		{"run on sqlite", run(func(*config.Spec) {}), db.SQLite, ""},
		{"run on mariadb", run(func(*config.Spec) {}), db.MySQL, ""},
		{"run on duckdb", run(func(*config.Spec) {}), db.DuckDB, "db"},
		{"fractional scale", build(func(s *config.Spec) { s.Scale = 0.5 }), db.Postgres, "scale"},
		{"fillfactor", build(func(s *config.Spec) { s.Fillfactor = 5 }), db.Postgres, "fillfactor"},
		{"fillfactor on mariadb", build(func(s *config.Spec) { s.Fillfactor = 90 }), db.MySQL, "fillfactor"},
		{"method without partitions", build(func(s *config.Spec) { s.PartitionMethod = "hash" }), db.Postgres, "partition_method"},
		{"partitions on sqlite", build(func(s *config.Spec) { s.Partitions = 2 }), db.SQLite, "partitions"},
		{"foreign keys on sqlite", build(func(s *config.Spec) { s.ForeignKeys = true }), db.SQLite, "foreign_keys"},
		{"partitioned build", build(func(s *config.Spec) { s.Partitions, s.PartitionMethod, s.Scale = 4, "hash", 2 }), db.Postgres, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			p, err := c.spec.Parse()
			errs := config.Fields(err)
			errs = append(errs, Workload{}.Validate(p)...)
			errs = append(errs, Workload{}.ValidateTarget(p, db.Target{Kind: c.kind})...)
			if c.field == "" {
				if len(errs) > 0 {
					t.Fatalf("refused: %v", errs)
				}
				return
			}
			for _, e := range errs {
				if e.Field == c.field {
					return
				}
			}
			t.Errorf("no error of field %s: %v", c.field, errs)
		})
	}
}

func mustSub(t *testing.T) fs.FS {
	t.Helper()
	sub, err := fs.Sub(sqlFiles, "sql")
	if err != nil {
		t.Fatal(err)
	}
	return sub
}
