package mysql

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	gomysql "github.com/go-sql-driver/mysql"

	"github.com/sledge-bench/sledge/internal/db"
	"github.com/sledge-bench/sledge/internal/testdb"
)

func TestRewriteParams(t *testing.T) {
	t.Parallel()
	cases := []struct {
		in, out string
		order   []int
	}{
		{"SELECT 1", "SELECT 1", nil},
		{"SELECT a FROM t WHERE x = $1 AND y = $2", "SELECT a FROM t WHERE x = ? AND y = ?", []int{0, 1}},
		{"UPDATE t SET q = q - $3 WHERE w = $1 AND i = $2 AND $3 > 0", "UPDATE t SET q = q - ? WHERE w = ? AND i = ? AND ? > 0", []int{2, 0, 1, 2}},
		{"SELECT '$1', \"$2\", `$3`, $10 -- $4\n, /* $5 */ $1", "SELECT '$1', \"$2\", `$3`, ? -- $4\n, /* $5 */ ?", []int{9, 0}},
		{"SELECT 'it''s', $1", "SELECT 'it''s', ?", []int{0}},
		{"SELECT 'a\\'b', $2", "SELECT 'a\\'b', ?", []int{1}},
		{"SELECT $ FROM x", "SELECT $ FROM x", nil},
	}
	for _, c := range cases {
		out, order, err := rewriteParams(c.in)
		if err != nil || out != c.out || !reflect.DeepEqual(order, c.order) {
			t.Errorf("rewriteParams(%q) = %q %v %v, want %q %v", c.in, out, order, err, c.out, c.order)
		}
	}
}

func TestConfig(t *testing.T) {
	t.Parallel()
	cases := []struct {
		url, net, addr, user, pass, dbname string
		wantErr                            bool
	}{
		{url: "mysql://bench:pw@127.0.0.1:3307/tpcc", net: "tcp", addr: "127.0.0.1:3307", user: "bench", pass: "pw", dbname: "tpcc"},
		{url: "mariadb://127.0.0.1/tpcc", net: "tcp", addr: "127.0.0.1:3306", user: "root", dbname: "tpcc"},
		{url: "mysql://u@/tpcc?socket=/tmp/m.sock", net: "unix", addr: "/tmp/m.sock", user: "u", dbname: "tpcc"},
		{url: "mysql://u@h:1/tpcc?tls=skip-verify", net: "tcp", addr: "h:1", user: "u", dbname: "tpcc"},
		{url: "mysql://u@h/tpcc?nosuchparam=1&tls=bogus", wantErr: true},
		{url: "mysql://u@h/", wantErr: true},
	}
	for _, c := range cases {
		cfg, err := Config(c.url)
		if c.wantErr {
			if err == nil {
				t.Errorf("Config(%q) accepted", c.url)
			}
			continue
		}
		if err != nil {
			t.Errorf("Config(%q): %v", c.url, err)
			continue
		}
		if cfg.Net != c.net || cfg.Addr != c.addr || cfg.User != c.user || cfg.Passwd != c.pass || cfg.DBName != c.dbname {
			t.Errorf("Config(%q) = %s %s %s %s %s", c.url, cfg.Net, cfg.Addr, cfg.User, cfg.Passwd, cfg.DBName)
		}
	}
}

