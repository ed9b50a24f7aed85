package jobs

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sledge-bench/sledge/internal/metrics"
	"github.com/sledge-bench/sledge/internal/testdb"
	"github.com/sledge-bench/sledge/internal/threshold"
)

func openTemp(t *testing.T) (*Repo, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "nested", "dir", "jobs.db")
	r, err := Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r, path
}

func mustCreate(t *testing.T, r *Repo, j Job, cfg map[string]string) int64 {
	t.Helper()
	id, err := r.Create(context.Background(), j, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

func TestOpenCreatesVersionedWALRepository(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	r, path := openTemp(t)
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("repository file not created: %v", err)
	}
	var mode string
	if err := r.db.QueryRowContext(ctx, "PRAGMA journal_mode").Scan(&mode); err != nil || mode != "wal" {
		t.Fatalf("journal_mode = %q, %v; want wal", mode, err)
	}
	if v, err := userVersion(ctx, r.db); err != nil || v != SchemaVersion {
		t.Fatalf("user_version = %d, %v; want %d", v, err, SchemaVersion)
	}
	id := mustCreate(t, r, Job{Kind: KindRun}, nil)
	r.Close()

	// Reopening keeps the data and does not re-run the migration.
	r2, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r2.Get(ctx, id); err != nil {
		t.Fatalf("job lost on reopen: %v", err)
	}
	// A repository written by a newer sledge is refused, not misread.
	if _, err := r2.db.ExecContext(ctx, fmt.Sprintf("PRAGMA user_version = %d", SchemaVersion+1)); err != nil {
		t.Fatal(err)
	}
	r2.Close()
	if _, err := Open(ctx, path); err == nil || !strings.Contains(err.Error(), "newer") {
		t.Fatalf("Open of a newer schema: err = %v, want a 'newer' error", err)
	}
}

func TestOpenRejectsNonDatabase(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "not.db")
	if err := os.WriteFile(path, bytes.Repeat([]byte("not a database "), 100), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(context.Background(), path); err == nil || !strings.Contains(err.Error(), path) {
		t.Fatalf("err = %v, want an error naming %s", err, path)
	}
}

func TestCreateGetFinish(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, b backend) {
		ctx := context.Background()
		r := b.open(t)
		before := time.Now()
		id := mustCreate(t, r, Job{Kind: KindRun, Workload: "tprocc", DBKind: "postgres", Target: "postgres://u@h/db"},
			map[string]string{"vu": "8"})
		if err := r.SetDBVersion(ctx, id, "PostgreSQL 17.2"); err != nil {
			t.Fatal(err)
		}
		j, err := r.Get(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		host, _ := os.Hostname()
		if j.Status != metrics.StatusRunning || j.Host != host || j.PID != os.Getpid() ||
			j.DBVersion != "PostgreSQL 17.2" || j.Workload != "tprocc" || j.DBKind != "postgres" {
			t.Fatalf("job = %+v", j)
		}
		if j.StartedAt.Before(before.Add(-time.Second)) || !j.EndedAt.IsZero() || j.Headline != nil {
			t.Fatalf("times/headline wrong: %+v", j)
		}
		if err := r.Finish(ctx, id, metrics.StatusRunning, ""); err == nil {
			t.Fatal("Finish accepted status running")
		}
		if err := r.Finish(ctx, id, metrics.StatusFailed, "boom"); err != nil {
			t.Fatal(err)
		}
		j, _ = r.Get(ctx, id)
		if j.Status != metrics.StatusFailed || j.Error != "boom" || j.EndedAt.Before(j.StartedAt) {
			t.Fatalf("finished job = %+v", j)
		}
	})
}

// A job that failed on its workload's schema keeps what it found; Get and
// List read it back, and a job that failed otherwise has none.
func TestFinishSchemaFailure(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, b backend) {
		r := b.open(t)
		ctx := context.Background()
		sf := SchemaFailure{Kind: "no_schema", Workload: "tproch", Holds: "tprocc"}
		failed := mustCreate(t, r, Job{Kind: KindCheck, Workload: "tproch"}, nil)
		if err := r.FinishSchema(ctx, failed, metrics.StatusFailed, "check: no TPROC-H schema", sf); err != nil {
			t.Fatal(err)
		}
		other := mustCreate(t, r, Job{Kind: KindRun, Workload: "tprocc"}, nil)
		if err := r.Finish(ctx, other, metrics.StatusFailed, "boom"); err != nil {
			t.Fatal(err)
		}
		j, err := r.Get(ctx, failed)
		if err != nil || j.SchemaFailure != sf || j.Error != "check: no TPROC-H schema" {
			t.Errorf("Get: %+v, %v; want schema failure %+v", j.SchemaFailure, err, sf)
		}
		list, err := r.List(ctx, ListFilter{})
		if err != nil {
			t.Fatal(err)
		}
		for _, j := range list {
			want := SchemaFailure{}
			if j.ID == failed {
				want = sf
			}
			if j.SchemaFailure != want {
				t.Errorf("List: job %d's schema failure %+v, want %+v", j.ID, j.SchemaFailure, want)
			}
		}
	})
}

