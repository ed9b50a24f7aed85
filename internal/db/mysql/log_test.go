package mysql

import (
	"context"
	"errors"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/sledge-bench/sledge/internal/db"
	"github.com/sledge-bench/sledge/internal/testdb"
)

func TestLogCause(t *testing.T) {
	t.Parallel()
	for msg, want := range map[string]string{
		"packets.go:58 unexpected EOF":                                                    "connection closed by the server",
		"connection.go:803 closing bad idle connection: EOF":                              "connection closed by the server",
		"packets.go:58 read tcp 127.0.0.1:1->127.0.0.1:2: read: connection reset by peer": "connection closed by the server",
		"packets.go:68 [warn] unexpected sequence nr: expected 1, got 2":                  "packets out of sequence",
		"auth.go:341 unknown auth plugin: x":                                              "unknown auth plugin: x",
	} {
		if got := LogCause(msg); got != want {
			t.Errorf("LogCause(%q) = %q, want %q", msg, got, want)
		}
	}
}

// A session the server kills: what go-sql-driver/mysql logs about it goes
// to the session's DriverLog as a cause, never to stderr (the library's
// default), and the session's error is a connection error.
func TestKilledSessionLogsToDriverLog(t *testing.T) {
	// Not parallel: DroppedMessages counts the whole process's, and
	// another test's session closed under it (by testdb dropping its
	// database) would count.
	ctx := context.Background()
	target, err := db.ParseTarget(testdb.MariaDB(t))
	if err != nil {
		t.Fatal(err)
	}
	var (
		mu   sync.Mutex
		msgs []string
	)
	c, err := Driver{}.Connect(ctx, target, db.Options{DriverLog: func(m string) {
		mu.Lock()
		msgs = append(msgs, m)
		mu.Unlock()
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	var id int64
	if err := c.QueryRow(ctx, "SELECT CONNECTION_ID()").Scan(&id); err != nil {
		t.Fatal(err)
	}
	killer, err := Driver{}.Connect(ctx, target, db.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer killer.Close(ctx)
	if _, err := killer.Exec(ctx, "KILL CONNECTION "+itoa(id)); err != nil {
		t.Fatal(err)
	}
	// The server has closed the session once it no longer lists it.
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(20 * time.Millisecond) {
		var n int
		if err := killer.QueryRow(ctx, "SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE ID = "+itoa(id)).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("session %d still listed a minute after KILL", id)
		}
	}
	dropped := DroppedMessages()
	var one int
	err = c.QueryRow(ctx, "SELECT 1").Scan(&one)
	if err == nil {
		t.Fatal("a query on a killed session succeeded")
	}
	if cls := (Driver{}).Classify(err); cls != db.ClassConnection && !errors.Is(err, context.Canceled) {
		t.Errorf("error %v classified %s, want connection", err, cls)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(msgs) == 0 {
		t.Fatalf("nothing reached DriverLog (error %v)", err)
	}
	for _, m := range msgs {
		if m != "connection closed by the server" {
			t.Errorf("DriverLog got %q", m)
		}
	}
	if DroppedMessages() != dropped {
		t.Errorf("a message of a session with a DriverLog was dropped")
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
