package report

import (
	"cmp"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/sledge-bench/sledge/internal/jobs"
	"github.com/sledge-bench/sledge/internal/metrics"
	"github.com/sledge-bench/sledge/internal/observe"
)

// ownSource is the source of the PostgreSQL observer's count of its own
// transactions (internal/observe's pgAppName).
const ownSource = "sledge observe"

// topWaits is how many wait events the summary names.
const topWaits = 5

// NotObserved is why a job has no server section: its run had no observer
// (metrics off, or a job recorded before Sledge observed servers).
const NotObserved = "not observed (metrics were off, or the job was recorded before Sledge observed servers)"

// Observed is what a run's observers saw over its measured window: one
// summary per observer, in the job's order.
type Observed struct {
	Observers []ObserverSummary
}

// ObserverSummary is one observer's figures over the measured window. A
// figure the observer did not measure is NaN (and null in JSON).
type ObserverSummary struct {
	Name   string // the observer's, e.g. "PostgreSQL sessions and statistics", "client and database host"
	Server string // product and version; "" for a host
	// Window is the time the window's intervals covered; Intervals how
	// many there were.
	Window    time.Duration
	Intervals int
	// Samples are the activity samples taken in the window (0 for an
	// observer that does not sample sessions).
	Samples int
	AAS     float64     // average active sessions, all classes (CPU included)
	CPU     WaitShare   // sessions active on CPU, with no wait event
	Waits   []WaitShare // the top wait events other than CPU, highest first
	// Kinds are the active sessions by kind of session (a mixed run's
	// analytic streams and its virtual users), each with its wait classes,
	// as the server's observer counted them (observe.SessionKind); nil
	// when it counted none.
	Kinds []KindShare
	// The server's statistics: commits per second (xact_commit on
	// PostgreSQL, Com_commit on MySQL), the share of buffer reads served
	// from memory in percent, and the checkpoints begun in the window.
	CommitsPerS float64
	CommitsName string // what was counted: "xact_commit" or "Com_commit"
	HitPct      float64
	Checkpoints float64
	// The host's CPU shares in percent (averaged over the window) and its
	// disks' throughput in MB/s.
	CPUUser, CPUSys, CPUIOWait, CPUSteal float64
	DiskMBps                             float64
	// Noise is this host's other load over the window and its judgement
	// (observe.JudgeHost); nil for an observer that does not measure it
	// (a server's, a scraped host's, a job recorded before Sledge did).
	Noise *observe.Noise
	Gaps  []Gap
	Cost  observe.Cost
	Notes []string
}

// WaitShare is one wait event's average active sessions and its share of
// all active sessions (0..1).
type WaitShare struct {
	Class, Event string
	AAS, Share   float64
}

// KindShare is one kind of session's average active sessions over the
// window, and theirs by wait class (highest first).
type KindShare struct {
	Kind    string
	AAS     float64
	Classes []WaitShare // Class and AAS; Share of the kind's AAS
}

// Label is "class:event", or the class alone (CPU).
func (w WaitShare) Label() string {
	if w.Event == "" {
		return w.Class
	}
	return w.Class + ":" + w.Event
}

// Gap is time an observer could not see, with why.
type Gap struct {
	From, To time.Duration // the intervals it fell in, since the run's start
	Missed   time.Duration // estimated time not observed
	Reason   string
}

// inWindow says whether a snapshot belongs to the measured window. The
// stored observations carry no interval number, so a snapshot is placed by
// time: it counts unless its midpoint lies within the ramp-up (the
// intervals whose Phase is rampup). With no interval series, every
// snapshot counts.
func inWindow(ivs []metrics.Interval) func(observe.Snapshot) bool {
	var rampupEnd time.Duration = -1
	for _, iv := range ivs {
		if iv.Phase == metrics.PhaseRampup && iv.Elapsed > rampupEnd {
			rampupEnd = iv.Elapsed
		}
	}
	return func(s observe.Snapshot) bool { return s.Elapsed-s.Length/2 > rampupEnd }
}

// Summarize computes what the observers saw over the measured window of a
// run whose interval series is ivs; nil when nothing was observed.
func Summarize(obs []jobs.Observation, ivs []metrics.Interval) *Observed {
	if len(obs) == 0 {
		return nil
	}
	keep := inWindow(ivs)
	out := &Observed{}
	for _, o := range obs {
		var window []observe.Snapshot
		for _, s := range o.Intervals {
			if keep(s) {
				window = append(window, s)
			}
		}
		out.Observers = append(out.Observers, summarizeObserver(o, window))
	}
	return out
}