func TestMissingJob(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, b backend) {
		ctx := context.Background()
		r := b.open(t)
		const id = 4242
		ops := map[string]func() error{
			"Get":             func() error { _, err := r.Get(ctx, id); return err },
			"SetDBVersion":    func() error { return r.SetDBVersion(ctx, id, "x") },
			"SetSystem":       func() error { return r.SetSystem(ctx, id, map[string]string{"a": "b"}) },
			"AppendOutput":    func() error { return r.AppendOutput(ctx, id, "x") },
			"AddInterval":     func() error { return r.AddInterval(ctx, id, metrics.Interval{Seq: 1}) },
			"SaveRunResult":   func() error { return r.SaveRunResult(ctx, id, &metrics.RunResult{}) },
			"SaveBuildResult": func() error { return r.SaveBuildResult(ctx, id, BuildResult{}) },
			"SaveCheck":       func() error { return r.SaveCheck(ctx, id, nil) },
			"Finish":          func() error { return r.Finish(ctx, id, metrics.StatusCompleted, "") },
			"Delete":          func() error { return r.Delete(ctx, id) },
			"RunResult":       func() error { _, err := r.RunResult(ctx, id); return err },
			"Intervals":       func() error { _, err := r.Intervals(ctx, id); return err },
			"Config":          func() error { _, err := r.Config(ctx, id); return err },
			"System":          func() error { _, err := r.System(ctx, id); return err },
			"Output":          func() error { _, err := r.Output(ctx, id); return err },
			"Build":           func() error { _, err := r.Build(ctx, id); return err },
			"Check":           func() error { _, err := r.Check(ctx, id); return err },
		}
		for name, op := range ops {
			t.Run(name, func(t *testing.T) {
				err := op()
				if !errors.Is(err, ErrNotFound) {
					t.Fatalf("err = %v, want ErrNotFound", err)
				}
				if !strings.Contains(err.Error(), "no job 4242") {
					t.Fatalf("err = %q, want it to say %q", err, "no job 4242")
				}
			})
		}
	})
}

// Id 0 is what callers hold when Create failed; writing to it must not
// produce an error per console line.
func TestWritesToJobZeroAreIgnored(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, b backend) {
		ctx := context.Background()
		r := b.open(t)
		if err := r.AppendOutput(ctx, 0, "line"); err != nil {
			t.Fatal(err)
		}
		if err := r.AddInterval(ctx, 0, metrics.Interval{Seq: 1}); err != nil {
			t.Fatal(err)
		}
	})
}

func sampleRunResult() *metrics.RunResult {
	names := []string{"new_order", "payment", "order_status", "delivery", "stock_level"}
	res := &metrics.RunResult{
		Status: metrics.StatusCompleted, VUs: 8, Warehouses: 10, Mode: "procs", Isolation: "default",
		Rampup: 10 * time.Second, Duration: time.Minute, Measured: 60*time.Second + 123456789,
		NOPM: 12345.678, TPM: 28456.5, NewOrders: 12346, Commits: 28457, Errors: 15, RolledBack: 120,
		HasDBCheck: true, DBNewOrders: 12347, NOPMDBCheck: 12346.1, DBCheckAgree: true, DBCheckAllowance: 9,
		ClientCPU: 3*time.Second + 7, ClientCPUPerTxUS: 105.25, ServerTPMUnavailable: "no server-wide commit counter",
		Connects: metrics.Connects{Count: 8, Total: 24567 * time.Microsecond, Max: 5123 * time.Microsecond},
		Warnings: []string{"first warning", "second: see postgres://u@h/db"},
		Audit: []metrics.AuditItem{
			{Name: "new_order %", Value: 43.5, Unit: "%", Target: "≈ 43.5", OK: true},
			{Name: "remote payment %", Value: 9.1, Unit: "%", Target: ">= 14.0", OK: false},
		},
		Disruption: sampleDisruption(),
	}
	for i, n := range names {
		d := time.Duration(i+1) * time.Millisecond
		tx := metrics.TxSummary{
			Name: n, Count: int64(1000 * (i + 1)), RolledBack: int64(i), Retries: int64(2 * i),
			Mean: d + 333, P50: d, P95: 2*d + 1, P99: 3 * d, Max: 10*d + 999,
			Errors:         map[string]int64{},
			RetriesByClass: map[string]int64{},
			Histogram:      append([]byte("HISTFAAAA"+n), 0, 0xff, byte(i)),
		}
		if i%2 == 0 {
			tx.Errors["serialization"] = int64(5 + i)
			tx.Errors["deadlock"] = 1
			tx.RetriesByClass["serialization"] = int64(2*i - 1)
			tx.RetriesByClass["deadlock"] = 1
			tx.Retried, tx.FailedAfterRetries = int64(i+1), int64(i)
		}
		res.Tx = append(res.Tx, tx)
	}
	// A staged rate run's account, so that every field round-trips.
	res.Load = &metrics.LoadResult{Model: metrics.LoadRate, Connections: 8, AskedRate: 125.5, AchievedRate: 124.25,
		Scheduled: 30120, Dropped: 7, MaxQueue: 1000, LagP50: 150 * time.Microsecond, LagP99: 2500 * time.Microsecond,
		LagMax: 1200 * time.Millisecond, Late: 42}
	res.Stages = []metrics.StageResult{
		{Stage: 1, Target: 100, Start: 10 * time.Second, End: 130 * time.Second, Commits: 12000, NewOrders: 5200, Errors: 1,
			TPM: 6000, NOPM: 2600, P50: 2 * time.Millisecond, P95: 5 * time.Millisecond, P99: 9 * time.Millisecond, LagP99: time.Millisecond},
		{Stage: 2, Target: 151, Start: 130 * time.Second, End: 250 * time.Second, Commits: 18100, NewOrders: 7900,
			TPM: 9050, NOPM: 3950, P50: 3 * time.Millisecond, P95: 8 * time.Millisecond, P99: 15 * time.Millisecond, LagP99: 4 * time.Millisecond},
	}
	return res
}

