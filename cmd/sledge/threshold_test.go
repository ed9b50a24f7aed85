package main

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/sledge-bench/sledge/internal/testdb/tpcctest"
)

// TestThresholdRefused: a threshold that cannot be read, or names what
// the workload's runs do not measure, is refused worded as the flag, with
// what exists, and records no job.
func TestThresholdRefused(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--threshold", "p99<50"}, `--threshold "p99<50": a latency needs a unit: ms, s or us`},
		{[]string{"--threshold", "speed>1"}, `--threshold "speed>1": unknown metric "speed": want one of nopm, tpm, tps, p50`},
		{[]string{"--threshold", "p99(neworder)<5ms"}, `"neworder" is not a TPROC-C transaction type: want new_order, payment, order_status, delivery, stock_level`},
		{[]string{"--threshold", "geomean<1s"}, "geomean is not measured by TPROC-C runs"},
		{[]string{"--workload", "tproch", "--threshold", "nopm>1"}, "nopm is not measured by TPROC-H runs: want one of errors, geomean"},
	} {
		_, err := e.run(append([]string{"run"}, c.args...)...)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("sledge run %s: %v, want an error containing %q", strings.Join(c.args, " "), err, c.want)
		}
	}
	if list := e.jobs(); len(list) != 0 {
		t.Errorf("refused runs recorded %d jobs", len(list))
	}
}

// TestThresholdVerdicts: a short run on the embedded SQLite with one
// threshold that passes and one that cannot (no latency is below 0 µs)
// prints both verdicts, stores them with the job (jobs show, its JSON)
// and exits with status 99 — here and through --server.
func TestThresholdVerdicts(t *testing.T) {
	if testing.Short() {
		t.Skip("runs on SQLite")
	}
	t.Parallel()
	e := newEnv(t)
	e.tpcc()
	ts := testServer(e, "")
	args := []string{"run", "--vu", "1", "--rampup", "0s", "--duration", "2s", "--interval", "1s",
		"--threshold", "tpm>0", "--threshold", "max(new_order)<0us"}
	jobID := regexp.MustCompile(`(?m)^run job (\d+): `)
	for _, side := range []string{"local", "remote"} {
		gs := e.state()
		cmd := args
		if side == "remote" {
			gs.env["SLEDGE_REPO"] = filepath.Join(t.TempDir(), "none.db")
			cmd = append([]string{"--server", ts.URL}, args...)
		}
		out, err := runSledge(context.Background(), gs, cmd...)
		var exit exitError
		if !errors.As(err, &exit) || exit.code != exitThresholds {
			t.Fatalf("%s: exit %v, want status %d\n%s%s", side, err, exitThresholds, out, testStderr(gs))
		}
		m := jobID.FindStringSubmatch(out)
		if m == nil {
			t.Fatalf("%s: no job id in\n%s", side, out)
		}
		if want := "sledge: run job " + m[1] + " failed 1 of its 2 thresholds"; !strings.Contains(testStderr(gs), want) {
			t.Errorf("%s: stderr %q lacks %q", side, testStderr(gs), want)
		}
		table := regexp.MustCompile(`(?m)^  thresholds \(1 of 2 failed\):\n    tpm>0 +\d[\d.]* +pass\n    max\(new_order\)<0us +\d+us +FAIL$`)
		if !table.MatchString(out) {
			t.Errorf("%s: the run prints no verdicts:\n%s", side, out)
		}
		if cfg := e.ok("jobs", "show", m[1], "config"); !strings.Contains(cfg, "tpm>0; max(new_order)<0us") {
			t.Errorf("%s: the job's settings lack its thresholds:\n%s", side, cfg)
		}
		if shown := e.ok("jobs", "show", m[1]); !table.MatchString(shown) {
			t.Errorf("%s: jobs show %s has no verdicts:\n%s", side, m[1], shown)
		}
		var sum struct {
			Job struct {
				Thresholds []struct {
					Threshold string
					Value     *float64
					Passed    bool
				}
			}
		}
		if err := json.Unmarshal([]byte(e.ok("jobs", "show", m[1], "--format", "json")), &sum); err != nil {
			t.Fatal(err)
		}
		th := sum.Job.Thresholds
		if len(th) != 2 || th[0].Threshold != "tpm>0" || !th[0].Passed || th[0].Value == nil || *th[0].Value <= 0 ||
			th[1].Threshold != "max(new_order)<0us" || th[1].Passed || th[1].Value == nil {
			t.Errorf("%s: stored verdicts %+v", side, th)
		}
	}
}

