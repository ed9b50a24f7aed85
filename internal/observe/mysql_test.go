package observe

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	gomysql "github.com/go-sql-driver/mysql"

	"github.com/sledge-bench/sledge/internal/db"
	"github.com/sledge-bench/sledge/internal/db/mysql"
	"github.com/sledge-bench/sledge/internal/sandbox"
	"github.com/sledge-bench/sledge/internal/testdb"
)

func TestMySQLWaitClass(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		state   string
		rowLock bool
		class   string
		event   string
	}{
		{"", false, "CPU", ""},
		{"executing", false, "CPU", "executing"},
		{"Sending data", false, "CPU", "Sending data"},
		{"Optimizing", false, "CPU", "Optimizing"},
		{"Statistics", false, "CPU", "Statistics"},
		{"Updating", false, "CPU", "Updating"},
		{"Unlocking tables", false, "CPU", "Unlocking tables"},
		{"Updating", true, "Lock", "InnoDB row lock"},
		{"Waiting for table metadata lock", false, "Lock", "Waiting for table metadata lock"},
		{"Waiting for table level lock", false, "Lock", "Waiting for table level lock"},
		{"System lock", false, "Lock", "System lock"},
		{"waiting for handler commit", false, "Commit", "waiting for handler commit"},
		{"Waiting for prior transaction to commit", false, "Commit", "Waiting for prior transaction to commit"},
		{"Reading from net", false, "Client", "Reading from net"},
		{"Writing to net", false, "Client", "Writing to net"},
		{"Waiting for table flush", false, "IO", "Waiting for table flush"},
		{"Reading file", false, "IO", "Reading file"},
		{"Copying to tmp table on disk", false, "IO", "Copying to tmp table on disk"},
		{"converting HEAP to ondisk", false, "IO", "converting HEAP to ondisk"},
		{"User sleep", false, "Other", "User sleep"},
		{"Killed", false, "Other", "Killed"},
	} {
		class, event := mysqlWaitClass(c.state, c.rowLock)
		if class != c.class || event != c.event {
			t.Errorf("mysqlWaitClass(%q, %v) = %q, %q, want %q, %q", c.state, c.rowLock, class, event, c.class, c.event)
		}
	}
}

func TestShortenSQL(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		in   string
		n    int
		want string
	}{
		{"SELECT  1\n\tFROM t", 50, "SELECT 1 FROM t"},
		{"SELECT 12345", 8, "SELECT …"},
		{"", 8, ""},
		{"ÄÖÜ ÄÖÜ", 5, "ÄÖÜ …"},
	} {
		if got := shortenSQL(c.in, c.n); got != c.want {
			t.Errorf("shortenSQL(%q, %d) = %q, want %q", c.in, c.n, got, c.want)
		}
	}
}

func TestStatusCounters(t *testing.T) {
	t.Parallel()
	prev := map[string]float64{"Com_commit": 10, "Innodb_rows_read": 500, "Questions": 90}
	cur := map[string]float64{"Com_commit": 15, "Innodb_rows_read": 400, "Questions": 100, "Threads_running": 3, "Innodb_deadlocks": 1}
	got := statusCounters(prev, cur, true)
	want := []Counter{
		{Source: mysqlStatusSource, Name: "Questions", Kind: Delta, Value: 10},
		{Source: mysqlStatusSource, Name: "Com_commit", Kind: Delta, Value: 5},
		// Innodb_rows_read went backwards (FLUSH STATUS): absent.
		// Innodb_deadlocks has no baseline: absent.
		{Source: mysqlStatusSource, Name: "Threads_running", Kind: Gauge, Unit: "threads", Value: 3},
	}
	if !slices.Equal(got, want) {
		t.Errorf("statusCounters = %+v\nwant %+v", got, want)
	}
	// A new connection: gauges only.
	got = statusCounters(prev, cur, false)
	if len(got) != 1 || got[0].Name != "Threads_running" {
		t.Errorf("statusCounters without a baseline = %+v, want Threads_running only", got)
	}
}