// sampleDisruption has every part of an account: a recovered outage and
// one that was not, lost sessions with and without a reconnect, intervals
// without commits, a monitor gap, stalls (one ended, one the run stopped
// in) and pauses of the client (stopped, suspended).
func sampleDisruption() *metrics.Disruption {
	s := func(f float64) time.Duration { return time.Duration(f * float64(time.Second)) }
	return &metrics.Disruption{
		WindowStart: s(10.25), WindowEnd: s(70.375),
		Outages: []metrics.Outage{
			{Start: s(20.5), AllBack: s(41.125), Reconnected: true, Resumed: s(41.25), Recovered: true, VUs: 8,
				Lost: map[string]int64{"connection": 8, "other": 2}},
			{Start: s(65), VUs: 1, Lost: map[string]int64{"connection": 1}},
		},
		Connections: []metrics.ConnectionEvent{
			{VU: 3, LostAt: s(20.5), ReconnectedAt: s(41.125), Reconnected: true, Attempts: 14},
			{VU: 1, LostAt: s(65), Attempts: 3},
		},
		IdleIntervals: []metrics.IdleInterval{{Seq: 4, Start: s(30), End: s(40)}},
		MonitorGaps:   []metrics.MonitorGap{{Edge: metrics.EdgeWindowEnd, At: s(70.25), Error: "connection refused"}},
		Sessions:      8, StallAfter: s(5),
		Stalls: []metrics.Stall{
			{Start: s(12.5), End: s(22.625), Ended: true, VUs: 8, LongestWait: s(10.25)},
			{Start: s(68), End: s(70.375), VUs: 3, LongestWait: s(2.5)},
		},
		Pauses: []metrics.Pause{{Start: s(45), End: s(65.5)}, {Start: s(66), End: s(66.25), Suspended: true, Slept: s(3600.5)}},
	}
}

func TestRunResultRoundTrip(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, b backend) {
		ctx := context.Background()
		r := b.open(t)
		id := mustCreate(t, r, Job{Kind: KindRun}, nil)

		if got, err := r.RunResult(ctx, id); err != nil || got != nil {
			t.Fatalf("before saving: %v, %v; want nil, nil", got, err)
		}
		want := sampleRunResult()
		if err := r.SaveRunResult(ctx, id, want); err != nil {
			t.Fatal(err)
		}
		got, err := r.RunResult(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("round trip differs:\n got %+v\nwant %+v", got, want)
		}

		// Saving again replaces, never duplicates.
		want.Tx = want.Tx[:2]
		want.Audit = nil
		want.Warnings = nil
		if err := r.SaveRunResult(ctx, id, want); err != nil {
			t.Fatal(err)
		}
		if got, _ = r.RunResult(ctx, id); !reflect.DeepEqual(got, want) {
			t.Fatalf("after re-save:\n got %+v\nwant %+v", got, want)
		}

		j, _ := r.Get(ctx, id)
		if j.Headline == nil || j.Headline.NOPM != want.NOPM || j.Headline.TPM != want.TPM {
			t.Fatalf("headline = %+v", j.Headline)
		}
	})
}

// sampleVUTiming is two VUs' timings of sampleRunResult's types, VU 2's
// first and in another order than the workload's, as a merge of agents
// could hand them in.
func sampleVUTiming() []metrics.VUTiming {
	return []metrics.VUTiming{
		{VU: 2, Tx: "payment", Calls: 7, Total: 7*time.Millisecond + 1001, Histogram: []byte("HISTFAAAApay2")},
		{VU: 2, Tx: "new_order", Calls: 9, Total: 20 * time.Millisecond, Histogram: []byte("HISTFAAAAno2")},
		{VU: 1, Tx: "stock_level", Calls: 1, Total: 123 * time.Microsecond, Histogram: []byte("HISTFAAAAsl1")},
	}
}

func sampleCommands() []metrics.CommandTiming {
	return []metrics.CommandTiming{
		{Tx: "lookup.sql", Index: 0, Command: `\set aid random(1, 100000 * :scale)`, Count: 10, Total: 30 * time.Microsecond},
		{Tx: "lookup.sql", Index: 1, Command: "SELECT abalance FROM pgbench_accounts WHERE aid = :aid;", Count: 9, Total: 4 * time.Millisecond, Failures: 1},
	}
}

