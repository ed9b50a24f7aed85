package app

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sledge-bench/sledge/internal/config"
	"github.com/sledge-bench/sledge/internal/db"
	"github.com/sledge-bench/sledge/internal/db/drivers"
	"github.com/sledge-bench/sledge/internal/metrics"
	"github.com/sledge-bench/sledge/internal/testdb"
)

// Every job but a build opens an embedded database only if it exists: a
// check, drop or run of a missing file fails saying how to build it, and
// leaves no file (nor directory) behind; the default embedded database's
// first run still builds it.
func TestJobsOtherThanBuildCreateNoFile(t *testing.T) {
	parallel(t)
	svc, _ := newService(t)
	ctx := context.Background()
	root := t.TempDir()
	path := filepath.Join(root, "sub", "new.db")
	for _, kind := range []string{config.KindCheck, config.KindDrop, config.KindRun} {
		sp := config.New(kind)
		sp.DB, sp.Confirm = "sqlite:"+path, kind == config.KindDrop
		var out bytes.Buffer
		o, err := svc.Run(ctx, Request{Spec: sp, Console: &out})
		want := "no database at " + path + ": build it first with `sledge build --db sqlite:" + path + "`"
		if err == nil || o.Status != metrics.StatusFailed || !strings.Contains(err.Error(), want) || !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s of a missing file: %v (status %s), want %q\n%s", kind, err, o.Status, want, out.String())
		}
		if ents, _ := os.ReadDir(root); len(ents) != 0 {
			t.Fatalf("%s left %v in %s", kind, ents, root)
		}
	}
	// TPROC-H's default DuckDB: the hint names the workload, not --db.
	sp := config.New(config.KindDrop)
	sp.Workload, sp.Confirm = "tproch", true
	if _, err := svc.Run(ctx, Request{Spec: sp}); err != nil && !strings.Contains(err.Error(), "cgo") &&
		!strings.HasSuffix(err.Error(), "build it first with `sledge build --workload tproch`") {
		t.Errorf("drop of the missing default DuckDB: %v", err)
	}
	if _, err := os.Stat(filepath.Join(svc.opts.DataDir, "tproch.duckdb")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the default DuckDB file was created: %v", err)
	}
}

func TestDriverMessagesSummary(t *testing.T) {
	parallel(t)
	var m driverMessages
	if s := m.summary(); s != "" {
		t.Errorf("no messages: %q", s)
	}
	for range 12 {
		m.add("connection closed by the server")
	}
	if s := m.summary(); s != "12 (connection closed by the server)" {
		t.Errorf("summary %q", s)
	}
	m.add("packets out of sequence")
	m.add("packets out of sequence")
	if s := m.summary(); s != "14 (12 connection closed by the server, 2 packets out of sequence)" {
		t.Errorf("summary %q", s)
	}
}

// A login that may not create the database gets what to run instead.
func TestCannotCreateSaysWhatToRun(t *testing.T) {
	parallel(t)
	why := errors.New("permission denied to create database")
	err := cannotCreate(db.Postgres, "tpcc", "bench", "bench", why)
	want := "database tpcc does not exist and user bench cannot create it (permission denied to create database): " +
		"as a superuser, run `CREATE DATABASE tpcc OWNER bench;`, then run the build again"
	if err.Error() != want {
		t.Errorf("PostgreSQL:\n got %s\nwant %s", err, want)
	}
	err = cannotCreate(db.Postgres, "Bench-DB", "", "", why)
	if !strings.Contains(err.Error(), "the target's login cannot") || !strings.Contains(err.Error(), "`CREATE DATABASE \"Bench-DB\";`") {
		t.Errorf("quoted, no owner: %s", err)
	}
	err = cannotCreate(db.MySQL, "tpcc", "bench", "bench", why)
	if !strings.Contains(err.Error(), "as an administrator, run `CREATE DATABASE tpcc; GRANT ALL ON tpcc.* TO 'bench';`") {
		t.Errorf("MariaDB: %s", err)
	}
}

// An embedded target needs no database created: EnsureDatabase leaves it.
func TestEnsureDatabaseEmbedded(t *testing.T) {
	parallel(t)
	path := filepath.Join(t.TempDir(), "x.db")
	if err := EnsureDatabase(context.Background(), db.Target{Kind: db.SQLite, DSN: path}, AdminLogin{}, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("EnsureDatabase created %s: %v", path, err)
	}
}

func TestMain(m *testing.M) { testdb.Main(m) }

