package tprocc

import (
	"slices"
	"sync/atomic"
	"time"
)

// Transaction types, in the order of TxNames.
const (
	txNewOrder = iota
	txPayment
	txOrderStatus
	txDelivery
	txStockLevel
	numTx
)

var txNames = []string{"new_order", "payment", "order_status", "delivery", "stock_level"}

// Keying times and mean think times per transaction type [5.2.5.7]: a paced
// terminal waits the keying time before submitting and a think time drawn
// from a negative exponential with that mean (capped at ten times it) after.
var (
	keyingTimes = [numTx]time.Duration{18 * time.Second, 3 * time.Second, 2 * time.Second, 2 * time.Second, 2 * time.Second}
	thinkMeans  = [numTx]time.Duration{12 * time.Second, 12 * time.Second, 10 * time.Second, 5 * time.Second, 5 * time.Second}
)

// deckCards is the smallest standard deck [5.2.4]: 10 New-Order, 10 Payment,
// 1 each of Order-Status, Delivery and Stock-Level (43.48/43.48/4.35/4.35/4.35 %).
var deckCards = [23]uint8{
	txNewOrder, txNewOrder, txNewOrder, txNewOrder, txNewOrder,
	txNewOrder, txNewOrder, txNewOrder, txNewOrder, txNewOrder,
	txPayment, txPayment, txPayment, txPayment, txPayment,
	txPayment, txPayment, txPayment, txPayment, txPayment,
	txOrderStatus, txDelivery, txStockLevel,
}

// deck is one terminal's card deck: walked without replacement and reshuffled
// after every pass, so each pass of 23 transactions has exactly the deck's mix.
type deck struct {
	cards [23]uint8
	pos   int
}

func newDeck() deck { return deck{cards: deckCards, pos: len(deckCards)} }

func (d *deck) draw(r *Rand) int {
	if d.pos == len(d.cards) {
		r.r.Shuffle(len(d.cards), func(i, j int) { d.cards[i], d.cards[j] = d.cards[j], d.cards[i] })
		d.pos = 0
	}
	c := d.cards[d.pos]
	d.pos++
	return int(c)
}

// unusedItemID is the item id New-Order uses for its 1% designed rollbacks
// [2.4.1.5]: one past the populated range.
const unusedItemID = 100001

// orderLine is one New-Order line's inputs.
type orderLine struct {
	itemID   int32
	supplyW  int32
	quantity int32
}

// inputs are the current transaction's generated inputs; one set per
// terminal, overwritten by every Next (no allocation per transaction).
type inputs struct {
	w, d int // home warehouse and district

	// New-Order
	customer int
	lines    [15]orderLine
	nLines   int
	allLocal int
	rollback bool

	// Payment and Order-Status
	cw, cd   int    // customer's warehouse and district
	byName   bool   // select the customer by last name
	lastName string // when byName
	amount   int64  // Payment H_AMOUNT in cents

	// Delivery
	carrier int

	// Stock-Level
	threshold int
}

// auditCounters are a terminal's own counts of input properties. Atomics: the
// terminal writes them, the monitor reads them while the run goes on.
type auditCounters struct {
	orderLines     atomic.Int64
	remoteLines    atomic.Int64
	payments       atomic.Int64
	remotePayments atomic.Int64
	paymentsByName atomic.Int64
	ostats         atomic.Int64
	ostatsByName   atomic.Int64
	deliveries     atomic.Int64
	skippedDistr   atomic.Int64
}

// generator draws transactions and their inputs for one terminal, following
// the reference sheet (§6, §7).
type generator struct {
	rng        *Rand
	c          Constants
	warehouses int
	home       int
	slevD      int // the terminal's fixed Stock-Level district
	deck       deck
	in         inputs
	audit      *auditCounters
}

// otherWarehouse draws a warehouse other than home (callers ensure W > 1).
func (g *generator) otherWarehouse() int {
	o := g.rng.Int(1, g.warehouses-1)
	if o >= g.home {
		o++
	}
	return o
}

func (g *generator) customerID() int { return g.rng.NURand(nuA_CID, 1, 3000, g.c.CID) }

func (g *generator) next() int {
	t := g.deck.draw(g.rng)
	g.generate(t)
	return t
}

// generate draws the inputs of a transaction of type t.
func (g *generator) generate(t int) {
	in := &g.in
	in.w = g.home
	switch t {
	case txNewOrder:
		g.newOrder(in)
	case txPayment:
		in.d = g.rng.Int(1, 10)
		in.cw, in.cd = in.w, in.d
		if g.warehouses > 1 && g.rng.Int(1, 100) > 85 {
			in.cw, in.cd = g.otherWarehouse(), g.rng.Int(1, 10)
			g.audit.remotePayments.Add(1)
		}
		g.customerSelection(in)
		if in.byName {
			g.audit.paymentsByName.Add(1)
		}
		in.amount = int64(g.rng.Int(100, 500000))
		g.audit.payments.Add(1)
	case txOrderStatus:
		in.d = g.rng.Int(1, 10)
		in.cw, in.cd = in.w, in.d
		g.customerSelection(in)
		if in.byName {
			g.audit.ostatsByName.Add(1)
		}
		g.audit.ostats.Add(1)
	case txDelivery:
		in.carrier = g.rng.Int(1, 10)
		g.audit.deliveries.Add(1)
	case txStockLevel:
		in.d = g.slevD
		in.threshold = g.rng.Int(10, 20)
	}
}

// customerSelection: 60% by last name (NURand with C_RUN), else by number.
func (g *generator) customerSelection(in *inputs) {
	in.byName = g.rng.Int(1, 100) <= 60
	if in.byName {
		in.lastName = LastName(g.rng.NURand(nuA_CLast, 0, 999, g.c.CLast))
		in.customer = 0
	} else {
		in.lastName = ""
		in.customer = g.customerID()
	}
}

func (g *generator) newOrder(in *inputs) {
	in.d = g.rng.Int(1, 10)
	in.customer = g.customerID()
	in.nLines = g.rng.Int(5, 15)
	in.rollback = g.rng.Int(1, 100) == 1
	in.allLocal = 1
	lines := in.lines[:in.nLines]
	for i := range lines {
		l := &lines[i]
		// Item ids are unique within an order (redrawn), which keeps the
		// NURand distribution and lets the lines be sorted without ties.
		for {
			l.itemID = int32(g.rng.NURand(nuA_OLIID, 1, 100000, g.c.OLIID))
			if !containsItem(lines[:i], l.itemID) {
				break
			}
		}
		l.supplyW = int32(in.w)
		if g.warehouses > 1 && g.rng.Int(1, 100) == 1 {
			l.supplyW = int32(g.otherWarehouse())
			in.allLocal = 0
			g.audit.remoteLines.Add(1)
		}
		l.quantity = int32(g.rng.Int(1, 10))
	}
	if in.rollback {
		lines[len(lines)-1].itemID = unusedItemID
	}
	// Lines in item order: concurrent New-Orders lock STOCK rows in one global
	// order and cannot deadlock on each other. The unused id sorts last, so
	// every valid line is processed before it, as the rollback rule asks.
	slices.SortFunc(lines, func(a, b orderLine) int { return int(a.itemID - b.itemID) })
	g.audit.orderLines.Add(int64(len(lines)))
}

func containsItem(lines []orderLine, id int32) bool {
	for i := range lines {
		if lines[i].itemID == id {
			return true
		}
	}
	return false
}
