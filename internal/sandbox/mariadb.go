package sandbox

// A MariaDB sandbox is a directory holding a data directory (data/), the
// server log (mariadb.log, which also receives the server's stdout and
// stderr), its pid file (mariadb.pid), its Unix socket (mariadb.sock, unless
// the path is too long for one) and a state file (mariadb.json) recording the
// port and PID, so that a later process can find, stop or query a server
// started earlier. Like the PostgreSQL sandbox it listens on 127.0.0.1 only,
// lets root in without a password, and trades durability for speed.

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
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
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/go-sql-driver/mysql"
)

const (
	// MariaDBUser is the account every connection to a MariaDB sandbox uses:
	// root, without a password (the server listens on 127.0.0.1 only).
	MariaDBUser = "root"

	mariaDBLogName    = "mariadb.log"
	mariaDBPIDName    = "mariadb.pid"
	mariaDBSocketName = "mariadb.sock"
	// mariaDBStateName differs from the PostgreSQL sandbox's state file, so
	// that neither kind of sandbox mistakes a directory of the other for one
	// of its own.
	mariaDBStateName = "mariadb.json"

	// mariaDBEnv lists the directories to look for the MariaDB programs in
	// (read by Sledge's command; named here for the advice in errors).
	mariaDBEnv = "SLEDGE_MARIADB_BIN"
	// minMariaDB is the oldest release whose mariadb-install-db has
	// --auth-root-authentication-method, which the password-less root needs.
	minMariaDB = "10.4"

	// mariaDBReadyTimeout bounds the wait for a starting server to accept
	// connections; crash recovery of a large buffer pool happens in it.
	mariaDBReadyTimeout = time.Minute
	// mariaDBStopTimeout bounds a shutdown, which flushes the buffer pool.
	mariaDBStopTimeout = time.Minute
)

// MariaDBBinaries are the programs a MariaDB sandbox runs.
type MariaDBBinaries struct {
	Server    string // mariadbd, or its name before 10.5: mysqld
	InstallDB string // mariadb-install-db, or its older name mysql_install_db
	Version   string // as the server reports it, e.g. "10.11.6-MariaDB-0+deb12u1"
}

// MariaDB is a MariaDB sandbox, running or not.
type MariaDB struct {
	dir  string // absolute
	port int
	bins MariaDBBinaries
	// Who runs the server when this process is root: acct (the mysql system
	// user, typically), or root itself if asRoot. Neither when not root.
	acct   *account
	asRoot bool
	// user names who runs the server, whoever this process is; set by a
	// start, for the state file.
	user string

	// watchdog is the write end of the pipe StopOnExit's watchdog reads; it is
	// kept here so that it is not closed (firing the watchdog) by the garbage
	// collector while the sandbox is in use.
	watchdog *os.File
}

// mariaDBState is the content of mariadb.json.
type mariaDBState struct {
	Port int `json:"port"`
	// PID is the server's process ID, from its last start.
	PID int `json:"pid,omitempty"`
	// User is the system user the data directory belongs to and the server
	// runs as, kept so that a restart (perhaps by another user: root) runs it
	// as the same one.
	User   string `json:"user,omitempty"`
	Server string `json:"server,omitempty"`
	Socket string `json:"socket,omitempty"`
}

// sentinelError carries a message of its own but matches (errors.Is) one of
// the package's sentinel errors, whose texts (ErrNotInstalled's,
// ErrNoSandbox's) name PostgreSQL.
type sentinelError struct {
	sentinel error
	msg      string
}

func (e *sentinelError) Error() string        { return e.msg }
func (e *sentinelError) Is(target error) bool { return target == e.sentinel }

