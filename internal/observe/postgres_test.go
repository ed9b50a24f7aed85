package observe

import (
	"context"
	"errors"
	"maps"
	"math"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/sledge-bench/sledge/internal/db"
	"github.com/sledge-bench/sledge/internal/sandbox"
	"github.com/sledge-bench/sledge/internal/testdb"
)

func pgConnect(t *testing.T, dsn string) *pgx.Conn {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(func() { c.Close(context.Background()) })
	return c
}

func pgExec(t *testing.T, c *pgx.Conn, sqls ...string) {
	t.Helper()
	for _, s := range sqls {
		if _, err := c.Exec(context.Background(), s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
}

// pgStartObserver starts a PostgreSQL observer on dsn; it is closed when the
// test ends.
func pgStartObserver(t *testing.T, dsn string, opts Options) (*pgObserver, Start) {
	t.Helper()
	o := NewPostgres(db.Target{Kind: db.Postgres, DSN: dsn}, opts).(*pgObserver)
	st, err := o.Start(t.Context())
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(func() { o.Close() })
	return o, st
}

// pgCutter cuts an observer with a run's elapsed time.
type pgCutter struct {
	o     Observer
	start time.Time
}

func (c *pgCutter) cut() Snapshot { return c.o.Cut(time.Since(c.start)) }

func pgWaitAAS(s Snapshot, class, event string) float64 {
	for _, w := range s.Waits {
		if w.Class == class && w.Event == event {
			return w.AAS
		}
	}
	return 0
}

func pgCounter(s Snapshot, source, name string) (Counter, bool) {
	for _, c := range s.Counters {
		if c.Source == source && c.Name == name {
			return c, true
		}
	}
	return Counter{}, false
}

func pgVersionNum(t *testing.T, c *pgx.Conn) int {
	t.Helper()
	var v string
	if err := c.QueryRow(context.Background(), "SHOW server_version_num").Scan(&v); err != nil {
		t.Fatal(err)
	}
	n, _ := strconv.Atoi(v)
	return n
}

// pgPoll waits until cond holds (waitUntil).
func pgPoll(t *testing.T, what string, cond func() bool) {
	t.Helper()
	waitUntil(t, what, cond)
}

// waitUntil waits until cond holds: for as long as the test may run, but
// at most a minute (a busy machine is slow, not that slow).
func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	if d, ok := t.Deadline(); ok && d.Before(deadline) {
		deadline = d.Add(-5 * time.Second)
	}
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// pgLockCuts is what the observer saw around a lock held while two sessions
// waited for it.
type pgLockCuts struct {
	before, after Snapshot
	during        []Snapshot
	release       Snapshot // the interval in which the lock was released and the waiters ran
	sampleSQL     string   // what the waiters ran
}

// pgLockScenario makes a table t, holds ACCESS EXCLUSIVE on it for about 3 s
// while two other sessions block on SELECT … FROM t, and cuts the observer
// 1 s before, twice 1 s during and 1 s after. Transitions get intervals of
// their own (not returned), so that the intervals returned are wholly
// before, during or after.
func pgLockScenario(t *testing.T, dsn string, o Observer) pgLockCuts {
	t.Helper()
	ctx := t.Context()
	admin := pgConnect(t, dsn)
	pgExec(t, admin, "CREATE TABLE t (x int)", "INSERT INTO t VALUES (1)")
	c := &pgCutter{o: o, start: time.Now()}
	var r pgLockCuts
	r.sampleSQL = "SELECT count(*) FROM t"

	c.cut() // Start to now
	time.Sleep(time.Second)
	r.before = c.cut()

	holder := pgConnect(t, dsn)
	tx, err := holder.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(ctx, "LOCK TABLE t IN ACCESS EXCLUSIVE MODE"); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 2)
	for range 2 {
		w := pgConnect(t, dsn)
		go func() {
			_, err := w.Exec(ctx, r.sampleSQL)
			done <- err
		}()
	}
	pgPoll(t, "two sessions waiting for the lock", func() bool {
		var n int
		err := admin.QueryRow(ctx, "SELECT count(*) FROM pg_locks WHERE NOT granted AND relation = 't'::regclass").Scan(&n)
		return err == nil && n == 2
	})
	c.cut() // transition
	for range 2 {
		time.Sleep(time.Second)
		r.during = append(r.during, c.cut())
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if err := <-done; err != nil {
			t.Fatalf("waiter: %v", err)
		}
	}
	time.Sleep(100 * time.Millisecond) // the waiters' last samples
	r.release = c.cut()
	time.Sleep(time.Second)
	r.after = c.cut()
	return r
}

func TestPostgresLockWaits(t *testing.T) {
	t.Parallel()
	dsn := testdb.Postgres(t)
	o, _ := pgStartObserver(t, dsn, Options{Rate: 10})
	r := pgLockScenario(t, dsn, o)
	for name, s := range map[string]Snapshot{"before": r.before, "after": r.after} {
		if s.Samples < 5 {
			t.Errorf("%s: %d samples in 1 s at 10 a second", name, s.Samples)
		}
		for _, w := range s.Waits {
			if w.Class == "Lock" {
				t.Errorf("%s the lock: waits %+v", name, s.Waits)
			}
		}
		if s.Gap != "" {
			t.Errorf("%s: gap %q", name, s.Gap)
		}
	}
	for i, s := range r.during {
		if s.Samples < 5 {
			t.Errorf("during %d: %d samples in 1 s at 10 a second", i, s.Samples)
		}
		if aas := pgWaitAAS(s, "Lock", "relation"); math.Abs(aas-2) > 0.5 {
			t.Errorf("during %d: Lock/relation AAS %.2f, want 2 ± 0.5 (waits %+v)", i, aas, s.Waits)
		}
		if s.Length < 900*time.Millisecond || s.Length > 2*time.Second {
			t.Errorf("during %d: length %v for a cut 1 s after the previous", i, s.Length)
		}
		if g, ok := pgCounter(s, "pg_stat_activity", "active_sessions"); !ok || math.Abs(g.Value-2) > 0.5 || g.Kind != Gauge {
			t.Errorf("during %d: active_sessions %+v (%v), want a gauge about 2", i, g, ok)
		}
		found := false
		for _, st := range s.Statements {
			if st.Text == r.sampleSQL && math.Abs(st.AAS-2) <= 0.5 {
				found = true
			}
		}
		if !found {
			t.Errorf("during %d: statements %+v lack %q at AAS 2", i, s.Statements, r.sampleSQL)
		}
		if s.Gap != "" {
			t.Errorf("during %d: gap %q", i, s.Gap)
		}
	}
}

func TestPostgresCheckpointCounted(t *testing.T) {
	t.Parallel()
	dsn := testdb.Postgres(t)
	admin := pgConnect(t, dsn)
	source, name := "pg_stat_bgwriter", "checkpoints_req"
	if pgVersionNum(t, admin) >= 170000 {
		source, name = "pg_stat_checkpointer", "num_requested"
	}
	o, _ := pgStartObserver(t, dsn, Options{})
	c := &pgCutter{o: o, start: time.Now()}
	first := c.cut()
	if _, ok := pgCounter(first, source, name); !ok {
		t.Fatalf("first interval has no %s.%s: %+v", source, name, first.Counters)
	}
	view := func() float64 {
		var n float64
		if err := admin.QueryRow(t.Context(), "SELECT "+name+"::float8 FROM "+source).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	n := view()
	pgExec(t, admin, "CHECKPOINT")
	// The checkpointer wakes the backend that asked for the checkpoint
	// before it publishes its statistics.
	pgPoll(t, "the checkpoint in "+source, func() bool { return view() > n })
	s := c.cut()
	got, ok := pgCounter(s, source, name)
	if !ok || got.Value < 1 || got.Kind != Delta {
		t.Errorf("after CHECKPOINT: %s.%s = %+v (%v), want a delta ≥ 1; gap %q", source, name, got, ok, s.Gap)
	}
}

func TestPostgresDatabaseCounters(t *testing.T) {
	t.Parallel()
	dsn := testdb.Postgres(t)
	o, _ := pgStartObserver(t, dsn, Options{})
	c := &pgCutter{o: o, start: time.Now()}
	c.cut()

	const n = 50
	w := pgConnect(t, dsn)
	for range n {
		pgExec(t, w, "BEGIN", "SELECT 1", "COMMIT")
	}
	if pgVersionNum(t, w) >= 150000 {
		// A session publishes its statistics at most once a second, or
		// when asked to.
		pgExec(t, w, "SELECT pg_stat_force_next_flush()")
	} else {
		w.Close(t.Context()) // a session's end publishes them
		time.Sleep(time.Second)
	}
	s := c.cut()
	commits, ok := pgCounter(s, "pg_stat_database", "xact_commit")
	if !ok || commits.Value < n || commits.Kind != Delta {
		t.Errorf("xact_commit %+v (%v), want a delta ≥ %d; gap %q", commits, ok, n, s.Gap)
	}
	for _, name := range []string{"xact_rollback", "blks_hit", "blks_read", "tup_returned", "tup_inserted", "temp_bytes", "deadlocks", "blk_read_time"} {
		if _, ok := pgCounter(s, "pg_stat_database", name); !ok {
			t.Errorf("no pg_stat_database.%s", name)
		}
	}
	if own, ok := pgCounter(s, pgAppName, "xact_commit"); !ok || own.Value < 1 {
		t.Errorf("the observer's own commits: %+v (%v)", own, ok)
	}
	if wal, ok := pgCounter(s, "pg_stat_wal", "wal_records"); !ok {
		t.Errorf("no pg_stat_wal.wal_records: %+v", s.Counters)
	} else if wal.Unit != "" || wal.Kind != Delta {
		t.Errorf("wal_records %+v", wal)
	}
	if b, ok := pgCounter(s, "pg_stat_wal", "wal_bytes"); !ok || b.Unit != "bytes" {
		t.Errorf("wal_bytes %+v (%v)", b, ok)
	}
}

func TestPostgresSettings(t *testing.T) {
	t.Parallel()
	dsn := testdb.Postgres(t)
	o, st := pgStartObserver(t, dsn, Options{})
	// The observer's session cannot write, whatever its role may.
	o.sem <- struct{}{}
	_, err := o.conn.Exec(t.Context(), "CREATE TABLE observer_wrote (x int)")
	<-o.sem
	if pgErr := (*pgconn.PgError)(nil); !errors.As(err, &pgErr) || pgErr.Code != "25006" {
		t.Errorf("the observer's session wrote: %v", err)
	}
	if !strings.HasPrefix(st.Server, "PostgreSQL 1") || st.Uptime <= 0 {
		t.Errorf("server %q, uptime %v", st.Server, st.Uptime)
	}
	got := map[string]Setting{}
	for _, s := range st.Settings {
		got[s.Name] = s
	}
	// The sandbox's own settings (internal/sandbox) and testdb's.
	if s := got["fsync"]; s.Value != "off" || s.Source != "configuration file" {
		t.Errorf("fsync: %+v", s)
	}
	if s := got["shared_buffers"]; s.Value != "128MB" {
		t.Errorf("shared_buffers: %+v, want 128MB with its unit", s)
	}
	if s := got["listen_addresses"]; s.Value != "127.0.0.1" {
		t.Errorf("listen_addresses: %+v", s)
	}
	for _, name := range []string{"application_name", "client_encoding", "DateStyle", "TimeZone", "search_path",
		"lc_messages", "transaction_isolation", "default_transaction_read_only", "statement_timeout"} {
		if s, ok := got[name]; ok {
			t.Errorf("session setting %+v reported", s)
		}
	}
	for _, s := range st.Settings {
		if s.Source == "default" || s.Source == "" {
			t.Errorf("%+v: at its default", s)
		}
	}
}

func TestPostgresReconnects(t *testing.T) {
	t.Parallel()
	dsn := testdb.Postgres(t)
	admin := pgConnect(t, dsn)
	o, _ := pgStartObserver(t, dsn, Options{Rate: 20})
	c := &pgCutter{o: o, start: time.Now()}
	time.Sleep(300 * time.Millisecond)
	if s := c.cut(); s.Gap != "" || s.Samples == 0 {
		t.Fatalf("before: %d samples, gap %q", s.Samples, s.Gap)
	}
	observer := func() int {
		var pid int
		err := admin.QueryRow(t.Context(), "SELECT pid FROM pg_stat_activity WHERE application_name = $1 AND datname = current_database()", pgAppName).Scan(&pid)
		if err != nil && !errors.Is(err, pgx.ErrNoRows) {
			t.Fatal(err)
		}
		return pid
	}
	pid := observer()
	if pid == 0 {
		t.Fatal("the observer's session is not in pg_stat_activity")
	}
	var ok bool
	if err := admin.QueryRow(t.Context(), "SELECT pg_terminate_backend($1)", pid).Scan(&ok); err != nil || !ok {
		t.Fatalf("pg_terminate_backend: %v, %v", ok, err)
	}
	pgPoll(t, "the observer's new session", func() bool { p := observer(); return p != 0 && p != pid })
	s := c.cut()
	if !strings.Contains(s.Gap, "PostgreSQL went away") {
		t.Errorf("the interval of the termination has gap %q", s.Gap)
	}
	time.Sleep(500 * time.Millisecond)
	s = c.cut() // may still hold the reconnection
	time.Sleep(500 * time.Millisecond)
	s = c.cut()
	if s.Samples == 0 || s.Gap != "" {
		t.Errorf("after reconnecting: %d samples, gap %q", s.Samples, s.Gap)
	}
	if _, ok := pgCounter(s, "pg_stat_database", "xact_commit"); !ok {
		t.Errorf("after reconnecting: no statistics: %+v", s.Counters)
	}
	cost := o.Close()
	if cost.Reconnects < 1 || cost.Samples == 0 || cost.Queries < cost.Samples || cost.QueryTime <= 0 {
		t.Errorf("cost %+v", cost)
	}
	if cost.ServerShare <= 0 || cost.ServerShare > 1 {
		t.Errorf("server share %v, want within (0, 1]", cost.ServerShare)
	}
}

func TestPostgresWithoutMonitorRole(t *testing.T) {
	t.Parallel()
	dsn := testdb.Postgres(t)
	admin := pgConnect(t, dsn)
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	role := strings.TrimPrefix(u.Path, "/") + "_r"
	pgExec(t, admin, "CREATE ROLE "+pgx.Identifier{role}.Sanitize()+" LOGIN")
	t.Cleanup(func() {
		c, err := pgx.Connect(context.Background(), dsn)
		if err != nil {
			t.Log(err)
			return
		}
		defer c.Close(context.Background())
		if _, err := c.Exec(context.Background(), "DROP ROLE "+pgx.Identifier{role}.Sanitize()); err != nil {
			t.Log(err)
		}
	})
	u.User = url.User(role)
	o, st := pgStartObserver(t, u.String(), Options{})
	found := false
	for _, n := range st.Notes {
		if strings.Contains(n, "without pg_monitor only this role's sessions are seen") && strings.Contains(n, "GRANT pg_monitor TO") {
			found = true
		}
	}
	if !found {
		t.Errorf("no pg_monitor note in %q", st.Notes)
	}
	time.Sleep(300 * time.Millisecond)
	s := o.Cut(300 * time.Millisecond)
	if s.Samples == 0 || s.Gap != "" {
		t.Errorf("a role without pg_monitor: %d samples, gap %q", s.Samples, s.Gap)
	}
	if len(st.Settings) == 0 {
		t.Error("a role without pg_monitor sees no settings")
	}

	// A superuser gets no such note.
	_, st = pgStartObserver(t, dsn, Options{})
	for _, n := range st.Notes {
		if strings.Contains(n, "pg_monitor") {
			t.Errorf("superuser: note %q", n)
		}
	}
}

func TestPostgresStartFails(t *testing.T) {
	t.Parallel()
	o := NewPostgres(db.Target{Kind: db.Postgres, DSN: "postgres://nobody:secret@127.0.0.1:1/x?sslmode=disable"}, Options{})
	_, err := o.Start(t.Context())
	if err == nil {
		t.Fatal("Start succeeded without a server")
	}
	if strings.Contains(err.Error(), "secret") {
		t.Errorf("the error shows the password: %v", err)
	}
	o.Close() // harmless
}

func TestPostgresDeltas(t *testing.T) {
	t.Parallel()
	one := pgStatsQuery{source: "v"}
	keyed := pgStatsQuery{source: "k", keyed: true}
	read := func(reset string, rows map[string][]float64, cols ...string) *pgReading {
		r := &pgReading{cols: cols, vals: rows, resets: map[string]string{}}
		for k := range rows {
			r.keys = append(r.keys, k)
			r.resets[k] = reset
		}
		return r
	}
	p := read("t0", map[string][]float64{"": {10, 5}}, "a", "b")
	d, ok := pgDeltas(one, p, read("t0", map[string][]float64{"": {12, 5}}, "a", "b"))
	if !ok || len(d) != 2 || d[0].Value != 2 || d[1].Value != 0 || d[0].Name != "a" {
		t.Errorf("one row: %+v %v", d, ok)
	}
	if _, ok := pgDeltas(one, p, read("t1", map[string][]float64{"": {12, 5}}, "a", "b")); ok {
		t.Error("a changed stats_reset is not a reset")
	}
	if _, ok := pgDeltas(one, p, read("t0", map[string][]float64{"": {9, 5}}, "a", "b")); ok {
		t.Error("a counter going backwards is not a reset")
	}
	kp := read("", map[string][]float64{"Lock:relation": {100}}, "samples")
	d, ok = pgDeltas(keyed, kp, read("", map[string][]float64{"Lock:relation": {100}, "IO:DataFileRead": {7}}, "samples"))
	if !ok || len(d) != 1 || d[0].Name != "IO:DataFileRead" || d[0].Value != 7 || d[0].Unit != "samples" {
		t.Errorf("keyed: %+v %v", d, ok)
	}
	if _, ok := pgDeltas(keyed, kp, read("", map[string][]float64{"IO:DataFileRead": {7}}, "samples")); ok {
		t.Error("a vanished row is not a reset")
	}
	kp = read("", map[string][]float64{"client backend": {1, 2}}, "reads", "writes")
	d, ok = pgDeltas(keyed, kp, read("", map[string][]float64{"client backend": {1, 5}}, "reads", "writes"))
	if !ok || len(d) != 1 || d[0].Name != "client backend.writes" || d[0].Value != 3 {
		t.Errorf("keyed, two columns: %+v %v", d, ok)
	}
}

func TestPostgresShorten(t *testing.T) {
	t.Parallel()
	if got := pgShorten("SELECT *\n\t  FROM t\n WHERE x = 1 "); got != "SELECT * FROM t WHERE x = 1" {
		t.Errorf("pgShorten: %q", got)
	}
	long := pgShorten(strings.Repeat("é", 500))
	if n := len([]rune(long)); n != pgTextLen || !strings.HasSuffix(long, "…") {
		t.Errorf("pgShorten of 500 runes: %d runes", n)
	}
}

// TestPostgresWaitSampling compares the sampler with pg_wait_sampling's own
// profile, on a private server that preloads it (and pg_stat_statements):
// the shared test server does not, and its settings are not this test's to
// change. The extension is installed with apt-get when it is missing and
// the tests may install packages; else the test is skipped (fails under
// $CI).
func TestPostgresWaitSampling(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a PostgreSQL server of its own")
	}
	t.Parallel()
	bin, err := sandbox.FindBinaries(testdb.PGBin())
	if err != nil {
		t.Skipf("no PostgreSQL: %v", err)
	}
	major := filepath.Base(filepath.Dir(bin))
	lib := filepath.Join(filepath.Dir(bin), "lib", "pg_wait_sampling.so")
	// CI installs what it needs: there, a missing extension is a failure.
	unavailable := t.Skipf
	if os.Getenv("CI") != "" {
		unavailable = t.Fatalf
	}
	if _, err := os.Stat(lib); err != nil {
		if !sandbox.CanAptInstall() {
			unavailable("pg_wait_sampling is not installed (%s) and this process cannot install it", lib)
		}
		ctx, cancel := context.WithTimeout(t.Context(), 10*time.Minute)
		defer cancel()
		if err := sandbox.AptInstall(ctx, "postgresql-"+major+"-pg-wait-sampling"); err != nil {
			unavailable("pg_wait_sampling could not be installed: %v", err)
		}
		if _, err := os.Stat(lib); err != nil {
			unavailable("pg_wait_sampling installed, but %v", err)
		}
	}
	p, _ := pgPrivateServer(t, bin, map[string]string{
		"shared_preload_libraries": "pg_wait_sampling,pg_stat_statements",
	})
	dsn := p.URL(sandbox.Database)
	admin := pgConnect(t, dsn)
	pgExec(t, admin, "CREATE EXTENSION pg_wait_sampling", "CREATE EXTENSION pg_stat_statements")
	var period float64
	if err := admin.QueryRow(t.Context(), "SELECT current_setting('pg_wait_sampling.profile_period')::float8").Scan(&period); err != nil {
		t.Fatal(err)
	}

	o, st := pgStartObserver(t, dsn, Options{Rate: 10})
	for _, want := range []string{"pg_wait_sampling is used", "pg_stat_statements is used"} {
		if !strings.Contains(strings.Join(st.Notes, "\n"), want) {
			t.Errorf("notes %q lack %q", st.Notes, want)
		}
	}
	r := pgLockScenario(t, dsn, o)
	for i, s := range r.during {
		sampled := pgWaitAAS(s, "Lock", "relation")
		c, ok := pgCounter(s, "pg_wait_sampling", "Lock:relation")
		if !ok || c.Unit != "samples" || c.Kind != Delta {
			t.Errorf("during %d: pg_wait_sampling Lock:relation %+v (%v); counters %+v", i, c, ok, s.Counters)
			continue
		}
		if g, ok := pgCounter(s, "pg_wait_sampling", "profile_period"); !ok || g.Value != period {
			t.Errorf("during %d: profile_period %+v, want %g", i, g, period)
		}
		profile := c.Value * period / float64(s.Length.Milliseconds())
		t.Logf("during %d: Lock:relation AAS %.2f sampled, %.2f from pg_wait_sampling (%g samples in %v)", i, sampled, profile, c.Value, s.Length)
		// pg_wait_sampling's collector is a background worker: on a busy
		// machine it is scheduled late and takes fewer samples than its
		// period asks (1.28 of 2 with two copies of the suite running),
		// never more.
		if math.Abs(sampled-2) > 0.5 || profile < 1 || profile > 2.5 {
			t.Errorf("during %d: Lock:relation AAS %.2f sampled, %.2f from pg_wait_sampling: want 2 ± 0.5, and 1 to 2.5", i, sampled, profile)
		}
	}
	if c, ok := pgCounter(r.after, "pg_wait_sampling", "Lock:relation"); ok {
		t.Errorf("after the lock: pg_wait_sampling counted %+v", c)
	}

	// A statement waiting for a relation's lock waits in parse analysis,
	// before it has an id: pg_stat_statements' merge is seen on one that
	// waits in execution. It counts the statement when it ends.
	c := &pgCutter{o: o, start: time.Now()}
	c.cut()
	const sleep = "SELECT pg_sleep(1.5)"
	pgExec(t, pgConnect(t, dsn), sleep)
	s := c.cut()
	found := false
	for _, stmt := range s.Statements {
		if stmt.Text == sleep {
			found = true
			if stmt.ID == "" || stmt.AAS < 0.5 || stmt.Calls != 1 || math.Abs(stmt.Seconds-1.5) > 0.2 {
				t.Errorf("%+v: want an id, AAS about 1, 1 call of 1.5 s", stmt)
			}
		}
		if strings.Contains(stmt.Text, "sledge observe") {
			t.Errorf("the observer's own statement reported: %+v", stmt)
		}
	}
	if !found {
		t.Errorf("statements %+v lack %q", s.Statements, sleep)
	}
}

// pgPrivateServer starts a PostgreSQL server of the test's own, with
// settings, and returns it with its options (to start it again); it is
// stopped and removed when the test ends.
func pgPrivateServer(t *testing.T, bin string, settings map[string]string) (*sandbox.Postgres, sandbox.Options) {
	t.Helper()
	dir, err := os.MkdirTemp("", "sledge-observe-pg-")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o755); err != nil { // the server may run as another user
		t.Fatal(err)
	}
	opts := sandbox.Options{BinDir: bin, Settings: map[string]string{"shared_buffers": "32MB", "max_connections": "20"}}
	maps.Copy(opts.Settings, settings)
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	p, err := sandbox.StartPostgres(ctx, dir, opts)
	if err != nil {
		os.RemoveAll(dir)
		t.Fatal(err)
	}
	stopNow, err := p.StopOnExit(true)
	if err != nil {
		p.Stop(context.Background())
		os.RemoveAll(dir)
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := p.Stop(context.Background()); err != nil {
			t.Log(err)
		}
		if err := stopNow(); err != nil {
			t.Log(err)
		}
	})
	return p, opts
}

