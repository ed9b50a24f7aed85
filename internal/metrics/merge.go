package metrics

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/sledge-bench/sledge/internal/db"
)

// Merging: a job's result, intervals and audit are computed from its parts
// (the agents of a multi-agent run, each driving a segment of the virtual
// users against one database) by adding counts and merging HDR histograms,
// never by averaging percentiles. A single-process run is a merge of one
// part: a merge of one part gives that part back, number for number.

// histMerge merges encoded latency histograms.
type histMerge struct {
	h     *hdrhistogram.Histogram // the merge so far; nil before the first
	first []byte                  // the first encoding, kept while it is the only one
	n     int                     // histograms merged
}

// add merges one encoded histogram (nil: nothing to merge).
func (m *histMerge) add(enc []byte) error {
	if enc == nil {
		return nil
	}
	h, err := hdrhistogram.Decode(enc)
	if err != nil {
		return err
	}
	m.n++
	if m.h == nil {
		m.h, m.first = h, enc
		return nil
	}
	if dropped := m.h.Merge(h); dropped > 0 {
		return fmt.Errorf("%d latencies out of the histogram's range", dropped)
	}
	return nil
}

// encoded is the merged histogram's encoding: a single one is given back as
// it was (re-encoding it would give the same bytes, at a cost).
func (m *histMerge) encoded() ([]byte, error) {
	switch m.n {
	case 0:
		return nil, nil
	case 1:
		return bytes.Clone(m.first), nil
	}
	return m.h.Encode(hdrhistogram.V2CompressedEncodingCookieBase)
}

// addCounts adds src into *dst, making *dst when src is not nil: the merge of
// maps none of which exists is none.
func addCounts(dst *map[string]int64, src map[string]int64) {
	if src == nil {
		return
	}
	if *dst == nil {
		*dst = make(map[string]int64, len(src))
	}
	for k, v := range src {
		(*dst)[k] += v
	}
}

// concat appends the parts' slices into a new one; nil when every part's is
// nil.
func concat[T any](parts ...[]T) []T {
	var out []T
	for _, p := range parts {
		if p != nil && out == nil {
			out = make([]T, 0, len(p))
		}
		out = append(out, p...)
	}
	return out
}

// anyNonNil reports whether a part's slice exists (a merge of slices none of
// which exists is none).
func anyNonNil[T any](parts [][]T) bool {
	return slices.ContainsFunc(parts, func(p []T) bool { return p != nil })
}

// byName groups the parts' items by name: the names in first-appearance
// order (the first part's order, then names only later parts have), and for
// each name the parts' items in part order.
func byName[T any](parts [][]T, name func(*T) string) (names []string, items map[string][]*T) {
	items = map[string][]*T{}
	for _, p := range parts {
		for i := range p {
			n := name(&p[i])
			if _, ok := items[n]; !ok {
				names = append(names, n)
			}
			items[n] = append(items[n], &p[i])
		}
	}
	return names, items
}

