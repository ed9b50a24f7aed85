package db

import (
	"context"
	"errors"
	"fmt"
	"testing"
)

func TestClassifySQLState(t *testing.T) {
	t.Parallel()
	cases := []struct {
		state string
		want  ErrorClass
	}{
		{"40001", ClassSerialization},
		{"40P01", ClassDeadlock},
		{"23505", ClassConstraint},
		{"23503", ClassConstraint},
		{"08006", ClassConnection},
		{"08000", ClassConnection},
		{"57P01", ClassConnection},
		{"53300", ClassConnection},
		{"57014", ClassTimeout},
		{"55P03", ClassTimeout},
		{"25P03", ClassConnection}, // idle_in_transaction_session_timeout ends the session
		{"25P04", ClassConnection}, // transaction_timeout (17+) ends the session
		{"57P05", ClassConnection}, // idle_session_timeout
		{"57P03", ClassConnection}, // cannot_connect_now
		{"40002", ClassConstraint},
		{"53100", ClassOther}, // disk full: not the transaction's fault, not a lost session
		{"42P01", ClassOther},
		{"P0001", ClassOther},
		{"", ClassOther},
	}
	for _, c := range cases {
		if got := ClassifySQLState(c.state); got != c.want {
			t.Errorf("ClassifySQLState(%q) = %s, want %s", c.state, got, c.want)
		}
	}
}

func TestRetryable(t *testing.T) {
	t.Parallel()
	for c := ClassNone; c < NumClasses; c++ {
		want := c == ClassSerialization || c == ClassDeadlock
		if c.Retryable() != want {
			t.Errorf("%s.Retryable() = %v", c, c.Retryable())
		}
	}
}

type stateErr string

func (e stateErr) Error() string    { return "state " + string(e) }
func (e stateErr) SQLState() string { return string(e) }

func TestSQLStateThroughWrapping(t *testing.T) {
	t.Parallel()
	err := fmt.Errorf("payment: %w", fmt.Errorf("update customer: %w", stateErr("40001")))
	if got := SQLState(err); got != "40001" {
		t.Fatalf("SQLState = %q", got)
	}
	if SQLState(errors.New("plain")) != "" {
		t.Fatal("plain error has a SQLSTATE")
	}
}

func TestClassifyCommon(t *testing.T) {
	t.Parallel()
	if c, ok := ClassifyCommon(fmt.Errorf("x: %w", context.DeadlineExceeded)); !ok || c != ClassTimeout {
		t.Errorf("deadline: %s %v", c, ok)
	}
	if _, ok := ClassifyCommon(errors.New("something")); ok {
		t.Error("unknown error claimed")
	}
}

func TestParseTargetAndRedact(t *testing.T) {
	t.Parallel()
	cases := []struct {
		in      string
		kind    Kind
		shown   string
		wantErr bool
	}{
		{in: "postgres://u:secret@127.0.0.1:5432/tpcc", kind: Postgres, shown: "postgres://u:xxxxx@127.0.0.1:5432/tpcc"},
		{in: "postgresql://u@localhost/tpcc?password=secret", kind: Postgres, shown: "postgresql://u@localhost/tpcc?password=xxxxx"},
		{in: "sqlite:/tmp/x.db", kind: SQLite, shown: "sqlite:/tmp/x.db"},
		{in: "/tmp/y.sqlite", kind: SQLite, shown: "sqlite:/tmp/y.sqlite"},
		{in: "mysql://u:secret@127.0.0.1:3306/tpcc", kind: MySQL, shown: "mysql://u:xxxxx@127.0.0.1:3306/tpcc"},
		{in: "mariadb://root@localhost/tpcc", kind: MySQL, shown: "mariadb://root@localhost/tpcc"},
		{in: "mysql://root@/tpcc?socket=/run/mysqld/mysqld.sock", kind: MySQL, shown: "mysql://root@/tpcc?socket=/run/mysqld/mysqld.sock"},
		{in: "mysql://u@h", wantErr: true},
		{in: "mysql:///tpcc", wantErr: true},
		{in: "oracle://u@h/db", wantErr: true},
		{in: "duckdb:/tmp/h.duckdb", kind: DuckDB, shown: "duckdb:/tmp/h.duckdb"},
		{in: "duckdb:///tmp/h2", kind: DuckDB, shown: "duckdb:/tmp/h2"},
		{in: "/tmp/h3.duckdb", kind: DuckDB, shown: "duckdb:/tmp/h3.duckdb"},
		{in: "duckdb:", wantErr: true},
		{in: "notadb", wantErr: true},
		{in: "", wantErr: true},
		{in: "postgres:///nohost", wantErr: true},
	}
	for _, c := range cases {
		got, err := ParseTarget(c.in)
		if c.wantErr {
			if err == nil {
				t.Errorf("ParseTarget(%q) accepted", c.in)
			}
			continue
		}
		if err != nil {
			t.Errorf("ParseTarget(%q): %v", c.in, err)
			continue
		}
		if got.Kind != c.kind || got.String() != c.shown {
			t.Errorf("ParseTarget(%q) = %s %q, want %s %q", c.in, got.Kind, got.String(), c.kind, c.shown)
		}
	}
}
