package main

import (
	"context"
	"encoding/json"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sledge-bench/sledge/internal/jobs"
	"github.com/sledge-bench/sledge/internal/metrics"
	"github.com/sledge-bench/sledge/internal/testdb/tpcctest"
)

// The client itself stopped (SIGSTOP) for 5 s in the middle of the window,
// as a paused VM or a sleeping laptop would be: the run is degraded, and
// the pause, its length within a second of the truth, is in its output,
// its stored result and the JSON — not mistaken for a stall of the
// database.
func TestClientPauseIsReported(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a job and stops it")
	}
	t.Parallel()
	e := newEnv(t)
	e.tpcc()
	p := e.start("run", "--vu", "2", "--rampup", "1s", "--duration", "14s", "--interval", "1s", "--pacing", "spec", "--pacing-scale", "0.01")
	p.waitFor(t, `measure +TPM`)
	if err := p.cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	stopped := time.Now()
	time.Sleep(5 * time.Second)
	truth := time.Since(stopped)
	if err := p.cmd.Process.Signal(syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	if code := p.exitCode(t); code != 0 {
		t.Fatalf("exit status %d:\n%s", code, p.output())
	}
	out := p.output()
	if !strings.Contains(out, "pause: this client did not run for") || !strings.Contains(out, "the client was paused for") {
		t.Errorf("the output does not report the pause:\n%s", out)
	}
	run := e.latest(jobs.KindRun)
	if run["status"] != metrics.StatusDegraded {
		t.Errorf("run stored as %v, want degraded", run["status"])
	}
	var res struct {
		Disruption struct {
			Pauses []struct {
				DurationS float64 `json:"duration_s"`
				InWindow  bool    `json:"in_window"`
			} `json:"pauses"`
			Stalls []any `json:"stalls"`
		} `json:"disruption"`
	}
	if err := json.Unmarshal([]byte(e.ok("jobs", "show", jobID(run), "result", "--format", "json")), &res); err != nil {
		t.Fatal(err)
	}
	d := res.Disruption
	if len(d.Pauses) != 1 || !d.Pauses[0].InWindow || len(d.Stalls) != 0 {
		t.Fatalf("disruption %+v: want one pause in the window and no stall", d)
	}
	if got := d.Pauses[0].DurationS; got < truth.Seconds()-1 || got > truth.Seconds()+1 {
		t.Errorf("pause of %.2f s, the process was stopped for %.2f s", got, truth.Seconds())
	}
}

// A second Ctrl-C ends the process at once, even while the first waits for
// virtual users stuck on a database that does not answer (here: every
// table locked by another session).
func TestSecondInterruptExitsAtOnce(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a job against PostgreSQL")
	}
	t.Parallel()
	ctx := t.Context()
	url := tpcctest.Postgres(t, tpcctest.Options{})
	e := newEnv(t)
	p := e.start("run", "--db", url, "--vu", "2", "--rampup", "0s", "--duration", "1h", "--interval", "1s", "--pacing", "spec", "--pacing-scale", "0.01")
	p.waitFor(t, `measure +TPM`)
	locker, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer locker.Close(context.Background())
	if _, err := locker.Exec(ctx, "BEGIN"); err != nil {
		t.Fatal(err)
	}
	if _, err := locker.Exec(ctx, `LOCK TABLE warehouse, district, customer, history, new_order, orders, order_line, item, stock
		IN ACCESS EXCLUSIVE MODE`); err != nil {
		t.Fatal(err)
	}
	// Until both VUs wait on the lock.
	for waiting := 0; waiting < 2; {
		if err := locker.QueryRow(ctx, `SELECT count(DISTINCT pid) FROM pg_locks WHERE NOT granted
			AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`).Scan(&waiting); err != nil {
			t.Fatal(err)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := p.cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	p.waitFor(t, `interrupted after`)
	second := time.Now()
	if err := p.cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	if code := p.exitCode(t); code != exitInterrupted {
		t.Fatalf("exit status %d, want %d:\n%s", code, exitInterrupted, p.output())
	}
	// The first interrupt alone waits up to the 30 s stop grace for the
	// stuck VUs: the second must not.
	if took := p.ended.Sub(second); took > 10*time.Second {
		t.Errorf("the process ended %s after the second interrupt:\n%s", took.Round(time.Millisecond), p.output())
	}
	if !strings.Contains(p.output(), "interrupted again: exiting now") {
		t.Errorf("output:\n%s", p.output())
	}
}
