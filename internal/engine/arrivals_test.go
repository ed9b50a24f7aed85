package engine

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/sledge-bench/sledge/internal/config"
	"github.com/sledge-bench/sledge/internal/metrics"
)

// The inter-arrival draw never yields a negative or overflowed gap, nor a
// gap shorter than the rate's, whatever the rate and the exponential draw;
// a rate that is not a positive finite number schedules nothing.
func TestInterArrivalBounds(t *testing.T) {
	t.Parallel()
	draws := []float64{0, 5e-324, 1e-9, 0.5, 1, 10, maxExpDraw, 41, 1e10, math.MaxFloat64, math.Inf(1), math.NaN()}
	var rates []float64
	for r := 1e-30; r <= 1e30; r *= 7 {
		rates = append(rates, r)
	}
	rates = append(rates, 1e-12, config.MinRate(config.MaxTime), config.MaxRate, 5e-324, math.MaxFloat64)
	for _, rate := range rates {
		for _, e := range draws {
			got := interArrival(e, rate)
			if got < 0 || got > maxGap {
				t.Fatalf("interArrival(%g, %g) = %d ns: out of [0, maxGap]", e, rate, got)
			}
			if math.IsNaN(e) {
				continue
			}
			// Never faster than the rate: the gap is the (capped) draw's
			// e/rate seconds, or saturated above it (half a nanosecond of
			// rounding aside).
			want := min(e, maxExpDraw) / rate * float64(time.Second)
			if got < maxGap && math.Abs(float64(got)-want) > 0.5 {
				t.Fatalf("interArrival(%g, %g) = %d ns, want %g", e, rate, got, want)
			}
			if got == maxGap && want < float64(maxGap) {
				t.Fatalf("interArrival(%g, %g) saturated; want %g ns", e, rate, want)
			}
		}
	}
	for _, rate := range []float64{0, -1, -1e-12, math.Inf(1), math.Inf(-1), math.NaN()} {
		for _, e := range draws {
			if got := interArrival(e, rate); got != maxGap {
				t.Errorf("interArrival(%g, %g) = %s, want no arrival (maxGap)", e, rate, got)
			}
		}
	}
	// The schedule's instant stays on the monotonic clock after a
	// saturated gap: time.Time.Add drops the reading on an overflow.
	now := time.Now()
	if next := now.Add(maxGap); next.Sub(now) != maxGap || !next.After(now) {
		t.Errorf("now + maxGap: %s after now", next.Sub(now))
	}
}

// For sane rates the gaps' mean is 1/rate: within 5 standard errors (an
// exponential's standard deviation is its mean).
func TestInterArrivalMean(t *testing.T) {
	t.Parallel()
	const n = 100000
	for i, rate := range []float64{config.MinRate(config.MaxTime), 1.0 / 60, 1, 90, 1e4, config.MaxRate} {
		rng := rand.New(rand.NewPCG(uint64(i), 42))
		var sum float64
		for range n {
			sum += interArrival(rng.ExpFloat64(), rate).Seconds()
		}
		mean := sum / n
		if rel := math.Abs(mean*rate - 1); rel > 5/math.Sqrt(n) {
			t.Errorf("rate %g: mean gap %g s, want %g s (off by %.2f%%)", rate, mean, 1/rate, 100*rel)
		}
	}
}