// A script-driven run's command timings (pgbench's -r) are stored with
// its result and read back with it.
func TestScriptCommandsRoundTrip(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, b backend) {
		ctx := context.Background()
		r := b.open(t)
		id := mustCreate(t, r, Job{Kind: KindRun}, nil)
		res := sampleRunResult()
		res.Commands = sampleCommands()
		if err := r.SaveRunResult(ctx, id, res); err != nil {
			t.Fatal(err)
		}
		got, err := r.RunResult(ctx, id)
		if err != nil || !reflect.DeepEqual(got.Commands, sampleCommands()) {
			t.Errorf("RunResult's commands: %+v, %v; want %+v", got.Commands, err, sampleCommands())
		}
	})
}

// Per-VU timings are stored with the result and read per VU (in the
// workload's order of types) or all; RunResult leaves them out, and a
// result saved again without them has none.
func TestVUTimingRoundTrip(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, b backend) {
		ctx := context.Background()
		r := b.open(t)
		id := mustCreate(t, r, Job{Kind: KindRun}, nil)
		if got, err := r.VUTiming(ctx, id, 1); err != nil || got != nil {
			t.Fatalf("before saving: %+v, %v; want none", got, err)
		}
		res := sampleRunResult()
		res.VUTiming = sampleVUTiming()
		if err := r.SaveRunResult(ctx, id, res); err != nil {
			t.Fatal(err)
		}
		vt := sampleVUTiming()
		for _, c := range []struct {
			vu   int
			want []metrics.VUTiming
		}{
			{0, []metrics.VUTiming{vt[2], vt[1], vt[0]}},
			{1, vt[2:]},
			{2, []metrics.VUTiming{vt[1], vt[0]}},
			{3, nil},
		} {
			got, err := r.VUTiming(ctx, id, c.vu)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("VU %d:\n got %+v\nwant %+v", c.vu, got, c.want)
			}
		}
		if got, err := r.RunResult(ctx, id); err != nil || got.VUTiming != nil {
			t.Errorf("RunResult: %+v, %v; want no per-VU timing", got.VUTiming, err)
		}
		if err := r.SaveRunResult(ctx, id, sampleRunResult()); err != nil {
			t.Fatal(err)
		}
		if got, err := r.VUTiming(ctx, id, 0); err != nil || got != nil {
			t.Errorf("after saving a result without them: %+v, %v", got, err)
		}
		if _, err := r.VUTiming(ctx, id+1, 1); !errors.Is(err, ErrNotFound) {
			t.Errorf("a job that does not exist: %v, want ErrNotFound", err)
		}
	})
}

func TestIntervalsRoundTrip(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, b backend) {
		ctx := context.Background()
		r := b.open(t)
		id := mustCreate(t, r, Job{Kind: KindRun}, nil)
		var want []metrics.Interval
		for seq := 1; seq <= 4; seq++ {
			phase := metrics.PhaseMeasure
			if seq == 1 {
				phase = metrics.PhaseRampup
			}
			iv := metrics.Interval{
				Seq: seq, Phase: phase, Elapsed: time.Duration(seq) * 10 * time.Second,
				Length: 10*time.Second + 1234, TPM: 1000.5 * float64(seq), NOPM: 450.25 * float64(seq), Errors: int64(seq % 2),
			}
			for i, n := range []string{"new_order", "payment", "order_status", "delivery", "stock_level"} {
				iv.Tx = append(iv.Tx, metrics.IntervalTx{Name: n, Count: int64(seq*100 + i), Errors: int64(i % 2),
					P50: time.Millisecond, P95: 3*time.Millisecond + 17, P99: 5 * time.Millisecond, Max: time.Second})
			}
			if err := r.AddInterval(ctx, id, iv); err != nil {
				t.Fatal(err)
			}
			want = append(want, iv)
		}
		got, err := r.Intervals(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("intervals differ:\n got %+v\nwant %+v", got, want)
		}
		if err := r.AddInterval(ctx, id, want[0]); err == nil {
			t.Fatal("a duplicate interval seq was accepted")
		}
	})
}

func TestBuildAndCheckRoundTrip(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, be backend) {
		ctx := context.Background()
		r := be.open(t)

		b := mustCreate(t, r, Job{Kind: KindBuild}, nil)
		if got, err := r.Build(ctx, b); err != nil || got != nil {
			t.Fatalf("before saving: %v, %v", got, err)
		}
		wantB := BuildResult{Warehouses: 10, Workers: 4, Rows: 5_000_123, Seconds: 12.5, RowsPerSec: 400009.84,
			Tables: map[string]int64{"warehouse": 10, "district": 100, "stock": 1_000_000, "item": 100_000}}
		if err := r.SaveBuildResult(ctx, b, wantB); err != nil {
			t.Fatal(err)
		}
		gotB, err := r.Build(ctx, b)
		if err != nil || !reflect.DeepEqual(*gotB, wantB) {
			t.Fatalf("build = %+v, %v; want %+v", gotB, err, wantB)
		}
		if got := gotB.SortedTables(); !reflect.DeepEqual(got, []string{"district", "item", "stock", "warehouse"}) {
			t.Fatalf("SortedTables = %v", got)
		}

		c := mustCreate(t, r, Job{Kind: KindCheck}, nil)
		wantC := []CheckItem{
			{Name: "3.3.2.1", Description: "W_YTD = sum(D_YTD)", Passed: true},
			{Name: "3.3.2.2", Description: "D_NEXT_O_ID - 1 = max(O_ID)", Violations: 3, Note: "district 1"},
			{Name: "3.3.2.11", Description: "only before the first run", Skipped: true, Note: "a run happened"},
		}
		if err := r.SaveCheck(ctx, c, wantC); err != nil {
			t.Fatal(err)
		}
		gotC, err := r.Check(ctx, c)
		if err != nil || !reflect.DeepEqual(gotC, wantC) {
			t.Fatalf("check = %+v, %v; want %+v", gotC, err, wantC)
		}
	})
}

