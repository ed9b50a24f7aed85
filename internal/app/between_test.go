package app

import (
	"bytes"
	"context"
	"fmt"
	"net/url"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/sledge-bench/sledge/internal/config"
	"github.com/sledge-bench/sledge/internal/metrics"
	"github.com/sledge-bench/sledge/internal/testdb"
)

// TestBetweenTrials runs the vacuum and checkpoint steps between trials on
// every TPROC-C engine and asserts each did its work: PostgreSQL's
// statistics show the vacuum, the analyze and the requested checkpoint;
// MariaDB's ANALYZE TABLE writes InnoDB's persistent statistics of every
// table anew and its FLUSH TABLES … FOR EXPORT leaves the tables writable; SQLite's file stays intact and its write-ahead log is emptied.
func TestBetweenTrials(t *testing.T) {
	if testing.Short() {
		t.Skip("builds on SQLite, PostgreSQL and MariaDB")
	}
	parallel(t)
	engines := []struct {
		name string
		// url is a database holding TPROC-C as buildOne leaves it.
		url func(t *testing.T) string
		// prepare runs before each step, if set; probe is read before
		// and after it, and check compares the two.
		prepare map[string]func(t *testing.T, url string)
		probe   map[string]func(t *testing.T, url string) int64
		check   map[string]func(before, after int64) bool
		said    map[string]string
	}{
		{
			name: "sqlite",
			url:  func(t *testing.T) string { return tpccSQLite(t, "between.db") },
			probe: map[string]func(t *testing.T, url string) int64{
				config.BetweenVacuum:     func(t *testing.T, u string) int64 { return count(t, u, "SELECT count(*) FROM warehouse") },
				config.BetweenCheckpoint: func(t *testing.T, u string) int64 { return count(t, u, "SELECT count(*) FROM district") },
			},
			check: map[string]func(before, after int64) bool{
				config.BetweenVacuum:     func(b, a int64) bool { return b == 1 && a == 1 },
				config.BetweenCheckpoint: func(b, a int64) bool { return b == 10 && a == 10 },
			},
			said: map[string]string{
				config.BetweenVacuum:     "between trials: VACUUM, then ANALYZE took ",
				config.BetweenCheckpoint: "between trials: PRAGMA wal_checkpoint(TRUNCATE) took ",
			},
		},
		{
			name: "postgres",
			url:  tpccPostgres,
			probe: map[string]func(t *testing.T, url string) int64{
				// The oldest vacuum and analyze of the nine tables, in ms.
				config.BetweenVacuum: func(t *testing.T, u string) int64 {
					return count(t, u, `SELECT coalesce(floor(extract(epoch FROM min(least(last_vacuum, last_analyze))) * 1000), 0)::bigint
						FROM pg_stat_user_tables WHERE relname <> 'sledge_meta'`)
				},
				config.BetweenCheckpoint: pgCheckpoints,
			},
			check: map[string]func(before, after int64) bool{
				config.BetweenVacuum:     func(b, a int64) bool { return a > b },
				config.BetweenCheckpoint: func(b, a int64) bool { return a > b },
			},
			said: map[string]string{
				config.BetweenVacuum:     "between trials: VACUUM (ANALYZE) of 9 tables took ",
				config.BetweenCheckpoint: "between trials: CHECKPOINT took ",
			},
		},
		{
			name: "mariadb",
			// Built for itself: a copy is no faster on MariaDB.
			url: func(t *testing.T) string {
				u := testdb.MariaDB(t)
				svc, _ := faultService(t)
				buildOne(t, svc, u)
				return u
			},
			prepare: map[string]func(t *testing.T, url string){
				// The build's ANALYZE TABLE collected them already.
				config.BetweenVacuum: func(t *testing.T, u string) {
					adminExec(t, u, "DELETE FROM mysql.innodb_table_stats WHERE database_name = DATABASE()")
				},
			},
			probe: map[string]func(t *testing.T, url string) int64{
				// ANALYZE TABLE recalculates InnoDB's persistent
				// statistics: one row per table.
				config.BetweenVacuum: func(t *testing.T, u string) int64 {
					return count(t, u, "SELECT count(*) FROM mysql.innodb_table_stats WHERE database_name = DATABASE()")
				},
				// The tables are unlocked again: another session writes.
				config.BetweenCheckpoint: func(t *testing.T, u string) int64 {
					adminExec(t, u, "UPDATE warehouse SET w_ytd = w_ytd + 1 WHERE w_id = 1")
					return count(t, u, "SELECT count(*) FROM warehouse")
				},
			},
			check: map[string]func(before, after int64) bool{
				config.BetweenVacuum:     func(b, a int64) bool { return b == 0 && a == 9 },
				config.BetweenCheckpoint: func(b, a int64) bool { return a == 1 },
			},
			said: map[string]string{
				config.BetweenVacuum:     "between trials: ANALYZE TABLE of 9 tables took ",
				config.BetweenCheckpoint: "between trials: FLUSH TABLES … FOR EXPORT of 9 tables, then UNLOCK TABLES took ",
			},
		},
	}
	g := testdb.NewTogether(t) // (counted in by parallel, with its subtests)
	for _, e := range engines {
		g.Run(e.name, func(t *testing.T) {
			u := e.url(t)
			svc, _ := faultService(t)
			for _, what := range []string{config.BetweenVacuum, config.BetweenCheckpoint} {
				spec := runSpec(u, 0, time.Second)
				spec.Between = what
				if prep := e.prepare[what]; prep != nil {
					prep(t, u)
				}
				before := e.probe[what](t, u)
				if e.name == "postgres" {
					time.Sleep(20 * time.Millisecond) // a later vacuum has a later time
				}
				var out bytes.Buffer
				if err := svc.betweenTrials(context.Background(), Request{Spec: spec, Console: &out}); err != nil {
					t.Fatalf("%s: %v\n%s", what, err, out.String())
				}
				t.Logf("%s", strings.TrimSpace(out.String()))
				if !strings.Contains(out.String(), e.said[what]) || !regexp.MustCompile(`took \d+\.\d s`).MatchString(out.String()) {
					t.Errorf("%s said %q, want %q… and its time", what, out.String(), e.said[what])
				}
				var after int64
				for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(50 * time.Millisecond) {
					// PostgreSQL's checkpointer reports its statistics
					// after it wakes the requester.
					if after = e.probe[what](t, u); e.check[what](before, after) || time.Now().After(deadline) {
						break
					}
				}
				if !e.check[what](before, after) {
					t.Errorf("%s: probe %d before, %d after: the step did not show", what, before, after)
				}
			}
			if e.name != "sqlite" {
				// A table gone: the step fails and names it (MariaDB's
				// ANALYZE TABLE says so in its status rows, not as an
				// error).
				adminExec(t, u, "DROP TABLE history")
				spec := runSpec(u, 0, time.Second)
				spec.Between = config.BetweenVacuum
				err := svc.betweenTrials(context.Background(), Request{Spec: spec})
				if err == nil || !strings.Contains(err.Error(), "history") {
					t.Errorf("vacuum with a table missing: %v", err)
				}
				t.Log(err)
			}
			if e.name == "sqlite" {
				if ok := count(t, u, "SELECT count(*) FROM pragma_quick_check WHERE quick_check = 'ok'"); ok != 1 {
					t.Errorf("the SQLite file fails its quick check after the steps")
				}
			}
			// Nothing to do between trials is nothing.
			spec := runSpec(u, 0, time.Second)
			for _, b := range []string{"", config.BetweenNone} {
				spec.Between = b
				var out bytes.Buffer
				if err := svc.betweenTrials(context.Background(), Request{Spec: spec, Console: &out}); err != nil || out.Len() != 0 {
					t.Errorf("between %q: %v, said %q", b, err, out.String())
				}
			}
		})
	}
	g.Wait()
}

