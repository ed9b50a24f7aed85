package tprocc

import (
	"context"
	"fmt"
	"math"
	"strings"
	"sync"
	"time"

	"github.com/sledge-bench/sledge/internal/config"
	"github.com/sledge-bench/sledge/internal/db"
	"github.com/sledge-bench/sledge/internal/metrics"
	"github.com/sledge-bench/sledge/internal/workload"
)

// Mode is how transactions reach the database.
type Mode string

const (
	// ModeAuto picks procs where the database has routines, sql elsewhere.
	ModeAuto Mode = ""
	// ModeProcs calls one server-side routine per transaction.
	ModeProcs Mode = "procs"
	// ModeSQL sends the transaction's statements from the client.
	ModeSQL Mode = "sql"
)

// ParseMode accepts "procs", "sql" or "" / "auto".
func ParseMode(s string) (Mode, error) {
	switch s {
	case "", "auto":
		return ModeAuto, nil
	case "procs", "sql":
		return Mode(s), nil
	}
	return "", fmt.Errorf("unknown mode %q (want procs or sql)", s)
}

// RunOptions configure a TPROC-C run.
type RunOptions struct {
	Mode      Mode
	Isolation db.Isolation
	// SnapshotIsolation is given to every session (VUs and monitor).
	SnapshotIsolation db.SnapshotIsolation
	ExecMode          db.ExecMode
	// RandomHome gives each VU a random home warehouse (HammerDB's behaviour)
	// instead of spreading the VUs evenly over the warehouses.
	RandomHome bool
	// Seed makes the run's inputs reproducible; 0 picks one at random.
	Seed uint64
	// Segment is this process's share of a run spread over several
	// processes (the zero Segment: the whole run), and VUs the whole run's
	// virtual users. The process's VUs — the engine's FirstVU onwards, as
	// Segment.Share(VUs) says — are homed on the segment's share of the
	// warehouses (Segment.Share of the database's warehouses), spread
	// there as a whole run spreads its VUs over all, so that processes do
	// not contend for the same districts. A segment that gets no warehouse
	// (more segments than warehouses) homes its VUs over all of them, as
	// the whole run would. VUs is not used when Segment is the whole run.
	Segment config.Segment
	VUs     int
}

// placement homes a process's VUs: the whole run's share of them that the
// process runs and the warehouses they are spread over.
type placement struct {
	firstVU int // the process's first VU, in the whole run (0-based)
	// The warehouses the VUs are spread over: wFirst+1 .. wFirst+wCount.
	wFirst, wCount int
	// own is false when the segment got no warehouse of its own: its VUs
	// are spread over all, by the whole run's rule.
	own bool
}

// newPlacement is the placement of seg's VUs out of vus over warehouses.
func newPlacement(seg config.Segment, vus, warehouses int) placement {
	if seg.IsWhole() {
		return placement{wCount: warehouses, own: true}
	}
	p := placement{}
	p.firstVU, _ = seg.Share(vus)
	p.wFirst, p.wCount = seg.Share(warehouses)
	p.own = p.wCount > 0
	if !p.own {
		p.firstVU, p.wFirst, p.wCount = 0, 0, warehouses
	}
	return p
}

// home is VU vu's home warehouse (1-based) and its Stock-Level district:
// the VUs are spread over the placement's warehouses first, then over the
// districts, counting from the process's first VU — with 10 VUs per
// warehouse every (warehouse, district) pair has exactly one terminal
// [2.8.1.1]. For the whole run: home vu%W+1, district (vu/W)%10+1.
func (p placement) home(vu int) (home, district int) {
	local := vu - p.firstVU
	return p.wFirst + local%p.wCount + 1, (local/p.wCount)%10 + 1
}

// Runner is TPROC-C prepared against one database.
type Runner struct {
	drv    db.Driver
	target db.Target
	opts   RunOptions
	mode   Mode
	q      *queries
	meta   Meta
	c      Constants
	// monitor reads the database's counters at window edges; nil after its
	// session was lost, until Probe re-opens it. session numbers the
	// monitor's sessions (workload.Probe.Session).
	monMu   sync.Mutex
	monitor db.Conn
	session uint64

	place placement
	// snapshotValue is the sessions' innodb_snapshot_isolation (ON, OFF),
	// "" where the server has no such variable.
	snapshotValue string

	mu        sync.Mutex
	terminals []*terminal
	auditBase auditTotals
}

