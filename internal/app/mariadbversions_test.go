package app

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/sledge-bench/sledge/internal/config"
	mysqldb "github.com/sledge-bench/sledge/internal/db/mysql"
	"github.com/sledge-bench/sledge/internal/jobs"
	"github.com/sledge-bench/sledge/internal/metrics"
	"github.com/sledge-bench/sledge/internal/observe"
	"github.com/sledge-bench/sledge/internal/testdb"
	"github.com/sledge-bench/sledge/internal/workload"
)

// TestMariaDBVersions is MariaDB's version matrix, through the job service:
// the system's server (10.11 here) and the fetched 11.4
// (testdb.MariaDBVersion), each with innodb_snapshot_isolation on, as
// 11.6.2 and later have it by default. Per version: build (1 warehouse);
// the snapshot isolation cases, in both modes: Sledge's default switches
// the setting off for its sessions (as HammerDB 6 does) and no conflict
// happens, while with it on for the sessions (asked, or left as the server
// has it) the conflicts (error 1020) are serialization failures, retried
// under --max-retries and counted so; no transaction is ever classed
// `other` and NOPM agrees with the database. Then an observed (paced) run whose
// server statistics that exist on that version must move, a check, and a
// drop after which the schema is gone. A short smoke per version: the
// versions run at the same time.
func TestMariaDBVersions(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs on MariaDB servers")
	}
	parallel(t)
	// What a TPROC-C run moves on every MariaDB: statements, rows (by the
	// handler calls and Rows_read), buffer pool pages and the redo log
	// (the sandbox writes it about once a second, not at each commit).
	moved := []string{"Questions", "Com_select", "Com_insert", "Com_update", "Com_commit",
		"Rows_read", "Handler_write", "Handler_update",
		"Innodb_buffer_pool_read_requests", "Innodb_buffer_pool_write_requests",
		"Innodb_os_log_written", "Innodb_log_writes", "Innodb_data_fsyncs"}
	// MySQL's row counters, which MariaDB 10.11 and later no longer have.
	mysqlRows := []string{"Innodb_rows_read", "Innodb_rows_inserted", "Innodb_rows_updated", "Innodb_rows_deleted"}
	tests := []struct {
		name    string
		version string // the VERSION() prefix; "" for the system's (any)
		// server returns the URL of an empty database on a server of the
		// version whose global innodb_snapshot_isolation is on.
		server func(t *testing.T) string
		// The observer's global_status deltas that must be non-zero over
		// the observed run, and the names it samples that the version does
		// not have, which must be absent (not reported as zeros).
		deltas, absent []string
	}{
		{
			name: "system",
			// A private server: the binary's shared one is other tests'.
			server: func(t *testing.T) string {
				return startMariaDBWith(t, 0, map[string]string{"innodb-snapshot-isolation": "ON"}).url
			},
			deltas: moved, absent: mysqlRows,
		},
		{
			name: "11.4", version: "11.4.",
			// The binary's server of 11.4 is this test's alone.
			server: func(t *testing.T) string {
				url := testdb.MariaDBVersion(t, "11.4")
				mariaExec(t, url, "SET GLOBAL innodb_snapshot_isolation = ON")
				return url
			},
			deltas: moved, absent: mysqlRows,
		},
	}
	g := testdb.NewTogether(t) // (counted in by parallel, with its subtests)
	for _, tt := range tests {
		g.Run(tt.name, func(t *testing.T) {
			began := time.Now()
			url := tt.server(t)
			ready := time.Now()
			version, snapshot := mariaVersion(t, url)
			if !strings.HasPrefix(version, tt.version) {
				t.Fatalf("the server is %q, want %s…", version, tt.version)
			}
			if snapshot != "1" {
				t.Fatalf("the server's innodb_snapshot_isolation is %q, want on", snapshot)
			}
			svc, repo := newService(t)
			ctx := context.Background()
			build := config.New(config.KindBuild)
			build.DB, build.Warehouses, build.Workers = url, 1, 2
			if o, err := svc.Run(ctx, Request{Spec: build}); err != nil || o.Status != metrics.StatusCompleted {
				t.Fatalf("build: %s %v", o.Status, err)
			}
			built := time.Now()

			for _, c := range []struct {
				snapshot, mode, recorded string
				retries                  int
				conflicts                bool
			}{
				{snapshot: "", mode: "procs", recorded: "OFF"}, // the default
				{snapshot: "on", mode: "procs", recorded: "ON", retries: 3, conflicts: true},
				{snapshot: "server", mode: "sql", recorded: "ON", retries: 3, conflicts: true},
			} {
				sp := mariaRunSpec(url, c.mode, "off")
				sp.MaxRetries = c.retries
				if c.snapshot != "" {
					sp.SnapshotIsolation = c.snapshot
				}
				name := c.snapshot + "/" + c.mode
				// Conflicts come from contention, which a short window on a
				// busy machine may lack: a run without one is tried again,
				// up to four runs in all, before it counts as missing.
				var f finished
				for try := 1; ; try++ {
					f = runJob(t, svc, repo, sp, newConsole())
					if _, conflicts := classes(f.res); !c.conflicts || conflicts > 0 || try == 4 {
						break
					}
					t.Logf("%s %s: no snapshot conflict in run %d; running again", version, name, try)
				}
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
				other, conflicts := classes(f.res)
				t.Logf("%s %s: %d New-Orders, %d errors, %d conflicts (retried or failed)",
					version, name, f.res.NewOrders, f.res.Errors, conflicts)
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
			cases := time.Now()

			// The observed run, with Sledge's defaults but paced (keying and
			// think times at 1 %: about 13 transactions a second, as the
			// fault tests' runs): the statistics that must move move with a
			// steady flow of transactions; unpaced, the two versions' runs
			// took all the CPU they could get for nothing more.
			sp := mariaRunSpec(url, "procs", "on")
			sp.Pacing, sp.PacingScale = "spec", 0.01
			f := runJob(t, svc, repo, sp, newConsole())
			if other, _ := classes(f.res); other != 0 || f.res.NewOrders <= 0 {
				t.Errorf("observed run: %d New-Orders, %d transactions classed other", f.res.NewOrders, other)
			}
			obs := mariaObservation(t, repo, f.o.ID)
			if want := "MariaDB " + tt.version; !strings.HasPrefix(obs.Start.Server, want) {
				t.Errorf("the observer saw %q, want %s…", obs.Start.Server, want)
			}
			sums := statusDeltas(obs)
			t.Logf("%s: observed deltas %v", version, sums)
			for _, n := range tt.deltas {
				if sums[n] <= 0 {
					t.Errorf("%s: delta %v over the observed run, want > 0; the deltas: %v", n, sums[n], sums)
				}
			}
			for _, n := range tt.absent {
				if v, ok := sums[n]; ok {
					t.Errorf("%s: reported (%v), but %s has no such status", n, v, version)
				}
			}
			f.requireAgreeingCheck(t)
			observed := time.Now()

			check := config.New(config.KindCheck)
			check.DB = url
			if o, err := svc.Run(ctx, Request{Spec: check}); err != nil || !o.OK() {
				t.Fatalf("check: %+v %v", o, err)
			}
			drop := config.New(config.KindDrop)
			drop.DB, drop.Confirm = url, true
			if o, err := svc.Run(ctx, Request{Spec: drop}); err != nil || o.Status != metrics.StatusCompleted {
				t.Fatalf("drop: %+v %v", o, err)
			}
			if _, err := svc.Run(ctx, Request{Spec: check}); !errors.Is(err, workload.ErrNoSchema) {
				t.Errorf("check after drop: %v, want no schema", err)
			}
			if left := mariaTables(t, url); len(left) != 0 {
				t.Errorf("tables left after drop: %v", left)
			}
			t.Logf("%s: server ready in %.1fs; build %.1fs, snapshot cases %.1fs, observed run %.1fs, check and drop %.1fs",
				version, ready.Sub(began).Seconds(), built.Sub(ready).Seconds(), cases.Sub(built).Seconds(),
				observed.Sub(cases).Seconds(), time.Since(observed).Seconds())
		})
	}
	g.Wait()
}

