package tprocc

import (
	"context"
	"fmt"
	"math"
	"sync"
	"time"

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
	ExecMode  db.ExecMode
	// RandomHome gives each VU a random home warehouse (HammerDB's behaviour)
	// instead of spreading the VUs evenly over the warehouses.
	RandomHome bool
	// Seed makes the run's inputs reproducible; 0 picks one at random.
	Seed uint64
}

// Runner is TPROC-C prepared against one database.
type Runner struct {
	drv     db.Driver
	target  db.Target
	opts    RunOptions
	mode    Mode
	q       *queries
	meta    Meta
	c       Constants
	monitor db.Conn // reads the database's counters at window edges

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
		return nil, fmt.Errorf("%s has no server-side routines in Sledge; use --mode sql", drv.Kind())
	}
	mon, err := drv.Connect(ctx, t, db.Options{AppName: "sledge monitor"})
	if err != nil {
		return nil, err
	}
	r := &Runner{drv: drv, target: t, opts: o, mode: mode, q: q, monitor: mon}
	if r.meta, err = ReadMeta(ctx, mon); err != nil {
		mon.Close(ctx)
		return nil, err
	}
	if o.Seed == 0 {
		o.Seed = randomSeed()
		r.opts.Seed = o.Seed
	}
	r.c = RunConstants(NewRand(o.Seed, math.MaxUint64), r.meta.CLoad)
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
		mon.Close(ctx)
		return nil, err
	}
	return r, nil
}

// Mode is the execution mode the run uses (auto resolved).
func (r *Runner) Mode() Mode { return r.mode }

// Warehouses is the number of warehouses the database was built with.
func (r *Runner) Warehouses() int { return r.meta.Warehouses }

// Seed is the seed of the run's inputs.
func (r *Runner) Seed() uint64 { return r.opts.Seed }

// Constants are the run's NURand C values.
func (r *Runner) Constants() Constants { return r.c }

// CLoad is the C_LOAD the database was built with.
func (r *Runner) CLoad() int { return r.meta.CLoad }

// Version asks the server for its product and version.
func (r *Runner) Version(ctx context.Context) (string, error) { return r.drv.Version(ctx, r.monitor) }

func (r *Runner) TxNames() []string { return txNames }

func (r *Runner) Classify(err error) db.ErrorClass { return r.drv.Classify(err) }

func (r *Runner) Close(ctx context.Context) error { return r.monitor.Close(ctx) }

// NewWorker creates terminal vu. Terminals are spread over the warehouses
// first, then over the districts for Stock-Level: with 10 VUs per warehouse
// every (warehouse, district) pair has exactly one terminal [2.8.1.1].
func (r *Runner) NewWorker(ctx context.Context, vu int) (workload.Worker, error) {
	w := r.meta.Warehouses
	rng := NewRand(r.opts.Seed, uint64(vu))
	home := vu%w + 1
	if r.opts.RandomHome {
		home = rng.Int(1, w)
	}
	t := &terminal{
		r:     r,
		q:     r.q,
		procs: r.mode == ModeProcs,
		gen: generator{
			rng:        rng,
			c:          r.c,
			warehouses: w,
			home:       home,
			slevD:      (vu/w)%10 + 1,
			deck:       newDeck(),
			audit:      &auditCounters{},
		},
		itemIDs:    make([]int32, 15),
		supplyWs:   make([]int32, 15),
		quantities: make([]int32, 15),
	}
	if err := t.connect(ctx); err != nil {
		return nil, err
	}
	r.mu.Lock()
	r.terminals = append(r.terminals, t)
	r.mu.Unlock()
	return t, nil
}

