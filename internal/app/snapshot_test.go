package app

import (
	"context"
	"testing"
	"time"

	"github.com/sledge-bench/sledge/internal/config"
)

// TestSnapshotIsolationMariaDB: on a MariaDB whose innodb_snapshot_isolation
// is on (as 11.6.2 and later have it by default), Sledge's default switches
// it off for its sessions, as HammerDB 6 does, and no transaction fails with
// an unclassified error; with it on for the sessions (asked, or left as the
// server has it) the conflicts (error 1020) are serialization failures,
// retried under --max-retries and counted so, never `other`, and NOPM still
// agrees with the database. The job records what the sessions ran with.
func TestSnapshotIsolationMariaDB(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs on MariaDB")
	}
	parallel(t)
	url := startMariaDBWith(t, map[string]string{"innodb-snapshot-isolation": "ON"}).url
	svc, repo := newService(t)
	ctx := context.Background()
	build := config.New(config.KindBuild)
	build.DB = url
	if _, err := svc.Run(ctx, Request{Spec: build}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		snapshot, mode, recorded string
		retries                  int
		conflicts                bool
	}{
		{snapshot: "", mode: "procs", recorded: "OFF"}, // the default
		{snapshot: "on", mode: "procs", recorded: "ON", retries: 3, conflicts: true},
		{snapshot: "server", mode: "sql", recorded: "ON", retries: 3, conflicts: true},
	} {
		sp := config.New(config.KindRun)
		sp.DB, sp.VU, sp.Mode, sp.MaxRetries = url, 4, c.mode, c.retries
		if c.snapshot != "" {
			sp.SnapshotIsolation = c.snapshot
		}
		sp.Rampup, sp.Duration, sp.Interval = 0, config.Duration(6*time.Second), config.Duration(2*time.Second)
		f := runJob(t, svc, repo, sp, newConsole())
		name := c.snapshot + "/" + c.mode
		cfg, err := repo.Config(ctx, f.o.ID)
		if err != nil {
			t.Fatal(err)
		}
		wantAsked := c.snapshot
		if wantAsked == "" {
			wantAsked = config.DefaultSnapshotIsolation
		}
		if cfg["snapshot_isolation"] != wantAsked || cfg["innodb_snapshot_isolation"] != c.recorded {
			t.Errorf("%s: recorded snapshot_isolation=%q innodb_snapshot_isolation=%q, want %q and %s",
				name, cfg["snapshot_isolation"], cfg["innodb_snapshot_isolation"], wantAsked, c.recorded)
		}
		var other, conflicts int64
		for _, tx := range f.res.Tx {
			other += tx.Errors["other"]
			conflicts += tx.RetriesByClass["serialization"] + tx.Errors["serialization"]
		}
		t.Logf("%s: %d New-Orders, %d errors, %d conflicts (retried or failed)", name, f.res.NewOrders, f.res.Errors, conflicts)
		if other != 0 {
			t.Errorf("%s: %d transactions classed other:\n%s", name, other, f.output)
		}
		if c.conflicts && conflicts == 0 {
			t.Errorf("%s: no snapshot conflict was retried or counted with the setting on", name)
		}
		if !c.conflicts && conflicts != 0 {
			t.Errorf("%s: %d snapshot conflicts with the setting off", name, conflicts)
		}
		f.requireAgreeingCheck(t)
	}
}