func TestConfigSystemOutput(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, b backend) {
		ctx := context.Background()
		r := b.open(t)
		id := mustCreate(t, r, Job{Kind: KindRun}, map[string]string{"vu": "8", "mode": "procs"})
		if err := r.SetSystem(ctx, id, map[string]string{"cpus": "8", "os": "linux/amd64"}); err != nil {
			t.Fatal(err)
		}
		if err := r.SetSystem(ctx, id, map[string]string{"cpus": "16"}); err != nil { // replaces one key
			t.Fatal(err)
		}
		cfg, err := r.Config(ctx, id)
		if err != nil || !reflect.DeepEqual(cfg, map[string]string{"vu": "8", "mode": "procs"}) {
			t.Fatalf("config = %v, %v", cfg, err)
		}
		sys, err := r.System(ctx, id)
		if err != nil || !reflect.DeepEqual(sys, map[string]string{"cpus": "16", "os": "linux/amd64"}) {
			t.Fatalf("system = %v, %v", sys, err)
		}
		for _, l := range []string{"one", "two", "three"} {
			if err := r.AppendOutput(ctx, id, l); err != nil {
				t.Fatal(err)
			}
		}
		out, err := r.Output(ctx, id)
		if err != nil || len(out) != 3 {
			t.Fatalf("output = %v, %v", out, err)
		}
		for i, l := range out {
			if l.Seq != i+1 || l.Line != []string{"one", "two", "three"}[i] || l.At.IsZero() {
				t.Fatalf("line %d = %+v", i, l)
			}
		}
	})
}

func TestListFiltersAndOrder(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, b backend) {
		ctx := context.Background()
		r := b.open(t)
		type spec struct{ kind, status string }
		specs := []spec{
			{KindBuild, metrics.StatusCompleted}, // 1
			{KindRun, metrics.StatusCompleted},   // 2
			{KindRun, metrics.StatusFailed},      // 3
			{KindCheck, metrics.StatusCompleted}, // 4
			{KindRun, metrics.StatusInterrupted}, // 5
			{KindRun, metrics.StatusRunning},     // 6: this process, so still running
		}
		ids := make([]int64, len(specs))
		for i, s := range specs {
			ids[i] = mustCreate(t, r, Job{Kind: s.kind}, nil)
			if s.status != metrics.StatusRunning {
				if err := r.Finish(ctx, ids[i], s.status, ""); err != nil {
					t.Fatal(err)
				}
			}
		}
		tests := []struct {
			name string
			f    ListFilter
			want []int64
		}{
			{"all newest first", ListFilter{}, []int64{ids[5], ids[4], ids[3], ids[2], ids[1], ids[0]}},
			{"limit", ListFilter{Limit: 2}, []int64{ids[5], ids[4]}},
			{"kind", ListFilter{Kind: KindRun}, []int64{ids[5], ids[4], ids[2], ids[1]}},
			{"status", ListFilter{Status: metrics.StatusCompleted}, []int64{ids[3], ids[1], ids[0]}},
			{"kind and status", ListFilter{Kind: KindRun, Status: metrics.StatusCompleted}, []int64{ids[1]}},
			{"kind, status and limit", ListFilter{Kind: KindRun, Status: metrics.StatusFailed, Limit: 5}, []int64{ids[2]}},
			{"running", ListFilter{Status: metrics.StatusRunning}, []int64{ids[5]}},
			{"nothing", ListFilter{Kind: KindDrop}, nil},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				js, err := r.List(ctx, tt.f)
				if err != nil {
					t.Fatal(err)
				}
				var got []int64
				for _, j := range js {
					got = append(got, j.ID)
				}
				if !reflect.DeepEqual(got, tt.want) {
					t.Fatalf("ids = %v, want %v", got, tt.want)
				}
			})
		}
	})
}

// jobRows counts the rows of every child table that belong to job id.
func jobRows(t *testing.T, r *Repo, id int64) map[string]int {
	t.Helper()
	out := map[string]int{}
	for _, tbl := range append([]string{"job"}, childTables...) {
		col := "job_id"
		if tbl == "job" {
			col = "id"
		}
		var n int
		if err := r.db.QueryRowContext(context.Background(), "SELECT count(*) FROM "+tbl+" WHERE "+col+" = ?", id).Scan(&n); err != nil {
			t.Fatal(err)
		}
		out[tbl] = n
	}
	return out
}