func TestFlavourVersion(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"10.11.6-MariaDB-0+deb12u1": "MariaDB 10.11.6",
		"11.4.2-MariaDB":            "MariaDB 11.4.2",
		"8.0.36":                    "MySQL 8.0.36",
		"8.4.0-commercial":          "MySQL 8.4.0",
	} {
		if got := FlavourVersion(in); got != want {
			t.Errorf("FlavourVersion(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestConvertArg(t *testing.T) {
	t.Parallel()
	if got := convertArg([]int32{5, 17, 100000}); got != "5,17,100000" {
		t.Errorf("convertArg = %v", got)
	}
	if got := convertArg(int64(3)); got != int64(3) {
		t.Errorf("convertArg(3) = %v", got)
	}
}

func TestParseCopy(t *testing.T) {
	t.Parallel()
	table, cols, err := parseCopy("COPY order_line (ol_o_id, ol_d_id) FROM STDIN")
	if err != nil || table != "order_line" || cols != "ol_o_id, ol_d_id" {
		t.Errorf("parseCopy = %q %q %v", table, cols, err)
	}
	if _, _, err := parseCopy("INSERT INTO x VALUES (1)"); err == nil {
		t.Error("parseCopy accepted an INSERT")
	}
}

func TestClassify(t *testing.T) {
	t.Parallel()
	mk := func(n uint16, state string) error {
		e := &gomysql.MySQLError{Number: n, Message: "x"}
		copy(e.SQLState[:], state)
		return fmt.Errorf("neword: %w", wrap(e))
	}
	cases := []struct {
		err  error
		want db.ErrorClass
	}{
		// conflicts: retried
		{mk(1020, "HY000"), db.ClassSerialization}, // innodb_snapshot_isolation
		{mk(1213, "40001"), db.ClassDeadlock},
		{mk(9999, "40001"), db.ClassSerialization}, // unknown number: SQLSTATE decides
		// timeouts and cancels: not retried
		{mk(1205, "HY000"), db.ClassTimeout},
		{mk(3572, "HY000"), db.ClassTimeout},
		{mk(1317, "70100"), db.ClassTimeout},
		{mk(1969, "70100"), db.ClassTimeout},
		{mk(3024, "HY000"), db.ClassTimeout},
		// constraints
		{mk(1062, "23000"), db.ClassConstraint},
		{mk(1586, "23000"), db.ClassConstraint},
		{mk(1452, "23000"), db.ClassConstraint},
		{mk(1451, "23000"), db.ClassConstraint},
		{mk(1216, "23000"), db.ClassConstraint},
		{mk(1048, "23000"), db.ClassConstraint},
		{mk(4025, "23000"), db.ClassConstraint},
		{mk(3819, "HY000"), db.ClassConstraint},
		// connection loss
		{mk(2013, "HY000"), db.ClassConnection},
		{mk(2006, "HY000"), db.ClassConnection},
		{mk(1927, "70100"), db.ClassConnection},
		{mk(1053, "08S01"), db.ClassConnection},
		{mk(1158, "08S01"), db.ClassConnection},
		{mk(4031, "HY000"), db.ClassConnection},
		{mk(1040, "08004"), db.ClassConnection},
		// the designed New-Order rollback is told apart by the workload
		// (workload.ErrRolledBack); to the driver it is another error
		{mk(1644, "SLIIV"), db.ClassOther},
		{mk(1146, "42S02"), db.ClassOther},
		{gomysql.ErrInvalidConn, db.ClassConnection},
		{errors.New("x"), db.ClassOther},
	}
	for _, c := range cases {
		if got := (Driver{}).Classify(c.err); got != c.want {
			t.Errorf("Classify(%v) = %s, want %s", c.err, got, c.want)
		}
	}
	if !(Driver{}).Classify(mk(1020, "HY000")).Retryable() {
		t.Error("1020 (snapshot conflict) is not retried")
	}
	if s := db.SQLState(mk(1644, "SLIIV")); s != "SLIIV" {
		t.Errorf("SQLState = %q, want SLIIV", s)
	}
}

func TestMain(m *testing.M) { testdb.Main(m) }

// CreateDatabase makes a database a session can then use; a second call
// finds it and reports that it created nothing. Awkward names survive
// quoting, and owner and password are ignored.
func TestCreateDatabase(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	target, err := db.ParseTarget(testdb.MariaDB(t))
	if err != nil {
		t.Fatal(err)
	}
	admin, err := Driver{}.Connect(ctx, target, db.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { admin.Close(ctx) }) // after the cleanups below
	var foldsCase int
	if err := admin.QueryRow(ctx, "SELECT @@lower_case_table_names").Scan(&foldsCase); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, db, owner, password string
		exact                     bool // SCHEMATA holds the name as given
	}{
		{"plain", "sledge_cd_plain", "bench", "s3cret", true},
		{"awkward", "cd \"db\" it's $1 `x`", `o'wner`, `p'a"ss\`, true},
		{"dollar and unicode", "cd_$$_ünï", "", "", true},
		{"mixed case", "Sledge_CD_Mixed", "", "", foldsCase == 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Cleanup(func() {
				if _, err := admin.Exec(ctx, "DROP DATABASE IF EXISTS `"+strings.ReplaceAll(c.db, "`", "``")+"`"); err != nil {
					t.Errorf("cleanup: %v", err)
				}
			})
			for i, want := range []bool{true, false} {
				created, err := Driver{}.CreateDatabase(ctx, admin, c.db, c.owner, c.password)
				if err != nil || created != want {
					t.Fatalf("call %d: created %v, %v; want %v", i+1, created, err, want)
				}
			}
			if c.exact {
				var n int
				if err := admin.QueryRow(ctx, "SELECT COUNT(*) FROM information_schema.SCHEMATA WHERE CAST(SCHEMA_NAME AS BINARY) = CAST($1 AS BINARY)", c.db).Scan(&n); err != nil || n != 1 {
					t.Errorf("SCHEMATA holds %q %d times (%v)", c.db, n, err)
				}
			}
			ut, err := db.AdminTarget(target, c.db, "", "")
			if err != nil {
				t.Fatal(err)
			}
			uc, err := Driver{}.Connect(ctx, ut, db.Options{})
			if err != nil {
				t.Fatalf("connect to the new database: %v", err)
			}
			defer uc.Close(ctx)
			if _, err := uc.Exec(ctx, "CREATE TABLE t (i int)"); err != nil {
				t.Errorf("create a table in it: %v", err)
			}
		})
	}
	// Where names are case-sensitive, a database differing only in case is
	// another one.
	if foldsCase == 0 {
		t.Cleanup(func() {
			admin.Exec(ctx, "DROP DATABASE IF EXISTS sledge_cd_case")
			admin.Exec(ctx, "DROP DATABASE IF EXISTS SLEDGE_CD_CASE")
		})
		for _, name := range []string{"sledge_cd_case", "SLEDGE_CD_CASE"} {
			if created, err := (Driver{}).CreateDatabase(ctx, admin, name, "", ""); err != nil || !created {
				t.Errorf("create %s: %v, %v", name, created, err)
			}
		}
	}
	// A database created by someone else between the check and CREATE
	// DATABASE IF NOT EXISTS: the statement affects no row.
	blind := blindConn{admin}
	t.Cleanup(func() { admin.Exec(ctx, "DROP DATABASE IF EXISTS sledge_cd_race") })
	for i, want := range []bool{true, false} {
		if created, err := (Driver{}).CreateDatabase(ctx, blind, "sledge_cd_race", "", ""); err != nil || created != want {
			t.Errorf("unchecked call %d: created %v, %v; want %v", i+1, created, err, want)
		}
	}
	for _, name := range []string{"", "a\x00b"} {
		if created, err := (Driver{}).CreateDatabase(ctx, admin, name, "", ""); err == nil || created {
			t.Errorf("CreateDatabase(%q) = %v, %v; want an error", name, created, err)
		}
	}
}

