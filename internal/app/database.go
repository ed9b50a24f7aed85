package app

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/sledge-bench/sledge/internal/config"
	"github.com/sledge-bench/sledge/internal/db"
	"github.com/sledge-bench/sledge/internal/db/drivers"
)

// The target database around a job: a build creates a missing server
// database (EnsureDatabase); every other job opens an embedded file only if
// it exists (jobDriver); what the driver library logs about the job's
// sessions is counted, never printed raw (driverMessages).

// AdminLogin is who creates a missing database: a login on the target's
// server that is allowed to create databases.
type AdminLogin struct {
	// Database to connect to; "" is the server's default one, which every
	// login may connect to: postgres on PostgreSQL, information_schema on
	// MariaDB/MySQL.
	Database string
	// User and Password of the login; an empty User is the target's own
	// login (its user and password).
	User, Password string
}

// defaultDatabase is the database of a server every login may connect to.
func defaultDatabase(k db.Kind) string {
	if k == db.Postgres {
		return "postgres"
	}
	return "information_schema"
}

// missingDatabaser is implemented by the drivers of servers that tell a
// database that does not exist from other connection failures.
type missingDatabaser interface{ MissingDatabase(err error) bool }

// EnsureDatabase makes sure the database a server target names exists and
// can be built in, creating it through admin when it does not (on PostgreSQL
// owned by the target's user, created as a login role with the target's
// password if missing; see db.Admin) and saying so on logf ("created database
// NAME"). It is the build's first step in the job service, with the target's
// own login, and the HammerDB front end's (buildschema) with its superuser.
//
// A database that exists is used as it is: whether it already holds the
// workload's schema is the build's own check. Embedded targets are left
// alone (their build creates the file). With the target's own login
// (admin.User "") only a database the server says does not exist is
// created, and when that login cannot create it the error says what to run
// instead. An explicit administrator does what HammerDB's build does with a
// database a DBA created: it is also tried when the target cannot be reached
// for another reason (its owner may not exist yet), and on PostgreSQL it
// adopts an existing database for the target's user (db.Adopter: a missing
// owner is created, an empty database is given to it), saying so on logf.
func EnsureDatabase(ctx context.Context, t db.Target, admin AdminLogin, logf func(format string, args ...any)) error {
	drv, err := drivers.For(t.Kind)
	if err != nil {
		return err
	}
	return ensureDatabase(ctx, drv, t, admin, logf)
}

func ensureDatabase(ctx context.Context, drv db.Driver, t db.Target, admin AdminLogin, logf func(string, ...any)) error {
	creator, ok := drv.(db.Admin)
	if !ok {
		return nil
	}
	c, reachErr := drv.Connect(ctx, t, db.Options{AppName: "sledge build"})
	if reachErr == nil {
		c.Close(context.Background())
		if admin.User == "" {
			return nil // it exists and can be reached
		}
		// HammerDB's build prepares an existing database for its user
		// even when that user can log in to it; an administrator that
		// cannot log in changes nothing (the build says what it lacks),
		// but a preparation that failed is said: the build's own error
		// (say, no right to create tables) would not tell why.
		if err := adoptDatabase(ctx, drv, t, admin, logf); err != nil && !errors.Is(err, errAdminLogin) && logf != nil {
			logf("warning: %v", err)
		}
		return nil
	}
	if ctx.Err() != nil {
		return reachErr
	}
	md, _ := drv.(missingDatabaser)
	missing := md != nil && md.MissingDatabase(reachErr)
	if !missing && admin.User == "" {
		return reachErr // the target's own login cannot reach the server: the error says why
	}
	name, owner, password, err := t.Login()
	if err != nil {
		return err
	}
	adminDB := admin.Database
	if adminDB == "" {
		adminDB = defaultDatabase(t.Kind)
	}
	at, err := db.AdminTarget(t, adminDB, admin.User, admin.Password)
	if err != nil {
		return err
	}
	who := admin.User
	if who == "" {
		who = owner
	}
	ac, err := drv.Connect(ctx, at, db.Options{AppName: "sledge build"})
	if err != nil {
		if admin.User != "" {
			return fmt.Errorf("connect as an administrator (%s, database %s) to create database %s: %w", who, adminDB, name, err)
		}
		return cannotCreate(t.Kind, name, owner, who, fmt.Errorf("connect to database %s: %w", adminDB, err))
	}
	defer ac.Close(context.Background())
	created, err := creator.CreateDatabase(ctx, ac, name, owner, password)
	if err != nil {
		if admin.User != "" {
			return err
		}
		return cannotCreate(t.Kind, name, owner, who, err)
	}
	if created {
		if logf != nil {
			logf("created database %s", name)
		}
		return nil
	}
	// Not created: it exists (made meanwhile, or the target failed for
	// another reason, which the job's own connection reports). An explicit
	// administrator may make it usable: the target's owner may be missing.
	if admin.User != "" {
		return adoptDatabase(ctx, drv, t, admin, logf)
	}
	return nil
}

// adoptDatabase has admin, connected to t's database itself, make that
// database ready for t's user (see db.Adopter), and says what it did on
// logf: "using the existing database NAME (created role …, made … its
// owner)". Drivers without owners need nothing.
// errAdminLogin marks an administrator who could not log in to the database.
var errAdminLogin = errors.New("connect as an administrator")