// NewRunner connects a monitor session, reads what the build recorded, picks
// the run's NURand constants (C_RUN admissible against the build's C_LOAD),
// installs the routines for procs mode and marks the database as used.
func NewRunner(ctx context.Context, drv db.Driver, t db.Target, o RunOptions) (*Runner, error) {
	q, err := loadQueries(drv.Kind())
	if err != nil {
		return nil, err
	}
	mode := o.Mode
	switch {
	case mode == ModeAuto && q.hasProcs():
		mode = ModeProcs
	case mode == ModeAuto:
		mode = ModeSQL
	case mode == ModeProcs && !q.hasProcs():
		return nil, config.FieldError{Field: "mode", Msg: fmt.Sprintf("mode procs: %s has no server-side routines in Sledge; run in sql mode", drv.Kind())}
	}
	// The monitor's session is set up as the VUs' are, so that what it
	// reads of the session (snapshotValue) is what they run with.
	mon, err := drv.Connect(ctx, t, db.Options{AppName: "sledge monitor", SnapshotIsolation: o.SnapshotIsolation})
	if err != nil {
		return nil, err
	}
	r := &Runner{drv: drv, target: t, opts: o, mode: mode, q: q, monitor: mon, session: 1}
	if sv, ok := mon.(snapshotReader); ok {
		v, has, err := sv.SnapshotIsolation(ctx)
		if err != nil {
			mon.Close(ctx)
			return nil, err
		}
		if has {
			r.snapshotValue = v
		}
	}
	if r.meta, err = ReadMeta(ctx, mon); err != nil {
		mon.Close(ctx)
		return nil, err
	}
	if o.Seed == 0 {
		o.Seed = randomSeed()
		r.opts.Seed = o.Seed
	}
	r.c = RunConstants(NewRand(o.Seed, math.MaxUint64), r.meta.CLoad)
	r.place = newPlacement(o.Segment, o.VUs, r.meta.Warehouses)
	if mode == ModeProcs {
		if err := InstallProcs(ctx, mon, drv.Kind()); err != nil {
			mon.Close(ctx)
			return nil, err
		}
	}
	if err := MarkDirty(ctx, mon); err != nil {
		mon.Close(ctx)
		return nil, err
	}
	// Prepare the probe's statements now: at the window edges it should cost
	// one round trip, not a parse as well.
	if _, err := r.Probe(ctx); err != nil {
		r.Close(ctx)
		return nil, err
	}
	return r, nil
}

// snapshotReader is a session that can say its MariaDB
// innodb_snapshot_isolation (internal/db/mysql).
type snapshotReader interface {
	SnapshotIsolation(ctx context.Context) (value string, ok bool, err error)
}

// SnapshotValue is the sessions' innodb_snapshot_isolation as the server
// reports it (ON or OFF), "" where the server has no such variable.
func (r *Runner) SnapshotValue() string { return r.snapshotValue }

// Mode is the execution mode the run uses (auto resolved).
func (r *Runner) Mode() Mode { return r.mode }

// Warehouses is the number of warehouses the database was built with.
func (r *Runner) Warehouses() int { return r.meta.Warehouses }

// HomeWarehouses are the warehouses the process's VUs are homed on,
// first .. first+count−1 (1-based), and whether they are its segment's own:
// false when the segment got no warehouse (then they are all of them).
func (r *Runner) HomeWarehouses() (first, count int, own bool) {
	return r.place.wFirst + 1, r.place.wCount, r.place.own
}

// Seed is the seed of the run's inputs.
func (r *Runner) Seed() uint64 { return r.opts.Seed }

// Constants are the run's NURand C values.
func (r *Runner) Constants() Constants { return r.c }

// CLoad is the C_LOAD the database was built with.
func (r *Runner) CLoad() int { return r.meta.CLoad }

