package config

import (
	"slices"
	"strings"
	"testing"
	"time"
)

func TestNewFillsDefaults(t *testing.T) {
	s := New(KindRun)
	want := Spec{Kind: KindRun, Workload: "tprocc", Warehouses: 1, Scale: 1, VU: 4,
		Rampup: Duration(10 * time.Second), Duration: Duration(time.Minute), Interval: Duration(10 * time.Second),
		Mode: "auto", SnapshotIsolation: "off", ExecMode: "prepared", Pacing: "off", PacingScale: 1, QuerySets: 1,
		Metrics: "on", MetricsRate: 10, AgentWait: Duration(2 * time.Minute)}
	if !sameSpec(s, want) {
		t.Errorf("New(run) = %+v\nwant %+v", s, want)
	}
	if err := s.Validate(); err != nil {
		t.Errorf("defaults do not validate: %v", err)
	}
	for _, k := range Kinds {
		s := New(k)
		s.Confirm = k == KindDrop // a drop is destructive: confirmed or refused
		if err := s.Validate(); err != nil {
			t.Errorf("New(%s).Validate() = %v", k, err)
		}
	}
	if got := New(KindBuild).BuildSeed(); got != DefaultBuildSeed {
		t.Errorf("build seed %d", got)
	}
}

// TestValidateFieldErrors has one row per field error: the field it names
// and a word of its message.
func TestValidateFieldErrors(t *testing.T) {
	for _, c := range []struct {
		name  string
		kind  string
		set   func(*Spec)
		field string
		words string
	}{
		{"no kind", "", func(*Spec) {}, "kind", "required"},
		{"bad kind", "explode", func(*Spec) {}, "kind", `"explode"`},
		{"warehouses", KindBuild, func(s *Spec) { s.Warehouses = -5 }, "warehouses", "at least 1 (got -5)"},
		{"workers", KindBuild, func(s *Spec) { s.Workers = -1 }, "workers", "negative"},
		{"scale zero", KindBuild, func(s *Spec) { s.Scale = 0 }, "scale", "positive"},
		{"scale negative", KindBuild, func(s *Spec) { s.Scale = -1 }, "scale", "positive"},
		{"drop unconfirmed", KindDrop, func(*Spec) {}, "confirm", "drop"},
		{"force unconfirmed", KindBuild, func(s *Spec) { s.Force = true }, "confirm", "force"},
		{"loader", KindBuild, func(s *Spec) { s.Loader = "bulk" }, "loader", "unknown loader"},
		{"vu zero", KindRun, func(s *Spec) { s.VU = 0 }, "vu", "at least 1"},
		{"vu too many", KindRun, func(s *Spec) { s.VU = MaxVUs + 1 }, "vu", "more than"},
		{"rampup", KindRun, func(s *Spec) { s.Rampup = Duration(-time.Second) }, "rampup", "negative"},
		{"duration", KindRun, func(s *Spec) { s.Duration = 0 }, "duration", "positive"},
		{"duration of a nanosecond", KindRun, func(s *Spec) { s.Duration = 1 }, "duration", "at least 1s"},
		{"duration under a second", KindRun, func(s *Spec) { s.Duration = Duration(999 * time.Millisecond) }, "duration", "at least 1s"},
		{"iterations negative", KindRun, func(s *Spec) { s.Iterations = -1 }, "iterations", "negative"},
		{"iterations negative, no duration", KindRun, func(s *Spec) { s.Iterations, s.Duration = -3, 0 }, "iterations", "(got -3"},
		{"interval", KindRun, func(s *Spec) { s.Interval = Duration(time.Millisecond) }, "interval", "at least 100ms"},
		{"max_retries", KindRun, func(s *Spec) { s.MaxRetries = 1000 }, "max_retries", "0..255"},
		{"isolation", KindRun, func(s *Spec) { s.Isolation = "chaos" }, "isolation", "serializable"},
		{"exec_mode", KindRun, func(s *Spec) { s.ExecMode = "fast" }, "exec_mode", "prepared or simple"},
		{"snapshot_isolation", KindRun, func(s *Spec) { s.SnapshotIsolation = "maybe" }, "snapshot_isolation", "server, on or off"},
		{"pacing", KindRun, func(s *Spec) { s.Pacing = "slow" }, "pacing", "off or spec"},
		{"pacing_scale", KindRun, func(s *Spec) { s.PacingScale = 11 }, "pacing_scale", "(0, 10]"},
		{"client_cpus", KindRun, func(s *Spec) { s.ClientCPUs = -2 }, "client_cpus", "negative"},
		{"streams", KindRun, func(s *Spec) { s.Streams = -1 }, "streams", "negative"},
		{"query_sets", KindRun, func(s *Spec) { s.QuerySets = 0 }, "query_sets", "at least 1"},
		{"analytic_streams", KindRun, func(s *Spec) { s.AnalyticStreams = -1 }, "analytic_streams", "negative"},
		{"analytic_delay", KindRun, func(s *Spec) { s.AnalyticDelay = Duration(-time.Second) }, "analytic_delay", "negative"},
		{"analytic_rampup", KindRun, func(s *Spec) { s.AnalyticRampup = Duration(-time.Second) }, "analytic_rampup", "negative"},
		{"metrics", KindRun, func(s *Spec) { s.Metrics = "yes" }, "metrics", "on or off"},
		{"metrics empty", KindRun, func(s *Spec) { s.Metrics = "" }, "metrics", `""`},
		{"metrics_rate zero", KindRun, func(s *Spec) { s.MetricsRate = 0 }, "metrics_rate", "(0, 100]"},
		{"metrics_rate negative", KindRun, func(s *Spec) { s.MetricsRate = -1 }, "metrics_rate", "(got -1)"},
		{"metrics_rate too fast", KindRun, func(s *Spec) { s.MetricsRate = 101 }, "metrics_rate", "(0, 100]"},
		{"terminals negative", KindRun, func(s *Spec) { s.Terminals = -1 }, "terminals", "0..100000"},
		{"connections over terminals", KindRun, func(s *Spec) { s.Terminals, s.Connections = 10, 20 }, "connections", "more than the 10 terminals"},
		{"rate negative", KindRun, func(s *Spec) { s.Rate = -1 }, "rate", "transactions per second"},
		{"rate and per type", KindRun, func(s *Spec) { s.Rate, s.RateByType = 10, "new_order=5" }, "rate", "not both"},
		{"rate_by_type bad", KindRun, func(s *Spec) { s.RateByType = "new_order=x" }, "rate_by_type", "TYPE=RATE"},
		{"rate paced", KindRun, func(s *Spec) { s.Rate, s.Pacing = 10, "spec" }, "pacing", "not paced"},
		{"rate with terminals", KindRun, func(s *Spec) { s.Rate, s.Terminals = 10, 5 }, "terminals", "rate run"},
		{"max_queue huge", KindRun, func(s *Spec) { s.Rate, s.MaxQueue = 10, 1<<40 }, "max_queue", "0..10000000"},
		{"max_queue closed", KindRun, func(s *Spec) { s.MaxQueue = 5 }, "max_queue", "rate run only"},
		{"latency_limit closed", KindRun, func(s *Spec) { s.LatencyLimit = Duration(time.Millisecond) }, "latency_limit", "rate run only"},
		{"latency_limit negative", KindRun, func(s *Spec) { s.Rate, s.LatencyLimit = 10, -1 }, "latency_limit", "must be in"},
		{"stages bad", KindRun, func(s *Spec) { s.Stages = "2m" }, "stages", "DURATION:TARGET"},
		{"stages short", KindRun, func(s *Spec) { s.Stages = "5s:4" }, "stages", "less than the 10s interval"},
		{"stages fractional VUs", KindRun, func(s *Spec) { s.Stages = "1m:1.5" }, "stages", "whole number"},
		{"stages iterations", KindRun, func(s *Spec) { s.Stages, s.Iterations = "1m:2", 5 }, "stages", "iteration run"},
		{"terminals iterations", KindRun, func(s *Spec) { s.Terminals, s.Iterations = 5, 5 }, "iterations", "closed-loop"},
		{"terminals segment", KindRun, func(s *Spec) { s.Terminals, s.Segment, s.RunID = 5, "0/2", "r" }, "segment", "closed-loop"},
		{"between", KindRun, func(s *Spec) { s.Between = "flush" }, "between", "vacuum"},
		{"between rebuild unconfirmed", KindRun, func(s *Spec) { s.Between = BetweenRebuild }, "confirm", "between rebuild"},
		{"scrape not http", KindRun, func(s *Spec) { s.Scrape = "file:///etc/passwd" }, "scrape", "http or https"},
		{"scrape no scheme", KindRun, func(s *Spec) { s.Scrape = "db1:9100" }, "scrape", "http or https"},
		{"scrape no host", KindRun, func(s *Spec) { s.Scrape = "http:///metrics" }, "scrape", "no host"},
		{"scrape on a build", KindBuild, func(s *Spec) { s.Scrape = "gopher://db1" }, "scrape", "e.g. http://db1:9100/metrics"},
		{"scrape password hidden", KindRun, func(s *Spec) { s.Scrape = "ftp://u:s3cret@db1/" }, "scrape", "u:xxxxx@db1"},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := New(c.kind)
			c.set(&s)
			fields := Fields(s.Validate())
			if len(fields) != 1 {
				t.Fatalf("got %d field errors %v, want one for %s", len(fields), fields, c.field)
			}
			f := fields[0]
			if f.Field != c.field || !strings.Contains(f.Msg, c.words) || !strings.HasPrefix(f.Msg, c.field) {
				t.Errorf("got {%s %q}, want field %s with a message starting with it and holding %q", f.Field, f.Msg, c.field, c.words)
			}
			if strings.Contains(f.Msg, "--") {
				t.Errorf("%q is worded as a CLI flag", f.Msg)
			}
		})
	}
}

