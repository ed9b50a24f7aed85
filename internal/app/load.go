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

// setLoad sets the engine's load model from the plan: terminals over a
// pool, arrivals at a rate, stages.
func setLoad(cfg *engine.Config, p config.Plan, run any) {
	tr, _ := run.(terminalRun)
	switch p.Model {
	case config.LoadTerminals:
		cfg.Connections = p.Sessions()
		cfg.Terminals = p.Terminals
		if tr != nil {
			cfg.Terminals = tr.Terminals()
		}
		cfg.Terminals = max(cfg.Terminals, cfg.Connections)
	case config.LoadRate:
		cfg.Connections = p.Sessions()
		cfg.Rate = p.TotalRate()
		if tr != nil {
			cfg.RateByType = tr.RateByType()
			cfg.Terminals = tr.Terminals() // the arrivals' inputs
		}
		cfg.MaxQueue = p.MaxQueue
		cfg.SkipLate = p.LatencyLimit.D()
	}
	cfg.Stages = p.Stages // (the engine's window is then the stages')
}

// addLoadSettings records how the run offers its load with its settings.
func addLoadSettings(kv map[string]string, p config.Plan, run any) {
	kv["load_model"] = p.Model
	switch p.Model {
	case config.LoadTerminals:
		n := p.Terminals
		if tr, ok := run.(terminalRun); ok {
			n = tr.Terminals()
		}
		kv["terminals"] = strconv.Itoa(max(n, p.Sessions()))
		kv["connections"] = strconv.Itoa(p.Sessions())
	case config.LoadRate:
		kv["connections"] = strconv.Itoa(p.Sessions())
		kv["rate"] = strconv.FormatFloat(p.TotalRate(), 'g', -1, 64)
		if p.LatencyLimit > 0 {
			kv["latency_limit"] = p.LatencyLimit.String()
		}
		if p.RateByType != nil {
			kv["rate_by_type"] = config.FormatRateByType(p.RateByType)
		}
		q := p.MaxQueue
		if q == 0 {
			q = config.DefaultMaxQueue
		}
		kv["max_queue"] = strconv.Itoa(q)
	}
	if len(p.Stages) > 0 {
		kv["stages"] = config.FormatStages(p.Stages)
	}
}