// Version asks the server for its product and version.
func (r *Runner) Version(ctx context.Context) (string, error) {
	r.monMu.Lock()
	defer r.monMu.Unlock()
	if err := r.openMonitor(ctx); err != nil {
		return "", err
	}
	return r.drv.Version(ctx, r.monitor)
}

func (r *Runner) TxNames() []string { return txNames }

func (r *Runner) Classify(err error) db.ErrorClass { return r.drv.Classify(err) }

func (r *Runner) Close(ctx context.Context) error {
	r.monMu.Lock()
	defer r.monMu.Unlock()
	if r.monitor == nil {
		return nil
	}
	err := r.monitor.Close(ctx)
	r.monitor = nil
	return err
}

// NewWorker creates terminal vu (its number in the whole run) with a
// session of its own: a closed-loop VU.
func (r *Runner) NewWorker(ctx context.Context, vu int) (workload.Worker, error) {
	s, err := r.newSession(ctx)
	if err != nil {
		return nil, err
	}
	return &worker{terminal: r.newTerminal(vu), own: s}, nil
}

// NewTerminal creates terminal vu (its number in the whole run) without a
// session: its transactions run on whichever session of the pool the
// engine gives it (workload.Pool).
func (r *Runner) NewTerminal(vu int) workload.Terminal { return r.newTerminal(vu) }

// NewSession opens one session of the pool.
func (r *Runner) NewSession(ctx context.Context) (workload.Session, error) { return r.newSession(ctx) }

// newTerminal creates terminal vu. Terminals are spread over the warehouses
// first, then over the districts for Stock-Level: with 10 terminals per
// warehouse every (warehouse, district) pair has exactly one terminal
// [2.8.1.1]. A process running a segment of the run spreads its terminals
// over its own warehouses (RunOptions.Segment).
func (r *Runner) newTerminal(vu int) *terminal {
	rng := NewRand(r.opts.Seed, uint64(vu))
	home, slevD := r.place.home(vu)
	if r.opts.RandomHome {
		home = rng.Int(r.place.wFirst+1, r.place.wFirst+r.place.wCount)
	}
	t := &terminal{
		q:     r.q,
		procs: r.mode == ModeProcs,
		gen: generator{
			rng:        rng,
			c:          r.c,
			warehouses: r.meta.Warehouses,
			home:       home,
			slevD:      slevD,
			deck:       newDeck(),
			audit:      &auditCounters{},
		},
		itemIDs:    make([]int32, 15),
		supplyWs:   make([]int32, 15),
		quantities: make([]int32, 15),
	}
	r.mu.Lock()
	r.terminals = append(r.terminals, t)
	r.mu.Unlock()
	return t
}

// terminal is one terminal's inputs: its generator and the buffers its
// transactions reuse. It runs its transactions on the session it is given
// (conn, set for the time of one execution).
type terminal struct {
	q     *queries
	procs bool
	conn  db.Conn
	gen   generator
	tx    int

	// Reused buffers: no allocation per transaction for these.
	ids                           []int
	buf                           []byte
	itemIDs, supplyWs, quantities []int32
}

func (t *terminal) Next() int {
	t.tx = t.gen.next()
	return t.tx
}

// Choose makes tx the next transaction, with fresh inputs.
func (t *terminal) Choose(tx int) {
	t.tx = tx
	t.gen.generate(tx)
}

// ExecuteOn runs the chosen transaction on session s.
func (t *terminal) ExecuteOn(ctx context.Context, s workload.Session) error {
	t.conn = s.(*session).conn
	err := t.execute(ctx)
	t.conn = nil
	return err
}

// session is one database session of a run.
type session struct {
	r    *Runner
	conn db.Conn
}

func (r *Runner) newSession(ctx context.Context) (*session, error) {
	s := &session{r: r}
	if err := s.connect(ctx); err != nil {
		return nil, err
	}
	return s, nil
}

func (s *session) connect(ctx context.Context) error {
	c, err := s.r.drv.Connect(ctx, s.r.target, db.Options{
		Isolation:         s.r.opts.Isolation,
		SnapshotIsolation: s.r.opts.SnapshotIsolation,
		ExecMode:          s.r.opts.ExecMode,
		AppName:           "sledge vu",
	})
	if err != nil {
		return err
	}
	s.conn = c
	return nil
}

