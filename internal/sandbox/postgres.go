// Package sandbox runs private PostgreSQL servers from locally installed
// binaries, for benchmarking on one machine and for integration tests.
//
// A sandbox is a directory holding a cluster (data/), its server log
// (postgres.log) and a state file (sandbox.json) recording the port, so that a
// later process can find, stop or query a server started earlier. The server
// listens on 127.0.0.1 only, trusts every local connection, and trades
// durability for speed (fsync, full_page_writes and synchronous_commit are
// off): a crash of the machine may corrupt it. Never put data worth keeping in
// a sandbox.
package sandbox

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

const (
	// Superuser is the role initdb creates; every connection uses it.
	Superuser = "sledge"
	// Database is created at every start if it is missing.
	Database = "sledge"

	dataSubdir = "data"
	logName    = "postgres.log"
	stateName  = "sandbox.json"
	// confName holds Sledge's settings inside the data directory; it is
	// rewritten at every start (the port may change) and included from
	// postgresql.conf, which stays as initdb wrote it.
	confName    = "sledge.conf"
	includeLine = "include_if_exists = '" + confName + "'"

	// pgCtlTimeout bounds pg_ctl's own waits, in seconds.
	pgCtlTimeout = "60"
	// maxSocketPath is a conservative bound on a Unix socket path (sun_path
	// holds 104 bytes on macOS, 108 on Linux, including the NUL).
	maxSocketPath = 100
)

// ErrUnreachable is returned (errors.Is) when the process runs as root and
// the user the server must run as cannot reach the sandbox directory.
var ErrUnreachable = errors.New("sandbox directory out of the server user's reach")

// ErrNoSandbox is returned (errors.Is) by Open for a directory where no
// sandbox was ever started.
var ErrNoSandbox = errors.New("no PostgreSQL sandbox")

// Options tune StartPostgres.
type Options struct {
	// Port is the TCP port on 127.0.0.1. 0 reuses the sandbox's previous port
	// if it is free (so its URL stays the same across restarts), else picks a
	// free one.
	Port int
	// BinDir holds initdb, pg_ctl and postgres ($SLEDGE_PG_BIN); "" means
	// FindBinaries' search. For MariaDB: the directories holding its
	// programs, separated like PATH ($SLEDGE_MARIADB_BIN).
	BinDir string
	// Settings are extra server settings (postgresql.conf names and values),
	// applied after and over Sledge's defaults.
	Settings map[string]string
}

// Postgres is a sandbox, running or not.
type Postgres struct {
	dir    string // absolute
	port   int
	binDir string
	acct   *account // nil: the current user

	// watchdog is the write end of the pipe StopOnExit's watchdog reads; it is
	// kept here so that it is not closed (firing the watchdog) by the garbage
	// collector while the sandbox is in use.
	watchdog *os.File
}

// state is the content of sandbox.json.
type state struct {
	Port   int    `json:"port"`
	BinDir string `json:"bin_dir"`
}

// Status describes a sandbox at one moment.
type Status struct {
	Running bool
	PID     int // the postmaster's, when Running
	Port    int
	Dir     string
	DataDir string
	LogFile string
}

// StartPostgres starts the sandbox in dir, creating dir and initializing a
// cluster in it first if needed, and makes sure the database named Database
// exists. A sandbox that is already running is returned as is (an error if
// opts.Port asks for another port).
//
// When the process runs as root, the cluster belongs to and the server runs as
// the postgres system user (else nobody), which must be able to reach dir.
func StartPostgres(ctx context.Context, dir string, opts Options) (*Postgres, error) {
	p, err := start(ctx, dir, opts)
	if err != nil {
		return nil, fmt.Errorf("start postgres sandbox in %s: %w", dir, err)
	}
	return p, nil
}

