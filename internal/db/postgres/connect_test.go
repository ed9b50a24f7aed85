package postgres

import (
	"context"
	"errors"
	"net"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/sledge-bench/sledge/internal/db"
	"github.com/sledge-bench/sledge/internal/testdb"
)

// A failed connection reports the attempt that matters: with sslmode=prefer
// (pgx's default) pgx tries TLS first, and on a server without TLS that
// attempt's "tls error: server refused TLS connection" used to lead every
// error; the plain attempt's reason (here: no such database) is what the
// user needs. The error chain still holds pgconn's ConnectError and the
// server's error.
func TestConnectErrorIsThePlainAttempts(t *testing.T) {
	t.Parallel()
	u, err := url.Parse(testdb.Postgres(t))
	if err != nil {
		t.Fatal(err)
	}
	u.RawQuery = "" // no sslmode=disable: pgx's default, prefer
	u.Path = "/no_such_database"
	_, err = Driver{}.Connect(context.Background(), db.Target{Kind: db.Postgres, DSN: u.String()}, db.Options{})
	if err == nil {
		t.Fatal("connected to a database that does not exist")
	}
	msg := err.Error()
	if strings.Contains(msg, "tls error") || strings.Contains(msg, "refused TLS") ||
		!strings.Contains(msg, `database "no_such_database" does not exist`) || strings.Count(msg, "does not exist") != 1 {
		t.Errorf("error: %s", msg)
	}
	var ce *pgconn.ConnectError
	if !strings.Contains(msg, "failed to connect to `user=") || db.SQLState(err) != "3D000" || !errors.As(err, &ce) {
		t.Errorf("error chain: %s (SQLSTATE %q)", msg, db.SQLState(err))
	}
	if !(Driver{}).MissingDatabase(err) {
		t.Errorf("MissingDatabase(%v) = false", err)
	}
	if got := (Driver{}).Classify(err); got == db.ClassNone {
		t.Errorf("Classify = %s", got)
	}
}

// Nothing listening: one dial error, said once, no TLS in it.
func TestConnectErrorNothingListening(t *testing.T) {
	t.Parallel()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	dsn := "postgres://bench:secret@127.0.0.1:" + strconv.Itoa(port) + "/tpcc"
	_, err = Driver{}.Connect(context.Background(), db.Target{Kind: db.Postgres, DSN: dsn}, db.Options{})
	if err == nil {
		t.Fatal("connected to nothing")
	}
	msg := err.Error()
	if strings.Contains(msg, "tls") || strings.Count(msg, "connection refused") != 1 || strings.Contains(msg, "secret") {
		t.Errorf("error: %s", msg)
	}
	if got := (Driver{}).Classify(err); got != db.ClassConnection {
		t.Errorf("Classify = %s, want connection", got)
	}
}
