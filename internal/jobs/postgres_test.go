package jobs

import (
	"context"
	"database/sql"
	"fmt"
	"io/fs"
	"net"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sledge-bench/sledge/internal/testdb"
)

func TestDollarPlaceholders(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"SELECT 1", "SELECT 1"},
		{"a = ? AND b = ?", "a = $1 AND b = $2"},
		{"VALUES (?1, ?2) SET x = ?2, y = ?1", "VALUES ($1, $2) SET x = $2, y = $1"},
		{"?3 then ?", "$3 then $4"}, // SQLite: one more than the largest so far
		{"?10, ?", "$10, $11"},
		{`x = '?' AND y = ? AND "odd?" = ?`, `x = '?' AND y = $1 AND "odd?" = $2`},
		{"'it''s ?' || ?", "'it''s ?' || $1"},
		{"a = ? -- why?\n AND b = ?", "a = $1 -- why?\n AND b = $2"},
		{"x = 'unterminated ?", "x = 'unterminated ?"},
		{"a - b = ?", "a - b = $1"},
	}
	for _, tt := range tests {
		if got := dollarPlaceholders(tt.in); got != tt.want {
			t.Errorf("dollarPlaceholders(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	if got := sqliteDialect.rebind("a = ?1"); got != "a = ?1" {
		t.Errorf("SQLite query rebound to %q", got)
	}
}

// Every version has its scripts, PostgreSQL's from the baseline on, and no
// script lies unused.
func TestMigrationScripts(t *testing.T) {
	t.Parallel()
	used := map[string]bool{pgBaselineScript: true}
	for v, m := range migrations {
		if s, err := schemaScript(m.sqlite); err != nil || strings.TrimSpace(s) == "" {
			t.Errorf("version %d: SQLite script %q: %v", v+1, m.sqlite, err)
		}
		used[m.sqlite] = true
		switch {
		case v < pgBaseline && m.postgres != "":
			t.Errorf("version %d: PostgreSQL script %q, but %s makes versions up to %d", v+1, m.postgres, pgBaselineScript, pgBaseline)
		case v >= pgBaseline:
			if s, err := schemaScript(m.postgres); err != nil || strings.TrimSpace(s) == "" {
				t.Errorf("version %d: PostgreSQL script %q: %v (each version after %d needs one)", v+1, m.postgres, err, pgBaseline)
			}
			used[m.postgres] = true
		}
	}
	base, err := schemaScript(pgBaselineScript)
	if err != nil || !strings.Contains(base, fmt.Sprintf("INSERT INTO sledge_schema (version) VALUES (%d);", pgBaseline)) {
		t.Errorf("%s does not record version %d: %v", pgBaselineScript, pgBaseline, err)
	}
	files, err := fs.Glob(schemaFS, "*.sql")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if !used[f] {
			t.Errorf("%s is in no migration", f)
		}
	}
}

type column struct {
	name, class string // class: int, real, text or blob
	notNull     bool
}