func summarizeObserver(o jobs.Observation, window []observe.Snapshot) ObserverSummary {
	nan := math.NaN()
	s := ObserverSummary{
		Name: o.Name, Server: o.Start.Server, Intervals: len(window), Cost: o.Cost, Notes: o.Start.Notes,
		AAS: nan, CPU: WaitShare{Class: "CPU", AAS: nan, Share: nan},
		CommitsPerS: nan, HitPct: nan, Checkpoints: nan,
		CPUUser: nan, CPUSys: nan, CPUIOWait: nan, CPUSteal: nan, DiskMBps: nan,
	}
	for _, sn := range window {
		s.Window += sn.Length
		s.Samples += sn.Samples
	}
	summarizeWaits(&s, window)
	s.Kinds = summarizeKinds(window)

	// Counters: deltas summed over the window, gauges averaged over the
	// time of the intervals that have them.
	type acc struct {
		sum, secs float64
		seen      bool
	}
	figures := map[string]*acc{}
	for _, sn := range window {
		for _, c := range sn.Counters {
			if math.IsNaN(c.Value) {
				continue
			}
			k := c.Source + "/" + c.Name
			a := figures[k]
			if a == nil {
				a = &acc{}
				figures[k] = a
			}
			a.seen = true
			if c.Kind == observe.Gauge {
				a.sum += c.Value * sn.Length.Seconds()
			} else {
				a.sum += c.Value
			}
			a.secs += sn.Length.Seconds()
		}
	}
	delta := func(source, name string) (float64, float64, bool) {
		a := figures[source+"/"+name]
		if a == nil {
			return 0, 0, false
		}
		return a.sum, a.secs, true
	}
	gauge := func(source, name string) float64 {
		a := figures[source+"/"+name]
		if a == nil || a.secs == 0 {
			return nan
		}
		return a.sum / a.secs
	}
	for _, c := range []struct{ source, name string }{{"pg_stat_database", "xact_commit"}, {"global_status", "Com_commit"}} {
		if n, secs, ok := delta(c.source, c.name); ok && secs > 0 {
			// The PostgreSQL observer's own queries are commits of the
			// database it watches; it counts them beside the server's.
			if own, _, ok := delta(ownSource, c.name); ok {
				n = max(0, n-own)
			}
			s.CommitsPerS, s.CommitsName = n/secs, c.name
			break
		}
	}
	if hit, _, ok := delta("pg_stat_database", "blks_hit"); ok {
		if read, _, ok := delta("pg_stat_database", "blks_read"); ok && hit+read > 0 {
			s.HitPct = 100 * hit / (hit + read)
		}
	} else if req, _, ok := delta("global_status", "Innodb_buffer_pool_read_requests"); ok && req > 0 {
		if reads, _, ok := delta("global_status", "Innodb_buffer_pool_reads"); ok {
			s.HitPct = 100 * (1 - reads/req)
		}
	}
	// The checkpointer's counters moved from pg_stat_bgwriter to
	// pg_stat_checkpointer (PostgreSQL 17) and were renamed on the way.
	for _, src := range []string{"pg_stat_bgwriter", "pg_checkpointer", "pg_stat_checkpointer"} {
		for _, name := range []string{"checkpoints_timed", "checkpoints_req", "num_timed", "num_requested"} {
			if n, _, ok := delta(src, name); ok {
				if math.IsNaN(s.Checkpoints) {
					s.Checkpoints = 0
				}
				s.Checkpoints += n
			}
		}
	}
	s.CPUUser, s.CPUSys = gauge(observe.SourceOSCPU, "user_pct"), gauge(observe.SourceOSCPU, "sys_pct")
	s.CPUIOWait, s.CPUSteal = gauge(observe.SourceOSCPU, "iowait_pct"), gauge(observe.SourceOSCPU, "steal_pct")
	s.DiskMBps = gauge(observe.SourceOSDisk, "mbps")
	if figures[observe.SourceOSCPU+"/self_pct"] != nil {
		n := observe.JudgeHost(o.Name, window)
		s.Noise = &n
	}
	s.Gaps = gaps(window)
	return s
}

// NoiseWarnings are the warnings of the observers that judged their host
// noisy (observe.JudgeHost) over the window.
func NoiseWarnings(o *Observed) []string {
	if o == nil {
		return nil
	}
	var out []string
	for _, s := range o.Observers {
		if s.Noise != nil {
			out = append(out, s.Noise.Warnings...)
		}
	}
	return out
}