func adoptDatabase(ctx context.Context, drv db.Driver, t db.Target, admin AdminLogin, logf func(string, ...any)) error {
	adopter, ok := drv.(db.Adopter)
	if !ok {
		return nil
	}
	name, owner, password, err := t.Login()
	if err != nil {
		return err
	}
	at, err := db.AdminTarget(t, name, admin.User, admin.Password)
	if err != nil {
		return err
	}
	ac, err := drv.Connect(ctx, at, db.Options{AppName: "sledge build"})
	if err != nil {
		return fmt.Errorf("%w (%s, database %s) to prepare it for %s: %w", errAdminLogin, admin.User, name, owner, err)
	}
	defer ac.Close(context.Background())
	did, err := adopter.AdoptDatabase(ctx, ac, owner, password)
	if len(did) > 0 && logf != nil {
		logf("using the existing database %s (%s)", name, strings.Join(did, ", "))
	}
	if err != nil {
		return fmt.Errorf("prepare database %s for %s: %w", name, owner, err)
	}
	return nil
}

// cannotCreate says that database name is missing, why the target's own
// login could not create it, and what to run instead.
func cannotCreate(k db.Kind, name, owner, who string, why error) error {
	login := "the target's login"
	if who != "" {
		login = "user " + who
	}
	var run string
	if k == db.Postgres {
		run = "as a superuser, run `CREATE DATABASE " + pgIdent(name)
		if owner != "" {
			run += " OWNER " + pgIdent(owner)
		}
		run += ";`"
	} else {
		run = "as an administrator, run `CREATE DATABASE " + myIdent(name) + ";"
		if owner != "" {
			run += " GRANT ALL ON " + myIdent(name) + ".* TO '" + strings.ReplaceAll(owner, "'", "''") + "';"
		}
		run += "`"
	}
	return fmt.Errorf("database %s does not exist and %s cannot create it (%v): %s, then run the build again", name, login, why, run)
}

var plainIdent = regexp.MustCompile(`^[a-z_][a-z0-9_]*$`)

// pgIdent quotes a PostgreSQL identifier where it needs it.
func pgIdent(s string) string {
	if plainIdent.MatchString(s) {
		return s
	}
	return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
}

// myIdent quotes a MariaDB/MySQL identifier where it needs it.
func myIdent(s string) string {
	if plainIdent.MatchString(s) {
		return s
	}
	return "`" + strings.ReplaceAll(s, "`", "``") + "`"
}

// jobDriver is the driver as a job's sessions see it: for every job but a
// build an embedded database must exist already (db.Options.MustExist), and
// what the driver library logs goes to the job's counter.
type jobDriver struct {
	db.Driver
	mustExist bool
	buildCmd  string // the command that builds the target, for a missing file
	log       func(string)
}

func (d *jobDriver) Connect(ctx context.Context, t db.Target, o db.Options) (db.Conn, error) {
	o.MustExist = o.MustExist || d.mustExist
	if o.DriverLog == nil {
		o.DriverLog = d.log
	}
	c, err := d.Driver.Connect(ctx, t, o)
	if err != nil && o.MustExist && errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%w: build it first with `%s`", err, d.buildCmd)
	}
	return c, err
}

// driver is the job's driver (see jobDriver).
func (e *execution) driver() db.Driver {
	build := "sledge build"
	if e.p.wl.Name() != config.DefaultWorkload {
		build += " --workload " + e.p.wl.Name()
	}
	if !e.p.embedded {
		build += " --db " + e.p.target.String()
	}
	return &jobDriver{Driver: e.p.driver, mustExist: e.p.spec.Kind != config.KindBuild,
		buildCmd: build, log: e.msgs.add}
}

// driverMessages counts what the driver library logged about a job's
// sessions, by cause.
type driverMessages struct {
	mu      sync.Mutex
	n       int
	byCause map[string]int
}

func (m *driverMessages) add(cause string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.byCause == nil {
		m.byCause = map[string]int{}
	}
	m.n++
	m.byCause[cause]++
}

// summary is "12 (connection closed by the server)", or "14 (12 connection
// closed by the server, 2 …)" with several causes, most frequent first; ""
// when there were none.
func (m *driverMessages) summary() string {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.n == 0 {
		return ""
	}
	causes := make([]string, 0, len(m.byCause))
	for c := range m.byCause {
		causes = append(causes, c)
	}
	sort.Slice(causes, func(i, j int) bool {
		if a, b := m.byCause[causes[i]], m.byCause[causes[j]]; a != b {
			return a > b
		}
		return causes[i] < causes[j]
	})
	if len(causes) == 1 {
		return fmt.Sprintf("%d (%s)", m.n, causes[0])
	}
	parts := make([]string, len(causes))
	for i, c := range causes {
		parts[i] = fmt.Sprintf("%d %s", m.byCause[c], c)
	}
	return fmt.Sprintf("%d (%s)", m.n, strings.Join(parts, ", "))
}

// reportDriverMessages adds the count of the driver's messages to the job's
// output, if there were any.
func (e *execution) reportDriverMessages() {
	if s := e.msgs.summary(); s != "" {
		e.out.Logf("driver messages: %s", s)
	}
}