// terminal is one virtual user: a session and its input generator.
type terminal struct {
	r     *Runner
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

func (t *terminal) connect(ctx context.Context) error {
	c, err := t.r.drv.Connect(ctx, t.r.target, db.Options{
		Isolation: t.r.opts.Isolation,
		ExecMode:  t.r.opts.ExecMode,
		AppName:   "sledge vu",
	})
	if err != nil {
		return err
	}
	t.conn = c
	return nil
}

func (t *terminal) Next() int {
	t.tx = t.gen.next()
	return t.tx
}

func (t *terminal) Execute(ctx context.Context) error { return t.execute(ctx) }

// Pacing makes the Runner a workload.Pacer: the specification's keying time
// and mean think time of each transaction type.
func (r *Runner) Pacing(tx int) (keying, thinkMean time.Duration) {
	return keyingTimes[tx], thinkMeans[tx]
}

func (t *terminal) Reconnect(ctx context.Context) error {
	if t.conn != nil {
		_ = t.conn.Close(ctx)
		t.conn = nil
	}
	return t.connect(ctx)
}

func (t *terminal) Close(ctx context.Context) error {
	if t.conn == nil {
		return nil
	}
	return t.conn.Close(ctx)
}

// HeadlineTx: NOPM counts New-Orders.
func (r *Runner) HeadlineTx() int { return txNewOrder }

// Probe reads sum(d_next_o_id) — every committed New-Order advanced it by one
// — and the server's commit counter where there is one.
func (r *Runner) Probe(ctx context.Context) (workload.Probe, error) {
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
		p.ServerCommits, p.HasServerCommits = n, true
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
func (r *Runner) Audit(completed, rolledBack []int64) []metrics.AuditItem {
	now := r.totals()
	r.mu.Lock()
	b := r.auditBase
	r.mu.Unlock()
	var all int64
	for _, n := range completed {
		all += n
	}
	pct := func(n, of int64) float64 {
		if of == 0 {
			return 0
		}
		return 100 * float64(n) / float64(of)
	}
	mix := func(tx int, target string, ok func(float64) bool) metrics.AuditItem {
		v := pct(completed[tx], all)
		return metrics.AuditItem{Name: "mix " + txNames[tx], Value: v, Unit: "%", Target: target, OK: ok(v)}
	}
	items := []metrics.AuditItem{
		mix(txNewOrder, "≈ 43.48 (deck)", func(v float64) bool { return v <= 45.5 }),
		mix(txPayment, ">= 43.0", func(v float64) bool { return v >= 43.0 }),
		mix(txOrderStatus, ">= 4.0", func(v float64) bool { return v >= 4.0 }),
		mix(txDelivery, ">= 4.0", func(v float64) bool { return v >= 4.0 }),
		mix(txStockLevel, ">= 4.0", func(v float64) bool { return v >= 4.0 }),
	}
	// Short runs cannot meet the mix minima exactly: a deck pass is 23
	// transactions per VU. Flag the mix only once there is enough data.
	if all < 23*50 {
		for i := range items {
			items[i].OK = true
			items[i].Target += " (too few transactions to judge)"
		}
	}
	rb := pct(rolledBack[txNewOrder], completed[txNewOrder])
	items = append(items, metrics.AuditItem{Name: "new_order rollbacks", Value: rb, Unit: "%", Target: "≈ 1", OK: completed[txNewOrder] < 1000 || (rb > 0.5 && rb < 1.5)})
	if r.meta.Warehouses > 1 {
		rl := pct(now.remoteLines-b.remoteLines, now.orderLines-b.orderLines)
		items = append(items, metrics.AuditItem{Name: "remote order lines", Value: rl, Unit: "%", Target: "≈ 1", OK: now.orderLines-b.orderLines < 10000 || (rl > 0.7 && rl < 1.3)})
		rp := pct(now.remotePayments-b.remotePayments, now.payments-b.payments)
		items = append(items, metrics.AuditItem{Name: "remote payments", Value: rp, Unit: "%", Target: "≈ 15", OK: now.payments-b.payments < 1000 || (rp > 12 && rp < 18)})
	}
	pn := pct(now.paymentsByName-b.paymentsByName, now.payments-b.payments)
	items = append(items, metrics.AuditItem{Name: "payments by last name", Value: pn, Unit: "%", Target: "≈ 60", OK: now.payments-b.payments < 1000 || (pn > 55 && pn < 65)})
	on := pct(now.ostatsByName-b.ostatsByName, now.ostats-b.ostats)
	items = append(items, metrics.AuditItem{Name: "order-status by last name", Value: on, Unit: "%", Target: "≈ 60", OK: now.ostats-b.ostats < 200 || (on > 50 && on < 70)})
	sk := pct(now.skippedDistr-b.skippedDistr, 10*(now.deliveries-b.deliveries))
	items = append(items, metrics.AuditItem{Name: "delivery districts skipped", Value: sk, Unit: "%", Target: "<= 1", OK: sk <= 1})
	return items
}

var (
	_ workload.Runner  = (*Runner)(nil)
	_ workload.Prober  = (*Runner)(nil)
	_ workload.Auditor = (*Runner)(nil)
	_ workload.Worker  = (*terminal)(nil)
)
