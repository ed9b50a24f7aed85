package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/sledge-bench/sledge/internal/testdb/tpcctest"
)

// HammerDB's step workload and asynchronous clients in a Tcl script: steprun
// reads steps.xml ($SLEDGE_HAMMERDB_CONFIG) and runs one job whose stages
// are the primary's VUs plus the replicas running, one result row per
// stage; pg_async_scale with pg_keyandthink makes a vurun paced terminals,
// vu × pg_async_client of them, over vu sessions.
func TestCLISteprunAndAsyncClientsTcl(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs")
	}
	needTclsh(t)
	t.Parallel()
	e := newEnv(t)
	dir := t.TempDir()
	e.set("SLEDGE_HAMMERDB_CONFIG", dir)
	// Minutes, as HammerDB's steps.xml has them; fractions keep the test
	// short: replica1 3 s after the 3 s ramp-up for 6 s with 2 VUs, replica2
	// 3 s after replica1 for 3 s with 1 VU, over a 12 s primary of 1 VU.
	steps := `<steps>
	<replica1><start_after_prev>0.05</start_after_prev><duration>0.1</duration><virtual_users>2</virtual_users></replica1>
	<replica2><start_after_prev>0.05</start_after_prev><duration>0.05</duration><virtual_users>1</virtual_users></replica2>
</steps>
`
	if err := os.WriteFile(filepath.Join(dir, "steps.xml"), []byte(steps), 0o644); err != nil {
		t.Fatal(err)
	}
	// A database holding TPROC-C (a copy of the template): buildschema's
	// answer is TestCLIBuildIntoDBACreatedDatabase*'s.
	conn := strings.Join(hammerConnection(t, tpcctest.Postgres(t, tpcctest.Options{}), "pg_"), "\n")
	out := e.runScript("steprun.tcl", `dbset db pg
dbset bm TPROC-C
`+conn+`
diset tpcc pg_driver timed
diset tpcc pg_rampup 0.05
diset tpcc pg_duration 0.2
vuset vu 1
vucreate
puts "STEP [steprun]"
puts "AFTER vucomplete [vucomplete]"
vuset vu 2
diset tpcc pg_keyandthink true
diset tpcc pg_async_scale true
diset tpcc pg_async_client 3
diset tpcc pg_rampup 0
diset tpcc pg_duration 0.05
puts "ASYNC [vurun]"
diset tpcc pg_keyandthink false
puts "REFUSED [vurun]"
`)
	wantLines(t, "steprun", out,
		`Steps from .*steps\.xml`,
		`primary starts immediately, runs rampup for 0\.05 minutes then runs test for 0\.2 minutes with 1 Active VU`,
		`replica1 starts 0\.05 minutes after rampup completes and runs test for 0\.1 minutes with 2 Active VU`,
		`replica2 starts 0\.05 minutes after previous replica starts and runs test for 0\.05 minutes with 1 Active VU`,
		`Step workload as one run: rampup 0\.05 minutes, then 4 stages \(DURATION:VUs\) 3s:1,3s:3,3s:4,3s:1`,
		`Vuser 5:RUNNING`, // the largest stage's 4 VUs and the monitor
		`Vuser 1:4 Active Virtual Users configured`,
		`STEP Benchmark Run jobid=\d+`,
		`AFTER vucomplete false`, // the virtual users are destroyed, as HammerDB's primary does
		`Notice: diset tpcc pg_async_scale true: 2 VUs × 3 asynchronous clients: 6 paced terminals over 2 sessions, .*`,
		`ASYNC Benchmark Run jobid=\d+`,
		`Error: diset tpcc pg_async_scale true: asynchronous clients key and think, .*: diset tpcc pg_keyandthink true`,
		`REFUSED Benchmark Run \(No jobid\)`,
	)
	jobID := func(what string) string {
		m := regexp.MustCompile(`(?m)^` + what + ` Benchmark Run jobid=(\d+)$`).FindStringSubmatch(out)
		if m == nil {
			t.Fatalf("no %s job:\n%s", what, out)
		}
		return m[1]
	}

	step := jobID("STEP")
	var res struct {
		Status string `json:"status"`
		VU     int    `json:"vu"`
		Stages []struct {
			Stage   int     `json:"stage"`
			Target  float64 `json:"target"`
			Commits int64   `json:"commits"`
		} `json:"stages"`
	}
	if err := json.Unmarshal([]byte(e.ok("jobs", "show", step, "result", "--format", "json")), &res); err != nil {
		t.Fatal(err)
	}
	var targets []float64
	for _, s := range res.Stages {
		targets = append(targets, s.Target)
		if s.Commits == 0 {
			t.Errorf("stage %d committed nothing: %+v", s.Stage, res.Stages)
		}
	}
	if res.Status != "completed" || len(targets) != 4 || targets[0] != 1 || targets[1] != 3 || targets[2] != 4 || targets[3] != 1 {
		t.Errorf("steprun result: status %s, stage targets %v (want VUs 1, 3, 4, 1)", res.Status, targets)
	}
	var cfg map[string]string
	if err := json.Unmarshal([]byte(e.ok("jobs", "show", step, "config", "--format", "json")), &cfg); err != nil {
		t.Fatal(err)
	}
	if cfg["load_model"] != "closed" || cfg["stages"] != "3s:1,3s:3,3s:4,3s:1" {
		t.Errorf("steprun settings: load_model %q, stages %q", cfg["load_model"], cfg["stages"])
	}

	async := jobID("ASYNC")
	cfg = nil
	if err := json.Unmarshal([]byte(e.ok("jobs", "show", async, "config", "--format", "json")), &cfg); err != nil {
		t.Fatal(err)
	}
	if cfg["load_model"] != "terminals" || cfg["terminals"] != "6" || cfg["connections"] != "2" || !strings.HasPrefix(cfg["pacing"], "spec") {
		t.Errorf("async settings: load_model %q, terminals %q, connections %q, pacing %q",
			cfg["load_model"], cfg["terminals"], cfg["connections"], cfg["pacing"])
	}
	if n := e.completedRuns(); n != 2 {
		t.Errorf("%d completed runs stored, want 2 (none for the refused vurun)", n)
	}
}