func (s *session) Reconnect(ctx context.Context) error {
	if s.conn != nil {
		_ = s.conn.Close(ctx)
		s.conn = nil
	}
	return s.connect(ctx)
}

func (s *session) Close(ctx context.Context) error {
	if s.conn == nil {
		return nil
	}
	err := s.conn.Close(ctx)
	s.conn = nil
	return err
}

// worker is a closed-loop VU: a terminal with a session of its own.
type worker struct {
	*terminal
	own *session
}

func (w *worker) Execute(ctx context.Context) error   { return w.ExecuteOn(ctx, w.own) }
func (w *worker) Reconnect(ctx context.Context) error { return w.own.Reconnect(ctx) }
func (w *worker) Close(ctx context.Context) error     { return w.own.Close(ctx) }

// Pacing makes the Runner a workload.Pacer: the specification's keying time
// and mean think time of each transaction type.
func (r *Runner) Pacing(tx int) (keying, thinkMean time.Duration) {
	return keyingTimes[tx], thinkMeans[tx]
}

// HeadlineTx: NOPM counts New-Orders.
func (r *Runner) HeadlineTx() int { return txNewOrder }

// defaultProbeTimeout bounds a probe whose context has no deadline.
const defaultProbeTimeout = 10 * time.Second

// Probe reads sum(d_next_o_id) — every committed New-Order advanced it by one
// — and the server's commit counter where there is one. A monitor session
// lost since the last probe (a server restart, a killed session) is re-opened
// like a virtual user's: with backoff, until ctx's deadline (10 s when it has
// none); the probe fails only if the counters could not be read by then.
func (r *Runner) Probe(ctx context.Context) (workload.Probe, error) {
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, defaultProbeTimeout)
		defer cancel()
	}
	r.monMu.Lock()
	defer r.monMu.Unlock()
	backoff := 50 * time.Millisecond
	for attempt := 1; ; attempt++ {
		err := r.openMonitor(ctx)
		if err == nil {
			var p workload.Probe
			if p, err = r.probeOnce(ctx); err == nil {
				p.Session, p.Attempts = r.session, attempt
				return p, nil
			}
			if ctx.Err() == nil && r.drv.Classify(err) != db.ClassConnection {
				return workload.Probe{}, err // the session is fine: the query is not
			}
			// The session is lost (or in an unknown state after a deadline):
			// a new one next time.
			_ = r.monitor.Close(context.Background())
			r.monitor = nil
		}
		if ctx.Err() != nil {
			return workload.Probe{}, fmt.Errorf("monitor session: %w (gave up after %d attempts)", err, attempt)
		}
		t := time.NewTimer(backoff)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return workload.Probe{}, fmt.Errorf("monitor session: %w (gave up after %d attempts)", err, attempt)
		}
		backoff = min(2*backoff, time.Second)
	}
}

// openMonitor opens a new monitor session if the last one was lost. The
// caller holds monMu.
func (r *Runner) openMonitor(ctx context.Context) error {
	if r.monitor != nil {
		return nil
	}
	c, err := r.drv.Connect(ctx, r.target, db.Options{AppName: "sledge monitor"})
	if err != nil {
		return err
	}
	r.monitor = c
	r.session++
	return nil
}

// probeOnce reads the counters through the monitor session. The caller
// holds monMu.
func (r *Runner) probeOnce(ctx context.Context) (workload.Probe, error) {
	var p workload.Probe
	sent := time.Now()
	if err := r.monitor.QueryRow(ctx, "SELECT sum(d_next_o_id) FROM district").Scan(&p.Headline); err != nil {
		return p, fmt.Errorf("read sum(d_next_o_id): %w", err)
	}
	p.RTT = time.Since(sent)
	p.At = sent.Add(p.RTT / 2)
	if sc, ok := r.monitor.(db.ServerCommitCounter); ok {
		n, err := sc.ServerCommits(ctx)
		if err != nil {
			return p, err
		}
		p.ServerCommits, p.HasServerCommits, p.ServerCommitsLag = n, true, sc.ServerCommitsLag()
		p.ServerCommitsAfter = time.Since(p.At)
	}
	return p, nil
}

