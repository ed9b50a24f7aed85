package postgres

import (
	"context"
	"crypto/hmac"
	"crypto/md5"
	"crypto/pbkdf2"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sledge-bench/sledge/internal/db"
	"github.com/sledge-bench/sledge/internal/testdb"
)

func TestMain(m *testing.M) { testdb.Main(m) }

func connect(t *testing.T) *Conn {
	t.Helper()
	target, err := db.ParseTarget(testdb.Postgres(t))
	if err != nil {
		t.Fatal(err)
	}
	c, err := Driver{}.Connect(context.Background(), target, db.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close(context.Background()) })
	return c.(*Conn)
}

// Exec's own bind path encodes what pgx would: NULLs, text, numbers,
// numeric, arrays, a type that changes between calls, and falls back to pgx
// (with its error) for what pgtype cannot plan.
func TestExecBindsArguments(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c := connect(t)
	if _, err := c.Exec(ctx, `CREATE TABLE t (i int, b bigint, s varchar(20), n numeric(8,2), a int[], d date)`); err != nil {
		t.Fatal(err)
	}
	ins := `INSERT INTO t VALUES ($1, $2, $3, $4, $5, $6)`
	for _, args := range [][]any{
		{1, int64(1) << 40, "one", 12.5, []int32{1, 2, 3}, nil},
		{int64(2), 7, "two two", float32(0.25), []int32{}, time.Date(2026, 11, 23, 0, 0, 0, 0, time.UTC)},
		{nil, nil, nil, nil, nil, nil},
		{int32(3), int16(4), "ünï'cødé", "3.10", []int32{-5}, "2026-01-02"},
	} {
		n, err := c.Exec(ctx, ins, args...)
		if err != nil || n != 1 {
			t.Fatalf("insert %v: %d, %v", args, n, err)
		}
	}
	var got string
	err := c.QueryRow(ctx, `SELECT string_agg(concat_ws('|', coalesce(i::text,'-'), coalesce(b::text,'-'), coalesce(s,'-'),
		coalesce(n::text,'-'), coalesce(a::text,'-'), coalesce(d::text,'-')), ';' ORDER BY i NULLS LAST) FROM t`).Scan(&got)
	if err != nil {
		t.Fatal(err)
	}
	want := "1|1099511627776|one|12.50|{1,2,3}|-;2|7|two two|0.25|{}|2026-11-23;3|4|ünï'cødé|3.10|{-5}|2026-01-02;-|-|-|-|-|-"
	if got != want {
		t.Errorf("stored\n%s\nwant\n%s", got, want)
	}
	if n, err := c.Exec(ctx, `UPDATE t SET s = $1 WHERE i < $2`, "x", 3); err != nil || n != 2 {
		t.Errorf("update: %d rows, %v", n, err)
	}
	// An integer out of the parameter's range is refused, not wrapped.
	if _, err := c.Exec(ctx, `UPDATE t SET i = $1 WHERE false`, int64(1)<<40); err == nil {
		t.Error("2^40 was sent as an int4")
	}
	if _, err := c.Exec(ctx, `UPDATE t SET i = $1 WHERE i = $2`, int64(-2147483648), int16(-1)); err != nil {
		t.Errorf("int4 minimum: %v", err)
	}
	// Wrong argument count, and a value pgtype cannot encode: errors, and
	// the session is still usable.
	if _, err := c.Exec(ctx, ins, 1, 2); err == nil || !strings.Contains(err.Error(), "6 parameters, 2 arguments") {
		t.Errorf("argument count: %v", err)
	}
	if _, err := c.Exec(ctx, ins, struct{ x int }{1}, 1, "a", 1, nil, nil); err == nil {
		t.Error("a struct was encoded as an int")
	}
	if _, err := c.Exec(ctx, `UPDATE t SET s = $1 WHERE i = $2`, "y", 1); err != nil {
		t.Errorf("after errors: %v", err)
	}
	// A server error (here a violated check) comes back as the PgError.
	if _, err := c.Exec(ctx, `INSERT INTO t (i) VALUES ($1::int / 0)`, 1); db.SQLState(err) != "22012" {
		t.Errorf("division by zero: %v (state %q)", err, db.SQLState(err))
	}
}

