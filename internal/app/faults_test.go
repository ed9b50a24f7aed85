package app

// Fault-injection tests on real servers: a private PostgreSQL or MariaDB
// sandbox that the test starts itself, so that it can stop and start it in
// the middle of a run. Each starts a copy of a server that holds one
// warehouse (built once per binary: faultSeed), runs it with a few VUs and
// 1 s intervals, and checks what the service returned, what the repository
// kept and what the JSON and text say.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/sledge-bench/sledge/internal/config"
	"github.com/sledge-bench/sledge/internal/jobs"
	"github.com/sledge-bench/sledge/internal/metrics"
	"github.com/sledge-bench/sledge/internal/output"
	"github.com/sledge-bench/sledge/internal/report"
	"github.com/sledge-bench/sledge/internal/sandbox"
	"github.com/sledge-bench/sledge/internal/testdb"
	"github.com/sledge-bench/sledge/internal/testdb/tpcctest"
)

// faultServer is a private database server the test can stop and start.
type faultServer struct {
	kind string
	url  string // the test's database
	stop func(ctx context.Context) error
	// start starts the server again on the same directory (and port).
	start func(ctx context.Context) error
	// vuSessions counts the sessions of a run's virtual users on the
	// test's database.
	vuSessions func(ctx context.Context) (int, error)
	// pid is the server's main process (its children are found from it).
	pid func() (int, error)
}

// needServer skips the test where the server is not installed, except in CI
// where a missing server must not silently turn these tests green.
func needServer(t *testing.T, err error) {
	t.Helper()
	if errors.Is(err, sandbox.ErrNotInstalled) {
		if os.Getenv("CI") != "" {
			t.Fatalf("CI is set but the server is missing: %v", err)
		}
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
}

// serverDir is a fresh directory the server's system user can reach
// (t.TempDir is private), removed at the end.
func serverDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "sledge-faults-")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// The servers' settings: small buffers, as ten of them may run at once.
var (
	pgFaultOptions    = sandbox.Options{Settings: map[string]string{"shared_buffers": "128MB"}}
	mariaFaultOptions = sandbox.Options{Settings: map[string]string{"innodb-buffer-pool-size": "128M"}}
)

// faultSeed returns a stopped sandbox of kind ("postgres" or "mariadb"),
// made once per test binary, whose database faults holds TPROC-C with w
// warehouses as `sledge build` leaves it (w 0: the database is empty). A
// test starts a copy of it (startPostgres, startMariaDBWith): a copy costs
// a fraction of a build, and the tests would otherwise build ten times.
func faultSeed(t *testing.T, kind string, w int) string {
	t.Helper()
	return testdb.SeedDir(t, fmt.Sprintf("faults %s w%d", kind, w), func(ctx context.Context, dir string) error {
		var s interface {
			CreateDatabase(ctx context.Context, name string) error
			URL(name string) string
			Stop(ctx context.Context) error
			StopOnExit(removeDir bool) (func() error, error)
		}
		var err error
		if kind == "postgres" {
			s, err = sandbox.StartPostgres(ctx, dir, pgFaultOptions)
		} else {
			s, err = sandbox.StartMariaDB(ctx, dir, mariaFaultOptions)
		}
		if err != nil {
			return err
		}
		// Should the binary die during the build, the watchdog stops the
		// server; the directory goes with the other seeds.
		stopNow, err := s.StopOnExit(false)
		if err != nil {
			return errors.Join(err, s.Stop(ctx))
		}
		defer stopNow()
		if err := s.CreateDatabase(ctx, "faults"); err != nil {
			return errors.Join(err, s.Stop(ctx))
		}
		if w > 0 {
			start := time.Now()
			if err := tpcctest.Build(ctx, s.URL("faults"), tpcctest.Options{Warehouses: w}); err != nil {
				return errors.Join(err, s.Stop(ctx))
			}
			t.Logf("seed: built %d warehouse(s) on %s in %s", w, kind, time.Since(start).Round(100*time.Millisecond))
		}
		return s.Stop(ctx)
	})
}

// ownPort is opts with a port of the copy's own for its first start. A
// sandbox starts again on the port it last used, and every copy of a seed
// would try the seed's: while one test's server was down for its outage,
// another's copy could take its port, and the first one's clients would
// reconnect to the wrong server. (Restarts keep their own port.)
func ownPort(t *testing.T, opts sandbox.Options) sandbox.Options {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	opts.Port = l.Addr().(*net.TCPAddr).Port
	l.Close()
	return opts
}