// summarizeWaits averages the window's waits: weighted by the samples of
// each interval (so that the result is active samples ÷ samples taken over
// the whole window), or by its length for an observer that counts no
// samples.
func summarizeWaits(s *ObserverSummary, window []observe.Snapshot) {
	type key struct{ class, event string }
	sum := map[key]float64{}
	var weights float64
	for _, sn := range window {
		w := float64(sn.Samples)
		if s.Samples == 0 {
			w = sn.Length.Seconds()
		}
		if len(sn.Waits) == 0 && sn.Samples == 0 {
			continue // nothing sampled in it: not an idle interval
		}
		weights += w
		for _, wt := range sn.Waits {
			sum[key{wt.Class, wt.Event}] += wt.AAS * w
		}
	}
	if weights == 0 {
		return
	}
	var total float64
	var all []WaitShare
	for k, v := range sum {
		aas := v / weights
		total += aas
		all = append(all, WaitShare{Class: k.class, Event: k.event, AAS: aas})
	}
	s.AAS = total
	s.CPU = WaitShare{Class: "CPU", AAS: 0, Share: 0}
	for i := range all {
		if total > 0 {
			all[i].Share = all[i].AAS / total
		}
	}
	slices.SortFunc(all, func(a, b WaitShare) int {
		if c := cmp.Compare(b.AAS, a.AAS); c != 0 {
			return c
		}
		return cmp.Compare(a.Label(), b.Label())
	})
	for _, w := range all {
		if w.Class == "CPU" && w.Event == "" {
			s.CPU = w
			continue
		}
		if len(s.Waits) < topWaits {
			s.Waits = append(s.Waits, w)
		}
	}
}

// summarizeKinds averages the window's session-kind counters over its
// samples, as summarizeWaits does the waits: an interval in which a kind
// was not seen counts as none of it, one without samples not at all. A
// single kind (every session the VUs', outside a mixed run) is no split:
// it would repeat the active sessions and waits, so there is none.
func summarizeKinds(window []observe.Snapshot) []KindShare {
	type key struct{ kind, class string }
	sum := map[key]float64{}
	var samples float64
	for _, sn := range window {
		if sn.Samples == 0 {
			continue
		}
		w := float64(sn.Samples)
		samples += w
		for _, c := range sn.Counters {
			if kind, class, ok := observe.SessionKind(c); ok && !math.IsNaN(c.Value) {
				sum[key{kind, class}] += c.Value * w
			}
		}
	}
	if samples == 0 || len(sum) == 0 {
		return nil
	}
	byKind := map[string]*KindShare{}
	var out []*KindShare
	for k, v := range sum {
		ks := byKind[k.kind]
		if ks == nil {
			ks = &KindShare{Kind: k.kind}
			byKind[k.kind] = ks
			out = append(out, ks)
		}
		aas := v / samples
		ks.AAS += aas
		ks.Classes = append(ks.Classes, WaitShare{Class: k.class, AAS: aas})
	}
	kinds := make([]KindShare, 0, len(out))
	for _, ks := range out {
		for i := range ks.Classes {
			if ks.AAS > 0 {
				ks.Classes[i].Share = ks.Classes[i].AAS / ks.AAS
			}
		}
		slices.SortFunc(ks.Classes, func(a, b WaitShare) int {
			return cmp.Or(cmp.Compare(b.AAS, a.AAS), cmp.Compare(a.Class, b.Class))
		})
		kinds = append(kinds, *ks)
	}
	if len(kinds) < 2 {
		return nil
	}
	slices.SortFunc(kinds, func(a, b KindShare) int { return cmp.Or(cmp.Compare(b.AAS, a.AAS), cmp.Compare(a.Kind, b.Kind)) })
	return kinds
}

// gaps gathers the window's gaps: consecutive intervals with the same
// reason are one gap. The time missed is estimated from the samples an
// interval lacks against the rate of the intervals seen whole; an
// observer that does not sample missed the whole interval.
func gaps(window []observe.Snapshot) []Gap {
	var samples int
	var secs float64
	for _, sn := range window {
		if sn.Gap == "" && sn.Samples > 0 {
			samples += sn.Samples
			secs += sn.Length.Seconds()
		}
	}
	var out []Gap
	for _, sn := range window {
		if sn.Gap == "" {
			continue
		}
		missed := sn.Length
		if samples > 0 && secs > 0 {
			rate := float64(samples) / secs
			seen := time.Duration(float64(sn.Samples) / rate * float64(time.Second))
			missed = max(0, sn.Length-seen)
		}
		if n := len(out); n > 0 && out[n-1].Reason == sn.Gap && out[n-1].To == sn.Elapsed-sn.Length {
			out[n-1].To, out[n-1].Missed = sn.Elapsed, out[n-1].Missed+missed
			continue
		}
		out = append(out, Gap{From: sn.Elapsed - sn.Length, To: sn.Elapsed, Missed: missed, Reason: sn.Gap})
	}
	return out
}

