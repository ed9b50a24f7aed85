package mysql

import (
	"errors"
	"fmt"
	"reflect"
	"testing"

	gomysql "github.com/go-sql-driver/mysql"

	"github.com/sledge-bench/sledge/internal/db"
)

func TestRewriteParams(t *testing.T) {
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
	if got := convertArg([]int32{5, 17, 100000}); got != "5,17,100000" {
		t.Errorf("convertArg = %v", got)
	}
	if got := convertArg(int64(3)); got != int64(3) {
		t.Errorf("convertArg(3) = %v", got)
	}
}

func TestParseCopy(t *testing.T) {
	table, cols, err := parseCopy("COPY order_line (ol_o_id, ol_d_id) FROM STDIN")
	if err != nil || table != "order_line" || cols != "ol_o_id, ol_d_id" {
		t.Errorf("parseCopy = %q %q %v", table, cols, err)
	}
	if _, _, err := parseCopy("INSERT INTO x VALUES (1)"); err == nil {
		t.Error("parseCopy accepted an INSERT")
	}
}

func TestClassify(t *testing.T) {
	mk := func(n uint16, state string) error {
		e := &gomysql.MySQLError{Number: n, Message: "x"}
		copy(e.SQLState[:], state)
		return fmt.Errorf("neword: %w", wrap(e))
	}
	cases := []struct {
		err  error
		want db.ErrorClass
	}{
		{mk(1213, "40001"), db.ClassDeadlock},
		{mk(1205, "HY000"), db.ClassTimeout},
		{mk(1062, "23000"), db.ClassConstraint},
		{mk(2013, "HY000"), db.ClassConnection},
		{mk(1927, "70100"), db.ClassConnection},
		{mk(1644, "SLIIV"), db.ClassOther},
		{gomysql.ErrInvalidConn, db.ClassConnection},
		{errors.New("x"), db.ClassOther},
	}
	for _, c := range cases {
		if got := (Driver{}).Classify(c.err); got != c.want {
			t.Errorf("Classify(%v) = %s, want %s", c.err, got, c.want)
		}
	}
	if s := db.SQLState(mk(1644, "SLIIV")); s != "SLIIV" {
		t.Errorf("SQLState = %q, want SLIIV", s)
	}
}