// startPostgres starts a private PostgreSQL whose database faults holds w
// warehouses (0: none), a copy of faultSeed's.
func startPostgres(t *testing.T, w int) *faultServer {
	t.Helper()
	_, err := sandbox.FindBinaries(testdb.PGBin())
	needServer(t, err)
	seed := faultSeed(t, "postgres", w)
	dir := serverDir(t)
	opts := pgFaultOptions
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := testdb.CopyTree(ctx, seed, dir); err != nil {
		os.RemoveAll(dir)
		t.Fatal(err)
	}
	p, err := sandbox.StartPostgres(ctx, dir, ownPort(t, opts))
	if err != nil {
		os.RemoveAll(dir)
		t.Fatal(err)
	}
	// Should the test binary die, the watchdog stops the server (wherever
	// it was restarted) and removes the directory.
	stopNow, err := p.StopOnExit(true)
	if err != nil {
		p.Stop(context.Background())
		os.RemoveAll(dir)
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if q, err := sandbox.Open(dir); err == nil {
			q.Stop(context.Background())
		}
		stopNow()
		os.RemoveAll(dir)
	})
	return &faultServer{
		kind: "postgres", url: p.URL("faults"),
		pid: func() (int, error) {
			b, err := os.ReadFile(filepath.Join(p.DataDir(), "postmaster.pid"))
			if err != nil {
				return 0, err
			}
			first, _, _ := strings.Cut(string(b), "\n")
			return strconv.Atoi(strings.TrimSpace(first))
		},
		// The virtual users' sessions are named (tprocc's runner).
		vuSessions: func(ctx context.Context) (n int, err error) {
			err = queryOne(t, p.URL("faults"), "SELECT count(*) FROM pg_stat_activity WHERE datname = 'faults' AND application_name = 'sledge vu'", &n)
			return n, err
		},
		stop: func(ctx context.Context) error {
			q, err := sandbox.Open(dir)
			if err != nil {
				return err
			}
			return q.Stop(ctx)
		},
		start: func(ctx context.Context) error {
			q, err := sandbox.StartPostgres(ctx, dir, opts)
			if err == nil && q.Port() != p.Port() {
				err = errors.New("restarted on another port")
			}
			return err
		},
	}
}

// startMariaDB starts a private MariaDB whose database faults holds w
// warehouses (0: none), a copy of faultSeed's.
func startMariaDB(t *testing.T, w int) *faultServer { return startMariaDBWith(t, w, nil) }

// startMariaDBWith is startMariaDB with extra server settings (mariadbd
// option names and values).
func startMariaDBWith(t *testing.T, w int, settings map[string]string) *faultServer {
	t.Helper()
	_, err := sandbox.EnsureMariaDB(t.Context(), testdb.MariaDBBin(), t.Logf)
	needServer(t, err)
	seed := faultSeed(t, "mariadb", w)
	dir := serverDir(t)
	opts := sandbox.Options{Settings: maps.Clone(mariaFaultOptions.Settings)}
	maps.Copy(opts.Settings, settings)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := testdb.CopyTree(ctx, seed, dir); err != nil {
		os.RemoveAll(dir)
		t.Fatal(err)
	}
	m, err := sandbox.StartMariaDB(ctx, dir, ownPort(t, opts))
	if err != nil {
		os.RemoveAll(dir)
		t.Fatal(err)
	}
	stopNow, err := m.StopOnExit(true)
	if err != nil {
		m.Stop(context.Background())
		os.RemoveAll(dir)
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if q, err := sandbox.OpenMariaDB(dir); err == nil {
			q.Stop(context.Background())
		}
		stopNow()
		os.RemoveAll(dir)
	})
	return &faultServer{
		kind: "mariadb", url: m.URL("faults"),
		pid: func() (int, error) {
			q, err := sandbox.OpenMariaDB(dir)
			if err != nil {
				return 0, err
			}
			if st := q.Status(); st.Running && st.PID > 0 {
				return st.PID, nil
			}
			return 0, errors.New("the MariaDB sandbox is not running")
		},
		// MariaDB shows no client's program name without the performance
		// schema: every session on the database but this query's, less
		// the run's monitor and observer.
		vuSessions: func(ctx context.Context) (n int, err error) {
			err = queryOne(t, m.URL("faults"),
				"SELECT COUNT(*) - 2 FROM information_schema.PROCESSLIST WHERE DB = 'faults' AND ID <> CONNECTION_ID()", &n)
			return n, err
		},
		stop: func(ctx context.Context) error {
			q, err := sandbox.OpenMariaDB(dir)
			if err != nil {
				return err
			}
			return q.Stop(ctx)
		},
		start: func(ctx context.Context) error {
			q, err := sandbox.StartMariaDB(ctx, dir, opts)
			if err == nil && q.Port() != m.Port() {
				err = errors.New("restarted on another port")
			}
			return err
		},
	}
}