// ObservedBlock writes the server section of a run's result: for each
// observer, the top waits and CPU, the server's statistics, the host's CPU
// and disk, the gaps, the observer's own cost and its notes. Nothing for a
// job not observed.
func ObservedBlock(w io.Writer, o *Observed) error {
	if o == nil || len(o.Observers) == 0 {
		return nil
	}
	var b strings.Builder
	fmt.Fprintln(&b, "\n  server (what the observers saw over the measured window):")
	for _, s := range o.Observers {
		head := s.Name
		if s.Server != "" {
			head = s.Server + ": " + s.Name
		}
		fmt.Fprintf(&b, "    %s, %s over %.1f s\n", head, Plural(s.Intervals, "interval"), s.Window.Seconds())
		tw := newTable(&b, 0)
		if !math.IsNaN(s.AAS) {
			fmt.Fprintf(tw, "      active sessions\t%.2f AAS (%s)\n", s.AAS, Plural(s.Samples, "sample"))
			fmt.Fprintf(tw, "      CPU\t%.2f AAS (%.0f%%)\n", s.CPU.AAS, 100*s.CPU.Share)
			if len(s.Waits) > 0 {
				var ws []string
				for _, wt := range s.Waits {
					ws = append(ws, fmt.Sprintf("%s %.2f AAS (%.0f%%)", wt.Label(), wt.AAS, 100*wt.Share))
				}
				fmt.Fprintf(tw, "      waits\t%s\n", strings.Join(ws, ", "))
			}
		}
		for _, k := range s.Kinds {
			var cs []string
			for _, c := range k.Classes {
				cs = append(cs, fmt.Sprintf("%s %.2f", c.Class, c.AAS))
			}
			fmt.Fprintf(tw, "      sessions %s\t%.2f AAS (%s)\n", k.Kind, k.AAS, strings.Join(cs, ", "))
		}
		var stats []string
		if !math.IsNaN(s.CommitsPerS) {
			stats = append(stats, fmt.Sprintf("%s %s/s", s.CommitsName, Rate(s.CommitsPerS)))
		}
		if !math.IsNaN(s.HitPct) {
			stats = append(stats, fmt.Sprintf("buffer hits %.2f%%", s.HitPct))
		}
		if !math.IsNaN(s.Checkpoints) {
			stats = append(stats, Plural(int(math.Round(s.Checkpoints)), "checkpoint")+" begun")
		}
		if len(stats) > 0 {
			fmt.Fprintf(tw, "      statistics\t%s\n", strings.Join(stats, ", "))
		}
		if !math.IsNaN(s.CPUUser) {
			fmt.Fprintf(tw, "      host CPU\tuser %.1f%%, sys %.1f%%, iowait %s, steal %s%s\n",
				s.CPUUser, s.CPUSys, nanOr(s.CPUIOWait, "%.1f%%"), nanOr(s.CPUSteal, "%.1f%%"), processText(s.Noise))
		}
		if n := s.Noise; n != nil {
			freq := "not available"
			if !math.IsNaN(n.FreqMeanMHz) {
				freq = fmt.Sprintf("mean %.0f MHz, intervals' means %.0f–%.0f MHz (%.0f%% apart)", n.FreqMeanMHz, n.FreqMinMHz, n.FreqMaxMHz, n.FreqSpreadPct())
			}
			fmt.Fprintf(tw, "      CPU frequency\t%s\n", freq)
			fmt.Fprintf(tw, "      machine\t%s\n", noiseVerdict(*n))
		}
		if !math.IsNaN(s.DiskMBps) {
			fmt.Fprintf(tw, "      disk\t%.1f MB/s\n", s.DiskMBps)
		}
		for _, g := range s.Gaps {
			fmt.Fprintf(tw, "      gap\tnot observed for %.1f s (%.0f–%.0f s): %s\n",
				g.Missed.Seconds(), g.From.Seconds(), g.To.Seconds(), g.Reason)
		}
		fmt.Fprintf(tw, "      observer\t%s\n", costText(s.Cost))
		for _, n := range s.Notes {
			fmt.Fprintf(tw, "      note\t%s\n", n)
		}
		tw.Flush()
	}
	return writeLines(w, b.String())
}