// adminExec runs statements on the server of dbURL as its login.
func adminExec(t *testing.T, dbURL string, stmts ...string) {
	t.Helper()
	ctx := context.Background()
	tg, err := db.ParseTarget(dbURL)
	if err != nil {
		t.Fatal(err)
	}
	drv, err := drivers.For(tg.Kind)
	if err != nil {
		t.Fatal(err)
	}
	c, err := drv.Connect(ctx, tg, db.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	for _, s := range stmts {
		if _, err := c.Exec(ctx, s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
}

// A database a DBA created is used as it is, as HammerDB's build uses one:
// with HammerDB's superuser (buildschema) a missing owner is created and an
// empty database is given to it, so that the owner can build there (since
// PostgreSQL 15 only a database's owner may create tables in its public
// schema); a database that holds tables keeps its owner; the target's own
// login changes nothing.
func TestEnsureDatabaseAdoptsExisting(t *testing.T) {
	parallel(t)
	adminURL := testdb.PostgresAdminURL(t)
	au, err := url.Parse(adminURL)
	if err != nil {
		t.Fatal(err)
	}
	super := au.User.Username()
	target := func(user, dbname string) db.Target {
		u := *au
		u.User, u.Path = url.UserPassword(user, "pw"), "/"+dbname
		return db.Target{Kind: db.Postgres, DSN: u.String()}
	}
	cases := []struct {
		name  string
		setup []string // as the superuser, after the database and role are dropped
		admin AdminLogin
		log   string // what EnsureDatabase says
		owner string // the database's owner afterwards ("" the superuser)
	}{
		{"role missing", []string{"CREATE DATABASE ad_db"}, AdminLogin{User: super},
			"using the existing database ad_db (created role ad_user, made ad_user its owner)", "ad_user"},
		{"not the owner", []string{"CREATE ROLE ad_user LOGIN", "CREATE DATABASE ad_db"}, AdminLogin{User: super},
			"using the existing database ad_db (made ad_user its owner)", "ad_user"},
		{"owner already", []string{"CREATE ROLE ad_user LOGIN", "CREATE DATABASE ad_db OWNER ad_user"}, AdminLogin{User: super},
			"", "ad_user"},
		{"target's own login", []string{"CREATE ROLE ad_user LOGIN", "CREATE DATABASE ad_db"}, AdminLogin{},
			"", ""},
		{"an administrator who cannot log in", []string{"CREATE ROLE ad_user LOGIN", "CREATE DATABASE ad_db"},
			AdminLogin{User: "ad_nobody"}, "", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			reset := []string{"DROP DATABASE IF EXISTS ad_db WITH (FORCE)", "DROP ROLE IF EXISTS ad_user"}
			adminExec(t, adminURL, append(reset, c.setup...)...)
			t.Cleanup(func() { adminExec(t, adminURL, reset...) })
			var log []string
			err := EnsureDatabase(context.Background(), target("ad_user", "ad_db"), c.admin, func(f string, a ...any) {
				log = append(log, fmt.Sprintf(f, a...))
			})
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.Join(log, "\n"); got != c.log {
				t.Errorf("said %q, want %q", got, c.log)
			}
			owner := cmp.Or(c.owner, super)
			var dba string
			if err := queryOne(t, adminURL, "SELECT pg_get_userbyid(datdba) FROM pg_database WHERE datname = 'ad_db'", &dba); err != nil || dba != owner {
				t.Errorf("owned by %q (%v), want %q", dba, err, owner)
			}
			if c.owner != "" {
				// The owner builds there.
				adminExec(t, target("ad_user", "ad_db").DSN, "CREATE TABLE t (x int)")
			}
		})
	}
	// A database that holds tables is not given away.
	adminExec(t, adminURL, "DROP DATABASE IF EXISTS ad_full WITH (FORCE)", "CREATE DATABASE ad_full")
	t.Cleanup(func() {
		adminExec(t, adminURL, "DROP DATABASE IF EXISTS ad_full WITH (FORCE)", "DROP ROLE IF EXISTS ad_other")
	})
	full := target(super, "ad_full")
	adminExec(t, full.DSN, "CREATE TABLE keep (x int)")
	var log []string
	err = EnsureDatabase(context.Background(), target("ad_other", "ad_full"), AdminLogin{User: super}, func(f string, a ...any) {
		log = append(log, fmt.Sprintf(f, a...))
	})
	var dba string
	if qerr := queryOne(t, adminURL, "SELECT pg_get_userbyid(datdba) FROM pg_database WHERE datname = 'ad_full'", &dba); err != nil || qerr != nil ||
		dba != super || strings.Join(log, "\n") != "using the existing database ad_full (created role ad_other)" {
		t.Errorf("database with tables: %v, %v, owner %q, said %q", err, qerr, dba, log)
	}
}

// MariaDB/MySQL have no database owners: an existing database is used as it
// is, with either login.
func TestEnsureDatabaseExistingMariaDB(t *testing.T) {
	parallel(t)
	tg, err := db.ParseTarget(testdb.MariaDB(t))
	if err != nil {
		t.Fatal(err)
	}
	_, user, _, err := tg.Login()
	if err != nil {
		t.Fatal(err)
	}
	for _, admin := range []AdminLogin{{}, {User: user}} {
		var log []string
		if err := EnsureDatabase(context.Background(), tg, admin, func(f string, a ...any) {
			log = append(log, fmt.Sprintf(f, a...))
		}); err != nil || len(log) != 0 {
			t.Errorf("admin %+v: %v, said %q", admin, err, log)
		}
	}
}

// queryOne scans the one value query returns on dbURL.
func queryOne(t *testing.T, dbURL, query string, dest any) error {
	t.Helper()
	ctx := context.Background()
	tg, err := db.ParseTarget(dbURL)
	if err != nil {
		return err
	}
	drv, err := drivers.For(tg.Kind)
	if err != nil {
		return err
	}
	c, err := drv.Connect(ctx, tg, db.Options{})
	if err != nil {
		return err
	}
	defer c.Close(ctx)
	return c.QueryRow(ctx, query).Scan(dest)
}