// faultService is a job service over a fresh repository of the test's own
// (no process settings, so that tests may run in parallel).
func faultService(t *testing.T) (*Service, *jobs.Repo) {
	t.Helper()
	repo, err := jobs.Open(context.Background(), filepath.Join(t.TempDir(), "jobs.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { repo.Close() })
	return New(Options{Repo: repo, Version: "test", Hub: output.NewHub()}), repo
}

// console is a job's console that lets the test wait for a line.
type console struct {
	mu    sync.Mutex
	buf   bytes.Buffer
	waits map[string]chan struct{}
	start time.Time
	also  io.Writer // if set, written what the console is (a windowHog)
}

func newConsole() *console { return &console{waits: map[string]chan struct{}{}} }

func (c *console) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.buf.Write(p)
	if c.also != nil {
		c.also.Write(p)
	}
	for s, ch := range c.waits {
		if strings.Contains(c.buf.String(), s) {
			close(ch)
			delete(c.waits, s)
		}
	}
	return len(p), nil
}

// when returns a channel closed once the console has printed s.
func (c *console) when(s string) <-chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	ch := make(chan struct{})
	if strings.Contains(c.buf.String(), s) {
		close(ch)
	} else {
		c.waits[s] = ch
	}
	return ch
}

func (c *console) String() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.buf.String()
}

// buildOne builds one warehouse on the server through the service.
func buildOne(t *testing.T, svc *Service, url string) {
	t.Helper()
	spec := config.New(config.KindBuild)
	spec.DB, spec.Warehouses, spec.Workers = url, 1, 2
	start := time.Now()
	var out bytes.Buffer
	o, err := svc.Run(context.Background(), Request{Spec: spec, Console: &out})
	if err != nil || o.Status != metrics.StatusCompleted {
		t.Fatalf("build: %+v %v\n%s", o, err, out.String())
	}
	t.Logf("built 1 warehouse in %s", time.Since(start).Round(100*time.Millisecond))
}

// runSpec is a run of 4 VUs with 1 s intervals, paced: keying and think
// times at 1 % of the specification's, about 13 transactions a second. The
// faults need a steady flow of transactions to interrupt, not the most the
// machine can do: ten unpaced runs at once would each take all the CPU
// they can get, from one another and from the rest of the suite.
func runSpec(url string, rampup, duration time.Duration) config.Spec {
	spec := config.New(config.KindRun)
	spec.DB, spec.VU = url, 4
	spec.Pacing, spec.PacingScale = "spec", 0.01
	spec.Rampup, spec.Duration, spec.Interval = config.Duration(rampup), config.Duration(duration), config.Duration(time.Second)
	return spec
}

// outage stops the server when the console prints after, waits delay first,
// keeps it down for down (0: start it again at once) and reports when the
// stop began and when the server was back. With vus, it also waits (up to
// latest after the console's line) until the server holds that many
// virtual users' sessions: on a busy machine they may take seconds to
// connect, and a virtual user that cannot connect at all fails the run.
type outage struct {
	after          string
	delay, down    time.Duration
	vus            int
	latest         time.Duration
	stopped, up    time.Time
	stopErr, err   error
	done           chan struct{}
	waitedSessions time.Duration
}