// FindMariaDB finds the MariaDB server and mariadb-install-db (or their older
// names, mysqld and mysql_install_db) in the directories of chosen, a list
// separated like PATH, when the user chose them (Sledge's command reads
// $SLEDGE_MARIADB_BIN), else on PATH and in /usr/sbin and /usr/bin, where
// distributions put them without /usr/sbin always being on an ordinary
// user's PATH. The server must be MariaDB 10.4 or later: a MySQL server is
// not a substitute. The error matches ErrNotInstalled (errors.Is) when they
// are missing.
func FindMariaDB(chosen string) (MariaDBBinaries, error) {
	// An explicit choice is never second-guessed by a fallback.
	dirs, where := filepath.SplitList(chosen), chosen
	if chosen == "" {
		dirs, where = nil, "PATH, /usr/sbin and /usr/bin"
	}
	notFound := func(detail string) error {
		return &sentinelError{ErrNotInstalled, fmt.Sprintf("MariaDB server binaries not found: %s (looked in %s); "+
			"install the MariaDB server (Debian/Ubuntu: apt-get install mariadb-server; Fedora: dnf install mariadb-server; "+
			"macOS: brew install mariadb) or set %s to the directories holding mariadbd and mariadb-install-db",
			detail, where, mariaDBEnv)}
	}
	b := MariaDBBinaries{
		Server:    findProgram(dirs, "mariadbd", "mysqld"),
		InstallDB: findProgram(dirs, "mariadb-install-db", "mysql_install_db"),
	}
	switch {
	case b.Server == "" && b.InstallDB == "":
		return b, notFound("no mariadbd (or mysqld) and no mariadb-install-db (or mysql_install_db)")
	case b.Server == "":
		return b, notFound("no mariadbd (or mysqld)")
	case b.InstallDB == "":
		return b, notFound("no mariadb-install-db (or mysql_install_db)")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, b.Server, "--no-defaults", "--version").Output()
	if err != nil {
		return b, fmt.Errorf("%s --version: %w", b.Server, err)
	}
	// "mariadbd  Ver 10.11.6-MariaDB-0+deb12u1 for debian-linux-gnu on x86_64 (Debian 12)"
	if f := strings.Fields(string(out)); len(f) > 2 && f[1] == "Ver" {
		b.Version = f[2]
	}
	if !strings.Contains(b.Version, "MariaDB") {
		return b, notFound(fmt.Sprintf("%s is not MariaDB (it says %q)", b.Server, strings.TrimSpace(string(out))))
	}
	if number, _, _ := strings.Cut(b.Version, "-"); compareVersions(number, minMariaDB) < 0 {
		return b, notFound(fmt.Sprintf("%s is MariaDB %s, older than the %s the sandbox needs", b.Server, number, minMariaDB))
	}
	return b, nil
}

// findProgram returns the path of the first of names found executable in
// dirs (none: on PATH, then in /usr/sbin and /usr/bin), trying each name in
// every directory before the next name: a mysqld early on PATH must not win
// over a mariadbd later.
func findProgram(dirs []string, names ...string) string {
	for _, name := range names {
		search := dirs
		if search == nil {
			if p, err := exec.LookPath(name); err == nil && filepath.IsAbs(p) {
				return p
			}
			search = []string{"/usr/sbin", "/usr/bin"}
		}
		for _, d := range search {
			p := filepath.Join(d, name)
			if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0 {
				if abs, err := filepath.Abs(p); err == nil {
					return abs
				}
				return p
			}
		}
	}
	return ""
}

// StartMariaDB starts the MariaDB sandbox in dir, creating dir and
// initializing a data directory in it first if needed, and makes sure the
// database named Database exists. A sandbox that is already running is
// returned as is (an error if opts.Port asks for another port).
// opts.BinDir, if set, lists the directories holding the programs (separated
// like PATH) and overrides FindMariaDB's search; opts.Settings are extra
// server options (mariadbd option names and values, without the leading
// "--"), applied after and over Sledge's.
//
// When the process runs as root, the data directory belongs to and the server
// runs as the mysql system user, which must be able to reach dir; as root
// itself only if there is no mysql user. A data directory keeps the user that
// first ran it.
func StartMariaDB(ctx context.Context, dir string, opts Options) (*MariaDB, error) {
	m, err := startMariaDB(ctx, dir, opts)
	if err != nil {
		return nil, fmt.Errorf("start mariadb sandbox in %s: %w", dir, err)
	}
	return m, nil
}

