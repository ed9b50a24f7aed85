package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestPgbenchSettingsRefused: the pgbench settings of build and run are
// flags of those commands, and bad values are refused naming the flag,
// before any job is recorded.
func TestPgbenchSettingsRefused(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	db := "sqlite:" + filepath.Join(t.TempDir(), "p.db")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"build", "--workload", "pgbench", "--db", db, "--scale", "1.5"}, "--scale must be a whole number"},
		{[]string{"build", "--workload", "pgbench", "--db", db, "--fillfactor", "5"}, "--fillfactor must be in 10..100"},
		{[]string{"build", "--workload", "pgbench", "--db", db, "--fillfactor", "90"}, "--fillfactor applies to PostgreSQL only"},
		{[]string{"build", "--workload", "pgbench", "--db", db, "--partition-method", "list", "--partitions", "2"}, "--partition-method \"list\": want range or hash"},
		{[]string{"build", "--workload", "pgbench", "--db", db, "--foreign-keys"}, "--foreign-keys: SQLite cannot"},
		{[]string{"run", "--workload", "pgbench", "--db", db, "--query-mode", "fast"}, "--query-mode \"fast\": want simple, extended or prepared"},
		{[]string{"run", "--workload", "pgbench", "--db", db, "--script", "builtin:nope"}, "--script"},
		{[]string{"run", "--workload", "pgbench", "--db", db, "--define", "x"}, "--define"},
		{[]string{"run", "--workload", "pgbench", "--db", db}, "pgbench runs on PostgreSQL only for now"},
	} {
		if _, err := e.run(c.args...); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("sledge %s: %v, want an error saying %q", strings.Join(c.args, " "), err, c.want)
		}
	}
	if list := e.jobs(); len(list) != 0 {
		t.Errorf("refused commands recorded %d jobs: %v", len(list), list)
	}
}
