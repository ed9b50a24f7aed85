package metrics

import (
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/sledge-bench/sledge/internal/db"
)

// latencyDist is a latency distribution of the property tests.
type latencyDist struct {
	name string
	n    func(r *rand.Rand) int // how many samples
	// draw draws a latency; c is the case's constant.
	draw func(r *rand.Rand, c time.Duration) time.Duration
}

var dists = []latencyDist{
	{"uniform", manySamples, func(r *rand.Rand, _ time.Duration) time.Duration {
		return time.Duration(r.Int64N(int64(100 * time.Millisecond)))
	}},
	{"lognormal", manySamples, func(r *rand.Rand, _ time.Duration) time.Duration {
		return time.Duration(math.Exp(math.Log(float64(5*time.Millisecond)) + 1.2*r.NormFloat64()))
	}},
	{"bimodal", manySamples, func(r *rand.Rand, _ time.Duration) time.Duration {
		if r.IntN(10) > 0 {
			return time.Duration(math.Abs(float64(2*time.Millisecond) + float64(500*time.Microsecond)*r.NormFloat64()))
		}
		// A long tail up to an hour, and a little past it (clamped).
		return time.Duration(r.Int64N(int64(61 * time.Minute)))
	}},
	{"equal", manySamples, func(_ *rand.Rand, c time.Duration) time.Duration { return c }},
	{"single", func(*rand.Rand) int { return 1 }, func(r *rand.Rand, _ time.Duration) time.Duration {
		return time.Duration(r.Int64N(int64(time.Hour)))
	}},
}

func manySamples(r *rand.Rand) int { return r.IntN(3000) }

const propSeeds = 12

// clampUS is the collector's recording of a latency.
func clampUS(d time.Duration) int64 {
	return min(max(int64(d/time.Microsecond), histMinUS), histMaxUS)
}

func encode(t testing.TB, h *hdrhistogram.Histogram) []byte {
	t.Helper()
	enc, err := h.Encode(hdrhistogram.V2CompressedEncodingCookieBase)
	if err != nil {
		t.Fatal(err)
	}
	return enc
}