// MergeTx merges the parts' transaction summaries by name, in the first
// part's order (a name missing from some parts is merged from those that
// have it; names only later parts have follow in their order). Counts and the
// Errors and RetriesByClass maps add up; the latency histograms merge, and
// Mean and the percentiles are derived from the merged histogram exactly as
// the collector derives them. A part without a histogram (a result stored
// without one) adds its counts only; a type that no part has a histogram for
// keeps its latencies when a single part has it, and has none (zero) when
// several do. A histogram that cannot be decoded is an error naming the
// transaction.
func MergeTx(parts ...[]TxSummary) ([]TxSummary, error) {
	names, items := byName(parts, func(t *TxSummary) string { return t.Name })
	var out []TxSummary
	if anyNonNil(parts) {
		out = make([]TxSummary, 0, len(names))
	}
	for _, name := range names {
		ts := items[name]
		m := TxSummary{Name: name}
		var hm histMerge
		for _, t := range ts {
			m.Count += t.Count
			m.RolledBack += t.RolledBack
			m.Retries += t.Retries
			m.Retried += t.Retried
			m.FailedAfterRetries += t.FailedAfterRetries
			addCounts(&m.Errors, t.Errors)
			addCounts(&m.RetriesByClass, t.RetriesByClass)
			if err := hm.add(t.Histogram); err != nil {
				return nil, fmt.Errorf("transaction %s: latency histogram: %w", name, err)
			}
		}
		switch {
		case hm.n > 0:
			l := latencyOf(hm.h)
			m.Mean, m.P50, m.P95, m.P99, m.Max = l.mean, l.p50, l.p95, l.p99, l.max
			enc, err := hm.encoded()
			if err != nil {
				return nil, fmt.Errorf("transaction %s: latency histogram: %w", name, err)
			}
			m.Histogram = enc
		case len(ts) == 1:
			t := ts[0]
			m.Mean, m.P50, m.P95, m.P99, m.Max = t.Mean, t.P50, t.P95, t.P99, t.Max
		}
		out = append(out, m)
	}
	return out, nil
}

// MergeInterval merges the intervals of one Seq from several agents. Seq and
// Phase are the first's (an interval of another Seq or Phase is an error);
// Elapsed and Length are the longest. TPM and NOPM add up: each agent's rate
// is over its own Length, and the agents' ticks are the same boundaries of
// the run's clock, so the lengths agree to within the agents' clock skew and
// their ticks' jitter. Errors add up; the transaction types merge like
// MergeTx (counts add, P50/P95/P99/Max from the merged histograms; an
// IntervalTx without a histogram adds its counts only). VUs are concatenated
// in part order: the caller numbers the virtual users globally.
func MergeInterval(parts ...Interval) (Interval, error) {
	if len(parts) == 0 {
		return Interval{}, errors.New("merge of no intervals")
	}
	m := Interval{Seq: parts[0].Seq, Phase: parts[0].Phase, TPM: parts[0].TPM, NOPM: parts[0].NOPM}
	txs := make([][]IntervalTx, len(parts))
	vus := make([][]VUInterval, len(parts))
	for i, p := range parts {
		if p.Seq != m.Seq || p.Phase != m.Phase {
			return Interval{}, fmt.Errorf("interval %d (%s) merged with interval %d (%s)", p.Seq, p.Phase, m.Seq, m.Phase)
		}
		m.Elapsed = max(m.Elapsed, p.Elapsed)
		m.Length = max(m.Length, p.Length)
		if i > 0 {
			m.TPM += p.TPM
			m.NOPM += p.NOPM
		}
		m.Errors += p.Errors
		txs[i], vus[i] = p.Tx, p.VUs
	}
	m.VUs = concat(vus...)
	names, items := byName(txs, func(t *IntervalTx) string { return t.Name })
	if anyNonNil(txs) {
		m.Tx = make([]IntervalTx, 0, len(names))
	}
	for _, name := range names {
		ts := items[name]
		t := IntervalTx{Name: name}
		var hm histMerge
		for _, x := range ts {
			t.Count += x.Count
			t.Errors += x.Errors
			if err := hm.add(x.Histogram); err != nil {
				return Interval{}, fmt.Errorf("interval %d, transaction %s: latency histogram: %w", m.Seq, name, err)
			}
		}
		switch {
		case hm.n > 0:
			l := latencyOf(hm.h)
			t.P50, t.P95, t.P99, t.Max = l.p50, l.p95, l.p99, l.max
			enc, err := hm.encoded()
			if err != nil {
				return Interval{}, fmt.Errorf("interval %d, transaction %s: latency histogram: %w", m.Seq, name, err)
			}
			t.Histogram = enc
		case len(ts) == 1:
			x := ts[0]
			t.P50, t.P95, t.P99, t.Max = x.P50, x.P95, x.P99, x.Max
		}
		m.Tx = append(m.Tx, t)
	}
	return m, nil
}