// Config.Validate refuses every rate, rate per type, stage target, pacing
// and time that the scheduler's arithmetic cannot carry — NaN, infinities,
// negatives, beyond the bounds, a window expecting no arrival — and takes
// the bounds themselves.
func TestValidateLoadBounds(t *testing.T) {
	t.Parallel()
	rate := func(r float64, d time.Duration) Config {
		return Config{Rate: r, Connections: 1, Duration: d, Interval: time.Second}
	}
	staged := func(r float64, st ...config.Stage) Config {
		return Config{Rate: r, Connections: 1, Stages: st, Interval: time.Second}
	}
	closed := func(mod func(*Config)) Config {
		c := Config{VUs: 1, Duration: time.Minute, Interval: time.Second}
		mod(&c)
		return c
	}
	nan, inf := math.NaN(), math.Inf(1)
	for _, c := range []struct {
		name  string
		cfg   Config
		words string // "": valid
	}{
		{"the lowest rate of the window", rate(1.0/60, time.Minute), ""},
		{"the highest rate", rate(config.MaxRate, time.Minute), ""},
		{"a rate too low for the window", rate(1e-12, 2*time.Second), "expects 2e-12 arrivals"},
		{"just under one arrival", rate(0.99, time.Second), "at least one must be expected"},
		{"a huge rate", rate(1e12, time.Minute), "(0, 1e+06]"},
		{"an infinite rate", rate(inf, time.Minute), "(0, 1e+06]"},
		{"a NaN rate", rate(nan, time.Minute), "got NaN"},
		{"a NaN rate reads as no closed-loop run", Config{Rate: nan, VUs: 1, Duration: time.Minute, Interval: time.Second}, "got NaN"},
		{"a negative rate", rate(-1, time.Minute), "(0, 1e+06]"},
		{"a NaN rate per type", Config{Rate: 10, RateByType: []float64{10, nan}, Connections: 1, Duration: time.Minute, Interval: time.Second}, "rate per type"},
		{"an infinite rate per type", Config{Rate: 10, RateByType: []float64{inf, 1}, Connections: 1, Duration: time.Minute, Interval: time.Second}, "rate per type"},
		{"a negative rate per type", Config{Rate: 10, RateByType: []float64{11, -1}, Connections: 1, Duration: time.Minute, Interval: time.Second}, "rate per type"},
		{"rates per type beyond the bound together", Config{Rate: 1e6, RateByType: []float64{6e5, 6e5}, Connections: 1, Duration: time.Minute, Interval: time.Second}, "rate per type"},
		{"a stage at the lowest rate", staged(1, config.Stage{Duration: 10 * time.Second, Target: 0.1}), ""},
		{"a stage expecting no arrival", staged(1, config.Stage{Duration: 10 * time.Second, Target: 10}, config.Stage{Duration: 10 * time.Second, Target: 1e-12}), "stage 2: 1e-12 per second"},
		{"an infinite stage target", staged(1, config.Stage{Duration: time.Minute, Target: inf}), "stage 1"},
		{"a NaN stage target", staged(1, config.Stage{Duration: time.Minute, Target: nan}), "stage 1"},
		{"a huge stage target", staged(1, config.Stage{Duration: time.Minute, Target: 1e12}), "stage 1"},
		{"an infinite VU stage", closed(func(c *Config) { c.Stages = []config.Stage{{Duration: time.Minute, Target: inf}} }), "stage 1"},
		{"stages whose sum overflows", closed(func(c *Config) {
			c.Stages = []config.Stage{{Duration: math.MaxInt64 / 2, Target: 1}, {Duration: math.MaxInt64 / 2, Target: 1}, {Duration: math.MaxInt64 / 2, Target: 1}}
		}), "the stages last more than"},
		{"a NaN pacing", closed(func(c *Config) { c.Pacing = nan }), "pacing scale"},
		{"an infinite pacing", closed(func(c *Config) { c.Pacing = inf }), "pacing scale"},
		{"a duration beyond the bound", closed(func(c *Config) { c.Duration = math.MaxInt64 }), "at most"},
		{"a ramp-up beyond the bound", closed(func(c *Config) { c.Rampup = math.MaxInt64 }), "at most"},
		{"an interval beyond the bound", closed(func(c *Config) { c.Interval = math.MaxInt64 }), "at most"},
	} {
		err := c.cfg.Validate()
		switch {
		case c.words == "" && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.words != "" && (err == nil || !strings.Contains(err.Error(), c.words)):
			t.Errorf("%s: %v, want an error saying %q", c.name, err, c.words)
		}
	}
}

// A rate run whose window saw no arrival (possible by chance at the
// lowest rates) says so, rather than judging an achieved rate of zero.
func TestRateAccountNoArrival(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		scheduled int64
		achieved  int64
		want      string
	}{
		{0, 0, "no transaction arrived in the measured window: 1 were expected at 1 per second"},
		{2, 2, ""},
	} {
		a := &arrivals{r: &run{cfg: Config{Rate: 1, Connections: 1, Duration: time.Second}, col: metrics.NewCollector([]string{"a"}, 0)}, conns: 1, winSched: c.scheduled}
		res := &metrics.RunResult{Measured: time.Second, Commits: c.achieved}
		a.account(res)
		got := strings.Join(res.Warnings, "\n")
		if c.want == "" && got != "" || !strings.Contains(got, c.want) {
			t.Errorf("%d scheduled: warnings %q, want %q", c.scheduled, got, c.want)
		}
	}
}