func startMariaDB(ctx context.Context, dir string, opts Options) (*MariaDB, error) {
	if opts.Port < 0 || opts.Port > 65535 {
		return nil, fmt.Errorf("port %d out of range", opts.Port)
	}
	dir, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	m := &MariaDB{dir: dir}
	if m.bins, err = FindMariaDB(opts.BinDir); err != nil {
		return nil, err
	}
	if _, err := os.Stat(filepath.Join(dir, stateName)); err == nil {
		return nil, fmt.Errorf("%s holds a PostgreSQL sandbox: give the MariaDB sandbox a directory of its own", dir)
	}
	prev, err := m.readState()
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}

	if pid := prev.PID; postmasterAlive(pid, m.DataDir()) {
		if opts.Port != 0 && prev.Port != opts.Port {
			return nil, fmt.Errorf("already running on port %d, not %d (stop it first)", prev.Port, opts.Port)
		}
		m.port = prev.Port
		if err := m.waitReady(ctx, nil); err != nil {
			return nil, fmt.Errorf("%w\nserver log (%s):\n%s", err, m.LogFile(), readTail(m.LogFile(), 0))
		}
	} else {
		if err := m.prepareDir(ctx, prev.User); err != nil {
			return nil, err
		}
		// installDB puts a data directory in place only once complete.
		if _, err := os.Stat(m.DataDir()); errors.Is(err, fs.ErrNotExist) {
			if err := m.installDB(ctx, prev); err != nil {
				return nil, err
			}
		}
		if err := m.startServer(ctx, opts, prev.Port); err != nil {
			return nil, err
		}
	}
	if err := m.CreateDatabase(ctx, Database); err != nil {
		return nil, err
	}
	return m, nil
}

// OpenMariaDB returns the MariaDB sandbox last started in dir, running or
// not, without starting it. It fails with an error matching ErrNoSandbox
// (errors.Is) if none was ever started there.
func OpenMariaDB(dir string) (*MariaDB, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("open mariadb sandbox in %s: %w", dir, err)
	}
	m := &MariaDB{dir: abs}
	st, err := m.readState()
	if errors.Is(err, fs.ErrNotExist) {
		return nil, &sentinelError{ErrNoSandbox, "no MariaDB sandbox in " + abs}
	}
	if err != nil {
		return nil, fmt.Errorf("open mariadb sandbox in %s: %w", dir, err)
	}
	m.port, m.user = st.Port, st.User
	return m, nil
}

// Dir is the sandbox directory (absolute).
func (m *MariaDB) Dir() string { return m.dir }

// DataDir is the server's data directory.
func (m *MariaDB) DataDir() string { return filepath.Join(m.dir, dataSubdir) }

// LogFile is the server log.
func (m *MariaDB) LogFile() string { return filepath.Join(m.dir, mariaDBLogName) }

// Port is the TCP port the server listens on (on 127.0.0.1).
func (m *MariaDB) Port() int { return m.port }

// URL is the connection URL of database dbname, as MariaDBUser:
// mysql://root@127.0.0.1:PORT/dbname.
func (m *MariaDB) URL(dbname string) string {
	return fmt.Sprintf("mysql://%s@127.0.0.1:%d/%s", MariaDBUser, m.port, url.PathEscape(dbname))
}

// Status reports whether the server is running, and where.
func (m *MariaDB) Status() Status {
	s := Status{Port: m.port, Dir: m.dir, DataDir: m.DataDir(), LogFile: m.LogFile()}
	// Read afresh: another process may have restarted the server since.
	if st, err := m.readState(); err == nil && postmasterAlive(st.PID, m.DataDir()) {
		s.Running, s.PID, s.Port = true, st.PID, st.Port
	}
	return s
}

// Running reports whether the server process is alive.
func (m *MariaDB) Running() bool {
	return m.Status().Running
}

// Stop shuts the server down (a normal shutdown: sessions are disconnected,
// the buffer pool is flushed) and waits for it. Stopping a sandbox that is
// not running is not an error.
func (m *MariaDB) Stop(ctx context.Context) error {
	st := m.Status()
	if !st.Running {
		return nil
	}
	if err := m.stop(ctx, st.PID); err != nil {
		return fmt.Errorf("stop mariadb sandbox in %s: %w", m.dir, err)
	}
	return nil
}

func (m *MariaDB) stop(ctx context.Context, pid int) error {
	proc, err := os.FindProcess(pid)
	if err != nil {
		return err
	}
	defer proc.Release()
	// SIGTERM is mariadbd's normal shutdown.
	if err := proc.Signal(syscall.SIGTERM); err != nil && postmasterAlive(pid, m.DataDir()) {
		return fmt.Errorf("signal the server (pid %d): %w", pid, err)
	}
	deadline := time.Now().Add(mariaDBStopTimeout)
	for postmasterAlive(pid, m.DataDir()) {
		if time.Now().After(deadline) {
			return fmt.Errorf("the server (pid %d) did not shut down within %v; see %s", pid, mariaDBStopTimeout, m.LogFile())
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("wait for the server (pid %d) to shut down: %w", pid, ctx.Err())
		case <-time.After(50 * time.Millisecond):
		}
	}
	return nil
}

