package testdb

// Template databases: a schema that many tests load the same way (TPROC-C
// with one warehouse, say) is built once per test binary and key, and each
// test gets a fresh copy of it, which costs a fraction of a build.
//
//	url := testdb.PostgresFrom(t, "tprocc w1", func(ctx context.Context, url string) error {
//		return build(ctx, url) // fills the empty database at url
//	})
//
// The callback runs once per key (callers that come meanwhile wait for it);
// its error fails every test that asked for that key. It must leave no
// session open on the database it built. testdb knows nothing of workloads
// (their tests import testdb): see package tpcctest for TPROC-C's builder.

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/sledge-bench/sledge/internal/sandbox"
)

// BuildFunc fills the empty database at url (a testdb URL: postgres://…,
// mysql://… or sqlite:PATH). ctx ends with the test binary's deadline.
type BuildFunc func(ctx context.Context, url string) error

// template is one key's template, built once.
type template struct {
	once sync.Once
	name string // the database holding it (SQLite: its directory in tmplDir)
	err  error
}

// templates holds every kind's templates by kind and key; tmplDir is where
// SQLite templates live (removed by Main).
var (
	templatesMu sync.Mutex
	templates   = map[string]*template{}
	tmplDirOnce sync.Once
	tmplDir     string
	tmplDirErr  error
)

// templateFor returns the template of kind and key, building it on first
// use with make (under the template's once).
func templateFor(kind, key string, make func(name string) error) (*template, error) {
	templatesMu.Lock()
	tp, ok := templates[kind+"\x00"+key]
	if !ok {
		tp = &template{}
		templates[kind+"\x00"+key] = tp
	}
	templatesMu.Unlock()
	tp.once.Do(func() {
		prefix := "tmpl" + strconv.FormatInt(seq.Add(1), 10) + "_"
		tp.name = prefix + sanitize(key, 63-len(prefix)) // PostgreSQL's limit
		if tp.err = make(tp.name); tp.err != nil {
			tp.err = fmt.Errorf("template %q: %w", key, tp.err)
		}
	})
	return tp, tp.err
}

// buildContext is the context a template's build runs under: the test
// binary's deadline (-timeout), if it has one, else an hour.
func buildContext(t testing.TB) (context.Context, context.CancelFunc) {
	if d, ok := deadliner(t); ok {
		return context.WithDeadline(context.Background(), d)
	}
	return context.WithTimeout(context.Background(), time.Hour)
}

func deadliner(t testing.TB) (time.Time, bool) {
	if d, ok := t.(interface{ Deadline() (time.Time, bool) }); ok {
		return d.Deadline()
	}
	return time.Time{}, false
}

// PostgresFrom creates a new database for this test as a copy of the
// template build made (once per binary and key) and returns its URL. The
// database is dropped when the test ends.
func PostgresFrom(t testing.TB, key string, build BuildFunc) string {
	t.Helper()
	p := start(t)
	tp, err := templateFor("postgres", key, func(name string) error {
		ctx, cancel := buildContext(t)
		defer cancel()
		return makePostgresTemplate(ctx, p, name, build)
	})
	if err != nil {
		t.Fatalf("testdb: %v", err)
	}
	return ownDatabase(t, p, 2*time.Minute, func(ctx context.Context, name string) error {
		return clonePostgres(ctx, p, tp.name, name)
	})
}

// pgCopyStrategy is how CREATE DATABASE … TEMPLATE copies (PostgreSQL 15
// and later). FILE_COPY copies the files between two checkpoints, WAL_LOG
// (the default) writes every block to the WAL. On the sandbox (fsync off)
// a one-warehouse TPROC-C copy took 0.16 s with FILE_COPY and 0.22–0.31 s
// with WAL_LOG (measured with other tests running); FILE_COPY's
// checkpoints are the whole cluster's, though: they stall every test
// writing meanwhile, and they count in pg_stat_bgwriter where tests of the
// checkpoint counters look. WAL_LOG it is.
const pgCopyStrategy = "WAL_LOG"

// makePostgresTemplate creates database name, has build fill it, and makes
// it a template nobody may connect to (so that a copy never finds it in
// use).
func makePostgresTemplate(ctx context.Context, p *sandbox.Postgres, name string, build BuildFunc) error {
	if err := p.CreateDatabase(ctx, name); err != nil {
		return err
	}
	if err := build(ctx, p.URL(name)); err != nil {
		return fmt.Errorf("build: %w", err)
	}
	conn, err := pgx.Connect(ctx, p.URL("postgres"))
	if err != nil {
		return err
	}
	defer conn.Close(context.WithoutCancel(ctx))
	id := pgx.Identifier{name}.Sanitize()
	for _, q := range []string{
		"ALTER DATABASE " + id + " WITH IS_TEMPLATE true ALLOW_CONNECTIONS false",
		// Sessions the build left (a pool closing in the background).
		"SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '" + name + "' AND pid <> pg_backend_pid()",
	} {
		if _, err := conn.Exec(ctx, q); err != nil {
			return fmt.Errorf("%s: %w", q, err)
		}
	}
	return nil
}