// TestSchemasAgree: a new PostgreSQL repository has the tables and columns
// (names, order, storage class, NOT NULL, primary keys) of a new SQLite one.
func TestSchemasAgree(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	lite, _ := openTemp(t)
	pg := backends[1].open(t)

	sqliteTables := map[string][]column{}
	sqlitePK := map[string]string{}
	rows, err := lite.db.QueryContext(ctx, `SELECT m.name, p.name, p.type, p."notnull", p.pk
		FROM sqlite_master m JOIN pragma_table_info(m.name) p
		WHERE m.type = 'table' AND m.name NOT LIKE 'sqlite%' ORDER BY m.name, p.cid`)
	if err != nil {
		t.Fatal(err)
	}
	pkCols := map[string]map[int]string{}
	for rows.Next() {
		var (
			tbl, name, typ string
			notNull, pk    int
		)
		if err := rows.Scan(&tbl, &name, &typ, &notNull, &pk); err != nil {
			t.Fatal(err)
		}
		class := map[string]string{"INTEGER": "int", "REAL": "real", "TEXT": "text", "BLOB": "blob"}[typ]
		if class == "" {
			t.Errorf("SQLite %s.%s has type %q", tbl, name, typ)
		}
		sqliteTables[tbl] = append(sqliteTables[tbl], column{name, class, notNull == 1 || pk > 0})
		if pk > 0 {
			if pkCols[tbl] == nil {
				pkCols[tbl] = map[int]string{}
			}
			pkCols[tbl][pk] = name
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	rows.Close()
	for tbl, cols := range pkCols {
		var names []string
		for i := 1; i <= len(cols); i++ {
			names = append(names, cols[i])
		}
		sqlitePK[tbl] = strings.Join(names, ",")
	}

	pgTables := map[string][]column{}
	rows, err = pg.db.QueryContext(ctx, `SELECT table_name, column_name, data_type, is_nullable
		FROM information_schema.columns WHERE table_schema = current_schema() AND table_name <> 'sledge_schema'
		ORDER BY table_name, ordinal_position`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var tbl, name, typ, nullable string
		if err := rows.Scan(&tbl, &name, &typ, &nullable); err != nil {
			t.Fatal(err)
		}
		class := map[string]string{"bigint": "int", "boolean": "int", "double precision": "real", "text": "text", "bytea": "blob"}[typ]
		if class == "" {
			t.Errorf("PostgreSQL %s.%s has type %q", tbl, name, typ)
		}
		pgTables[tbl] = append(pgTables[tbl], column{name, class, nullable == "NO"})
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	rows.Close()
	pgPK := map[string]string{}
	rows, err = pg.db.QueryContext(ctx, `SELECT c.relname,
		string_agg(a.attname, ',' ORDER BY array_position(i.indkey::int2[], a.attnum))
		FROM pg_index i JOIN pg_class c ON c.oid = i.indrelid
		JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY (i.indkey)
		WHERE i.indisprimary AND c.relnamespace = current_schema()::regnamespace GROUP BY c.relname`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var tbl, cols string
		if err := rows.Scan(&tbl, &cols); err != nil {
			t.Fatal(err)
		}
		pgPK[tbl] = cols
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	rows.Close()

	if len(sqliteTables) != len(childTables)+1 {
		t.Errorf("SQLite has %d tables; childTables lists %d besides job", len(sqliteTables), len(childTables))
	}
	for tbl, want := range sqliteTables {
		got, ok := pgTables[tbl]
		if !ok {
			t.Errorf("PostgreSQL lacks table %s", tbl)
			continue
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("table %s:\nPostgreSQL %v\n    SQLite %v", tbl, got, want)
		}
		if pgPK[tbl] != sqlitePK[tbl] {
			t.Errorf("table %s: primary key (%s) in PostgreSQL, (%s) in SQLite", tbl, pgPK[tbl], sqlitePK[tbl])
		}
	}
	for tbl := range pgTables {
		if _, ok := sqliteTables[tbl]; !ok {
			t.Errorf("PostgreSQL has table %s, SQLite not", tbl)
		}
	}
}

// A new PostgreSQL repository records its version in sledge_schema, keeps
// its data across opens, refuses a newer schema and never shows its password.
func TestPostgresOpenVersioned(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	u, err := url.Parse(testdb.Postgres(t))
	if err != nil {
		t.Fatal(err)
	}
	u.User = url.UserPassword(u.User.Username(), "hunter2") // the sandbox trusts, so any password does
	loc := u.String()
	r, err := Open(ctx, loc)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(r.Path(), "hunter2") || !strings.Contains(r.Path(), ":xxxxx@") {
		t.Errorf("Path() = %q, want the URL with its password redacted", r.Path())
	}
	var rows, v int
	if err := r.db.QueryRowContext(ctx, "SELECT count(*), max(version) FROM sledge_schema").Scan(&rows, &v); err != nil ||
		rows != 1 || v != SchemaVersion {
		t.Fatalf("sledge_schema: %d rows, version %d, %v; want 1 row of version %d", rows, v, err, SchemaVersion)
	}
	id := mustCreate(t, r, Job{Kind: KindRun}, nil)
	r.Close()

	for name, open := range map[string]func(context.Context, string) (*Repo, error){"Open": Open, "OpenExisting": OpenExisting} {
		r, err := open(ctx, loc)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if _, err := r.Get(ctx, id); err != nil {
			t.Fatalf("%s: job lost on reopen: %v", name, err)
		}
		r.Close()
	}

	r, err = Open(ctx, loc)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.db.ExecContext(ctx, "UPDATE sledge_schema SET version = ?", SchemaVersion+1); err != nil {
		t.Fatal(err)
	}
	r.Close()
	for name, open := range map[string]func(context.Context, string) (*Repo, error){"Open": Open, "OpenExisting": OpenExisting} {
		_, err := open(ctx, loc)
		if err == nil || !strings.Contains(err.Error(), "newer") || !strings.Contains(err.Error(), "upgrade sledge") {
			t.Fatalf("%s of a newer schema: err = %v, want a 'newer … upgrade sledge' error", name, err)
		}
		if strings.Contains(err.Error(), "hunter2") {
			t.Errorf("%s: the error shows the password: %v", name, err)
		}
	}
}

// OpenExisting of a PostgreSQL database without Sledge's tables opens an
// empty repository, as Open does.
func TestPostgresOpenExistingEmptyDatabase(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	r, err := OpenExisting(ctx, testdb.Postgres(t))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if js, err := r.List(ctx, ListFilter{}); err != nil || len(js) != 0 {
		t.Fatalf("List = %v, %v; want no jobs", js, err)
	}
}

// Several processes opening a new database at once: one creates the schema,
// the others wait for it and use it; no error, one schema.
func TestPostgresConcurrentFirstOpen(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	loc := testdb.Postgres(t)
	const n = 8
	repos := make([]*Repo, n)
	errs := make([]error, n)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			<-start
			repos[i], errs[i] = Open(ctx, loc)
		})
	}
	close(start)
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("open %d: %v", i, err)
			continue
		}
		defer repos[i].Close()
	}
	if t.Failed() {
		return
	}
	var rows, v, tables int
	if err := repos[0].db.QueryRowContext(ctx, "SELECT count(*), max(version) FROM sledge_schema").Scan(&rows, &v); err != nil ||
		rows != 1 || v != SchemaVersion {
		t.Errorf("sledge_schema: %d rows, version %d, %v", rows, v, err)
	}
	if err := repos[0].db.QueryRowContext(ctx, `SELECT count(*) FROM information_schema.tables
		WHERE table_schema = current_schema()`).Scan(&tables); err != nil || tables != len(childTables)+2 {
		t.Errorf("%d tables (%v), want job, sledge_schema and %d others", tables, err, len(childTables))
	}
	// Every handle works.
	for i, r := range repos {
		if _, err := r.Create(ctx, Job{Kind: KindRun}, map[string]string{"opener": fmt.Sprint(i)}); err != nil {
			t.Errorf("create with handle %d: %v", i, err)
		}
	}
}