// mariaRunSpec is a short run of 4 virtual users in mode, observed or not
// (metrics on or off). 6 s, and stall detection off: on a busy machine a
// 3 s sql-mode window with snapshot isolation on once ended with its
// sessions in lock waits and no New-Order (degraded, no conflict to count);
// stalls are the fault tests' subject, not this one's.
func mariaRunSpec(url, mode, observed string) config.Spec {
	sp := config.New(config.KindRun)
	sp.DB, sp.VU, sp.Mode, sp.Metrics = url, 4, mode, observed
	sp.Rampup, sp.Duration, sp.Interval = 0, config.Duration(6*time.Second), config.Duration(time.Second)
	sp.StallAfter = -1
	return sp
}

// classes counts a run's transactions classed other and its snapshot
// conflicts (serialization failures retried or failed).
func classes(r *metrics.RunResult) (other, conflicts int64) {
	for _, tx := range r.Tx {
		other += tx.Errors["other"]
		conflicts += tx.RetriesByClass["serialization"] + tx.Errors["serialization"]
	}
	return other, conflicts
}

// mariaObservation is the MariaDB observer's record of job id.
func mariaObservation(t *testing.T, repo *jobs.Repo, id int64) jobs.Observation {
	t.Helper()
	got, err := repo.Observations(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range got {
		if strings.HasPrefix(o.Start.Server, "MariaDB") {
			return o
		}
	}
	t.Fatalf("job %d: no MariaDB observer among %d", id, len(got))
	return jobs.Observation{}
}

// statusDeltas sums the observer's global status deltas over the run's
// intervals, by name.
func statusDeltas(o jobs.Observation) map[string]float64 {
	sums := map[string]float64{}
	for _, iv := range o.Intervals {
		for _, c := range iv.Counters {
			if c.Source == "global_status" && c.Kind == observe.Delta {
				sums[c.Name] += c.Value
			}
		}
	}
	return sums
}

// mariaDB opens url's database for the test's own statements.
func mariaDB(t *testing.T, url string) *sql.DB {
	t.Helper()
	cfg, err := mysqldb.Config(url)
	if err != nil {
		t.Fatal(err)
	}
	conn, err := sql.Open("mysql", cfg.FormatDSN())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return conn
}

func mariaExec(t *testing.T, url, stmt string) {
	t.Helper()
	if _, err := mariaDB(t, url).ExecContext(context.Background(), stmt); err != nil {
		t.Fatalf("%s: %v", stmt, err)
	}
}

// mariaVersion is the server's VERSION() and global
// innodb_snapshot_isolation (1 when on).
func mariaVersion(t *testing.T, url string) (version, snapshot string) {
	t.Helper()
	err := mariaDB(t, url).QueryRowContext(context.Background(),
		"SELECT VERSION(), @@GLOBAL.innodb_snapshot_isolation").Scan(&version, &snapshot)
	if err != nil {
		t.Fatal(err)
	}
	return version, snapshot
}

// mariaTables lists the tables of url's database.
func mariaTables(t *testing.T, url string) []string {
	t.Helper()
	rows, err := mariaDB(t, url).QueryContext(context.Background(),
		"SELECT TABLE_NAME FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE()")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			t.Fatal(err)
		}
		out = append(out, n)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}