// auditTotals sums the terminals' counters.
type auditTotals struct {
	orderLines, remoteLines, payments, remotePayments, paymentsByName int64
	ostats, ostatsByName, deliveries, skippedDistr                    int64
}

func (r *Runner) totals() auditTotals {
	r.mu.Lock()
	defer r.mu.Unlock()
	var s auditTotals
	for _, t := range r.terminals {
		a := t.gen.audit
		s.orderLines += a.orderLines.Load()
		s.remoteLines += a.remoteLines.Load()
		s.payments += a.payments.Load()
		s.remotePayments += a.remotePayments.Load()
		s.paymentsByName += a.paymentsByName.Load()
		s.ostats += a.ostats.Load()
		s.ostatsByName += a.ostatsByName.Load()
		s.deliveries += a.deliveries.Load()
		s.skippedDistr += a.skippedDistr.Load()
	}
	return s
}

func (r *Runner) MarkAudit() {
	t := r.totals()
	r.mu.Lock()
	r.auditBase = t
	r.mu.Unlock()
}

// Audit checks the window's actual mix and input properties against the
// reference sheet. Input counts are of generated inputs (drawn by Next), which
// at a window's edges may differ from completed transactions by at most one
// per VU.
func (r *Runner) Audit(completed, rolledBack []int64, failed []map[string]int64) []metrics.AuditItem {
	now := r.totals()
	r.mu.Lock()
	b := r.auditBase
	r.mu.Unlock()
	in := auditTotals{
		orderLines:     now.orderLines - b.orderLines,
		remoteLines:    now.remoteLines - b.remoteLines,
		payments:       now.payments - b.payments,
		remotePayments: now.remotePayments - b.remotePayments,
		paymentsByName: now.paymentsByName - b.paymentsByName,
		ostats:         now.ostats - b.ostats,
		ostatsByName:   now.ostatsByName - b.ostatsByName,
		deliveries:     now.deliveries - b.deliveries,
		skippedDistr:   now.skippedDistr - b.skippedDistr,
	}
	return auditWindow(r.meta.Warehouses, completed, rolledBack, failed, in)
}

// Audit tolerances. A share that is random — the deck's draws within a
// window, the 1 % rollbacks, remote and by-name choices — is accepted within
// auditSigmas standard deviations of a binomial proportion over its sample
// (a false alarm about once in 16,000 items), and never tighter than
// auditFloorPP. The deck draws without replacement, which varies less than
// the binomial: only the partial passes at the window's edges vary at all.
// A share is judged once its sample is expected to hold auditMinExpected of
// each outcome (the normal approximation's rule of thumb); before that its
// verdict is n/a.
const (
	auditSigmas      = 4
	auditFloorPP     = 0.05
	auditMinExpected = 10
	// auditMovedPP is how far (percentage points) failures must move a
	// type's share for the completed mix to be reported beside the
	// attempted one: what the two-decimal rendering shows.
	auditMovedPP = 0.01
)

// mixMinimum is each type's minimum share of the mix [5.2.3], in %; New-Order
// has none (it is the remainder) and is checked against the deck instead.
var mixMinimum = [numTx]float64{txPayment: 43.0, txOrderStatus: 4.0, txDelivery: 4.0, txStockLevel: 4.0}

// deckShare is the share of the 23-card deck that is of type tx (0..1).
func deckShare(tx int) float64 {
	n := 0
	for _, c := range deckCards {
		if int(c) == tx {
			n++
		}
	}
	return float64(n) / float64(len(deckCards))
}

func pct(n, of int64) float64 {
	if of == 0 {
		return 0
	}
	return 100 * float64(n) / float64(of)
}

// shareTolerance is the tolerance, in percentage points either side, of a
// share of probability p measured over n draws.
func shareTolerance(p float64, n int64) float64 {
	if n <= 0 {
		return 100
	}
	return max(auditSigmas*100*math.Sqrt(p*(1-p)/float64(n)), auditFloorPP)
}