// Two repository handles (two processes, maybe on two machines) write the
// same job's console at once: every line is stored once, seqs run 1…N
// without gaps, and a batch's lines stay together in order.
func TestPostgresConcurrentOutputOfOneJob(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	loc := testdb.Postgres(t)
	a, b := backends[1].openAt(t, loc), backends[1].openAt(t, loc)
	id := mustCreate(t, a, Job{Kind: KindRun}, nil)
	const writers, batches, perBatch = 8, 25, 4
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		errs []error
		want = map[string]bool{}
	)
	for w := range writers {
		r := []*Repo{a, b}[w%2]
		wg.Go(func() {
			for n := range batches {
				var err error
				if n%5 == 4 { // single lines too
					line := fmt.Sprintf("w%d b%d l0", w, n)
					mu.Lock()
					want[line] = true
					mu.Unlock()
					err = r.AppendOutput(ctx, id, line)
				} else {
					lines := make([]OutputLine, perBatch)
					mu.Lock()
					for k := range lines {
						lines[k] = OutputLine{At: time.Now(), Line: fmt.Sprintf("w%d b%d l%d", w, n, k)}
						want[lines[k].Line] = true
					}
					mu.Unlock()
					err = r.AppendOutputLines(ctx, id, lines)
				}
				if err != nil {
					mu.Lock()
					errs = append(errs, err)
					mu.Unlock()
				}
			}
		})
	}
	wg.Wait()
	for _, err := range errs {
		t.Error(err)
	}
	out, err := b.Output(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if len(out) != len(want) {
		t.Errorf("%d lines stored, want %d", len(out), len(want))
	}
	seen := map[string]bool{}
	for i, l := range out {
		if l.Seq != i+1 {
			t.Fatalf("line %d has seq %d", i+1, l.Seq)
		}
		if seen[l.Line] || !want[l.Line] {
			t.Errorf("line %q stored twice or never written", l.Line)
		}
		seen[l.Line] = true
		// The line after "wW bN lK" of a batch is "wW bN lK+1".
		var w, n, k int
		if _, err := fmt.Sscanf(l.Line, "w%d b%d l%d", &w, &n, &k); err == nil && n%5 != 4 && k < perBatch-1 {
			if next := fmt.Sprintf("w%d b%d l%d", w, n, k+1); i+1 >= len(out) || out[i+1].Line != next {
				t.Errorf("batch split: %q is not followed by %q", l.Line, next)
			}
		}
	}
}