// CreateDatabase creates database name unless it exists.
func (m *MariaDB) CreateDatabase(ctx context.Context, name string) error {
	db, err := m.openDB("")
	if err != nil {
		return fmt.Errorf("create database %q: %w", name, err)
	}
	defer db.Close()
	// IF NOT EXISTS also makes a concurrent creation by someone else harmless.
	if _, err := db.ExecContext(ctx, "CREATE DATABASE IF NOT EXISTS "+quoteIdent(name)); err != nil {
		return fmt.Errorf("create database %q: %w", name, err)
	}
	return nil
}

// DropDatabase drops database name if it exists, disconnecting the sessions
// using it first: a session in a transaction holds metadata locks that would
// make DROP DATABASE wait for it.
func (m *MariaDB) DropDatabase(ctx context.Context, name string) error {
	if err := m.dropDatabase(ctx, name); err != nil {
		return fmt.Errorf("drop database %q: %w", name, err)
	}
	return nil
}

func (m *MariaDB) dropDatabase(ctx context.Context, name string) error {
	db, err := m.openDB("")
	if err != nil {
		return err
	}
	defer db.Close()
	// One session throughout, for its lock_wait_timeout.
	conn, err := db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	// Should a session escape the kills below (one connecting meanwhile), fail
	// after a minute rather than wait the default year.
	if _, err := conn.ExecContext(ctx, "SET SESSION lock_wait_timeout = 60"); err != nil {
		return err
	}
	rows, err := conn.QueryContext(ctx,
		"SELECT ID FROM information_schema.PROCESSLIST WHERE DB = ? AND ID <> CONNECTION_ID()", name)
	if err != nil {
		return fmt.Errorf("list the database's sessions: %w", err)
	}
	var ids []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return err
		}
		ids = append(ids, id)
	}
	if err := errors.Join(rows.Err(), rows.Close()); err != nil {
		return fmt.Errorf("list the database's sessions: %w", err)
	}
	for _, id := range ids {
		_, err := conn.ExecContext(ctx, "KILL CONNECTION "+strconv.FormatInt(id, 10))
		var myErr *mysql.MySQLError
		if errors.As(err, &myErr) && myErr.Number == 1094 { // ER_NO_SUCH_THREAD: it ended by itself
			err = nil
		}
		if err != nil {
			return fmt.Errorf("disconnect session %d: %w", id, err)
		}
	}
	_, err = conn.ExecContext(ctx, "DROP DATABASE IF EXISTS "+quoteIdent(name))
	return err
}

// StopOnExit starts a watchdog process that shuts the server down and, with
// removeDir, deletes the sandbox directory as soon as this process ends,
// however it ends: a test binary killed by -timeout or by a signal runs no
// deferred cleanup, and an orphaned server would hold its port and memory
// until reboot. The returned function triggers the watchdog now and waits for
// it; call it for an orderly end (after Stop, which waits for the shutdown
// and reports errors).
func (m *MariaDB) StopOnExit(removeDir bool) (stopNow func() error, err error) {
	if m.watchdog != nil {
		return nil, errors.New("sandbox watchdog already started")
	}
	dataDir, err := filepath.EvalSymlinks(m.DataDir())
	if err != nil {
		return nil, fmt.Errorf("start sandbox watchdog: %w", err)
	}
	r, w, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("start sandbox watchdog: %w", err)
	}
	defer r.Close()
	// The watchdog blocks reading the pipe; the only writer is this process,
	// so the read returns (EOF) exactly when this process closes it or dies.
	// It then takes the PID from the server's pid file, which mariadbd
	// removes when it shuts down cleanly (so a server already stopped is left
	// alone) and which follows restarts; on Linux it also checks that the
	// process works in the data directory, in case a crash left the file
	// behind and its PID has been reused. The server gets a minute to shut
	// down normally, then is killed.
	const script = `read -r _
pid=$(cat -- "$1" 2>/dev/null)
if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null && { [ ! -d "/proc/$pid" ] || [ "$(readlink "/proc/$pid/cwd")" = "$2" ]; }; then
	kill -TERM "$pid"
	i=0
	while kill -0 "$pid" 2>/dev/null && [ "$i" -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
	kill -KILL "$pid" 2>/dev/null
fi
if [ "$3" = 1 ]; then
	rm -rf -- "$4"
	if [ -n "$5" ]; then rm -f -- "$5"; fi
fi`
	remove, socket := "0", ""
	if removeDir {
		remove = "1"
		if s := m.socketPath(); filepath.Dir(s) != m.dir {
			socket = s // left behind in the temporary directory by a killed server
		}
	}
	cmd := exec.Command("/bin/sh", "-c", script, "sledge-sandbox-watchdog",
		filepath.Join(m.dir, mariaDBPIDName), dataDir, remove, m.dir, socket)
	cmd.Dir = "/"
	cmd.Stdin = r
	// As the current user, who can signal the server and remove the directory
	// whoever the server runs as; in its own process group, so that a Ctrl-C
	// to the test run does not kill the watchdog before the tests' own cleanup
	// had a chance.
	cmd.SysProcAttr = (*account)(nil).sysProcAttr(true)
	if err := cmd.Start(); err != nil {
		w.Close()
		return nil, fmt.Errorf("start sandbox watchdog: %w", err)
	}
	m.watchdog = w
	return func() error {
		w.Close()
		if err := cmd.Wait(); err != nil {
			return fmt.Errorf("sandbox watchdog: %w", err)
		}
		return nil
	}, nil
}