// fillEveryTable records a job with a row in every table of a job's data
// but job_origin (a group run, so that the agents' tables have rows too),
// and returns its id.
func fillEveryTable(t *testing.T, r *Repo) int64 {
	t.Helper()
	ctx := context.Background()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	g, _, err := r.JoinRun(ctx, fmt.Sprintf("run-%d", time.Now().UnixNano()), Job{Kind: KindRun}, map[string]string{"vu": "1"},
		Agent{Segment: "0/1", Host: "h", PID: 1, VUs: 1, JoinedAt: time.Now()}, noCheck)
	must(err)
	id := g.JobID
	must(r.AddAgentInterval(ctx, id, "0/1", time.Now(), metrics.Interval{Seq: 1, Tx: []metrics.IntervalTx{{Name: "a"}},
		VUs: []metrics.VUInterval{{VU: 1, State: "running", Commits: 3}}}))
	must(r.SetSystem(ctx, id, map[string]string{"cpus": "1"}))
	must(r.AppendOutput(ctx, id, "hello"))
	must(r.AddInterval(ctx, id, metrics.Interval{Seq: 1, Tx: []metrics.IntervalTx{{Name: "a"}},
		VUs: []metrics.VUInterval{{VU: 1, State: "running", Commits: 3}}}))
	res := sampleRunResult()
	res.VUTiming = sampleVUTiming()
	res.Mixed = sampleMixed()
	res.Commands = sampleCommands()
	must(r.SaveRunResult(ctx, id, res))
	must(r.MarkIntervalsMissing(ctx, id, []MissingInterval{{Seq: 2, Reason: "lost"}}))
	must(r.SaveBuildResult(ctx, id, BuildResult{Tables: map[string]int64{"t": 1}}))
	must(r.SaveCheck(ctx, id, []CheckItem{{Name: "c"}}))
	must(r.SaveThresholds(ctx, id, []threshold.Verdict{{Threshold: threshold.Threshold{Text: "tpm>1", Metric: "tpm", Op: ">", Limit: 1}}}))
	must(r.SaveAnalyticResult(ctx, id, sampleAnalyticResult()))
	saveObservations(t, r, id, sampleObservations())
	return id
}

func TestDeleteRemovesEverything(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, b backend) {
		ctx := context.Background()
		r := b.open(t)
		// Imported jobs, so that job_origin has rows too (and an imported
		// job, read-only otherwise, can be deleted).
		a, c := fillEveryTable(t, r), fillEveryTable(t, r)
		for _, id := range []int64{a, c} {
			if err := r.Finish(ctx, id, metrics.StatusCompleted, ""); err != nil {
				t.Fatal(err)
			}
		}
		f, err := r.Export(ctx, []int64{a, c}, "test", time.Now())
		if err != nil {
			t.Fatal(err)
		}
		im, err := r.Import(ctx, reread(t, f, false), time.Now())
		if err != nil {
			t.Fatal(err)
		}
		victim, keep := im[0].ID, im[1].ID
		for tbl, n := range jobRows(t, r, victim) {
			if n == 0 {
				t.Fatalf("test setup: table %s has no row for the job", tbl)
			}
		}
		if err := r.Delete(ctx, victim); err != nil {
			t.Fatal(err)
		}
		for tbl, n := range jobRows(t, r, victim) {
			if n != 0 {
				t.Errorf("after Delete, %s still has %d rows of the job", tbl, n)
			}
		}
		for tbl, n := range jobRows(t, r, keep) {
			if n == 0 {
				t.Errorf("Delete removed the other job's rows from %s", tbl)
			}
		}
		if _, err := r.Get(ctx, victim); !errors.Is(err, ErrNotFound) {
			t.Fatalf("Get after Delete: %v", err)
		}
		if err := r.Delete(ctx, victim); !errors.Is(err, ErrNotFound) {
			t.Fatalf("second Delete: %v", err)
		}
	})
}

// deadPID returns the pid of a child process that has exited and been
// reaped, so no process has it (until the kernel reuses it).
func deadPID(t *testing.T) int {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	testdb.DieWithTest(cmd)
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	return cmd.Process.Pid
}

func TestAbandonedDetection(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, b backend) {
		ctx := context.Background()
		r := b.open(t)
		dead := deadPID(t)

		crashed := mustCreate(t, r, Job{Kind: KindRun, PID: dead}, nil)
		if err := r.AppendOutput(ctx, crashed, "last words"); err != nil {
			t.Fatal(err)
		}
		alive := mustCreate(t, r, Job{Kind: KindRun, PID: os.Getppid()}, nil)
		elsewhere := mustCreate(t, r, Job{Kind: KindRun, PID: dead, Host: "some-other-host"}, nil)
		finished := mustCreate(t, r, Job{Kind: KindRun, PID: dead}, nil)
		if err := r.Finish(ctx, finished, metrics.StatusCompleted, ""); err != nil {
			t.Fatal(err)
		}

		tests := []struct {
			name   string
			id     int64
			status string
		}{
			{"dead pid on this host", crashed, metrics.StatusAbandoned},
			{"live pid", alive, metrics.StatusRunning},
			{"other host cannot be checked", elsewhere, metrics.StatusRunning},
			{"finished job is left alone", finished, metrics.StatusCompleted},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				j, err := r.Get(ctx, tt.id)
				if err != nil {
					t.Fatal(err)
				}
				if j.Status != tt.status {
					t.Fatalf("status = %s, want %s", j.Status, tt.status)
				}
			})
		}

		j, _ := r.Get(ctx, crashed)
		out, _ := r.Output(ctx, crashed)
		if !j.EndedAt.Equal(out[0].At) || !strings.Contains(j.Error, fmt.Sprint(dead)) {
			t.Fatalf("abandoned job = %+v; want ended at its last line %v and an error naming pid %d", j, out[0].At, dead)
		}

		// List reaps too, so a status filter sees the truth.
		r.db.ExecContext(ctx, "UPDATE job SET status = 'running', ended_at = NULL WHERE id = ?", crashed)
		js, err := r.List(ctx, ListFilter{Status: metrics.StatusAbandoned})
		if err != nil || len(js) != 1 || js[0].ID != crashed {
			t.Fatalf("List(abandoned) = %+v, %v; want job %d", js, err, crashed)
		}
	})
}

