package db

import "testing"

func TestLoginAndAdminTarget(t *testing.T) {
	t.Parallel()
	cases := []struct {
		dsn                string
		database, user, pw string // Login
		adminDB, adminUser string // AdminTarget arguments
		adminPw, admin     string // and its DSN
	}{
		{
			dsn:      "postgres://bench:pw@db.example:5433/tpcc?sslmode=disable",
			database: "tpcc", user: "bench", pw: "pw",
			adminDB: "postgres", adminUser: "postgres", adminPw: "s'e cret",
			admin: "postgres://postgres:s%27e%20cret@db.example:5433/postgres?sslmode=disable",
		},
		{
			// Parameters override the URL's parts; replacing the login drops them.
			dsn:      "postgres://h/x?dbname=tpcc&user=bench&password=pw&sslmode=require",
			database: "tpcc", user: "bench", pw: "pw",
			adminDB: "my db", adminUser: "su",
			admin: "postgres://su@h/my%20db?sslmode=require",
		},
		{
			// An empty user keeps the target's login.
			dsn:      "postgresql://bench:p%40ss@h/tpcc",
			database: "tpcc", user: "bench", pw: "p@ss",
			adminDB: "postgres",
			admin:   "postgresql://bench:p%40ss@h/postgres",
		},
		{
			dsn:      "mysql://root@127.0.0.1:3307/tpcc",
			database: "tpcc", user: "root",
			adminDB: "mysql",
			admin:   "mysql://root@127.0.0.1:3307/mysql",
		},
		{
			dsn:      "mariadb://u:p@/tp%20cc?socket=/run/mysqld/mysqld.sock",
			database: "tp cc", user: "u", pw: "p",
			adminDB: "information_schema", adminUser: "root", adminPw: "x",
			admin: "mariadb://root:x@/information_schema?socket=/run/mysqld/mysqld.sock",
		},
	}
	for _, c := range cases {
		target, err := ParseTarget(c.dsn)
		if err != nil {
			t.Fatalf("ParseTarget(%q): %v", c.dsn, err)
		}
		database, user, pw, err := target.Login()
		if err != nil || database != c.database || user != c.user || pw != c.pw {
			t.Errorf("%s: Login() = %q %q %q %v, want %q %q %q", c.dsn, database, user, pw, err, c.database, c.user, c.pw)
		}
		at, err := AdminTarget(target, c.adminDB, c.adminUser, c.adminPw)
		if err != nil || at.DSN != c.admin || at.Kind != target.Kind {
			t.Errorf("%s: AdminTarget = %s %q %v, want %q", c.dsn, at.Kind, at.DSN, err, c.admin)
			continue
		}
		database, user, pw, err = at.Login()
		wantUser, wantPw := c.adminUser, c.adminPw
		if wantUser == "" {
			wantUser, wantPw = c.user, c.pw
		}
		if err != nil || database != c.adminDB || user != wantUser || pw != wantPw {
			t.Errorf("%s: admin Login() = %q %q %q %v", c.admin, database, user, pw, err)
		}
	}
	for _, s := range []string{"sqlite:/tmp/x.db", "duckdb:/tmp/x.duckdb"} {
		target, err := ParseTarget(s)
		if err != nil {
			t.Fatal(err)
		}
		if _, _, _, err := target.Login(); err == nil {
			t.Errorf("%s: Login accepted an embedded engine", s)
		}
		if _, err := AdminTarget(target, "x", "", ""); err == nil {
			t.Errorf("%s: AdminTarget accepted an embedded engine", s)
		}
	}
}