// prepareDir creates the sandbox directory and decides who runs the server
// (see StartMariaDB): user is the one recorded by an earlier start, if any.
// When the server runs as another user, it checks that this user can reach
// the directory, and if not removes the directories it created, so that a
// refused directory leaves no trace.
func (m *MariaDB) prepareDir(ctx context.Context, user string) error {
	if os.Geteuid() != 0 {
		m.user = currentUser()
		return os.MkdirAll(m.dir, 0o755)
	}
	if user == "" {
		user = "root"
		if _, err := lookupUser("mysql"); err == nil {
			// mariadbd can run as root (with --user=root), but a server
			// bug exploited through the sandbox should not own the machine.
			user = "mysql"
		}
	}
	m.user = user
	if user == "root" {
		m.asRoot = true
		return os.MkdirAll(m.dir, 0o755)
	}
	u, err := lookupUser(user)
	if err != nil {
		return fmt.Errorf("the sandbox's server runs as user %s: %w", user, err)
	}
	created := firstMissing(m.dir)
	if err := os.MkdirAll(m.dir, 0o755); err != nil {
		return err
	}
	if err := os.Lchown(m.dir, u.uid, u.gid); err != nil {
		return fmt.Errorf("give %s to user %s: %w", m.dir, user, err)
	}
	// serverAccount picks the owner of an existing sandbox directory, which
	// dir now is: the account of user (or of whoever owns an existing data
	// directory, which must stay its owner).
	if m.acct, err = serverAccount(m.dir, m.DataDir()); err != nil {
		return err
	}
	if err := m.checkReachable(ctx); err != nil {
		if created != "" {
			removeUpTo(m.dir, created)
		}
		return err
	}
	return nil
}

// checkReachable reports an error matching ErrUnreachable if the server's
// user cannot enter the sandbox directory. Rather than second-guess
// permissions, ownership and groups, it asks the kernel: a program started as
// that user in the directory fails to start if the user cannot enter it.
func (m *MariaDB) checkReachable(ctx context.Context) error {
	if m.acct == nil {
		return nil
	}
	cmd := exec.CommandContext(ctx, m.bins.Server, "--no-defaults", "--version")
	cmd.Dir = m.dir
	cmd.SysProcAttr = m.acct.sysProcAttr(false)
	err := cmd.Run()
	if err == nil {
		return nil
	}
	if !errors.Is(err, fs.ErrPermission) {
		return fmt.Errorf("run %s as %s in %s: %w", m.bins.Server, m.acct, m.dir, err)
	}
	culprit := ""
	// The usual obstacle: a private parent directory (a root home directory is
	// mode 0700). Name the outermost one closed to others, the first the
	// server's user runs into.
	for p := m.dir; p != filepath.Dir(p); {
		p = filepath.Dir(p)
		if fi, err := os.Stat(p); err == nil && fi.Mode().Perm()&0o001 == 0 {
			culprit = fmt.Sprintf(" (probably %s, mode %v)", p, fi.Mode().Perm())
		}
	}
	return &sentinelError{ErrUnreachable, fmt.Sprintf("%v: the MariaDB server runs as %s, rather than as root, "+
		"and that user cannot enter %s or one of its parents%s: put the sandbox under a directory every user can enter, "+
		"e.g. under %s, or run Sledge as an ordinary user", ErrUnreachable, m.acct, m.dir, culprit, os.TempDir())}
}

