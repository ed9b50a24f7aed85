package config

import (
	"math"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestValidateRateBounds: a rate run's rate — total, per type, per stage —
// is a number in (0, MaxRate] that expects at least one arrival in its
// window (each stage's); the run's times are at most MaxTime. Every refusal
// is one field error naming its field and, for a rate too low, the lowest
// rate the window allows.
func TestValidateRateBounds(t *testing.T) {
	t.Parallel()
	nan, inf := math.NaN(), math.Inf(1)
	for _, c := range []struct {
		name  string
		set   func(*Spec)
		field string // "": valid
		words string
	}{
		{"lowest rate of a minute", func(s *Spec) { s.Rate = 1.0 / 60 }, "", ""},
		{"the rate the message names", func(s *Spec) { s.Rate = 0.0167 }, "", ""},
		{"highest rate", func(s *Spec) { s.Rate = MaxRate }, "", ""},
		{"rate 1e-12", func(s *Spec) { s.Rate = 1e-12 }, "rate", "want at least 0.0167 transactions per second (one arrival expected in the window)"},
		{"rate 1e-12 over 2s", func(s *Spec) { s.Rate, s.Duration = 1e-12, Duration(2*time.Second) }, "rate", "expects 2e-12 arrivals in the 2s measured window: want at least 0.5 "},
		{"rate a third of the window's", func(s *Spec) { s.Rate, s.Duration = 0.3, Duration(3*time.Second) }, "rate", "want at least 0.334 "},
		{"rate 1e12", func(s *Spec) { s.Rate = 1e12 }, "rate", "(0, 1e+06]"},
		{"rate +Inf", func(s *Spec) { s.Rate = inf }, "rate", "(got +Inf)"},
		{"rate -Inf", func(s *Spec) { s.Rate = -inf }, "rate", "(got -Inf)"},
		{"rate NaN", func(s *Spec) { s.Rate = nan }, "rate", "(got NaN)"},
		{"rate negative", func(s *Spec) { s.Rate = -5 }, "rate", "(got -5)"},
		{"per type too low together", func(s *Spec) { s.RateByType = "new_order=1e-12,payment=1e-12" }, "rate_by_type", "adds up to 2e-12 transactions per second, which expects"},
		{"per type too high together", func(s *Spec) { s.RateByType = "new_order=6e5,payment=6e5" }, "rate_by_type", "adds up to 1.2e+06 transactions per second: at most 1e+06"},
		{"per type NaN", func(s *Spec) { s.RateByType = "new_order=NaN" }, "rate_by_type", "TYPE=RATE"},
		{"per type Inf", func(s *Spec) { s.RateByType = "new_order=+Inf" }, "rate_by_type", "TYPE=RATE"},
		{"per type negative", func(s *Spec) { s.RateByType = "new_order=-1" }, "rate_by_type", "TYPE=RATE"},
		{"per type, one rare", func(s *Spec) { s.RateByType = "new_order=10,delivery=1e-12" }, "", ""},
		{"stage at its lowest", func(s *Spec) { s.Rate, s.Stages = 1, "10s:0.1,10s:5" }, "", ""},
		{"stage too low", func(s *Spec) { s.Rate, s.Stages = 1, "10s:5,10s:1e-12" }, "stages", "stage 2: 1e-12 transactions per second expects 1e-11 arrivals in its 10s: want at least 0.1 per second"},
		{"stage too high", func(s *Spec) { s.Rate, s.Stages = 1, "10s:1e12" }, "stages", "at most 1e+06"},
		{"stage Inf", func(s *Spec) { s.Rate, s.Stages = 1, "10s:Inf" }, "stages", "positive number"},
		{"stage NaN", func(s *Spec) { s.Rate, s.Stages = 1, "10s:NaN" }, "stages", "positive number"},
		{"a staged run's rate is not judged on the duration", func(s *Spec) { s.Rate, s.Stages, s.Duration = 1e-12, "10s:5", Duration(time.Second) }, "", ""},
		{"stages beyond a year", func(s *Spec) { s.Stages = "5000h:1,5000h:1" }, "stages", "last more than 8760h"},
		{"stages overflowing", func(s *Spec) { s.Stages = "2562047h:1,2562047h:1" }, "stages", "last more than 8760h"},
		{"duration beyond a year", func(s *Spec) { s.Duration = Duration(MaxTime + time.Hour) }, "duration", "at most 8760h"},
		{"rampup beyond a year", func(s *Spec) { s.Rampup = Duration(MaxTime + time.Hour) }, "rampup", "at most 8760h"},
		{"interval beyond a year", func(s *Spec) { s.Interval = Duration(MaxTime + time.Hour) }, "interval", "at most 8760h"},
		{"pacing scale NaN", func(s *Spec) { s.Pacing, s.PacingScale = "spec", nan }, "pacing_scale", "(0, 10]"},
		{"pacing scale Inf", func(s *Spec) { s.Pacing, s.PacingScale = "spec", inf }, "pacing_scale", "(0, 10]"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			s := New(KindRun)
			c.set(&s)
			fields := Fields(s.Validate())
			if c.field == "" {
				if fields != nil {
					t.Fatalf("refused: %v", fields)
				}
				return
			}
			if len(fields) != 1 {
				t.Fatalf("got %d field errors %v, want one for %s", len(fields), fields, c.field)
			}
			f := fields[0]
			if f.Field != c.field || !strings.HasPrefix(f.Msg, c.field) || !strings.Contains(f.Msg, c.words) {
				t.Errorf("got {%s %q}, want field %s with a message starting with it and holding %q", f.Field, f.Msg, c.field, c.words)
			}
		})
	}
}