// TestBetweenCheckpointRefused: a PostgreSQL login that may not
// CHECKPOINT gets an error naming the privilege, and a series stops there
// with the trial it ran kept.
func TestBetweenCheckpointRefused(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs on PostgreSQL")
	}
	parallel(t)
	u := tpccPostgres(t)
	svc, repo := faultService(t)
	adminExec(t, u, "DROP ROLE IF EXISTS between_plain", "CREATE ROLE between_plain LOGIN",
		"GRANT ALL ON ALL TABLES IN SCHEMA public TO between_plain")
	t.Cleanup(func() {
		adminExec(t, u, "REVOKE ALL ON ALL TABLES IN SCHEMA public FROM between_plain", "DROP ROLE IF EXISTS between_plain")
	})
	pu, err := url.Parse(u)
	if err != nil {
		t.Fatal(err)
	}
	pu.User = url.User("between_plain")
	plain := pu.String()

	spec := runSpec(plain, 0, time.Second)
	// Mode sql: the login may use the tables, not install routines.
	spec.VU, spec.Mode, spec.Between = 1, "sql", config.BetweenCheckpoint
	err = svc.betweenTrials(context.Background(), Request{Spec: spec})
	if err == nil || !strings.Contains(err.Error(), "CHECKPOINT was refused: it needs") || !strings.Contains(err.Error(), "pg_checkpoint") {
		t.Fatalf("a CHECKPOINT without the privilege: %v", err)
	}
	t.Log(err)

	var out bytes.Buffer
	outs, err := svc.RunSeries(context.Background(), Request{Spec: spec, Console: &out}, 3)
	if err == nil || !strings.Contains(err.Error(), "after trial 1 of 3") || !strings.Contains(err.Error(), "pg_checkpoint") {
		t.Errorf("the series did not stop at its between step: %v", err)
	}
	if len(outs) != 1 || outs[0].Status != metrics.StatusCompleted {
		t.Fatalf("trials kept: %+v\n%s", outs, out.String())
	}
	cfg, err := repo.Config(context.Background(), outs[0].ID)
	if err != nil || cfg["between"] != config.BetweenCheckpoint {
		t.Errorf("trial 1 records between %q (%v), want checkpoint", cfg["between"], err)
	}
}