// installDB initializes the data directory. It works in a scratch directory
// renamed into place at the end, so that an interrupted initialization never
// leaves a half-made data directory for the next start to trip over.
func (m *MariaDB) installDB(ctx context.Context, st mariaDBState) error {
	tmp := m.DataDir() + ".install"
	if err := os.RemoveAll(tmp); err != nil {
		return err
	}
	// Recorded now, so that a later start (by root, say) runs the server as
	// the user that owns the data directory.
	st.User = m.user
	if err := m.writeState(st); err != nil {
		return err
	}
	args := []string{
		"--no-defaults", // no my.cnf: the system server's settings are not ours
		"--datadir=" + tmp,
		// root without a password, from 127.0.0.1 as from the socket.
		"--auth-root-authentication-method=normal",
		"--skip-test-db",
		// No accounts tied to this host's name (which needs resolving, and
		// which --skip-name-resolve would ignore anyway), and no advice about
		// production servers on the output.
		"--cross-bootstrap",
	}
	tmpdir, err := m.tmpDir()
	if err != nil {
		return err
	}
	args = append(args, "--tmpdir="+tmpdir)
	if m.asRoot {
		args = append(args, "--user=root")
	}
	// Run as the server's user rather than with --user=mysql, which would
	// make the script change the ownership of files of the installation.
	out, err := m.command(ctx, m.bins.InstallDB, args...).CombinedOutput()
	if err != nil {
		os.RemoveAll(tmp)
		return fmt.Errorf("%s as %s: %w\n%s", filepath.Base(m.bins.InstallDB), m.runsAs(), err, tail(out))
	}
	return os.Rename(tmp, m.DataDir())
}

// startServer starts mariadbd and waits until it accepts connections,
// retrying with another port if a picked one was taken in the meantime.
func (m *MariaDB) startServer(ctx context.Context, opts Options, prevPort int) error {
	for attempt := 1; ; attempt++ {
		port := opts.Port
		if port == 0 {
			var err error
			if port, err = freePort(prevPort); err != nil {
				return err
			}
			prevPort = 0 // taken after all: do not insist on it
		}
		m.port = port
		var logOffset int64
		if fi, err := os.Stat(m.LogFile()); err == nil {
			logOffset = fi.Size()
		}
		proc, err := m.launch(opts.Settings)
		if err != nil {
			return err
		}
		err = m.waitReady(ctx, proc)
		if err == nil {
			return nil
		}
		// Not ready: do not leave it behind, half started.
		if st, serr := m.readState(); serr == nil {
			if p, ferr := os.FindProcess(st.PID); ferr == nil {
				p.Kill()
				p.Release()
			}
		}
		<-proc.exited
		log := readTail(m.LogFile(), logOffset)
		if opts.Port == 0 && attempt < 3 && strings.Contains(log, "Bind on TCP/IP port") {
			continue // another program took the port between our check and the server's bind
		}
		return fmt.Errorf("%w\nserver log (%s):\n%s", err, m.LogFile(), log)
	}
}

// serverProcess is a server this process started.
type serverProcess struct {
	exited chan struct{} // closed when it has ended
	err    error         // how it ended, once exited is closed
}

// launch starts mariadbd in the background and records it in the state
// file.
func (m *MariaDB) launch(settings map[string]string) (*serverProcess, error) {
	// The server's stdout and stderr go to its log too: option errors are
	// printed before the log file is opened.
	logf, err := os.OpenFile(m.LogFile(), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	defer logf.Close()
	if err := m.acct.chown(m.LogFile()); err != nil {
		return nil, err
	}
	// Not CommandContext: the server outlives the call, and this process.
	if _, err := m.tmpDir(); err != nil { // a sandbox made before it had one
		return nil, err
	}
	cmd := exec.Command(m.bins.Server, m.serverArgs(settings)...)
	// mariadbd works in its data directory; postmasterAlive recognizes it by
	// that, from the start.
	cmd.Dir = m.DataDir()
	cmd.Stdout, cmd.Stderr = logf, logf
	// In a process group of its own, so that a Ctrl-C aimed at Sledge does not
	// reach it.
	cmd.SysProcAttr = m.acct.sysProcAttr(true)
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s as %s: %w", m.bins.Server, m.runsAs(), err)
	}
	proc := &serverProcess{exited: make(chan struct{})}
	go func() {
		// Reaps it, should it end while this process runs.
		proc.err = cmd.Wait()
		close(proc.exited)
	}()
	st := mariaDBState{Port: m.port, PID: cmd.Process.Pid, User: m.user, Server: m.bins.Server, Socket: m.socketPath()}
	if err := m.writeState(st); err != nil {
		cmd.Process.Kill()
		<-proc.exited
		return nil, err
	}
	return proc, nil
}