func decode(t testing.TB, enc []byte) *hdrhistogram.Histogram {
	t.Helper()
	h, err := hdrhistogram.Decode(enc)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// The merge of the parts' histograms is the histogram of their union, and so
// are its mean and percentiles, whatever the split.
func TestMergeHistogramsIsUnion(t *testing.T) {
	t.Parallel()
	for _, d := range dists {
		for seed := range uint64(propSeeds) {
			for k := 1; k <= 8; k++ {
				r := rand.New(rand.NewPCG(seed, uint64(k)))
				name := fmt.Sprintf("%s/seed%d/k%d", d.name, seed, k)
				c := time.Duration(r.Int64N(int64(time.Second)))
				union := newHist()
				parts := make([]*hdrhistogram.Histogram, k)
				for i := range parts {
					parts[i] = newHist()
				}
				for range d.n(r) {
					v := clampUS(d.draw(r, c))
					_ = union.RecordValue(v)
					_ = parts[r.IntN(k)].RecordValue(v)
				}
				var m histMerge
				for _, p := range parts {
					if p.TotalCount() == 0 && r.IntN(2) == 0 {
						continue // an empty part may have no histogram at all
					}
					if err := m.add(encode(t, p)); err != nil {
						t.Fatalf("%s: %v", name, err)
					}
				}
				if m.n == 0 {
					continue
				}
				enc, err := m.encoded()
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				got := decode(t, enc)
				if !got.Equals(union) || !m.h.Equals(union) || got.TotalCount() != union.TotalCount() {
					t.Fatalf("%s: merged histogram (%d values) is not the union's (%d)", name, got.TotalCount(), union.TotalCount())
				}
				if !slices.Equal(got.Distribution(), union.Distribution()) {
					t.Fatalf("%s: merged distribution differs from the union's", name)
				}
				if g, w := latencyOf(got), latencyOf(union); g != w {
					t.Fatalf("%s: merged latencies %+v, union's %+v", name, g, w)
				}
			}
		}
	}
}

var txNames3 = []string{"new_order", "payment", "delivery"}

// randomEvent is a transaction of VU-independent random type, outcome and
// retries, ending at end.
func randomEvent(r *rand.Rand, lat time.Duration, end time.Duration) Event {
	e := Event{End: end, Latency: lat, Tx: uint8(r.IntN(len(txNames3)))}
	switch x := r.IntN(100); {
	case x < 80:
		e.Outcome = Committed
	case x < 86:
		e.Outcome = RolledBack
	default:
		e.Outcome = Failed(db.ErrorClass(1 + r.IntN(int(db.NumClasses)-1)))
	}
	if r.IntN(8) == 0 {
		e.Retries = uint8(1 + r.IntN(3))
		e.RetryClass = db.ErrorClass(1 + r.IntN(2))
	}
	return e
}

// split is one random run recorded by one collector (the union) and by k
// collectors each with a segment of its VUs (the parts).
type split struct {
	union *Collector
	parts []*Collector
	first []int // each part's first VU, 0-based
	ticks []time.Duration
}

func newSplit(r *rand.Rand, k int, n int, draw func() time.Duration) *split {
	s := &split{union: NewCollector(txNames3, 0)}
	var urecs, precs []*Recorder
	for i := range k {
		p := NewCollector(txNames3, 0)
		s.parts = append(s.parts, p)
		s.first = append(s.first, len(urecs))
		for range r.IntN(4) { // 0..3 VUs: a part may have none
			urecs = append(urecs, s.union.NewRecorder())
			precs = append(precs, p.NewRecorder())
		}
		_ = i
	}
	s.ticks = []time.Duration{time.Second, 2 * time.Second, 3 * time.Second}
	s.union.StartWindow(0)
	for _, p := range s.parts {
		p.StartWindow(0)
	}
	if len(urecs) == 0 {
		return s
	}
	for range n {
		vu := r.IntN(len(urecs))
		e := randomEvent(r, draw(), time.Duration(1+r.Int64N(int64(3*time.Second))))
		urecs[vu].Record(e)
		precs[vu].Record(e)
	}
	return s
}

// renumber makes a part's VUs global.
func renumber(iv Interval, first int) Interval {
	for i := range iv.VUs {
		iv.VUs[i].VU += first
	}
	return iv
}

func near(a, b float64) bool {
	return a == b || math.Abs(a-b) <= 1e-9*math.Max(math.Abs(a), math.Abs(b))
}

// MergeInterval and MergeTx of the parts give the union's intervals and
// summaries: counts, error maps, histograms and their percentiles.
func TestMergeIntervalsAndTxAreUnion(t *testing.T) {
	for _, d := range dists {
		t.Run(d.name, func(t *testing.T) {
			t.Parallel()
			testMergeIntervalsAndTx(t, d)
		})
	}
}

func testMergeIntervalsAndTx(t *testing.T, d latencyDist) {
	seeds := uint64(6) // each case makes k+1 collectors and encodes their histograms
	if testing.Short() {
		seeds = 2
	}
	for seed := range seeds {
		for k := 1; k <= 8; k++ {
			r := rand.New(rand.NewPCG(seed, 100+uint64(k)))
			name := fmt.Sprintf("%s/seed%d/k%d", d.name, seed, k)
			c := time.Duration(r.Int64N(int64(time.Second)))
			s := newSplit(r, k, d.n(r), func() time.Duration { return d.draw(r, c) })
			for _, at := range s.ticks {
				want, _ := s.union.Tick(at, PhaseMeasure)
				parts := make([]Interval, k)
				for i, p := range s.parts {
					iv, ok := p.Tick(at, PhaseMeasure)
					if !ok {
						t.Fatalf("%s: no interval at %s", name, at)
					}
					parts[i] = renumber(iv, s.first[i])
				}
				got, err := MergeInterval(parts...)
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				if got.Seq != want.Seq || got.Phase != want.Phase || got.Elapsed != want.Elapsed ||
					got.Length != want.Length || got.Errors != want.Errors || !near(got.TPM, want.TPM) || !near(got.NOPM, want.NOPM) {
					t.Fatalf("%s: merged interval %+v, want %+v", name, got, want)
				}
				if !reflect.DeepEqual(got.Tx, want.Tx) {
					t.Fatalf("%s at %s: merged transactions\n%+v\nwant\n%+v", name, at, got.Tx, want.Tx)
				}
				if !reflect.DeepEqual(got.VUs, want.VUs) {
					t.Fatalf("%s: merged VUs %+v, want %+v", name, got.VUs, want.VUs)
				}
			}
			s.union.Drain()
			var parts [][]TxSummary
			for _, p := range s.parts {
				p.Drain()
				parts = append(parts, p.Summaries())
			}
			got, err := MergeTx(parts...)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if want := s.union.Summaries(); !reflect.DeepEqual(got, want) {
				t.Fatalf("%s: merged summaries\n%+v\nwant\n%+v", name, got, want)
			}
		}
	}
}

// The collector's interval histogram: nil when nothing completed, else the
// interval's completed transactions (commits and designed rollbacks).
func TestIntervalHistogram(t *testing.T) {
	t.Parallel()
	c := NewCollector([]string{"a", "b"}, 0)
	rec := c.NewRecorder()
	rec.Record(Event{End: 10 * time.Millisecond, Latency: 2 * time.Millisecond})
	rec.Record(Event{End: 20 * time.Millisecond, Latency: 3 * time.Millisecond, Outcome: RolledBack})
	rec.Record(Event{End: 30 * time.Millisecond, Latency: time.Hour, Outcome: Failed(db.ClassDeadlock)})
	rec.Record(Event{End: 40 * time.Millisecond, Latency: time.Millisecond, Tx: 1, Outcome: Failed(db.ClassDeadlock)})
	iv, _ := c.Tick(time.Second, PhaseMeasure)
	if iv.Tx[1].Histogram != nil {
		t.Errorf("a type with no completed transaction has a histogram")
	}
	h := decode(t, iv.Tx[0].Histogram)
	if h.TotalCount() != 2 || us(h.Max()) != iv.Tx[0].Max || iv.Tx[0].Max < 3*time.Millisecond || iv.Tx[0].Max > 3*time.Millisecond+3*time.Microsecond {
		t.Errorf("interval histogram of %d values, max %s (interval max %s): want the commit and the rollback",
			h.TotalCount(), us(h.Max()), iv.Tx[0].Max)
	}
	iv, _ = c.Tick(2*time.Second, PhaseMeasure)
	if iv.Tx[0].Histogram != nil {
		t.Errorf("an empty interval has a histogram")
	}
}

// Names missing from some parts, order, counts and maps; parts without
// histograms; undecodable histograms.
func TestMergeTxByName(t *testing.T) {
	t.Parallel()
	h := func(vals ...int64) []byte {
		x := newHist()
		for _, v := range vals {
			_ = x.RecordValue(v)
		}
		return encode(t, x)
	}
	a := []TxSummary{
		{Name: "x", Count: 2, Errors: map[string]int64{"deadlock": 1}, Histogram: h(100, 200), P50: 1},
		{Name: "y", Count: 1, Retries: 3, Retried: 2, FailedAfterRetries: 1, RetriesByClass: map[string]int64{"serialization": 3}, Histogram: h(5000)},
	}
	b := []TxSummary{
		{Name: "z", Count: 7, P95: time.Second}, // stored without a histogram
		{Name: "x", Count: 1, RolledBack: 1, Errors: map[string]int64{"deadlock": 2, "other": 1}, Histogram: h(300, 300000)},
	}
	got, err := MergeTx(a, nil, b)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, g := range got {
		names = append(names, g.Name)
	}
	if strings.Join(names, ",") != "x,y,z" {
		t.Fatalf("order %v, want x,y,z", names)
	}
	x := got[0]
	if x.Count != 3 || x.RolledBack != 1 || !reflect.DeepEqual(x.Errors, map[string]int64{"deadlock": 3, "other": 1}) || x.RetriesByClass != nil {
		t.Errorf("x merged to %+v", x)
	}
	if l := latencyOf(decode(t, x.Histogram)); decode(t, x.Histogram).TotalCount() != 4 || l.max != x.Max || x.Max < 300*time.Millisecond || x.P50 != l.p50 {
		t.Errorf("x's histogram and latencies: %+v", x)
	}
	if y := got[1]; y.Retries != 3 || y.Retried != 2 || y.FailedAfterRetries != 1 || y.RetriesByClass["serialization"] != 3 || y.Errors != nil {
		t.Errorf("y merged to %+v", y)
	}
	if z := got[2]; z.Count != 7 || z.P95 != time.Second || z.Histogram != nil {
		t.Errorf("z (one part, no histogram) merged to %+v: want it kept", z)
	}
	// Two parts without histograms have no latencies to give.
	got, _ = MergeTx(b[:1], b[:1])
	if got[0].Count != 14 || got[0].P95 != 0 {
		t.Errorf("two parts without histograms: %+v", got[0])
	}
	if got, err := MergeTx(); err != nil || got != nil {
		t.Errorf("merge of nothing: %v %v", got, err)
	}
	_, err = MergeTx(a, []TxSummary{{Name: "y", Histogram: []byte("not a histogram")}})
	if err == nil || !strings.Contains(err.Error(), "transaction y") {
		t.Errorf("undecodable histogram: %v, want an error naming the transaction", err)
	}
	_, err = MergeInterval(Interval{Seq: 1, Tx: []IntervalTx{{Name: "q", Histogram: []byte("HISTxx")}}})
	if err == nil || !strings.Contains(err.Error(), "transaction q") {
		t.Errorf("undecodable interval histogram: %v, want an error naming the transaction", err)
	}
}

func TestMergeIntervalRules(t *testing.T) {
	t.Parallel()
	if _, err := MergeInterval(); err == nil {
		t.Error("merge of no intervals: no error")
	}
	if _, err := MergeInterval(Interval{Seq: 1, Phase: PhaseMeasure}, Interval{Seq: 2, Phase: PhaseMeasure}); err == nil {
		t.Error("intervals of different Seq merged")
	}
	if _, err := MergeInterval(Interval{Seq: 1, Phase: PhaseMeasure}, Interval{Seq: 1, Phase: PhaseRampup}); err == nil {
		t.Error("intervals of different phases merged")
	}
	got, err := MergeInterval(
		Interval{Seq: 3, Phase: PhaseMeasure, Elapsed: 30 * time.Second, Length: 10 * time.Second, TPM: 60, NOPM: 24, Errors: 1,
			Tx: []IntervalTx{{Name: "a", Count: 10, Errors: 1}}, VUs: []VUInterval{{VU: 1, Commits: 10}}},
		Interval{Seq: 3, Phase: PhaseMeasure, Elapsed: 30*time.Second + time.Millisecond, Length: 9 * time.Second, TPM: 66, NOPM: 30, Errors: 2,
			Tx: []IntervalTx{{Name: "b", Count: 11, Errors: 2}}, VUs: []VUInterval{{VU: 2, Commits: 11}}},
	)
	if err != nil {
		t.Fatal(err)
	}
	want := Interval{Seq: 3, Phase: PhaseMeasure, Elapsed: 30*time.Second + time.Millisecond, Length: 10 * time.Second, TPM: 126, NOPM: 54, Errors: 3,
		Tx: []IntervalTx{{Name: "a", Count: 10, Errors: 1}, {Name: "b", Count: 11, Errors: 2}}, VUs: []VUInterval{{VU: 1, Commits: 10}, {VU: 2, Commits: 11}}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("merged %+v\nwant %+v", got, want)
	}
}

func TestMergeAudit(t *testing.T) {
	t.Parallel()
	share := func(v float64, n int64, verdict, note string) AuditItem {
		return AuditItem{Name: "mix payment", Unit: "%", Target: ">= 43.0", Low: 43, High: 100, Value: v, N: n,
			Verdict: verdict, OK: verdict != VerdictOff, Note: note}
	}
	cases := []struct {
		name  string
		parts [][]AuditItem
		want  []AuditItem
	}{
		{"one part is itself",
			[][]AuditItem{{share(40, 10, VerdictNA, "too few")}},
			[]AuditItem{share(40, 10, VerdictNA, "too few")}},
		{"weighted mean, judged by the range",
			[][]AuditItem{{share(42, 100, VerdictNA, "too few")}, {share(45, 300, VerdictOK, "")}},
			[]AuditItem{share(44.25, 400, VerdictOK, "")}},
		{"off once merged, with an OFF part's note",
			[][]AuditItem{{share(40, 300, VerdictOff, "below")}, {share(44, 100, VerdictOK, "")}},
			[]AuditItem{share(41, 400, VerdictOff, "below")}},
		{"no observations: n/a, the first's value",
			[][]AuditItem{{share(0, 0, VerdictNA, "no deliveries")}, {share(0, 0, VerdictNA, "")}},
			[]AuditItem{share(0, 0, VerdictNA, "no deliveries")}},
		{"no range: the first's verdict",
			[][]AuditItem{{{Name: "check", Verdict: VerdictOff, Note: "x"}}, {{Name: "check", Verdict: VerdictOK}}},
			[]AuditItem{{Name: "check", Verdict: VerdictOff, Note: "x"}}},
		{"by name, in first-part order",
			[][]AuditItem{{{Name: "a", OK: true}, {Name: "b", OK: true}}, {{Name: "c", OK: true}, {Name: "a", OK: true}}},
			[]AuditItem{{Name: "a", OK: true}, {Name: "b", OK: true}, {Name: "c", OK: true}}},
	}
	for _, c := range cases {
		got := MergeAudit(c.parts...)
		if len(got) != len(c.want) {
			t.Fatalf("%s: %+v, want %+v", c.name, got, c.want)
		}
		for i := range got {
			if !near(got[i].Value, c.want[i].Value) {
				t.Errorf("%s: value %v, want %v", c.name, got[i].Value, c.want[i].Value)
			}
			got[i].Value = c.want[i].Value
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s:\n%+v\nwant\n%+v", c.name, got, c.want)
		}
	}
	if MergeAudit() != nil || MergeAudit(nil, nil) != nil {
		t.Error("the merge of no audits is not nil")
	}
}

// randomResult is a run result as the engine makes it, from a collector's
// real summaries.
func randomResult(r *rand.Rand) *RunResult {
	c := NewCollector(txNames3, 0)
	vus := 1 + r.IntN(8)
	if r.IntN(2) == 0 {
		c.TrackVUs()
	}
	var recs []*Recorder
	for range vus {
		recs = append(recs, c.NewRecorder())
	}
	c.StartWindow(0)
	for range r.IntN(2000) {
		e := randomEvent(r, dists[2].draw(r, 0), time.Duration(1+r.Int64N(int64(time.Second))))
		recs[r.IntN(vus)].Record(e)
	}
	c.Drain()
	res := &RunResult{
		Status: StatusCompleted, VUs: vus, Warehouses: 1 + r.IntN(100), Mode: "procs", Isolation: "read committed",
		Pacing: 0.5, PacedCeiling: 1234.5, Rampup: time.Minute, Duration: 5 * time.Minute,
		Measured: 5*time.Minute + time.Duration(r.Int64N(int64(time.Second))),
		Tx:       c.Summaries(),
		VUTiming: c.VUTimings(0),
	}
	for range vus {
		res.Connects.Add(time.Duration(1 + r.Int64N(int64(50*time.Millisecond))))
	}
	// The engine's fill.
	var completed int64
	for i, t := range res.Tx {
		res.Commits += t.Count
		res.RolledBack += t.RolledBack
		res.Errors += t.ErrorCount()
		completed += t.Count + t.RolledBack
		if i == 0 {
			res.NewOrders = t.Count
		}
	}
	res.TPM = float64(res.Commits) / res.Measured.Minutes()
	res.NOPM = float64(res.NewOrders) / res.Measured.Minutes()
	res.ClientCPU = time.Duration(r.Int64N(int64(time.Minute)))
	if completed > 0 {
		res.ClientCPUPerTxUS = float64(res.ClientCPU.Microseconds()) / float64(completed)
	}
	res.HasDBCheck = r.IntN(2) == 0
	if res.HasDBCheck {
		res.DBNewOrders = res.NewOrders + r.Int64N(20) - 10
		res.NOPMDBCheck = float64(res.DBNewOrders) / res.Measured.Minutes()
		res.DBCheckAllowance = int64(vus) + r.Int64N(5) + inDoubt(res.Tx)
		res.DBCheckAgree = max(res.DBNewOrders-res.NewOrders, res.NewOrders-res.DBNewOrders) <= res.DBCheckAllowance
		if !res.DBCheckAgree {
			res.Warnings = append(res.Warnings, DBCheckWarning(res.DBNewOrders, res.NewOrders, res.DBCheckAllowance))
		}
		res.HasServerTPM = true
		res.ServerTPM = r.Float64() * 1e6
	} else {
		res.DBCheckUnavailable = "the workload has no database count to check against"
		res.ServerTPMUnavailable = res.DBCheckUnavailable
	}
	if r.IntN(2) == 0 {
		res.Status = StatusDegraded
		res.Disruption = &Disruption{WindowStart: time.Minute, WindowEnd: 6 * time.Minute,
			Outages: []Outage{{Start: 2 * time.Minute, Resumed: 2*time.Minute + time.Second, Recovered: true, Reconnected: true, VUs: 1,
				Lost: map[string]int64{"connection": 1}}},
			Connections:   []ConnectionEvent{{VU: 1, LostAt: 2 * time.Minute, Reconnected: true, ReconnectedAt: 2*time.Minute + time.Second, Attempts: 2}},
			IdleIntervals: []IdleInterval{{Seq: 13, Start: 2 * time.Minute, End: 2*time.Minute + 10*time.Second}},
			MonitorGaps:   []MonitorGap{{Edge: EdgeWindowEnd, At: 6 * time.Minute, Error: "timeout"}},
		}
		res.Warnings = append(res.Warnings, "the database was out of service")
	}
	mix := AuditItem{Name: "mix new_order", Value: 40 + 8*r.Float64(), Unit: "%", Target: "≈ 43.48 (deck)", Low: 41, High: 46, N: res.Commits,
		OK: true, Verdict: VerdictOK}
	if mix.Value < mix.Low || mix.Value > mix.High {
		mix.OK, mix.Verdict, mix.Note = false, VerdictOff, "off the deck"
	}
	res.Audit = []AuditItem{mix,
		{Name: "delivery districts skipped", Value: 0, Unit: "%", Target: "<= 1", High: 1, N: 0, OK: true, Verdict: VerdictNA, Note: "no deliveries in the window"},
	}
	res.Warnings = append(res.Warnings, "a warning", "a warning")
	res.Warnings = append(res.Warnings, AuditWarnings(res.Audit)...)
	return res
}

// A merge of one part is that part, sharing nothing with it.
func TestMergeRunResultsOfOneIsIdentity(t *testing.T) {
	t.Parallel()
	for seed := range uint64(40) {
		r := rand.New(rand.NewPCG(seed, 7))
		part := randomResult(r)
		got, err := MergeRunResults(part)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, part) {
			t.Fatalf("seed %d: merge of one\n%+v\nwant\n%+v", seed, got, part)
		}
		got.Tx[0].Errors["deadlock"]++
		got.Tx[0].Histogram[0] = 'x'
		got.Audit[0].Value = -1
		got.Warnings[0] = "changed"
		if len(got.VUTiming) > 0 {
			got.VUTiming[0].Histogram[0] = 'x'
		}
		if got.Disruption != nil {
			got.Disruption.Outages[0].Lost["connection"]++
			got.Disruption.IdleIntervals[0].Seq = -1
		}
		if again := randomResult(rand.New(rand.NewPCG(seed, 7))); !reflect.DeepEqual(again, part) {
			t.Fatalf("seed %d: the merge shares its part's data", seed)
		}
	}
}