func start(ctx context.Context, dir string, opts Options) (*Postgres, error) {
	if opts.Port < 0 || opts.Port > 65535 {
		return nil, fmt.Errorf("port %d out of range", opts.Port)
	}
	dir, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	p := &Postgres{dir: dir}
	version := p.clusterVersion()
	if p.binDir = opts.BinDir; p.binDir == "" {
		// The server that ran the cluster last, when it is still there
		// (one fetched into a cache, typically, which no search finds).
		if prev := p.previousBinDir(); version != "" && prev != "" && hasBinaries(prev) {
			p.binDir = prev
		} else if p.binDir, err = findBinaries("", version); err != nil {
			return nil, err
		}
	} else if p.binDir, err = FindBinaries(p.binDir); err != nil {
		return nil, err // (made absolute: the state file keeps it for later stops)
	}
	if version != "" {
		// A chosen server of another major version would fail to start
		// with "database files are incompatible with server", deep in the
		// log: say so first.
		if bin, err := binariesMajor(ctx, p.binDir); err == nil && bin != version {
			return nil, fmt.Errorf("the cluster in %s is PostgreSQL %s's, and the server in %s is PostgreSQL %s: use another sandbox directory for it",
				p.DataDir(), version, p.binDir, bin)
		}
	}
	// Checked before creating anything, so that a refused directory leaves no
	// trace.
	if p.acct, err = serverAccount(dir, p.DataDir()); err != nil {
		return nil, err
	}
	if err := p.acct.checkReachable(dir); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	if err := p.acct.checkReachable(dir); err != nil {
		return nil, err // a umask made the new parents private
	}
	if err := p.acct.chown(dir); err != nil {
		return nil, err
	}

	if pf, ok := p.postmaster(); ok {
		if opts.Port != 0 && pf.port != opts.Port {
			return nil, fmt.Errorf("already running on port %d, not %d (stop it first)", pf.port, opts.Port)
		}
		p.port = pf.port
		if err := p.waitReady(ctx); err != nil {
			return nil, err
		}
	} else {
		if err := p.clearStaleLocks(ctx); err != nil {
			return nil, err
		}
		if version == "" {
			if err := p.initdb(ctx); err != nil {
				return nil, err
			}
		}
		if err := p.startServer(ctx, opts); err != nil {
			return nil, err
		}
	}
	if err := p.CreateDatabase(ctx, Database); err != nil {
		return nil, err
	}
	return p, nil
}

// Open returns the sandbox last started in dir, running or not, without
// starting it. It fails with ErrNoSandbox if none was ever started there.
func Open(dir string) (*Postgres, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("open postgres sandbox in %s: %w", dir, err)
	}
	b, err := os.ReadFile(filepath.Join(abs, stateName))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("open postgres sandbox in %s: %w", dir, ErrNoSandbox)
	}
	if err != nil {
		return nil, fmt.Errorf("open postgres sandbox in %s: %w", dir, err)
	}
	var st state
	if err := json.Unmarshal(b, &st); err != nil {
		return nil, fmt.Errorf("open postgres sandbox in %s: read %s: %w", dir, stateName, err)
	}
	p := &Postgres{dir: abs, port: st.Port, binDir: st.BinDir}
	if p.acct, err = serverAccount(abs, p.DataDir()); err != nil {
		return nil, fmt.Errorf("open postgres sandbox in %s: %w", dir, err)
	}
	if pf, ok := p.postmaster(); ok && pf.port != 0 {
		p.port = pf.port // what the server really uses, should the state file lag
	}
	return p, nil
}

// Dir is the sandbox directory (absolute).
func (p *Postgres) Dir() string { return p.dir }

// DataDir is the cluster's data directory (PGDATA).
func (p *Postgres) DataDir() string { return filepath.Join(p.dir, dataSubdir) }

// LogFile is the server log.
func (p *Postgres) LogFile() string { return filepath.Join(p.dir, logName) }

// Port is the TCP port the server listens on (on 127.0.0.1).
func (p *Postgres) Port() int { return p.port }

// URL is the connection URL of database dbname, as the superuser.
func (p *Postgres) URL(dbname string) string {
	return fmt.Sprintf("postgres://%s@127.0.0.1:%d/%s?sslmode=disable", Superuser, p.port, url.PathEscape(dbname))
}

