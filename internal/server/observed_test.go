package server

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"testing"
	"time"

	"github.com/sledge-bench/sledge/internal/jobs"
	"github.com/sledge-bench/sledge/internal/observe"
	"github.com/sledge-bench/sledge/internal/report"
	"github.com/sledge-bench/sledge/internal/script/scripttest"
)

// observeRun stores what two observers saw of the fixture's run (whose
// intervals end at 10 … 60 s, the first two in the ramp-up): a PostgreSQL
// server with ten wait events in every interval, settings and a note, and
// a host with its CPU and disk. The third interval of the server is a gap.
func observeRun(t *testing.T, repo *jobs.Repo, id int64) {
	t.Helper()
	ctx := context.Background()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(repo.SaveObserverStart(ctx, id, 0, "PostgreSQL sessions and statistics", observe.Start{
		Server: "PostgreSQL 15.8", Uptime: time.Hour,
		Settings: []observe.Setting{
			{Name: "shared_buffers", Value: "128MB", Source: "configuration file"},
			{Name: "synchronous_commit", Value: "off", Source: "session"},
		},
		Notes: []string{"pg_stat_statements is not installed: no per-statement time"},
	}))
	must(repo.SaveObserverStart(ctx, id, 1, "client and database host", observe.Start{}))
	for i, at := range []time.Duration{10, 20, 30, 40, 50, 60} {
		seq := i + 1
		s := observe.Snapshot{Elapsed: at * time.Second, Length: 10 * time.Second, Samples: 100,
			// CPU 2; Lock 0.5 + 0.25; LWLock 9 events of 0.1 each, the
			// smallest last (the stored order is highest first).
			Waits: []observe.Wait{{Class: "CPU", AAS: 2}, {Class: "Lock", Event: "transactionid", AAS: 0.5}, {Class: "Lock", Event: "tuple", AAS: 0.25}},
			Counters: []observe.Counter{
				{Source: "pg_stat_database", Name: "xact_commit", Kind: observe.Delta, Value: 5000},
				{Source: "pg_stat_database", Name: "blks_hit", Kind: observe.Delta, Unit: "blocks", Value: 990},
				{Source: "pg_stat_database", Name: "blks_read", Kind: observe.Delta, Unit: "blocks", Value: 10},
			},
		}
		for e := range 9 {
			s.Waits = append(s.Waits, observe.Wait{Class: "LWLock", Event: fmt.Sprintf("lock%d", e), AAS: 0.1 - float64(e)*0.001})
		}
		if seq == 3 {
			s.Samples, s.Gap = 40, "server went away: connection refused"
		}
		must(repo.AppendObserved(ctx, id, 0, seq, s))
		must(repo.AppendObserved(ctx, id, 1, seq, observe.Snapshot{Elapsed: at * time.Second, Length: 10 * time.Second, Counters: []observe.Counter{
			{Source: observe.SourceOSCPU, Name: "user_pct", Kind: observe.Gauge, Unit: "%", Value: 40},
			{Source: observe.SourceOSCPU, Name: "sys_pct", Kind: observe.Gauge, Unit: "%", Value: 10},
			{Source: observe.SourceOSDisk, Name: "mbps", Kind: observe.Gauge, Unit: "MB/s", Value: math.NaN()},
		}}))
	}
	must(repo.SaveObserverCost(ctx, id, 0, observe.Cost{Samples: 540, Queries: 600, QueryTime: 900 * time.Millisecond, ServerShare: 0.004}))
	must(repo.SaveObserverCost(ctx, id, 1, observe.Cost{}))
}

func getJSON[T any](t *testing.T, c apiClient, path string, want int) T {
	t.Helper()
	code, b := c.do("GET", path, "")
	if code != want {
		t.Fatalf("GET %s: %d %s, want %d", path, code, b, want)
	}
	var v T
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("GET %s: %v in %s", path, err, b)
	}
	return v
}

