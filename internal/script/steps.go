package script

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/sledge-bench/sledge/internal/config"
)

// steprun: HammerDB's step workload. HammerDB runs its primary (vuset vu,
// rampup and duration from the dict) and starts one replica HammerDB per
// step of config/steps.xml, each with its own virtual users joining the
// primary's load for a while: replica 1 start_after_prev minutes after the
// primary's ramp-up, each next one start_after_prev minutes after the one
// before it, each running duration minutes without a ramp-up. Sledge runs
// the same load shape as one staged run: the VU count over the primary's
// measured window (the primary's VUs plus the replicas active) becomes the
// run's stages, one per span of constant load, after the primary's ramp-up
// at the primary's VUs. As in HammerDB, the replicas must end no later than
// the primary (a pyramid); otherwise nothing runs.

// StepsEnv names a directory of HammerDB's configuration files whose
// steps.xml steprun reads, before ./config/steps.xml (HammerDB too looks in
// its own config directory first, then in ./config).
const StepsEnv = "SLEDGE_HAMMERDB_CONFIG"

// replicaStep is one replica of steps.xml, its numbers as written (for the
// summary) and as read.
type replicaStep struct {
	name                    string
	startAfterText, durText string
	startAfter, duration    time.Duration
	vus                     int
}

// defaultSteps are HammerDB's own config/steps.xml, which steprun uses when
// it finds none: four replicas of 2 VUs, each starting a minute after the
// one before (the first a minute after the ramp-up), running 4, 3, 2 and 1
// minutes, so that with HammerDB's default 2-minute ramp-up and 5-minute
// duration all of them end with the primary.
func defaultSteps() []replicaStep {
	var out []replicaStep
	for i, d := range []int{4, 3, 2, 1} {
		out = append(out, replicaStep{name: "replica" + strconv.Itoa(i+1), startAfterText: "1", durText: strconv.Itoa(d),
			startAfter: time.Minute, duration: time.Duration(d) * time.Minute, vus: 2})
	}
	return out
}

// xmlNode is any XML element, for reading steps.xml by its element names.
type xmlNode struct {
	XMLName xml.Name
	Nodes   []xmlNode `xml:",any"`
	Text    string    `xml:",chardata"`
}

// parseSteps reads steps.xml: <steps> holding one element per replica (in
// the file's order, named as the file names them), each with
// start_after_prev and duration in minutes (decimals allowed, as Sledge
// allows them for rampup and duration) and virtual_users. Anything else is
// refused, naming the replica and the element.
func parseSteps(data []byte) ([]replicaStep, error) {
	var root xmlNode
	if err := xml.NewDecoder(bytes.NewReader(data)).Decode(&root); err != nil {
		return nil, fmt.Errorf("not a steps file: %v (want <steps><replica1><start_after_prev>M</start_after_prev><duration>M</duration><virtual_users>N</virtual_users></replica1>…</steps>)", err)
	}
	if root.XMLName.Local != "steps" {
		return nil, fmt.Errorf("the root element is <%s>: want <steps>", root.XMLName.Local)
	}
	var out []replicaStep
	for _, n := range root.Nodes {
		r := replicaStep{name: n.XMLName.Local}
		if slices.ContainsFunc(out, func(o replicaStep) bool { return o.name == r.name }) {
			return nil, fmt.Errorf("<%s> is given twice", r.name)
		}
		seen := map[string]string{}
		for _, f := range n.Nodes {
			name := f.XMLName.Local
			switch name {
			case "start_after_prev", "duration", "virtual_users":
			default:
				return nil, fmt.Errorf("%s: unknown element <%s> (want start_after_prev, duration and virtual_users)", r.name, name)
			}
			if _, dup := seen[name]; dup {
				return nil, fmt.Errorf("%s: <%s> is given twice", r.name, name)
			}
			if len(f.Nodes) > 0 {
				return nil, fmt.Errorf("%s: <%s> holds elements: want a number", r.name, name)
			}
			seen[name] = strings.TrimSpace(f.Text)
		}
		for _, name := range []string{"start_after_prev", "duration", "virtual_users"} {
			if _, ok := seen[name]; !ok {
				return nil, fmt.Errorf("%s: no <%s>", r.name, name)
			}
		}
		var err error
		r.startAfterText, r.durText = seen["start_after_prev"], seen["duration"]
		if r.startAfter, err = stepMinutes(r.startAfterText); err != nil || r.startAfter < 0 {
			return nil, fmt.Errorf("%s: start_after_prev %q: want minutes, 0 or more", r.name, r.startAfterText)
		}
		if r.duration, err = stepMinutes(r.durText); err != nil || r.duration <= 0 {
			return nil, fmt.Errorf("%s: duration %q: want minutes, more than 0", r.name, r.durText)
		}
		if r.vus, err = strconv.Atoi(seen["virtual_users"]); err != nil || r.vus < 1 {
			return nil, fmt.Errorf("%s: virtual_users %q: want a whole number, at least 1", r.name, seen["virtual_users"])
		}
		out = append(out, r)
	}
	return out, nil
}

