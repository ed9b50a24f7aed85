package script

import (
	"context"
	"fmt"
	"io"
	"runtime/debug"
	"strings"
	"time"

	"github.com/sledge-bench/sledge/internal/app"
	"github.com/sledge-bench/sledge/internal/db"
	"github.com/sledge-bench/sledge/internal/db/drivers"
)

// librarycheck reports, for every database the session has configured (the
// one chosen with dbset db, and any other with pg_*, maria_* or mysql_*
// settings), the driver compiled into Sledge and whether the server answers,
// with its version. When the benchmark's database does not exist yet (before
// buildschema) it reaches the server through the default database instead,
// and says so. It fails if any configured server cannot be reached.
func librarycheck(ctx context.Context, w io.Writer, st *State) error {
	failures := 0
	for _, name := range []string{"pg", "maria", "mysql"} {
		one := *st
		one.DB = name
		h, err := newHammer(&one, Env{})
		if err != nil {
			return failed(w, err, nil)
		}
		if !h.configured(st.DB) {
			continue
		}
		t, err := db.ParseTarget(h.url())
		if err != nil {
			return failed(w, err, nil)
		}
		fmt.Fprintf(w, "Checking database library for %s\n", h.product)
		drv, err := drivers.For(t.Kind)
		if err != nil {
			fmt.Fprintf(w, "Error: %v\n", err)
			failures++
			continue
		}
		fmt.Fprintf(w, "Success ... %s driver built in (%s)\n", h.product, driverModule(t.Kind))
		version, via, err := reachServer(ctx, drv, h, t)
		if err != nil {
			fmt.Fprintf(w, "Error: cannot reach the %s server: %v\n", h.product, err)
			failures++
			continue
		}
		fmt.Fprintf(w, "Success ... connected to %s at %s%s\n", version, t, via)
	}
	if failures > 0 {
		return ExitError{Code: 1}
	}
	return nil
}

// configured says whether the session chose this database or set any of
// its keys.
func (h *hammer) configured(selected string) bool {
	if strings.EqualFold(selected, strings.TrimSuffix(h.prefix, "_")) || (selected == "" && h.prefix == "pg_") {
		return true
	}
	for _, kv := range h.st.Dicts {
		for k := range kv {
			if strings.HasPrefix(k, h.prefix) {
				return true
			}
		}
	}
	return false
}

// superuser is the PostgreSQL administrator HammerDB's settings name:
// pg_superuser and pg_superuserpass (pg_tpch_superuser… for TPROC-H).
func (h *hammer) superuser() (user, password string) {
	su := "superuser"
	if h.tpch() {
		su = "tpch_superuser"
	}
	return h.get(su, "postgres"), h.get(su+"pass", "postgres")
}

// defaultDatabase is the database the superuser logs in to (pg_defaultdbase,
// pg_tpch_defaultdbase for TPROC-H).
func (h *hammer) defaultDatabase() string {
	if h.tpch() {
		return h.get("tpch_defaultdbase", "postgres")
	}
	return h.get("defaultdbase", "postgres")
}

// adminLogin is a way into the server other than the benchmark's database.
type adminLogin struct {
	target   db.Target
	database string
	user     string
}

// adminLogins are the ways into t's server when its database cannot be
// reached (it may not exist yet): PostgreSQL's default database
// (pg_defaultdbase) as the same user, then as the superuser; MariaDB and
// MySQL's information_schema as the same user.
func (h *hammer) adminLogins(t db.Target) []adminLogin {
	_, user, _, err := t.Login()
	if err != nil {
		return nil
	}
	var out []adminLogin
	add := func(database, asUser, password string) {
		at, err := db.AdminTarget(t, database, asUser, password)
		if err != nil {
			return
		}
		if asUser == "" {
			asUser = user
		}
		out = append(out, adminLogin{target: at, database: database, user: asUser})
	}
	if h.prefix == "pg_" {
		dflt := h.defaultDatabase()
		su, pass := h.superuser()
		add(dflt, "", "")
		add(dflt, su, pass)
	} else {
		add("information_schema", "", "")
	}
	return out
}

// reachServer connects to the benchmark's database or, failing that, to the
// server through adminLogins, and returns the server version and, for a
// fallback, which way it got in.
func reachServer(ctx context.Context, drv db.Driver, h *hammer, t db.Target) (version, via string, err error) {
	try := func(t db.Target) (string, error) {
		ctx, cancel := context.WithTimeout(ctx, 15*time.Second)
		defer cancel()
		c, err := drv.Connect(ctx, t, db.Options{})
		if err != nil {
			return "", err
		}
		defer c.Close(context.Background())
		return drv.Version(ctx, c)
	}
	version, firstErr := try(t)
	if firstErr == nil {
		return version, "", nil
	}
	for _, a := range h.adminLogins(t) {
		if version, err := try(a.target); err == nil {
			return version, fmt.Sprintf(" (through database %s as %s; the benchmark's database is not reachable yet: %v)",
				a.database, a.user, firstErr), nil
		}
	}
	return "", "", firstErr
}

// driverModule names the Go module of a database's built-in driver, with
// the version compiled in.
func driverModule(k db.Kind) string {
	mod := map[db.Kind]string{db.Postgres: "github.com/jackc/pgx/v5", db.MySQL: "github.com/go-sql-driver/mysql"}[k]
	if mod == "" {
		return string(k)
	}
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, d := range bi.Deps {
			if d.Path == mod {
				return mod + " " + d.Version
			}
		}
	}
	return mod
}

// ensureDatabase creates the target database (and, on PostgreSQL, its owner
// with the benchmark's password) as HammerDB's build does, through the job
// service's app.EnsureDatabase with HammerDB's administrator: PostgreSQL's
// default database (pg_defaultdbase) as the superuser (pg_superuser,
// pg_superuserpass); on MariaDB/MySQL the benchmark's user. A database that
// can be reached already is left alone.
func ensureDatabase(ctx context.Context, w io.Writer, h *hammer) error {
	t, err := db.ParseTarget(h.url())
	if err != nil {
		return err
	}
	var admin app.AdminLogin
	if h.prefix == "pg_" {
		su, supass := h.superuser() // read first: these settings are used, whether needed or not
		admin = app.AdminLogin{Database: h.defaultDatabase(), User: su, Password: supass}
	}
	return app.EnsureDatabase(ctx, t, admin, func(format string, args ...any) {
		fmt.Fprintf(w, format+"\n", args...)
	})
}
