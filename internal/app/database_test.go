package app

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sledge-bench/sledge/internal/config"
	"github.com/sledge-bench/sledge/internal/db"
	"github.com/sledge-bench/sledge/internal/metrics"
)

// Every job but a build opens an embedded database only if it exists: a
// check, drop or run of a missing file fails saying how to build it, and
// leaves no file (nor directory) behind; the default embedded database's
// first run still builds it.
func TestJobsOtherThanBuildCreateNoFile(t *testing.T) {
	svc, _ := newService(t, true)
	ctx := context.Background()
	root := t.TempDir()
	path := filepath.Join(root, "sub", "new.db")
	for _, kind := range []string{config.KindCheck, config.KindDrop, config.KindRun} {
		sp := config.New(kind)
		sp.DB, sp.Confirm = "sqlite:"+path, kind == config.KindDrop
		var out bytes.Buffer
		o, err := svc.Run(ctx, Request{Spec: sp, Console: &out})
		want := "no database at " + path + ": build it first with `sledge build --db sqlite:" + path + "`"
		if err == nil || o.Status != metrics.StatusFailed || !strings.Contains(err.Error(), want) || !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s of a missing file: %v (status %s), want %q\n%s", kind, err, o.Status, want, out.String())
		}
		if ents, _ := os.ReadDir(root); len(ents) != 0 {
			t.Fatalf("%s left %v in %s", kind, ents, root)
		}
	}
	// TPROC-H's default DuckDB: the hint names the workload, not --db.
	sp := config.New(config.KindDrop)
	sp.Workload, sp.Confirm = "tproch", true
	if _, err := svc.Run(ctx, Request{Spec: sp}); err != nil && !strings.Contains(err.Error(), "cgo") &&
		!strings.HasSuffix(err.Error(), "build it first with `sledge build --workload tproch`") {
		t.Errorf("drop of the missing default DuckDB: %v", err)
	}
	home := os.Getenv("SLEDGE_HOME")
	if _, err := os.Stat(filepath.Join(home, "tproch.duckdb")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the default DuckDB file was created: %v", err)
	}
}

func TestDriverMessagesSummary(t *testing.T) {
	var m driverMessages
	if s := m.summary(); s != "" {
		t.Errorf("no messages: %q", s)
	}
	for range 12 {
		m.add("connection closed by the server")
	}
	if s := m.summary(); s != "12 (connection closed by the server)" {
		t.Errorf("summary %q", s)
	}
	m.add("packets out of sequence")
	m.add("packets out of sequence")
	if s := m.summary(); s != "14 (12 connection closed by the server, 2 packets out of sequence)" {
		t.Errorf("summary %q", s)
	}
}

// A login that may not create the database gets what to run instead.
func TestCannotCreateSaysWhatToRun(t *testing.T) {
	why := errors.New("permission denied to create database")
	err := cannotCreate(db.Postgres, "tpcc", "bench", "bench", why)
	want := "database tpcc does not exist and user bench cannot create it (permission denied to create database): " +
		"as a superuser, run `CREATE DATABASE tpcc OWNER bench;`, then run the build again"
	if err.Error() != want {
		t.Errorf("PostgreSQL:\n got %s\nwant %s", err, want)
	}
	err = cannotCreate(db.Postgres, "Bench-DB", "", "", why)
	if !strings.Contains(err.Error(), "the target's login cannot") || !strings.Contains(err.Error(), "`CREATE DATABASE \"Bench-DB\";`") {
		t.Errorf("quoted, no owner: %s", err)
	}
	err = cannotCreate(db.MySQL, "tpcc", "bench", "bench", why)
	if !strings.Contains(err.Error(), "as an administrator, run `CREATE DATABASE tpcc; GRANT ALL ON tpcc.* TO 'bench';`") {
		t.Errorf("MariaDB: %s", err)
	}
}

// An embedded target needs no database created: EnsureDatabase leaves it.
func TestEnsureDatabaseEmbedded(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.db")
	if err := EnsureDatabase(context.Background(), db.Target{Kind: db.SQLite, DSN: path}, AdminLogin{}, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("EnsureDatabase created %s: %v", path, err)
	}
}