// TestBetweenSeriesSQLite: a series with a step between its trials runs
// it n-1 times, between the trials only, and every trial records it.
func TestBetweenSeriesSQLite(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs on SQLite")
	}
	parallel(t)
	svc, repo := faultService(t)
	u := tpccSQLite(t, "series.db")
	spec := runSpec(u, 0, time.Second)
	spec.VU, spec.Between = 1, config.BetweenVacuum
	var out bytes.Buffer
	outs, err := svc.RunSeries(context.Background(), Request{Spec: spec, Console: &out}, 3)
	if err != nil || len(outs) != 3 {
		t.Fatalf("%d trials, %v\n%s", len(outs), err, out.String())
	}
	if n := strings.Count(out.String(), "between trials: VACUUM, then ANALYZE took"); n != 2 {
		t.Errorf("%d vacuums between 3 trials, want 2:\n%s", n, out.String())
	}
	// Never before the first trial nor after the last.
	text := out.String()
	first, last := strings.Index(text, "between trials:"), strings.LastIndex(text, "between trials:")
	if first < strings.Index(text, fmt.Sprintf("run job %d", outs[0].ID)) || last > strings.Index(text, fmt.Sprintf("run job %d", outs[2].ID)) {
		t.Errorf("a between step outside the trials' gaps:\n%s", text)
	}
	for k, o := range outs {
		cfg, err := repo.Config(context.Background(), o.ID)
		if err != nil || cfg["between"] != config.BetweenVacuum {
			t.Errorf("trial %d records between %q (%v)", k+1, cfg["between"], err)
		}
	}
}

