package server

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"testing"
	"time"

	"github.com/sledge-bench/sledge/internal/app"
	"github.com/sledge-bench/sledge/internal/config"
	"github.com/sledge-bench/sledge/internal/stats"
)

// TestOpenAPISeries: GET /api/series/{id} is documented, and its schemas
// are the JSON the server sends.
func TestOpenAPISeries(t *testing.T) {
	t.Parallel()
	doc := parseOpenAPI(t)
	resp, ok := doc.Paths["/api/series/{id}"]["get"].Responses["200"].Content["application/json"]
	if !ok {
		t.Fatal("OpenAPI document lacks GET /api/series/{id}")
	}
	checkSameFields(t, "the schema of GET /api/series/{id}", doc.resolve(t, resp.Schema), reflect.TypeOf(SeriesJSON{}))
	checkSameFields(t, "the SeriesTrial schema", doc.Components.Schemas["SeriesTrial"], reflect.TypeOf(SeriesTrialJSON{}))
	checkSameFields(t, "the Summary schema", doc.Components.Schemas["Summary"], reflect.TypeOf(SummaryJSON{}))
}

// TestSeriesAPI runs a series of two short trials and one lone run through
// the job service and reads the series back: by its first trial and by the
// second, each trial's figures, their mean and CI as stats.Summarize gives
// them, and 404 for a job of no series.
func TestSeriesAPI(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs on SQLite")
	}
	t.Parallel()
	ts, s := testServer(t, "")
	c := apiClient{t: t, base: ts.URL}
	spec := config.New(config.KindRun)
	spec.Rampup, spec.Duration, spec.Interval = 0, config.Duration(time.Second), config.Duration(time.Second)
	outs, err := s.svc.RunSeries(context.Background(), app.Request{Spec: spec}, 2)
	if err != nil || len(outs) != 2 {
		t.Fatalf("series: %d jobs, %v", len(outs), err)
	}
	lone, err := s.svc.Run(context.Background(), app.Request{Spec: spec})
	if err != nil {
		t.Fatal(err)
	}
	first, second := fmt.Sprint(outs[0].ID), fmt.Sprint(outs[1].ID)
	var want []float64
	for _, o := range outs {
		want = append(want, o.Run.NOPM)
	}
	sum := stats.Summarize(want)
	for _, id := range []string{first, second} {
		code, b := c.do("GET", "/api/series/"+id, "")
		var got SeriesJSON
		if code != 200 || json.Unmarshal(b, &got) != nil {
			t.Fatalf("GET /api/series/%s: %d %s", id, code, b)
		}
		if got.ID != first || got.Planned != 2 || len(got.Trials) != 2 {
			t.Fatalf("GET /api/series/%s: %s", id, b)
		}
		for k, tr := range got.Trials {
			o := outs[k]
			if tr.JobID != fmt.Sprint(o.ID) || tr.Trial != fmt.Sprintf("%d/2", k+1) || tr.Status != o.Status ||
				math.Abs(float64(tr.NOPM)-o.Run.NOPM) > 1e-6 || !(tr.P95MS > 0) {
				t.Errorf("trial %d: %+v, want job %d %s NOPM %g", k+1, tr, o.ID, o.Status, o.Run.NOPM)
			}
		}
		// Two trials: a mean and an SD, no interval (null).
		var raw map[string]json.RawMessage
		var nopm map[string]any
		if json.Unmarshal(b, &raw) != nil || json.Unmarshal(raw["nopm"], &nopm) != nil ||
			nopm["ci95_low"] != nil || nopm["ci95_high"] != nil || len(nopm) != 5 {
			t.Errorf("GET /api/series/%s: an interval from two trials: %s", id, raw["nopm"])
		}
		if got.NOPM.N != 2 || math.Abs(float64(got.NOPM.Mean)-sum.Mean) > 1e-6 || math.Abs(float64(got.NOPM.SD)-sum.SD) > 1e-6 ||
			got.TPM.N != 2 || got.P95MS.N != 2 {
			t.Errorf("GET /api/series/%s summaries: %s; want NOPM %+v", id, b, sum)
		}
	}
	if code, b := c.do("GET", fmt.Sprint("/api/series/", lone.ID), ""); code != 404 {
		t.Errorf("a lone run as a series: %d %s", code, b)
	}
	if code, b := c.do("GET", "/api/series/999", ""); code != 404 {
		t.Errorf("an unknown job: %d %s", code, b)
	}
	if code, b := c.do("GET", "/api/series/x", ""); code != 400 {
		t.Errorf("GET /api/series/x: %d %s", code, b)
	}
}
