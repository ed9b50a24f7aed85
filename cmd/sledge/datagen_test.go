package main

import (
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sledge-bench/sledge/internal/testdb"
	"github.com/sledge-bench/sledge/internal/testdb/tpcctest"
)

// TestDatagenCopyLoadsWithServersLoaders: datagen --format copy writes
// TPROC-C files (NULL order carriers and delivery dates among them) that
// PostgreSQL's psql \copy and MariaDB's LOAD DATA load as they are, through
// the scripts datagen writes beside them, into the emptied tables of a
// built schema, which then passes sledge check.
func TestDatagenCopyLoadsWithServersLoaders(t *testing.T) {
	if testing.Short() {
		t.Skip("loads a warehouse on PostgreSQL and MariaDB")
	}
	t.Parallel()
	tables := "warehouse, district, customer, history, new_order, orders, order_line, item, stock"
	// One datagen serves both servers: its files, and the load scripts of
	// both beside them, are the same whichever loads them.
	dir := t.TempDir()
	out := newEnv(t).ok("datagen", "--workload", "tprocc", "--warehouses", "1", "--workers", "2", "--format", "copy", "--out", dir)
	for _, want := range []string{"wrote ", "psql -v ON_ERROR_STOP=1 -d DATABASE -f " + filepath.Join(dir, "load-postgres.sql"),
		"mariadb --local-infile=1 DATABASE < " + filepath.Join(dir, "load-mariadb.sql")} {
		if !strings.Contains(out, want) {
			t.Errorf("datagen lacks %q:\n%s", want, out)
		}
	}
	b, err := os.ReadFile(filepath.Join(dir, "orders.copy"))
	if err != nil || !strings.Contains(string(b), "\\N") || strings.Contains(string(b), "|") {
		t.Fatalf("orders.copy (%v): not COPY text with NULLs:\n%.300s", err, b)
	}
	g := testdb.NewTogether(t)
	for _, c := range []struct {
		name string
		db   func(testing.TB) string
		// load runs a load script, empty first runs a statement, on url.
		run func(t *testing.T, dbURL, sql, script string)
	}{
		{"PostgreSQL", func(t testing.TB) string { return tpcctest.Postgres(t, tpcctest.Options{}) },
			func(t *testing.T, dbURL, sql, script string) {
				args := []string{"-X", "-q", "-v", "ON_ERROR_STOP=1", "-d", dbURL}
				if sql != "" {
					args = append(args, "-c", sql)
				} else {
					args = append(args, "-f", script)
				}
				clientRun(t, exec.CommandContext(t.Context(), testdb.Command(t, "psql", "postgresql-client"), args...), "")
			}},
		{"MariaDB", func(t testing.TB) string { return tpcctest.MariaDB(t, tpcctest.Options{}) },
			func(t *testing.T, dbURL, sql, script string) {
				u, err := url.Parse(dbURL)
				if err != nil {
					t.Fatal(err)
				}
				pass, _ := u.User.Password()
				args := []string{"--local-infile=1", "-h", u.Hostname(), "-P", u.Port(), "-u", u.User.Username(), "--password=" + pass,
					strings.TrimPrefix(u.Path, "/")}
				stdin := sql
				if sql == "" {
					b, err := os.ReadFile(script)
					if err != nil {
						t.Fatal(err)
					}
					stdin = string(b)
				}
				clientRun(t, exec.CommandContext(t.Context(), testdb.Command(t, "mariadb", "mariadb-client"), args...), stdin)
			}},
	} {
		g.Run(c.name, func(t *testing.T) {
			e := newEnv(t)
			dbURL := c.db(t)
			truncate := "TRUNCATE TABLE " + tables
			if c.name == "MariaDB" {
				truncate = "TRUNCATE TABLE " + strings.ReplaceAll(tables, ", ", "; TRUNCATE TABLE ")
			}
			c.run(t, dbURL, truncate, "")
			script := map[string]string{"PostgreSQL": "load-postgres.sql", "MariaDB": "load-mariadb.sql"}[c.name]
			c.run(t, dbURL, "", filepath.Join(dir, script))
			if out := e.ok("check", "--db", dbURL); !strings.Contains(out, "all conditions hold") || !strings.Contains(out, "order_line") {
				t.Errorf("check after loading the files:\n%s", out)
			}
		})
	}
	g.Wait()
}

// clientRun runs a database client with stdin, failing the test with its
// output when it fails.
func clientRun(t *testing.T, cmd *exec.Cmd, stdin string) {
	t.Helper()
	cmd.Stdin = strings.NewReader(stdin)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", strings.Join(cmd.Args, " "), err, out)
	}
}