// judgeable says whether n draws of probability p are enough to judge, and
// otherwise how many are.
func judgeable(p float64, n int64) (bool, int64) {
	need := int64(math.Ceil(auditMinExpected/min(p, 1-p) - 1e-9)) // 10/(1/23) is 230, not 230.00000000000003
	return n >= need, need
}

func verdict(a metrics.AuditItem, v string, note string) metrics.AuditItem {
	a.Verdict, a.OK, a.Note = v, v != metrics.VerdictOff, note
	return a
}

func tooFew(a metrics.AuditItem, of string, need int64) metrics.AuditItem {
	return verdict(a, metrics.VerdictNA, fmt.Sprintf("too few %s to judge: %s, %s needed", of, thousands(a.N), thousands(need)))
}

// approxItem checks count of n against probability p, two-sided ("≈").
func approxItem(name, target, of string, count, n int64, p float64) metrics.AuditItem {
	tol := shareTolerance(p, n)
	a := metrics.AuditItem{Name: name, Value: pct(count, n), Unit: "%", Target: target, N: n,
		Low: max(100*p-tol, 0), High: min(100*p+tol, 100)}
	if ok, need := judgeable(p, n); !ok {
		return tooFew(a, of, need)
	}
	if a.Value >= a.Low && a.Value <= a.High {
		return verdict(a, metrics.VerdictOK, "")
	}
	sd := 100 * math.Sqrt(p*(1-p)/float64(n))
	return verdict(a, metrics.VerdictOff, fmt.Sprintf("%.2f%% is %.1f standard deviations from the expected %.2f%% over %s %s",
		a.Value, math.Abs(a.Value-100*p)/sd, 100*p, thousands(n), of))
}

// minItem checks a mix share of the deck's probability p against the
// reference's exact minimum. Below the minimum it is OFF unless the deck's
// share could fall there by chance over so few transactions (n/a).
func minItem(name string, count, n int64, minimum, p float64) metrics.AuditItem {
	a := metrics.AuditItem{Name: name, Value: pct(count, n), Unit: "%", Target: fmt.Sprintf(">= %.1f", minimum),
		N: n, Low: minimum, High: 100}
	if ok, need := judgeable(p, n); !ok {
		return tooFew(a, "transactions", need)
	}
	if a.Value >= minimum {
		return verdict(a, metrics.VerdictOK, "")
	}
	if tol := shareTolerance(p, n); 100*p-tol < minimum {
		return verdict(a, metrics.VerdictNA, fmt.Sprintf(
			"below the minimum, but the deck's %.2f%% varies by ±%.2f over %s transactions: too few transactions to judge",
			100*p, tol, thousands(n)))
	}
	return verdict(a, metrics.VerdictOff, fmt.Sprintf("below the minimum: the deck's %.2f%% over %s transactions should not fall below %.2f%%",
		100*p, thousands(n), 100*p-shareTolerance(p, n)))
}

// mixItems checks the mix of counts (per type): New-Order against the
// deck's share, two-sided, the others against their minima.
func mixItems(prefix string, counts []int64) []metrics.AuditItem {
	var all int64
	for _, n := range counts {
		all += n
	}
	items := make([]metrics.AuditItem, 0, numTx)
	for tx := range numTx {
		name := prefix + txNames[tx]
		if tx == txNewOrder {
			p := deckShare(tx)
			items = append(items, approxItem(name, fmt.Sprintf("≈ %.2f (deck)", 100*p), "transactions", counts[tx], all, p))
		} else {
			items = append(items, minItem(name, counts[tx], all, mixMinimum[tx], deckShare(tx)))
		}
	}
	return items
}

// failureSummary words the failed transactions by type and class:
// "new_order 3,900 serialization, 12 deadlock; payment 700 deadlock".
func failureSummary(failed []map[string]int64) (total int64, text string) {
	var parts []string
	for tx, errs := range failed {
		var cls []string
		for _, c := range metrics.SortedErrorClasses(errs) {
			total += errs[c]
			cls = append(cls, thousands(errs[c])+" "+c)
		}
		if len(cls) > 0 {
			name := fmt.Sprint(tx)
			if tx < len(txNames) {
				name = txNames[tx]
			}
			parts = append(parts, name+" "+strings.Join(cls, ", "))
		}
	}
	return total, strings.Join(parts, "; ")
}

