package config

import "github.com/sledge-bench/sledge/internal/threshold"

// Plan is a job as the job service runs it: a spec whose text settings
// have been read, once, into typed values. Front ends fill a Spec (flags, a
// JSON body, a HammerDB script's settings); the service parses it
// (Spec.Parse) and hands the Plan down to the workload and the engine,
// which never parse a setting again.
//
// Stages, Segment and RateByType are the typed forms of the Spec's fields
// of the same names, which they shadow: p.Spec.Stages is the text as the
// front end gave it, p.Stages what it says.
type Plan struct {
	Spec
	// Model is the run's load model (LoadClosed, LoadTerminals or LoadRate).
	Model string
	// Stages is the run's load shape (nil: one level for Duration).
	Stages []Stage
	// Segment is this process's share of the run (the zero Segment: all).
	Segment Segment
	// RateByType is a rate run's rate per transaction type (nil: Rate is a
	// total rate).
	RateByType map[string]float64
	// Thresholds are a run's criteria, as read from Spec.Thresholds.
	Thresholds []threshold.Threshold
}

// TotalRate is a rate run's transactions per second: Rate, or the sum of
// the rates per type.
func (p Plan) TotalRate() float64 {
	if p.RateByType == nil {
		return p.Rate
	}
	var total float64
	for _, v := range p.RateByType {
		total += v
	}
	return total
}

// Sessions is how many database sessions a run of the plan opens: the
// connections of a terminal or rate run (the VUs when none are given),
// else the VUs (of the largest stage when staged).
func (p Plan) Sessions() int {
	if p.Model != LoadClosed {
		if p.Connections > 0 {
			return p.Connections
		}
		return p.VU
	}
	n := p.VU
	for _, st := range p.Stages {
		n = max(n, int(st.Target))
	}
	return n
}

// Parse checks every setting the kind uses, as Validate does, and reads the
// text settings into a Plan. On error (FieldErrors) the plan still holds
// what did parse — what failed is left zero — so that a workload's own
// rules can be added to the spec's.
func (s Spec) Parse() (Plan, error) {
	p := Plan{Spec: s, Model: s.LoadModel()}
	errs := s.check(&p)
	if len(errs) == 0 {
		return p, nil
	}
	return p, errs
}

// Validate checks every setting the kind uses and returns FieldErrors (nil
// when the spec is valid). Workload-specific rules are added by the
// workload (workload.Validator); the target is parsed by the job service.
func (s Spec) Validate() error {
	_, err := s.Parse()
	return err
}

// MustParse is Parse for a spec known to be valid (tests, and specs Sledge
// builds itself): it panics on an invalid one.
func (s Spec) MustParse() Plan {
	p, err := s.Parse()
	if err != nil {
		panic("config: MustParse of an invalid spec: " + err.Error())
	}
	return p
}