// processText is the host CPU line's tail: the CPU used by other
// processes (with the cores it makes), by Sledge itself and by the local
// database server.
func processText(n *observe.Noise) string {
	if n == nil {
		return ""
	}
	var b strings.Builder
	if math.IsNaN(n.OthersPct) {
		b.WriteString(", others not measured")
	} else {
		fmt.Fprintf(&b, ", others %.1f%% (%.2f cores)", n.OthersPct, n.Cores(n.OthersPct))
	}
	if !math.IsNaN(n.SelfPct) {
		fmt.Fprintf(&b, ", self %.1f%%", n.SelfPct)
	}
	if !math.IsNaN(n.ServerPct) {
		fmt.Fprintf(&b, ", database server %.1f%%", n.ServerPct)
	}
	return b.String()
}

// noiseVerdict words the judgement of a host's noise.
func noiseVerdict(n observe.Noise) string {
	if !n.Noisy() {
		return "quiet (steal, other processes and frequency within bounds)"
	}
	var what []string
	for _, w := range n.Warnings {
		w = strings.TrimPrefix(w, observe.NoiseWarningPrefix)
		switch {
		case strings.HasPrefix(w, "CPU steal was"):
			what = append(what, "steal on average")
		case strings.HasPrefix(w, "CPU steal reached"):
			what = append(what, "steal in an interval")
		case strings.HasPrefix(w, "other processes"):
			what = append(what, "other processes")
		case strings.HasPrefix(w, "the CPU frequency"):
			what = append(what, "frequency changes")
		}
	}
	return "NOISY: " + strings.Join(what, ", ") + " beyond bounds"
}

// costText words an observer's own cost.
func costText(c observe.Cost) string {
	parts := []string{Plural(c.Samples, "sample"), fmt.Sprintf("%d %s taking %.2f s", c.Queries, map[bool]string{true: "query", false: "queries"}[c.Queries == 1], c.QueryTime.Seconds())}
	if c.ServerShare > 0 {
		parts = append(parts, fmt.Sprintf("%.1f%% of one server CPU", 100*c.ServerShare))
	}
	if c.Reconnects > 0 {
		parts = append(parts, Plural(c.Reconnects, "reconnect"))
	}
	return strings.Join(parts, ", ")
}

// ObservedJSON is the "observed" object of a run's result.
type ObservedJSON struct {
	Observers []ObserverJSON `json:"observers"`
}

// ObserverJSON is one observer's summary over the measured window; a
// figure it did not measure is null.
type ObserverJSON struct {
	Name      string     `json:"name"`
	Server    string     `json:"server"`
	WindowS   float64    `json:"window_s"`
	Intervals int        `json:"intervals"`
	Samples   int        `json:"samples"`
	AAS       Float      `json:"aas"`
	CPUAAS    Float      `json:"cpu_aas"`
	CPUShare  Float      `json:"cpu_share"`
	Waits     []WaitJSON `json:"waits"`
	// Sessions are the active sessions by kind of session, each with its
	// wait classes (event empty); empty when the observer counted none.
	Sessions    []SessionKindJSON `json:"sessions"`
	CommitsPerS Float             `json:"commits_per_s"`
	CommitsName string            `json:"commits_counter"`
	HitPct      Float             `json:"buffer_hit_pct"`
	Checkpoints Float             `json:"checkpoints"`
	CPUUserPct  Float             `json:"host_cpu_user_pct"`
	CPUSysPct   Float             `json:"host_cpu_sys_pct"`
	CPUIOWait   Float             `json:"host_cpu_iowait_pct"`
	CPUSteal    Float             `json:"host_cpu_steal_pct"`
	DiskMBps    Float             `json:"host_disk_mbps"`
	// This host's other load (null for an observer that does not measure
	// it): other processes', this process's and the local database
	// server's CPU in % of the host's, other processes' in cores, the CPU
	// frequency, and whether a bound was exceeded, with the warnings.
	OthersPct    Float     `json:"host_cpu_others_pct"`
	OthersCores  Float     `json:"host_cpu_others_cores"`
	SelfPct      Float     `json:"host_cpu_self_pct"`
	ServerPct    Float     `json:"host_cpu_server_pct"`
	FreqMeanMHz  Float     `json:"host_cpu_freq_mean_mhz"`
	FreqMinMHz   Float     `json:"host_cpu_freq_min_mhz"`
	FreqMaxMHz   Float     `json:"host_cpu_freq_max_mhz"`
	Noisy        *bool     `json:"noisy"`
	NoiseReasons []string  `json:"noise_warnings"`
	Gaps         []GapJSON `json:"gaps"`
	Cost         CostJSON  `json:"cost"`
	Notes        []string  `json:"notes"`
}