// Status reports whether the server is running, and where.
func (p *Postgres) Status() Status {
	s := Status{Port: p.port, Dir: p.dir, DataDir: p.DataDir(), LogFile: p.LogFile()}
	if pf, ok := p.postmaster(); ok {
		s.Running, s.PID = true, pf.pid
		if pf.port != 0 {
			s.Port = pf.port
		}
	}
	return s
}

// Running reports whether the server's postmaster is alive.
func (p *Postgres) Running() bool {
	_, ok := p.postmaster()
	return ok
}

// Stop shuts the server down (fast mode: sessions are disconnected, the
// cluster is left consistent) and waits for it. Stopping a sandbox that is
// not running is not an error.
func (p *Postgres) Stop(ctx context.Context) error {
	if !p.Running() {
		return nil
	}
	if !hasBinaries(p.binDir) {
		var err error
		if p.binDir, err = findBinaries("", p.clusterVersion()); err != nil {
			return fmt.Errorf("stop postgres sandbox in %s: %w", p.dir, err)
		}
	}
	out, err := p.command(ctx, "pg_ctl", "stop", "-D", p.DataDir(), "-m", "fast", "-w", "-t", pgCtlTimeout, "-s").CombinedOutput()
	if err != nil && p.Running() {
		return fmt.Errorf("stop postgres sandbox in %s: pg_ctl stop: %w: %s", p.dir, err, strings.TrimSpace(string(out)))
	}
	return nil
}

// CreateDatabase creates database name unless it exists.
func (p *Postgres) CreateDatabase(ctx context.Context, name string) error {
	conn, err := p.connect(ctx, "postgres")
	if err != nil {
		return fmt.Errorf("create database %q: %w", name, err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	var exists bool
	if err := conn.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)", name).Scan(&exists); err != nil {
		return fmt.Errorf("create database %q: %w", name, err)
	}
	if exists {
		return nil
	}
	_, err = conn.Exec(ctx, "CREATE DATABASE "+pgx.Identifier{name}.Sanitize())
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && pgErr.Code == "42P04" {
		err = nil // created concurrently by someone else: just as good
	}
	if err != nil {
		return fmt.Errorf("create database %q: %w", name, err)
	}
	return nil
}

