package db

import (
	"net/url"
	"strings"
	"testing"
)

// Markers around a fuzzed secret: whatever piece of it shows, its first or
// last bytes do (they are in no other part of a generated DSN, nor in Mask).
const secretHead, secretTail = "SEKRIT", "TIRKES"

// dsnForms are DSNs of every form Redact reads, with SECRET in a credential
// position, as written raw and as written escaped for the position.
type dsnForm struct {
	name     string
	raw, enc func(secret string) string
}

var dsnForms = []dsnForm{
	{"userinfo", userinfoRaw("postgres"), userinfoEnc("postgres")},
	{"userinfo postgresql", userinfoRaw("postgresql"), userinfoEnc("postgresql")},
	{"userinfo mysql", userinfoRaw("mysql"), userinfoEnc("mysql")},
	{"userinfo mariadb", userinfoRaw("mariadb"), userinfoEnc("mariadb")},
	{"userinfo http", userinfoRaw("http"), userinfoEnc("http")},
	param("sslpassword", "postgres://bench@db1:5432/tpcc?sslmode=require&sslpassword=", "&application_name=me@corp"),
	param("password param", "postgresql://db1/tpcc?user=bench&PASSWORD=", ""),
	{"duplicated", func(s string) string { return paramRaw("postgres://db1/tpcc?password=", "&password=")(s) + queryRaw(s) },
		func(s string) string {
			return paramEnc("postgres://db1/tpcc?password=", "&password=")(s) + url.QueryEscape(s)
		}},
	param("token mysql", "mysql://root@db2:3306/tpcc?tls=true&api_key=", ";charset=utf8"),
	param("sqlite option", "sqlite:/srv/b.db?_auth_pass=", ""),
	{"go-sql-driver", func(s string) string { return "bench:" + s + "@tcp(db2:3306)/tpcc?parseTime=true" },
		func(s string) string { return "bench:" + url.QueryEscape(s) + "@tcp(db2:3306)/tpcc?parseTime=true" }},
	param("go-sql-driver param", "bench@unix(/run/mysqld.sock)/tpcc?parseTime=true&password=", ""),
	{"keyword/value", keyword("password"), keyword("password")},
	{"keyword/value sslpassword", keyword("SSLPassword"), keyword("sslpassword")},
}

func userinfoRaw(scheme string) func(string) string {
	return func(s string) string { return scheme + "://bench:" + s + "@db1:5432/tpcc?sslmode=disable" }
}

func userinfoEnc(scheme string) func(string) string {
	return func(s string) string {
		return scheme + "://" + url.UserPassword("bench", s).String() + "@db1:5432/tpcc?sslmode=disable"
	}
}

// queryRaw is a value written raw in a query: only what would end it (a
// separator) escaped.
func queryRaw(s string) string { return strings.NewReplacer("&", "%26", ";", "%3B").Replace(s) }

func paramRaw(before, after string) func(string) string {
	return func(s string) string { return before + queryRaw(s) + after }
}

func paramEnc(before, after string) func(string) string {
	return func(s string) string { return before + url.QueryEscape(s) + after }
}

func param(name, before, after string) dsnForm {
	return dsnForm{name, paramRaw(before, after), paramEnc(before, after)}
}

// keyword is a libpq keyword/value string, the value quoted as libpq
// wants it when it holds white space or a quote.
func keyword(name string) func(string) string {
	return func(s string) string {
		v := strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(s)
		if strings.ContainsAny(s, " \t\n\r\v\f'") || s == "" {
			v = "'" + v + "'"
		}
		return "host=db1 port=5432 user=bench " + name + "=" + v + " dbname=tpcc sslmode=require"
	}
}

// FuzzRedact: a secret in a credential position of a DSN of any form,
// raw or escaped, never shows in Redact's output, nor in RedactText's
// when the DSN is quoted in a message (as long as the secret holds no white
// space or quote: free text gives no other end to a word), nor in
// RedactWith's given the DSN; nothing panics on any input. `go test` runs
// the seeds; `go test -fuzz FuzzRedact ./internal/db/` explores.
func FuzzRedact(f *testing.F) {
	for _, s := range []string{
		"", "hunter22", "p@ss", "p@ss@word", "a/b", "12/34", "a/b@c", "x?y", "x#y", "a b", "it's",
		`back\slash`, "%zz", "%40", "&password=x", ";", "=", "p:w", "[", "]", "@/x", "@tcp(h)/d",
		"a@b/c?d@e", "://", "\x00", "ünïcode", "\n", "'", `"`, "?password=x&", " password=x ",
	} {
		for form := range dsnForms {
			f.Add(uint8(form), false, s)
			f.Add(uint8(form), true, s)
		}
	}
	for _, s := range targetSeeds {
		f.Add(uint8(255), false, s)
	}
	f.Fuzz(func(t *testing.T, form uint8, escaped bool, fuzzed string) {
		if int(form) >= len(dsnForms) {
			// Any input: no panic.
			_ = Redact(fuzzed)
			_ = RedactText(fuzzed)
			_ = RedactWith(fuzzed, fuzzed)
			return
		}
		secret := secretHead + fuzzed + secretTail
		fm := dsnForms[form]
		dsn := fm.raw(secret)
		if escaped {
			dsn = fm.enc(secret)
		}
		leaks := func(out string) string {
			for _, s := range []string{secretHead, secretTail, secret, url.QueryEscape(secret)} {
				if strings.Contains(out, s) {
					return s
				}
			}
			return ""
		}
		if out := Redact(dsn); leaks(out) != "" {
			t.Fatalf("%s: Redact(%q) = %q shows %q", fm.name, dsn, out, leaks(out))
		}
		msg := "connect to " + dsn + ": refused"
		if out := RedactWith(msg, dsn); leaks(out) != "" {
			t.Fatalf("%s: RedactWith(%q) = %q shows %q", fm.name, msg, out, leaks(out))
		}
		if !strings.ContainsAny(fuzzed, " \t\n\r\v\f\"'<>`") && !strings.Contains(fuzzed, "://") {
			if out := RedactText(msg); leaks(out) != "" {
				t.Fatalf("%s: RedactText(%q) = %q shows %q", fm.name, msg, out, leaks(out))
			}
		}
	})
}