// MergeAudit merges the parts' audits by item name, in the first part's
// order. N adds up; Value is the N-weighted mean of the parts' values (the
// first part's value when no part has observations); Unit, Target, Low and
// High are the first part's; Note is the first non-empty one of a part whose
// verdict the merged item has (a "too few to judge" must not explain an OK).
//
// The verdict is recomputed: n/a when a part was n/a and there are no
// observations at all; otherwise, for an item with a range, OK when
// Low <= Value <= High, else OFF; an item without a range keeps the first
// part's verdict. An item only one part has is that part's item.
//
// This is an approximation: a share's tolerance narrows with N, and the
// merged item keeps the first part's range (computed for that part's N, so
// wider than the merged N's), and an item a part judged too small to judge
// is judged by that range once merged. The exact audit recomputes the items
// from the merged counts (the workload's Auditor over the merged Tx).
func MergeAudit(parts ...[]AuditItem) []AuditItem {
	names, items := byName(parts, func(a *AuditItem) string { return a.Name })
	var out []AuditItem
	if anyNonNil(parts) {
		out = make([]AuditItem, 0, len(names))
	}
	for _, name := range names {
		as := items[name]
		if len(as) == 1 {
			out = append(out, *as[0])
			continue
		}
		first := as[0]
		m := AuditItem{Name: name, Unit: first.Unit, Target: first.Target, Low: first.Low, High: first.High, Value: first.Value}
		na := false
		var n int64
		for _, a := range as {
			na = na || a.Status() == VerdictNA
			if a.N <= 0 {
				continue
			}
			if n == 0 {
				m.Value = a.Value
			} else {
				// A running weighted mean.
				m.Value += (a.Value - m.Value) * float64(a.N) / float64(n+a.N)
			}
			n += a.N
		}
		m.N = n
		switch {
		case na && n == 0:
			m.Verdict = VerdictNA
		case m.HasRange() && m.Low <= m.Value && m.Value <= m.High:
			m.Verdict = VerdictOK
		case m.HasRange():
			m.Verdict = VerdictOff
		default:
			m.Verdict = first.Verdict
		}
		m.OK = m.Verdict != VerdictOff
		if m.Verdict == "" {
			m.OK = first.OK
		}
		for _, a := range as {
			if a.Note != "" && a.Status() == m.Status() {
				m.Note = a.Note
				break
			}
		}
		out = append(out, m)
	}
	return out
}

// statusRank orders statuses from best to worst; a merged run has its
// parts' worst. An unknown status ranks below every known one.
var statusRank = map[string]int{
	StatusCompleted:   1,
	StatusRunning:     2, // a part still running: the whole is not complete
	StatusDegraded:    3,
	StatusInterrupted: 4,
	StatusAbandoned:   5,
	StatusFailed:      6,
}

