package script

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sledge-bench/sledge/internal/jobs"
	"github.com/sledge-bench/sledge/internal/metrics"
)

// vuTimingRepo is a repository with one TPROC-C run of two VUs that kept
// per-VU timing (its result made by a collector, as the engine makes it):
// VU 1 ran new orders of 1–100 ms and one payment of 5 ms, VU 2 new orders
// of 2 ms; iterations makes it an iteration run.
func vuTimingRepo(t *testing.T, iterations int) (*jobs.Repo, int64) {
	t.Helper()
	ctx := context.Background()
	repo, err := jobs.Open(ctx, filepath.Join(t.TempDir(), "jobs.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { repo.Close() })
	id, err := repo.Create(ctx, jobs.Job{Kind: jobs.KindRun, Workload: "tprocc", DBKind: "postgres", Target: "postgres://db1/tpcc"},
		map[string]string{"vu": "2", "per_vu_timing": "true", "iterations": strconv.Itoa(iterations)})
	if err != nil {
		t.Fatal(err)
	}
	c := metrics.NewCollector([]string{"new_order", "payment"}, 0)
	c.TrackVUs()
	vu1, vu2 := c.NewRecorder(), c.NewRecorder()
	c.StartWindow(0)
	for i := 1; i <= 100; i++ {
		vu1.Record(metrics.Event{End: time.Second, Latency: time.Duration(i) * time.Millisecond})
		vu2.Record(metrics.Event{End: time.Second, Latency: 2 * time.Millisecond})
	}
	vu1.Record(metrics.Event{End: time.Second, Latency: 5 * time.Millisecond, Tx: 1})
	c.EndWindow(10 * time.Second)
	c.Drain()
	res := &metrics.RunResult{Status: metrics.StatusCompleted, VUs: 2, Measured: 10 * time.Second, Iterations: iterations,
		Tx: c.Summaries(), VUTiming: c.VUTimings(0)}
	if err := repo.SaveRunResult(ctx, id, res); err != nil {
		t.Fatal(err)
	}
	return repo, id
}

// jobs ID timing VUID answers from the run's per-VU timing in the
// summary's shape: HammerDB's VU 1 is its monitor in a timed run, Sledge's
// VU k is k+1; the VUs' calls add up to the summary's.
func TestJobsVUTiming(t *testing.T) {
	t.Parallel()
	repo, id := vuTimingRepo(t, 0)
	cmd := &Command{Repo: repo, Loc: time.UTC}
	jobsJSON := func(args ...string) map[string]map[string]string {
		t.Helper()
		out, err := cmd.Run(context.Background(), Session{}, append([]string{fmt.Sprint(id)}, args...))
		if err != nil {
			t.Fatal(err)
		}
		var v map[string]map[string]string
		if err := json.Unmarshal([]byte(out.Printed), &v); err != nil {
			t.Fatalf("jobs %v: %v\n%s", args, err, out.Printed)
		}
		return v
	}
	vu1 := jobsJSON("timing", "2")
	no := vu1["NEWORD"]
	want := map[string]string{"elapsed_ms": "10000.0", "calls": "100", "avg_ms": "50.5", "total_ms": "5050.0", "ratio_pct": "50.5"}
	for k, v := range want {
		if no[k] != v {
			t.Errorf("VU 2's NEWORD %s = %q, want %q (%v)", k, no[k], v, no)
		}
	}
	if p50, _ := strconv.ParseFloat(no["p50_ms"], 64); p50 < 49.5 || p50 > 51 {
		t.Errorf("VU 2's NEWORD p50_ms %v, want 50 within the histogram's two digits", no["p50_ms"])
	}
	if vu1["PAYMENT"]["calls"] != "1" || vu1["PAYMENT"]["total_ms"] != "5.0" {
		t.Errorf("VU 2's PAYMENT: %v", vu1["PAYMENT"])
	}
	vu2 := jobsJSON("timing", "vu=3")
	if len(vu2) != 1 || vu2["NEWORD"]["calls"] != "100" || vu2["NEWORD"]["total_ms"] != "200.0" {
		t.Errorf("VU 3: %v", vu2)
	}
	sum := jobsJSON("timing")
	if sum["NEWORD"]["calls"] != "200" || sum["PAYMENT"]["calls"] != "1" {
		t.Errorf("summary: %v, want the VUs' calls added up", sum)
	}
	// The text form keeps HammerDB's order: highest ratio_pct first.
	out, err := cmd.Run(context.Background(), Session{Format: FormatText}, []string{fmt.Sprint(id), "timing", "2"})
	if err != nil || !strings.HasPrefix(out.Printed, "NEWORD {elapsed_ms 10000.0 calls 100 ") || !strings.Contains(out.Printed, "} PAYMENT {") {
		t.Errorf("text: %q, %v", out.Printed, err)
	}
	for _, vu := range []string{"1", "4"} { // the monitor, a VU the run did not have
		out, err := cmd.Run(context.Background(), Session{}, []string{fmt.Sprint(id), "timing", vu})
		if err != nil || out.Printed != fmt.Sprintf("No Timing Data for VU %s for JOB %d: jobs jobid timing vuid\n", vu, id) {
			t.Errorf("timing %s: %q, %v", vu, out.Printed, err)
		}
	}

	// The web service's form answers the same, 404 without data.
	for _, c := range []struct {
		query  string
		status int
		want   string
	}{
		{"timing&vuid=2", http.StatusOK, `"NEWORD": {`},
		{"timing&vu=3", http.StatusOK, `"total_ms": "200.0"`},
		{"timing&vuid=1", http.StatusNotFound, "No Timing Data for VU 1 for JOB"},
		{"timing&vuid=x", http.StatusBadRequest, "Jobs Three Parameter Usage"},
	} {
		q, err := url.ParseQuery(fmt.Sprintf("jobid=%d&%s", id, c.query))
		if err != nil {
			t.Fatal(err)
		}
		a, err := cmd.Web(context.Background(), q)
		if err != nil || a.Status != c.status || !strings.Contains(a.Body, c.want) {
			t.Errorf("web %s: %d %s, %v; want %d with %q", c.query, a.Status, a.Body, err, c.status, c.want)
		}
	}
}

// An iteration run (HammerDB's test driver) has no monitor: VU 1 is
// Sledge's VU 1.
func TestJobsVUTimingIterationRun(t *testing.T) {
	t.Parallel()
	repo, id := vuTimingRepo(t, 101)
	out, err := (&Command{Repo: repo, Loc: time.UTC}).Run(context.Background(), Session{Format: FormatText}, []string{fmt.Sprint(id), "timing", "1"})
	if err != nil || !strings.HasPrefix(out.Printed, "NEWORD {elapsed_ms 10000.0 calls 100 ") {
		t.Errorf("timing 1 of an iteration run: %q, %v", out.Printed, err)
	}
}
