package config

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Load models: how a run offers its load (Spec.LoadModel).
const (
	// LoadClosed is closed-loop virtual users: each VU is a session that
	// runs its next transaction as soon as the last one ended (after its
	// keying and think times when paced).
	LoadClosed = "closed"
	// LoadTerminals is terminals over a pool of sessions: each terminal
	// keys and thinks on its own schedule, and a terminal that is due waits
	// for a free session; that wait is part of its response time.
	LoadTerminals = "terminals"
	// LoadRate is open-loop arrivals at a rate: transactions are scheduled
	// by a Poisson process, whatever the sessions are doing, and their
	// latency counts from the scheduled start.
	LoadRate = "rate"
)

// Defaults and bounds of the load models.
const (
	// TerminalsPerWarehouse is the specification's terminals per warehouse:
	// the default number of terminals of a paced terminal run.
	TerminalsPerWarehouse = 10
	// MaxTerminals bounds the terminals of one process.
	MaxTerminals = 100000
	// DefaultMaxQueue bounds how many scheduled transactions of a rate run
	// may wait for a session before further ones are dropped (and counted).
	DefaultMaxQueue = 100000
	// MaxMaxQueue bounds MaxQueue (a waiting arrival takes 32 bytes).
	MaxMaxQueue = 10000000
	// MaxRate bounds a rate run's transactions per second (a total of
	// rates per type, a stage's target).
	MaxRate = 1e6
	// MaxStages bounds the stages of one run.
	MaxStages = 100
)

// Between is what a series or profile does to the database between two
// trials (Spec.Between).
const (
	BetweenNone       = "none"
	BetweenVacuum     = "vacuum"
	BetweenCheckpoint = "checkpoint"
	BetweenRebuild    = "rebuild"
)

// BetweenChoices lists the values of Spec.Between.
var BetweenChoices = []string{BetweenNone, BetweenVacuum, BetweenCheckpoint, BetweenRebuild}

// LoadModel is how the spec's run offers its load: LoadRate with a rate,
// LoadTerminals with terminals or connections, else LoadClosed.
func (s Spec) LoadModel() string {
	switch {
	case s.Rate > 0 || s.RateByType != "":
		return LoadRate
	case s.Terminals > 0 || s.Connections > 0:
		return LoadTerminals
	}
	return LoadClosed
}

// MinRate is the lowest rate, in transactions per second, a rate run may
// ask for a window (or a stage) of length d: the rate at which one arrival
// is expected in it. Below it the window would most likely measure nothing,
// so such a rate is refused rather than run idle; at it, a window still
// goes without any arrival by chance (e⁻¹ of the time), which its result
// says.
func MinRate(d time.Duration) float64 {
	if d <= 0 {
		return math.Inf(1)
	}
	return 1 / d.Seconds()
}

// minRateText is MinRate(d) for a message, rounded up to three significant
// digits so that the rate it names is allowed.
func minRateText(d time.Duration) string {
	r := MinRate(d)
	if math.IsInf(r, 0) || r <= 0 {
		return strconv.FormatFloat(r, 'g', -1, 64)
	}
	unit := math.Pow(10, math.Floor(math.Log10(r))-2)
	up := math.Ceil(r/unit) * unit
	if up < r { // the product rounded below
		up += unit
	}
	return strconv.FormatFloat(up, 'g', 3, 64)
}

// Stage is one step of a run's load shape: for its duration the run offers
// Target — VUs, terminals or transactions per second, by the load model.
type Stage struct {
	Duration time.Duration
	Target   float64
}

// ParseStages reads a load shape: comma-separated DURATION:TARGET steps, as
// "2m:8,2m:16,2m:32" (k6's stages). Empty: no stages.
func ParseStages(text string) ([]Stage, error) {
	text = strings.TrimSpace(text)
	if text == "" {
		return nil, nil
	}
	var out []Stage
	var total time.Duration
	for i, part := range strings.Split(text, ",") {
		part = strings.TrimSpace(part)
		d, t, ok := strings.Cut(part, ":")
		if !ok {
			return nil, fmt.Errorf("step %d %q: want DURATION:TARGET, e.g. 2m:8", i+1, part)
		}
		dur, err := time.ParseDuration(strings.TrimSpace(d))
		if err != nil || dur < time.Second {
			return nil, fmt.Errorf("step %d %q: the duration must be at least 1s (e.g. 2m, 90s)", i+1, part)
		}
		target, err := strconv.ParseFloat(strings.TrimSpace(t), 64)
		if err != nil || !(target > 0) || math.IsInf(target, 0) {
			return nil, fmt.Errorf("step %d %q: the target must be a positive number (VUs, terminals or transactions per second)", i+1, part)
		}
		if dur > MaxTime-total {
			return nil, fmt.Errorf("last more than %s together: at most that", MaxTime)
		}
		total += dur
		out = append(out, Stage{Duration: dur, Target: target})
	}
	if len(out) > MaxStages {
		return nil, fmt.Errorf("%d stages: at most %d", len(out), MaxStages)
	}
	return out, nil
}