// serverArgs are mariadbd's options. Every one is given explicitly, after
// --no-defaults: the system server's my.cnf must not leak in.
func (m *MariaDB) serverArgs(settings map[string]string) []string {
	args := []string{
		"--no-defaults", // must come first
		"--datadir=" + m.DataDir(),
		"--port=" + strconv.Itoa(m.port),
		"--bind-address=127.0.0.1",
		// The socket belongs to the sandbox, out of the way of any system
		// server's.
		"--socket=" + m.socketPath(),
		"--tmpdir=" + filepath.Join(m.dir, mariaDBTmpName),
		"--pid-file=" + filepath.Join(m.dir, mariaDBPIDName),
		"--log-error=" + m.LogFile(),
		"--skip-name-resolve",
		// No TLS on a loopback sandbox. MariaDB 11.4 and later otherwise make
		// a self-signed certificate at every start, a key generation that
		// took 9 s on a quiet machine and over 60 s on a busy one before the
		// server opened its socket.
		"--skip-ssl",
		"--max-connections=500",
		// The loader sends its rows with LOAD DATA LOCAL INFILE.
		"--local-infile=1",
		"--character-set-server=utf8mb4",
		"--innodb-buffer-pool-size=256M",
		"--innodb-log-file-size=256M",
		// A sandbox holds benchmark and test data that can be rebuilt:
		// durability is not worth its cost here. The redo log is written and
		// flushed about once a second instead of at every commit, pages are
		// not written twice, and there is no binary log to write or sync.
		"--innodb-flush-log-at-trx-commit=0",
		"--innodb-doublewrite=0",
		"--skip-log-bin",
		"--sync-binlog=0",
	}
	if m.asRoot {
		args = append(args, "--user=root") // mariadbd refuses root without it
	}
	for _, k := range slices.Sorted(maps.Keys(settings)) {
		args = append(args, "--"+k+"="+settings[k])
	}
	return args
}

// socketPath is where the server's Unix socket goes: in the sandbox
// directory unless that path is too long for a socket address, else in the
// temporary directory under a name derived from the sandbox directory (the
// same at every start).
func (m *MariaDB) socketPath() string {
	if p := filepath.Join(m.dir, mariaDBSocketName); len(p) <= maxSocketPath {
		return p
	}
	sum := sha256.Sum256([]byte(m.dir))
	name := "sledge-mariadb-" + hex.EncodeToString(sum[:8]) + ".sock"
	return filepath.Join("/tmp", name)
}