// A merge of three parts: every summed field, the largest, the first's, the
// database check and server TPM from the parts that have them.
func TestMergeRunResultsOfThree(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(3, 3))
	a, b, c := randomResult(r), randomResult(r), randomResult(r)
	a.Status, b.Status, c.Status = StatusCompleted, StatusInterrupted, StatusDegraded
	a.HasDBCheck, a.DBCheckUnavailable, a.HasServerTPM, a.ServerTPMUnavailable = false, "the database's counters could not be read", false, "no counter"
	a.DBNewOrders, a.NOPMDBCheck, a.DBCheckAllowance, a.DBCheckAgree = 0, 0, 0, false
	b.HasDBCheck, b.DBCheckUnavailable, b.DBNewOrders, b.DBCheckAllowance = true, "", a.NewOrders+b.NewOrders+c.NewOrders+5, int64(b.VUs)+2
	b.NOPMDBCheck = float64(b.DBNewOrders) / b.Measured.Minutes()
	b.HasServerTPM, b.ServerTPM, b.ServerTPMUnavailable = false, 0, "the database keeps no server-wide commit counter"
	c.HasServerTPM, c.ServerTPM, c.ServerTPMUnavailable = true, 4321, ""
	a.Disruption = nil
	b.Disruption = &Disruption{WindowStart: time.Minute, WindowEnd: 6 * time.Minute,
		Outages:       []Outage{{Start: 3 * time.Minute, VUs: 2}},
		Connections:   []ConnectionEvent{{VU: 5, LostAt: 3 * time.Minute}},
		IdleIntervals: []IdleInterval{{Seq: 13}, {Seq: 14}},
	}
	c.Disruption = &Disruption{WindowStart: time.Minute + time.Millisecond,
		Outages:       []Outage{{Start: time.Minute, VUs: 1}},
		Connections:   []ConnectionEvent{{VU: 9, LostAt: time.Minute}},
		IdleIntervals: []IdleInterval{{Seq: 14}},
		MonitorGaps:   []MonitorGap{{Edge: EdgeWindowEnd, At: 6 * time.Minute}},
	}
	a.Warnings = []string{"a warning", "only a"}
	b.Warnings = []string{"only b", "a warning"}
	c.Warnings = nil
	b.Mode, c.Iterations = "sql", 7

	m, err := MergeRunResults(a, b, c)
	if err != nil {
		t.Fatal(err)
	}
	sum := func(f func(*RunResult) int64) int64 { return f(a) + f(b) + f(c) }
	for _, x := range []struct {
		name      string
		got, want int64
	}{
		{"NewOrders", m.NewOrders, sum(func(r *RunResult) int64 { return r.NewOrders })},
		{"Commits", m.Commits, sum(func(r *RunResult) int64 { return r.Commits })},
		{"Errors", m.Errors, sum(func(r *RunResult) int64 { return r.Errors })},
		{"RolledBack", m.RolledBack, sum(func(r *RunResult) int64 { return r.RolledBack })},
		{"ClientCPU", int64(m.ClientCPU), sum(func(r *RunResult) int64 { return int64(r.ClientCPU) })},
		{"VUs", int64(m.VUs), sum(func(r *RunResult) int64 { return int64(r.VUs) })},
		{"Connects.Count", m.Connects.Count, sum(func(r *RunResult) int64 { return r.Connects.Count })},
		{"Connects.Total", int64(m.Connects.Total), sum(func(r *RunResult) int64 { return int64(r.Connects.Total) })},
		{"Connects.Max", int64(m.Connects.Max), int64(max(a.Connects.Max, b.Connects.Max, c.Connects.Max))},
		{"Warehouses", int64(m.Warehouses), int64(max(a.Warehouses, b.Warehouses, c.Warehouses))},
		{"Measured", int64(m.Measured), int64(max(a.Measured, b.Measured, c.Measured))},
	} {
		if x.got != x.want {
			t.Errorf("%s = %d, want %d", x.name, x.got, x.want)
		}
	}
	if m.NOPM != float64(m.NewOrders)/m.Measured.Minutes() || m.TPM != float64(m.Commits)/m.Measured.Minutes() {
		t.Errorf("NOPM %v, TPM %v: not recomputed over the window", m.NOPM, m.TPM)
	}
	if want := float64(m.ClientCPU.Microseconds()) / float64(m.Commits+m.RolledBack); m.ClientCPUPerTxUS != want {
		t.Errorf("CPU per transaction %v, want %v", m.ClientCPUPerTxUS, want)
	}
	if m.Status != StatusInterrupted {
		t.Errorf("status %s, want the worst (interrupted)", m.Status)
	}
	if m.Mode != a.Mode || m.Isolation != a.Isolation || m.Rampup != a.Rampup || m.Duration != a.Duration || m.Iterations != a.Iterations || m.Pacing != a.Pacing {
		t.Errorf("settings not the first part's: %+v", m)
	}
	wantTx, _ := MergeTx(a.Tx, b.Tx, c.Tx)
	if !reflect.DeepEqual(m.Tx, wantTx) {
		t.Errorf("Tx is not MergeTx of the parts'")
	}
	var txCommits int64
	for _, tx := range m.Tx {
		txCommits += tx.Count
	}
	if txCommits != m.Commits {
		t.Errorf("the merged summaries' commits %d, the result's %d", txCommits, m.Commits)
	}
	if !reflect.DeepEqual(m.Audit, MergeAudit(a.Audit, b.Audit, c.Audit)) || m.Audit[0].N != a.Audit[0].N+b.Audit[0].N+c.Audit[0].N {
		t.Errorf("Audit is not MergeAudit of the parts': %+v", m.Audit)
	}
	wantWarnings := append([]string{"a warning", "only a", "only b"}, AuditWarnings(m.Audit)...)
	if !m.DBCheckAgree {
		wantWarnings = append(wantWarnings, DBCheckWarning(m.DBNewOrders, m.NewOrders, m.DBCheckAllowance))
	}
	if !slices.Equal(m.Warnings, wantWarnings) {
		t.Errorf("warnings %q\nwant %q", m.Warnings, wantWarnings)
	}
	if !m.HasDBCheck || m.DBCheckUnavailable != "" || m.DBNewOrders != b.DBNewOrders || m.NOPMDBCheck != b.NOPMDBCheck {
		t.Errorf("the database check is not b's: %+v", m)
	}
	wantAllow := b.DBCheckAllowance + int64(a.VUs+c.VUs) + inDoubt(a.Tx) + inDoubt(c.Tx)
	if m.DBCheckAllowance != wantAllow || m.DBCheckAgree != (m.DBNewOrders-m.NewOrders <= wantAllow) {
		t.Errorf("allowance %d agree %v, want %d (DB %d, client %d)", m.DBCheckAllowance, m.DBCheckAgree, wantAllow, m.DBNewOrders, m.NewOrders)
	}
	if !m.HasServerTPM || m.ServerTPM != 4321 || m.ServerTPMUnavailable != "" {
		t.Errorf("server TPM is not c's: %v %v %q", m.HasServerTPM, m.ServerTPM, m.ServerTPMUnavailable)
	}
	d := m.Disruption
	if d == nil || d.WindowStart != time.Minute || len(d.Outages) != 2 || d.Outages[0].Start != time.Minute ||
		len(d.Connections) != 2 || d.Connections[0].VU != 9 || len(d.MonitorGaps) != 1 || len(d.IdleIntervals) != 0 {
		t.Errorf("disruption %+v", d)
	}
	// Idle intervals are those idle in every part.
	a.Disruption = &Disruption{IdleIntervals: []IdleInterval{{Seq: 14}, {Seq: 15}}}
	m, _ = MergeRunResults(a, b, c)
	if got := m.Disruption.IdleIntervals; len(got) != 1 || got[0].Seq != 14 {
		t.Errorf("idle intervals %+v, want 14 only", got)
	}

	// A database check that disagrees once merged.
	b.DBNewOrders += wantAllow + 1
	m, _ = MergeRunResults(a, b, c)
	if m.DBCheckAgree || !slices.Contains(m.Warnings, DBCheckWarning(m.DBNewOrders, m.NewOrders, m.DBCheckAllowance)) {
		t.Errorf("the check agrees %d apart with allowance %d, or says nothing: %q", m.DBNewOrders-m.NewOrders, m.DBCheckAllowance, m.Warnings)
	}

	if _, err := MergeRunResults(); err == nil {
		t.Error("merge of no results: no error")
	}
	if _, err := MergeRunResults(a, nil); err == nil {
		t.Error("merge with a missing result: no error")
	}
	if _, err := MergeRunResults(a, &RunResult{Tx: []TxSummary{{Name: "new_order", Histogram: []byte("?")}}}); err == nil {
		t.Error("merge with an undecodable histogram: no error")
	}
}

