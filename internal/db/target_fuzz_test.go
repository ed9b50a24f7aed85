package db

import (
	"net/url"
	"path/filepath"
	"strings"
	"testing"
)

// targetSeeds are the seed corpus of FuzzParseTarget: every form --db and
// an API body's "db" take, the edge cases of each, and inputs that must be
// refused. `go test` runs them as a regular test; `go test -fuzz
// FuzzParseTarget ./internal/db/` explores from them.
var targetSeeds = []string{
	"",
	"postgres://u:secret@127.0.0.1:5432/tpcc",
	"postgresql://bench:p%40ss@db.example/tpcc?sslmode=require",
	"postgres://h/x?dbname=tpcc&user=bench&password=hunter22",
	"postgres://[::1]:5432/tpcc",
	"postgres:///tpcc",
	"postgres://",
	"postgres://u:p@h:99999/x",
	"postgres://%zz@h/x",
	"postgres://u:p%zz@h/x",
	"postgres://u:p@[::1/x",
	"mysql://root@127.0.0.1:3306/tpcc",
	"mariadb://u:p@/tp%20cc?socket=/run/mysqld/mysqld.sock",
	"mysql://root@127.0.0.1:3306/",
	"mysql://root@/db",
	"mysql://u:pw@h:3306/db?password=other",
	"sqlite:/var/lib/sledge/tprocc.sqlite",
	"sqlite:relative/bench.db",
	"sqlite:../../escape.db",
	"sqlite://",
	"sqlite:",
	"sqlite:/tmp/x.db?cache=shared",
	"sqlite:/tmp/%2e%2e/x.db",
	"duckdb:/root/x.duckdb",
	"duckdb://tproch.duckdb",
	"duckdb:",
	"bench.db",
	"BENCH.SQLITE3",
	"/abs/path/tpch.DuckDB",
	"oracle://scott:tiger@h/x",
	"http://example.com/x.db",
	"://",
	"nosuchname",
	"bench",
	"sqlite:\x00.db",
	"postgres://u:p@h/x\x7f",
	"\xff\xfe.db",
	// Not URLs, but holding a password an error must not repeat.
	"host=localhost user=bench password=hunter22 dbname=tpcc",
	"0?password=000000",
	"bench:hunter22@db.example/tpcc",
	"sqlite:/tmp/x.db?password=hunter22",
	"\x80PASSWORD=hunter22",
	"?password= 00000",
	"host=h password = 'it''s secret' dbname=x",
	"A://:00000:@#00000",
	"?password=00000000000# \x00000000000",
}

// FuzzParseTarget: ParseTarget never panics; what it accepts is a target of
// a known kind that prints without its password (embedded ones as an
// absolute path); what it refuses gets a one-line message that says what is
// wrong and never shows the password of a URL. EmbeddedPath agrees with it.
func FuzzParseTarget(f *testing.F) {
	for _, s := range targetSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		target, err := ParseTarget(s)
		pw := urlPassword(s)
		ek, epath, embedded := EmbeddedPath(s)
		if err != nil {
			msg := err.Error()
			if msg == "" || strings.ContainsAny(msg, "\n\r") && !strings.ContainsAny(s, "\n\r") {
				t.Fatalf("ParseTarget(%q): unclear error %q", s, msg)
			}
			if !strings.HasPrefix(msg, "database") && !strings.HasPrefix(msg, "parse database URL") &&
				!strings.HasPrefix(msg, "no database given") {
				t.Errorf("ParseTarget(%q): error %q does not say it is about the database", s, msg)
			}
			if pw != "" && strings.Contains(msg, pw) {
				t.Errorf("ParseTarget(%q): error %q shows the password", s, msg)
			}
			if embedded && epath != "" && !strings.Contains(epath, "?") {
				// Only an empty path or options are refused for a file.
				if _, aerr := filepath.Abs(epath); aerr == nil {
					t.Errorf("ParseTarget(%q) refused the embedded path %q: %v", s, epath, err)
				}
			}
			return
		}
		switch target.Kind {
		case Postgres, MySQL:
			if embedded {
				t.Errorf("ParseTarget(%q) = server %s, but EmbeddedPath says %s", s, target.Kind, ek)
			}
			if target.DSN != s {
				t.Errorf("ParseTarget(%q): DSN %q, want the URL unchanged", s, target.DSN)
			}
			if pw != "" && strings.Contains(target.String(), pw) {
				t.Errorf("ParseTarget(%q).String() = %q shows the password", s, target.String())
			}
		case SQLite, DuckDB:
			if !embedded || ek != target.Kind {
				t.Errorf("ParseTarget(%q) = %s, EmbeddedPath = %q %q %v", s, target.Kind, ek, epath, embedded)
			}
			if !filepath.IsAbs(target.DSN) {
				t.Errorf("ParseTarget(%q): embedded DSN %q is not absolute", s, target.DSN)
			}
			if want := string(target.Kind) + ":" + target.DSN; target.String() != want {
				t.Errorf("ParseTarget(%q).String() = %q, want %q", s, target.String(), want)
			}
			// A target's printed form parses back to the same target.
			again, err := ParseTarget(target.String())
			if err != nil || again != target {
				t.Errorf("ParseTarget(%q) = %+v, but its String %q parses to %+v, %v", s, target, target.String(), again, err)
			}
		default:
			t.Errorf("ParseTarget(%q): unknown kind %q", s, target.Kind)
		}
	})
}

// urlPassword is the password in s's user info or password= parameter, when
// s parses as a URL and the password is recognisable in a message: six or
// more letters and digits, one of them a letter beyond f, once in s (""
// otherwise).
func urlPassword(s string) string {
	u, err := url.Parse(s)
	if err != nil {
		return ""
	}
	pw, _ := u.User.Password()
	if pw == "" {
		pw = u.Query().Get("password")
	}
	if len(pw) < 6 || strings.Count(s, pw) != 1 || strings.ContainsFunc(pw, func(r rune) bool {
		return !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9')
	}) || !strings.ContainsFunc(pw, func(r rune) bool { return 'g' <= r && r <= 'z' || 'G' <= r && r <= 'Z' }) {
		// (A letter beyond hex digits: a quoted message's escapes such as
		// \x00 cannot spell it by accident.)
		return ""
	}
	return pw
}

// TestEmbeddedPath: the raw paths as written, and servers never embedded.
func TestEmbeddedPath(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in   string
		kind Kind
		path string
		ok   bool
	}{
		{"sqlite:../../escape.db", SQLite, "../../escape.db", true},
		{"sqlite:///abs/x.db", SQLite, "/abs/x.db", true},
		{"duckdb:/root/x.duckdb", DuckDB, "/root/x.duckdb", true},
		{"bench.sqlite3", SQLite, "bench.sqlite3", true},
		{"tpch.duckdb", DuckDB, "tpch.duckdb", true},
		{"postgres://h/x.db", "", "", false},
		{"mysql://h/x.db", "", "", false},
		{"bench", "", "", false},
	} {
		k, p, ok := EmbeddedPath(tc.in)
		if k != tc.kind || p != tc.path || ok != tc.ok {
			t.Errorf("EmbeddedPath(%q) = %q %q %v, want %q %q %v", tc.in, k, p, ok, tc.kind, tc.path, tc.ok)
		}
	}
}