// TestValidateOnlyTheKindsFields: a run does not care about a build's
// settings and the other way round.
func TestValidateOnlyTheKindsFields(t *testing.T) {
	b := New(KindBuild)
	b.VU, b.Duration = -1, 0
	if err := b.Validate(); err != nil {
		t.Errorf("build with bad run settings: %v", err)
	}
	r := New(KindRun)
	r.Warehouses = -1
	if err := r.Validate(); err != nil {
		t.Errorf("run with bad build settings: %v", err)
	}
	r.VU, r.Duration = 0, 0
	if n := len(Fields(r.Validate())); n != 2 {
		t.Errorf("two bad settings gave %d errors", n)
	}
}

// TestValidateIterations: an iteration run ends when its VUs are done, so
// its duration is not used (not even checked) and its ramp-up (default
// included) is ignored; a timed run still needs a duration.
func TestValidateIterations(t *testing.T) {
	for _, c := range []struct {
		name string
		set  func(*Spec)
		want []string // the fields refused
	}{
		{"defaults", func(s *Spec) { s.Iterations = 1000 }, nil},
		{"no duration", func(s *Spec) { s.Iterations, s.Duration = 1, 0 }, nil},
		{"negative duration", func(s *Spec) { s.Iterations, s.Duration = 5, Duration(-time.Second) }, nil},
		{"ramp-up given", func(s *Spec) { s.Iterations, s.Rampup = 5, Duration(time.Minute) }, nil},
		{"paced", func(s *Spec) { s.Iterations, s.Pacing, s.PacingScale = 5, "spec", 0.01 }, nil},
		{"timed without duration", func(s *Spec) { s.Duration = 0 }, []string{"duration"}},
		{"negative with a bad vu", func(s *Spec) { s.Iterations, s.VU = -1, 0 }, []string{"vu", "iterations"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := New(KindRun)
			c.set(&s)
			var got []string
			for _, f := range Fields(s.Validate()) {
				got = append(got, f.Field)
			}
			if strings.Join(got, ",") != strings.Join(c.want, ",") {
				t.Errorf("fields refused %v, want %v", got, c.want)
			}
		})
	}
	// A build ignores a run's settings, iterations included.
	b := New(KindBuild)
	b.Iterations = -1
	if err := b.Validate(); err != nil {
		t.Errorf("build with negative iterations: %v", err)
	}
	// The API body carries it by its JSON name; absent, it is a timed run.
	s, err := Decode([]byte(`{"kind":"run","iterations":250}`))
	if err != nil || s.Iterations != 250 || s.Validate() != nil {
		t.Errorf("decoded %+v, %v", s, err)
	}
	if s, _ := Decode([]byte(`{"kind":"run"}`)); s.Iterations != 0 {
		t.Errorf("iterations %d by default, want 0 (a timed run)", s.Iterations)
	}
	if _, err := Decode([]byte(`{"kind":"run","iterations":"many"}`)); len(Fields(err)) != 1 || Fields(err)[0].Field != "iterations" {
		t.Errorf("iterations \"many\": %v", err)
	}
}

