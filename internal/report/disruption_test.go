package report

import (
	"strings"
	"testing"
	"time"

	"github.com/sledge-bench/sledge/internal/metrics"
)

func sec(f float64) time.Duration { return time.Duration(f * float64(time.Second)) }

// degraded is runResult with a 20 s outage in its window and a monitor gap.
func degraded() *metrics.RunResult {
	r := runResult()
	r.Status = metrics.StatusDegraded
	r.Disruption = &metrics.Disruption{
		WindowStart: sec(10), WindowEnd: sec(70),
		Outages: []metrics.Outage{{Start: sec(20.5), AllBack: sec(41), Reconnected: true, Resumed: sec(41.3), Recovered: true,
			VUs: 8, Lost: map[string]int64{"connection": 8, "other": 2}}},
		Connections: []metrics.ConnectionEvent{
			{VU: 3, LostAt: sec(20.5), ReconnectedAt: sec(41), Reconnected: true, Attempts: 14},
			{VU: 5, LostAt: sec(20.6), Attempts: 9},
		},
		IdleIntervals: []metrics.IdleInterval{{Seq: 4, Start: sec(30), End: sec(40)}, {Seq: 5, Start: sec(40), End: sec(50)}},
		MonitorGaps:   []metrics.MonitorGap{{Edge: metrics.EdgeWindowEnd, At: sec(70), Error: "connection refused"}},
	}
	return r
}

const reason = "the database's counters could not be read at the window start: connection refused"

func absentCheck(r *metrics.RunResult) {
	r.HasDBCheck, r.DBNewOrders, r.NOPMDBCheck, r.DBCheckAgree, r.DBCheckAllowance = false, 0, 0, false, 0
	r.DBCheckUnavailable, r.ServerTPMUnavailable = reason, reason
}

// The live and the stored result say an absent cross-check is not available
// and why, never that it disagrees; a disruption has its block.
func TestDisruptionText(t *testing.T) {
	t.Parallel()
	r := degraded()
	absentCheck(r)
	var live, stored strings.Builder
	if err := RunResult(&live, "TPROC-C", 7, "postgres://db/tpcc", "PostgreSQL 17", r, false); err != nil {
		t.Fatal(err)
	}
	if err := StoredRunResult(&stored, "FAKE-C", finishedJob(), r); err != nil {
		t.Fatal(err)
	}
	block := []string{
		"disruption: the database was out of service during the measured window (window 10.0–70.0 s)\n",
		"outage 1 lost at 20.5 s (10.5 s into the window), every VU back at 41.0 s, service resumed at 41.3 s: time to recover 20.8 s\n",
		"8 VUs lost their sessions; failed meanwhile: connection 8, other 2\n",
		"no commits 2 measured intervals: #4–#5 (30.0–50.0 s)\n",
		"sessions vu 3 lost at 20.5 s, back at 41.0 s after 14 attempts\n",
		"vu 5 lost at 20.6 s, not back (9 attempts)\n",
		"monitor window end (70.0 s): not read: connection refused\n",
	}
	checkText(t, live.String(), append([]string{
		"result (job 7): degraded\n",
		"NOPM 9,000 (not available: " + reason + ")\n",
		"TPM 20,000 (server counter not available: " + reason + ")\n",
	}, block...), []string{"DISAGREES", "agrees"})
	checkText(t, stored.String(), append([]string{
		"result (job 7): degraded\n",
		"NOPM 9,000 (database cross-check not available: " + reason + ")\n",
	}, block...), []string{"DISAGREES", "agrees"})

	// A run without a disruption has no block; one stopped in its ramp-up
	// still shows its disruption.
	var b strings.Builder
	if err := RunResult(&b, "TPROC-C", 7, "t", "v", runResult(), false); err != nil {
		t.Fatal(err)
	}
	checkText(t, b.String(), nil, []string{"disruption"})
	r.Measured = 0
	b.Reset()
	if err := StoredRunResult(&b, "FAKE-C", finishedJob(), r); err != nil {
		t.Fatal(err)
	}
	checkText(t, b.String(), []string{"window nothing measured", "disruption:", "outage 1"}, nil)

	// Only the monitor failed.
	r = runResult()
	absentCheck(r)
	r.Disruption = &metrics.Disruption{WindowStart: sec(10), WindowEnd: sec(70),
		MonitorGaps: []metrics.MonitorGap{{Edge: metrics.EdgeWindowStart, At: sec(10), Error: "timeout"}}}
	b.Reset()
	if err := RunResult(&b, "TPROC-C", 7, "t", "v", r, false); err != nil {
		t.Fatal(err)
	}
	checkText(t, b.String(), []string{"disruption: the monitor could not read the database's counters", "monitor window start (10.0 s): not read: timeout"},
		[]string{"outage"})
}