// stepMinutes reads minutes, to the millisecond: the steps are added up
// and compared exactly.
func stepMinutes(text string) (time.Duration, error) {
	m, err := strconv.ParseFloat(strings.TrimSpace(text), 64)
	if err != nil || math.IsNaN(m) || math.IsInf(m, 0) || math.Abs(m) > 1e6 {
		return 0, errors.New("not minutes")
	}
	return time.Duration(math.Round(m*60000)) * time.Millisecond, nil
}

// findSteps reads the steps file: steps.xml in $SLEDGE_HAMMERDB_CONFIG
// (env.ConfigDir), else config/steps.xml in the working directory. No file:
// path "" and no error (the caller uses HammerDB's default steps).
func findSteps(env Env) (path string, data []byte, err error) {
	for _, p := range env.stepsCandidates() {
		data, err := os.ReadFile(p)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		return p, data, err
	}
	return "", nil, nil
}

// stepPlan is a step workload: the primary's ramp-up, duration and VUs,
// and its replicas.
type stepPlan struct {
	rampupText, durText string
	rampup, duration    time.Duration
	vus                 int
	replicas            []replicaStep
}

// newStepPlan takes the primary's rampup and duration in minutes, as the
// dict has them.
func newStepPlan(rampup, duration string, vus int, replicas []replicaStep) (stepPlan, error) {
	p := stepPlan{rampupText: strings.TrimSpace(rampup), durText: strings.TrimSpace(duration), vus: vus, replicas: replicas}
	var err error
	if p.rampup, err = stepMinutes(rampup); err != nil || p.rampup < 0 {
		return p, &stepKeyError{"rampup", "want minutes, 0 or more"}
	}
	if p.duration, err = stepMinutes(duration); err != nil || p.duration <= 0 {
		return p, &stepKeyError{"duration", "want minutes, more than 0 (the replicas run within the primary's test)"}
	}
	return p, nil
}

// stepKeyError is a primary's setting a step workload cannot run with.
type stepKeyError struct{ key, msg string }

func (e *stepKeyError) Error() string { return e.key + ": " + e.msg }

// starts are the replicas' start times from the run's start: the first
// start_after_prev after the primary's ramp-up, each next one that long
// after the one before.
func (p stepPlan) starts() []time.Duration {
	out := make([]time.Duration, len(p.replicas))
	t := p.rampup
	for i, r := range p.replicas {
		t += r.startAfter
		out[i] = t
	}
	return out
}

// summary describes the workload as HammerDB does before it starts it,
// one line for the primary and one per replica.
func (p stepPlan) summary() []string {
	lines := []string{fmt.Sprintf("primary starts immediately, runs rampup for %s minutes then runs test for %s minutes with %d Active VU",
		p.rampupText, p.durText, p.vus)}
	for i, r := range p.replicas {
		after := "previous replica starts"
		if i == 0 {
			after = "rampup completes"
		}
		lines = append(lines, fmt.Sprintf("%s starts %s minutes after %s and runs test for %s minutes with %d Active VU",
			r.name, r.startAfterText, after, r.durText, r.vus))
	}
	return lines
}

// overruns names each replica that would still run after the primary has
// ended: HammerDB refuses such a step workload before it starts anything.
func (p stepPlan) overruns() []string {
	var out []string
	end := p.rampup + p.duration
	for i, start := range p.starts() {
		r := p.replicas[i]
		if stop := start + r.duration; stop > end {
			out = append(out, fmt.Sprintf("%s would end %s minutes after the start, after the primary, which ends at %s minutes (rampup %s + duration %s)",
				r.name, minutesText(stop), minutesText(end), p.rampupText, p.durText))
		}
	}
	return out
}

func minutesText(d time.Duration) string {
	return strconv.FormatFloat(d.Minutes(), 'f', -1, 64)
}

