package db

import (
	"fmt"
	"net/url"
	"path/filepath"
	"strings"
)

// Target is a database to connect to, parsed from --db.
type Target struct {
	Kind Kind
	// DSN is what the driver gets: a URL for servers (may hold a password), a
	// file path for embedded engines.
	DSN string
}

// ParseTarget accepts postgres://… / postgresql://… URLs, mysql://… /
// mariadb://… URLs (MariaDB and MySQL; ?socket=PATH for a Unix socket),
// sqlite:PATH or sqlite://PATH, and bare paths ending in .db, .sqlite or
// .sqlite3.
func ParseTarget(s string) (Target, error) {
	switch {
	case s == "":
		return Target{}, fmt.Errorf("no database given (use --db postgres://user@host:port/dbname, mysql://user@host:port/dbname or sqlite:PATH)")
	case strings.HasPrefix(s, "postgres://"), strings.HasPrefix(s, "postgresql://"):
		u, err := url.Parse(s)
		if err != nil {
			return Target{}, fmt.Errorf("parse --db URL: %w", redactErr(err, s))
		}
		if u.Host == "" {
			return Target{}, fmt.Errorf("--db %s: no host in URL", Redact(s))
		}
		return Target{Kind: Postgres, DSN: s}, nil
	case strings.HasPrefix(s, "mysql://"), strings.HasPrefix(s, "mariadb://"):
		u, err := url.Parse(s)
		if err != nil {
			return Target{}, fmt.Errorf("parse --db URL: %w", redactErr(err, s))
		}
		if u.Host == "" && u.Query().Get("socket") == "" {
			return Target{}, fmt.Errorf("--db %s: no host in URL (or ?socket=PATH for a Unix socket)", Redact(s))
		}
		if strings.Trim(u.Path, "/") == "" {
			return Target{}, fmt.Errorf("--db %s: no database name in URL (mysql://user@host:port/dbname)", Redact(s))
		}
		return Target{Kind: MySQL, DSN: s}, nil
	case strings.HasPrefix(s, "duckdb://"):
		return fileTarget(DuckDB, strings.TrimPrefix(s, "duckdb://"))
	case strings.HasPrefix(s, "duckdb:"):
		return fileTarget(DuckDB, strings.TrimPrefix(s, "duckdb:"))
	case strings.HasPrefix(s, "sqlite://"):
		return sqliteTarget(strings.TrimPrefix(s, "sqlite://"))
	case strings.HasPrefix(s, "sqlite:"):
		return sqliteTarget(strings.TrimPrefix(s, "sqlite:"))
	}
	switch strings.ToLower(filepath.Ext(s)) {
	case ".db", ".sqlite", ".sqlite3":
		return sqliteTarget(s)
	case ".duckdb":
		return fileTarget(DuckDB, s)
	}
	if i := strings.Index(s, "://"); i > 0 {
		return Target{}, fmt.Errorf("--db %s: unsupported database %q (supported: postgres, mysql, mariadb, sqlite, duckdb)", Redact(s), s[:i])
	}
	return Target{}, fmt.Errorf("--db %q: not a database URL (postgres://…, mysql://…) or SQLite file (sqlite:PATH, *.db)", s)
}

func sqliteTarget(path string) (Target, error) { return fileTarget(SQLite, path) }

// fileTarget is an embedded engine's database file.
func fileTarget(k Kind, path string) (Target, error) {
	if path == "" {
		return Target{}, fmt.Errorf("--db %s: needs a file path, e.g. %s:/tmp/bench.%s", k, k, k)
	}
	if i := strings.IndexByte(path, '?'); i >= 0 {
		return Target{}, fmt.Errorf("--db %s:%s: options after '?' are not supported; Sledge sets what it needs itself", k, path)
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return Target{}, fmt.Errorf("--db %s:%s: %w", k, path, err)
	}
	return Target{Kind: k, DSN: abs}, nil
}

// String is the target with any password removed: safe to print and store.
func (t Target) String() string {
	if t.Kind == SQLite || t.Kind == DuckDB {
		return string(t.Kind) + ":" + t.DSN
	}
	return Redact(t.DSN)
}

// Redact removes the password from a URL-shaped DSN (user info and
// password=… query parameters). Anything it cannot parse is returned with
// everything after the scheme hidden.
func Redact(dsn string) string {
	u, err := url.Parse(dsn)
	if err != nil || u.Scheme == "" {
		if i := strings.Index(dsn, "://"); i >= 0 {
			return dsn[:i+3] + "…"
		}
		return dsn
	}
	if u.User != nil {
		if _, has := u.User.Password(); has {
			u.User = url.UserPassword(u.User.Username(), "xxxxx")
		}
	}
	q := u.Query()
	if q.Has("password") {
		q.Set("password", "xxxxx")
		u.RawQuery = q.Encode()
	}
	return u.String()
}

func redactErr(err error, dsn string) error {
	msg := strings.ReplaceAll(err.Error(), dsn, Redact(dsn))
	return fmt.Errorf("%s", msg)
}
