package k8s

import (
	"fmt"
	"time"

	"github.com/sledge-bench/sledge/internal/config"
	"github.com/sledge-bench/sledge/internal/workload"
)

// AgentsError says that the agents would refuse a run: the smallest of
// Agents segments gets no share of it.
type AgentsError struct {
	Agents int
	Reason string // the run's own words
}

func (e *AgentsError) Error() string { return "the agents would refuse the run: " + e.Reason }

// RunWindow checks what decides the agents' run's window and each agent's
// share — run's VU, Iterations, Workload, Rampup and Duration, the rest
// taking the run's defaults — by the run's own rules (config.Spec.Validate),
// as agent 0 of agents will check them, so that a run the agents would
// refuse is caught here rather than in N pods. It returns the ramp-up plus
// measured window of a timed run (an OLTP workload without iterations),
// else 0 (the Job then has no deadline).
//
// A refused setting is a config.FieldErrors of those fields; a run the
// agents cannot share an *AgentsError; an unknown workload workload.Lookup's
// error.
func RunWindow(run config.Spec, agents int) (time.Duration, error) {
	s := config.New(config.KindRun)
	s.VU, s.Iterations, s.Workload, s.Rampup, s.Duration = run.VU, run.Iterations, run.Workload, run.Rampup, run.Duration
	s.Segment = fmt.Sprintf("0/%d", agents) // the smallest share of the N
	s.RunID = "k8s"
	var refused config.FieldErrors
	for _, f := range config.Fields(s.Validate()) {
		switch f.Field {
		case "vu", "iterations", "rampup", "duration":
			refused = append(refused, f)
		case "segment":
			return 0, &AgentsError{Agents: agents, Reason: f.Msg}
		}
	}
	if refused != nil {
		return 0, refused
	}
	w, err := workload.Lookup(s.Workload)
	if err != nil {
		return 0, err
	}
	if _, ok := w.(workload.OLTP); !ok || s.Iterations > 0 {
		return 0, nil
	}
	return s.Rampup.D() + s.Duration.D(), nil
}