// The parts' audit and cross-check warnings give way to the merged result's,
// in their place; the others are kept, once.
func TestMergeRunResultsWarnings(t *testing.T) {
	t.Parallel()
	off := func(v float64, n int64) []AuditItem {
		return []AuditItem{{Name: "mix payment", Unit: "%", Target: ">= 43.0", Low: 43, High: 100, Value: v, N: n, Verdict: VerdictOff, Note: "below"}}
	}
	a := &RunResult{VUs: 1, NewOrders: 10, HasDBCheck: true, DBNewOrders: 30, DBCheckAllowance: 2, Audit: off(40, 100)}
	b := &RunResult{VUs: 1, NewOrders: 20, Audit: off(50, 300)}
	a.Warnings = append([]string{"one", DBCheckWarning(30, 10, 2)}, AuditWarnings(a.Audit)...)
	a.Warnings = append(a.Warnings, "two")
	b.Warnings = append([]string{"two", "three"}, AuditWarnings(b.Audit)...)
	m, err := MergeRunResults(a, b)
	if err != nil {
		t.Fatal(err)
	}
	// Merged: 30 New-Orders, as the database counted; payments 47.5 %: ok.
	if !m.DBCheckAgree || m.DBCheckAllowance != 3 || m.Audit[0].Status() != VerdictOK {
		t.Fatalf("merged check %v (allowance %d), audit %+v", m.DBCheckAgree, m.DBCheckAllowance, m.Audit)
	}
	if want := []string{"one", "two", "three"}; !slices.Equal(m.Warnings, want) {
		t.Errorf("warnings %q, want %q", m.Warnings, want)
	}
	b.NewOrders, b.Audit = 30, off(30, 300)
	b.Warnings = append([]string{"two", "three"}, AuditWarnings(b.Audit)...)
	m, _ = MergeRunResults(a, b)
	want := append([]string{"one", DBCheckWarning(30, 40, 3)}, AuditWarnings(m.Audit)...)
	if want = append(want, "two", "three"); !slices.Equal(m.Warnings, want) {
		t.Errorf("warnings %q\nwant %q", m.Warnings, want)
	}
}

