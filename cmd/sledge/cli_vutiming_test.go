package main

import (
	"encoding/json"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/sledge-bench/sledge/internal/testdb/tpcctest"
)

// A run of two VUs with HammerDB's time profile on keeps each VU's timing:
// jobs ID timing N answers for HammerDB's VUs 2 and 3 (VU 1 is its monitor)
// in the summary's shape, their calls adding up to the summary's, in Tcl and
// in Python.
func TestCLIPerVUTiming(t *testing.T) {
	if testing.Short() {
		t.Skip("runs")
	}
	needTclsh(t)
	t.Parallel()
	e := newEnv(t)
	conn := strings.Join(hammerConnection(t, tpcctest.Postgres(t, tpcctest.Options{Warehouses: 1}), "pg_"), "\n")
	out := e.runScript("pg_tprocc_timeprofile.tcl", `dbset db pg
dbset bm TPROC-C
`+conn+`
diset tpcc pg_driver timed
diset tpcc pg_rampup 0
diset tpcc pg_duration 0.05
diset tpcc pg_timeprofile true
vuset vu 2
vucreate
set jobid [ vurun ]
vudestroy
puts "JOB $jobid"
foreach vu {{} 1 2 vu=3 4} {
    puts "TIMING {$vu}"
    jobs $jobid timing {*}$vu
}
puts "END"
`)
	m := regexp.MustCompile(`(?m)^JOB Benchmark Run jobid=(\d+)$`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no job:\n%s", out)
	}
	id := m[1]
	answer := func(out, vu string) string {
		_, rest, _ := strings.Cut(out, "TIMING {"+vu+"}\n")
		a, _, _ := strings.Cut(rest, "\nTIMING {")
		a, _, _ = strings.Cut(a, "\nEND")
		return a
	}
	parse := func(vu string) map[string]map[string]string {
		t.Helper()
		var v map[string]map[string]string
		if err := json.Unmarshal([]byte(answer(out, vu)), &v); err != nil || len(v) == 0 {
			t.Fatalf("jobs ID timing %s: %v\n%s", vu, err, out)
		}
		return v
	}
	sum, vu2, vu3 := parse(""), parse("2"), parse("vu=3")
	for tx, s := range sum {
		calls := 0
		for _, v := range []map[string]map[string]string{vu2, vu3} {
			n, _ := strconv.Atoi(v[tx]["calls"]) // absent: a VU that ran none
			calls += n
		}
		if strconv.Itoa(calls) != s["calls"] {
			t.Errorf("%s: the VUs' calls add up to %d, the summary has %s", tx, calls, s["calls"])
		}
	}
	for _, f := range []string{"elapsed_ms", "calls", "min_ms", "avg_ms", "max_ms", "total_ms", "p99_ms", "p95_ms", "p75_ms", "p50_ms", "p25_ms", "sd", "ratio_pct"} {
		if _, ok := vu2["NEWORD"][f]; !ok {
			t.Errorf("VU 2's NEWORD has no %s: %v", f, vu2["NEWORD"])
		}
	}
	for _, vu := range []string{"1", "4"} {
		if a := answer(out, vu); a != "No Timing Data for VU "+vu+" for JOB "+id+": jobs jobid timing vuid" {
			t.Errorf("jobs ID timing %s (no such VU's timing): %q", vu, a)
		}
	}

	t.Run("python", func(t *testing.T) {
		needTkinter(t)
		py := e.runScript("timing.py", "t = jobs('"+id+"', 'timing', 2)\nprint('PARSED', sorted(t['NEWORD'].keys()) == sorted(['elapsed_ms', 'calls', 'min_ms', 'avg_ms', 'max_ms', 'total_ms', 'p99_ms', 'p95_ms', 'p75_ms', 'p50_ms', 'p25_ms', 'sd', 'ratio_pct']), t['NEWORD']['calls'])\n")
		if want := "PARSED True " + vu2["NEWORD"]["calls"]; !strings.Contains(py, want) {
			t.Errorf("jobs(ID, 'timing', 2): want %q:\n%s", want, py)
		}
	})
}
