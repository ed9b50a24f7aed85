package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sledge-bench/sledge/internal/app"
	"github.com/sledge-bench/sledge/internal/config"
	"github.com/sledge-bench/sledge/internal/jobs"
	"github.com/sledge-bench/sledge/internal/metrics"
	"github.com/sledge-bench/sledge/internal/report"
)

// countingStore is the repository, counting the interval series reads.
type countingStore struct {
	*jobs.Repo
	intervals atomic.Int64
}

func (c *countingStore) Intervals(ctx context.Context, id int64) ([]metrics.Interval, error) {
	c.intervals.Add(1)
	return c.Repo.Intervals(ctx, id)
}

// TestServeEventsFromTheHub: the event stream of a job running in the
// server delivers every interval and the final status without reading the
// interval series from the repository.
func TestServeEventsFromTheHub(t *testing.T) {
	if testing.Short() {
		t.Skip("runs on SQLite")
	}
	t.Parallel()
	var store *countingStore
	ts, _, _ := testServerStore(t, "", func(r *jobs.Repo) Store {
		store = &countingStore{Repo: r}
		return store
	})
	c := apiClient{t: t, base: ts.URL}
	id := c.json("POST", "/api/jobs", `{"kind":"run","vu":2,"rampup":"0s","duration":"3s","interval":"1s"}`, 201)["id"].(string)
	evs := readEvents(t, ts.URL, id)
	intervals, final, seqs := 0, "", []float64{}
	for _, e := range evs {
		switch e.name {
		case "interval":
			intervals++
			seq, _ := e.data["seq"].(float64)
			seqs = append(seqs, seq)
		case "status":
			final, _ = e.data["status"].(string)
		}
	}
	if intervals < 2 || final != "completed" {
		t.Fatalf("event stream: %d intervals, final status %q: %v", intervals, final, evs)
	}
	if last := evs[len(evs)-1]; last.name != "status" {
		t.Errorf("the stream ends with %q, not the status", last.name)
	}
	for i := 1; i < len(seqs); i++ {
		if seqs[i] <= seqs[i-1] {
			t.Errorf("interval seqs out of order: %v", seqs)
			break
		}
	}
	if n := store.intervals.Load(); n != 0 {
		t.Errorf("the event stream of a live job read the interval series %d times", n)
	}
	// Every interval the job recorded was streamed.
	stored, err := store.Repo.Intervals(context.Background(), parseID(t, id))
	if err != nil {
		t.Fatal(err)
	}
	if len(stored) != intervals {
		t.Errorf("streamed %d intervals, the repository holds %d", intervals, len(stored))
	}

	// A finished job streams from the repository.
	again := readEvents(t, ts.URL, id)
	if len(again) != len(evs) || again[len(again)-1].name != "status" {
		t.Errorf("finished job's stream: %d events, want %d ending with the status", len(again), len(evs))
	}
}

func parseID(t *testing.T, id string) int64 {
	t.Helper()
	var n int64
	if _, err := fmt.Sscan(id, &n); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestServeOverlappingRunsKeepGOMAXPROCS: a server never changes its
// process's settings: two runs at once leave GOMAXPROCS where it was,
// before, during and after.
func TestServeOverlappingRunsKeepGOMAXPROCS(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs on SQLite")
	}
	// Parallel: no other test of this package sets GOMAXPROCS (their
	// services do not own the process, as a server's never does).
	t.Parallel()
	before := runtime.GOMAXPROCS(0)
	if before == app.ClientCPUs(0, 2) {
		// Make a change by a run's default visible.
		runtime.GOMAXPROCS(before + 2)
		t.Cleanup(func() { runtime.GOMAXPROCS(before) })
	}
	want := runtime.GOMAXPROCS(0)
	ts, _ := testServer(t, "")
	c := apiClient{t: t, base: ts.URL}
	dir := t.TempDir()
	dbs := []string{"sqlite:" + filepath.Join(dir, "a.db"), "sqlite:" + filepath.Join(dir, "b.db")}
	var builds []string
	for _, db := range dbs {
		builds = append(builds, c.json("POST", "/api/jobs", `{"kind":"build","warehouses":1,"db":"`+db+`"}`, 201)["id"].(string))
	}
	for _, id := range builds {
		if st := c.waitEnd(id, 2*time.Minute); st != "completed" {
			t.Fatalf("build %s: %s", id, st)
		}
	}
	if got := runtime.GOMAXPROCS(0); got != want {
		t.Fatalf("GOMAXPROCS %d after the builds, want %d", got, want)
	}

	// Watch GOMAXPROCS while the runs go on.
	stop := make(chan struct{})
	var seen sync.Map
	var watch sync.WaitGroup
	watch.Add(1)
	go func() {
		defer watch.Done()
		for {
			seen.Store(runtime.GOMAXPROCS(0), true)
			select {
			case <-stop:
				return
			case <-time.After(10 * time.Millisecond):
			}
		}
	}()
	runs := []string{
		c.json("POST", "/api/jobs", `{"kind":"run","vu":2,"rampup":"0s","duration":"3s","interval":"1s","db":"`+dbs[0]+`"}`, 201)["id"].(string),
		c.json("POST", "/api/jobs", `{"kind":"run","vu":2,"rampup":"1s","duration":"2s","interval":"1s","db":"`+dbs[1]+`"}`, 201)["id"].(string),
	}
	if j := c.json("GET", "/api/jobs/"+runs[0], "", 200); j["status"] != "running" {
		t.Errorf("the first run is %v once the second started: they do not overlap", j["status"])
	}
	for _, id := range runs {
		if st := c.waitEnd(id, time.Minute); st != "completed" {
			t.Errorf("run %s: %s", id, st)
		}
	}
	close(stop)
	watch.Wait()
	seen.Range(func(k, _ any) bool {
		if k.(int) != want {
			t.Errorf("GOMAXPROCS was %d during the runs, want %d throughout", k, want)
		}
		return true
	})
	if got := runtime.GOMAXPROCS(0); got != want {
		t.Errorf("GOMAXPROCS %d after the runs, want %d", got, want)
	}
	for _, id := range runs {
		if cfg := c.json("GET", "/api/jobs/"+id+"/config", "", 200); cfg["client_cpus"] != fmt.Sprint(want) {
			t.Errorf("run %s recorded client_cpus %v, want %d", id, cfg["client_cpus"], want)
		}
	}
}

