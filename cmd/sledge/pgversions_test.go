package main

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sledge-bench/sledge/internal/jobs"
	"github.com/sledge-bench/sledge/internal/testdb"
)

// TestPostgresVersions is the version matrix: the system's PostgreSQL and
// the fetched 16, 17 and 18 (testdb.PostgresVersion), each through the
// real path — build, a run in each mode, check, drop — and an observed run
// whose version-specific statistics must move. A short smoke per version:
// the servers start and run at the same time.
func TestPostgresVersions(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		major int // 0: the system's server (testdb.Postgres)
		// The statistics that must show a non-zero delta over the observed
		// run, as source/name (pg_stat_io's names are backend type.column).
		deltas []string
	}{
		{"system", 0, []string{"pg_stat_database/xact_commit", "pg_stat_wal/wal_records"}},
		{"16", 16, []string{"pg_stat_database/xact_commit", "pg_stat_wal/wal_records",
			"pg_stat_bgwriter/checkpoints_req", "pg_stat_io/checkpointer.writes"}},
		{"17", 17, []string{"pg_stat_database/xact_commit", "pg_stat_wal/wal_write",
			"pg_stat_checkpointer/num_requested", "pg_stat_checkpointer/buffers_written", "pg_stat_io/checkpointer.writes"}},
		{"18", 18, []string{"pg_stat_database/xact_commit", "pg_stat_wal/wal_records",
			"pg_stat_checkpointer/num_requested", "pg_stat_checkpointer/buffers_written", "pg_stat_io/checkpointer.writes"}},
	}
	g := testdb.NewTogether(t)
	for _, tt := range tests {
		g.Run(tt.name, func(t *testing.T) {
			began := time.Now()
			var url string
			if tt.major == 0 {
				url = testdb.Postgres(t)
			} else {
				url = testdb.PostgresVersion(t, tt.major)
			}
			started := time.Now()
			e := newEnv(t)
			e.ok("build", "--db", url, "--warehouses", "1", "--workers", "1")
			version := fmt.Sprint(e.latest(jobs.KindBuild)["db_version"])
			if want := fmt.Sprintf("PostgreSQL %d.", tt.major); tt.major != 0 && !strings.HasPrefix(version, want) {
				t.Fatalf("the build's db_version is %q, want %s…", version, want)
			}
			start := func(mode, metrics string, length ...string) (id, out string) {
				t.Helper()
				out = e.ok(append([]string{"run", "--db", url, "--vu", "2", "--mode", mode, "--interval", "1s", "--metrics", metrics}, length...)...)
				if !strings.Contains(out, "mode "+mode) {
					t.Errorf("%s run output:\n%s", mode, out)
				}
				return jobID(e.latest(jobs.KindRun)), out
			}
			run := func(mode, metrics string, length ...string) (id, out string) {
				t.Helper()
				id, out = start(mode, metrics, length...)
				e.requireRunResult(id, 2)
				return id, out
			}
			// A count of transactions, not a time: on a busy machine a
			// short timed window may end before a New-Order does.
			run("procs", "off", "--iterations", "60")
			// The observed run: checkpoints asked for all along, so that the
			// checkpointer's statistics move within a short run.
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan error, 1)
			go func() { done <- checkpointUntil(ctx, url) }()
			// Timed: the checkpoints asked every half second must end
			// within it however slowly the machine runs the transactions
			// (60 of them have ended before a checkpoint did).
			// Under two copies of the suite the server once stalled the
			// whole window (no New-Order in 4 s): at most three tries.
			var id, out string
			for try := 1; ; try++ {
				id, out = start("sql", "on", "--rampup", "0s", "--duration", "4s")
				if try == 3 || !e.noNewOrder(id) {
					break
				}
				t.Logf("job %s: no New-Order in its window on a busy machine; again", id)
			}
			e.requireRunResult(id, 2)
			cancel()
			if err := <-done; err != nil {
				t.Fatal(err)
			}
			// The summary reads the checkpointer's counters wherever this
			// version keeps them.
			if m := checkpointsBegun.FindStringSubmatch(out); m == nil || m[1] == "0" {
				t.Errorf("the observed run's summary counts no checkpoint begun: %q\n%s", m, out)
			}
			sums := observedDeltas(t, e, id)
			for _, want := range tt.deltas {
				if sums[want] <= 0 {
					t.Errorf("%s: delta %v over the observed run, want > 0; the deltas: %v", want, sums[want], sums)
				}
			}
			if out := e.ok("check", "--db", url); !strings.Contains(out, "all conditions hold") {
				t.Fatalf("check after the runs:\n%s", out)
			}
			e.ok("drop", "--db", url, "--yes")
			if _, err := e.run("check", "--db", url); err == nil {
				t.Fatal("check after drop succeeded")
			}
			t.Logf("%s: server ready in %.1fs, build → runs → check → drop in %.1fs",
				version, started.Sub(began).Seconds(), time.Since(started).Seconds())
		})
	}
	g.Wait()
}

// checkpointsBegun is the count in a run summary's statistics line.
var checkpointsBegun = regexp.MustCompile(`(\d+) checkpoints? begun`)

// checkpointUntil asks for a checkpoint on url's server every half second
// until ctx ends (the error is only of a failed CHECKPOINT).
func checkpointUntil(ctx context.Context, url string) error {
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		return err
	}
	defer conn.Close(context.Background())
	tick := time.NewTicker(500 * time.Millisecond)
	defer tick.Stop()
	for {
		if _, err := conn.Exec(ctx, "CHECKPOINT"); err != nil && ctx.Err() == nil {
			return fmt.Errorf("CHECKPOINT: %w", err)
		}
		select {
		case <-ctx.Done():
			return nil
		case <-tick.C:
		}
	}
}

// observedDeltas sums the delta counters the database's observer recorded
// for run id over its intervals, by source/name.
func observedDeltas(t *testing.T, e *testEnv, id string) map[string]float64 {
	t.Helper()
	var observers []struct {
		Server    string `json:"server"`
		Intervals []struct {
			Counters []struct {
				Source string  `json:"source"`
				Name   string  `json:"name"`
				Kind   string  `json:"kind"`
				Value  float64 `json:"value"`
			} `json:"counters"`
		} `json:"intervals"`
	}
	if err := json.Unmarshal([]byte(e.ok("jobs", "show", id, "metrics", "--format", "json")), &observers); err != nil {
		t.Fatal(err)
	}
	sums := map[string]float64{}
	for _, o := range observers {
		if !strings.HasPrefix(o.Server, "PostgreSQL") {
			continue // the host's
		}
		for _, iv := range o.Intervals {
			for _, c := range iv.Counters {
				if c.Kind == "delta" {
					sums[c.Source+"/"+c.Name] += c.Value
				}
			}
		}
	}
	if len(sums) == 0 {
		t.Fatalf("run %s: no PostgreSQL observer's deltas", id)
	}
	return sums
}
