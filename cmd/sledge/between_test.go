package main

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/sledge-bench/sledge/internal/db"
	"github.com/sledge-bench/sledge/internal/db/drivers"
	"github.com/sledge-bench/sledge/internal/testdb"
)

// TestRunRepeatBetweenRebuild: `sledge run --repeat 2 --between rebuild`
// rebuilds the schema between its two trials, as it was built and as a
// build job of the series: the second trial starts from the built data
// (the orders the first added are gone), and every job records between.
func TestRunRepeatBetweenRebuild(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs on SQLite")
	}
	e2eEnv(t)
	url := "sqlite:" + filepath.Join(t.TempDir(), "between.db")
	sledgeOK(t, "build", "--db", url, "--warehouses", "1")
	// Dropping the schema between trials needs the user's word: without a
	// terminal, --yes.
	if out, err := sledge(t, "run", "--db", url, "--vu", "1", "--rampup", "0s", "--duration", "2s", "--interval", "1s",
		"--repeat", "2", "--between", "rebuild"); err == nil || !strings.Contains(out+err.Error(), "run --between rebuild asks for confirmation: run it with --yes") {
		t.Fatalf("--between rebuild without --yes: %v\n%s", err, out)
	}
	out := sledgeOK(t, "run", "--db", url, "--vu", "1", "--rampup", "0s", "--duration", "2s", "--interval", "1s",
		"--repeat", "2", "--between", "rebuild", "--yes")
	for _, want := range []string{"between trials: rebuilding 1 warehouse in " + url + " as it was built, seed 1",
		"between trials: rebuilt the TPROC-C schema (build job ", "Series of 2 trials"} {
		if !strings.Contains(out, want) {
			t.Errorf("the output lacks %q:\n%s", want, out)
		}
	}
	list := jobsJSON(t)
	sort.Slice(list, func(i, j int) bool { return list[i]["id"].(float64) < list[j]["id"].(float64) })
	var kinds []string
	for _, j := range list {
		kinds = append(kinds, j["kind"].(string))
	}
	if strings.Join(kinds, " ") != "build run build run" {
		t.Fatalf("jobs %v, want the build, trial 1, the rebuild, trial 2", kinds)
	}
	series := jobID(list[1])
	for _, j := range list[1:] {
		var cfg map[string]any
		if err := json.Unmarshal([]byte(sledgeOK(t, "jobs", "show", jobID(j), "config", "--format", "json")), &cfg); err != nil {
			t.Fatal(err)
		}
		if cfg["between"] != "rebuild" || cfg["series"] != series {
			t.Errorf("job %s (%s): between %v, series %v, want rebuild and %s", jobID(j), j["kind"], cfg["between"], cfg["series"], series)
		}
		if j["kind"] == "build" && (cfg["warehouses"] != "1" || cfg["force"] != "true" || cfg["seed"] != "1") {
			t.Errorf("the rebuild's config %v: want 1 warehouse, seed 1, forced", cfg)
		}
	}
	// The orders now are the build's 30000 (3000 per district) and what
	// trial 2 added: without the rebuild, trial 1's would be there too.
	added := func(j map[string]any) int64 {
		var res map[string]any
		if err := json.Unmarshal([]byte(sledgeOK(t, "jobs", "show", jobID(j), "result", "--format", "json")), &res); err != nil {
			t.Fatal(err)
		}
		n, _ := res["db_new_orders"].(float64)
		return int64(n)
	}
	first, second := added(list[1]), added(list[3])
	orders := targetCount(t, url, "SELECT count(*) FROM orders") - 30000
	if first <= 0 || second <= 0 || orders < second || orders >= first+second {
		t.Errorf("%d orders added since the build; trial 1 added %d, trial 2 %d: the rebuild did not reset the data", orders, first, second)
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
	e2eEnv(t)
	url := testdb.Postgres(t)
	sledgeOK(t, "build", "--db", url, "--warehouses", "1")
	targetExec(t, url, "DROP ROLE IF EXISTS between_cli", "CREATE ROLE between_cli LOGIN",
		"GRANT ALL ON ALL TABLES IN SCHEMA public TO between_cli")
	t.Cleanup(func() {
		targetExec(t, url, "REVOKE ALL ON ALL TABLES IN SCHEMA public FROM between_cli", "DROP ROLE IF EXISTS between_cli")
	})
	plain := strings.Replace(url, "://sledge@", "://between_cli@", 1)
	// Mode sql: the login may use the tables, not install routines.
	out, err := sledge(t, "run", "--db", plain, "--mode", "sql", "--vu", "1", "--rampup", "0s", "--duration", "1s",
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
	e2eEnv(t)
	out, err := sledge(t, "run", "--between", "vacuum", "--duration", "1s")
	if err == nil || !strings.Contains(err.Error(), "--between applies between trials: use it with --repeat N (or sledge profile)") {
		t.Fatalf("run --between without --repeat: %v\n%s", err, out)
	}
	if n := len(jobsJSON(t)); n != 0 {
		t.Errorf("%d jobs recorded", n)
	}
	if _, err := sledge(t, "run", "--between", "sometimes", "--repeat", "2"); err == nil || !strings.Contains(err.Error(), "between") {
		t.Errorf("--between sometimes: %v", err)
	}
}

// targetCount scans the one integer query returns on a target.
func targetCount(t *testing.T, url, query string) int64 {
	t.Helper()
	var n int64
	withConn(t, url, func(ctx context.Context, c db.Conn) {
		if err := c.QueryRow(ctx, query).Scan(&n); err != nil {
			t.Fatal(fmt.Errorf("%s: %w", query, err))
		}
	})
	return n
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
