// Package testdb gives integration tests a PostgreSQL or MariaDB database of
// their own, served by one private sandbox server of each kind per test
// binary.
//
// A package using it calls Main from its TestMain:
//
//	func TestMain(m *testing.M) { testdb.Main(m) }
//
// and each test asks for a fresh, empty database:
//
//	url := testdb.Postgres(t) // postgres://sledge@127.0.0.1:PORT/NAME?sslmode=disable
//	url := testdb.MariaDB(t)  // mysql://root@127.0.0.1:PORT/NAME
//
// A server starts on first use, in a new temporary directory, and Main
// stops and removes it after the tests. Without the server installed the
// tests are skipped, unless $CI is set: there a missing server is an error,
// so integration tests cannot pass by not running. MariaDB is installed
// with apt-get first if it is missing and the tests run as root.
package testdb

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sledge-bench/sledge/internal/sandbox"
)

// ParallelPerCPU is how many tests per CPU Main lets run at once by
// default.
const ParallelPerCPU = 4

// The cluster is shared by every test of a binary (starting one costs
// seconds), so its state is package-level by necessity.
var (
	mainCalled atomic.Bool
	once       sync.Once
	cluster    *sandbox.Postgres
	stopNow    func() error // the cluster's exit watchdog
	clusterDir string
	startErr   error
	seq        atomic.Int64 // numbers the databases of this binary

	// The servers of fetched releases (PostgresVersion, MariaDBVersion),
	// by product and version.
	fetchedMu sync.Mutex
	fetched   = map[string]*fetchedServer{}

	// The same for the MariaDB server.
	mariaOnce    sync.Once
	maria        *sandbox.MariaDB
	mariaStopNow func() error
	mariaDir     string
	mariaErr     error
)

// Main runs the tests, then stops and removes the cluster if one was
// started, and exits with the tests' status.
//
// Unless -test.parallel is given, up to ParallelPerCPU tests per CPU run
// at once (go test's default is one per CPU): integration tests spend most
// of their time waiting on servers and on the wall clock (a run's window, an
// outage), not computing.
func Main(m *testing.M) {
	mainCalled.Store(true)
	if !flag.Parsed() {
		flag.Parse()
	}
	parallelSet := false
	flag.Visit(func(f *flag.Flag) { parallelSet = parallelSet || f.Name == "test.parallel" })
	if f := flag.Lookup("test.parallel"); f != nil && !parallelSet {
		f.Value.Set(strconv.Itoa(ParallelPerCPU * runtime.GOMAXPROCS(0)))
	}
	code := m.Run()
	if err := shutdown(); err != nil {
		fmt.Fprintln(os.Stderr, "testdb:", err)
		if code == 0 {
			code = 1
		}
	}
	os.Exit(code)
}

// Postgres creates a new, empty database for this test and returns its URL.
// The database is dropped when the test ends.
func Postgres(t testing.TB) string {
	t.Helper()
	p := start(t)
	return ownDatabase(t, p, time.Minute, p.CreateDatabase)
}

// server is what a test's own database needs of a sandbox server.
type server interface {
	DropDatabase(ctx context.Context, name string) error
	URL(name string) string
}

// ownDatabase makes a database of the test's own on s with create (empty,
// or a copy), within timeout, and drops it when the test ends (after the
// cleanups the test registers later: closing its pools, typically; sessions
// still open are disconnected); it returns the database's URL. A create
// that fails half-way leaves nothing behind either.
func ownDatabase(t testing.TB, s server, timeout time.Duration, create func(ctx context.Context, name string) error) string {
	t.Helper()
	name := dbName(t.Name())
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if err := s.DropDatabase(ctx, name); err != nil {
			t.Logf("testdb: %v", err)
		}
	})
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	if err := create(ctx, name); err != nil {
		t.Fatalf("testdb: %v", err)
	}
	return s.URL(name)
}

// PostgresAdminURL returns the URL of the cluster's own database (named
// sandbox.Database), shared by all tests of the binary: for what a fresh
// database cannot do (e.g. listing databases). Tests must not leave data in it.
func PostgresAdminURL(t testing.TB) string {
	t.Helper()
	return start(t).URL(sandbox.Database)
}

