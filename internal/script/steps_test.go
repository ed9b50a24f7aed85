package script

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/sledge-bench/sledge/internal/config"
	"github.com/sledge-bench/sledge/internal/jobs"
)

// hammerDBDefaultSteps is HammerDB 6's config/steps.xml as it ships (the
// layout of its documentation's step testing section).
const hammerDBDefaultSteps = `<steps>
	<replica1>
		<start_after_prev>1</start_after_prev>
		<duration>4</duration>
		<virtual_users>2</virtual_users>
	</replica1>
	<replica2>
		<start_after_prev>1</start_after_prev>
		<duration>3</duration>
		<virtual_users>2</virtual_users>
	</replica2>
	<replica3>
		<start_after_prev>1</start_after_prev>
		<duration>2</duration>
		<virtual_users>2</virtual_users>
	</replica3>
	<replica4>
		<start_after_prev>1</start_after_prev>
		<duration>1</duration>
		<virtual_users>2</virtual_users>
	</replica4>
</steps>
`

// steps.xml is read by element names, in the file's order; anything else
// is refused with the replica and the element named.
func TestParseSteps(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, xml string
		want      []replicaStep
		err       string
	}{
		{"HammerDB's default file", hammerDBDefaultSteps, defaultSteps(), ""},
		{"decimals, any order, any names", `<?xml version="1.0"?>
<steps><warmup><virtual_users>3</virtual_users><duration> 0.5 </duration><start_after_prev>0.25</start_after_prev></warmup>
<peak><start_after_prev>0</start_after_prev><duration>1</duration><virtual_users>10</virtual_users></peak></steps>`,
			[]replicaStep{
				{name: "warmup", startAfterText: "0.25", durText: "0.5", startAfter: 15 * time.Second, duration: 30 * time.Second, vus: 3},
				{name: "peak", startAfterText: "0", durText: "1", startAfter: 0, duration: time.Minute, vus: 10},
			}, ""},
		{"no replicas", `<steps/>`, nil, ""},
		{"malformed XML", `<steps><replica1><duration>4</replica1></steps>`, nil, "not a steps file: XML syntax error"},
		{"not XML", `replica1 1 4 2`, nil, "not a steps file: EOF"},
		{"another root", `<connpool><replica1/></connpool>`, nil, "the root element is <connpool>: want <steps>"},
		{"a missing element", `<steps><replica1><start_after_prev>1</start_after_prev><duration>4</duration></replica1></steps>`,
			nil, "replica1: no <virtual_users>"},
		{"an unknown element", `<steps><replica1><start_after>1</start_after></replica1></steps>`,
			nil, "replica1: unknown element <start_after> (want start_after_prev, duration and virtual_users)"},
		{"a replica twice", `<steps><r><start_after_prev>1</start_after_prev><duration>4</duration><virtual_users>2</virtual_users></r>` +
			`<r><start_after_prev>1</start_after_prev><duration>4</duration><virtual_users>2</virtual_users></r></steps>`,
			nil, "<r> is given twice"},
		{"minutes that are not", `<steps><replica1><start_after_prev>one</start_after_prev><duration>4</duration><virtual_users>2</virtual_users></replica1></steps>`,
			nil, `replica1: start_after_prev "one": want minutes, 0 or more`},
		{"no duration", `<steps><replica1><start_after_prev>1</start_after_prev><duration>0</duration><virtual_users>2</virtual_users></replica1></steps>`,
			nil, `replica1: duration "0": want minutes, more than 0`},
		{"VUs that are not whole", `<steps><replica1><start_after_prev>1</start_after_prev><duration>4</duration><virtual_users>2.5</virtual_users></replica1></steps>`,
			nil, `replica1: virtual_users "2.5": want a whole number, at least 1`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := parseSteps([]byte(tc.xml))
			if tc.err != "" {
				if err == nil || !strings.HasPrefix(err.Error(), tc.err) {
					t.Fatalf("error %v, want %q…", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("steps\n%+v\nwant\n%+v", got, tc.want)
			}
		})
	}
}