// TestServeObservedResult: a run's result carries the observers' summary
// over the measured window once the job has observations, and says why
// not (observed null) before.
func TestServeObservedResult(t *testing.T) {
	t.Parallel()
	ts, _, repo := testServerStore(t, "", nil)
	f := scripttest.Build(t, repo)
	c := apiClient{t: t, base: ts.URL}
	path := fmt.Sprintf("/api/jobs/%d/result", f.Run)

	before := c.json("GET", path, "", 200)
	if before["observed"] != nil || before["observed_unavailable"] != report.NotObserved {
		t.Errorf("not observed yet: observed %v, observed_unavailable %v", before["observed"], before["observed_unavailable"])
	}

	observeRun(t, repo, f.Run)
	res := getJSON[observedResult](t, c, path, 200)
	if res.NOPM != 1000 {
		t.Errorf("nopm %v: the result itself is lost", res.NOPM)
	}
	if res.Observed == nil || res.Unavailable != nil {
		t.Fatalf("observed job: observed %v, observed_unavailable %v", res.Observed, res.Unavailable)
	}
	obs := res.Observed.Observers
	if len(obs) != 2 {
		t.Fatalf("%d observers, want 2", len(obs))
	}
	pg, host := obs[0], obs[1]
	// The two ramp-up intervals (ending at 10 and 20 s) are not in the window.
	if pg.Server != "PostgreSQL 15.8" || pg.Intervals != 4 {
		t.Errorf("server %q over %d intervals, want PostgreSQL 15.8 over the 4 measured", pg.Server, pg.Intervals)
	}
	if pg.CommitsPerS == nil || math.Abs(*pg.CommitsPerS-500) > 1e-9 {
		t.Errorf("commits_per_s %v, want 500", pg.CommitsPerS)
	}
	if pg.HitPct == nil || math.Abs(*pg.HitPct-99) > 1e-9 {
		t.Errorf("buffer_hit_pct %v, want 99", pg.HitPct)
	}
	if len(pg.Waits) == 0 || pg.Waits[0].Class != "Lock" || pg.Waits[0].Event != "transactionid" {
		t.Errorf("top waits %v, want Lock:transactionid first", pg.Waits)
	}
	if len(pg.Gaps) != 1 || pg.Gaps[0].Reason != "server went away: connection refused" {
		t.Errorf("gaps %v", pg.Gaps)
	}
	if pg.Cost.Samples != 540 {
		t.Errorf("cost samples %d, want 540", pg.Cost.Samples)
	}
	if host.CPUUser == nil || *host.CPUUser != 40 || host.DiskMBps != nil || host.AAS != nil {
		t.Errorf("host: user %v, disk %v (want null: not measured), aas %v (want null)", host.CPUUser, host.DiskMBps, host.AAS)
	}
}

// observedResult is what the tests read of a run's result.
type observedResult struct {
	Observed *struct {
		Observers []struct {
			Name        string   `json:"name"`
			Server      string   `json:"server"`
			Intervals   int      `json:"intervals"`
			AAS         *float64 `json:"aas"`
			CommitsPerS *float64 `json:"commits_per_s"`
			HitPct      *float64 `json:"buffer_hit_pct"`
			CPUUser     *float64 `json:"host_cpu_user_pct"`
			DiskMBps    *float64 `json:"host_disk_mbps"`
			Waits       []struct {
				Class, Event string
			} `json:"waits"`
			Gaps []struct {
				Reason string `json:"reason"`
			} `json:"gaps"`
			Cost struct {
				Samples int `json:"samples"`
			} `json:"cost"`
		} `json:"observers"`
	} `json:"observed"`
	Unavailable *string `json:"observed_unavailable"`
	NOPM        float64 `json:"nopm"`
}