// Cancelling the context a statement runs under interrupts it; a context
// cancelled after its statement finished leaves the session alone.
func TestExecCancellation(t *testing.T) {
	t.Parallel()
	c := connect(t)
	ctx1, cancel1 := context.WithCancel(context.Background())
	if _, err := c.Exec(ctx1, `SELECT pg_sleep($1)`, 0.01); err != nil {
		t.Fatal(err)
	}
	cancel1()
	if _, err := c.Exec(ctx1, `SELECT pg_sleep($1)`, 0.01); !errors.Is(err, context.Canceled) {
		t.Errorf("statement under a cancelled context: %v", err)
	}
	ctx2, cancel2 := context.WithCancel(context.Background())
	defer cancel2()
	if _, err := c.Exec(ctx2, `SELECT pg_sleep($1)`, 0.01); err != nil {
		t.Fatalf("after an earlier context was cancelled: %v", err)
	}
	time.AfterFunc(200*time.Millisecond, cancel2)
	start := time.Now()
	_, err := c.Exec(ctx2, `SELECT pg_sleep($1)`, 30)
	if d := time.Since(start); err == nil || d > 10*time.Second || !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled after %v: %v", d, err)
	}
}

// CreateDatabase makes the database and its owner, who can then log in with
// the password and owns the database; a second call finds both and reports
// that it created nothing. Awkward names and passwords survive quoting.
func TestCreateDatabase(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	target, err := db.ParseTarget(testdb.Postgres(t))
	if err != nil {
		t.Fatal(err)
	}
	admin := connect(t) // as the cluster's superuser
	var self string
	if err := admin.QueryRow(ctx, "SELECT current_user").Scan(&self); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, db, owner, password string
	}{
		{"plain", "sledge_cd_plain", "sledge_cd_owner", "s3cret"},
		{"quote in password", "sledge_cd_quote", "sledge_cd_quote", "it's"},
		{"awkward", `cd "db" it's $1 $$x`, `Owner "o" it's $x$`, `p'a"s$$s\ \\ word' OR '1'='1 é`},
		{"backslash at end", "sledge cd backslash", "sledge cd backslash", `end\`},
		{"no password", "sledge_cd_nopass", "sledge_cd_nopass", ""},
		{"existing owner", "sledge_cd_self", self, "ignored"},
		{"no owner", "sledge_cd_noowner", "", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			newRole := c.owner != "" && c.owner != self
			t.Cleanup(func() {
				if _, err := admin.Exec(ctx, "DROP DATABASE IF EXISTS "+pgx.Identifier{c.db}.Sanitize()+" WITH (FORCE)"); err != nil {
					t.Errorf("cleanup: %v", err)
				}
				if newRole {
					if _, err := admin.Exec(ctx, "DROP ROLE IF EXISTS "+pgx.Identifier{c.owner}.Sanitize()); err != nil {
						t.Errorf("cleanup: %v", err)
					}
				}
			})
			for i, want := range []bool{true, false} {
				created, err := Driver{}.CreateDatabase(ctx, admin, c.db, c.owner, c.password)
				if err != nil || created != want {
					t.Fatalf("call %d: created %v, %v; want %v", i+1, created, err, want)
				}
			}
			owner := c.owner
			if owner == "" {
				owner = self
			}
			var dba string
			if err := admin.QueryRow(ctx, "SELECT pg_get_userbyid(datdba) FROM pg_database WHERE datname = $1", c.db).Scan(&dba); err != nil || dba != owner {
				t.Errorf("database owned by %q (%v), want %q", dba, err, owner)
			}
			if newRole {
				var login bool
				var verifier *string
				if err := admin.QueryRow(ctx, "SELECT rolcanlogin, rolpassword FROM pg_authid WHERE rolname = $1", c.owner).Scan(&login, &verifier); err != nil || !login {
					t.Fatalf("role %q: login %v, %v", c.owner, login, err)
				}
				switch {
				case c.password == "" && verifier != nil:
					t.Errorf("role %q has a password, none was given", c.owner)
				case c.password != "" && (verifier == nil || !passwordMatches(t, *verifier, c.owner, c.password)):
					t.Errorf("role %q: stored password does not match %q", c.owner, c.password)
				case c.password != "" && passwordMatches(t, *verifier, c.owner, c.password+"x"):
					t.Errorf("role %q: stored password matches a wrong one", c.owner)
				}
			}
			// The owner logs in (the sandbox trusts local connections: the
			// password itself is checked against pg_authid above) and can
			// create objects in its database.
			if c.owner == "" {
				return
			}
			ot, err := db.AdminTarget(target, c.db, c.owner, c.password)
			if err != nil {
				t.Fatal(err)
			}
			oc, err := Driver{}.Connect(ctx, ot, db.Options{})
			if err != nil {
				t.Fatalf("connect as the owner: %v", err)
			}
			defer oc.Close(ctx)
			var user, dbname string
			if err := oc.QueryRow(ctx, "SELECT current_user, current_database()").Scan(&user, &dbname); err != nil || user != c.owner || dbname != c.db {
				t.Errorf("owner's session: user %q database %q (%v)", user, dbname, err)
			}
			if _, err := oc.Exec(ctx, "CREATE TABLE t (i int)"); err != nil {
				t.Errorf("owner cannot create a table: %v", err)
			}
		})
	}
}

// Bad arguments are refused before anything is created.
func TestCreateDatabaseRefuses(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	admin := connect(t)
	for _, c := range []struct{ db, owner, password, want string }{
		{"", "o", "p", "no database name"},
		{"sledge_cd_nul", "sledge_cd_nul", "a\x00b", "NUL"},
		{"sledge_cd\x00nul", "o", "p", "NUL"},
		{"sledge_cd_nul", "o\x00", "p", "NUL"},
	} {
		created, err := Driver{}.CreateDatabase(ctx, admin, c.db, c.owner, c.password)
		if err == nil || created || !strings.Contains(err.Error(), c.want) {
			t.Errorf("CreateDatabase(%q, %q, %q) = %v, %v; want an error about %s", c.db, c.owner, c.password, created, err, c.want)
		}
		if strings.Contains(fmt.Sprint(err), "a\x00b") {
			t.Errorf("the error shows the password: %v", err)
		}
	}
	var n int
	if err := admin.QueryRow(ctx, "SELECT count(*) FROM pg_roles WHERE rolname LIKE 'sledge_cd_nul%'").Scan(&n); err != nil || n != 0 {
		t.Errorf("%d roles created (%v)", n, err)
	}
}

// quoteLiteral's constants read back as the strings they were made from,
// whatever standard_conforming_strings says.
func TestQuoteLiteral(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c := connect(t)
	for _, scs := range []string{"on", "off"} {
		if _, err := c.Exec(ctx, "SET standard_conforming_strings = "+scs); err != nil {
			t.Fatal(err)
		}
		for _, s := range []string{"", "plain", "it's", `back\slash`, `end\`, `\'; DROP TABLE x; --`, "''", `\\''\\`, "é ü $$ $1"} {
			var got string
			if err := c.QueryRow(ctx, "SELECT "+quoteLiteral(s)).Scan(&got); err != nil || got != s {
				t.Errorf("standard_conforming_strings=%s: %s reads %q (%v), want %q", scs, quoteLiteral(s), got, err, s)
			}
		}
	}
}