func TestDecode(t *testing.T) {
	s, err := Decode([]byte(`{"kind":"run","vu":8,"rampup":"0s","duration":"2m","seed":7}`))
	if err != nil {
		t.Fatal(err)
	}
	if s.VU != 8 || s.Rampup != 0 || s.Duration.D() != 2*time.Minute || s.Seed != 7 {
		t.Errorf("decoded %+v", s)
	}
	// What the body leaves out keeps its default.
	if s.Interval.D() != DefaultInterval || s.Mode != DefaultMode || s.QuerySets != 1 ||
		s.Metrics != "on" || s.MetricsRate != DefaultMetricsRate {
		t.Errorf("defaults lost: %+v", s)
	}
	// Metrics off, and a rate the body gives, are kept.
	if s, err := Decode([]byte(`{"kind":"run","metrics":"off","metrics_rate":2.5}`)); err != nil ||
		s.Metrics != "off" || s.MetricsRate != 2.5 || s.Validate() != nil {
		t.Errorf("metrics off at 2.5/s: %+v %v", s, err)
	}
	// A scrape URL is kept; a valid one validates.
	for _, u := range []string{"http://db1:9100/metrics", "https://db1.example/metrics"} {
		s, err := Decode([]byte(`{"kind":"run","scrape":"` + u + `"}`))
		if err != nil || s.Scrape != u || s.Validate() != nil {
			t.Errorf("scrape %s: %+v %v (validate %v)", u, s, err, s.Validate())
		}
	}
	// A zero the body gives is a zero, refused as the CLI refuses --vu 0.
	s, err = Decode([]byte(`{"kind":"run","vu":0,"duration":30}`))
	if err != nil || s.VU != 0 || s.Duration.D() != 30*time.Second {
		t.Errorf("vu 0 / duration 30: %+v %v", s, err)
	}
	if f := Fields(s.Validate()); len(f) != 1 || f[0].Field != "vu" {
		t.Errorf("vu 0 validates as %v", f)
	}
	for _, c := range []struct{ body, field, says string }{
		{`{"kind":"run","vu":"two"}`, "vu", "vu: want a whole number from -9223372036854775808 to 9223372036854775807, not a JSON string"},
		{`{"kind":"run","vu":1e30}`, "vu", "vu: want a whole number from"},
		{`{"kind":"run","seed":-1}`, "seed", "seed: want a whole number from 0 to 18446744073709551615, not a JSON number -1"},
		{`{"kind":"run","rate":"fast"}`, "rate", "rate: want a number, not a JSON string"},
		{`{"kind":"run","scripts":"x.sql"}`, "scripts", "scripts: want an array of strings, not a JSON string"},
		{`{"kind":"run","duration":"forever"}`, "duration", "duration"},
		{`{"kind":"run","interval":true}`, "interval", "interval"},
		{`{"kind":"run","turbo":true}`, "turbo", "turbo"},
		{`not json`, "", ""},
		{`[]`, "", "body: want a JSON object (a job spec), not a JSON array"},
		{`"run"`, "", "body: want a JSON object (a job spec), not a JSON string"},
		{`{"kind":"run"} {"kind":"drop"}`, "", ""},
	} {
		_, err := Decode([]byte(c.body))
		fields := Fields(err)
		if err == nil || len(fields) != 1 || fields[0].Field != c.field || !strings.Contains(err.Error(), c.says) {
			t.Errorf("Decode(%s) = %v, want one error naming field %q and saying %q", c.body, err, c.field, c.says)
		}
	}
}