func TestDisruptionJSON(t *testing.T) {
	t.Parallel()
	r := degraded()
	absentCheck(r)
	m := object(t, ToResult(7, r))
	hasKeys(t, m, "db_check_unavailable", "server_tpm_unavailable", "db_check_allowance", "disruption")
	for _, k := range []string{"nopm_db_check", "db_new_orders", "db_check_agree", "db_check_allowance", "server_tpm"} {
		if v, ok := m[k]; !ok || v != nil {
			t.Errorf("%s = %v, want null for a check that could not be made", k, v)
		}
	}
	if m["db_check_unavailable"] != reason || m["server_tpm_unavailable"] != reason || m["status"] != "degraded" {
		t.Errorf("reasons %q / %q, status %v", m["db_check_unavailable"], m["server_tpm_unavailable"], m["status"])
	}
	d, ok := m["disruption"].(map[string]any)
	if !ok {
		t.Fatalf("disruption = %#v", m["disruption"])
	}
	hasKeys(t, d, "headline", "window_start_s", "window_end_s", "in_window", "first_error_s", "recovered", "service_resumed_s",
		"time_to_recover_s", "vus_affected", "lost", "outages", "idle_intervals", "connections", "monitor_gaps")
	if d["in_window"] != true || d["first_error_s"] != 20.5 || d["recovered"] != true || d["vus_affected"] != 2.0 {
		t.Errorf("disruption = %v", d)
	}
	if ttr, _ := d["time_to_recover_s"].(float64); ttr < 20.79 || ttr > 20.81 {
		t.Errorf("time_to_recover_s = %v, want 20.8", d["time_to_recover_s"])
	}
	if lost := d["lost"].(map[string]any); lost["connection"] != 8.0 || lost["other"] != 2.0 {
		t.Errorf("lost = %v", lost)
	}
	conns := d["connections"].([]any)
	if len(conns) != 2 || conns[1].(map[string]any)["reconnected_s"] != nil || conns[0].(map[string]any)["reconnected_s"] != 41.0 {
		t.Errorf("connections = %v", conns)
	}
	if iv := d["idle_intervals"].([]any); len(iv) != 2 || iv[0].(map[string]any)["seq"] != 4.0 {
		t.Errorf("idle_intervals = %v", iv)
	}
	if g := d["monitor_gaps"].([]any); len(g) != 1 || g[0].(map[string]any)["edge"] != "window end" {
		t.Errorf("monitor_gaps = %v", g)
	}

	// Not recovered: nulls where there is no time.
	r.Disruption.Outages[0].Recovered = false
	d = object(t, ToResult(7, r))["disruption"].(map[string]any)
	if d["recovered"] != false || d["time_to_recover_s"] != nil || d["service_resumed_s"] != nil {
		t.Errorf("not recovered: %v", d)
	}
	o := d["outages"].([]any)[0].(map[string]any)
	if o["resumed_s"] != nil || o["time_to_recover_s"] != nil || o["all_back_s"] != 41.0 {
		t.Errorf("outage = %v", o)
	}

	// A healthy run: the check present, no reason, no disruption.
	m = object(t, ToResult(7, runResult()))
	if m["db_check_unavailable"] != nil || m["disruption"] != nil || m["db_new_orders"] != 9001.0 || m["db_check_agree"] != true ||
		m["db_check_allowance"] != 4.0 || m["nopm_db_check"] != 9001.0 {
		t.Errorf("healthy run: %v", m)
	}
}