// passwordMatches checks password against a pg_authid.rolpassword verifier
// (SCRAM-SHA-256, or md5 on servers configured for it).
func passwordMatches(t *testing.T, verifier, role, password string) bool {
	t.Helper()
	if rest, ok := strings.CutPrefix(verifier, "md5"); ok {
		sum := md5.Sum([]byte(password + role))
		return rest == hex.EncodeToString(sum[:])
	}
	// SCRAM-SHA-256$<iterations>:<salt>$<StoredKey>:<ServerKey> (RFC 5803).
	rest, ok := strings.CutPrefix(verifier, "SCRAM-SHA-256$")
	params, keys, ok2 := strings.Cut(rest, "$")
	iterText, saltText, ok3 := strings.Cut(params, ":")
	storedText, serverText, ok4 := strings.Cut(keys, ":")
	iter, err := strconv.Atoi(iterText)
	salt, err2 := base64.StdEncoding.DecodeString(saltText)
	if !ok || !ok2 || !ok3 || !ok4 || err != nil || err2 != nil {
		t.Fatalf("unknown password verifier %q", verifier)
	}
	// SASLprep leaves these tests' passwords (printable, NFKC-normalized) as they are.
	salted, err := pbkdf2.Key(sha256.New, password, salt, iter, sha256.Size)
	if err != nil {
		t.Fatal(err)
	}
	hmacOf := func(msg string) []byte {
		h := hmac.New(sha256.New, salted)
		h.Write([]byte(msg))
		return h.Sum(nil)
	}
	stored := sha256.Sum256(hmacOf("Client Key"))
	return base64.StdEncoding.EncodeToString(stored[:]) == storedText &&
		base64.StdEncoding.EncodeToString(hmacOf("Server Key")) == serverText
}