// FormatStages writes stages as ParseStages reads them.
func FormatStages(stages []Stage) string {
	parts := make([]string, len(stages))
	for i, st := range stages {
		parts[i] = st.Duration.String() + ":" + strconv.FormatFloat(st.Target, 'g', -1, 64)
	}
	return strings.Join(parts, ",")
}

// StagesDuration is the stages' total duration: the measured window of a
// staged run.
func StagesDuration(stages []Stage) time.Duration {
	var d time.Duration
	for _, st := range stages {
		d += st.Duration
	}
	return d
}

// ParseRate reads --rate: a total rate in transactions per second ("200"),
// or per transaction type ("new_order=90,payment=90,delivery=9"). One of
// the two results is set.
func ParseRate(text string) (total float64, byType map[string]float64, err error) {
	text = strings.TrimSpace(text)
	if text == "" {
		return 0, nil, nil
	}
	if !strings.Contains(text, "=") {
		v, err := strconv.ParseFloat(text, 64)
		if err != nil || !(v > 0) || v > MaxRate {
			return 0, nil, fmt.Errorf("%q: want transactions per second, in (0, %g], or TYPE=RATE,… per transaction type", text, float64(MaxRate))
		}
		return v, nil, nil
	}
	byType = map[string]float64{}
	for _, part := range strings.Split(text, ",") {
		name, v, ok := strings.Cut(strings.TrimSpace(part), "=")
		rate, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		if !ok || strings.TrimSpace(name) == "" || err != nil || !(rate > 0) || rate > MaxRate {
			return 0, nil, fmt.Errorf("%q: want TYPE=RATE with a rate in (0, %g] transactions per second, e.g. new_order=90", part, float64(MaxRate))
		}
		byType[strings.TrimSpace(name)] = rate
	}
	return 0, byType, nil
}

// SetRate sets the spec's rate from text as ParseRate reads it: a total
// rate (Rate) or rates per type (RateByType); text "" sets neither and
// keeps what the spec has.
func (s *Spec) SetRate(text string) error {
	if text == "" {
		return nil
	}
	total, byType, err := ParseRate(text)
	if err != nil {
		return err
	}
	s.Rate, s.RateByType = total, ""
	if byType != nil {
		s.RateByType = FormatRateByType(byType)
	}
	return nil
}

// FormatRateByType writes a per-type rate as ParseRate reads it, the types
// sorted.
func FormatRateByType(byType map[string]float64) string {
	names := make([]string, 0, len(byType))
	for n := range byType {
		names = append(names, n)
	}
	sort.Strings(names)
	parts := make([]string, len(names))
	for i, n := range names {
		parts[i] = n + "=" + strconv.FormatFloat(byType[n], 'g', -1, 64)
	}
	return strings.Join(parts, ",")
}