// TestThresholdSeries: with --repeat every trial is judged on its own
// window: the series table has each trial's verdict, and one failed trial
// makes the exit status 99; a series whose trials all pass exits 0.
func TestThresholdSeries(t *testing.T) {
	if testing.Short() {
		t.Skip("runs on SQLite")
	}
	t.Parallel()
	e := newEnv(t)
	e.tpcc()
	args := []string{"run", "--repeat", "2", "--vu", "1", "--rampup", "0s", "--duration", "1s", "--interval", "1s", "--threshold", "tpm>0"}
	out := e.ok(args...)
	if !regexp.MustCompile(`(?m)^  trial +job +status +NOPM +TPM +new_order p95 +thresholds\n(  [12] .* pass\n){2}`).MatchString(out) {
		t.Errorf("a passing series' table lacks its verdicts:\n%s", out)
	}
	gs := e.state()
	out, err := runSledge(context.Background(), gs, append(args, "--threshold", "max(new_order)<0us")...)
	var exit exitError
	if !errors.As(err, &exit) || exit.code != exitThresholds {
		t.Fatalf("exit %v, want status %d\n%s%s", err, exitThresholds, out, testStderr(gs))
	}
	if !regexp.MustCompile(`(?m)^(  [12] .* FAIL \(1 of 2\)\n){2}`).MatchString(out) {
		t.Errorf("a failing series' table lacks its verdicts:\n%s", out)
	}
	if want := "sledge: series: 2 of its 2 trials failed thresholds"; !strings.Contains(testStderr(gs), want) {
		t.Errorf("stderr %q lacks %q", testStderr(gs), want)
	}
}

// TestThresholdTcl: Sledge's own threshold command in a HammerDB script: a
// bad threshold stops vurun before any job, worded as the command; after
// threshold clear, the run's verdicts are printed under its result and
// stored with its job.
func TestThresholdTcl(t *testing.T) {
	if testing.Short() {
		t.Skip("runs on PostgreSQL")
	}
	needTclsh(t)
	t.Parallel()
	e := newEnv(t)
	conn := strings.Join(hammerConnection(t, tpcctest.Postgres(t, tpcctest.Options{}), "pg_"), "\n")
	out := e.runScript("thresholds.tcl", `dbset db pg
`+conn+`
diset tpcc pg_driver timed
diset tpcc pg_rampup 0
diset tpcc pg_duration 0.05
threshold {p99(neworder)<5ms}
puts "BAD [vurun]"
threshold clear
threshold tpm>0 {max(new_order) < 0us}
threshold
puts "RUN [vurun]"
`)
	for _, want := range []string{
		`Error: threshold: thresholds "p99(neworder)<5ms": "neworder" is not a TPROC-C transaction type: want new_order, payment`,
		"BAD Benchmark Run (No jobid)",
		"Threshold: tpm>0\nThreshold: max(new_order) < 0us\n",
		"thresholds (1 of 2 failed):",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the script's output lacks %q:\n%s", want, out)
		}
	}
	m := regexp.MustCompile(`RUN Benchmark Run jobid=(\d+)`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no run:\n%s", out)
	}
	var j struct {
		Thresholds []struct {
			Threshold string
			Passed    bool
		}
	}
	if err := json.Unmarshal([]byte(e.ok("jobs", "show", m[1], "status", "--format", "json")), &j); err != nil {
		t.Fatal(err)
	}
	if th := j.Thresholds; len(th) != 2 || th[0].Threshold != "tpm>0" || !th[0].Passed || th[1].Threshold != "max(new_order) < 0us" || th[1].Passed {
		t.Errorf("stored verdicts %+v", th)
	}
}