// A PostgreSQL repository that cannot be reached, or whose database does
// not exist, says so and what to fix, naming the URL without its password.
func TestPostgresUnreachable(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close() // nothing listens there now
	for _, loc := range []string{
		fmt.Sprintf("postgres://sledge:hunter2@127.0.0.1:%d/jobs?sslmode=disable", port),
		fmt.Sprintf("postgresql://sledge@127.0.0.1:%d/jobs?sslmode=disable&password=hunter2", port),
	} {
		_, err := Open(ctx, loc)
		if err == nil {
			t.Fatalf("Open(%s) succeeded", loc)
		}
		msg := err.Error()
		if strings.Contains(msg, "hunter2") {
			t.Errorf("the error shows the password: %s", msg)
		}
		if !strings.Contains(msg, fmt.Sprintf("127.0.0.1:%d/jobs", port)) || !strings.Contains(msg, "xxxxx") ||
			!strings.Contains(msg, "cannot connect") || !strings.Contains(msg, "check that the server is running") {
			t.Errorf("err = %s; want it to name the redacted URL and say what to check", msg)
		}
	}

	u, err := url.Parse(testdb.Postgres(t))
	if err != nil {
		t.Fatal(err)
	}
	u.Path = "/no_such_sledge_database"
	_, err = Open(ctx, u.String())
	if err == nil || !strings.Contains(err.Error(), "no_such_sledge_database") || !strings.Contains(err.Error(), "create the database first") {
		t.Errorf("Open of a missing database: %v; want advice to create it", err)
	}
	for _, loc := range []string{"postgres://[bad", "postgres://u:hunter2@[bad/db", "postgresql://u:hunter2@h:notaport/db"} {
		_, err := Open(ctx, loc)
		if err == nil || !strings.Contains(err.Error(), "open jobs repository") || strings.Contains(err.Error(), "hunter2") {
			t.Errorf("Open of a malformed URL: %v", err)
		}
	}
}

// The SQLite default is untouched by the PostgreSQL support: a relative or
// odd path is a file, never a URL.
func TestIsPostgresURL(t *testing.T) {
	t.Parallel()
	for loc, want := range map[string]bool{
		"postgres://u@h/db": true, "postgresql://h/db": true, "POSTGRES://h/db": true,
		"jobs.db": false, filepath.Join("postgres", "jobs.db"): false, "postgres:jobs.db": false, "": false,
	} {
		if got := IsPostgresURL(loc); got != want {
			t.Errorf("IsPostgresURL(%q) = %v, want %v", loc, got, want)
		}
	}
}