// WaitJSON is one wait event's average active sessions; share is of all
// active sessions (0..1).
type WaitJSON struct {
	Class string `json:"class"`
	Event string `json:"event"`
	AAS   Float  `json:"aas"`
	Share *Float `json:"share,omitempty"` // in the result's summary only
}

// SessionKindJSON is one kind of session's average active sessions over
// the window (kind: a PostgreSQL session's application_name, a MySQL or
// MariaDB statement's leading comment, "(unnamed)" for none), and theirs
// by wait class; share is of the kind's.
type SessionKindJSON struct {
	Kind  string     `json:"kind"`
	AAS   Float      `json:"aas"`
	Waits []WaitJSON `json:"waits"`
}

// GapJSON is time an observer could not see.
type GapJSON struct {
	FromS   float64 `json:"from_s"`
	ToS     float64 `json:"to_s"`
	MissedS float64 `json:"missed_s"`
	Reason  string  `json:"reason"`
}

// CostJSON is an observer's own cost over the run.
type CostJSON struct {
	Samples     int     `json:"samples"`
	Queries     int     `json:"queries"`
	QueryS      float64 `json:"query_s"`
	Reconnects  int     `json:"reconnects"`
	ServerShare Float   `json:"server_cpu_share"` // of one server CPU (0..1); null when unknown
}

func toCost(c observe.Cost) CostJSON {
	share := Float(c.ServerShare)
	if c.ServerShare == 0 {
		share = Float(math.NaN())
	}
	return CostJSON{Samples: c.Samples, Queries: c.Queries, QueryS: c.QueryTime.Seconds(), Reconnects: c.Reconnects, ServerShare: share}
}

// ToObserved is the JSON shape of a summary; nil for none.
func ToObserved(o *Observed) *ObservedJSON {
	if o == nil {
		return nil
	}
	out := &ObservedJSON{Observers: []ObserverJSON{}}
	nan := math.NaN()
	for _, s := range o.Observers {
		j := ObserverJSON{
			Name: s.Name, Server: s.Server, WindowS: s.Window.Seconds(), Intervals: s.Intervals, Samples: s.Samples,
			AAS: Float(s.AAS), CPUAAS: Float(s.CPU.AAS), CPUShare: Float(s.CPU.Share), Waits: []WaitJSON{},
			CommitsPerS: Float(s.CommitsPerS), CommitsName: s.CommitsName, HitPct: Float(s.HitPct), Checkpoints: Float(s.Checkpoints),
			CPUUserPct: Float(s.CPUUser), CPUSysPct: Float(s.CPUSys), CPUIOWait: Float(s.CPUIOWait), CPUSteal: Float(s.CPUSteal),
			DiskMBps: Float(s.DiskMBps), Gaps: []GapJSON{}, Cost: toCost(s.Cost), Notes: append([]string{}, s.Notes...),
			OthersPct: Float(nan), OthersCores: Float(nan), SelfPct: Float(nan), ServerPct: Float(nan),
			FreqMeanMHz: Float(nan), FreqMinMHz: Float(nan), FreqMaxMHz: Float(nan), NoiseReasons: []string{},
		}
		if n := s.Noise; n != nil {
			noisy := n.Noisy()
			j.OthersPct, j.OthersCores, j.SelfPct, j.ServerPct = Float(n.OthersPct), Float(n.Cores(n.OthersPct)), Float(n.SelfPct), Float(n.ServerPct)
			j.FreqMeanMHz, j.FreqMinMHz, j.FreqMaxMHz = Float(n.FreqMeanMHz), Float(n.FreqMinMHz), Float(n.FreqMaxMHz)
			j.Noisy, j.NoiseReasons = &noisy, append(j.NoiseReasons, n.Warnings...)
		}
		for _, w := range s.Waits {
			share := Float(w.Share)
			j.Waits = append(j.Waits, WaitJSON{Class: w.Class, Event: w.Event, AAS: Float(w.AAS), Share: &share})
		}
		j.Sessions = []SessionKindJSON{}
		for _, k := range s.Kinds {
			sk := SessionKindJSON{Kind: k.Kind, AAS: Float(k.AAS), Waits: []WaitJSON{}}
			for _, c := range k.Classes {
				share := Float(c.Share)
				sk.Waits = append(sk.Waits, WaitJSON{Class: c.Class, AAS: Float(c.AAS), Share: &share})
			}
			j.Sessions = append(j.Sessions, sk)
		}
		for _, g := range s.Gaps {
			j.Gaps = append(j.Gaps, GapJSON{FromS: g.From.Seconds(), ToS: g.To.Seconds(), MissedS: g.Missed.Seconds(), Reason: g.Reason})
		}
		out.Observers = append(out.Observers, j)
	}
	return out
}