// TestCopyTextLostConnection: a connection that ends in the middle of a
// COPY (here cut by a proxy, as by a server killed or a network gone) is
// said to be lost, not left as pgx's bare "unexpected EOF", "broken pipe"
// or "use of closed network connection": cut while the client waits to
// send more rows, and while it is sending them.
func TestCopyTextLostConnection(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		wait bool // the reader waits for the cut to be done before giving more rows
	}{
		{"cut between rows", true},
		{"cut while sending", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			p := cutProxy(t)
			target, err := db.ParseTarget(p.url)
			if err != nil {
				t.Fatal(err)
			}
			conn, err := Driver{}.Connect(ctx, target, db.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close(ctx)
			c := conn.(*Conn)
			if _, err := c.Exec(ctx, "CREATE TABLE t (i int)"); err != nil {
				t.Fatal(err)
			}
			_, err = c.CopyText(ctx, "COPY t FROM STDIN", &cuttingReader{p: p, wait: tc.wait})
			if err == nil || !strings.Contains(err.Error(), "the connection to the server was lost") {
				t.Fatalf("COPY over a cut connection: %v, want it said lost", err)
			}
		})
	}
}

// proxy forwards every connection to a test database (pgx may make more
// than one attempt) until cut is called; done closes once they are cut.
type proxy struct {
	url  string
	cut  func()
	done chan struct{}
}

func cutProxy(t *testing.T) *proxy {
	t.Helper()
	u, err := url.Parse(testdb.Postgres(t))
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	upstream := u.Host
	u.Host = ln.Addr().String()
	var (
		mu    sync.Mutex
		conns []net.Conn
	)
	p := &proxy{url: u.String(), done: make(chan struct{})}
	var once sync.Once
	p.cut = func() {
		once.Do(func() {
			ln.Close()
			mu.Lock()
			for _, c := range conns {
				c.Close()
			}
			mu.Unlock()
			close(p.done)
		})
	}
	t.Cleanup(p.cut)
	go func() {
		for {
			client, err := ln.Accept()
			if err != nil {
				return // cut
			}
			server, err := net.Dial("tcp", upstream)
			if err != nil {
				client.Close()
				continue
			}
			mu.Lock()
			conns = append(conns, client, server)
			mu.Unlock()
			go io.Copy(server, client)
			go io.Copy(client, server)
		}
	}()
	return p
}

// cuttingReader is COPY text rows that cuts the proxy after its first
// rows, and ends some rows later.
type cuttingReader struct {
	p    *proxy
	wait bool
	read int
}

func (r *cuttingReader) Read(b []byte) (int, error) {
	r.read++
	switch r.read {
	case 2:
		if r.wait {
			r.p.cut()
			<-r.p.done
		} else {
			go r.p.cut()
		}
	case 2000:
		return 0, io.EOF
	}
	return copy(b, strings.Repeat("1\n", len(b)/2)), nil
}