// TestClient drives a server through the client the CLI uses with
// --server.
func TestClient(t *testing.T) {
	t.Parallel()
	if _, err := NewClient("ftp://x", ""); err == nil || !strings.Contains(err.Error(), `server URL "ftp://x"`) {
		t.Errorf("bad server URL: %v", err)
	}
	if testing.Short() {
		t.Skip("runs on SQLite")
	}
	ts, _ := testServer(t, "tok")
	cl, err := NewClient(ts.URL+"/", "tok")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	spec := config.New(config.KindRun)
	spec.VU, spec.Rampup, spec.Duration, spec.Interval = 2, config.Duration(time.Second), config.Duration(3*time.Second), config.Duration(time.Second)
	var out bytes.Buffer
	end, err := cl.RunJob(ctx, &out, spec, RunOptions{})
	if err != nil || end.Status != metrics.StatusCompleted || end.ID < 1 {
		t.Fatalf("RunJob: %+v, %v\n%s", end, err, out.String())
	}
	// The job's console, as a local run prints it: its header, the
	// intervals, the result table.
	for _, want := range []string{fmt.Sprintf("run job %d: TPROC-C", end.ID), "measure", fmt.Sprintf("TPROC-C result (job %d): completed", end.ID), "  NOPM  "} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("remote run output lacks %q:\n%s", want, out.String())
		}
	}
	// The progress lines are a local run's (report.IntervalLine).
	progress := regexp.MustCompile(`(?m)^\[ +\d+s\] (rampup|measure) +TPM +[\d,]+  NOPM +[\d,]+  new_order p95 +[\d.]+ (ms|s|µs)  errors 0$`)
	if n := len(progress.FindAllString(out.String(), -1)); n < 3 {
		t.Errorf("%d progress lines in a local run's format:\n%s", n, out.String())
	}
	// --progress json: one interval object per line, on a writer of its
	// own (a local run's stderr), and no text progress line.
	out.Reset()
	var jsonLines bytes.Buffer
	if end, err := cl.RunJob(ctx, &out, spec, RunOptions{ProgressJSON: &jsonLines}); err != nil || end.Status != metrics.StatusCompleted {
		t.Fatalf("RunJob (JSON progress): %+v, %v\n%s", end, err, out.String())
	}
	var objects int
	for _, line := range strings.Split(strings.TrimSuffix(jsonLines.String(), "\n"), "\n") {
		var iv report.IntervalJSON
		if json.Unmarshal([]byte(line), &iv) != nil || iv.Phase == "" {
			t.Errorf("not an interval object: %q", line)
		}
		objects++
	}
	if objects < 3 || progress.MatchString(out.String()) || !strings.Contains(out.String(), "TPROC-C result") {
		t.Errorf("%d JSON progress lines, the console has text ones too:\n%s\n%s", objects, jsonLines.String(), out.String())
	}
	list, err := cl.ListJobs(ctx, "run", "", 1)
	if err != nil || len(list) != 1 || list[0].Status != metrics.StatusCompleted {
		t.Fatalf("ListJobs: %v %+v", err, list)
	}
	var table bytes.Buffer
	if err := report.JobsJSONTable(&table, list); err != nil {
		t.Fatal(err)
	}
	if lines := strings.Split(strings.TrimSpace(table.String()), "\n"); len(lines) != 2 ||
		strings.Join(strings.Fields(lines[0]), " ") != "ID KIND WORKLOAD STATUS TARGET STARTED DURATION NOPM TPM GEOMEAN" ||
		!strings.Contains(lines[1], "completed") {
		t.Errorf("jobs table:\n%s", table.String())
	}

	// An invalid spec: the server's error, naming the field.
	bad := spec
	bad.VU = -1
	var apiErr *APIError
	if _, err := cl.RunJob(ctx, &out, bad, RunOptions{}); !errors.As(err, &apiErr) || apiErr.StatusCode != 400 || apiErr.Field != "vu" {
		t.Errorf("invalid spec: %v", err)
	}
	// A wrong token.
	wrong, _ := NewClient(ts.URL, "wrong")
	if _, err := wrong.ListJobs(ctx, "", "", 0); err == nil || !strings.Contains(err.Error(), "token") {
		t.Errorf("wrong token: %v", err)
	}

	// Cancelling stops the job on the server.
	long := spec
	long.Duration = config.Duration(time.Hour)
	cctx, cancel := context.WithCancel(ctx)
	time.AfterFunc(2*time.Second, cancel)
	out.Reset()
	if _, err := cl.RunJob(cctx, &out, long, RunOptions{}); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled RunJob: %v\n%s", err, out.String())
	}
	if !strings.Contains(out.String(), "asked the server to stop job") {
		t.Errorf("cancelled run output:\n%s", out.String())
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		list, err := cl.ListJobs(ctx, "run", "", 1)
		if err != nil {
			t.Fatal(err)
		}
		if len(list) == 1 && list[0].Status == metrics.StatusInterrupted {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the cancelled job is %+v", list)
		}
		time.Sleep(200 * time.Millisecond)
	}
}