// WithObserved sets the result's "observed" object from the job's
// observations and interval series, or says why there is none.
func (r *ResultJSON) WithObserved(obs []jobs.Observation, ivs []metrics.Interval) {
	r.Observed = ToObserved(Summarize(obs, ivs))
	r.ObservedUnavailable = nil
	if r.Observed == nil {
		why := NotObserved
		r.ObservedUnavailable = &why
	}
}

// ---------------------------------------------------------------- jobs show ID metrics | settings

// ObservationsText writes `jobs show ID metrics`: for each observer, one
// line per interval with its time, the average active sessions by wait
// class and its key counters.
func ObservationsText(w io.Writer, obs []jobs.Observation) error {
	for i, o := range obs {
		if i > 0 {
			fmt.Fprintln(w)
		}
		head := o.Name
		if o.Start.Server != "" {
			head = o.Start.Server + ": " + o.Name
		}
		fmt.Fprintf(w, "%s (%s; %s)\n", head, Plural(len(o.Intervals), "interval"), costText(o.Cost))
		for _, n := range o.Start.Notes {
			fmt.Fprintf(w, "  note: %s\n", n)
		}
		tw := newTable(w, 0)
		fmt.Fprintln(tw, "  elapsed\tsamples\tAAS by class\tcounters")
		for _, s := range o.Intervals {
			counters := Dash(keyCounters(s.Counters))
			if s.Gap != "" {
				counters += "; gap: " + s.Gap
			}
			fmt.Fprintf(tw, "  %s\t%d\t%s\t%s\n", Elapsed(s.Elapsed), s.Samples, Dash(classText(s.Waits)), counters)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	return nil
}

// classText is an interval's AAS by wait class, highest first.
func classText(ws []observe.Wait) string {
	by := map[string]float64{}
	for _, w := range ws {
		by[w.Class] += w.AAS
	}
	classes := make([]string, 0, len(by))
	for c := range by {
		classes = append(classes, c)
	}
	slices.SortFunc(classes, func(a, b string) int {
		if c := cmp.Compare(by[b], by[a]); c != 0 {
			return c
		}
		return cmp.Compare(a, b)
	})
	parts := make([]string, 0, len(classes))
	for _, c := range classes {
		parts = append(parts, fmt.Sprintf("%s %.2f", c, by[c]))
	}
	return strings.Join(parts, " ")
}

// keyCounters are the counters an interval line shows, by source and name.
var keyCounters = func() func([]observe.Counter) string {
	keys := []struct{ source, name, label string }{
		{"pg_stat_database", "xact_commit", "commits"},
		{"pg_stat_database", "xact_rollback", "rollbacks"},
		{"pg_stat_database", "blks_read", "blks_read"},
		{"pg_stat_database", "deadlocks", "deadlocks"},
		{"pg_stat_bgwriter", "checkpoints_req", "checkpoints_req"},
		{"pg_stat_bgwriter", "checkpoints_timed", "checkpoints_timed"},
		{"pg_stat_checkpointer", "num_requested", "checkpoints_req"},
		{"pg_stat_checkpointer", "num_timed", "checkpoints_timed"},
		{"pg_checkpointer", "num_requested", "checkpoints_req"},
		{"pg_checkpointer", "num_timed", "checkpoints_timed"},
		{"global_status", "Com_commit", "Com_commit"},
		{"global_status", "Innodb_buffer_pool_reads", "pool_reads"},
		{"global_status", "Innodb_row_lock_waits", "row_lock_waits"},
		{observe.SourceOSCPU, "user_pct", "usr%"},
		{observe.SourceOSCPU, "sys_pct", "sys%"},
		{observe.SourceOSCPU, "iowait_pct", "iowait%"},
		{observe.SourceOSCPU, "steal_pct", "steal%"},
		{observe.SourceOSCPU, "others_pct", "others%"},
		{observe.SourceOSCPU, "self_pct", "self%"},
		{observe.SourceOSCPU, "freq_mean_mhz", "MHz"},
		{observe.SourceOSDisk, "mbps", "disk MB/s"},
	}
	return func(cs []observe.Counter) string {
		var parts []string
		for _, k := range keys {
			for _, c := range cs {
				if c.Source == k.source && c.Name == k.name {
					parts = append(parts, k.label+" "+number(c.Value))
					break
				}
			}
		}
		return strings.Join(parts, " ")
	}
}()

// number writes a counter's value: whole numbers with thousands
// separators, fractions to two places, "n/a" for one not measured.
func number(v float64) string {
	switch {
	case math.IsNaN(v) || math.IsInf(v, 0):
		return "n/a"
	case v == math.Trunc(v) || math.Abs(v) >= 1000:
		if v < 0 {
			return "-" + Int(-v)
		}
		return Int(v)
	}
	return fmt.Sprintf("%.2f", v)
}

// SettingsText writes `jobs show ID settings`: each observer's settings in
// force when the job started.
func SettingsText(w io.Writer, obs []jobs.Observation) error {
	tw := newTable(w, 0)
	fmt.Fprintln(tw, "observer\tsetting\tvalue\tsource")
	for _, o := range obs {
		for _, s := range o.Start.Settings {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", o.Name, s.Name, s.Value, Dash(s.Source))
		}
	}
	return tw.Flush()
}

// SettingJSON is one element of `jobs show ID settings --format json`.
type SettingJSON struct {
	Observer string `json:"observer"`
	Server   string `json:"server"`
	Name     string `json:"name"`
	Value    string `json:"value"`
	Source   string `json:"source"`
}

// ToSettings is the JSON shape of the job's settings.
func ToSettings(obs []jobs.Observation) []SettingJSON {
	out := []SettingJSON{}
	for _, o := range obs {
		for _, s := range o.Start.Settings {
			out = append(out, SettingJSON{Observer: o.Name, Server: o.Start.Server, Name: s.Name, Value: s.Value, Source: s.Source})
		}
	}
	return out
}

// ObservationJSON is one element of `jobs show ID metrics --format json`:
// an observer's record of the job as stored.
type ObservationJSON struct {
	Name      string             `json:"name"`
	Server    string             `json:"server"`
	UptimeS   float64            `json:"uptime_s"`
	Notes     []string           `json:"notes"`
	Settings  []SettingJSON      `json:"settings"`
	Intervals []ObservedInterval `json:"intervals"`
	Cost      CostJSON           `json:"cost"`
}

// ObservedInterval is what an observer saw in one interval of the run.
type ObservedInterval struct {
	ElapsedS   float64         `json:"elapsed_s"`
	LengthS    float64         `json:"length_s"`
	Samples    int             `json:"samples"`
	Gap        string          `json:"gap"`
	Waits      []WaitJSON      `json:"waits"`
	Statements []StatementJSON `json:"statements"`
	Counters   []CounterJSON   `json:"counters"`
}

// StatementJSON is one statement's share of an interval's samples.
type StatementJSON struct {
	ID      string  `json:"id"`
	Text    string  `json:"text"`
	AAS     Float   `json:"aas"`
	Seconds float64 `json:"seconds"`
	Calls   int64   `json:"calls"`
}

// CounterJSON is one counter's change (kind delta) or gauge's value (kind
// gauge) over an interval; null when it could not be measured.
type CounterJSON struct {
	Source string `json:"source"`
	Name   string `json:"name"`
	Kind   string `json:"kind"`
	Unit   string `json:"unit"`
	Value  Float  `json:"value"`
}

// ToObservations is the JSON shape of the job's observations.
func ToObservations(obs []jobs.Observation) []ObservationJSON {
	out := []ObservationJSON{}
	for _, o := range obs {
		j := ObservationJSON{
			Name: o.Name, Server: o.Start.Server, UptimeS: o.Start.Uptime.Seconds(),
			Notes: append([]string{}, o.Start.Notes...), Settings: ToSettings([]jobs.Observation{o}),
			Intervals: []ObservedInterval{}, Cost: toCost(o.Cost),
		}
		for _, s := range o.Intervals {
			iv := ObservedInterval{ElapsedS: s.Elapsed.Seconds(), LengthS: s.Length.Seconds(), Samples: s.Samples, Gap: s.Gap,
				Waits: []WaitJSON{}, Statements: []StatementJSON{}, Counters: []CounterJSON{}}
			for _, w := range s.Waits {
				iv.Waits = append(iv.Waits, WaitJSON{Class: w.Class, Event: w.Event, AAS: Float(w.AAS)})
			}
			for _, st := range s.Statements {
				iv.Statements = append(iv.Statements, StatementJSON{ID: st.ID, Text: st.Text, AAS: Float(st.AAS), Seconds: st.Seconds, Calls: st.Calls})
			}
			for _, c := range s.Counters {
				iv.Counters = append(iv.Counters, CounterJSON{Source: c.Source, Name: c.Name, Kind: c.Kind, Unit: c.Unit, Value: Float(c.Value)})
			}
			j.Intervals = append(j.Intervals, iv)
		}
		out = append(out, j)
	}
	return out
}