// TestServeObservedSeries: GET /api/jobs/{id}/observed answers every
// observer's settings, notes, cost and intervals, with the AAS summed per
// wait class and only the top wait events; a job not observed answers no
// observers and why.
func TestServeObservedSeries(t *testing.T) {
	t.Parallel()
	ts, _, repo := testServerStore(t, "", nil)
	f := scripttest.Build(t, repo)
	observeRun(t, repo, f.Run)
	c := apiClient{t: t, base: ts.URL}

	got := getJSON[Observed](t, c, fmt.Sprintf("/api/jobs/%d/observed", f.Run), 200)
	if got.Unavailable != nil || len(got.Observers) != 2 {
		t.Fatalf("unavailable %v, %d observers, want 2", got.Unavailable, len(got.Observers))
	}
	pg, host := got.Observers[0], got.Observers[1]
	if pg.Name != "PostgreSQL sessions and statistics" || pg.Server != "PostgreSQL 15.8" || pg.UptimeS != 3600 {
		t.Errorf("observer %q on %q up %v s", pg.Name, pg.Server, pg.UptimeS)
	}
	wantSettings := []report.SettingJSON{
		{Observer: pg.Name, Server: "PostgreSQL 15.8", Name: "shared_buffers", Value: "128MB", Source: "configuration file"},
		{Observer: pg.Name, Server: "PostgreSQL 15.8", Name: "synchronous_commit", Value: "off", Source: "session"},
	}
	if !reflect.DeepEqual(pg.Settings, wantSettings) {
		t.Errorf("settings %+v, want %+v", pg.Settings, wantSettings)
	}
	if len(pg.Notes) != 1 || pg.Cost.Samples != 540 || pg.Cost.Queries != 600 || pg.Cost.QueryS != 0.9 {
		t.Errorf("notes %v, cost %+v", pg.Notes, pg.Cost)
	}
	if len(pg.Intervals) != 6 {
		t.Fatalf("%d intervals, want 6", len(pg.Intervals))
	}
	iv := pg.Intervals[0]
	if iv.ElapsedS != 10 || iv.LengthS != 10 || iv.Samples != 100 || iv.Gap != "" {
		t.Errorf("first interval %+v", iv.ObservedInterval)
	}
	// LWLock: 9 events summing 0.9 - 0.036.
	wantClasses := []ClassAAS{{"CPU", 2}, {"LWLock", 0.864}, {"Lock", 0.75}}
	if len(iv.Classes) != len(wantClasses) {
		t.Fatalf("classes %+v, want %+v", iv.Classes, wantClasses)
	}
	for i, w := range wantClasses {
		if g := iv.Classes[i]; g.Class != w.Class || math.Abs(float64(g.AAS-w.AAS)) > 1e-9 {
			t.Errorf("class %d: %+v, want %+v", i, g, w)
		}
	}
	if len(iv.Waits) != topEvents || iv.Waits[0].Class != "CPU" || iv.Waits[1].Event != "transactionid" {
		t.Errorf("waits %+v: want the top %d, CPU then Lock:transactionid", iv.Waits, topEvents)
	}
	for _, w := range iv.Waits {
		if w.Event == "lock8" {
			t.Errorf("the smallest event %+v is among the top %d", w, topEvents)
		}
	}
	if len(iv.Counters) != 3 || iv.Counters[0].Name != "xact_commit" || iv.Counters[0].Value != 5000 {
		t.Errorf("counters %+v", iv.Counters)
	}
	if g := pg.Intervals[2]; g.Gap == "" || g.Samples != 40 {
		t.Errorf("third interval: gap %q samples %d, want the gap", g.Gap, g.Samples)
	}
	if hi := host.Intervals[0]; len(hi.Classes) != 0 || len(hi.Waits) != 0 || len(hi.Counters) != 3 {
		t.Errorf("host interval %+v", hi)
	}
	// A figure not measured is null on the wire, not 0.
	code, raw := c.do("GET", fmt.Sprintf("/api/jobs/%d/observed", f.Run), "")
	var wire struct {
		Observers []struct {
			Intervals []struct {
				Classes  []map[string]any `json:"classes"`
				Counters []map[string]any `json:"counters"`
			} `json:"intervals"`
		} `json:"observers"`
	}
	if err := json.Unmarshal(raw, &wire); code != 200 || err != nil {
		t.Fatalf("%d %v", code, err)
	}
	if v, ok := wire.Observers[1].Intervals[0].Counters[2]["value"]; !ok || v != nil {
		t.Errorf("disk MB/s not measured answers %v (present %v), want null", v, ok)
	}
	if wire.Observers[1].Intervals[0].Classes == nil {
		t.Error("a host's classes are null, want []")
	}

	for _, id := range []int64{f.Build, f.Failed} {
		none := getJSON[Observed](t, c, fmt.Sprintf("/api/jobs/%d/observed", id), 200)
		if none.Observers == nil || len(none.Observers) != 0 || none.Unavailable == nil || *none.Unavailable != report.NotObserved {
			t.Errorf("job %d not observed: %+v", id, none)
		}
	}
	c.json("GET", "/api/jobs/999/observed", "", 404)
}

// TestOpenAPIObservedIsTheAnswer: the document's Observed schemas name
// exactly the fields GET /api/jobs/{id}/observed answers.
func TestOpenAPIObservedIsTheAnswer(t *testing.T) {
	t.Parallel()
	doc := parseOpenAPI(t)
	resp, ok := doc.Paths["/api/jobs/{id}/observed"]["get"].Responses["200"].Content["application/json"]
	if !ok {
		t.Fatal("GET /api/jobs/{id}/observed has no application/json answer")
	}
	checkSameFields(t, "the Observed schema", doc.resolve(t, resp.Schema), reflect.TypeOf(Observed{}))
	checkSameFields(t, "the ObserverSeries schema", doc.Components.Schemas["ObserverSeries"], reflect.TypeOf(report.ObservationJSON{}))
	checkSameFields(t, "the Setting schema", doc.Components.Schemas["Setting"], reflect.TypeOf(report.SettingJSON{}))
	checkSameFields(t, "the ObserverCost schema", doc.Components.Schemas["ObserverCost"], reflect.TypeOf(report.CostJSON{}))
	iv := doc.Components.Schemas["ObservedInterval"]
	if _, ok := iv.Properties["classes"]; !ok {
		t.Error("the ObservedInterval schema lacks classes")
	}
	delete(iv.Properties, "classes")
	checkSameFields(t, "the ObservedInterval schema", iv, reflect.TypeOf(report.ObservedInterval{}))
}