func (o *outage) inject(t *testing.T, srv *faultServer, con *console) {
	o.done = make(chan struct{})
	ready := con.when(o.after)
	// A test that ends early (its run failed) ends the outage first: a
	// restart after the server's cleanup would leave a server behind.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	t.Cleanup(func() {
		cancel()
		<-o.done
	})
	sleep := func(d time.Duration) bool {
		select {
		case <-ctx.Done():
			return false
		case <-time.After(d):
			return true
		}
	}
	go func() {
		defer close(o.done)
		select {
		case <-ready:
		case <-ctx.Done():
			o.err = errors.New("the run never printed " + o.after)
			return
		}
		printed := time.Now()
		if !sleep(o.delay) {
			o.err = ctx.Err()
			return
		}
		for o.vus > 0 && time.Since(printed) < o.latest {
			if n, err := srv.vuSessions(ctx); err == nil && n >= o.vus {
				break
			}
			if !sleep(50 * time.Millisecond) {
				o.err = ctx.Err()
				return
			}
		}
		o.waitedSessions = time.Since(printed)
		o.stopped = time.Now()
		if o.stopErr = srv.stop(ctx); o.stopErr != nil {
			return
		}
		if !sleep(time.Until(o.stopped.Add(o.down))) {
			o.err = ctx.Err()
			return
		}
		o.err = srv.start(ctx)
		o.up = time.Now()
		t.Logf("%s: stopped %s after %q, back after %s", srv.kind, o.waitedSessions.Round(10*time.Millisecond), o.after,
			o.up.Sub(o.stopped).Round(10*time.Millisecond))
	}()
}

func (o *outage) wait(t *testing.T) {
	t.Helper()
	<-o.done
	if o.stopErr != nil || o.err != nil {
		t.Fatalf("stop: %v; start: %v", o.stopErr, o.err)
	}
}

// finished is what a run left: the service's outcome, the repository's
// job and result, and their JSON and text.
type finished struct {
	o      Outcome
	res    *metrics.RunResult
	job    jobs.Job
	json   map[string]any
	text   string
	output string
}

func runJob(t *testing.T, svc *Service, repo *jobs.Repo, spec config.Spec, con *console) finished {
	t.Helper()
	ctx := context.Background()
	o, err := svc.Run(ctx, Request{Spec: spec, Console: con})
	if err != nil || o.Run == nil {
		t.Fatalf("run: %+v %v\n%s", o, err, con.String())
	}
	f := finished{o: o, output: con.String()}
	if f.res, err = repo.RunResult(ctx, o.ID); err != nil || f.res == nil {
		t.Fatalf("stored result: %v, %v", f.res, err)
	}
	if f.job, err = repo.Get(ctx, o.ID); err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := report.WriteJSON(&b, report.ToResult(o.ID, f.res)); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b.Bytes(), &f.json); err != nil {
		t.Fatal(err)
	}
	b.Reset()
	if err := report.StoredRunResult(&b, "TPROC-C", f.job, f.res); err != nil {
		t.Fatal(err)
	}
	f.text = b.String()
	t.Logf("%s\n%s", f.text, f.output)
	return f
}

// requireStatus checks the status everywhere it is kept.
func (f finished) requireStatus(t *testing.T, want string) {
	t.Helper()
	if f.o.Status != want || f.o.Run.Status != want || f.res.Status != want || f.job.Status != want || f.json["status"] != want {
		t.Errorf("status: outcome %s, result %s, stored %s, job %s, JSON %v; want %s",
			f.o.Status, f.o.Run.Status, f.res.Status, f.job.Status, f.json["status"], want)
	}
}

// requireAgreeingCheck: the cross-check is present and agrees, in the
// stored result and in the JSON.
func (f finished) requireAgreeingCheck(t *testing.T) {
	t.Helper()
	r := f.res
	if !r.HasDBCheck || !r.DBCheckAgree || r.DBNewOrders <= 0 || r.DBCheckUnavailable != "" {
		t.Errorf("cross-check: present %v agree %v, database %d vs client %d New-Orders ±%d (%q)",
			r.HasDBCheck, r.DBCheckAgree, r.DBNewOrders, r.NewOrders, r.DBCheckAllowance, r.DBCheckUnavailable)
	}
	if f.json["db_check_agree"] != true || f.json["db_check_unavailable"] != nil {
		t.Errorf("JSON: db_check_agree %v, db_check_unavailable %v", f.json["db_check_agree"], f.json["db_check_unavailable"])
	}
}

