package jobs

import (
	"context"
	"database/sql"
	"math"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/sledge-bench/sledge/internal/observe"
)

// sampleObservations are two observers of a run: a database server with
// waits, statements and counters, and a host with gauges only.
func sampleObservations() []Observation {
	return []Observation{
		{
			Name: "PostgreSQL sessions and statistics",
			Start: observe.Start{
				Server: "PostgreSQL 15.8",
				Uptime: 36*time.Hour + 123456789*time.Nanosecond,
				Settings: []observe.Setting{
					{Name: "shared_buffers", Value: "128MB", Source: "configuration file"},
					{Name: "synchronous_commit", Value: "off", Source: ""},
				},
				Notes: []string{"no pg_monitor role: only the benchmark's own sessions are seen"},
			},
			Intervals: []observe.Snapshot{
				{
					Elapsed: 10*time.Second + 1234*time.Nanosecond, Length: 10 * time.Second, Samples: 100,
					Waits: []observe.Wait{{Class: "CPU", AAS: 1.6}, {Class: "Lock", Event: "relation", AAS: 0.82}},
					Statements: []observe.Statement{
						{ID: "-4711", Text: "SELECT neword($1, $2)", AAS: 1.2, Seconds: 3.5, Calls: 900},
						{Text: "COMMIT", AAS: 0.1},
					},
					Counters: []observe.Counter{
						{Source: "pg_stat_database", Name: "xact_commit", Kind: observe.Delta, Value: 2300},
						{Source: "pg_checkpointer", Name: "num_requested", Kind: observe.Delta, Value: 1},
					},
				},
				{
					Elapsed: 20 * time.Second, Length: 10 * time.Second, Samples: 79,
					Gap: "server went away at 12.1 s: connection refused",
					Counters: []observe.Counter{
						{Source: "pg_stat_database", Name: "blks_hit", Kind: observe.Delta, Unit: "blocks", Value: 1e6},
					},
				},
			},
			Cost: observe.Cost{Samples: 179, Queries: 200, QueryTime: 812 * time.Millisecond, Reconnects: 1, ServerShare: 0.008},
		},
		{
			Name:  "client and database host",
			Start: observe.Start{Server: ""},
			Intervals: []observe.Snapshot{
				{Elapsed: 10 * time.Second, Length: 10 * time.Second, Counters: []observe.Counter{
					{Source: "os.cpu", Name: "user_pct", Kind: observe.Gauge, Unit: "%", Value: 41.5},
					{Source: "os.disk", Name: "mbps", Kind: observe.Gauge, Unit: "MB/s", Value: 12.25},
				}},
			},
			Cost: observe.Cost{Samples: 2, Queries: 0, QueryTime: 3 * time.Millisecond},
		},
	}
}

// saveObservations stores obs as the wiring of a run does: start, the
// intervals as they are cut (seq from 1), the cost at the end.
func saveObservations(t *testing.T, r *Repo, id int64, obs []Observation) {
	t.Helper()
	ctx := context.Background()
	for i, o := range obs {
		if err := r.SaveObserverStart(ctx, id, i, o.Name, o.Start); err != nil {
			t.Fatal(err)
		}
		for k, s := range o.Intervals {
			if err := r.AppendObserved(ctx, id, i, k+1, s); err != nil {
				t.Fatal(err)
			}
		}
		if err := r.SaveObserverCost(ctx, id, i, o.Cost); err != nil {
			t.Fatal(err)
		}
	}
}

func TestObservationsRoundTrip(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, b backend) {
		ctx := context.Background()
		r := b.open(t)
		id := mustCreate(t, r, Job{Kind: KindRun}, nil)
		other := mustCreate(t, r, Job{Kind: KindRun}, nil)
		want := sampleObservations()
		saveObservations(t, r, id, want)

		got, err := r.Observations(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("round trip differs:\n got %+v\nwant %+v", got, want)
		}
		if got, err := r.Observations(ctx, other); err != nil || got != nil {
			t.Fatalf("a job without observers: %+v, %v; want nil, nil", got, err)
		}
		if _, err := r.Observations(ctx, 999); err == nil || !strings.Contains(err.Error(), "no job 999") {
			t.Fatalf("a missing job: %v", err)
		}
	})
}