// MergeRunResults merges the results of agents that measured the same
// window. A merge of one part is a copy of it (deep-equal, sharing nothing).
//
//   - Sums: NewOrders, Commits, Errors, RolledBack, ClientCPU, VUs.
//     Warehouses, Measured and PacedCeiling (the warehouses' ceiling) are the
//     largest. NOPM and TPM are recomputed as the engine computes them, count
//     over Measured in minutes (0 when Measured is 0); with several agents
//     Measured is the longest of their windows, which agree to within clock
//     skew. ClientCPUPerTxUS is the summed CPU over the summed completed
//     transactions (commits and designed rollbacks), as the engine has it.
//   - Tx by MergeTx, Audit by MergeAudit (approximate: see there).
//   - Warnings: the first part's, then the others' not already given,
//     except that the parts' audit warnings (AuditWarnings of their audits)
//     and cross-check warnings (DBCheckWarning) give way to the merged
//     result's, in the place of the first of them. Other warnings are the
//     agents' own, about their own numbers ("… transactions failed", the
//     client's CPU).
//   - Status: the worst (failed > abandoned > interrupted > degraded >
//     running > completed).
//   - Mode, Isolation, Pacing, Rampup, Duration and Iterations: the first's;
//     Load and Stages too (copies): runs of terminals, arrivals or stages
//     are not split over agents.
//   - The database cross-check (HasDBCheck, DBNewOrders, NOPMDBCheck,
//     DBCheckAllowance) and ServerTPM: the database's counters are global and
//     one agent's reading is the job's, so each is the first part's that has
//     it (else the first part's reason it is unavailable). The allowance is
//     the engine's per-VU term (one transaction in flight per VU) and in-doubt
//     term (transactions whose session was lost) widened to all the parts:
//     plus the other parts' VUs and their in-doubt transactions; its
//     probe-timing term already scales with the database's global count.
//     DBCheckAgree is recomputed as |DBNewOrders − NewOrders| <= allowance.
//   - Disruption: the parts' outages, session losses and monitor gaps
//     together, each in time order (times are on each agent's run clock: the
//     agents start together, to within clock skew); idle intervals are
//     those idle in every part; the window is the first account's.
//   - VUTiming: the parts' together, in VU order (each agent numbers its
//     VUs as the run does, so they do not collide).
func MergeRunResults(parts ...*RunResult) (*RunResult, error) {
	if len(parts) == 0 {
		return nil, errors.New("merge of no run results")
	}
	for i, p := range parts {
		if p == nil {
			return nil, fmt.Errorf("run result %d is missing", i+1)
		}
	}
	first := parts[0]
	m := &RunResult{
		Status: first.Status, Mode: first.Mode, Isolation: first.Isolation, Pacing: first.Pacing,
		Rampup: first.Rampup, Duration: first.Duration, Iterations: first.Iterations,
	}
	txs := make([][]TxSummary, len(parts))
	audits := make([][]AuditItem, len(parts))
	for i, p := range parts {
		if r, ok := statusRank[p.Status]; ok && r > statusRank[m.Status] {
			m.Status = p.Status
		}
		m.VUs += p.VUs
		m.Warehouses = max(m.Warehouses, p.Warehouses)
		m.PacedCeiling = max(m.PacedCeiling, p.PacedCeiling)
		m.Measured = max(m.Measured, p.Measured)
		m.NewOrders += p.NewOrders
		m.Commits += p.Commits
		m.Errors += p.Errors
		m.RolledBack += p.RolledBack
		m.ClientCPU += p.ClientCPU
		m.Connects = m.Connects.Merge(p.Connects)
		txs[i], audits[i] = p.Tx, p.Audit
	}
	if minutes := m.Measured.Minutes(); minutes > 0 {
		m.TPM = float64(m.Commits) / minutes
		m.NOPM = float64(m.NewOrders) / minutes
	}
	if completed := m.Commits + m.RolledBack; completed > 0 {
		m.ClientCPUPerTxUS = float64(m.ClientCPU.Microseconds()) / float64(completed)
	}
	if first.Load != nil {
		l := *first.Load
		m.Load = &l
	}
	m.Stages = slices.Clone(first.Stages)
	var err error
	if m.Tx, err = MergeTx(txs...); err != nil {
		return nil, err
	}
	m.Audit = MergeAudit(audits...)
	m.VUTiming = mergeVUTiming(parts)
	m.Commands = mergeCommands(parts)
	mergeDBCheck(m, parts)
	m.Warnings = mergeWarnings(m, parts)
	m.Disruption = mergeDisruption(parts)
	return m, nil
}

// mergeVUTiming is the parts' per-VU timings together, in VU order,
// sharing nothing with them; nil when no part has any.
func mergeVUTiming(parts []*RunResult) []VUTiming {
	var out []VUTiming
	for _, p := range parts {
		for _, t := range p.VUTiming {
			t.Histogram = slices.Clone(t.Histogram)
			out = append(out, t)
		}
	}
	slices.SortStableFunc(out, func(a, b VUTiming) int { return a.VU - b.VU })
	return out
}