func mustSteps(t *testing.T, xml string) []replicaStep {
	t.Helper()
	r, err := parseSteps([]byte(xml))
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func replicasXML(rs ...string) string {
	var b strings.Builder
	b.WriteString("<steps>")
	for i, r := range rs {
		f := strings.Fields(r)
		name := "replica" + string(rune('1'+i))
		b.WriteString("<" + name + "><start_after_prev>" + f[0] + "</start_after_prev><duration>" + f[1] +
			"</duration><virtual_users>" + f[2] + "</virtual_users></" + name + ">")
	}
	b.WriteString("</steps>")
	return b.String()
}

// The VU count over the primary's measured window becomes the stages: one
// per span of constant load; a pyramid that overruns the primary is
// refused, naming each replica that would.
func TestStepStages(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name             string
		rampup, duration string
		vus              int
		steps            []replicaStep
		stages           string
		overruns         []string
		err              string
	}{
		{name: "HammerDB's default: every replica ends with the primary", rampup: "2", duration: "5", vus: 2, steps: defaultSteps(),
			stages: "1m0s:2,1m0s:4,1m0s:6,1m0s:8,1m0s:10"},
		{name: "replicas that end early", rampup: "1", duration: "10", vus: 4,
			steps:  mustSteps(t, replicasXML("2 3 2", "1 6 3")),
			stages: "2m0s:4,1m0s:6,2m0s:9,4m0s:7,1m0s:4"},
		{name: "equal levels are one stage", rampup: "0", duration: "4", vus: 1,
			steps:  mustSteps(t, replicasXML("1 1 2", "1 1 2")),
			stages: "1m0s:1,2m0s:3,1m0s:1"},
		{name: "replicas together from the start of the window", rampup: "0.5", duration: "2", vus: 2,
			steps:  mustSteps(t, replicasXML("0 2 1", "0 1 5")),
			stages: "1m0s:8,1m0s:3"},
		{name: "no replicas: one level", rampup: "0", duration: "3", vus: 4, stages: "3m0s:4"},
		{name: "fractions of minutes", rampup: "0", duration: "0.2", vus: 1,
			steps:  mustSteps(t, replicasXML("0.05 0.1 2", "0.05 0.05 1")),
			stages: "3s:1,3s:3,3s:4,3s:1"},
		{name: "overrun by the default steps", rampup: "0", duration: "0.05", vus: 1, steps: defaultSteps(),
			overruns: []string{
				"replica1 would end 5 minutes after the start, after the primary, which ends at 0.05 minutes (rampup 0 + duration 0.05)",
				"replica2 would end 5 minutes after the start, after the primary, which ends at 0.05 minutes (rampup 0 + duration 0.05)",
				"replica3 would end 5 minutes after the start, after the primary, which ends at 0.05 minutes (rampup 0 + duration 0.05)",
				"replica4 would end 5 minutes after the start, after the primary, which ends at 0.05 minutes (rampup 0 + duration 0.05)",
			}},
		{name: "one replica overruns", rampup: "2", duration: "5", vus: 2, steps: mustSteps(t, replicasXML("1 4 2", "1 4 2")),
			overruns: []string{"replica2 would end 8 minutes after the start, after the primary, which ends at 7 minutes (rampup 2 + duration 5)"}},
		{name: "a stage under a second", rampup: "0", duration: "1", vus: 1, steps: mustSteps(t, replicasXML("0.001 0.5 1")),
			err: "the steps give stage 1 (1 VUs) only 60ms: each level of load must last a second at least"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := newStepPlan(tc.rampup, tc.duration, tc.vus, tc.steps)
			if err != nil {
				t.Fatal(err)
			}
			if got := p.overruns(); !reflect.DeepEqual(got, tc.overruns) {
				t.Errorf("overruns\n%q\nwant\n%q", got, tc.overruns)
			}
			if tc.overruns != nil {
				return
			}
			stages, err := p.stages()
			if tc.err != "" {
				if err == nil || err.Error() != tc.err {
					t.Fatalf("error %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := config.FormatStages(stages); got != tc.stages {
				t.Errorf("stages %s, want %s", got, tc.stages)
			}
			if _, err := config.ParseStages(config.FormatStages(stages)); err != nil {
				t.Errorf("the spec refuses the stages: %v", err)
			}
			var sum time.Duration
			for _, st := range stages {
				sum += st.Duration
			}
			if sum != p.duration {
				t.Errorf("the stages last %s, the primary's test %s", sum, p.duration)
			}
		})
	}
	if _, err := newStepPlan("2", "0", 1, nil); err == nil {
		t.Error("a primary without a test: no error")
	}
}

// HammerDB's summary lines, before anything runs.
func TestStepSummary(t *testing.T) {
	t.Parallel()
	p, err := newStepPlan("2", "5", 2, defaultSteps())
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"primary starts immediately, runs rampup for 2 minutes then runs test for 5 minutes with 2 Active VU",
		"replica1 starts 1 minutes after rampup completes and runs test for 4 minutes with 2 Active VU",
		"replica2 starts 1 minutes after previous replica starts and runs test for 3 minutes with 2 Active VU",
		"replica3 starts 1 minutes after previous replica starts and runs test for 2 minutes with 2 Active VU",
		"replica4 starts 1 minutes after previous replica starts and runs test for 1 minutes with 2 Active VU",
	}
	if got := p.summary(); !reflect.DeepEqual(got, want) {
		t.Errorf("summary\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// Every stage is a whole number of intervals where it can be.
func TestStepInterval(t *testing.T) {
	t.Parallel()
	st := func(ds ...time.Duration) []config.Stage {
		var out []config.Stage
		for _, d := range ds {
			out = append(out, config.Stage{Duration: d, Target: 1})
		}
		return out
	}
	for _, tc := range []struct {
		stages []config.Stage
		want   time.Duration
	}{
		{st(time.Minute, 2*time.Minute), 10 * time.Second},
		{st(3 * time.Second), 3 * time.Second},
		{st(6*time.Second, 9*time.Second), 3 * time.Second},
		{st(7 * time.Second), 7 * time.Second},
		{st(14 * time.Second), 7 * time.Second},
		{st(90*time.Second, 13*time.Second), time.Second},
		{st(1500 * time.Millisecond), time.Second},
	} {
		if got := stepInterval(tc.stages, 10*time.Second); got != tc.want {
			t.Errorf("%v: interval %s, want %s", tc.stages, got, tc.want)
		}
	}
}

// steprun's spec is vurun's with the steps as its stages; the lines say
// where the steps came from and what runs.
func TestStepSpec(t *testing.T) {
	t.Parallel()
	file := func(path, xml string, err error) func() (string, []byte, error) {
		return func() (string, []byte, error) { return path, []byte(xml), err }
	}
	for _, tc := range []struct {
		name  string
		st    *State
		steps func() (string, []byte, error)
		check func(t *testing.T, s config.Spec)
		lines []string // each a prefix of a line, in order
		err   string
	}{
		{name: "no steps.xml: HammerDB's default steps", st: state("pg", "TPROC-C", "2"), steps: file("", "", nil),
			check: func(t *testing.T, s config.Spec) {
				if s.Stages != "1m0s:2,1m0s:4,1m0s:6,1m0s:8,1m0s:10" || s.VU != 2 || s.Rampup != minutes(2) || s.Duration != minutes(5) ||
					s.Interval != config.Duration(10*time.Second) || s.LoadModel() != config.LoadClosed {
					t.Errorf("spec %+v", s)
				}
			},
			lines: []string{"Notice: steprun: no steps.xml in $SLEDGE_HAMMERDB_CONFIG or ./config: HammerDB's default steps",
				"primary starts immediately, runs rampup for 2 minutes then runs test for 5 minutes with 2 Active VU",
				"replica1 starts 1 minutes after rampup completes", "replica2 starts", "replica3 starts", "replica4 starts",
				"Step workload as one run: rampup 2 minutes, then 5 stages (DURATION:VUs) 1m0s:2,1m0s:4,1m0s:6,1m0s:8,1m0s:10"}},
		{name: "a steps file, fractions of minutes", st: state("maria", "TPROC-C", "1", "tpcc.maria_rampup", "0.05", "tpcc.maria_duration", "0.2"),
			steps: file("config/steps.xml", replicasXML("0.05 0.1 2", "0.05 0.05 1"), nil),
			check: func(t *testing.T, s config.Spec) {
				if s.Stages != "3s:1,3s:3,3s:4,3s:1" || s.Interval != config.Duration(3*time.Second) || s.Rampup != minutes(0.05) {
					t.Errorf("spec %+v", s)
				}
			},
			lines: []string{"Steps from config/steps.xml", "primary starts immediately, runs rampup for 0.05 minutes then runs test for 0.2 minutes with 1 Active VU",
				"replica1 starts 0.05 minutes after rampup completes and runs test for 0.1 minutes with 2 Active VU",
				"replica2 starts 0.05 minutes after previous replica starts and runs test for 0.05 minutes with 1 Active VU",
				"Step workload as one run: rampup 0.05 minutes, then 4 stages (DURATION:VUs) 3s:1,3s:3,3s:4,3s:1"}},
		{name: "asynchronous clients: terminals by stage over the largest stage's VUs",
			st:    state("pg", "TPROC-C", "2", "tpcc.pg_keyandthink", "true", "tpcc.pg_async_scale", "true", "tpcc.pg_async_client", "5"),
			steps: file("", "", nil),
			check: func(t *testing.T, s config.Spec) {
				if s.Stages != "1m0s:10,1m0s:20,1m0s:30,1m0s:40,1m0s:50" || s.Terminals != 50 || s.Connections != 10 || s.Pacing != "spec" {
					t.Errorf("spec %+v", s)
				}
			},
			lines: []string{"Notice: steprun", "primary starts", "replica1", "replica2", "replica3", "replica4",
				"Step workload as one run: rampup 2 minutes, then 5 stages (DURATION:terminals, 5 per VU, over 10 sessions) 1m0s:10,"}},
		{name: "overrun: nothing runs", st: state("pg", "TPROC-C", "1", "tpcc.pg_rampup", "0", "tpcc.pg_duration", "0.05"), steps: file("", "", nil),
			lines: []string{"Notice: steprun", "primary starts immediately, runs rampup for 0 minutes then runs test for 0.05 minutes with 1 Active VU",
				"replica1", "replica2", "replica3", "replica4",
				"Error: replica1 would end 5 minutes after the start, after the primary, which ends at 0.05 minutes (rampup 0 + duration 0.05)",
				"Error: replica2", "Error: replica3", "Error: replica4"},
			err: "steprun: the primary must run longest, every replica ending by the time it ends (a pyramid of steps): nothing was run"},
		{name: "malformed steps.xml", st: state("pg", "TPROC-C", "1"), steps: file("/etc/hdb/steps.xml", "<steps><replica1>", nil),
			err: "steprun: /etc/hdb/steps.xml: not a steps file: XML syntax error on line 1: unexpected EOF (want <steps><replica1><start_after_prev>M" +
				"</start_after_prev><duration>M</duration><virtual_users>N</virtual_users></replica1>…</steps>)"},
		{name: "an unreadable steps.xml", st: state("pg", "TPROC-C", "1"), steps: file("config/steps.xml", "", errors.New("read config/steps.xml: is a directory")),
			err: "steprun: read config/steps.xml: is a directory"},
		{name: "the test driver", st: state("pg", "TPROC-C", "1", "tpcc.pg_driver", "test"), steps: file("", "", nil),
			err: "diset tpcc pg_driver test: a step workload runs the timed driver (its replicas join for minutes): diset tpcc pg_driver timed"},
		{name: "a primary without a test", st: state("pg", "TPROC-C", "1", "tpcc.pg_duration", "0"), steps: file("", "", nil),
			lines: []string{"Notice: steprun: no steps.xml"},
			err:   "steprun: diset tpcc pg_duration 0: want minutes, more than 0 (the replicas run within the primary's test)"},
		{name: "TPROC-H", st: state("pg", "TPROC-H", "1"), steps: file("", "", nil), err: "Step Workload does not support TPROC-H"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h, err := newHammer(tc.st, Env{})
			if err != nil {
				t.Fatal(err)
			}
			h.stepsFile = tc.steps
			s, err := h.spec("steprun")
			if tc.err != "" {
				if err == nil || err.Error() != tc.err {
					t.Fatalf("error %v, want %q", err, tc.err)
				}
			} else if err != nil {
				t.Fatal(err)
			}
			if len(h.lines) != len(tc.lines) {
				t.Fatalf("lines\n%s\nwant %d", strings.Join(h.lines, "\n"), len(tc.lines))
			}
			for i, l := range tc.lines {
				if !strings.HasPrefix(h.lines[i], l) {
					t.Errorf("line %d %q, want %q…", i+1, h.lines[i], l)
				}
			}
			if tc.check != nil && err == nil {
				tc.check(t, s)
				if verr := s.Validate(); verr != nil {
					t.Errorf("the spec is not valid: %v", verr)
				}
			}
		})
	}
}

// steps.xml is found in $SLEDGE_HAMMERDB_CONFIG first (as HammerDB looks in
// its own config directory first), then in ./config.
func TestFindSteps(t *testing.T) {
	t.Parallel()
	work, dir := t.TempDir(), t.TempDir()
	env := Env{ConfigDir: dir, WorkDir: work}
	if p, _, err := findSteps(env); p != "" || err != nil {
		t.Fatalf("nothing to find: %q %v", p, err)
	}
	if err := os.Mkdir(filepath.Join(work, "config"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(work, "config", "steps.xml"), []byte("<steps/>"), 0o644); err != nil {
		t.Fatal(err)
	}
	if p, data, err := findSteps(env); p != filepath.Join(work, "config", "steps.xml") || string(data) != "<steps/>" || err != nil {
		t.Errorf("./config: %q %q %v", p, data, err)
	}
	if err := os.WriteFile(filepath.Join(dir, "steps.xml"), []byte("<steps></steps>"), 0o644); err != nil {
		t.Fatal(err)
	}
	if p, _, err := findSteps(env); p != filepath.Join(dir, "steps.xml") || err != nil {
		t.Errorf("$%s: %q %v", StepsEnv, p, err)
	}
}

// A run of paced terminals, a whole number per session, recorded without
// HammerDB's settings reads back as HammerDB's asynchronous clients.
func TestDerivedDictAsyncClients(t *testing.T) {
	t.Parallel()
	j := jobs.Job{Kind: jobs.KindRun, Workload: "tprocc", DBKind: "postgres", Target: "postgres://u@db1:5432/tpcc"}
	for _, tc := range []struct {
		cfg         map[string]string
		scale, cl   string
		description string
	}{
		{map[string]string{"load_model": "terminals", "terminals": "60", "connections": "3", "pacing": "spec"}, "true", "20", "paced, 20 per session"},
		{map[string]string{"load_model": "terminals", "terminals": "7", "connections": "3", "pacing": "spec"}, "", "", "not a whole number per session"},
		{map[string]string{"load_model": "terminals", "terminals": "60", "connections": "3", "pacing": "off"}, "", "", "unpaced"},
		{map[string]string{"load_model": "closed", "pacing": "spec"}, "", "", "closed-loop"},
	} {
		d := derivedDict(j, tc.cfg)["tpcc"]
		if d["pg_async_scale"] != tc.scale || d["pg_async_client"] != tc.cl {
			t.Errorf("%s: async_scale %q, async_client %q", tc.description, d["pg_async_scale"], d["pg_async_client"])
		}
	}
}
