package mysql

import (
	"context"
	"testing"

	"github.com/sledge-bench/sledge/internal/db"
	"github.com/sledge-bench/sledge/internal/testdb"
)

// TestSnapshotIsolationSession: the option sets MariaDB's
// innodb_snapshot_isolation for the session (server: left as the server
// has it), and with it on a REPEATABLE READ transaction that updates a row
// changed after its read view fails with 1020, classed as a serialization
// conflict (retried), while with it off the update goes through.
func TestSnapshotIsolationSession(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	target, err := db.ParseTarget(testdb.MariaDB(t))
	if err != nil {
		t.Fatal(err)
	}
	open := func(si db.SnapshotIsolation) *Conn {
		t.Helper()
		c, err := Driver{}.Connect(ctx, target, db.Options{Isolation: db.RepeatableRead, SnapshotIsolation: si})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close(ctx) })
		return c.(*Conn)
	}
	admin := open(db.SnapshotServer)
	global, ok, err := admin.SnapshotIsolation(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !ok {
		t.Skip("this server has no innodb_snapshot_isolation")
	}
	var want string
	if err := admin.QueryRow(ctx, "SELECT IF(@@GLOBAL.innodb_snapshot_isolation, 'ON', 'OFF')").Scan(&want); err != nil {
		t.Fatal(err)
	}
	if global != want {
		t.Errorf("server: session has %s, the server %s", global, want)
	}
	if _, err := admin.Exec(ctx, "CREATE TABLE snap (id INT PRIMARY KEY, v INT) ENGINE=InnoDB"); err != nil {
		t.Fatal(err)
	}
	if _, err := admin.Exec(ctx, "INSERT INTO snap VALUES (1, 0)"); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		si       db.SnapshotIsolation
		value    string
		conflict bool
	}{
		{db.SnapshotOn, "ON", true},
		{db.SnapshotOff, "OFF", false},
	} {
		s := open(c.si)
		if v, _, err := s.SnapshotIsolation(ctx); err != nil || v != c.value {
			t.Fatalf("%s: session has %q (%v), want %s", c.si, v, err, c.value)
		}
		if err := s.Begin(ctx, false); err != nil {
			t.Fatal(err)
		}
		var v int
		if err := s.QueryRow(ctx, "SELECT v FROM snap WHERE id = 1").Scan(&v); err != nil {
			t.Fatal(err)
		}
		// Another session changes the row after s's read view was taken.
		if _, err := admin.Exec(ctx, "UPDATE snap SET v = v + 1 WHERE id = 1"); err != nil {
			t.Fatal(err)
		}
		_, err := s.Exec(ctx, "UPDATE snap SET v = v + 10 WHERE id = 1")
		_ = s.Rollback(ctx)
		switch {
		case c.conflict && err == nil:
			t.Errorf("%s: the update of a changed row went through", c.si)
		case c.conflict && (Driver{}).Classify(err) != db.ClassSerialization:
			t.Errorf("%s: %v classed %s, want serialization", c.si, err, (Driver{}).Classify(err))
		case !c.conflict && err != nil:
			t.Errorf("%s: %v", c.si, err)
		}
	}
}
