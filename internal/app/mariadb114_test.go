package app

import (
	"context"
	"database/sql"
	"strings"
	"testing"
	"time"

	"github.com/sledge-bench/sledge/internal/config"
	mysqldb "github.com/sledge-bench/sledge/internal/db/mysql"
	"github.com/sledge-bench/sledge/internal/metrics"
	"github.com/sledge-bench/sledge/internal/testdb"
)

// TestMariaDB114: the fetched MariaDB 11.4 (testdb.MariaDBVersion) through
// the real path, with the server's innodb_snapshot_isolation on as the
// newer servers have it by default: build (1 warehouse), a 4-VU run with
// the default --snapshot-isolation (off for Sledge's sessions) in which no
// transaction fails with an unclassified error and NOPM agrees with the
// database, and a schema check that holds.
func TestMariaDB114(t *testing.T) {
	if testing.Short() {
		t.Skip("fetches MariaDB 11.4, builds and runs on it")
	}
	parallel(t)
	began := time.Now()
	url := testdb.MariaDBVersion(t, "11.4")
	ready := time.Now()
	ctx := context.Background()
	cfg, err := mysqldb.Config(url)
	if err != nil {
		t.Fatal(err)
	}
	conn, err := sql.Open("mysql", cfg.FormatDSN())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	var version string
	if err := conn.QueryRowContext(ctx, "SELECT VERSION()").Scan(&version); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(version, "11.4.") {
		t.Fatalf("the fetched server is %q, want 11.4.…", version)
	}
	// The server's own; the tests' server is this binary's alone.
	if _, err := conn.ExecContext(ctx, "SET GLOBAL innodb_snapshot_isolation = ON"); err != nil {
		t.Fatal(err)
	}

	svc, repo := newService(t)
	build := config.New(config.KindBuild)
	build.DB, build.Warehouses = url, 1
	if o, err := svc.Run(ctx, Request{Spec: build}); err != nil || o.Status != metrics.StatusCompleted {
		t.Fatalf("build: %s %v", o.Status, err)
	}
	sp := config.New(config.KindRun)
	sp.DB, sp.VU = url, 4
	sp.Rampup, sp.Duration, sp.Interval = 0, config.Duration(8*time.Second), config.Duration(2*time.Second)
	f := runJob(t, svc, repo, sp, newConsole())
	rc, err := repo.Config(ctx, f.o.ID)
	if err != nil {
		t.Fatal(err)
	}
	if rc["snapshot_isolation"] != config.DefaultSnapshotIsolation || rc["innodb_snapshot_isolation"] != "OFF" {
		t.Errorf("recorded snapshot_isolation=%q innodb_snapshot_isolation=%q, want %q and OFF",
			rc["snapshot_isolation"], rc["innodb_snapshot_isolation"], config.DefaultSnapshotIsolation)
	}
	var other int64
	for _, tx := range f.res.Tx {
		other += tx.Errors["other"]
	}
	if other != 0 {
		t.Errorf("%d transactions classed other:\n%s", other, f.output)
	}
	if f.res.NewOrders <= 0 {
		t.Errorf("no New-Order in the run:\n%s", f.output)
	}
	f.requireAgreeingCheck(t)
	check := config.New(config.KindCheck)
	check.DB = url
	if o, err := svc.Run(ctx, Request{Spec: check}); err != nil || o.Status != metrics.StatusCompleted {
		t.Fatalf("check: %s %v", o.Status, err)
	}
	t.Logf("%s: server ready in %.1fs (fetched or from the cache), build → run → check in %.1fs; %d New-Orders, %d errors",
		version, ready.Sub(began).Seconds(), time.Since(ready).Seconds(), f.res.NewOrders, f.res.Errors)
}
