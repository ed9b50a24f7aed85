package main

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sledge-bench/sledge/internal/db"
	"github.com/sledge-bench/sledge/internal/db/drivers"
	"github.com/sledge-bench/sledge/internal/testdb/tpcctest"
)

// TestRunRepeatBetweenRebuild: `sledge run --repeat 2 --between rebuild`
// needs the user's word before it drops the schema between trials: without
// a terminal, --yes, which lets the series through to the service. What
// the rebuild does (a build job of the series as the schema was built, the
// second trial from the built data, between recorded) is the service's:
// internal/app's TestBetweenRebuildSeriesSQLite.
func TestRunRepeatBetweenRebuild(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	// A database that is not there: the question comes before it is looked for.
	url := "sqlite:" + filepath.Join(t.TempDir(), "none.db")
	run := []string{"run", "--db", url, "--vu", "1", "--rampup", "0s", "--duration", "2s", "--interval", "1s", "--repeat", "2", "--between", "rebuild"}
	if out, err := e.run(run...); err == nil || !strings.Contains(out+err.Error(), "run --between rebuild asks for confirmation: run it with --yes") {
		t.Fatalf("--between rebuild without --yes: %v\n%s", err, out)
	}
	// With --yes the spec is confirmed: what stops this series is its
	// database, not the confirmation.
	out, err := e.run(append(run, "--yes")...)
	if err == nil || !strings.Contains(err.Error(), "no database at ") || strings.Contains(out+err.Error(), "confirm") || strings.Contains(err.Error(), "--yes") {
		t.Errorf("--between rebuild --yes on a missing database: %v\n%s", err, out)
	}
	for _, j := range e.jobs() {
		if j["status"] != "failed" {
			t.Errorf("job %v: the refused series ran", j)
		}
	}
}

// TestRunRepeatBetweenRefused: a between step the database refuses
// (PostgreSQL's CHECKPOINT for a login without pg_checkpoint) stops the
// series: the trial run is printed and kept, and the error names the
// privilege.
func TestRunRepeatBetweenRefused(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs on PostgreSQL")
	}
	t.Parallel()
	e := newEnv(t)
	url := tpcctest.Postgres(t, tpcctest.Options{})
	targetExec(t, url, "DROP ROLE IF EXISTS between_cli", "CREATE ROLE between_cli LOGIN",
		"GRANT ALL ON ALL TABLES IN SCHEMA public TO between_cli")
	t.Cleanup(func() {
		targetExec(t, url, "REVOKE ALL ON ALL TABLES IN SCHEMA public FROM between_cli", "DROP ROLE IF EXISTS between_cli")
	})
	plain := strings.Replace(url, "://sledge@", "://between_cli@", 1)
	// Mode sql: the login may use the tables, not install routines.
	out, err := e.run("run", "--db", plain, "--mode", "sql", "--vu", "1", "--rampup", "0s", "--duration", "1s",
		"--interval", "1s", "--repeat", "3", "--between", "checkpoint")
	if err == nil || !strings.Contains(err.Error(), "series stopped: after trial 1 of 3: between trials: checkpoint") ||
		!strings.Contains(err.Error(), "pg_checkpoint") {
		t.Fatalf("a refused CHECKPOINT between trials: %v\n%s", err, out)
	}
	if !strings.Contains(out, "Series of 1 trials") {
		t.Errorf("the trial run is not printed:\n%s", out)
	}
	t.Log(err)
}

// TestRunBetweenNeedsRepeat: --between without --repeat is refused before
// any job.
func TestRunBetweenNeedsRepeat(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	out, err := e.run("run", "--between", "vacuum", "--duration", "1s")
	if err == nil || !strings.Contains(err.Error(), "--between applies between trials: use it with --repeat N (or sledge profile)") {
		t.Fatalf("run --between without --repeat: %v\n%s", err, out)
	}
	if n := len(e.jobs()); n != 0 {
		t.Errorf("%d jobs recorded", n)
	}
	if _, err := e.run("run", "--between", "sometimes", "--repeat", "2"); err == nil || !strings.Contains(err.Error(), "between") {
		t.Errorf("--between sometimes: %v", err)
	}
}

// targetExec runs statements on a target.
func targetExec(t *testing.T, url string, stmts ...string) {
	t.Helper()
	withConn(t, url, func(ctx context.Context, c db.Conn) {
		for _, q := range stmts {
			if _, err := c.Exec(ctx, q); err != nil {
				t.Fatal(fmt.Errorf("%s: %w", q, err))
			}
		}
	})
}

func withConn(t *testing.T, url string, fn func(context.Context, db.Conn)) {
	t.Helper()
	ctx := context.Background()
	tg, err := db.ParseTarget(url)
	if err != nil {
		t.Fatal(err)
	}
	drv, err := drivers.For(tg.Kind)
	if err != nil {
		t.Fatal(err)
	}
	c, err := drv.Connect(ctx, tg, db.Options{MustExist: true})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	fn(ctx, c)
}