// start returns the binary's cluster, starting it on first use, or ends the
// test (skip or fail) if it cannot run.
func start(t testing.TB) *sandbox.Postgres {
	t.Helper()
	if !mainCalled.Load() {
		// Without Main nothing would stop the cluster after the tests.
		t.Fatal("testdb: call testdb.Main(m) from the package's TestMain to use testdb.Postgres")
	}
	once.Do(func() { cluster, startErr = startCluster() })
	if errors.Is(startErr, sandbox.ErrNotInstalled) {
		if os.Getenv("CI") != "" {
			t.Fatalf("testdb: $CI is set, so PostgreSQL integration tests must run, but: %v", startErr)
		}
		t.Skipf("testdb: skipping PostgreSQL test: %v", startErr)
	}
	if startErr != nil {
		t.Fatalf("testdb: %v", startErr)
	}
	return cluster
}

func startCluster() (*sandbox.Postgres, error) {
	if _, err := sandbox.FindBinaries(PGBin()); err != nil {
		return nil, err
	}
	var err error
	cluster, clusterDir, stopNow, err = startPostgresServer(PGBin(), "")
	return cluster, err
}

// startPostgresServer starts a cluster from binDir ("" to search) in a new
// temporary directory named after label, with a watchdog that stops it and
// removes the directory should the test binary die without reaching the
// end of Main (a -timeout panic, a signal). It returns the directory and
// the watchdog even on failure, for shutdown to clean up.
func startPostgresServer(binDir, label string) (*sandbox.Postgres, string, func() error, error) {
	// os.MkdirTemp makes the directory 0700; the server may run as another user
	// (when tests run as root), so open it up. Its parent, the system temp
	// directory, is world-enterable.
	dir, err := os.MkdirTemp("", "sledge-testdb-"+label)
	if err != nil {
		return nil, "", nil, fmt.Errorf("create the test cluster's directory: %w", err)
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		return nil, dir, nil, fmt.Errorf("create the test cluster's directory: %w", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	p, err := sandbox.StartPostgres(ctx, dir, sandbox.Options{
		BinDir: binDir,
		// Many test binaries may each run a cluster at once.
		Settings: map[string]string{"shared_buffers": "128MB"},
	})
	if err != nil {
		return nil, dir, nil, err
	}
	stop, err := p.StopOnExit(true)
	if err != nil {
		p.Stop(context.Background())
		return nil, dir, nil, err
	}
	return p, dir, stop, nil
}

// fetchedServer is the binary's server of one fetched release.
type fetchedServer struct {
	once sync.Once
	s    sandboxServer // nil until started
	dir  string
	stop func() error
	err  error
}

// sandboxServer is what the tests and Main need of a fetched server.
type sandboxServer interface {
	server
	CreateDatabase(ctx context.Context, name string) error
	Stop(ctx context.Context) error
}

// fetchedDatabase creates a new, empty database for this test on the
// binary's server of release (e.g. "PostgreSQL 17"), started by start when
// a test first asks for it, and returns its URL. When the server cannot be
// fetched the test is skipped with the reason, unless $CI is set: there it
// fails.
func fetchedDatabase(t testing.TB, release string, start func() (sandboxServer, string, func() error, error)) string {
	t.Helper()
	fetchedMu.Lock()
	f := fetched[release]
	if f == nil {
		f = &fetchedServer{}
		fetched[release] = f
	}
	fetchedMu.Unlock()
	// Each release starts under its own once: the servers of a matrix's
	// parallel tests fetch and start at the same time.
	f.once.Do(func() { f.s, f.dir, f.stop, f.err = start() })
	if errors.Is(f.err, sandbox.ErrFetch) {
		if os.Getenv("CI") != "" {
			t.Fatalf("testdb: $CI is set, so the %s tests must run, but: %v", release, f.err)
		}
		t.Skipf("testdb: skipping the %s test: %v", release, f.err)
	}
	if f.err != nil {
		t.Fatalf("testdb: %s: %v", release, f.err)
	}
	return ownDatabase(t, f.s, time.Minute, f.s.CreateDatabase)
}

// PostgresVersion creates a new, empty database for this test on the
// binary's server of PostgreSQL major version major (one of
// sandbox.PostgresMajors), and returns its URL; the database is dropped
// when the test ends. The server is fetched into Sledge's cache directory
// (CacheDir) on first use, the cached one used after that; it starts when
// a test first asks for it, and Main stops it after the tests. When it
// cannot be fetched (no pip, no network) the test is skipped with the
// reason, unless $CI is set: there it fails.
func PostgresVersion(t testing.TB, major int) string {
	t.Helper()
	if !mainCalled.Load() {
		t.Fatal("testdb: call testdb.Main(m) from the package's TestMain to use testdb.PostgresVersion")
	}
	return fetchedDatabase(t, fmt.Sprintf("PostgreSQL %d", major), func() (sandboxServer, string, func() error, error) {
		p, dir, stop, err := startVersion(major)
		if p == nil { // not a nil *Postgres in the interface
			return nil, dir, stop, err
		}
		return p, dir, stop, err
	})
}

func startVersion(major int) (*sandbox.Postgres, string, func() error, error) {
	cache, err := CacheDir()
	if err != nil {
		return nil, "", nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	bin, err := sandbox.FetchPostgres(ctx, cache, major)
	if err != nil {
		return nil, "", nil, err
	}
	return startPostgresServer(bin, strconv.Itoa(major)+"-")
}

// CacheDir is the cache directory of the sledge command
// (sandbox.CacheDir): the tests fetch servers where users' commands find
// them, and the other way round.
func CacheDir() (string, error) {
	home, _ := os.UserHomeDir()
	return sandbox.CacheDir(os.Getenv("XDG_CACHE_HOME"), home, os.Geteuid() == 0)
}

// MariaDB creates a new, empty database for this test on the binary's
// MariaDB server and returns its URL (mysql://root@127.0.0.1:PORT/NAME). The
// database is dropped when the test ends.
func MariaDB(t testing.TB) string {
	t.Helper()
	m := startMariaDB(t)
	return ownDatabase(t, m, time.Minute, m.CreateDatabase)
}

// startMariaDB returns the binary's MariaDB server, starting it on first use
// (installing MariaDB first if need be and possible), or ends the test (skip
// or fail) if it cannot run.
func startMariaDB(t testing.TB) *sandbox.MariaDB {
	t.Helper()
	if !mainCalled.Load() {
		// Without Main nothing would stop the server after the tests.
		t.Fatal("testdb: call testdb.Main(m) from the package's TestMain to use testdb.MariaDB")
	}
	mariaOnce.Do(func() {
		if _, mariaErr = sandbox.EnsureMariaDB(context.Background(), MariaDBBin(), t.Logf); mariaErr == nil {
			maria, mariaDir, mariaStopNow, mariaErr = startMariaDBServer(MariaDBBin(), "")
		}
	})
	if errors.Is(mariaErr, sandbox.ErrNotInstalled) {
		if os.Getenv("CI") != "" {
			t.Fatalf("testdb: $CI is set, so MariaDB integration tests must run, but: %v", mariaErr)
		}
		t.Skipf("testdb: skipping MariaDB test: %v", mariaErr)
	}
	if mariaErr != nil {
		t.Fatalf("testdb: %v", mariaErr)
	}
	return maria
}

// MariaDBVersion creates a new, empty database for this test on the
// binary's server of MariaDB version series version (one of
// sandbox.MariaDBVersions, e.g. "11.4"), and returns its URL; the database
// is dropped when the test ends. The server is fetched into Sledge's cache
// directory (CacheDir) on first use, as PostgresVersion's are; it starts
// when a test first asks for it, and Main stops it after the tests. When it
// cannot be fetched (no network) the test is skipped with the reason, unless
// $CI is set: there it fails.
func MariaDBVersion(t testing.TB, version string) string {
	t.Helper()
	if !mainCalled.Load() {
		t.Fatal("testdb: call testdb.Main(m) from the package's TestMain to use testdb.MariaDBVersion")
	}
	return fetchedDatabase(t, "MariaDB "+version, func() (sandboxServer, string, func() error, error) {
		m, dir, stop, err := startMariaDBVersion(version)
		if m == nil { // not a nil *MariaDB in the interface
			return nil, dir, stop, err
		}
		return m, dir, stop, err
	})
}

func startMariaDBVersion(version string) (*sandbox.MariaDB, string, func() error, error) {
	cache, err := CacheDir()
	if err != nil {
		return nil, "", nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	bin, err := sandbox.FetchMariaDB(ctx, cache, version)
	if err != nil {
		return nil, "", nil, err
	}
	return startMariaDBServer(bin, version+"-")
}

// startMariaDBServer starts a MariaDB server of the binaries in binDir
// ("" to search) in a new directory named with label, and returns it and
// the directory (also on failure, for shutdown to remove) and its exit
// watchdog's stopNow.
func startMariaDBServer(binDir, label string) (*sandbox.MariaDB, string, func() error, error) {
	// Not t.TempDir, which is removed by the first test's cleanup, and
	// private (0700), closed to the mysql user that runs the server when the
	// tests run as root.
	dir, err := os.MkdirTemp("", "sledge-testdb-mariadb-"+label)
	if err != nil {
		return nil, "", nil, fmt.Errorf("create the test server's directory: %w", err)
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		return nil, dir, nil, fmt.Errorf("create the test server's directory: %w", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	m, err := sandbox.StartMariaDB(ctx, dir, sandbox.Options{
		BinDir: binDir,
		// Many test binaries may each run a server at once.
		Settings: map[string]string{"innodb-buffer-pool-size": "128M"},
	})
	if err != nil {
		return nil, dir, nil, err
	}
	// Should the test binary die without reaching the end of Main (a -timeout
	// panic, a signal), the watchdog still stops the server and removes dir.
	stopNow, err := m.StopOnExit(true)
	if err != nil {
		m.Stop(context.Background())
		return nil, dir, nil, err
	}
	return m, dir, stopNow, nil
}

func shutdown() error {
	errs := []error{removeTemplates(), removeSeeds()}
	if cluster != nil {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		errs = append(errs, cluster.Stop(ctx))
	}
	if stopNow != nil {
		errs = append(errs, stopNow())
	}
	if clusterDir != "" {
		errs = append(errs, os.RemoveAll(clusterDir))
	}
	for _, f := range fetched {
		if f.s != nil {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			errs = append(errs, f.s.Stop(ctx))
			cancel()
		}
		if f.stop != nil {
			errs = append(errs, f.stop())
		}
		if f.dir != "" {
			errs = append(errs, os.RemoveAll(f.dir))
		}
	}
	if maria != nil {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		errs = append(errs, maria.Stop(ctx))
	}
	if mariaStopNow != nil {
		errs = append(errs, mariaStopNow())
	}
	if mariaDir != "" {
		errs = append(errs, os.RemoveAll(mariaDir))
	}
	return errors.Join(errs...)
}

// PGBin is the PostgreSQL binaries directory the tests were told to use
// ($SLEDGE_PG_BIN, as for the sledge command), "" to search.
func PGBin() string { return os.Getenv("SLEDGE_PG_BIN") }

// MariaDBBin is the MariaDB binaries directories the tests were told to use
// ($SLEDGE_MARIADB_BIN), "" to search.
func MariaDBBin() string { return os.Getenv("SLEDGE_MARIADB_BIN") }

// dbName derives a database name from the test's name, unique within the
// binary (and so within its cluster) thanks to a sequence number, and within
// PostgreSQL's 63-byte limit.
func dbName(test string) string {
	var b strings.Builder
	b.WriteString("t" + strconv.FormatInt(seq.Add(1), 10) + "_")
	for _, r := range strings.ToLower(test) {
		if b.Len() >= 63 {
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