// pgObservedOwnServer starts a PostgreSQL server of the test's own (the
// test runs in parallel; skipped with -short or without PostgreSQL) and an
// observer sampling it 10 times a second, with its cutter.
func pgObservedOwnServer(t *testing.T) (*sandbox.Postgres, sandbox.Options, *pgObserver, *pgCutter) {
	t.Helper()
	if testing.Short() {
		t.Skip("starts a PostgreSQL server of its own")
	}
	t.Parallel()
	bin, err := sandbox.FindBinaries(testdb.PGBin())
	if err != nil {
		t.Skipf("no PostgreSQL: %v", err)
	}
	p, opts := pgPrivateServer(t, bin, nil)
	o, _ := pgStartObserver(t, p.URL(sandbox.Database), Options{Rate: 10})
	return p, opts, o, &pgCutter{o: o, start: time.Now()}
}

// TestPostgresServerRestart stops the server under the observer (on a
// server of the test's own) and starts it again: the intervals of the
// outage say so, Cut does not wait for the server, and the observer comes
// back by itself.
func TestPostgresServerRestart(t *testing.T) {
	p, opts, o, c := pgObservedOwnServer(t)
	time.Sleep(300 * time.Millisecond)
	if s := c.cut(); s.Gap != "" || s.Samples == 0 {
		t.Fatalf("before: %d samples, gap %q", s.Samples, s.Gap)
	}
	if err := p.Stop(t.Context()); err != nil {
		t.Fatal(err)
	}
	time.Sleep(500 * time.Millisecond)
	t0 := time.Now()
	s := c.cut()
	if d := time.Since(t0); d > 500*time.Millisecond {
		t.Errorf("Cut took %v with the server down", d)
	}
	if !strings.Contains(s.Gap, "PostgreSQL went away") || !strings.Contains(s.Gap, "not back after") {
		t.Errorf("the outage's interval has gap %q", s.Gap)
	}
	time.Sleep(500 * time.Millisecond)
	if s := c.cut(); !strings.Contains(s.Gap, "not back after") || s.Samples != 0 {
		t.Errorf("an interval wholly in the outage: %d samples, gap %q", s.Samples, s.Gap)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	if _, err := sandbox.StartPostgres(ctx, p.Dir(), opts); err != nil {
		t.Fatal(err)
	}
	var back Snapshot
	pgPoll(t, "the observer's return", func() bool {
		time.Sleep(300 * time.Millisecond)
		back = c.cut()
		return strings.Contains(back.Gap, "reconnected after")
	})
	t.Logf("gaps: %q, then %q", s.Gap, back.Gap)
	// The reconnection may come in the last tenth of a second of its
	// interval, before the next sample (10 a second): the interval after it
	// must have samples (below), this one may not.
	if back.Samples == 0 {
		t.Logf("the interval of the reconnection has no samples (reconnected near its end)")
	}
	time.Sleep(500 * time.Millisecond)
	if s := c.cut(); s.Gap != "" || s.Samples == 0 {
		t.Errorf("after: %d samples, gap %q", s.Samples, s.Gap)
	} else if _, ok := pgCounter(s, "pg_stat_database", "xact_commit"); !ok {
		t.Errorf("after: no statistics: %+v", s.Counters)
	}
	if cost := o.Close(); cost.Reconnects != 1 {
		t.Errorf("cost %+v, want 1 reconnection", cost)
	}
}

// TestPostgresServerTooSlow stops the observer's own server process
// (SIGSTOP), as a server too busy to answer would: the sample gets no
// answer within its bound, and the intervals say the server did not answer
// in time — not that it went away — then that the observer reconnected
// once the process runs again.
func TestPostgresServerTooSlow(t *testing.T) {
	// A server of its own: a stopped session may hold a lock that the
	// shared server's other tests would wait on.
	_, _, o, c := pgObservedOwnServer(t)
	pid := int(o.pid.Load())
	if pid <= 0 {
		t.Fatal("the observer's server process is not known")
	}
	if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	continued := false
	resume := func() {
		if !continued {
			continued = true
			_ = syscall.Kill(pid, syscall.SIGCONT)
		}
	}
	defer resume()
	var slow Snapshot
	pgPoll(t, "a gap for the stopped server process", func() bool {
		time.Sleep(300 * time.Millisecond)
		slow = c.cut()
		return slow.Gap != ""
	})
	resume()
	if !strings.Contains(slow.Gap, "PostgreSQL did not answer in time: ") || strings.Contains(slow.Gap, "went away") {
		t.Errorf("the stopped process's interval has gap %q", slow.Gap)
	}
	// The stopped process is the observer's session only: a new one is made
	// at once, maybe within the same interval on a slow machine.
	back := slow
	if !strings.Contains(back.Gap, "reconnected after") {
		pgPoll(t, "the observer's return", func() bool {
			time.Sleep(300 * time.Millisecond)
			back = c.cut()
			return strings.Contains(back.Gap, "reconnected after")
		})
	}
	if !strings.Contains(back.Gap, "PostgreSQL did not answer in time: ") {
		t.Errorf("the reconnection's gap %q", back.Gap)
	}
	t.Logf("gaps: %q, then %q", slow.Gap, back.Gap)
}