func TestDurationJSON(t *testing.T) {
	b, err := Duration(90 * time.Second).MarshalJSON()
	if err != nil || string(b) != `"1m30s"` {
		t.Errorf("marshal: %s %v", b, err)
	}
	var d Duration
	if err := d.UnmarshalJSON([]byte(`1.5`)); err != nil || d.D() != 1500*time.Millisecond {
		t.Errorf("seconds as a number: %v %v", d, err)
	}
}

func FuzzDecode(f *testing.F) {
	for _, seed := range []string{`{"kind":"run","vu":4}`, `{"kind":"build","warehouses":-2}`, `{}`, `[`, `{"rampup":"-3s"}`} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := Decode(b)
		if err != nil {
			if len(Fields(err)) == 0 {
				t.Errorf("Decode error %v carries no field error", err)
			}
			return
		}
		_ = s.Validate() // must not panic
	})
}

// TestValidateSegment: a segment must parse, needs a run id unless it is
// the whole run, applies to runs and builds, and must give a run's agent
// at least one VU; a run id is a short plain name.
func TestValidateSegment(t *testing.T) {
	for _, c := range []struct {
		name  string
		kind  string
		set   func(*Spec)
		field string // "" when valid
		words string
	}{
		{"whole, no run id", KindRun, func(s *Spec) { s.Segment = "" }, "", ""},
		{"0/1, no run id", KindRun, func(s *Spec) { s.Segment = "0/1" }, "", ""},
		{"0:1 on a check", KindCheck, func(s *Spec) { s.Segment = "0:1" }, "", ""},
		{"run segment", KindRun, func(s *Spec) { s.Segment, s.RunID = "1/2", "nightly-7" }, "", ""},
		{"build segment", KindBuild, func(s *Spec) { s.Segment, s.RunID = "2/3", "b.1_x" }, "", ""},
		{"fractions", KindRun, func(s *Spec) { s.Segment, s.RunID = "0.25:1/2", "r" }, "", ""},
		{"iterations", KindRun, func(s *Spec) { s.Segment, s.RunID, s.Iterations = "0/2", "r", 100 }, "", ""},
		{"run id alone", KindRun, func(s *Spec) { s.RunID = "solo" }, "", ""},
		{"bad segment", KindRun, func(s *Spec) { s.Segment, s.RunID = "3/3", "r" }, "segment", "segment 3/3: the index must be below the count (0-based)"},
		{"bad segment on a build", KindBuild, func(s *Spec) { s.Segment = "1/2:1/3" }, "segment", "the start must be below the end"},
		{"no run id", KindRun, func(s *Spec) { s.Segment = "0/2" }, "segment", "segment 0/2: needs a run id"},
		{"no run id on a build", KindBuild, func(s *Spec) { s.Segment = "1/2" }, "segment", "needs a run id"},
		{"segment on a check", KindCheck, func(s *Spec) { s.Segment = "1/2" }, "segment", "run and build jobs only, not check"},
		{"run id on a drop", KindDrop, func(s *Spec) { s.RunID, s.Confirm = "r", true }, "run_id", "run and build jobs only, not drop"},
		{"no VUs", KindRun, func(s *Spec) { s.VU, s.Segment, s.RunID = 3, "0/4", "r" }, "segment", "segment 0/4 gets no virtual users: 3 VUs over 4 segments"},
		{"no VUs of a fraction", KindRun, func(s *Spec) { s.VU, s.Segment, s.RunID = 4, "0.5:0.7", "r" }, "segment", "segment 0.5:0.7 gets no virtual users: its share of 4 VUs is empty"},
		{"run id chars", KindRun, func(s *Spec) { s.RunID = "a b" }, "run_id", `"a b": want 1 to 64 letters`},
		{"run id slash", KindRun, func(s *Spec) { s.RunID = "a/b" }, "run_id", "letters, digits"},
		{"run id long", KindRun, func(s *Spec) { s.RunID = strings.Repeat("x", 65) }, "run_id", "1 to 64"},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := New(c.kind)
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
			if f.Field != c.field || !strings.Contains(f.Msg, c.words) || !strings.HasPrefix(f.Msg, strings.ReplaceAll(c.field, "_", " ")) && !strings.HasPrefix(f.Msg, c.field) {
				t.Errorf("got {%s %q}, want field %s with a message starting with it and holding %q", f.Field, f.Msg, c.field, c.words)
			}
			if strings.Contains(f.Msg, "--") {
				t.Errorf("%q is worded as a CLI flag", f.Msg)
			}
		})
	}
	// The API body carries them by their JSON names.
	s, err := Decode([]byte(`{"kind":"run","vu":8,"segment":"1/4","run_id":"n1"}`))
	if err != nil || s.Segment != "1/4" || s.RunID != "n1" || s.Validate() != nil {
		t.Fatalf("decoded %+v, %v", s, err)
	}
	if first, n := s.MustParse().Segment.Share(s.VU); first != 2 || n != 2 {
		t.Errorf("1/4 of 8 VUs: %d+%d", first, n)
	}
	if New(KindRun).Segment != "" || New(KindRun).RunID != "" {
		t.Error("a segment or run id by default")
	}
}

