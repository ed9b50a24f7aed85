package app

import (
	"runtime"
	"strconv"
	"strings"

	"github.com/sledge-bench/sledge/internal/config"
	"github.com/sledge-bench/sledge/internal/engine"
	"github.com/sledge-bench/sledge/internal/workload"
)

// settings are the spec's settings recorded when the job is created.
func settings(p *plan) map[string]string {
	sp := p.spec
	kv := map[string]string{"db": p.target.String()}
	switch sp.Kind {
	case config.KindBuild:
		_, more := p.wl.(workload.Builder).PlanBuild(&p.spec)
		for k, v := range more {
			kv[k] = v
		}
	case config.KindRun:
		if a, ok := p.wl.(workload.Analytic); ok {
			for k, v := range a.AnalyticSettings(&p.spec) { // resolves the seed in p.spec
				kv[k] = v
			}
			break
		}
		for k, v := range map[string]string{
			"vu": strconv.Itoa(sp.VU), "rampup": sp.Rampup.String(), "duration": sp.Duration.String(),
			"interval": sp.Interval.String(), "max_retries": strconv.Itoa(sp.MaxRetries), "stall_after": stallAfterSetting(sp),
			"pacing": pacingSetting(sp.PacingFactor()), "client_cpus": strconv.Itoa(runtime.GOMAXPROCS(0)),
		} {
			kv[k] = v
		}
		if sp.Iterations > 0 {
			// An iteration run has no ramp-up and no duration: record what ran.
			kv["iterations"], kv["rampup"] = strconv.Itoa(sp.Iterations), "0s"
			delete(kv, "duration")
		}
	}
	if sp.Kind == config.KindRun && len(sp.Spec.Thresholds) > 0 {
		// As given, so that a run that ends without a result (and so
		// without verdicts) still says what it was to be judged on.
		kv["thresholds"] = strings.Join(sp.Spec.Thresholds, "; ")
	}
	for k, v := range p.req.Settings {
		kv[k] = v
	}
	return kv
}

// pacingSetting is the job record's pacing setting.
func pacingSetting(p float64) string {
	switch p {
	case 0:
		return "unpaced"
	case 1:
		return "spec"
	}
	return "spec x" + strconv.FormatFloat(p, 'g', -1, 64)
}

// stallAfterSetting is the stall threshold a run uses, as recorded with the
// job: "off", or the duration (the default resolved).
func stallAfterSetting(sp config.Plan) string {
	switch d := sp.StallAfter.D(); {
	case d < 0:
		return "off"
	case d == 0:
		return engine.DefaultStallAfter(sp.Interval.D()).String()
	default:
		return d.String()
	}
}
