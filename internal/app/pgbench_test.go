package app

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sledge-bench/sledge/internal/config"
	"github.com/sledge-bench/sledge/internal/db"
	"github.com/sledge-bench/sledge/internal/metrics"
	"github.com/sledge-bench/sledge/internal/observe"
	"github.com/sledge-bench/sledge/internal/testdb"
)

// TestPgbenchPostgres builds pgbench at scale 1 through the service, runs
// tpcb-like with a custom script beside it on 2 VUs, and checks that the
// run is a job like any other (intervals, per-script latency, settings),
// that the balances still agree afterwards, and that a run on DuckDB is
// refused before any job is recorded.
func TestPgbenchPostgres(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs pgbench on PostgreSQL")
	}
	parallel(t)
	svc, repo := newService(t)
	ctx := context.Background()
	url := testdb.Postgres(t)

	b := config.New(config.KindBuild)
	b.Workload, b.DB = "pgbench", url
	var out bytes.Buffer
	o, err := svc.Run(ctx, Request{Spec: b, Console: &out})
	if err != nil || o.Status != metrics.StatusCompleted || o.Build == nil || o.Build.Rows != 100011 {
		t.Fatalf("build: %+v %v\n%s", o, err, out.String())
	}

	script := filepath.Join(t.TempDir(), "lookup.sql")
	if err := os.WriteFile(script, []byte("\\set aid random(1, 100000 * :scale)\nSELECT abalance FROM pgbench_accounts WHERE aid = :aid;\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	run := config.New(config.KindRun)
	run.Workload, run.DB, run.VU = "pgbench", url, 2
	run.Scripts = []string{"builtin:tpcb-like@3", script + "@1"}
	run.QueryMode, run.MaxRetries, run.Seed = "prepared", 3, 42
	run.Rampup, run.Duration, run.Interval = 0, config.Duration(2*time.Second), config.Duration(time.Second)
	out.Reset()
	o, err = svc.Run(ctx, Request{Spec: run, Console: &out})
	if err != nil || o.Status != metrics.StatusCompleted || o.Run == nil || o.Run.Commits == 0 {
		t.Fatalf("run: %+v %v\n%s", o, err, out.String())
	}
	counts := map[string]int64{}
	for _, tx := range o.Run.Tx {
		counts[tx.Name] = tx.Count
		if tx.Count > 0 && tx.P50 <= 0 {
			t.Errorf("script %s: %d transactions without a latency", tx.Name, tx.Count)
		}
	}
	if counts["tpcb-like"] == 0 || counts["lookup.sql"] == 0 || len(counts) != 2 {
		t.Errorf("transactions per script %v, want tpcb-like and lookup.sql", counts)
	}
	if ivs, _ := repo.Intervals(ctx, o.ID); len(ivs) < 2 {
		t.Errorf("%d intervals stored", len(ivs))
	}
	cfg, _ := repo.Config(ctx, o.ID)
	if cfg["query_mode"] != "prepared" || cfg["seed"] != "42" || cfg["scale"] != "1" || !strings.Contains(cfg["scripts"], "tpcb-like@3") {
		t.Errorf("run settings %v", cfg)
	}

	// Built-in scripts only: the balances are read after the run, and
	// agree.
	run.Scripts = []string{"builtin:simple-update", "builtin:tpcb-like"}
	run.QueryMode = ""
	out.Reset()
	o, err = svc.Run(ctx, Request{Spec: run, Console: &out})
	if err != nil || o.Status != metrics.StatusCompleted || o.Run == nil || o.Run.Commits == 0 || ownWarnings(o.Run.Warnings) {
		t.Fatalf("run of built-in scripts: %+v %v\n%s", o, err, out.String())
	}
	for _, tx := range o.Run.Tx {
		counts[tx.Name] += tx.Count
	}

	// Serializable, on scale 1's single branch: concurrent tpcb-like
	// transactions conflict, and are retried with the same draws. A count
	// of transactions (pgbench's -t), not a window: a busy machine ran 4
	// in a 2 s window, none of them retried.
	run.Scripts, run.Isolation, run.MaxRetries, run.Iterations = nil, "serializable", 50, 60
	out.Reset()
	o, err = svc.Run(ctx, Request{Spec: run, Console: &out})
	if err != nil || o.Status != metrics.StatusCompleted || o.Run == nil || o.Run.Commits == 0 {
		t.Fatalf("serializable run: %+v %v\n%s", o, err, out.String())
	}
	// A few may still fail after their retries (on a quiet machine 5 of
	// 3,044 did, two VUs on one branch): serialization failures only, and
	// the run's one warning is theirs.
	var retried int64
	for _, tx := range o.Run.Tx {
		retried += tx.Retried
		counts[tx.Name] += tx.Count
		for class := range tx.Errors {
			if class != db.ClassSerialization.String() {
				t.Errorf("%s: %s errors in a serializable run", tx.Name, class)
			}
		}
	}
	for _, w := range o.Run.Warnings {
		if !strings.HasPrefix(w, observe.NoiseWarningPrefix) && !strings.Contains(w, "transactions failed") && !strings.Contains(w, "transaction failed") {
			t.Errorf("serializable run: warning %q\n%s", w, out.String())
		}
	}
	if retried == 0 {
		t.Errorf("no transaction retried in a serializable run of 2 VUs on one branch:\n%s", out.String())
	}
	if cfg, _ := repo.Config(ctx, o.ID); cfg["isolation"] != "serializable" {
		t.Errorf("isolation recorded as %q", cfg["isolation"])
	}

	check := config.New(config.KindCheck)
	check.Workload, check.DB = "pgbench", url
	o, err = svc.Run(ctx, Request{Spec: check})
	if err != nil || o.Check == nil || !o.OK() {
		t.Fatalf("check after the run: %+v %v", o, err)
	}
	for _, tr := range o.Check.Tables {
		if tr.Name == "pgbench_history" && tr.Rows < counts["tpcb-like"] {
			t.Errorf("history holds %d rows after %d committed tpcb-like transactions", tr.Rows, counts["tpcb-like"])
		}
	}

	before := jobCount(t, repo)
	bad := config.New(config.KindRun)
	bad.Workload, bad.DB = "pgbench", "duckdb:"+filepath.Join(t.TempDir(), "p.duckdb")
	if _, err := svc.Run(ctx, Request{Spec: bad}); err == nil || !strings.Contains(err.Error(), "pgbench has no SQL for duckdb") {
		t.Errorf("run on DuckDB: %v", err)
	}
	bad = config.New(config.KindRun)
	bad.Workload, bad.DB, bad.Scripts = "pgbench", url, []string{"builtin:nope"}
	if _, err := svc.Run(ctx, Request{Spec: bad}); len(config.Fields(err)) == 0 {
		t.Errorf("run with an unknown script: %v", err)
	}
	if n := jobCount(t, repo); n != before {
		t.Errorf("%d jobs recorded by refused runs", n-before)
	}
}

// TestPgbenchScriptFilesNeedAnyTarget: a server that limits its targets
// reads no script file named in a request (it would read any file the
// server may read); built-in scripts pass, and one that allows any target
// reads files.
func TestPgbenchScriptFilesNeedAnyTarget(t *testing.T) {
	parallel(t)
	for _, c := range []struct {
		allowAny bool
		scripts  []string
		refused  bool
	}{
		{false, []string{"/etc/passwd"}, true},
		{false, []string{"builtin:select-only", "x.sql@2"}, true},
		{false, []string{"builtin:select-only@2"}, false},
		{true, []string{"/nonexistent/x.sql"}, false},
	} {
		svc, _, _ := policyService(t, nil, c.allowAny)
		spec := config.New(config.KindRun)
		spec.Workload, spec.Scripts = "pgbench", c.scripts
		err := svc.Validate(spec)
		var pe *PolicyError
		if refused := errors.As(err, &pe) && pe.Field() == "scripts"; refused != c.refused {
			t.Errorf("allow any %v, scripts %q: %v, want refused %v", c.allowAny, c.scripts, err, c.refused)
		}
		if c.refused && strings.Contains(err.Error(), "root:") {
			t.Errorf("the refusal shows the file: %v", err)
		}
	}
}

// ownWarnings reports whether ws hold a warning other than of a noisy
// machine: this shared machine is one (the noise detection's business), and
// these runs check their own figures, the balances read after them.
func ownWarnings(ws []string) bool {
	for _, w := range ws {
		if !strings.HasPrefix(w, observe.NoiseWarningPrefix) {
			return true
		}
	}
	return false
}