func TestPSWaitCounters(t *testing.T) {
	t.Parallel()
	prev := map[string]psWait{"a": {1, 1e9}, "b": {5, 5e9}}
	cur := map[string]psWait{"a": {3, 4e9}, "b": {5, 5e9}, "c": {1, 9e9}}
	for i := range 30 {
		cur[fmt.Sprintf("z%02d", i)] = psWait{1, 1e6}
	}
	got := psWaitCounters(prev, cur)
	if len(got) != 2*mysqlPSWaitCap {
		t.Fatalf("%d counters, want %d (the cap, twice)", len(got), 2*mysqlPSWaitCap)
	}
	want := []Counter{
		{Source: mysqlPSWaitSource, Name: "c", Kind: Delta, Unit: "ms", Value: 9},
		{Source: mysqlPSWaitCountSource, Name: "c", Kind: Delta, Value: 1},
		{Source: mysqlPSWaitSource, Name: "a", Kind: Delta, Unit: "ms", Value: 3},
		{Source: mysqlPSWaitCountSource, Name: "a", Kind: Delta, Value: 2},
	}
	if !slices.Equal(got[:4], want) {
		t.Errorf("first counters = %+v\nwant %+v", got[:4], want)
	}
	for _, c := range got {
		if c.Name == "b" {
			t.Errorf("b did not change but is reported: %+v", c)
		}
	}
}

// startMySQL starts an observer of a fresh MariaDB database and returns it
// with a pool of test sessions on the same database.
func startMySQL(t *testing.T) (*mysqlObserver, Start, *sql.DB) {
	t.Helper()
	return startMySQLAt(t, testdb.MariaDB(t))
}

func startMySQLAt(t *testing.T, url string) (*mysqlObserver, Start, *sql.DB) {
	t.Helper()
	target, err := db.ParseTarget(url)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := mysql.Config(url)
	if err != nil {
		t.Fatal(err)
	}
	connector, err := gomysql.NewConnector(cfg)
	if err != nil {
		t.Fatal(err)
	}
	pool := sql.OpenDB(connector)
	t.Cleanup(func() { pool.Close() })
	o := NewMySQL(target, Options{}).(*mysqlObserver)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	st, err := o.Start(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { o.Close() }) // Close may be called twice
	return o, st, pool
}