// TestCommonStalls: the job's stalls are the spans in which every part
// stood still; one part's stall alone is none of the job's, and the
// sessions waiting add up across the parts.
func TestCommonStalls(t *testing.T) {
	t.Parallel()
	s := func(f float64) time.Duration { return time.Duration(f * float64(time.Second)) }
	part := func(stalls ...Stall) *RunResult {
		if stalls == nil {
			return &RunResult{VUs: 2}
		}
		return &RunResult{VUs: 2, Disruption: &Disruption{Sessions: 2, Stalls: stalls}}
	}
	for _, tc := range []struct {
		name  string
		parts []*RunResult
		want  []Stall
	}{
		{"one part", []*RunResult{part(Stall{Start: s(10), End: s(20), Ended: true, VUs: 2, LongestWait: s(10)})},
			[]Stall{{Start: s(10), End: s(20), Ended: true, VUs: 2, LongestWait: s(10)}}},
		{"overlapping", []*RunResult{
			part(Stall{Start: s(10), End: s(20), Ended: true, VUs: 2, LongestWait: s(10)}),
			part(Stall{Start: s(15), End: s(25), Ended: true, VUs: 1, LongestWait: s(10)}),
		}, []Stall{{Start: s(15), End: s(20), Ended: true, VUs: 3, LongestWait: s(10)}}},
		{"one part alone", []*RunResult{
			part(Stall{Start: s(10), End: s(20), Ended: true, VUs: 2, LongestWait: s(10)}),
			part(),
		}, nil},
		{"apart", []*RunResult{
			part(Stall{Start: s(10), End: s(20), Ended: true, VUs: 2}),
			part(Stall{Start: s(30), End: s(40), Ended: true, VUs: 2}),
		}, nil},
	} {
		got := commonStalls(tc.parts)
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: %+v, want %+v", tc.name, got, tc.want)
		}
	}
}