func TestFieldErrorsWorded(t *testing.T) {
	t.Parallel()
	flag := func(f string) string { return "--" + strings.ReplaceAll(f, "_", "-") }
	for _, tc := range []struct {
		errs FieldErrors
		want string
	}{
		{FieldErrors{{Field: "vu", Msg: "vu must be in 1..10000 (got 0)"}}, "--vu must be in 1..10000 (got 0)"},
		{FieldErrors{{Field: "max_retries", Msg: "at most 100"}}, "--max-retries: at most 100"},
		{FieldErrors{{Msg: "body: unexpected EOF"}, {Field: "rate", Msg: "rate give one"}}, "body: unexpected EOF\n--rate give one"},
		{nil, ""},
	} {
		if got := tc.errs.Worded(flag); got != tc.want {
			t.Errorf("%v worded %q, want %q", tc.errs, got, tc.want)
		}
	}
}

func TestParseThresholds(t *testing.T) {
	t.Parallel()
	s := New(KindRun)
	s.Thresholds = []string{"nopm>=40000", " p99(new_order) < 50ms"}
	p, err := s.Parse()
	if err != nil || len(p.Thresholds) != 2 || p.Thresholds[1].Metric != "p99" || p.Thresholds[1].Name != "new_order" ||
		p.Thresholds[1].Limit != 50 || p.Thresholds[1].Unit != "ms" {
		t.Fatalf("Parse = %+v, %v", p.Thresholds, err)
	}
	cases := []struct {
		kind, th, want string
	}{
		{KindRun, "p99<50", `thresholds "p99<50": a latency needs a unit: ms, s or us`},
		{KindRun, "speed>1", `thresholds "speed>1": unknown metric "speed": want one of nopm`},
		{KindBuild, "nopm>1", "thresholds apply to run jobs only, not build"},
	}
	for _, c := range cases {
		s := New(c.kind)
		s.Thresholds = []string{"tpm>1", c.th}
		fe := Fields(s.Validate())
		if len(fe) != 1 || fe[0].Field != "thresholds" || !strings.HasPrefix(fe[0].Msg, c.want) {
			t.Errorf("%s %q: %v, want one error of thresholds starting %q", c.kind, c.th, fe, c.want)
		}
	}
}

// TestShortDurationUnusedIsNoError: the 1 s floor is for a timed run's
// window; an iteration run and a staged run do not use --duration.
func TestShortDurationUnusedIsNoError(t *testing.T) {
	t.Parallel()
	for _, edit := range []func(*Spec){
		func(s *Spec) { s.Iterations = 5; s.Rampup = 0 },
		func(s *Spec) { s.Stages = "10s:2" },
	} {
		s := New(KindRun)
		s.Duration = Duration(500 * time.Millisecond)
		edit(&s)
		if f := Fields(s.Validate()); slices.ContainsFunc(f, func(e FieldError) bool { return e.Field == "duration" }) {
			t.Errorf("%+v: %v", s, f)
		}
	}
}
