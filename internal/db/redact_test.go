package db

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
	"testing"
)

func TestRedact(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want string }{
		// User info, every scheme.
		{"postgres://u:secret@127.0.0.1:5432/tpcc", "postgres://u:xxxxx@127.0.0.1:5432/tpcc"},
		{"postgresql://u:secret@h/db", "postgresql://u:xxxxx@h/db"},
		{"mysql://root:secret@h:3306/tpcc", "mysql://root:xxxxx@h:3306/tpcc"},
		{"mariadb://root:secret@/tpcc?socket=/run/m.sock", "mariadb://root:xxxxx@/tpcc?socket=/run/m.sock"},
		{"http://u:secret@db1:9100/metrics", "http://u:xxxxx@db1:9100/metrics"},
		{"POSTGRES://u:secret@h/db", "POSTGRES://u:xxxxx@h/db"},
		{"postgres://u@h/db", "postgres://u@h/db"},
		{"postgres://u:@h/db", "postgres://u:@h/db"},
		{"postgres://u:p%40ss@h/db", "postgres://u:xxxxx@h/db"},
		// Several '@': libpq ends the user info at the first, net/url at
		// the last; everything up to the last is hidden.
		{"postgres://u:p@ss@host/db", "postgres://u:xxxxx@host/db"},
		{"postgres://u:a@b@c@host:5432/db?sslmode=disable", "postgres://u:xxxxx@host:5432/db?sslmode=disable"},
		{"postgres://admin@srv:pw@srv.example/db", "postgres://admin@srv:xxxxx@srv.example/db"},
		// Malformed: '/', '?', '#', spaces, bad escapes in the password.
		{"postgres://u:pa/ss@host/db", "postgres://u:xxxxx@host/db"},
		{"postgres://u:12/34@host/db", "postgres://u:xxxxx@host/db"},
		{"postgres://u:p?ss@host/db", "postgres://u:xxxxx@host/db"},
		{"postgres://u:p#ss@host/db", "postgres://u:xxxxx@host/db"},
		{"postgres://u:my secret@host/db", "postgres://u:xxxxx@host/db"},
		{"postgres://u:p%zz@h/x", "postgres://u:xxxxx@h/x"},
		{"postgres://u:p@[::1/x", "postgres://u:xxxxx@[::1/x"},
		{"postgres://u:secret@", "postgres://u:xxxxx@"},
		{"A://:00000:@#00000", "A://:xxxxx@#00000"},
		// Not user info: a port, IPv6, an '@' in a query value.
		{"postgres://h:5432/db?application_name=me@corp", "postgres://h:5432/db?application_name=me@corp"},
		{"postgres://[::1]:5432/db", "postgres://[::1]:5432/db"},
		{"postgres://[::1]/db?user=a@b", "postgres://[::1]/db?user=a@b"},
		// Parameters that carry secrets, any case, encoded, repeated.
		{"postgres://h/db?sslpassword=secret", "postgres://h/db?sslpassword=xxxxx"},
		{"postgres://h/db?sslmode=require&password=a&password=b", "postgres://h/db?sslmode=require&password=xxxxx&password=xxxxx"},
		{"postgres://h/db?PassWord=secret&user=u", "postgres://h/db?PassWord=xxxxx&user=u"},
		{"postgres://h/db?ssl%70assword=secret", "postgres://h/db?ssl%70assword=xxxxx"},
		{"postgres://h/db?password=a&b&sslmode=disable", "postgres://h/db?password=xxxxx&sslmode=disable"},
		{"postgres://h/db?password=se#cret", "postgres://h/db?password=xxxxx"},
		{"mysql://u@h/db?tls=custom&allowCleartextPasswords=true&token=t;api_key=k", "mysql://u@h/db?tls=custom&allowCleartextPasswords=true&token=xxxxx;api_key=xxxxx"},
		{"postgres://h/db?passfile=/home/u/.pgpass&sslkey=/k.pem&sslcert=/c.pem", "postgres://h/db?passfile=/home/u/.pgpass&sslkey=/k.pem&sslcert=/c.pem"},
		{"postgres://h/db?password=", "postgres://h/db?password="},
		// Files.
		{"sqlite:/tmp/x.db", "sqlite:/tmp/x.db"},
		{"sqlite:/tmp/a@b.db", "sqlite:/tmp/a@b.db"},
		{"sqlite:/tmp/x.db?_auth_pass=secret", "sqlite:/tmp/x.db?_auth_pass=xxxxx"},
		{"/tmp/x.db", "/tmp/x.db"},
		// go-sql-driver/mysql DSNs.
		{"u:secret@tcp(h:3306)/db?parseTime=true", "u:xxxxx@tcp(h:3306)/db?parseTime=true"},
		{"u:se@cr/et@tcp(h:3306)/db", "u:xxxxx@tcp(h:3306)/db"},
		{"u:secret@unix(/run/m.sock)/db", "u:xxxxx@unix(/run/m.sock)/db"},
		{"u:secret@/db", "u:xxxxx@/db"},
		{"u@tcp(h)/db?password=x", "u@tcp(h)/db?password=xxxxx"},
		{"bench:hunter22@db.example/tpcc", "bench:xxxxx@db.example/tpcc"},
		// PostgreSQL keyword/value strings.
		{"host=h user=u password=secret dbname=d", "host=h user=u password=xxxxx dbname=d"},
		{"host=h password='it\\'s a secret' sslpassword = x\\ y sslmode=require", "host=h password='xxxxx' sslpassword = xxxxx sslmode=require"},
		{"password='unterminated secret", "password='xxxxx"},
		{"host=h passfile=/p sslkey=/k", "host=h passfile=/p sslkey=/k"},
		// Nothing to hide.
		{"", ""},
		{"notadb", "notadb"},
	} {
		if got := Redact(tc.in); got != tc.want {
			t.Errorf("Redact(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestRedactText(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want string }{
		{"plain text", "plain text"},
		{"connect to postgres://u:pw@h:5432/db: refused", "connect to postgres://u:xxxxx@h:5432/db: refused"},
		{"connect to postgres://h/db?sslpassword=pw: refused", "connect to postgres://h/db?sslpassword=xxxxx: refused"},
		{"(see postgres://h/db?token=pw).", "(see postgres://h/db?token=xxxxx)."},
		{`parse "postgres://u:pw@h:99999/x": invalid port`, `parse "postgres://u:xxxxx@h:99999/x": invalid port`},
		{"a postgres://h/db?sslpassword=s b mysql://r:s@h/d", "a postgres://h/db?sslpassword=xxxxx b mysql://r:xxxxx@h/d"},
		{"host=h password=pw user=u", "host=h password=xxxxx user=u"},
		{"PASSWORD='p w' and more", "PASSWORD='xxxxx' and more"},
		{`{"db_password": "s\"x", "user": "u"}`, `{"db_password": "xxxxx", "user": "u"}`},
		{"dsn u:pw@tcp(h:3306)/db failed", "dsn u:xxxxx@tcp(h:3306)/db failed"},
		{"token=abc apikey=def sslmode=disable", "token=xxxxx apikey=xxxxx sslmode=disable"},
		// SQL and words that only look like keys stay.
		{"WHERE o_orderkey = l_orderkey AND \"key\" = 'state'", "WHERE o_orderkey = l_orderkey AND \"key\" = 'state'"},
		{"pg_keyandthink=true sslmode=require", "pg_keyandthink=true sslmode=require"},
		{"mail admin@example.com", "mail admin@example.com"},
	} {
		if got := RedactText(tc.in); got != tc.want {
			t.Errorf("RedactText(%q) = %q, want %q", tc.in, got, tc.want)
		}
		// Stored text is redacted again when read.
		if got := RedactText(tc.want); got != tc.want {
			t.Errorf("RedactText(%q) = %q: not idempotent", tc.want, got)
		}
	}
}

func TestSecretName(t *testing.T) {
	t.Parallel()
	for name, want := range map[string]bool{
		"password": true, "PASSWORD": true, "sslpassword": true, "passwd": true, "pwd": true,
		"pg_pass": true, "pg_superuserpass": true, "tpch_pass": true, "pass": true, "db_password": true,
		"token": true, "access_token": true, "apikey": true, "api_key": true, "API-Key": true,
		"access_key": true, "secret_access_key": true, "client_secret": true, "auth": true, "private_key": true,
		"sslmode": false, "sslkey": false, "ssl_key": false, "passfile": false, "sslcert": false,
		"allowCleartextPasswords": false, "keyandthink": false, "pg_keyandthink": false, "o_orderkey": false,
		"user": false, "host": false, "dbname": false, "keys": false, "authSource": false,
	} {
		if got := SecretName(name); got != want {
			t.Errorf("SecretName(%q) = %v, want %v", name, got, want)
		}
	}
}

// TestRedactError: a driver that reads a malformed URL otherwise than
// Redact quotes a piece of the password as a host; the DSN-aware
// redaction hides it, and the error still unwraps to the driver's.
func TestRedactError(t *testing.T) {
	t.Parallel()
	driver := errors.New("failed to connect: hostname resolving error: lookup ss@127.0.0.1: no such host")
	dsn := "postgres://u:p@ss@127.0.0.1:1/db?sslpassword=topsecret"
	err := RedactError(fmt.Errorf("connect: %w (sslpassword topsecret)", driver), dsn)
	msg := err.Error()
	for _, leak := range []string{"ss@", "topsecret"} {
		if strings.Contains(msg, leak) {
			t.Errorf("RedactError: %q shows %q", msg, leak)
		}
	}
	if !strings.Contains(msg, "lookup xxxxx@127.0.0.1") {
		t.Errorf("RedactError: %q lost the context", msg)
	}
	if !errors.Is(err, driver) {
		t.Error("RedactError does not unwrap to the driver's error")
	}
	if RedactError(nil, dsn) != nil {
		t.Error("RedactError(nil) is not nil")
	}
	// Pieces are masked only as words of their own.
	if got := RedactWith("address@h", "postgres://u:p@ss@h/db"); got != "address@h" {
		t.Errorf("RedactWith masked inside a word: %q", got)
	}
}

// TestPostgresURL: pgx (libpq's reading) gets user info that net/url's
// reading agrees with.
func TestPostgresURL(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want string }{
		{"postgres://u:p@h/db", "postgres://u:p@h/db"},
		{"POSTGRESQL://u:p@h/db", "postgresql://u:p@h/db"},
		{"postgres://u:p@ss@h:5432/db?sslmode=disable", "postgres://u:p%40ss@h:5432/db?sslmode=disable"},
		{"postgres://admin@srv:pw@srv.example/db", "postgres://admin%40srv:pw@srv.example/db"},
		{"postgres://h/db?application_name=a@b", "postgres://h/db?application_name=a@b"},
		{"postgres://u:p@ss@h:bad/db", "postgres://u:p@ss@h:bad/db"}, // net/url refuses it: unchanged
	} {
		got := PostgresURL(tc.in)
		if got != tc.want {
			t.Errorf("PostgresURL(%q) = %q, want %q", tc.in, got, tc.want)
			continue
		}
		// libpq's reading: user info up to the first '@' before a '/'.
		if u, err := url.Parse(tc.in); err == nil && u.User != nil {
			rest := strings.SplitN(got, "://", 2)[1]
			if i := strings.IndexAny(rest, "@/"); i < 0 || rest[i] != '@' || rest[:i] != u.User.String() {
				t.Errorf("PostgresURL(%q) = %q: libpq reads other user info than %q", tc.in, got, u.User.String())
			}
		}
	}
}