// count scans the one integer query returns on dbURL.
func count(t *testing.T, dbURL, query string) int64 {
	t.Helper()
	var n int64
	if err := queryOne(t, dbURL, query, &n); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return n
}

// pgCheckpoints is the server's count of requested checkpoints
// (pg_stat_checkpointer from PostgreSQL 17, pg_stat_bgwriter before).
func pgCheckpoints(t *testing.T, u string) int64 {
	if count(t, u, "SELECT current_setting('server_version_num')::int") >= 170000 {
		return count(t, u, "SELECT num_requested FROM pg_stat_checkpointer")
	}
	return count(t, u, "SELECT checkpoints_req FROM pg_stat_bgwriter")
}

// TestBetweenTPROCH: TPROC-H's steps between trials on DuckDB,
// PostgreSQL and MariaDB, a rebuild at the scale factor it was built with included.
func TestBetweenTPROCH(t *testing.T) {
	if testing.Short() {
		t.Skip("builds on DuckDB, PostgreSQL and MariaDB")
	}
	parallel(t)
	g := testdb.NewTogether(t) // (counted in by parallel, with its subtests)
	for _, e := range []struct {
		name, did string
		url       func(t *testing.T) string
	}{
		{"duckdb", "ANALYZE took", func(t *testing.T) string { return "duckdb:" + filepath.Join(t.TempDir(), "h.duckdb") }},
		{"postgres", "VACUUM (ANALYZE) of 8 tables took", func(t *testing.T) string { return testdb.Postgres(t) }},
		{"mariadb", "ANALYZE TABLE of 8 tables took", func(t *testing.T) string { return testdb.MariaDB(t) }},
	} {
		g.Run(e.name, func(t *testing.T) {
			u := e.url(t)
			svc, repo := faultService(t)
			build := config.New(config.KindBuild)
			build.Workload, build.DB, build.Scale = "tproch", u, 0.01
			o, err := svc.Run(context.Background(), Request{Spec: build})
			if err != nil && strings.Contains(err.Error(), "cgo") {
				t.Skip("DuckDB needs cgo:", err)
			}
			if err != nil || o.Status != metrics.StatusCompleted {
				t.Fatalf("build: %+v %v", o, err)
			}
			run := config.New(config.KindRun)
			run.Workload, run.DB = "tproch", u
			for what, want := range map[string]string{
				config.BetweenVacuum:     e.did,
				config.BetweenCheckpoint: map[string]string{"mariadb": "FLUSH TABLES … FOR EXPORT of 8 tables, then UNLOCK TABLES took"}[e.name],
				config.BetweenRebuild:    "rebuilt the TPROC-H schema (build job ",
			} {
				if want == "" {
					want = "CHECKPOINT took"
				}
				run.Between, run.Confirm = what, what == config.BetweenRebuild
				var out bytes.Buffer
				err := svc.betweenTrials(context.Background(), Request{Spec: run, Console: &out, Settings: map[string]string{"series": "7"}})
				t.Logf("%s", strings.TrimSpace(out.String()))
				if err != nil || !strings.Contains(out.String(), "between trials: "+want) {
					t.Errorf("%s: %v, said %q, want %q", what, err, out.String(), want)
				}
			}
			last, err := repo.Get(context.Background(), o.ID+1)
			if err != nil || last.Kind != config.KindBuild || last.Status != metrics.StatusCompleted {
				t.Fatalf("the rebuild's job: %+v %v", last, err)
			}
			cfg, err := repo.Config(context.Background(), last.ID)
			if err != nil || cfg["scale_factor"] != "0.01" || cfg["between"] != "rebuild" || cfg["series"] != "7" || cfg["force"] != "true" {
				t.Errorf("the rebuild's config %v %v", cfg, err)
			}
		})
	}
	g.Wait()
}