// mergeWarnings gives the first part's warnings, then the others' not
// already given, with the parts' audit and cross-check warnings replaced by
// those of m (merged already).
func mergeWarnings(m *RunResult, parts []*RunResult) []string {
	out := slices.Clone(parts[0].Warnings)
	seen := map[string]bool{}
	for _, w := range out {
		seen[w] = true
	}
	for _, p := range parts[1:] {
		for _, w := range p.Warnings {
			if !seen[w] {
				seen[w] = true
				out = append(out, w)
			}
		}
	}
	var staleAudit, staleCheck []string
	for _, p := range parts {
		staleAudit = append(staleAudit, AuditWarnings(p.Audit)...)
		if p.HasDBCheck && !p.DBCheckAgree {
			staleCheck = append(staleCheck, DBCheckWarning(p.DBNewOrders, p.NewOrders, p.DBCheckAllowance))
		}
	}
	out = replaceWarnings(out, staleAudit, AuditWarnings(m.Audit))
	var check []string
	if m.HasDBCheck && !m.DBCheckAgree {
		check = []string{DBCheckWarning(m.DBNewOrders, m.NewOrders, m.DBCheckAllowance)}
	}
	return replaceWarnings(out, staleCheck, check)
}

// replaceWarnings removes the stale warnings from ws and puts the fresh ones
// in the place of the first removed (at the end when none was).
func replaceWarnings(ws, stale, fresh []string) []string {
	at := -1
	kept := ws[:0:0]
	for _, w := range ws {
		if slices.Contains(stale, w) {
			if at < 0 {
				at = len(kept)
			}
			continue
		}
		kept = append(kept, w)
	}
	if len(fresh) == 0 {
		if at < 0 {
			return ws // nothing removed, nothing to add: ws as it was (nil or not)
		}
		return kept
	}
	if at < 0 {
		at = len(kept)
	}
	return slices.Insert(kept, at, fresh...)
}

// DBCheckWarning words a cross-check that disagrees: the database counted
// dbCount New-Orders in the window, the client client, more than allowed
// apart. It is the engine's wording, so that a merge recognises a part's own
// warning and replaces it with the merged check's.
func DBCheckWarning(dbCount, client, allowed int64) string {
	return fmt.Sprintf(
		"the database counted %d New-Orders in the window, the client %d: more apart than the %d that in-flight transactions and the probes' timing explain",
		dbCount, client, allowed)
}

// inDoubt counts the transactions whose session was lost: they may have
// committed without the client hearing of it (the engine's in-doubt term).
func inDoubt(txs []TxSummary) int64 {
	var n int64
	for _, t := range txs {
		n += t.Errors[db.ClassConnection.String()]
	}
	return n
}

// mergeDBCheck takes the database cross-check and the server's TPM from the
// first part that has each, and recomputes the check's verdict against the
// merged count (m's VUs and Tx are merged already).
func mergeDBCheck(m *RunResult, parts []*RunResult) {
	m.DBCheckUnavailable = parts[0].DBCheckUnavailable
	for _, p := range parts {
		if !p.HasDBCheck {
			continue
		}
		m.HasDBCheck, m.DBCheckUnavailable = true, p.DBCheckUnavailable
		m.DBNewOrders, m.NOPMDBCheck = p.DBNewOrders, p.NOPMDBCheck
		m.DBCheckAllowance = p.DBCheckAllowance + int64(m.VUs-p.VUs) + inDoubt(m.Tx) - inDoubt(p.Tx)
		d := m.DBNewOrders - m.NewOrders
		m.DBCheckAgree = max(d, -d) <= m.DBCheckAllowance
		break
	}
	m.ServerTPMUnavailable = parts[0].ServerTPMUnavailable
	for _, p := range parts {
		if p.HasServerTPM {
			m.HasServerTPM, m.ServerTPM, m.ServerTPMUnavailable = true, p.ServerTPM, p.ServerTPMUnavailable
			// The part's margin counted its own sessions in flight at the
			// edges: the others' are in flight there too.
			m.ServerTPMMargin = p.ServerTPMMargin
			if w := m.Measured.Minutes(); w > 0 && m.VUs > p.VUs {
				m.ServerTPMMargin += float64(m.VUs-p.VUs) / w
			}
			break
		}
	}
}

