package tprocc

import (
	"context"
	"net"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sledge-bench/sledge/internal/db"
	"github.com/sledge-bench/sledge/internal/db/postgres"
)

// TestMonitorReconnects: the monitor session, lost (its backend terminated,
// as a server restart does), is re-opened by the next probe like a VU's
// session; the probe says it took a new session. A probe that cannot reach
// the database by its deadline fails instead of hanging, and a later one
// recovers.
func TestMonitorReconnects(t *testing.T) {
	if testing.Short() {
		t.Skip("builds on PostgreSQL")
	}
	t.Parallel()
	ctx := context.Background()
	drv := postgres.Driver{}
	tg := built(t, db.Postgres, 1, 3)
	r, err := NewRunner(ctx, drv, tg, RunOptions{Mode: ModeSQL, Seed: 4})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close(ctx)
	p0, err := r.Probe(ctx)
	if err != nil || p0.Attempts != 1 || !p0.HasServerCommits || p0.Headline == 0 {
		t.Fatalf("first probe: %+v, %v", p0, err)
	}

	admin := connect(t, drv, tg)
	var killed int
	if err := admin.QueryRow(ctx, `SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
		WHERE application_name = 'sledge monitor' AND datname = current_database()`).Scan(&killed); err != nil || killed != 1 {
		t.Fatalf("terminated %d monitor sessions: %v", killed, err)
	}
	pctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	p1, err := r.Probe(pctx)
	cancel()
	if err != nil {
		t.Fatalf("probe after the monitor's session was terminated: %v", err)
	}
	if p1.Attempts < 2 || p1.Session == p0.Session || p1.Headline != p0.Headline {
		t.Errorf("probe after the loss: %+v (before %+v): want a new session and the same count", p1, p0)
	}

	// Nothing listens where the runner now looks: the probe gives up at its
	// deadline with the reason.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	deadPort := l.Addr().(*net.TCPAddr).Port
	l.Close()
	good := r.target
	u, err := url.Parse(tg.DSN)
	if err != nil {
		t.Fatal(err)
	}
	u.Host = "127.0.0.1:" + strconv.Itoa(deadPort)
	r.target = db.Target{Kind: tg.Kind, DSN: u.String()}
	if _, err := admin.Exec(ctx, `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
		WHERE application_name = 'sledge monitor' AND datname = current_database()`); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	pctx, cancel = context.WithTimeout(ctx, 700*time.Millisecond)
	_, err = r.Probe(pctx)
	cancel()
	if took := time.Since(start); err == nil || took > 3*time.Second || !strings.Contains(err.Error(), "gave up after") {
		t.Fatalf("probe of an unreachable database: %v after %s, want a failure at its deadline", err, took)
	}
	if c := drv.Classify(err); c != db.ClassConnection && c != db.ClassTimeout {
		t.Errorf("the failure is classed %s", c)
	}
	// The database is back: the next probe reads again.
	r.target = good
	if p2, err := r.Probe(ctx); err != nil || p2.Session == p1.Session {
		t.Fatalf("probe once the database is back: %+v, %v", p2, err)
	}
	// A failure that is not a lost session is not retried.
	if _, err := admin.Exec(ctx, "ALTER TABLE district RENAME TO district_gone"); err != nil {
		t.Fatal(err)
	}
	defer admin.Exec(ctx, "ALTER TABLE district_gone RENAME TO district")
	start = time.Now()
	if p, err := r.Probe(ctx); err == nil || p.Attempts != 0 || time.Since(start) > time.Second {
		t.Fatalf("probe without its table: %+v, %v after %s; want the error at once", p, err, time.Since(start))
	}
}