func TestNoPasswordStored(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, b backend) {
		ctx := context.Background()
		path := b.fresh(t)
		r := b.openAt(t, path)
		const secret = "s3cretPW"
		id := mustCreate(t, r, Job{Kind: KindRun, Target: "postgres://bench:" + secret + "@db.example:5432/tpcc"},
			map[string]string{
				"db":          "postgres://bench:" + secret + "@db.example:5432/tpcc?sslmode=disable",
				"query_param": "postgresql://db.example/tpcc?user=bench&password=" + secret,
				"libpq":       "host=db.example user=bench password=" + secret + " dbname=tpcc",
				"db_password": secret,
				"vu":          "8",
			})
		if err := r.SetSystem(ctx, id, map[string]string{"env": "PGURL=postgres://x:" + secret + "@h/db"}); err != nil {
			t.Fatal(err)
		}
		if err := r.AppendOutput(ctx, id, "connecting to postgres://bench:"+secret+"@db.example/tpcc"); err != nil {
			t.Fatal(err)
		}
		if err := r.AppendOutputLines(ctx, id, []OutputLine{{Line: "host=db password=" + secret}}); err != nil {
			t.Fatal(err)
		}
		if err := r.Finish(ctx, id, metrics.StatusFailed, `connect "postgres://bench:`+secret+`@db.example/tpcc": refused`); err != nil {
			t.Fatal(err)
		}

		cfg, err := r.Config(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if cfg["vu"] != "8" || !strings.HasPrefix(cfg["db"], "postgres://bench:xxxxx@db.example:5432/tpcc") {
			t.Fatalf("config = %v: harmless values must survive, URLs keep user and host", cfg)
		}
		j, _ := r.Get(ctx, id)
		if j.Target != "postgres://bench:xxxxx@db.example:5432/tpcc" {
			t.Fatalf("target = %q", j.Target)
		}
		// No row of any table may hold the secret.
		if dump := dumpTables(t, r); strings.Contains(dump, secret) {
			t.Errorf("the repository holds the password:\n%s", dump)
		}
		if b.name != "sqlite" {
			return
		}
		// Nothing in the files on disk (database and WAL) may hold it either.
		r.Close()
		for _, f := range []string{path, path + "-wal"} {
			data, err := os.ReadFile(f)
			if errors.Is(err, os.ErrNotExist) {
				continue
			}
			if err != nil {
				t.Fatal(err)
			}
			if bytes.Contains(data, []byte(secret)) {
				t.Errorf("%s contains the password", filepath.Base(f))
			}
		}
	})
}