// Saving the start again replaces it (settings and notes too) and keeps the
// cost; a cost stored before the start is kept as well.
func TestObserverStartReplaces(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, b backend) {
		ctx := context.Background()
		r := b.open(t)
		id := mustCreate(t, r, Job{Kind: KindRun}, nil)
		cost := observe.Cost{Samples: 5, Queries: 6, QueryTime: time.Second}
		if err := r.SaveObserverCost(ctx, id, 0, cost); err != nil {
			t.Fatal(err)
		}
		first := observe.Start{Server: "MariaDB 11.4", Settings: []observe.Setting{{Name: "a", Value: "1"}, {Name: "b", Value: "2"}}, Notes: []string{"x"}}
		second := observe.Start{Server: "MariaDB 11.4.2", Settings: []observe.Setting{{Name: "c", Value: "3"}}}
		for _, st := range []observe.Start{first, second} {
			if err := r.SaveObserverStart(ctx, id, 0, "MariaDB status", st); err != nil {
				t.Fatal(err)
			}
		}
		got, err := r.Observations(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		want := []Observation{{Name: "MariaDB status", Start: second, Cost: cost}}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("got %+v\nwant %+v", got, want)
		}
	})
}

// Passwords never reach the repository, whichever field carries them; a
// counter that could not be measured comes back as NaN.
func TestObservedRedactsAndKeepsNaN(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, b backend) {
		ctx := context.Background()
		r := b.open(t)
		id := mustCreate(t, r, Job{Kind: KindRun}, nil)
		st := observe.Start{
			Settings: []observe.Setting{{Name: "primary_conninfo", Value: "host=db user=rep password=hunter2"}},
			Notes:    []string{"cannot connect to postgres://sledge:hunter2@db/x"},
		}
		if err := r.SaveObserverStart(ctx, id, 0, "PostgreSQL", st); err != nil {
			t.Fatal(err)
		}
		s := observe.Snapshot{
			Gap:        "lost postgres://sledge:hunter2@db/x",
			Statements: []observe.Statement{{Text: "ALTER ROLE x PASSWORD 'a' -- password=hunter2"}},
			Counters:   []observe.Counter{{Source: "os.disk", Name: "mbps", Kind: observe.Gauge, Value: math.NaN()}},
		}
		if err := r.AppendObserved(ctx, id, 0, 1, s); err != nil {
			t.Fatal(err)
		}
		got, err := r.Observations(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		text := got[0].Start.Settings[0].Value + got[0].Start.Notes[0] + got[0].Intervals[0].Gap + got[0].Intervals[0].Statements[0].Text
		if strings.Contains(text, "hunter2") {
			t.Errorf("a password was stored: %q", text)
		}
		if v := got[0].Intervals[0].Counters[0].Value; !math.IsNaN(v) {
			t.Errorf("unmeasured counter came back as %g, want NaN", v)
		}
	})
}

// An interval stored twice is refused, not doubled; a missing job is named.
func TestAppendObservedRefusesDuplicates(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, b backend) {
		ctx := context.Background()
		r := b.open(t)
		id := mustCreate(t, r, Job{Kind: KindRun}, nil)
		s := observe.Snapshot{Waits: []observe.Wait{{Class: "CPU", AAS: 1}}}
		if err := r.AppendObserved(ctx, id, 0, 1, s); err != nil {
			t.Fatal(err)
		}
		if err := r.AppendObserved(ctx, id, 0, 1, s); err == nil {
			t.Error("the same interval stored twice")
		}
		if err := r.AppendObserved(ctx, 999, 0, 1, s); err == nil || !strings.Contains(err.Error(), "no job 999") {
			t.Errorf("a missing job: %v", err)
		}
		got, err := r.Observations(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 1 || len(got[0].Intervals) != 1 || len(got[0].Intervals[0].Waits) != 1 {
			t.Errorf("after a refused duplicate: %+v", got)
		}
	})
}

// A repository of schema version 7 is migrated: its jobs have no
// observations, and new ones can be stored.
func TestMigrateObservationsFromV7(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "jobs.db")
	old, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	for v := 0; v < 7; v++ {
		if _, err := old.ExecContext(ctx, sqliteScript(t, v)); err != nil {
			t.Fatalf("schema %d: %v", v+1, err)
		}
	}
	now := fmtTime(time.Now())
	if _, err := old.ExecContext(ctx, `INSERT INTO job (id, kind, status, created_at, started_at, ended_at)
		VALUES (1, 'run', 'completed', ?, ?, ?)`, now, now, now); err != nil {
		t.Fatal(err)
	}
	if _, err := old.ExecContext(ctx, "PRAGMA user_version = 7"); err != nil {
		t.Fatal(err)
	}
	old.Close()

	r, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if v, _ := userVersion(ctx, r.db); v != SchemaVersion || SchemaVersion < 8 {
		t.Fatalf("schema %d after migration, want %d (>= 8)", v, SchemaVersion)
	}
	if got, err := r.Observations(ctx, 1); err != nil || got != nil {
		t.Fatalf("observations of an old job: %+v, %v; want none", got, err)
	}
	want := sampleObservations()
	saveObservations(t, r, 1, want)
	if got, err := r.Observations(ctx, 1); err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("after migration: %+v, %v", got, err)
	}
}
