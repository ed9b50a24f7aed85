package observe

import (
	"fmt"
	"math"
	"time"
)

// The bounds beyond which a run's client host counts as noisy: what it
// measured may be the machine's doing rather than the database's. They are
// documented in the README ("Was the machine quiet?").
const (
	// NoiseStealMeanPct: steal is CPU time the hypervisor gave to another
	// guest while this one had work. A few percent is the background of a
	// shared cloud host; above 5 % of the host's CPU over the window the
	// client's threads were held back often enough to move latencies.
	NoiseStealMeanPct = 5.0
	// NoiseStealPeakPct: one interval with a fifth of the CPU stolen is a
	// neighbour's burst that a window's average can hide, and that shows
	// as a dip in that interval's throughput.
	NoiseStealPeakPct = 20.0
	// NoiseOthersCores: the CPU of every process but Sledge and the local
	// database server, in cores. A quiet machine's daemons (sshd, journald,
	// a monitoring agent) use a few hundredths of a core; a quarter of a
	// core on average is work that competes with the client's threads for
	// the scheduler, whatever the number of cores (their wake-ups wait
	// behind it), and is far above background.
	NoiseOthersCores = 0.25
	// NoiseFreqSpreadPct: the mean CPU frequency of the window's fastest
	// interval above its slowest one's by more than 10 % is frequency
	// scaling or thermal throttling changing the speed of the machine
	// during the run: the intervals were not run by the same CPU.
	NoiseFreqSpreadPct = 10.0
)

// Noise is what the host observer saw of other load on the machine over a
// run's measured window, and whether it exceeded the bounds. A figure not
// measured is NaN.
type Noise struct {
	Intervals int
	CPUs      float64 // the host's CPUs (the latest interval's count)
	// StealPct is the mean steal over the window (in % of the host's CPU),
	// StealMaxPct the highest interval's, ending at StealMaxAt.
	StealPct, StealMaxPct float64
	StealMaxAt            time.Duration
	// The CPU used, on average over the window, by this process, by the
	// local database server and by every other process, in % of the host's
	// CPU; cores = pct × CPUs / 100.
	SelfPct, ServerPct, OthersPct float64
	// The CPU frequency: the lowest and highest of the intervals' mean
	// frequencies (over the CPUs), and the mean over the window, in MHz;
	// NaN when not available.
	FreqMinMHz, FreqMeanMHz, FreqMaxMHz float64
	// Warnings word each bound exceeded: the figure, the bound, what to do.
	Warnings []string
}

// Noisy reports whether a bound was exceeded.
func (n Noise) Noisy() bool { return len(n.Warnings) > 0 }

// Cores is a share of the host's CPU in cores (NaN when unknown).
func (n Noise) Cores(pct float64) float64 { return pct * n.CPUs / 100 }

// FreqSpreadPct is how much faster the fastest interval's mean frequency
// was than the slowest's, in %; NaN when not available.
func (n Noise) FreqSpreadPct() float64 {
	if math.IsNaN(n.FreqMinMHz) || n.FreqMinMHz <= 0 {
		return math.NaN()
	}
	return 100 * (n.FreqMaxMHz - n.FreqMinMHz) / n.FreqMinMHz
}

// NoiseWarningPrefix begins every warning of a noisy machine, so that a
// reader can tell them from those about the database.
const NoiseWarningPrefix = "noisy machine: "

// JudgeHost measures the noise of the host whose snapshots over a run's
// measured window are window (a host observer's, named host in the
// warnings) and judges it against the bounds.
func JudgeHost(host string, window []Snapshot) Noise {
	nan := math.NaN()
	n := Noise{Intervals: len(window), CPUs: nan, StealPct: nan, StealMaxPct: nan, SelfPct: nan, ServerPct: nan,
		OthersPct: nan, FreqMinMHz: nan, FreqMeanMHz: nan, FreqMaxMHz: nan}
	type acc struct{ sum, secs float64 }
	mean := map[string]*acc{}
	for _, s := range window {
		for _, c := range s.Counters {
			if c.Source != SourceOSCPU || math.IsNaN(c.Value) {
				continue
			}
			switch c.Name {
			case "cpus":
				n.CPUs = c.Value
				continue
			case "steal_pct":
				if math.IsNaN(n.StealMaxPct) || c.Value > n.StealMaxPct {
					n.StealMaxPct, n.StealMaxAt = c.Value, s.Elapsed
				}
			case "freq_mean_mhz":
				n.FreqMinMHz = minNaN(n.FreqMinMHz, c.Value)
				n.FreqMaxMHz = maxNaN(n.FreqMaxMHz, c.Value)
			}
			a := mean[c.Name]
			if a == nil {
				a = &acc{}
				mean[c.Name] = a
			}
			a.sum += c.Value * s.Length.Seconds()
			a.secs += s.Length.Seconds()
		}
	}
	avg := func(name string) float64 {
		if a := mean[name]; a != nil && a.secs > 0 {
			return a.sum / a.secs
		}
		return nan
	}
	n.StealPct, n.SelfPct, n.ServerPct, n.OthersPct = avg("steal_pct"), avg("self_pct"), avg("server_pct"), avg("others_pct")
	n.FreqMeanMHz = avg("freq_mean_mhz")
	n.Warnings = n.warnings(host)
	return n
}

func (n Noise) warnings(host string) []string {
	var out []string
	add := func(format string, args ...any) { out = append(out, NoiseWarningPrefix+fmt.Sprintf(format, args...)) }
	if n.StealPct > NoiseStealMeanPct {
		add("CPU steal was %.1f%% of the %s's CPU on average over the measured window (bound %.0f%%): the hypervisor ran other guests while this one had work, so the results may be the host's neighbours' doing; run on dedicated vCPUs or a quieter host",
			n.StealPct, host, NoiseStealMeanPct)
	}
	if n.StealMaxPct > NoiseStealPeakPct {
		add("CPU steal reached %.1f%% of the %s's CPU in the interval ending at %.0f s (bound %.0f%% in any interval): a neighbour's burst; look at that interval's throughput, or repeat the run",
			n.StealMaxPct, host, n.StealMaxAt.Seconds(), NoiseStealPeakPct)
	}
	if cores := n.Cores(n.OthersPct); cores > NoiseOthersCores {
		add("other processes used %.2f cores on average during the measured window (%.1f%% of the %s's CPU; bound %.2f cores): the client machine was shared; stop what else runs there (see top), or run Sledge on a machine of its own",
			cores, n.OthersPct, host, NoiseOthersCores)
	}
	if spread := n.FreqSpreadPct(); spread > NoiseFreqSpreadPct {
		add("the CPU frequency varied by %.0f%% between intervals (mean %.0f to %.0f MHz; bound %.0f%%): frequency scaling or throttling changed the machine's speed during the run; set the performance governor (cpupower frequency-set -g performance) and check the cooling",
			spread, n.FreqMinMHz, n.FreqMaxMHz, NoiseFreqSpreadPct)
	}
	return out
}

func minNaN(a, b float64) float64 {
	if math.IsNaN(a) {
		return b
	}
	return min(a, b)
}

func maxNaN(a, b float64) float64 {
	if math.IsNaN(a) {
		return b
	}
	return max(a, b)
}