// The agents' per-VU timings together, in VU order, none lost; none when no
// part kept any.
func TestMergeRunResultsVUTiming(t *testing.T) {
	t.Parallel()
	a := &RunResult{VUTiming: []VUTiming{{VU: 3, Tx: "a", Calls: 1}, {VU: 3, Tx: "b", Calls: 2}, {VU: 4, Tx: "a", Calls: 3}}}
	b := &RunResult{VUTiming: []VUTiming{{VU: 1, Tx: "a", Calls: 4}, {VU: 2, Tx: "b", Calls: 5}}}
	m, err := MergeRunResults(a, b)
	if err != nil {
		t.Fatal(err)
	}
	want := []VUTiming{{VU: 1, Tx: "a", Calls: 4}, {VU: 2, Tx: "b", Calls: 5}, {VU: 3, Tx: "a", Calls: 1}, {VU: 3, Tx: "b", Calls: 2}, {VU: 4, Tx: "a", Calls: 3}}
	if !reflect.DeepEqual(m.VUTiming, want) {
		t.Errorf("merged %+v, want %+v", m.VUTiming, want)
	}
	if m, err := MergeRunResults(&RunResult{}, &RunResult{}); err != nil || m.VUTiming != nil {
		t.Errorf("merge of parts without per-VU timing: %+v, %v", m.VUTiming, err)
	}
}