func exec(t *testing.T, pool *sql.DB, qs ...string) {
	t.Helper()
	for _, q := range qs {
		if _, err := pool.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
}

// serverObjects lists what the observer must never create or change:
// schemas, tables, events, users and global variables.
func serverObjects(t *testing.T, pool *sql.DB) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	for name, q := range map[string]string{
		"schemas":   "SHOW DATABASES",
		"tables":    "SELECT CONCAT(TABLE_SCHEMA, '.', TABLE_NAME) FROM information_schema.TABLES ORDER BY 1",
		"events":    "SELECT CONCAT(EVENT_SCHEMA, '.', EVENT_NAME) FROM information_schema.EVENTS ORDER BY 1",
		"users":     "SELECT CONCAT(User, '@', Host) FROM mysql.user ORDER BY 1",
		"variables": "SELECT CONCAT(VARIABLE_NAME, '=', VARIABLE_VALUE) FROM information_schema.GLOBAL_VARIABLES ORDER BY 1",
	} {
		rows, err := pool.Query(q)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		for rows.Next() {
			var s string
			if err := rows.Scan(&s); err != nil {
				t.Fatal(err)
			}
			out[name] = append(out[name], s)
		}
		if err := rows.Close(); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// The observer leaves the server as it found it, and its Start holds the
// version, uptime and the settings that matter.
func TestMySQLReadOnly(t *testing.T) {
	// Not parallel: it compares the whole server's schemas and users
	// before and after, which other tests create and drop.
	o, st, pool := startMySQL(t)
	before := serverObjects(t, pool)
	var name string
	var uptime time.Duration
	if err := pool.QueryRow("SHOW GLOBAL STATUS LIKE 'Uptime'").Scan(&name, &uptime); err != nil {
		t.Fatal(err)
	}
	uptime *= time.Second
	if !strings.HasPrefix(st.Server, "MariaDB ") || st.Uptime > uptime || st.Uptime < uptime-10*time.Second {
		t.Errorf("Start = %q, uptime %v; want MariaDB and its uptime (%v a moment later)", st.Server, st.Uptime, uptime)
	}
	for _, want := range []Setting{
		// The test server's, set on its command line.
		{Name: "innodb_buffer_pool_size", Value: "134217728", Source: "command line"},
		{Name: "max_connections", Value: "500", Source: "command line"},
		{Name: "innodb_flush_log_at_trx_commit", Value: "0", Source: "command line"},
		{Name: "innodb_io_capacity", Value: "200", Source: "default"},
	} {
		if !slices.Contains(st.Settings, want) {
			t.Errorf("settings %+v: want %+v", st.Settings, want)
		}
	}
	if !slices.ContainsFunc(st.Notes, func(n string) bool { return strings.Contains(n, "performance_schema is OFF") }) {
		t.Errorf("notes %q do not say that performance_schema is off", st.Notes)
	}
	time.Sleep(500 * time.Millisecond)
	first := o.Cut(500 * time.Millisecond)
	time.Sleep(300 * time.Millisecond)
	second := o.Cut(800 * time.Millisecond)
	cost := o.Close()
	for _, s := range []Snapshot{first, second} {
		if s.Gap != "" || s.Samples == 0 || len(s.Counters) == 0 {
			t.Errorf("snapshot %+v: want samples and counters, no gap", s)
		}
	}
	if second.Length != 300*time.Millisecond {
		t.Errorf("second interval length %v, want 300ms", second.Length)
	}
	if cost.Samples < first.Samples+second.Samples || cost.Queries <= cost.Samples || cost.QueryTime <= 0 {
		t.Errorf("cost %+v after %d+%d samples", cost, first.Samples, second.Samples)
	}
	after := serverObjects(t, pool)
	for name, b := range before {
		if !slices.Equal(b, after[name]) {
			t.Errorf("the server's %s changed:\nbefore %q\nafter  %q", name, b, after[name])
		}
	}
}

func counter(s Snapshot, source, name string) (float64, bool) {
	for _, c := range s.Counters {
		if c.Source == source && c.Name == name {
			return c.Value, true
		}
	}
	return 0, false
}

// Transactions run between two cuts show in the second cut's deltas.
func TestMySQLCounters(t *testing.T) {
	t.Parallel()
	o, _, pool := startMySQL(t)
	exec(t, pool, "CREATE TABLE t (id INT PRIMARY KEY, v INT) ENGINE=InnoDB")
	o.Cut(time.Second)
	const n = 25
	for i := range n {
		tx, err := pool.Begin()
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tx.Exec("INSERT INTO t VALUES (?, ?)", i, i); err != nil {
			t.Fatal(err)
		}
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
	}
	s := o.Cut(2 * time.Second)
	if s.Gap != "" {
		t.Errorf("gap %q", s.Gap)
	}
	for _, name := range []string{"Com_commit", "Com_insert", "Handler_write"} {
		if v, ok := counter(s, mysqlStatusSource, name); !ok || v < n {
			t.Errorf("%s = %v (present %v), want ≥ %d", name, v, ok, n)
		}
	}
	// MariaDB 10.11 has no Innodb_rows_inserted; where it is, it counts.
	if v, ok := counter(s, mysqlStatusSource, "Innodb_rows_inserted"); ok && v < n {
		t.Errorf("Innodb_rows_inserted = %v, want ≥ %d", v, n)
	}
	if v, ok := counter(s, mysqlStatusSource, "Threads_connected"); !ok || v < 2 {
		t.Errorf("Threads_connected = %v (present %v), want ≥ 2 (the observer and the test)", v, ok)
	}
}

// A session blocked on a lock for the whole interval is one average active
// session in the Lock class, whether the lock is a table's (a state naming
// it) or an InnoDB row's (found in information_schema.INNODB_TRX).
func TestMySQLLockWait(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name  string
		lock  lockKind
		event string
	}{
		{"table", tableLock, "Waiting for table metadata lock"},
		{"row", rowLock, "InnoDB row lock"},
	} {
		t.Run(c.name, func(t *testing.T) {
			o, _, pool := startMySQL(t)
			s := blockOn(t, o, pool, c.lock)
			if len(s.Waits) == 0 || s.Waits[0].Class != "Lock" || s.Waits[0].Event != c.event {
				t.Errorf("waits %+v: want Lock %q first", s.Waits, c.event)
			}
			if len(s.Statements) == 0 || !strings.Contains(s.Statements[0].Text, c.lock.blocked) {
				t.Errorf("statements %+v: want the blocked %q first", s.Statements, c.lock.blocked)
			}
		})
	}
}

// lockKind is how a test session holds a lock and another waits for it.
type lockKind struct{ hold, blocked, release string }

var (
	tableLock = lockKind{"LOCK TABLES t WRITE", "SELECT COUNT(*) FROM t", "UNLOCK TABLES"}
	rowLock   = lockKind{"SELECT * FROM t WHERE id = 1 FOR UPDATE", "UPDATE t SET v = v + 1 WHERE id = 1", "COMMIT"}
)

// blockOn blocks a session on a lock for the whole of an interval, checks
// that the interval shows one Lock session on average and returns it.
func blockOn(t *testing.T, o *mysqlObserver, pool *sql.DB, lock lockKind) Snapshot {
	t.Helper()
	exec(t, pool, "CREATE TABLE t (id INT PRIMARY KEY, v INT) ENGINE=InnoDB", "INSERT INTO t VALUES (1, 0)")
	ctx := context.Background()
	holder, err := pool.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Close()
	for _, q := range []string{"BEGIN", lock.hold} {
		if _, err := holder.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	blocked := make(chan error, 1)
	go func() {
		_, err := pool.ExecContext(ctx, lock.blocked)
		blocked <- err
	}()
	// The interval begins once the statement runs (and so waits): on a
	// busy machine its session may take a while to send it.
	waitUntil(t, "the blocked statement to run", func() bool {
		var n int
		err := pool.QueryRowContext(ctx, "SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE INFO = ?", lock.blocked).Scan(&n)
		return err == nil && n == 1
	})
	// And once the observer has seen it wait for the lock: running, the
	// statement may take a while to reach the lock on a busy machine (a
	// row lock's UPDATE shows as "Updating" until it does). Short
	// intervals are cut until one has a Lock sample.
	elapsed := time.Duration(0)
	waitUntil(t, "the observer to see the lock wait", func() bool {
		elapsed += 100 * time.Millisecond
		for _, w := range o.Cut(elapsed).Waits {
			if w.Class == "Lock" {
				return true
			}
		}
		return false
	})
	time.Sleep(2 * time.Second) // the interval measured
	s := o.Cut(elapsed + 2*time.Second)
	if _, err := holder.ExecContext(ctx, lock.release); err != nil {
		t.Fatal(err)
	}
	if err := <-blocked; err != nil {
		t.Fatalf("the blocked statement: %v", err)
	}
	var lockAAS float64
	for _, w := range s.Waits {
		if w.Class == "Lock" {
			lockAAS += w.AAS
		}
	}
	if lockAAS < 0.8 || lockAAS > 1.1 || s.Samples < 10 {
		t.Errorf("Lock AAS %.2f over %d samples, want ≈ 1 (waits %+v)", lockAAS, s.Samples, s.Waits)
	}
	return s
}

// The sessions' samples are also counted by the kind of session their
// statement's leading comment names, a statement without one as unnamed.
func TestMySQLSessionKinds(t *testing.T) {
	t.Parallel()
	o, _, pool := startMySQL(t)
	sessionKinds(t, o, pool)
}

// sessionKinds runs a named and an unnamed statement over a whole interval
// and checks that the interval counts one active session of each kind.
func sessionKinds(t *testing.T, o *mysqlObserver, pool *sql.DB) {
	t.Helper()
	// They sleep until killed once the interval is cut: however slow the
	// machine, each is active through the whole interval.
	const named = "/* sledge test kind */ SELECT SLEEP(600)"
	const unnamed = "SELECT SLEEP(600) AS unnamed"
	done := make(chan error, 2)
	for _, q := range []string{named, unnamed} {
		go func() {
			_, err := pool.Exec(q)
			done <- err
		}()
	}
	waitUntil(t, "both statements to run", func() bool {
		var n int
		err := pool.QueryRow("SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE INFO IN (?, ?)", named, unnamed).Scan(&n)
		return err == nil && n == 2
	})
	o.Cut(time.Second)
	time.Sleep(time.Second) // the interval measured
	s := o.Cut(2 * time.Second)
	rows, err := pool.Query("SELECT ID FROM information_schema.PROCESSLIST WHERE INFO IN (?, ?)", named, unnamed)
	if err != nil {
		t.Fatal(err)
	}
	var ids []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	if err := rows.Close(); err != nil || len(ids) != 2 {
		t.Fatalf("the sleeping statements' sessions %v (%v): want 2", ids, err)
	}
	for _, id := range ids {
		exec(t, pool, fmt.Sprintf("KILL QUERY %d", id))
	}
	for range 2 {
		<-done // a killed SLEEP ends early, with or without an error by server
	}
	aas := map[string]float64{}
	for _, c := range s.Counters {
		if kind, class, ok := SessionKind(c); ok {
			aas[kind] += c.Value
			if class == "" || c.Unit != "sessions" {
				t.Errorf("session-kind counter %+v: want a wait class and unit sessions", c)
			}
		}
	}
	// Each statement sleeps through the interval (other tests' sessions
	// are in other databases).
	for _, kind := range []string{"sledge test kind", UnnamedKind} {
		if aas[kind] < 0.8 || aas[kind] > 1.1 {
			t.Errorf("kind %q: %.2f AAS, want ≈ 1 (session kinds %v over %d samples)", kind, aas[kind], aas, s.Samples)
		}
	}
}

// Killing the observer's session leaves a gap in that interval, without
// deltas across it; the observer reconnects, samples again and counts from
// a new baseline.
func TestMySQLReconnect(t *testing.T) {
	t.Parallel()
	o, _, pool := startMySQL(t)
	id := o.session().id
	exec(t, pool, fmt.Sprintf("KILL CONNECTION %d", id))
	waitUntil(t, "the observer's new session", func() bool { s := o.session(); return s != nil && s.id != id })
	gap := o.Cut(time.Second)
	time.Sleep(500 * time.Millisecond)
	after := o.Cut(1500 * time.Millisecond)
	cost := o.Close()
	if gap.Gap == "" {
		t.Errorf("no gap in the interval of the kill: %+v", gap)
	}
	if _, ok := counter(gap, mysqlStatusSource, "Questions"); ok {
		t.Errorf("a delta across the reconnect: %+v", gap.Counters)
	}
	if _, ok := counter(after, mysqlStatusSource, "Questions"); !ok || after.Gap != "" || after.Samples == 0 {
		t.Errorf("the interval after the reconnect: gap %q, %d samples, counters %+v; want samples, deltas and no gap",
			after.Gap, after.Samples, after.Counters)
	}
	if cost.Reconnects < 1 {
		t.Errorf("cost %+v: want Reconnects ≥ 1", cost)
	}
	t.Logf("gap: %s", gap.Gap)
}

// With performance_schema ON (on a server of the test's own, as the shared
// test server runs without it) sessions are sampled from its threads with
// statement digests, and its wait summaries are counted.
func TestMySQLPerformanceSchema(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a MariaDB server")
	}
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if _, err := sandbox.EnsureMariaDB(ctx, testdb.MariaDBBin(), t.Logf); err != nil {
		t.Skipf("no MariaDB: %v", err)
	}
	dir, err := os.MkdirTemp("", "sledge-observe-mariadb-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	// Reachable by the mysql user the server runs as when tests run as root.
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	m, err := sandbox.StartMariaDB(ctx, dir, sandbox.Options{Settings: map[string]string{
		"innodb-buffer-pool-size": "64M",
		"performance-schema":      "ON",
		// Off by default on MariaDB; Start says so (see the notes below).
		"performance-schema-consumer-events-statements-current": "ON",
	}})
	if err != nil {
		t.Fatal(err)
	}
	// Should the test binary die, the watchdog stops the server.
	stopNow, err := m.StopOnExit(false)
	if err != nil {
		m.Stop(context.Background())
		t.Fatal(err)
	}
	t.Cleanup(func() {
		m.Stop(context.Background())
		stopNow()
	})
	o, st, pool := startMySQLAt(t, m.URL(sandbox.Database))
	for _, n := range st.Notes {
		if strings.Contains(n, "performance_schema") {
			t.Errorf("note %q with performance_schema ON and readable", n)
		}
	}
	if !o.feat.perfSchema {
		t.Fatal("performance_schema not used")
	}
	exec(t, pool, "CREATE TABLE w (id INT PRIMARY KEY) ENGINE=InnoDB")
	o.Cut(time.Second)
	for i := range 50 {
		exec(t, pool, fmt.Sprintf("INSERT INTO w VALUES (%d)", i))
	}
	s := o.Cut(2 * time.Second)
	var waits int
	for _, c := range s.Counters {
		if c.Source == mysqlPSWaitSource {
			waits++
			if c.Value <= 0 || c.Unit != "ms" {
				t.Errorf("wait counter %+v: want a positive time in ms", c)
			}
		}
	}
	if waits == 0 || waits > mysqlPSWaitCap {
		t.Errorf("%d performance_schema wait counters, want 1..%d: %+v", waits, mysqlPSWaitCap, s.Counters)
	}
	// The session states come from performance_schema.threads here. A
	// statement still running has no digest on MariaDB (it is computed at
	// its end), so it is told by its text.
	locked := blockOn(t, o, pool, tableLock)
	if len(locked.Statements) == 0 || !strings.Contains(locked.Statements[0].Text, tableLock.blocked) {
		t.Errorf("statements %+v: want the blocked SELECT first", locked.Statements)
	}

	// The kinds of session are told by the statements' text as sent
	// (PROCESSLIST_INFO), not by their digests' (which drop comments).
	sessionKinds(t, o, pool)

	// The server goes away: the cut says so without waiting long, and
	// Close does not wait for the reconnecting sampler.
	if err := m.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond)
	began := time.Now()
	gone := o.Cut(5 * time.Second)
	if d := time.Since(began); d > mysqlTimeout+500*time.Millisecond || gone.Gap == "" {
		t.Errorf("Cut without a server took %v, gap %q; want a gap within %v", d, gone.Gap, mysqlTimeout)
	}
	began = time.Now()
	cost := o.Close()
	if d := time.Since(began); d > mysqlTimeout+500*time.Millisecond {
		t.Errorf("Close without a server took %v", d)
	}
	t.Logf("gap: %s; cost %+v", gone.Gap, cost)
}

// A login without PROCESS is told what it misses and how to grant it, and
// is still sampled (its own sessions, without InnoDB's row lock waits).
func TestMySQLWithoutPrivileges(t *testing.T) {
	t.Parallel()
	url := testdb.MariaDB(t)
	admin, err := mysql.Config(url)
	if err != nil {
		t.Fatal(err)
	}
	connector, err := gomysql.NewConnector(admin)
	if err != nil {
		t.Fatal(err)
	}
	root := sql.OpenDB(connector)
	t.Cleanup(func() { root.Close() }) // after the user's drop below
	user := "obs_" + strings.ToLower(admin.DBName)
	if len(user) > 32 {
		user = user[:32]
	}
	exec(t, root,
		fmt.Sprintf("CREATE USER '%s'@'%%' IDENTIFIED BY 'pw'", user),
		fmt.Sprintf("GRANT SELECT, INSERT, CREATE ON `%s`.* TO '%s'@'%%'", admin.DBName, user))
	t.Cleanup(func() { exec(t, root, fmt.Sprintf("DROP USER '%s'@'%%'", user)) })

	o, st, pool := startMySQLAt(t, strings.Replace(url, "://root@", "://"+user+":pw@", 1))
	want := fmt.Sprintf("GRANT PROCESS ON *.* TO '%s'@'%%'", user)
	if !slices.ContainsFunc(st.Notes, func(n string) bool { return strings.Contains(n, want) }) {
		t.Errorf("notes %q: want one saying %q", st.Notes, want)
	}
	if o.feat.rowLocks {
		t.Error("InnoDB row locks readable without PROCESS")
	}
	exec(t, pool, "CREATE TABLE t (id INT PRIMARY KEY) ENGINE=InnoDB")
	o.Cut(time.Second)
	go pool.Exec("SELECT SLEEP(1)") // a session of the same user: seen
	time.Sleep(time.Second)
	s := o.Cut(2 * time.Second)
	if s.Gap != "" || s.Samples == 0 || len(s.Counters) == 0 {
		t.Errorf("snapshot %+v: want samples and counters, no gap", s)
	}
	if !slices.ContainsFunc(s.Waits, func(w Wait) bool { return w.Event == "User sleep" }) {
		t.Errorf("waits %+v: want the user's own sleeping session", s.Waits)
	}
}

func TestStatementKind(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ sql, want string }{
		{"/* sledge chbench analytic */ SELECT 1", "sledge chbench analytic"},
		{"  \n/*  a   b */SELECT 1", "a b"},
		{"SELECT /* not leading */ 1", ""},
		{"/*+ MAX_EXECUTION_TIME(10) */ SELECT 1", ""},
		{"/*!40101 SET NAMES utf8 */", ""},
		{"/*M!100000 SELECT 1 */", ""},
		{"/* unclosed SELECT 1", ""},
		{"/**/ SELECT 1", ""},
		{"/* " + strings.Repeat("x", maxKindLen+1) + " */ SELECT 1", ""},
		{"", ""},
	} {
		if got := statementKind(c.sql); got != c.want {
			t.Errorf("statementKind(%q) = %q, want %q", c.sql, got, c.want)
		}
	}
}