// requireOutage checks the account of the one outage the test caused: it
// began when the server was stopped, service resumed after it was back, and
// the time to recover is that of the truth within one interval.
func (f finished) requireOutage(t *testing.T, o *outage, interval time.Duration) metrics.Outage {
	t.Helper()
	d := f.res.Disruption
	if d == nil || len(d.Outages) != 1 {
		t.Fatalf("disruption %+v, want one outage", d)
	}
	out := d.Outages[0]
	truth := o.up.Sub(o.stopped)
	if !out.Recovered || !d.Recovered() {
		t.Fatalf("outage %+v not recovered", out)
	}
	ttr := out.TimeToRecover()
	t.Logf("outage: time to recover %s, the server was stopped for %s", ttr.Round(time.Millisecond), truth.Round(time.Millisecond))
	if ttr < truth-interval || ttr > truth+interval {
		t.Errorf("time to recover %s, the truth %s: want it within one interval (%s)", ttr, truth, interval)
	}
	if out.VUs < 1 || d.VUsAffected() != out.VUs || out.Lost["connection"] < 1 {
		t.Errorf("outage: %d VUs, %d affected, lost %v", out.VUs, d.VUsAffected(), out.Lost)
	}
	for _, c := range d.Connections {
		if !c.Reconnected || c.Attempts < 1 || c.ReconnectedAt < c.LostAt {
			t.Errorf("connection event %+v: want reconnected", c)
		}
	}
	if !strings.Contains(f.text, "disruption:") || !strings.Contains(f.text, "time to recover") {
		t.Errorf("the stored result's text has no disruption block")
	}
	jd, ok := f.json["disruption"].(map[string]any)
	if !ok || jd["recovered"] != true || jd["time_to_recover_s"] == nil {
		t.Errorf("JSON disruption = %v", f.json["disruption"])
	}
	return out
}

// (a) A restart in the middle of the window: the VUs and the monitor
// reconnect; the cross-check, read at the edges after the restart, is
// present and agrees; the run is degraded, and its time to recover is the
// truth's within one interval.
func testRestartMidWindow(t *testing.T, srv *faultServer) {
	svc, repo := faultService(t)
	con := newConsole()
	o := &outage{after: "measuring for", delay: 3 * time.Second}
	o.inject(t, srv, con)
	// Room after the restart for intervals observed again, though a busy
	// machine may take 8 s to stop and start the server.
	f := runJob(t, svc, repo, runSpec(srv.url, 2*time.Second, 20*time.Second), con)
	o.wait(t)
	f.requireStatus(t, metrics.StatusDegraded)
	f.requireAgreeingCheck(t)
	out := f.requireOutage(t, o, time.Second)
	requireObservedRestart(t, repo, f.o.ID, out)
	if f.res.HasServerTPM {
		t.Errorf("server TPM %.0f across a restart, which resets the server's counters", f.res.ServerTPM)
	}
}

