package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/sledge-bench/sledge/internal/jobs"
	"github.com/sledge-bench/sledge/internal/observe"
)

// noisyHost is this host's observer over observedRun: in the ramp-up other
// processes ran flat out (the window must not count it); in the window
// they used 70 % of 2 CPUs, and the frequency is given or not.
func noisyHost(freq bool) jobs.Observation {
	iv := func(elapsed, others, mhz float64) observe.Snapshot {
		cs := []observe.Counter{gauge("os.cpu", "user_pct", 90), gauge("os.cpu", "sys_pct", 5), gauge("os.cpu", "steal_pct", 1),
			gauge("os.cpu", "cpus", 2), gauge("os.cpu", "self_pct", 20), gauge("os.cpu", "others_pct", others)}
		if freq {
			cs = append(cs, gauge("os.cpu", "freq_min_mhz", mhz-100), gauge("os.cpu", "freq_mean_mhz", mhz), gauge("os.cpu", "freq_max_mhz", mhz+100))
		}
		return observe.Snapshot{Elapsed: sec(elapsed), Length: sec(10), Counters: cs}
	}
	return jobs.Observation{Name: "client host", Intervals: []observe.Snapshot{iv(10, 100, 1000), iv(20, 70, 2000), iv(30, 70, 2100)}}
}

// TestNoiseShown: the host's other processes, own CPU and frequency are
// in the printed block and the JSON, judged over the window only; a
// missing frequency says "not available", never 0.
func TestNoiseShown(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		obs      jobs.Observation
		lines    []string
		noisy    bool
		freqNull bool
		warnings int
	}{
		{"noisy", noisyHost(true), []string{
			"host CPU       user 90.0%, sys 5.0%, iowait n/a, steal 1.0%, others 70.0% (1.40 cores), self 20.0%",
			"CPU frequency  mean 2050 MHz, intervals' means 2000–2100 MHz (5% apart)",
			"machine        NOISY: other processes beyond bounds"}, true, false, 1},
		{"no frequency", noisyHost(false), []string{"CPU frequency  not available"}, true, true, 1},
		{"not measured", observedHost(), nil, false, true, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			sum := Summarize([]jobs.Observation{tc.obs}, observedRun())
			var b bytes.Buffer
			if err := ObservedBlock(&b, sum); err != nil {
				t.Fatal(err)
			}
			for _, l := range tc.lines {
				if !strings.Contains(b.String(), l) {
					t.Errorf("block lacks %q:\n%s", l, b.String())
				}
			}
			if ws := NoiseWarnings(sum); len(ws) != tc.warnings {
				t.Errorf("warnings %q, want %d", ws, tc.warnings)
			}
			var r ResultJSON
			r.WithObserved([]jobs.Observation{tc.obs}, observedRun())
			raw, err := json.Marshal(r.Observed)
			if err != nil {
				t.Fatal(err)
			}
			var back struct {
				Observers []map[string]any `json:"observers"`
			}
			if err := json.Unmarshal(raw, &back); err != nil {
				t.Fatal(err)
			}
			o := back.Observers[0]
			if tc.warnings == 0 {
				if o["noisy"] != nil || o["host_cpu_others_pct"] != nil {
					t.Errorf("JSON noisy %v, others %v: want null for an observer that did not measure them", o["noisy"], o["host_cpu_others_pct"])
				}
				if strings.Contains(b.String(), "machine") {
					t.Errorf("a verdict without the figures:\n%s", b.String())
				}
				return
			}
			if o["noisy"] != tc.noisy || o["host_cpu_others_cores"] != 1.4 {
				t.Errorf("JSON noisy %v, others cores %v", o["noisy"], o["host_cpu_others_cores"])
			}
			if (o["host_cpu_freq_mean_mhz"] == nil) != tc.freqNull {
				t.Errorf("JSON frequency %v", o["host_cpu_freq_mean_mhz"])
			}
		})
	}
}