func TestSessionKind(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		c           Counter
		kind, class string
		ok          bool
	}{
		{Counter{Source: "pg_stat_activity application sledge chbench analytic", Name: "aas IO", Kind: Gauge}, "sledge chbench analytic", "IO", true},
		{Counter{Source: "processlist application (unnamed)", Name: "aas CPU", Kind: Gauge}, UnnamedKind, "CPU", true},
		{Counter{Source: "processlist application x", Name: "other", Kind: Gauge}, "", "", false},
		{Counter{Source: "global_status", Name: "Questions", Kind: Delta}, "", "", false},
	} {
		kind, class, ok := SessionKind(c.c)
		if kind != c.kind || class != c.class || ok != c.ok {
			t.Errorf("SessionKind(%+v) = %q, %q, %v; want %q, %q, %v", c.c, kind, class, ok, c.kind, c.class, c.ok)
		}
	}
	// A tally full of kinds counts no new pair but keeps counting its own.
	tally := kindTally{}
	for i := range maxKindKeys + 5 {
		tally.add(strconv.Itoa(i), "CPU")
	}
	tally.add("0", "CPU")
	if len(tally) != maxKindKeys || tally[[2]string{"0", "CPU"}] != 2 {
		t.Errorf("tally of %d pairs, kind 0 counted %d times", len(tally), tally[[2]string{"0", "CPU"}])
	}
}