// blindConn is a session whose information_schema.SCHEMATA looks empty.
type blindConn struct{ db.Conn }

func (c blindConn) QueryRow(ctx context.Context, q string, args ...any) db.Row {
	if strings.Contains(q, "SCHEMATA") {
		return zeroRow{}
	}
	return c.Conn.QueryRow(ctx, q, args...)
}

type zeroRow struct{}

func (zeroRow) Scan(dest ...any) error {
	*dest[0].(*int) = 0
	return nil
}

// A bulk load's session waits for locks as long as a load may take (its
// parts load in parallel and one may wait for another's commit), not the
// server's 50 s: CopyText sets it before its first LOAD DATA.
func TestCopyTextWaitsForLocks(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	target, err := db.ParseTarget(testdb.MariaDB(t))
	if err != nil {
		t.Fatal(err)
	}
	c, err := Driver{}.Connect(ctx, target, db.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	conn := c.(*Conn)
	if _, err := conn.Exec(ctx, "CREATE TABLE copy_wait (k int PRIMARY KEY, v varchar(10))"); err != nil {
		t.Fatal(err)
	}
	wait := func() int {
		var n int
		if err := conn.QueryRow(ctx, "SELECT @@SESSION.innodb_lock_wait_timeout").Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if n := wait(); n == bulkLockWait {
		t.Fatalf("the session waits %d s before any load: the test cannot tell", n)
	}
	n, err := conn.CopyText(ctx, "COPY copy_wait (k, v) FROM STDIN", strings.NewReader("1\ta\n2\tb\n"))
	if err != nil || n != 2 {
		t.Fatalf("CopyText: %d rows, %v", n, err)
	}
	if n := wait(); n != bulkLockWait {
		t.Errorf("after a load the session waits %d s for a lock, want %d", n, bulkLockWait)
	}
}