// requireObservedRestart checks the database observer's stored series
// across the restart: an interval that overlaps the outage says it had a
// gap, and the observer came back — later intervals are observed whole and
// hold samples or counters again.
func requireObservedRestart(t *testing.T, repo *jobs.Repo, id int64, out metrics.Outage) {
	t.Helper()
	obs, err := repo.Observations(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	var db *jobs.Observation
	for i := range obs {
		if !strings.Contains(obs[i].Name, "host") {
			db = &obs[i]
		}
	}
	if db == nil {
		t.Fatalf("no database observer stored (observers %d)", len(obs))
	}
	var gapAt, backAt time.Duration = -1, -1
	for _, s := range db.Intervals {
		from := s.Elapsed - s.Length
		switch {
		case s.Gap != "" && from <= out.Resumed && s.Elapsed >= out.Start && gapAt < 0:
			gapAt = s.Elapsed
			t.Logf("observer gap in the interval ending at %s: %s", s.Elapsed, s.Gap)
		case s.Gap == "" && gapAt >= 0 && s.Elapsed > out.Resumed && (s.Samples > 0 || len(s.Counters) > 0) && backAt < 0:
			backAt = s.Elapsed
		}
	}
	if gapAt < 0 {
		t.Errorf("%s: no interval overlapping the outage (%s–%s) is marked as a gap", db.Name, out.Start, out.Resumed)
	}
	if backAt < 0 {
		t.Errorf("%s: no interval after the outage (resumed at %s) was observed again", db.Name, out.Resumed)
	}
}

// (b) The server down for 20 s of a 36 s window: degraded, the outage and
// the transactions it lost reported, its intervals without commits listed.
func testLongOutage(t *testing.T, srv *faultServer) {
	svc, repo := faultService(t)
	con := newConsole()
	o := &outage{after: "measuring for", delay: 6 * time.Second, down: 20 * time.Second}
	o.inject(t, srv, con)
	f := runJob(t, svc, repo, runSpec(srv.url, 2*time.Second, 36*time.Second), con)
	o.wait(t)
	f.requireStatus(t, metrics.StatusDegraded)
	f.requireAgreeingCheck(t)
	out := f.requireOutage(t, o, time.Second)
	d := f.res.Disruption
	// The intervals wholly inside the outage had no commit: at least 18 of
	// the 20 one-second intervals it spans.
	if len(d.IdleIntervals) < 18 {
		t.Errorf("%d intervals without commits listed, want at least 18: %+v", len(d.IdleIntervals), d.IdleIntervals)
	}
	for _, iv := range d.IdleIntervals {
		if iv.Start < out.Start-time.Second || iv.End > out.Resumed+time.Second {
			t.Errorf("idle interval %+v outside the outage %s..%s", iv, out.Start, out.Resumed)
		}
	}
	// The stored series agrees: those intervals have no commits.
	ivs, err := repo.Intervals(context.Background(), f.o.ID)
	if err != nil {
		t.Fatal(err)
	}
	idle := map[int]bool{}
	for _, iv := range d.IdleIntervals {
		idle[iv.Seq] = true
	}
	for _, iv := range ivs {
		var n int64
		for _, tx := range iv.Tx {
			n += tx.Count
		}
		if iv.Length <= 0 || (iv.Phase == metrics.PhaseMeasure && (n == 0) != idle[iv.Seq]) {
			t.Errorf("interval %d (%s, %s long, %d commits): listed idle %v", iv.Seq, iv.Phase, iv.Length, n, idle[iv.Seq])
		}
	}
	if !strings.Contains(f.text, "no commits") {
		t.Error("the text does not list the intervals without commits")
	}
	if jd := f.json["disruption"].(map[string]any); len(jd["idle_intervals"].([]any)) != len(d.IdleIntervals) {
		t.Errorf("JSON idle_intervals = %v", jd["idle_intervals"])
	}
}

// (c) The server stopped during ramp-up and still down when the window opens:
// the run still has a result; the cross-check is absent with the reason (the
// window-start probe could not be read), never "disagrees".
func testDownAtWindowStart(t *testing.T, srv *faultServer) {
	svc, repo := faultService(t)
	con := newConsole()
	// The VUs have connected before the stop (1.5 s into the ramp-up, or
	// later on a busy machine, but 1 s before the window opens at the
	// latest); the window opens 1 to 4.5 s after it, and the server is
	// down 8 s: past the window-start probe's deadline (2 s).
	o := &outage{after: "ramp-up 6s", delay: 1500 * time.Millisecond, down: 8 * time.Second, vus: 4, latest: 5 * time.Second}
	o.inject(t, srv, con)
	f := runJob(t, svc, repo, runSpec(srv.url, 6*time.Second, 12*time.Second), con)
	o.wait(t)
	f.requireStatus(t, metrics.StatusDegraded)
	r := f.res
	if r.HasDBCheck || r.DBCheckAgree || r.DBNewOrders != 0 || !strings.Contains(r.DBCheckUnavailable, "window start") {
		t.Errorf("cross-check present %v agree %v db %d (%q): want absent, because of the window start",
			r.HasDBCheck, r.DBCheckAgree, r.DBNewOrders, r.DBCheckUnavailable)
	}
	for _, k := range []string{"nopm_db_check", "db_new_orders", "db_check_agree", "server_tpm"} {
		if f.json[k] != nil {
			t.Errorf("JSON %s = %v, want null", k, f.json[k])
		}
	}
	if s, _ := f.json["db_check_unavailable"].(string); !strings.Contains(s, "window start") {
		t.Errorf("JSON db_check_unavailable = %v", f.json["db_check_unavailable"])
	}
	for _, w := range r.Warnings {
		if strings.Contains(w, "New-Orders in the window") {
			t.Errorf("warning %q: an absent check does not disagree", w)
		}
	}
	if strings.Contains(f.text, "DISAGREES") || !strings.Contains(f.text, "database cross-check not available: ") {
		t.Errorf("the text does not say the check is not available, with the reason")
	}
	d := r.Disruption
	if d == nil || len(d.MonitorGaps) == 0 || d.MonitorGaps[0].Edge != metrics.EdgeWindowStart {
		t.Fatalf("disruption %+v: want the window start's monitor gap", d)
	}
	if len(d.Outages) != 1 || !d.Outages[0].Recovered || d.Outages[0].Start >= d.WindowStart {
		t.Errorf("outages %+v: want one from the ramp-up, recovered in the window (%s..%s)", d.Outages, d.WindowStart, d.WindowEnd)
	}
	if r.Measured < 11*time.Second || r.Measured > 13*time.Second {
		t.Errorf("measured %s, want the 12 s window", r.Measured)
	}
}

// signalTree sends sig to process pid and every process below it (a
// PostgreSQL server's postmaster and its backends).
func signalTree(pid int, sig syscall.Signal) error {
	children := map[int][]int{}
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return err
	}
	for _, e := range entries {
		child, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid …: comm may hold spaces and parentheses.
		rest := string(b[strings.LastIndexByte(string(b), ')')+1:])
		if f := strings.Fields(rest); len(f) > 1 {
			if ppid, err := strconv.Atoi(f[1]); err == nil {
				children[ppid] = append(children[ppid], child)
			}
		}
	}
	var send func(int) error
	send = func(p int) error {
		if err := syscall.Kill(p, sig); err != nil {
			return err
		}
		for _, c := range children[p] {
			_ = send(c) // a backend may have exited meanwhile
		}
		return nil
	}
	return send(pid)
}