// A search_path in the URL puts the repository in a schema of its own, next
// to tables of the same names in another.
func TestPostgresSearchPath(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	loc := testdb.Postgres(t)
	plain := backends[1].openAt(t, loc) // Sledge's tables in public
	if _, err := plain.db.ExecContext(ctx, "CREATE SCHEMA team"); err != nil {
		t.Fatal(err)
	}
	team := backends[1].openAt(t, loc+"&search_path=team")
	mustCreate(t, team, Job{Kind: KindRun}, nil)
	var n int
	if err := plain.db.QueryRowContext(ctx, "SELECT count(*) FROM team.job").Scan(&n); err != nil || n != 1 {
		t.Fatalf("team.job has %d rows (%v), want 1", n, err)
	}
	if js, err := plain.List(ctx, ListFilter{}); err != nil || len(js) != 0 {
		t.Fatalf("public schema's jobs: %v, %v; want none", js, err)
	}
}

// TestPostgresVersionAfterWaitingForAnotherMigration: a session that found
// no schema, then waited on the migration lock while another session created
// it, reads the new version once it has the lock. Its catalog cache still
// says "no sledge_schema" (nothing has made it read the other's
// invalidations: a large migration script may, a small one does not), so a
// re-check through the cache would create the schema a second time —
// "relation sledge_schema already exists" when agents first open one
// repository together.
func TestPostgresVersionAfterWaitingForAnotherMigration(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, err := sql.Open("pgx", testdb.Postgres(t))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	creator, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer creator.Close()
	waiter, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer waiter.Close()
	if v, err := pgVersion(ctx, waiter); err != nil || v != 0 {
		t.Fatalf("version of an empty database: %d, %v; want 0", v, err)
	}
	if _, err := creator.ExecContext(ctx, "BEGIN"); err != nil {
		t.Fatal(err)
	}
	if _, err := creator.ExecContext(ctx, "SELECT pg_advisory_xact_lock($1)", int64(pgMigrationLock)); err != nil {
		t.Fatal(err)
	}
	type read struct {
		v   int
		err error
	}
	after := make(chan read, 1)
	go func() {
		tx, err := waiter.BeginTx(ctx, postgresDialect.writeTx)
		if err != nil {
			after <- read{err: err}
			return
		}
		defer tx.Rollback()
		if _, err := tx.ExecContext(ctx, "SELECT pg_advisory_xact_lock($1)", int64(pgMigrationLock)); err != nil {
			after <- read{err: err}
			return
		}
		v, err := pgVersion(ctx, tx)
		after <- read{v, err}
	}()
	for waiting := false; !waiting; {
		if err := creator.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM pg_locks
			WHERE locktype = 'advisory' AND NOT granted AND database = (SELECT oid FROM pg_database WHERE datname = current_database()))`).Scan(&waiting); err != nil {
			t.Fatal(err)
		}
		time.Sleep(5 * time.Millisecond)
	}
	if _, err := creator.ExecContext(ctx, "CREATE TABLE sledge_schema (version integer)"); err != nil {
		t.Fatal(err)
	}
	if _, err := creator.ExecContext(ctx, "INSERT INTO sledge_schema VALUES (7)"); err != nil {
		t.Fatal(err)
	}
	if _, err := creator.ExecContext(ctx, "COMMIT"); err != nil {
		t.Fatal(err)
	}
	if r := <-after; r.err != nil || r.v != 7 {
		t.Errorf("version read under the lock after another session created the schema: %d, %v; want 7", r.v, r.err)
	}
}

// TestPostgresEndsStoppedTransactions: the repository's sessions have the
// server end a transaction left idle by a stopped process (its locks would
// hold every other agent's writes), unless the URL sets it otherwise.
func TestPostgresEndsStoppedTransactions(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	loc := testdb.Postgres(t)
	for _, tc := range []struct{ url, want string }{
		{loc, pgIdleInTransaction},
		{loc + "&idle_in_transaction_session_timeout=1min", "1min"},
	} {
		r, err := Open(ctx, tc.url)
		if err != nil {
			t.Fatal(err)
		}
		var got string
		if err := r.db.QueryRowContext(ctx, "SHOW idle_in_transaction_session_timeout").Scan(&got); err != nil || got != tc.want {
			t.Errorf("idle_in_transaction_session_timeout %q (%v), want %q", got, err, tc.want)
		}
		r.Close()
	}
}