// checkLoad checks the load model's settings of a run, reading its rates
// and stages into p.
func (s Spec) checkLoad(p *Plan) FieldErrors {
	var errs FieldErrors
	add := func(cond bool, field, format string, args ...any) {
		if cond {
			errs = append(errs, fieldErr(field, format, args...))
		}
	}
	add(s.Terminals < 0 || s.Terminals > MaxTerminals, "terminals", "must be in 0..%d (got %d)", MaxTerminals, s.Terminals)
	add(s.Connections < 0 || s.Connections > MaxVUs, "connections", "must be in 0..%d (got %d)", MaxVUs, s.Connections)
	add(s.Terminals > 0 && s.Connections > s.Terminals, "connections",
		"%d is more than the %d terminals: a session no terminal can use is never used", s.Connections, s.Terminals)
	// NaN and ±Inf are out of range too (a Go or script caller can give
	// them): a NaN rate would otherwise read as no rate at all.
	add(!(s.Rate == 0 || s.Rate > 0 && s.Rate <= MaxRate), "rate", "must be in (0, %g] transactions per second (got %g)", float64(MaxRate), s.Rate)
	add(s.Rate > 0 && s.RateByType != "", "rate", "give either a total rate or rates per type, not both")
	if s.RateByType != "" {
		_, byType, err := ParseRate(s.RateByType)
		if err != nil || byType == nil {
			msg := "want TYPE=RATE,… (e.g. new_order=90,payment=90)"
			if err != nil {
				msg = err.Error()
			}
			errs = append(errs, fieldErr("rate_by_type", "%s", msg))
		}
		p.RateByType = byType
		if total := p.TotalRate(); byType != nil && total > MaxRate {
			errs = append(errs, fieldErr("rate_by_type", "adds up to %g transactions per second: at most %g", total, float64(MaxRate)))
		}
	}
	add(s.MaxQueue < 0 || s.MaxQueue > MaxMaxQueue, "max_queue", "must be in 0..%d (got %d; 0 is the default, %d)", MaxMaxQueue, s.MaxQueue, DefaultMaxQueue)
	add(!oneOf(s.Between, "", BetweenNone, BetweenVacuum, BetweenCheckpoint, BetweenRebuild), "between",
		"%q: want %s", s.Between, strings.Join(BetweenChoices, ", "))
	add(s.Between == BetweenRebuild && !s.Confirm, "confirm",
		"must be true for between rebuild: it drops the schema and builds it again between trials")
	model := s.LoadModel()
	if model == LoadRate {
		add(s.Terminals > 0, "terminals", "does not apply to a rate run: its transactions arrive at the rate, not from terminals")
		add(s.Pacing == "spec", "pacing", "spec: a rate run is not paced by keying and think times; its arrivals are")
	}
	if model != LoadClosed && s.Iterations > 0 {
		errs = append(errs, fieldErr("iterations", "applies to closed-loop VUs only, not to a %s run", model))
	}
	if model != LoadRate {
		add(s.MaxQueue > 0, "max_queue", "applies to a rate run only (with a rate)")
		add(s.LatencyLimit > 0, "latency_limit", "applies to a rate run only (with a rate)")
	}
	add(s.LatencyLimit < 0 || s.LatencyLimit.D() > MaxTime, "latency_limit", "must be in 0..%s (got %s; 0 is none)", MaxTime, s.LatencyLimit)
	stages, err := ParseStages(s.Stages)
	if err != nil {
		errs = append(errs, FieldError{Field: "stages", Msg: "stages " + err.Error()})
	}
	p.Stages = stages
	if len(stages) > 0 {
		add(s.Iterations > 0, "stages", "do not apply to an iteration run: it has no timed window")
		add(model == LoadRate && s.RateByType != "", "stages", "of a rate run are total rates: give the rate as one number, not per type")
		for i, st := range stages {
			whole := st.Target == math.Trunc(st.Target)
			switch model {
			case LoadClosed:
				add(!whole || st.Target > MaxVUs, "stages", "stage %d: %g VUs: want a whole number up to %d", i+1, st.Target, MaxVUs)
			case LoadTerminals:
				add(!whole || st.Target > MaxTerminals, "stages", "stage %d: %g terminals: want a whole number up to %d", i+1, st.Target, MaxTerminals)
			case LoadRate:
				add(st.Target > MaxRate, "stages", "stage %d: %g transactions per second: at most %g", i+1, st.Target, float64(MaxRate))
				add(st.Target < MinRate(st.Duration), "stages",
					"stage %d: %g transactions per second expects %.2g arrivals in its %s: want at least %s per second (one arrival expected in the stage)",
					i+1, st.Target, st.Target*st.Duration.Seconds(), st.Duration, minRateText(st.Duration))
			}
			add(st.Duration < time.Duration(s.Interval) && s.Interval > 0, "stages",
				"stage %d lasts %s, less than the %s interval: every stage needs an interval of its own", i+1, st.Duration, s.Interval)
		}
	}
	errs = append(errs, s.checkMinRate(p, model, stages)...)
	if model != LoadClosed || len(stages) > 0 {
		if !p.Segment.IsWhole() {
			errs = append(errs, fieldErr("segment", "%s: a run split over several agents runs closed-loop VUs without stages", s.Segment))
		}
	}
	return errs
}

// checkMinRate refuses an unstaged rate run's rate below MinRate of its
// window (a staged run's stages are checked one by one).
func (s Spec) checkMinRate(p *Plan, model string, stages []Stage) FieldErrors {
	if model != LoadRate || len(stages) > 0 || s.Iterations != 0 || s.Duration <= 0 {
		return nil
	}
	total := p.TotalRate()
	if !(total > 0 && total <= MaxRate) || total >= MinRate(s.Duration.D()) {
		return nil // out of range (said above), or enough
	}
	want := fmt.Sprintf("expects %.2g arrivals in the %s measured window: want at least %s transactions per second (one arrival expected in the window), or a longer duration",
		total*s.Duration.D().Seconds(), s.Duration, minRateText(s.Duration.D()))
	if p.RateByType != nil {
		return FieldErrors{fieldErr("rate_by_type", "adds up to %g transactions per second, which %s", total, want)}
	}
	return FieldErrors{fieldErr("rate", "%g %s", total, want)}
}