func TestRedactText(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"postgres://u:pw@h:5432/db", "postgres://u:xxxxx@h:5432/db"},
		{"postgres://u@h/db", "postgres://u@h/db"},
		{"sqlite:/tmp/x.db", "sqlite:/tmp/x.db"},
		{"plain text", "plain text"},
		{"host=h password=pw user=u", "host=h password=xxxxx user=u"},
		{"PASSWORD='p w'", "PASSWORD='xxxxx'"},
		{"a postgres://u:pw@h/db b", "a postgres://u:xxxxx@h/db b"},
	}
	for _, tt := range tests {
		if got := redactText(tt.in); got != tt.want {
			t.Errorf("redactText(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// Several sledge processes write the same repository at once; WAL, the busy
// timeout and BEGIN IMMEDIATE (SQLite), the job's row lock (PostgreSQL) must
// serialise them without errors or lost rows.
func TestConcurrentWriters(t *testing.T) {
	t.Parallel()
	forEachBackend(t, testConcurrentWriters)
}

func testConcurrentWriters(t *testing.T, b backend) {
	ctx := context.Background()
	path := b.fresh(t)
	const writers, lines = 4, 50
	// Separate pools, as separate processes would have, all creating the
	// fresh file at once.
	repos := make([]*Repo, writers)
	var opening sync.WaitGroup
	openErrs := make([]error, writers)
	for i := range repos {
		opening.Go(func() { repos[i], openErrs[i] = Open(ctx, path) })
	}
	opening.Wait()
	for i, err := range openErrs {
		if err != nil {
			t.Fatal(err)
		}
		defer repos[i].Close()
	}
	shared := mustCreate(t, repos[0], Job{Kind: KindRun}, nil)
	var wg sync.WaitGroup
	errs := make(chan error, writers*lines*2)
	for i, r := range repos {
		wg.Add(1)
		go func() {
			defer wg.Done()
			own, err := r.Create(ctx, Job{Kind: KindRun}, map[string]string{"writer": fmt.Sprint(i)})
			if err != nil {
				errs <- err
				return
			}
			for n := range lines {
				if err := r.AppendOutput(ctx, shared, fmt.Sprintf("w%d l%d", i, n)); err != nil {
					errs <- err
				}
				if err := r.AddInterval(ctx, own, metrics.Interval{Seq: n, Tx: []metrics.IntervalTx{{Name: "a"}}}); err != nil {
					errs <- err
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	out, err := repos[0].Output(ctx, shared)
	if err != nil || len(out) != writers*lines {
		t.Fatalf("shared output has %d lines (%v), want %d", len(out), err, writers*lines)
	}
}

// SQLite stores NaN as NULL; a NaN rate must not lose the result.
func TestNaNSurvives(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, b backend) {
		ctx := context.Background()
		r := b.open(t)
		id := mustCreate(t, r, Job{Kind: KindRun}, nil)
		nan := math.NaN()
		res := &metrics.RunResult{Status: metrics.StatusInterrupted, NOPM: nan, TPM: nan, ClientCPUPerTxUS: nan,
			NOPMDBCheck: nan, Audit: []metrics.AuditItem{{Name: "a", Value: nan}}}
		if err := r.SaveRunResult(ctx, id, res); err != nil {
			t.Fatal(err)
		}
		if err := r.AddInterval(ctx, id, metrics.Interval{Seq: 1, TPM: nan, NOPM: 5}); err != nil {
			t.Fatal(err)
		}
		got, err := r.RunResult(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if !math.IsNaN(got.NOPM) || !math.IsNaN(got.TPM) || !math.IsNaN(got.Audit[0].Value) || got.HasServerTPM {
			t.Fatalf("result = %+v", got)
		}
		ivs, err := r.Intervals(ctx, id)
		if err != nil || len(ivs) != 1 || !math.IsNaN(ivs[0].TPM) || ivs[0].NOPM != 5 {
			t.Fatalf("intervals = %+v, %v", ivs, err)
		}
		if j, _ := r.Get(ctx, id); j.Headline == nil || !math.IsNaN(j.Headline.NOPM) {
			t.Fatalf("headline = %+v", j.Headline)
		}
	})
}

// TestListPlacesJobsInTheirGroups: List and Get say which series or
// profile a job belongs to, from its settings, in the listing's one query.
func TestListPlacesJobsInTheirGroups(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, b backend) {
		ctx := context.Background()
		r := b.open(t)
		plain, err := r.Create(ctx, Job{Kind: KindRun}, map[string]string{"vu": "1"})
		if err != nil {
			t.Fatal(err)
		}
		trial, err := r.Create(ctx, Job{Kind: KindRun}, map[string]string{"series": "7", "trial": "2/3", "profile": "5", "profile_vu": "8"})
		if err != nil {
			t.Fatal(err)
		}
		list, err := r.List(ctx, ListFilter{})
		if err != nil {
			t.Fatal(err)
		}
		got := map[int64]PartOf{}
		for _, j := range list {
			got[j.ID] = j.PartOf
		}
		if got[plain] != (PartOf{}) || got[trial] != (PartOf{Series: "7", Trial: "2/3", Profile: "5", ProfileVU: "8"}) {
			t.Errorf("listed %+v", got)
		}
		if j, err := r.Get(ctx, trial); err != nil || j.PartOf.Series != "7" {
			t.Errorf("Get: %+v, %v", j.PartOf, err)
		}
	})
}

// TestDeleteStopped: a running job is deleted only when forced; a stopped
// one, or the job of a process that has died (reaped as abandoned first),
// is deleted; a job that does not exist is ErrNotFound.
func TestDeleteStopped(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Skipf("no process to end: %v", err)
	}
	for _, tc := range []struct {
		name        string
		pid         int // 0: this process
		finish      bool
		force       bool
		wantRunning bool // a *RunningError
	}{
		{name: "running", wantRunning: true},
		{name: "running, forced", force: true},
		{name: "completed", finish: true},
		{name: "dead process", pid: dead.Process.Pid},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r, err := Open(ctx, filepath.Join(t.TempDir(), "jobs.db"))
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			id, err := r.Create(ctx, Job{Kind: KindRun, PID: tc.pid}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if tc.finish {
				if err := r.Finish(ctx, id, metrics.StatusCompleted, ""); err != nil {
					t.Fatal(err)
				}
			}
			err = r.DeleteStopped(ctx, id, tc.force)
			var running *RunningError
			if errors.As(err, &running) != tc.wantRunning || (err != nil) != tc.wantRunning {
				t.Fatalf("DeleteStopped: %v, want a running error %v", err, tc.wantRunning)
			}
			if tc.wantRunning {
				want := fmt.Sprintf("job %d is still running (pid %d on %s)", id, os.Getpid(), r.host)
				if err.Error() != want {
					t.Errorf("error %q, want %q", err, want)
				}
			}
			if _, err := r.Get(ctx, id); errors.Is(err, ErrNotFound) == tc.wantRunning {
				t.Errorf("after DeleteStopped, Get: %v (running job kept: %v)", err, tc.wantRunning)
			}
		})
	}
	r, err := Open(ctx, filepath.Join(t.TempDir(), "jobs.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if err := r.DeleteStopped(ctx, 99, false); !errors.Is(err, ErrNotFound) {
		t.Errorf("DeleteStopped of no job: %v, want ErrNotFound", err)
	}
}
