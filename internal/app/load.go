package app

import (
	"strconv"

	"github.com/sledge-bench/sledge/internal/config"
	"github.com/sledge-bench/sledge/internal/engine"
)

// terminalRun is a prepared run that resolves its load model's workload
// defaults: the terminals of a terminal run (TPROC-C: 10 per warehouse
// when paced) and a rate run's rate per transaction type.
type terminalRun interface {
	Terminals() int
	RateByType() []float64
}

// setLoad sets the engine's load model from the spec: terminals over a
// pool, arrivals at a rate, stages.
func setLoad(cfg *engine.Config, sp config.Spec, run any) {
	tr, _ := run.(terminalRun)
	switch sp.LoadModel() {
	case config.LoadTerminals:
		cfg.Connections = sp.Sessions()
		cfg.Terminals = sp.Terminals
		if tr != nil {
			cfg.Terminals = tr.Terminals()
		}
		cfg.Terminals = max(cfg.Terminals, cfg.Connections)
	case config.LoadRate:
		cfg.Connections = sp.Sessions()
		cfg.Rate, _ = sp.Rates()
		if tr != nil {
			cfg.RateByType = tr.RateByType()
			cfg.Terminals = tr.Terminals() // the arrivals' inputs
		}
		cfg.MaxQueue = sp.MaxQueue
	}
	stages, _ := config.ParseStages(sp.Stages) // Validate refused what does not parse
	for _, st := range stages {
		cfg.Stages = append(cfg.Stages, engine.Stage{Duration: st.Duration, Target: st.Target})
	}
	if len(stages) > 0 {
		cfg.Duration = config.StagesDuration(stages)
	}
}

// addLoadSettings records how the run offers its load with its settings.
func addLoadSettings(kv map[string]string, sp config.Spec, run any) {
	model := sp.LoadModel()
	kv["load_model"] = model
	switch model {
	case config.LoadTerminals:
		n := sp.Terminals
		if tr, ok := run.(terminalRun); ok {
			n = tr.Terminals()
		}
		kv["terminals"] = strconv.Itoa(max(n, sp.Sessions()))
		kv["connections"] = strconv.Itoa(sp.Sessions())
	case config.LoadRate:
		kv["connections"] = strconv.Itoa(sp.Sessions())
		total, byType := sp.Rates()
		kv["rate"] = strconv.FormatFloat(total, 'g', -1, 64)
		if byType != nil {
			kv["rate_by_type"] = config.FormatRateByType(byType)
		}
		q := sp.MaxQueue
		if q == 0 {
			q = config.DefaultMaxQueue
		}
		kv["max_queue"] = strconv.Itoa(q)
	}
	if sp.Stages != "" {
		stages, _ := config.ParseStages(sp.Stages)
		kv["stages"] = config.FormatStages(stages)
	}
}