// hang freezes the server (SIGSTOP of its processes) when the console
// prints after, waits delay first, holds it for hold and thaws it
// (SIGCONT), reporting when it froze and thawed. The server is thawed at
// the test's end whatever happens.
type hang struct {
	after          string
	delay, hold    time.Duration
	frozen, thawed time.Time
	err            error
	done           chan struct{}
}

func (h *hang) inject(t *testing.T, srv *faultServer, con *console) {
	h.done = make(chan struct{})
	ready := con.when(h.after)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	t.Cleanup(func() {
		cancel()
		<-h.done
	})
	go func() {
		defer close(h.done)
		select {
		case <-ready:
		case <-ctx.Done():
			h.err = errors.New("the run never printed " + h.after)
			return
		}
		pid, err := srv.pid()
		if err != nil {
			h.err = err
			return
		}
		select {
		case <-time.After(h.delay):
		case <-ctx.Done():
			h.err = ctx.Err()
			return
		}
		h.frozen = time.Now()
		if h.err = signalTree(pid, syscall.SIGSTOP); h.err != nil {
			return
		}
		select {
		case <-time.After(h.hold):
		case <-ctx.Done():
			h.err = ctx.Err()
		}
		if err := signalTree(pid, syscall.SIGCONT); err != nil && h.err == nil {
			h.err = err
		}
		h.thawed = time.Now()
		t.Logf("%s: frozen %s after %q for %s", srv.kind, h.delay, h.after, h.thawed.Sub(h.frozen).Round(10*time.Millisecond))
	}()
}

func (h *hang) wait(t *testing.T) {
	t.Helper()
	<-h.done
	if h.err != nil {
		t.Fatalf("freeze/thaw: %v", h.err)
	}
}

// (d) The server frozen (SIGSTOP) for 10 s in the middle of the window: no
// session is lost and nothing fails, yet nothing completes. The run is
// degraded with one stall, its duration the truth's within a second, every
// VU waiting; no outage; the cross-check, read after the thaw, agrees; the
// text and the JSON show the stall.
func testStallMidWindow(t *testing.T, srv *faultServer) {
	svc, repo := faultService(t)
	con := newConsole()
	h := &hang{after: "measuring for", delay: 3 * time.Second, hold: 10 * time.Second}
	h.inject(t, srv, con)
	f := runJob(t, svc, repo, runSpec(srv.url, 2*time.Second, 20*time.Second), con)
	h.wait(t)
	f.requireStatus(t, metrics.StatusDegraded)
	f.requireAgreeingCheck(t)
	d := f.res.Disruption
	if d == nil || len(d.Stalls) != 1 || len(d.Outages) != 0 {
		t.Fatalf("disruption %+v, want one stall and no outage", d)
	}
	s, truth := d.Stalls[0], h.thawed.Sub(h.frozen)
	t.Logf("stall %.2f s from %.2f s, %d VUs, longest wait %.2f s; frozen %.2f s", s.Duration().Seconds(), s.Start.Seconds(),
		s.VUs, s.LongestWait.Seconds(), truth.Seconds())
	if !s.Ended || s.Duration() < truth-time.Second || s.Duration() > truth+time.Second {
		t.Errorf("stall %+v: want it ended, within a second of the %s the server was frozen", s, truth)
	}
	if s.VUs != 4 || d.Sessions != 4 || s.LongestWait < s.Duration() {
		t.Errorf("stall %+v of %d sessions: want all 4 waiting, the longest wait at least the stall", s, d.Sessions)
	}
	if !strings.Contains(f.text, "stall 1") || !strings.Contains(f.text, "the database stalled") {
		t.Errorf("the stored result's text does not show the stall")
	}
	jd, _ := f.json["disruption"].(map[string]any)
	if st, _ := jd["stalls"].([]any); len(st) != 1 || jd["in_window"] != true {
		t.Errorf("JSON disruption = %v", jd)
	}
	if !hasText(f.res.Warnings, "the database stalled: no transaction ended for") {
		t.Errorf("warnings %q", f.res.Warnings)
	}
}

