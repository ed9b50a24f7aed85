package config

import (
	"testing"
)

// TestParseReadsTypedSettings: Parse reads the text settings once into the
// plan's typed values, and the plan's derived figures follow from them.
func TestParseReadsTypedSettings(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name     string
		set      func(*Spec)
		model    string
		stages   int
		sessions int
		rate     float64
		byType   int
		whole    bool
	}{
		{"closed", func(s *Spec) {}, LoadClosed, 0, 4, 0, 0, true},
		{"closed staged", func(s *Spec) { s.Stages = "1m:2, 30s:8" }, LoadClosed, 2, 8, 0, 0, true},
		{"terminals", func(s *Spec) { s.Terminals, s.Connections = 40, 5 }, LoadTerminals, 0, 5, 0, 0, true},
		{"rate", func(s *Spec) { s.Rate, s.Connections = 250, 6 }, LoadRate, 0, 6, 250, 0, true},
		{"rate by type", func(s *Spec) { s.RateByType = "new_order=90,payment=10" }, LoadRate, 0, 4, 100, 2, true},
		{"iterations", func(s *Spec) { s.Iterations = 10 }, LoadClosed, 0, 4, 0, 0, true},
		{"segment", func(s *Spec) { s.Segment, s.RunID = "1/2", "r" }, LoadClosed, 0, 4, 0, 0, false},
	}
	for _, c := range cases {
		s := New(KindRun)
		c.set(&s)
		p, err := s.Parse()
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if p.Model != c.model || len(p.Stages) != c.stages || p.Sessions() != c.sessions ||
			p.TotalRate() != c.rate || len(p.RateByType) != c.byType || p.Segment.IsWhole() != c.whole {
			t.Errorf("%s: model %s, %d stages, %d sessions, rate %g (%d types), whole %v", c.name,
				p.Model, len(p.Stages), p.Sessions(), p.TotalRate(), len(p.RateByType), p.Segment.IsWhole())
		}
		if p.Spec.Stages != s.Stages || p.Spec.Segment != s.Segment {
			t.Errorf("%s: the plan lost the text as given", c.name)
		}
	}
	// An invalid spec: the error, and what did parse.
	s := New(KindRun)
	s.Stages, s.Segment, s.RunID = "2m", "0/2", "r"
	p, err := s.Parse()
	if fe := Fields(err); len(fe) != 1 || fe[0].Field != "stages" || p.Stages != nil || p.Segment.IsWhole() {
		t.Errorf("bad stages: %v; plan stages %v, segment %s", err, p.Stages, p.Segment)
	}
}