// clonePostgres creates database name as a copy of template tmpl, retrying
// while a session that was being terminated still holds the template.
func clonePostgres(ctx context.Context, p *sandbox.Postgres, tmpl, name string) error {
	conn, err := pgx.Connect(ctx, p.URL("postgres"))
	if err != nil {
		return fmt.Errorf("copy %s to %s: %w", tmpl, name, err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	q := "CREATE DATABASE " + pgx.Identifier{name}.Sanitize() + " TEMPLATE " + pgx.Identifier{tmpl}.Sanitize()
	if major, _, _ := strings.Cut(conn.PgConn().ParameterStatus("server_version"), "."); atoi(major) >= 15 {
		q += " STRATEGY " + pgCopyStrategy
	}
	for wait := 50 * time.Millisecond; ; wait = min(2*wait, time.Second) {
		_, err = conn.Exec(ctx, q)
		var pgErr *pgconn.PgError
		if err == nil || !errors.As(err, &pgErr) || pgErr.Code != "55006" { // object_in_use
			break
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("copy %s to %s: %w (%w)", tmpl, name, err, ctx.Err())
		case <-time.After(wait):
		}
	}
	if err != nil {
		return fmt.Errorf("copy %s to %s: %w", tmpl, name, err)
	}
	return nil
}

// MariaDBFrom creates a new database for this test on the binary's MariaDB
// server as a copy of the template build made (once per binary and key),
// and returns its URL. MariaDB has no template databases: each table is
// created LIKE the template's and filled from it, and the stored routines
// are created anew from their definitions. The database is dropped when the
// test ends. A copy is no bargain here: one warehouse of TPROC-C took 2.1 s
// to copy and 3.6 s to build (quiet machine), so the suite's TPROC-C tests
// build on MariaDB.
func MariaDBFrom(t testing.TB, key string, build BuildFunc) string {
	t.Helper()
	m := startMariaDB(t)
	tp, err := templateFor("mariadb", key, func(name string) error {
		ctx, cancel := buildContext(t)
		defer cancel()
		if err := m.CreateDatabase(ctx, name); err != nil {
			return err
		}
		if err := build(ctx, m.URL(name)); err != nil {
			return fmt.Errorf("build: %w", err)
		}
		return nil
	})
	if err != nil {
		t.Fatalf("testdb: %v", err)
	}
	return ownDatabase(t, m, 5*time.Minute, func(ctx context.Context, name string) error {
		if err := m.CreateDatabase(ctx, name); err != nil {
			return err
		}
		return cloneMariaDB(ctx, m.URL(""), tp.name, name)
	})
}

// openMySQL opens a mysql://USER@HOST:PORT/DB URL (testdb's form) with
// database/sql.
func openMySQL(rawURL string) (*sql.DB, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, err
	}
	cfg := mysql.NewConfig()
	cfg.Net, cfg.Addr, cfg.DBName = "tcp", u.Host, strings.TrimPrefix(u.Path, "/")
	if u.User != nil {
		cfg.User = u.User.Username()
		cfg.Passwd, _ = u.User.Password()
	}
	cfg.MultiStatements = false
	return sql.Open("mysql", cfg.FormatDSN())
}

// cloneMariaDB copies database tmpl into the empty database name: tables
// (structure, then rows), views and stored routines.
func cloneMariaDB(ctx context.Context, serverURL, tmpl, name string) error {
	db, err := openMySQL(serverURL)
	if err != nil {
		return err
	}
	defer db.Close()
	// One session: the routines are created with the template's sql_mode,
	// in the new database (USE).
	conn, err := db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	qi := func(s string) string { return "`" + strings.ReplaceAll(s, "`", "``") + "`" }
	rows, err := conn.QueryContext(ctx, "SELECT TABLE_NAME, TABLE_TYPE FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? ORDER BY TABLE_NAME", tmpl)
	if err != nil {
		return err
	}
	var tables, views []string
	for rows.Next() {
		var tn, tt string
		if err := rows.Scan(&tn, &tt); err != nil {
			rows.Close()
			return err
		}
		if tt == "VIEW" {
			views = append(views, tn)
		} else {
			tables = append(tables, tn)
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	if len(views) > 0 {
		return fmt.Errorf("copy %s: views (%s) are not copied", tmpl, strings.Join(views, ", "))
	}
	for _, tn := range tables {
		for _, q := range []string{
			"CREATE TABLE " + qi(name) + "." + qi(tn) + " LIKE " + qi(tmpl) + "." + qi(tn),
			"INSERT INTO " + qi(name) + "." + qi(tn) + " SELECT * FROM " + qi(tmpl) + "." + qi(tn),
			// A build gathers statistics; a copy's would come later, in the
			// background: plans would differ from a built database's.
			"ANALYZE TABLE " + qi(name) + "." + qi(tn),
		} {
			if _, err := conn.ExecContext(ctx, q); err != nil {
				return fmt.Errorf("copy %s to %s: %s: %w", tmpl, name, q, err)
			}
		}
	}
	// Stored routines, as SHOW CREATE gives them, under their sql_mode.
	rows, err = conn.QueryContext(ctx, "SELECT ROUTINE_NAME, ROUTINE_TYPE FROM information_schema.ROUTINES WHERE ROUTINE_SCHEMA = ? ORDER BY ROUTINE_TYPE, ROUTINE_NAME", tmpl)
	if err != nil {
		return err
	}
	type routine struct{ name, kind string }
	var routines []routine
	for rows.Next() {
		var r routine
		if err := rows.Scan(&r.name, &r.kind); err != nil {
			rows.Close()
			return err
		}
		routines = append(routines, r)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	if len(routines) == 0 {
		return nil
	}
	if _, err := conn.ExecContext(ctx, "USE "+qi(name)); err != nil {
		return err
	}
	for _, r := range routines {
		// SHOW CREATE PROCEDURE|FUNCTION: name, sql_mode, the statement, …
		rs, err := conn.QueryContext(ctx, "SHOW CREATE "+r.kind+" "+qi(tmpl)+"."+qi(r.name))
		if err != nil {
			return err
		}
		cols, err := rs.Columns()
		if err != nil {
			rs.Close()
			return err
		}
		vals := make([]sql.NullString, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if !rs.Next() {
			rs.Close()
			return fmt.Errorf("SHOW CREATE %s %s: no row", r.kind, r.name)
		}
		if err := rs.Scan(ptrs...); err != nil {
			rs.Close()
			return err
		}
		rs.Close()
		if len(vals) < 3 || !vals[2].Valid {
			return fmt.Errorf("SHOW CREATE %s %s: no definition (privileges?)", r.kind, r.name)
		}
		if _, err := conn.ExecContext(ctx, "SET SESSION sql_mode = ?", vals[1].String); err != nil {
			return err
		}
		if _, err := conn.ExecContext(ctx, vals[2].String); err != nil {
			return fmt.Errorf("copy %s %s to %s: %w", r.kind, r.name, name, err)
		}
	}
	return nil
}

// SQLiteFrom returns the URL (sqlite:PATH) of a new SQLite file in a
// directory of this test's (t.TempDir) as a copy of the template build made
// (once per binary and key) in a file of its own. file names the copy
// ("" is tpcc.db).
func SQLiteFrom(t testing.TB, key, file string, build BuildFunc) string {
	t.Helper()
	if file == "" {
		file = "tpcc.db"
	}
	path := filepath.Join(t.TempDir(), file)
	CopySQLite(t, key, path, build)
	return "sqlite:" + path
}

// CopySQLite writes to path a copy of the SQLite template build made (once
// per binary and key): for a test that needs the file at a given place (a
// default embedded database, say).
func CopySQLite(t testing.TB, key, path string, build BuildFunc) {
	t.Helper()
	if !mainCalled.Load() {
		// Without Main nothing would remove the templates after the tests.
		t.Fatal("testdb: call testdb.Main(m) from the package's TestMain to use testdb.SQLiteFrom")
	}
	tmplDirOnce.Do(func() { tmplDir, tmplDirErr = os.MkdirTemp("", "sledge-testdb-sqlite-") })
	if tmplDirErr != nil {
		t.Fatalf("testdb: %v", tmplDirErr)
	}
	tp, err := templateFor("sqlite", key, func(name string) error {
		ctx, cancel := buildContext(t)
		defer cancel()
		dir := filepath.Join(tmplDir, name)
		if err := os.Mkdir(dir, 0o755); err != nil {
			return err
		}
		return build(ctx, "sqlite:"+filepath.Join(dir, "db"))
	})
	if err != nil {
		t.Fatalf("testdb: %v", err)
	}
	src := filepath.Join(tmplDir, tp.name, "db")
	// A closed database has no write-ahead log left, but should the build
	// have left one, it holds part of the data: copied with the file (the
	// shared-memory index is rebuilt from it).
	for _, suffix := range []string{"", "-wal"} {
		if err := copyFile(src+suffix, path+suffix); err != nil && !(suffix != "" && errors.Is(err, os.ErrNotExist)) {
			t.Fatalf("testdb: copy the SQLite template %q: %v", key, err)
		}
	}
}

func copyFile(from, to string) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		return err
	}
	out, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// removeTemplates removes the SQLite templates' directory (the servers'
// templates go with their servers).
func removeTemplates() error {
	if tmplDir == "" {
		return nil
	}
	return os.RemoveAll(tmplDir)
}

// sanitize lowercases s to [a-z0-9_], at most n bytes.
func sanitize(s string, n int) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		if b.Len() >= n {
			break
		}
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	return b.String()
}

func atoi(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}
