package db

import (
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
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
		return Target{}, fmt.Errorf("no database given (want postgres://user@host:port/dbname, mysql://user@host:port/dbname or sqlite:PATH)")
	case strings.HasPrefix(s, "postgres://"), strings.HasPrefix(s, "postgresql://"):
		u, err := ParseURL(s)
		if err != nil {
			return Target{}, fmt.Errorf("parse database URL: %w", err)
		}
		if u.Host == "" {
			return Target{}, fmt.Errorf("database %s: no host in URL", Redact(s))
		}
		return Target{Kind: Postgres, DSN: s}, nil
	case strings.HasPrefix(s, "mysql://"), strings.HasPrefix(s, "mariadb://"):
		u, err := ParseURL(s)
		if err != nil {
			return Target{}, fmt.Errorf("parse database URL: %w", err)
		}
		if u.Host == "" && u.Query().Get("socket") == "" {
			return Target{}, fmt.Errorf("database %s: no host in URL (or ?socket=PATH for a Unix socket)", Redact(s))
		}
		if strings.Trim(u.Path, "/") == "" {
			return Target{}, fmt.Errorf("database %s: no database name in URL (mysql://user@host:port/dbname)", Redact(s))
		}
		return Target{Kind: MySQL, DSN: s}, nil
	}
	if k, path, ok := EmbeddedPath(s); ok {
		return fileTarget(k, path)
	}
	if i := strings.Index(s, "://"); i > 0 && len(scheme.FindString(s)) == i+1 {
		return Target{}, fmt.Errorf("database %s: unsupported database %q (supported: postgres, mysql, mariadb, sqlite, duckdb)", Redact(s), s[:i])
	}
	return Target{}, fmt.Errorf("database %q: not a database URL (postgres://…, mysql://…) or SQLite file (sqlite:PATH, *.db)", Redact(s))
}

// EmbeddedPath reports whether s names an embedded engine's database file
// as ParseTarget reads it (sqlite:PATH, sqlite://PATH, duckdb:PATH,
// duckdb://PATH, a bare path ending in .db, .sqlite, .sqlite3 or .duckdb)
// and returns its kind and the path as written: not made absolute, not
// checked. It touches nothing: a caller can decide where a path may lie
// (app.TargetPolicy) before anything is created there.
func EmbeddedPath(s string) (k Kind, path string, ok bool) {
	for _, p := range []string{"postgres://", "postgresql://", "mysql://", "mariadb://"} {
		if strings.HasPrefix(s, p) {
			return "", "", false
		}
	}
	for _, p := range []struct {
		prefix string
		kind   Kind
	}{{"duckdb://", DuckDB}, {"duckdb:", DuckDB}, {"sqlite://", SQLite}, {"sqlite:", SQLite}} {
		if rest, found := strings.CutPrefix(s, p.prefix); found {
			return p.kind, rest, true
		}
	}
	switch strings.ToLower(filepath.Ext(s)) {
	case ".db", ".sqlite", ".sqlite3":
		return SQLite, s, true
	case ".duckdb":
		return DuckDB, s, true
	}
	return "", "", false
}

// fileTarget is an embedded engine's database file.
func fileTarget(k Kind, path string) (Target, error) {
	if path == "" {
		return Target{}, fmt.Errorf("database %s: needs a file path, e.g. %s:/tmp/bench.%s", k, k, k)
	}
	if i := strings.IndexByte(path, '?'); i >= 0 {
		return Target{}, fmt.Errorf("database %s:%s: options after '?' are not supported; Sledge sets what it needs itself", k, path[:i])
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return Target{}, fmt.Errorf("database %s:%s: %w", k, path, err)
	}
	return Target{Kind: k, DSN: abs}, nil
}

// Login returns the database, user and password a server target's URL
// names. User and password are empty when the URL gives none (the driver's
// default applies: PostgreSQL's is the system user, MariaDB/MySQL's root).
func (t Target) Login() (database, user, password string, err error) {
	u, q, err := t.serverURL()
	if err != nil {
		return "", "", "", err
	}
	database = strings.TrimPrefix(u.Path, "/")
	if u.User != nil {
		user = u.User.Username()
		password, _ = u.User.Password()
	}
	if t.Kind == Postgres {
		// Parameters override the URL's parts, as pgx reads them.
		for _, k := range []string{"dbname", "database"} {
			if q.Has(k) {
				database = q.Get(k)
			}
		}
		if q.Has("user") {
			user = q.Get("user")
		}
		if q.Has("password") {
			password = q.Get("password")
		}
	}
	return database, user, password, nil
}

// AdminTarget is t's server reached at database as user with password: the
// session to open for Admin.CreateDatabase. Host, port and other parameters
// stay t's; an empty user keeps t's user and password.
func AdminTarget(t Target, database, user, password string) (Target, error) {
	u, q, err := t.serverURL()
	if err != nil {
		return Target{}, err
	}
	u.Path, u.RawPath = "/"+database, ""
	drop := []string{"dbname", "database"}
	if user != "" {
		u.User = url.UserPassword(user, password)
		if password == "" {
			u.User = url.User(user)
		}
		drop = append(drop, "user", "password")
	}
	if t.Kind == Postgres && slices.ContainsFunc(drop, q.Has) {
		// They would override the URL's parts (see Login).
		for _, k := range drop {
			q.Del(k)
		}
		u.RawQuery = q.Encode()
	}
	return Target{Kind: t.Kind, DSN: u.String()}, nil
}

// serverURL parses the DSN of a server target.
func (t Target) serverURL() (*url.URL, url.Values, error) {
	if t.Kind != Postgres && t.Kind != MySQL {
		return nil, nil, fmt.Errorf("%s: %s is an embedded engine, not a server with logins", t, t.Kind)
	}
	u, err := ParseURL(t.DSN)
	if err != nil {
		return nil, nil, err
	}
	return u, u.Query(), nil
}

// String is the target with any password removed: safe to print and store.
func (t Target) String() string {
	if t.Kind == SQLite || t.Kind == DuckDB {
		return string(t.Kind) + ":" + t.DSN
	}
	return Redact(t.DSN)
}

// ParseURL is url.Parse whose error (a *url.Error, as url.Parse's) shows
// raw redacted, and of its detail (a port, an escape) only what the
// redacted URL shows too: otherwise the detail may be a piece of a password
// (u:pa/ss@host reads as the host u with the port "pa").
func ParseURL(raw string) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err == nil {
		return u, nil
	}
	var ue *url.Error
	if !errors.As(err, &ue) {
		return nil, RedactError(err, raw)
	}
	shown := Redact(raw)
	detail := goQuoted.ReplaceAllStringFunc(ue.Err.Error(), func(q string) string {
		if v, err := strconv.Unquote(q); err == nil && strings.Contains(shown, v) {
			return q
		}
		return "…"
	})
	return nil, &url.Error{Op: ue.Op, URL: shown, Err: errors.New(RedactWith(detail, raw))}
}

// goQuoted is a string quoted by %q.
var goQuoted = regexp.MustCompile(`"(?:[^"\\]|\\.)*"`)