// auditWindow is Audit over the window's counts: the mix of attempted
// transactions (completed plus failed: the deck's draws), the completed mix
// when failures moved it, then the inputs' random properties.
func auditWindow(warehouses int, completed, rolledBack []int64, failed []map[string]int64, in auditTotals) []metrics.AuditItem {
	attempted := make([]int64, numTx)
	var allA, allC int64
	for tx := range numTx {
		attempted[tx] = completed[tx]
		if tx < len(failed) {
			for _, n := range failed[tx] {
				attempted[tx] += n
			}
		}
		allA += attempted[tx]
		allC += completed[tx]
	}
	nFailed, byType := failureSummary(failed)

	items := mixItems("mix ", attempted)
	if nFailed > 0 {
		for i := range items {
			if items[i].Note == "" {
				items[i].Note = fmt.Sprintf("of attempted transactions: %s completed and %s failed", thousands(allC), thousands(nFailed))
			}
		}
		moved := false
		for tx := range numTx {
			moved = moved || math.Abs(pct(completed[tx], allC)-pct(attempted[tx], allA)) >= auditMovedPP
		}
		if moved {
			done := mixItems("completed mix ", completed)
			off := false
			for _, a := range done {
				off = off || a.Status() == metrics.VerdictOff
			}
			why := fmt.Sprintf("%s of %s attempted transactions failed (%s): ", thousands(nFailed), thousands(allA), byType)
			if off {
				why += "the completed mix is not the deck's"
			} else {
				why += "they moved the completed mix, within its tolerance"
			}
			for i := range done {
				if done[i].Status() != metrics.VerdictNA {
					done[i].Note = why
				}
			}
			items = append(items, done...)
		}
	}

	rb := approxItem("new_order rollbacks", "≈ 1", "New-Orders", rolledBack[txNewOrder], completed[txNewOrder], 0.01)
	if rb.Status() == metrics.VerdictOff && txNewOrder < len(failed) && len(failed[txNewOrder]) > 0 {
		_, noFailed := failureSummary(failed[txNewOrder : txNewOrder+1])
		rb.Note += fmt.Sprintf("; New-Orders that failed (%s) are outside this base of completed ones", noFailed)
	}
	items = append(items, rb)
	if warehouses > 1 {
		items = append(items,
			approxItem("remote order lines", "≈ 1", "order lines", in.remoteLines, in.orderLines, 0.01),
			approxItem("remote payments", "≈ 15", "payments", in.remotePayments, in.payments, 0.15))
	}
	items = append(items,
		approxItem("payments by last name", "≈ 60", "payments", in.paymentsByName, in.payments, 0.60),
		approxItem("order-status by last name", "≈ 60", "order-status transactions", in.ostatsByName, in.ostats, 0.60))

	// Skips must be reported when they exceed 1 % of the deliveries, or one,
	// whichever is greater (reference 7.4); counted here by district.
	districts := 10 * in.deliveries
	sk := metrics.AuditItem{Name: "delivery districts skipped", Value: pct(in.skippedDistr, districts), Unit: "%", Target: "<= 1",
		N: districts, High: 1}
	if districts > 0 {
		sk.High = max(1, pct(1, districts))
	}
	switch {
	case districts == 0:
		items = append(items, verdict(sk, metrics.VerdictNA, "no deliveries in the window"))
	case sk.Value <= sk.High:
		items = append(items, verdict(sk, metrics.VerdictOK, ""))
	default:
		items = append(items, verdict(sk, metrics.VerdictOff, fmt.Sprintf("%s of %s districts had no New-Order to deliver",
			thousands(in.skippedDistr), thousands(districts))))
	}
	return items
}

var (
	_ workload.Runner   = (*Runner)(nil)
	_ workload.Prober   = (*Runner)(nil)
	_ workload.Auditor  = (*Runner)(nil)
	_ workload.Pool     = (*Runner)(nil)
	_ workload.Worker   = (*worker)(nil)
	_ workload.Terminal = (*terminal)(nil)
	_ workload.Session  = (*session)(nil)
)