// The rate a message names as the lowest is allowed: rounded up, never
// down, to three digits.
func TestMinRateText(t *testing.T) {
	t.Parallel()
	for _, d := range []time.Duration{time.Second, 3 * time.Second, 7 * time.Second, time.Minute, 61 * time.Second, 90 * time.Minute, MaxTime} {
		text := minRateText(d)
		r, err := strconv.ParseFloat(text, 64)
		if err != nil {
			t.Fatalf("%s: %q", d, text)
		}
		s := New(KindRun)
		s.Duration, s.Rate = Duration(d), r
		if err := s.Validate(); err != nil {
			t.Errorf("%s: the named lowest rate %s is refused: %v", d, text, err)
		}
		if r > 1.01*MinRate(d) {
			t.Errorf("%s: %s is more than 1%% above the lowest rate %g", d, text, MinRate(d))
		}
	}
}

// A duration given as a number of seconds too large for a time.Duration
// is refused, not wrapped around.
func TestDurationJSONOverflow(t *testing.T) {
	t.Parallel()
	for _, b := range []string{`1e300`, `-1e300`, `9.3e9`, `1e400`} {
		var d Duration
		if err := d.UnmarshalJSON([]byte(b)); err == nil {
			t.Errorf("%s read as %s", b, d)
		}
	}
	for _, c := range []struct{ body, field string }{
		{`{"kind":"run","duration":1e300}`, "duration"},
		{`{"kind":"run","rampup":-1e19}`, "rampup"},
		{`{"kind":"run","rate":1e400}`, "rate"},
	} {
		_, err := Decode([]byte(c.body))
		if f := Fields(err); len(f) != 1 || f[0].Field != c.field {
			t.Errorf("Decode(%s) = %v, want one error naming %s", c.body, err, c.field)
		}
	}
	// A year in seconds is read, and refused by the bound with its value.
	s, err := Decode([]byte(`{"kind":"run","duration":1e8}`))
	if f := Fields(s.Validate()); err != nil || len(f) != 1 || f[0].Field != "duration" || !strings.Contains(f[0].Msg, "at most 8760h") {
		t.Errorf("duration 1e8 s: %v, %v", err, f)
	}
}

func TestSetRate(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		text      string
		rate      float64
		byType    string
		wantErr   bool
		unchanged bool // the spec keeps its rate
	}{
		{text: "", rate: 7, unchanged: true},
		{text: "500", rate: 500},
		{text: "payment=20, new_order=20.5", byType: "new_order=20.5,payment=20"},
		{text: "-3", wantErr: true, unchanged: true},
		{text: "new_order=", wantErr: true, unchanged: true},
	} {
		s := New(KindRun)
		s.Rate = 7
		err := s.SetRate(tc.text)
		if (err != nil) != tc.wantErr {
			t.Errorf("SetRate(%q): %v, want error %v", tc.text, err, tc.wantErr)
		}
		if tc.unchanged {
			tc.rate = 7
		}
		if s.Rate != tc.rate || s.RateByType != tc.byType {
			t.Errorf("SetRate(%q): rate %g, by type %q; want %g, %q", tc.text, s.Rate, s.RateByType, tc.rate, tc.byType)
		}
	}
}