// (e) The server frozen across the window's end: the window-end probe
// fails, the VUs are still waiting when the window closes; the run is
// degraded all the same, its stall not ended and the cross-check absent
// with the reason.
func testHangAcrossWindowEnd(t *testing.T, srv *faultServer) {
	svc, repo := faultService(t)
	con := newConsole()
	h := &hang{after: "measuring for", delay: 6 * time.Second, hold: 12 * time.Second}
	h.inject(t, srv, con)
	f := runJob(t, svc, repo, runSpec(srv.url, 2*time.Second, 10*time.Second), con)
	h.wait(t)
	f.requireStatus(t, metrics.StatusDegraded)
	d := f.res.Disruption
	if d == nil || len(d.Stalls) != 1 || d.Stalls[0].Ended || len(d.Outages) != 0 {
		t.Fatalf("disruption %+v, want one stall still on at the end and no outage", d)
	}
	if f.res.HasDBCheck || !strings.Contains(f.res.DBCheckUnavailable, "window end") {
		t.Errorf("cross-check present %v (%q): want absent, because of the window end", f.res.HasDBCheck, f.res.DBCheckUnavailable)
	}
}

// hasText reports whether one of lines contains s.
func hasText(lines []string, s string) bool {
	for _, l := range lines {
		if strings.Contains(l, s) {
			return true
		}
	}
	return false
}

func TestFaultStallMidWindowPostgres(t *testing.T) { faultTest(t, startPostgres, testStallMidWindow) }
func TestFaultStallMidWindowMariaDB(t *testing.T)  { faultTest(t, startMariaDB, testStallMidWindow) }
func TestFaultHangAcrossWindowEndPostgres(t *testing.T) {
	faultTest(t, startPostgres, testHangAcrossWindowEnd)
}
func TestFaultHangAcrossWindowEndMariaDB(t *testing.T) {
	faultTest(t, startMariaDB, testHangAcrossWindowEnd)
}

func TestFaultRestartMidWindowPostgres(t *testing.T) {
	faultTest(t, startPostgres, testRestartMidWindow)
}
func TestFaultRestartMidWindowMariaDB(t *testing.T) { faultTest(t, startMariaDB, testRestartMidWindow) }
func TestFaultLongOutagePostgres(t *testing.T)      { faultTest(t, startPostgres, testLongOutage) }
func TestFaultLongOutageMariaDB(t *testing.T)       { faultTest(t, startMariaDB, testLongOutage) }
func TestFaultDownAtWindowStartPostgres(t *testing.T) {
	faultTest(t, startPostgres, testDownAtWindowStart)
}
func TestFaultDownAtWindowStartMariaDB(t *testing.T) {
	faultTest(t, startMariaDB, testDownAtWindowStart)
}

// faultTest runs a scenario on a server of its own. Each test owns its
// server, so they may run in parallel.
func faultTest(t *testing.T, server func(*testing.T, int) *faultServer, scenario func(*testing.T, *faultServer)) {
	if testing.Short() {
		t.Skip("starts a server, builds and runs with faults")
	}
	parallel(t)
	start := time.Now()
	scenario(t, server(t, 1))
	t.Logf("took %s", time.Since(start).Round(100*time.Millisecond))
}