// DropDatabase drops database name if it exists, disconnecting its sessions
// first (PostgreSQL 13 and later).
func (p *Postgres) DropDatabase(ctx context.Context, name string) error {
	conn, err := p.connect(ctx, "postgres")
	if err != nil {
		return fmt.Errorf("drop database %q: %w", name, err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	sql := "DROP DATABASE IF EXISTS " + pgx.Identifier{name}.Sanitize()
	if major, _, _ := strings.Cut(conn.PgConn().ParameterStatus("server_version"), "."); atoiOr(major, 0) >= 13 {
		sql += " WITH (FORCE)"
	}
	if _, err := conn.Exec(ctx, sql); err != nil {
		return fmt.Errorf("drop database %q: %w", name, err)
	}
	return nil
}

// StopOnExit starts a watchdog process that shuts the server down
// (immediate mode) and, with removeDir, deletes the sandbox directory as soon
// as this process ends, however it ends: a test binary killed by -timeout or
// by a signal runs no deferred cleanup, and an orphaned server would hold its
// port and memory until reboot. The returned function triggers the watchdog
// now and waits for it; call it for an orderly end (after Stop, which shuts
// down more gently).
func (p *Postgres) StopOnExit(removeDir bool) (stopNow func() error, err error) {
	if p.watchdog != nil {
		return nil, errors.New("sandbox watchdog already started")
	}
	r, w, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("start sandbox watchdog: %w", err)
	}
	defer r.Close()
	// The watchdog blocks reading the pipe; the only writer is this process,
	// so the read returns (EOF) exactly when this process closes it or dies.
	const script = `read -r _; "$1" stop -D "$2" -m immediate -w -t 60 -s >/dev/null 2>&1; if [ "$3" = 1 ]; then rm -rf -- "$4"; fi`
	remove := "0"
	if removeDir {
		remove = "1"
	}
	cmd := exec.Command("/bin/sh", "-c", script, "sledge-sandbox-watchdog",
		filepath.Join(p.binDir, "pg_ctl"), p.DataDir(), remove, p.dir)
	cmd.Dir = "/"
	cmd.Stdin = r
	// In its own process group, so that a Ctrl-C to the test run does not kill
	// the watchdog before the tests' own cleanup had a chance.
	cmd.SysProcAttr = p.acct.sysProcAttr(true)
	if err := cmd.Start(); err != nil {
		w.Close()
		return nil, fmt.Errorf("start sandbox watchdog: %w", err)
	}
	p.watchdog = w
	return func() error {
		w.Close()
		if err := cmd.Wait(); err != nil {
			return fmt.Errorf("sandbox watchdog: %w", err)
		}
		return nil
	}, nil
}

// previousBinDir is the binaries directory the state file records, "" if
// none.
func (p *Postgres) previousBinDir() string {
	b, err := os.ReadFile(filepath.Join(p.dir, stateName))
	if err != nil {
		return ""
	}
	var st state
	if json.Unmarshal(b, &st) != nil {
		return ""
	}
	return st.BinDir
}

// binariesMajor is the major version of the server in binDir, as
// PG_VERSION writes it ("9.6" before PostgreSQL 10, else "17").
func binariesMajor(ctx context.Context, binDir string) (string, error) {
	out, err := exec.CommandContext(ctx, filepath.Join(binDir, "postgres"), "--version").Output()
	if err != nil {
		return "", err
	}
	// "postgres (PostgreSQL) 17.11", "postgres (PostgreSQL) 18beta1", "… 9.6.24"
	fields := strings.Fields(string(out))
	if len(fields) == 0 {
		return "", fmt.Errorf("postgres --version: %q", out)
	}
	v := fields[len(fields)-1]
	if i := slices.Index(fields, "(PostgreSQL)"); i >= 0 && i+1 < len(fields) {
		v = fields[i+1] // not a packager's suffix: "(Debian 15.14-0+deb12u1)"
	}
	end := strings.IndexFunc(v, func(r rune) bool { return r != '.' && (r < '0' || r > '9') })
	if end >= 0 {
		v = v[:end]
	}
	parts := strings.Split(v, ".")
	if n, _ := strconv.Atoi(parts[0]); n < 10 && len(parts) > 1 {
		return parts[0] + "." + parts[1], nil
	}
	return parts[0], nil
}

// clusterVersion is the major version of the cluster in DataDir, "" if there
// is none.
func (p *Postgres) clusterVersion() string {
	b, err := os.ReadFile(filepath.Join(p.DataDir(), "PG_VERSION"))
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

func (p *Postgres) command(ctx context.Context, name string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, filepath.Join(p.binDir, name), args...)
	// The server user may not be able to enter the caller's working directory.
	cmd.Dir = p.dir
	cmd.SysProcAttr = p.acct.sysProcAttr(false)
	// pg_ctl's server redirects its output to the log file; should anything
	// still hold our pipes, do not wait for it forever.
	cmd.WaitDelay = 5 * time.Second
	return cmd
}

// initdb creates the cluster. It works in a scratch directory renamed into
// place at the end, so that an interrupted initdb never leaves a half-made
// cluster for the next start to trip over.
func (p *Postgres) initdb(ctx context.Context) error {
	tmp := p.DataDir() + ".initdb"
	if err := os.RemoveAll(tmp); err != nil {
		return err
	}
	out, err := p.command(ctx, "initdb", "-D", tmp, "-U", Superuser,
		"--auth=trust", "--encoding=UTF8", "--locale=C", "--no-sync").CombinedOutput()
	if err != nil {
		os.RemoveAll(tmp)
		return fmt.Errorf("initdb as %s: %w\n%s", p.acct, err, strings.TrimSpace(string(out)))
	}
	return os.Rename(tmp, p.DataDir())
}

// startServer writes the settings and starts the server with pg_ctl,
// retrying with another port if a picked one was taken in the meantime.
func (p *Postgres) startServer(ctx context.Context, opts Options) error {
	if err := p.ensureInclude(); err != nil {
		return err
	}
	prev := 0
	if b, err := os.ReadFile(filepath.Join(p.dir, stateName)); err == nil {
		var st state
		if json.Unmarshal(b, &st) == nil {
			prev = st.Port
		}
	}
	for attempt := 1; ; attempt++ {
		port := opts.Port
		if port == 0 {
			var err error
			if port, err = freePort(prev); err != nil {
				return err
			}
			prev = 0 // taken after all: do not insist on it
		}
		p.port = port
		if err := p.writeConf(opts.Settings); err != nil {
			return err
		}
		if err := p.writeState(); err != nil {
			return err
		}
		var logOffset int64
		if fi, err := os.Stat(p.LogFile()); err == nil {
			logOffset = fi.Size()
		}
		out, err := p.command(ctx, "pg_ctl", "start", "-D", p.DataDir(), "-l", p.LogFile(),
			"-w", "-t", pgCtlTimeout, "-s").CombinedOutput()
		if err == nil {
			return nil
		}
		log := p.logSince(logOffset)
		if opts.Port == 0 && attempt < 3 && strings.Contains(log, "could not bind") {
			continue // another program took the port between our check and the server's bind
		}
		return fmt.Errorf("pg_ctl start as %s: %w: %s\nserver log (%s):\n%s",
			p.acct, err, strings.TrimSpace(string(out)), p.LogFile(), log)
	}
}

// ensureInclude makes postgresql.conf include confName, once.
func (p *Postgres) ensureInclude() error {
	path := filepath.Join(p.DataDir(), "postgresql.conf")
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if slices.Contains(strings.Split(string(b), "\n"), includeLine) {
		return nil
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(f, "\n# Sledge sandbox settings, rewritten at every start.\n%s\n", includeLine)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// writeConf writes confName for p.port.
func (p *Postgres) writeConf(extra map[string]string) error {
	// The socket lives in the sandbox directory, out of the way of any system
	// server; with a path too long for a Unix socket, TCP has to do.
	socketDir := p.dir
	if len(socketDir)+len("/.s.PGSQL.65535") > maxSocketPath {
		socketDir = ""
	}
	settings := map[string]string{
		"listen_addresses":        "127.0.0.1",
		"port":                    strconv.Itoa(p.port),
		"unix_socket_directories": socketDir,
		"max_connections":         "200",
		"shared_buffers":          "256MB",
		// A sandbox holds benchmark and test data that can be rebuilt:
		// durability is not worth its cost here.
		"fsync":              "off",
		"synchronous_commit": "off",
		"full_page_writes":   "off",
	}
	maps.Copy(settings, extra)
	var b strings.Builder
	b.WriteString("# Written by Sledge at every sandbox start: edits are lost.\n")
	for _, k := range slices.Sorted(maps.Keys(settings)) {
		fmt.Fprintf(&b, "%s = '%s'\n", k, strings.ReplaceAll(settings[k], "'", "''"))
	}
	return p.writeFile(filepath.Join(p.DataDir(), confName), []byte(b.String()))
}

func (p *Postgres) writeState() error {
	b, err := json.Marshal(state{Port: p.port, BinDir: p.binDir})
	if err != nil {
		return err
	}
	return p.writeFile(filepath.Join(p.dir, stateName), append(b, '\n'))
}

// writeFile writes a file the server user can read (and later remove).
func (p *Postgres) writeFile(path string, data []byte) error {
	if err := os.WriteFile(path, data, 0o644); err != nil {
		return err
	}
	return p.acct.chown(path)
}

// logSince returns the server log written after offset (at most its last
// 4 KiB: the reason for a failure is at the end).
func (p *Postgres) logSince(offset int64) string {
	f, err := os.Open(p.LogFile())
	if err != nil {
		return "(no log: " + err.Error() + ")"
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && fi.Size()-offset > 4096 {
		offset = fi.Size() - 4096
	}
	if _, err := f.Seek(offset, io.SeekStart); err != nil {
		return ""
	}
	b, _ := io.ReadAll(f)
	return strings.TrimSpace(string(b))
}

// pidFile is what the postmaster records in DataDir/postmaster.pid.
type pidFile struct {
	pid    int
	port   int
	status string // "starting", "ready", "stopping"
}

func (p *Postgres) readPIDFile() (pidFile, error) {
	b, err := os.ReadFile(filepath.Join(p.DataDir(), "postmaster.pid"))
	if err != nil {
		return pidFile{}, err
	}
	// Lines: PID, data directory, start time, port, socket directory, listen
	// address, shared memory key, status.
	lines := strings.Split(string(b), "\n")
	line := func(i int) string {
		if i < len(lines) {
			return strings.TrimSpace(lines[i])
		}
		return ""
	}
	return pidFile{pid: atoiOr(line(0), 0), port: atoiOr(line(3), 0), status: line(7)}, nil
}

// postmaster returns the postmaster.pid of a live server.
func (p *Postgres) postmaster() (pidFile, bool) {
	pf, err := p.readPIDFile()
	if err != nil || !postmasterAlive(pf.pid, p.DataDir()) {
		return pidFile{}, false
	}
	return pf, true
}

// clearStaleLocks removes lock files (postmaster.pid in the data directory,
// .s.PGSQL.<port>.lock next to the socket) left by a server that is gone
// but whose PID still exists: postgres refuses to start over a lock naming
// a live process, and containers reuse low PIDs after every restart. A
// killed server's PID is first given a moment to be reaped. A lock naming a
// PID that no longer exists is left to postgres, which removes it itself
// after checking that no process of the crashed server still uses its
// shared memory.
func (p *Postgres) clearStaleLocks(ctx context.Context) error {
	locks, _ := filepath.Glob(filepath.Join(p.dir, ".s.PGSQL.*.lock"))
	locks = append(locks, filepath.Join(p.DataDir(), "postmaster.pid"))
	for _, lock := range locks {
		b, err := os.ReadFile(lock)
		if err != nil {
			continue
		}
		first, _, _ := strings.Cut(string(b), "\n")
		pid := atoiOr(strings.TrimSpace(first), 0)
		if pid <= 0 || postmasterAlive(pid, p.DataDir()) {
			continue
		}
		for deadline := time.Now().Add(5 * time.Second); isZombie(pid) && time.Now().Before(deadline); {
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(20 * time.Millisecond):
			}
		}
		if !processExists(pid) {
			continue
		}
		if err := os.Remove(lock); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("remove stale lock file: %w", err)
		}
	}
	return nil
}

// waitReady waits for a running server to finish starting up.
func (p *Postgres) waitReady(ctx context.Context) error {
	deadline := time.Now().Add(time.Minute)
	for {
		pf, ok := p.postmaster()
		switch {
		case !ok:
			return errors.New("the server stopped while starting; see " + p.LogFile())
		case pf.status == "ready":
			return nil
		case time.Now().After(deadline):
			return fmt.Errorf("the server did not become ready in time (status %q); see %s", pf.status, p.LogFile())
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
}

func (p *Postgres) connect(ctx context.Context, dbname string) (*pgx.Conn, error) {
	cfg, err := pgx.ParseConfig(p.URL(dbname))
	if err != nil {
		return nil, err
	}
	cfg.ConnectTimeout = 10 * time.Second
	return pgx.ConnectConfig(ctx, cfg)
}

// freePort returns prefer if it is free on 127.0.0.1, else a port the kernel
// picks as free. Either may be taken again before the server binds it; the
// caller retries.
func freePort(prefer int) (int, error) {
	if prefer > 0 {
		if l, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(prefer))); err == nil {
			l.Close()
			return prefer, nil
		}
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("find a free port on 127.0.0.1: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

func atoiOr(s string, def int) int {
	if n, err := strconv.Atoi(s); err == nil {
		return n
	}
	return def
}