// commonStalls are the spans in which every part stood still: a stall of
// the job is one in which no process's transaction ended (one part's own
// stall — its network, its machine — is in that part's warnings). The
// sessions waiting add up, one count per part.
func commonStalls(parts []*RunResult) []Stall {
	var common []Stall
	for i, p := range parts {
		var own []Stall
		if p.Disruption != nil {
			own = p.Disruption.Stalls
		}
		if i == 0 {
			common = slices.Clone(own)
			continue
		}
		var next []Stall
		for _, c := range common {
			for _, s := range own {
				start, end := max(c.Start, s.Start), min(c.End, s.End)
				if start >= end {
					continue
				}
				ended := c.Ended
				if s.End < c.End {
					ended = s.Ended
				}
				next = append(next, Stall{Start: start, End: end, Ended: ended, VUs: c.VUs + s.VUs,
					LongestWait: max(min(c.LongestWait, end-c.Start), min(s.LongestWait, end-s.Start), end-start)})
			}
		}
		common = next
	}
	return common
}

// mergeDisruption puts the parts' disruption accounts together; nil when no
// part has one.
func mergeDisruption(parts []*RunResult) *Disruption {
	var m *Disruption
	var outages [][]Outage
	var conns [][]ConnectionEvent
	var gaps [][]MonitorGap
	var pauses [][]Pause
	sessions := 0
	for _, p := range parts {
		d := p.Disruption
		if d == nil {
			sessions += p.VUs
			continue
		}
		sessions += d.Sessions
		if m == nil {
			m = &Disruption{WindowStart: d.WindowStart, WindowEnd: d.WindowEnd, StallAfter: d.StallAfter}
		}
		outages = append(outages, d.Outages)
		conns = append(conns, d.Connections)
		gaps = append(gaps, d.MonitorGaps)
		pauses = append(pauses, d.Pauses)
	}
	if m == nil {
		return nil
	}
	m.Sessions = sessions
	m.Stalls = commonStalls(parts)
	// A pause is one process's: the others ran on.
	m.Pauses = concat(pauses...)
	slices.SortStableFunc(m.Pauses, func(a, b Pause) int { return cmp.Compare(a.Start, b.Start) })
	m.Outages = concat(outages...)
	for i := range m.Outages {
		m.Outages[i].Lost = maps.Clone(m.Outages[i].Lost)
	}
	slices.SortStableFunc(m.Outages, func(a, b Outage) int { return cmp.Compare(a.Start, b.Start) })
	m.Connections = concat(conns...)
	slices.SortStableFunc(m.Connections, func(a, b ConnectionEvent) int { return cmp.Compare(a.LostAt, b.LostAt) })
	m.MonitorGaps = concat(gaps...)
	slices.SortStableFunc(m.MonitorGaps, func(a, b MonitorGap) int { return cmp.Compare(a.At, b.At) })

	// An interval is idle for the job when it is idle for every part (a part
	// without an account was not idle).
	var idle []IdleInterval
	for i, p := range parts {
		var own []IdleInterval
		if p.Disruption != nil {
			own = p.Disruption.IdleIntervals
		}
		if i == 0 {
			idle = slices.Clone(own)
			continue
		}
		idle = slices.DeleteFunc(idle, func(iv IdleInterval) bool {
			return !slices.ContainsFunc(own, func(o IdleInterval) bool { return o.Seq == iv.Seq })
		})
	}
	m.IdleIntervals = idle
	return m
}