// waitReady waits until the server accepts connections as MariaDBUser.
// proc is the server if this process started it; without it, the server is
// watched through its PID.
func (m *MariaDB) waitReady(ctx context.Context, proc *serverProcess) error {
	var exited <-chan struct{} // nil, never ready, without proc
	if proc != nil {
		exited = proc.exited
	}
	db, err := m.openDB("")
	if err != nil {
		return err
	}
	defer db.Close()
	deadline := time.Now().Add(mariaDBReadyTimeout)
	for {
		pingCtx, cancel := context.WithTimeout(ctx, 5*time.Second)
		err := db.PingContext(pingCtx)
		cancel()
		if err == nil {
			return nil
		}
		var myErr *mysql.MySQLError
		if errors.As(err, &myErr) {
			// The server answered, and refused: waiting will not change its mind.
			return fmt.Errorf("the server refuses %s without a password (was %s initialized by something other than Sledge?): %w",
				MariaDBUser, m.DataDir(), err)
		}
		if proc == nil && !m.Running() {
			return errors.New("the server stopped while starting")
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the server did not accept connections within %v: %w", mariaDBReadyTimeout, err)
		}
		select {
		case <-exited:
			return fmt.Errorf("the server exited while starting (%v)", proc.err)
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// openDB returns a connection pool to database dbname ("" for none).
func (m *MariaDB) openDB(dbname string) (*sql.DB, error) {
	cfg := mysql.NewConfig()
	cfg.User = MariaDBUser
	cfg.Net = "tcp"
	cfg.Addr = net.JoinHostPort("127.0.0.1", strconv.Itoa(m.port))
	cfg.DBName = dbname
	cfg.Timeout = 10 * time.Second
	connector, err := mysql.NewConnector(cfg)
	if err != nil {
		return nil, err
	}
	return sql.OpenDB(connector), nil
}

// command prepares a program of the installation to run as the server's
// user.
func (m *MariaDB) command(ctx context.Context, name string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, name, args...)
	// The server's user may not be able to enter the caller's working directory.
	cmd.Dir = m.dir
	cmd.SysProcAttr = m.acct.sysProcAttr(false)
	// Should a stray child still hold our pipes, do not wait for it forever.
	cmd.WaitDelay = 5 * time.Second
	return cmd
}

// runsAs names who runs the server, for messages.
func (m *MariaDB) runsAs() string {
	if m.asRoot {
		return "root"
	}
	return m.acct.String()
}

// currentUser is the name of the user running this process, "" if unknown.
func currentUser() string {
	if u, err := user.Current(); err == nil {
		return u.Username
	}
	return ""
}

func (m *MariaDB) readState() (mariaDBState, error) {
	var st mariaDBState
	b, err := os.ReadFile(filepath.Join(m.dir, mariaDBStateName))
	if err != nil {
		return st, err
	}
	if err := json.Unmarshal(b, &st); err != nil {
		return st, fmt.Errorf("read %s: %w", mariaDBStateName, err)
	}
	return st, nil
}

// mariaDBTmpName is the sandbox's own directory for the server's temporary
// files: several sandboxes bootstrapping at once must not share /tmp.
const mariaDBTmpName = "tmp"

// tmpDir creates the sandbox's temporary directory, owned by the server's
// user, and returns it.
func (m *MariaDB) tmpDir() (string, error) {
	dir := filepath.Join(m.dir, mariaDBTmpName)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	return dir, m.acct.chown(dir)
}

func (m *MariaDB) writeState(st mariaDBState) error {
	b, err := json.Marshal(st)
	if err != nil {
		return err
	}
	path := filepath.Join(m.dir, mariaDBStateName)
	if err := os.WriteFile(path, append(b, '\n'), 0o644); err != nil {
		return err
	}
	return m.acct.chown(path)
}

// systemUser is a user's numeric identity.
type systemUser struct{ uid, gid int }

func lookupUser(name string) (systemUser, error) {
	u, err := user.Lookup(name)
	if err != nil {
		return systemUser{}, err
	}
	uid, err1 := strconv.Atoi(u.Uid)
	gid, err2 := strconv.Atoi(u.Gid)
	if err := errors.Join(err1, err2); err != nil {
		return systemUser{}, fmt.Errorf("user %s: %w", name, err)
	}
	return systemUser{uid: uid, gid: gid}, nil
}

// firstMissing returns the outermost directory of dir's path that does not
// exist yet ("" if dir exists): what MkdirAll(dir) will create.
func firstMissing(dir string) string {
	missing := ""
	for p := dir; ; p = filepath.Dir(p) {
		if _, err := os.Stat(p); err == nil {
			return missing
		}
		missing = p
		if p == filepath.Dir(p) {
			return missing
		}
	}
}

// removeUpTo removes dir and its parents up to and including top, as long as
// they are empty.
func removeUpTo(dir, top string) {
	for p := dir; ; p = filepath.Dir(p) {
		if os.Remove(p) != nil || p == top || p == filepath.Dir(p) {
			return
		}
	}
}

// quoteIdent quotes a MariaDB identifier.
func quoteIdent(name string) string {
	return "`" + strings.ReplaceAll(name, "`", "``") + "`"
}

// readTail returns what the file at path holds after offset, at most its last
// 4 KiB: the reason for a failure is at the end.
func readTail(path string, offset int64) string {
	f, err := os.Open(path)
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

// tail returns the last 4 KiB of a program's output.
func tail(out []byte) string {
	if len(out) > 4096 {
		out = out[len(out)-4096:]
	}
	return strings.TrimSpace(string(out))
}