// stages is the VU count over the primary's measured window, one stage per
// span of constant VUs (the primary's plus the replicas running), a span
// ending where the next begins. A span shorter than a second is refused:
// the engine's stages last a second at least.
func (p stepPlan) stages() ([]config.Stage, error) {
	begin, end := p.rampup, p.rampup+p.duration
	starts := p.starts()
	cuts := []time.Duration{begin, end}
	for i, s := range starts {
		cuts = append(cuts, s, s+p.replicas[i].duration)
	}
	slices.Sort(cuts)
	cuts = slices.Compact(cuts)
	var out []config.Stage
	for i := 0; i+1 < len(cuts); i++ {
		a, b := cuts[i], cuts[i+1]
		if a < begin || b > end {
			continue
		}
		vus := p.vus
		for j, s := range starts {
			if s <= a && a < s+p.replicas[j].duration {
				vus += p.replicas[j].vus
			}
		}
		if n := len(out); n > 0 && out[n-1].Target == float64(vus) {
			out[n-1].Duration += b - a
			continue
		}
		out = append(out, config.Stage{Duration: b - a, Target: float64(vus)})
	}
	for i, st := range out {
		if st.Duration < time.Second {
			return nil, fmt.Errorf("the steps give stage %d (%d VUs) only %s: each level of load must last a second at least", i+1, int(st.Target), st.Duration)
		}
	}
	return out, nil
}

// stepInterval is the progress interval of a staged run: the default one
// (at most) that every stage is a whole number of, so that each stage's
// end is an interval boundary; a second when the stages are not whole
// seconds.
func stepInterval(stages []config.Stage, def time.Duration) time.Duration {
	var g int64
	for _, st := range stages {
		ms := st.Duration.Milliseconds()
		if ms%1000 != 0 {
			return time.Second
		}
		g = gcd(g, ms/1000)
	}
	for k := int64(def / time.Second); k > 1; k-- {
		if g%k == 0 {
			return time.Duration(k) * time.Second
		}
	}
	return time.Second
}

func gcd(a, b int64) int64 {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// stepSpec makes vurun's spec s a step workload: the steps of steps.xml
// (HammerDB's default ones when there is none) as the run's stages. lines
// are what steprun prints before its notices: where the steps come from,
// HammerDB's summary and, for a configuration HammerDB would refuse, the
// replicas that overrun the primary ("Error: …" lines; the error returned
// then says why nothing runs).
func (h *hammer) stepSpec(s *config.Spec) (lines []string, err error) {
	if h.tpch() {
		return nil, fmt.Errorf("Step Workload does not support %s", h.st.BM)
	}
	if s.Iterations > 0 {
		return nil, fmt.Errorf("%s %s: a step workload runs the timed driver (its replicas join for minutes): %s timed",
			h.diset("driver"), h.value("driver"), h.diset("driver"))
	}
	path, data, err := h.stepsFile()
	if err != nil {
		return nil, fmt.Errorf("steprun: %v", err)
	}
	replicas := defaultSteps()
	if path == "" {
		lines = append(lines, fmt.Sprintf("Notice: steprun: no steps.xml in $%s or ./config: HammerDB's default steps "+
			"(4 replicas of 2 VUs, starting a minute apart from the end of the ramp-up, running 4, 3, 2 and 1 minutes)", StepsEnv))
	} else {
		if replicas, err = parseSteps(data); err != nil {
			return nil, fmt.Errorf("steprun: %s: %v", path, err)
		}
		lines = append(lines, "Steps from "+path)
	}
	plan, err := newStepPlan(h.value("rampup"), h.value("duration"), s.VU, replicas)
	var kerr *stepKeyError
	if errors.As(err, &kerr) {
		return lines, fmt.Errorf("steprun: %s %s: %s", h.diset(kerr.key), h.value(kerr.key), kerr.msg)
	}
	lines = append(lines, plan.summary()...)
	if over := plan.overruns(); len(over) > 0 {
		for _, o := range over {
			lines = append(lines, "Error: "+o)
		}
		return lines, errors.New("steprun: the primary must run longest, every replica ending by the time it ends (a pyramid of steps): nothing was run")
	}
	stages, err := plan.stages()
	if err != nil {
		return lines, fmt.Errorf("steprun: %v", err)
	}
	peak, firstVUs := 0, int(stages[0].Target)
	for _, st := range stages {
		peak = max(peak, int(st.Target))
	}
	unit := "VUs"
	if s.LoadModel() == config.LoadTerminals { // asynchronous clients: terminals per VU
		clients := s.Terminals / max(1, s.VU)
		for i := range stages {
			stages[i].Target *= float64(clients)
		}
		s.Terminals, s.Connections = peak*clients, peak
		unit = fmt.Sprintf("terminals, %d per VU, over %d sessions", clients, peak)
	}
	s.Stages = config.FormatStages(stages)
	s.Interval = config.Duration(stepInterval(stages, s.Interval.D()))
	line := fmt.Sprintf("Step workload as one run: rampup %s minutes, then %d stages (DURATION:%s) %s",
		plan.rampupText, len(stages), unit, s.Stages)
	if plan.rampup > 0 && firstVUs != plan.vus {
		line += fmt.Sprintf("; the ramp-up runs at the first stage's load (%d VUs: replicas start with the measured window)", firstVUs)
	}
	return append(lines, line), nil
}
