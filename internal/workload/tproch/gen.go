package tproch

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync"
)

// The TPROC-H data generator reproduces the reference dbgen's output (version 3.0.x)
// value for value [reference §2]: same per-column random streams, draw
// bounds, list orders and text pool, so that the SF 1 answer sets apply.
// Rows stream into a RowWriter one at a time without per-row allocations;
// any table can be cut into parts generated independently (in parallel),
// thanks to the per-row stream boundaries (see gen_rand.go).

// Day numbers: dbgen's dates are offsets from STARTDATE (1992-01-01, Unix
// day 8035); CURRENTDATE 1995-06-17 is offset 1263.
const (
	startDay        = 8035
	currentDayOff   = 1263
	orderDateMaxOff = 2557 - (121 + 30) - 1 // 1998-08-02
)

var standardSF = []float64{1, 10, 30, 100, 300, 1000, 3000, 10000, 30000, 100000}

// IsStandardSF reports whether sf is one of the specification's scale
// factors [4.1.3]; others (fractional test sizes) must be labelled.
func IsStandardSF(sf float64) bool {
	for _, v := range standardSF {
		if sf == v {
			return true
		}
	}
	return false
}

// Generator produces the TPROC-H population of one scale factor. It is
// immutable apart from lazily computed, once-only caches, and safe for
// concurrent use; every Source it returns is used by one goroutine.
type Generator struct {
	sf     float64
	scale  int64 // dbgen's integer scale: SF, or 1 for fractional SF
	parts  int64
	supps  int64
	custs  int64
	orders int64
	clerks int64
	big    bool // SF ≥ 30,000: dbgen's 64-bit generator for O_CUSTKEY, L_PARTKEY

	lineOnce sync.Once
	lineRows int64
}

// NewGenerator validates sf: a standard scale factor (1, 10, 30, 100, 300,
// 1000, 3000, 10000, 30000, 100000) or a fractional test size 0 < sf < 1 in
// steps of 0.001 (0.01, 0.1, …), which dbgen sizes as ⌊1000·sf⌋/1000 of SF 1.
func NewGenerator(sf float64) (*Generator, error) {
	g := &Generator{sf: sf}
	switch {
	case IsStandardSF(sf):
		g.scale = int64(sf)
		g.parts = 200000 * g.scale
		g.supps = 10000 * g.scale
		g.custs = 150000 * g.scale
		g.orders = 1500000 * g.scale
		g.clerks = 1000 * g.scale
		g.big = g.scale >= 30000
	case sf > 0 && sf < 1:
		k := int64(1000 * sf)
		if k < 1 || math.Abs(1000*sf-math.Round(1000*sf)) > 1e-9 {
			return nil, fmt.Errorf("tproch: scale factor %v: fractional test sizes must be multiples of 0.001", sf)
		}
		// dbgen (driver.c) scales each base count by ⌊1000·sf⌋/1000 and keeps
		// its integer scale at 1.
		g.scale = 1
		scaled := func(base int64) int64 { return max(k*base/1000, 1) }
		g.parts = scaled(200000)
		g.supps = scaled(10000)
		g.custs = scaled(150000)
		g.orders = scaled(1500000)
		g.clerks = 1000
	default:
		return nil, fmt.Errorf("tproch: scale factor %v not allowed: use 1, 10, 30, 100, 300, 1000, 3000, "+
			"10000, 30000, 100000, or a fraction below 1 for tests", sf)
	}
	return g, nil
}

// SF is the generator's scale factor.
func (g *Generator) SF() float64 { return g.sf }

// Rows is table t's row count: exact for every table but LINEITEM, whose
// count is estimated as 4 per order (ExactLineitemRows gives the true one).
func (g *Generator) Rows(t Table) int64 {
	switch t {
	case TableRegion:
		return 5
	case TableNation:
		return 25
	case TableSupplier:
		return g.supps
	case TableCustomer:
		return g.custs
	case TablePart:
		return g.parts
	case TablePartSupp:
		return 4 * g.parts
	case TableOrders:
		return g.orders
	case TableLineitem:
		return 4 * g.orders
	}
	return 0
}

// ExactLineitemRows is LINEITEM's exact row count (6,001,215 at SF 1). It
// replays the line-count stream, one draw per order (≈10 ms per SF), once.
func (g *Generator) ExactLineitemRows() int64 {
	g.lineOnce.Do(func() { g.lineRows, _ = g.countLineitemRows(context.Background()) })
	return g.lineRows
}

// countLineitemRows is ExactLineitemRows, given up when ctx ends (at SF
// 1,000 the pass takes seconds).
func (g *Generator) countLineitemRows(ctx context.Context) (int64, error) {
	var s stream
	s.init(sdOLcnt, 0)
	var n int64
	for i := int64(0); i < g.orders; i++ {
		if i&(1<<20-1) == 0 {
			if err := ctx.Err(); err != nil {
				return 0, err
			}
		}
		n += s.intn(1, 7)
		s.nextRow()
	}
	return n, nil
}

// units is the number of generation units of t: rows, parts for PARTSUPP,
// orders for LINEITEM.
func (g *Generator) units(t Table) int64 {
	switch t {
	case TablePartSupp:
		return g.parts
	case TableLineitem:
		return g.orders
	}
	return g.Rows(t)
}

// Source streams part `part` (0-based) of `parts` contiguous slices of table
// t. Slices follow dbgen's -C/-S split: ⌊n/parts⌋ units each, the remainder
// going to the last; PARTSUPP is split by part and LINEITEM by order. Parts
// are independent; parts 0..parts−1 concatenated equal parts = 1 (at
// SF ≥ 30,000, where dbgen itself skips its 64-bit streams approximately,
// part p equals `dbgen -C parts -S p+1` instead).
func (g *Generator) Source(t Table, part, parts int) (*Source, error) {
	if t < 0 || t >= numTables {
		return nil, fmt.Errorf("tproch: unknown table %d", t)
	}
	if parts < 1 || part < 0 || part >= parts {
		return nil, fmt.Errorf("tproch: part %d of %d", part, parts)
	}
	n := g.units(t)
	q := n / int64(parts)
	first := int64(part)*q + 1
	count := q
	if part == parts-1 {
		count += n % int64(parts)
	}
	return g.newSource(t, first, count, 0, 0), nil
}

// refreshRows is the number of orders of one update set: dbgen computes
// ⌊orders/10000⌋·scale·10, i.e. SF×1,500 (10 at SF 0.01, 150 at SF 0.1).
func (g *Generator) refreshRows() int64 {
	return (g.orders / g.scale / 10000) * g.scale * 10
}

// RefreshRows is the number of orders RF1 inserts and RF2 deletes per set:
// 0 below MinRefreshSF, where the refresh functions do nothing.
func (g *Generator) RefreshRows() int64 { return g.refreshRows() }

// MinRefreshSF is the smallest scale factor whose update sets hold orders:
// dbgen's ⌊orders/10000⌋·10 is 10 from 10,500 orders (SF 0.007) and 0 below.
const MinRefreshSF = 0.007

// RefreshSource streams RF1 set n's new orders (TableOrders) or their lines
// (TableLineitem), as `dbgen -U n` writes them to orders.tbl.u<n> and
// lineitem.tbl.u<n>: row indexes (n−1)·R+1 .. n·R of the random streams past
// the base data, keys in slot 1+⌊n/1000⌋ of each 32-key block.
func (g *Generator) RefreshSource(t Table, set int) (*Source, error) {
	if t != TableOrders && t != TableLineitem {
		return nil, errors.New("tproch: refresh data exists only for orders and lineitem")
	}
	if set < 1 {
		return nil, fmt.Errorf("tproch: refresh set %d: sets are numbered from 1", set)
	}
	r := g.refreshRows()
	first := int64(set-1)*r + 1
	slot := 1 + int64(set%10000)/1000
	return g.newSource(t, first, r, g.orders, slot), nil
}

// RefreshDeleteKeys is RF2 set n's order keys (dbgen's delete.<n>): the
// original keys at the same row indexes as RF1 set n, in slot ⌊n/1000⌋ mod 4.
func (g *Generator) RefreshDeleteKeys(set int) []int64 {
	if set < 1 {
		return nil
	}
	r := g.refreshRows()
	first := int64(set-1)*r + 1
	slot := int64(set/1000) & 3
	keys := make([]int64, r)
	for i := range keys {
		keys[i] = sparseKey(first+int64(i), slot)
	}
	return keys
}

// sparseKey is dbgen's mk_sparse: of each 32 keys, the 8 of slot `slot`.
func sparseKey(k, slot int64) int64 {
	return (k>>3)<<5 + slot<<3 + k&7
}

// retailPrice is P_RETAILPRICE in cents for a part key.
func retailPrice(p int64) int64 {
	return 90000 + (p/10)%20001 + (p%1000)*100
}

// partSuppKey is the i-th (0..3) supplier of part p among s suppliers:
// dbgen's spread, p + i·k with k = s/4 + (p−1)/s, modulo s. Two of a part's
// four suppliers coincide when d·k is a multiple of s for some d in 1..3,
// which needs 3k ≥ s: never from SF 0.023 up (k stays near s/4: (p−1)/s is
// at most 19), but for some parts at SF 0.001–0.007, 0.009, 0.012, 0.015,
// 0.018 and 0.021 (at SF 0.001, s = 10, the parts with k = 5 get suppliers
// p, p+5, p, p+5), where dbgen's PARTSUPP breaks its own primary key. There a repeated supplier is replaced by the next
// one up (modulo s) that the part does not have yet: keys stay unique,
// LINEITEM (which draws its supplier through this function) still finds
// every pair in PARTSUPP, and wherever dbgen's keys are unique they are
// unchanged.
func partSuppKey(p, i, s int64) int64 {
	k := s/4 + (p-1)/s
	if 3*k < s || i == 0 {
		return (p+i*k)%s + 1
	}
	return distinctSuppKey(p, i, s, k)
}

// distinctSuppKey is partSuppKey where dbgen's suppliers of a part may
// repeat (s ≥ 4: there are at least ten suppliers).
func distinctSuppKey(p, i, s, k int64) int64 {
	var keys [4]int64
	for j := int64(0); j <= i; j++ {
		c := (p + j*k) % s
		for taken := true; taken; {
			taken = false
			for _, prev := range keys[:j] {
				if prev == c {
					c, taken = (c+1)%s, true
					break
				}
			}
		}
		keys[j] = c
	}
	return keys[i] + 1
}

// Streams each table draws from.
var tableStreamList = [numTables][]int{
	TableRegion:   {sdRCmnt},
	TableNation:   {sdNCmnt},
	TableSupplier: {sdSAddr, sdSNtrg, sdSPhne, sdSAbal, sdSCmnt, sdBBBJnk, sdBBBType, sdBBBCmnt, sdBBBOff},
	TableCustomer: {sdCAddr, sdCNtrg, sdCPhne, sdCAbal, sdCMseg, sdCCmnt},
	TablePart:     {sdPMfg, sdPBrnd, sdPType, sdPSize, sdPCntr, sdPCmnt, sdPName},
	TablePartSupp: {sdPSQty, sdPSScst, sdPSCmnt},
	TableOrders: {sdOClrk, sdOCmnt, sdOODate, sdOPrio, sdOCKey, sdOLcnt,
		sdLQty, sdLDcnt, sdLTax, sdLPKey, sdLSDate},
	TableLineitem: {sdOODate, sdOLcnt, sdLQty, sdLDcnt, sdLTax, sdLShip, sdLSMode, sdLPKey, sdLSKey,
		sdLSDate, sdLCDate, sdLRDate, sdLRFlag, sdLCmnt},
}

type lineRow struct {
	partkey, suppkey, qty, eprice, disc, tax int64
	ship, commit, receipt                    int32
	rflag, status                            byte
	instr, mode                              uint8
	comment                                  []byte
}

type orderRow struct {
	key, cust, total, clerk int64
	status                  byte
	date                    int32
	prio                    uint8
	comment                 []byte
	lines                   int
	l                       [7]lineRow
}

type psRow struct {
	suppkey, qty, cost int64
	comment            []byte
}

// Source streams the rows of one slice of a table. Not safe for concurrent
// use.
type Source struct {
	g     *Generator
	t     Table
	pool  []byte
	next  int64 // next unit (row, part or order index, 1-based)
	end   int64 // last unit
	slot  int64 // order key slot
	st    [numStreams]stream
	order orderRow
	li    int // next line of order to emit
	ps    [4]psRow
	psi   int
	buf   []byte
	cbuf  []byte
	perm  [92]uint8
	touch byte // sink of touchText's loads
}

// touchText loads the first and last byte of each text window of a row
// group (an order's lines, a part's suppliers) in one tight loop. The windows
// lie at random offsets of the 300 MiB pool, so each is a cache miss: loaded
// here, one after the other with nothing in between, the misses overlap,
// where the copies of the rows' encoding, far apart, would wait for them one
// at a time (those copies were most of the generator's time).
func (s *Source) touchText(texts ...[]byte) {
	var x byte
	for _, t := range texts {
		x += t[0] + t[len(t)-1]
	}
	s.touch += x
}

func (g *Generator) newSource(t Table, first, count, posOffset, slot int64) *Source {
	s := &Source{g: g, t: t, pool: textPool(), next: first, end: first + count - 1, slot: slot,
		buf: make([]byte, 0, 128), cbuf: make([]byte, 0, 128), psi: 4}
	for _, sd := range tableStreamList[t] {
		s.st[sd].init(sd, posOffset+first-1)
	}
	return s
}

// Table is the table the Source produces.
func (s *Source) Table() Table { return s.t }

// rowDone moves the table's streams to the next row boundary.
func (s *Source) rowDone() {
	for _, sd := range tableStreamList[s.t] {
		s.st[sd].nextRow()
	}
}

// Next writes one row to w; false at the end of the slice.
func (s *Source) Next(w RowWriter) (bool, error) {
	switch s.t {
	case TableLineitem:
		if s.li >= s.order.lines {
			if s.next > s.end {
				return false, nil
			}
			s.genOrder(s.next, false)
			s.next++
			s.li = 0
		}
		s.writeLine(w, &s.order.l[s.li], s.li+1)
		s.li++
	case TablePartSupp:
		if s.psi >= 4 {
			if s.next > s.end {
				return false, nil
			}
			s.genPartSupp(s.next)
			s.next++
			s.psi = 0
		}
		p := &s.ps[s.psi]
		w.Int(s.next - 1)
		w.Int(p.suppkey)
		w.Int(p.qty)
		w.Decimal(p.cost)
		w.Text(p.comment)
		s.psi++
	default:
		if s.next > s.end {
			return false, nil
		}
		k := s.next
		s.next++
		switch s.t {
		case TableRegion:
			s.genRegion(w, k)
		case TableNation:
			s.genNation(w, k)
		case TableSupplier:
			s.genSupplier(w, k)
		case TableCustomer:
			s.genCustomer(w, k)
		case TablePart:
			s.genPart(w, k)
		case TableOrders:
			s.genOrder(k, true)
			s.writeOrder(w)
		}
	}
	return true, w.EndRow()
}

// appendPad appends v in decimal, zero-padded to width digits.
func appendPad(b []byte, v int64, width int) []byte {
	var tmp [20]byte
	i := len(tmp)
	for v >= 10 || width > 1 {
		i--
		tmp[i] = byte('0' + v%10)
		v /= 10
		width--
	}
	i--
	tmp[i] = byte('0' + v)
	return append(b, tmp[i:]...)
}

func (s *Source) genRegion(w RowWriter, k int64) {
	w.Int(k - 1)
	w.Text(strBytes(regionNames[k-1]))
	w.Text(text(s.pool, &s.st[sdRCmnt], 28, 115))
	s.rowDone()
}

func (s *Source) genNation(w RowWriter, k int64) {
	w.Int(k - 1)
	w.Text(strBytes(nationNames[k-1]))
	w.Int(nationRegion[k-1])
	w.Text(text(s.pool, &s.st[sdNCmnt], 28, 115))
	s.rowDone()
}

// appendPhone appends dbgen's gen_phone for nation n.
func appendPhone(b []byte, st *stream, n int64) []byte {
	a := st.intn(100, 999)
	x := st.intn(100, 999)
	num := st.intn(1000, 9999)
	b = appendPad(b, 10+n, 2)
	b = append(b, '-')
	b = appendPad(b, a, 3)
	b = append(b, '-')
	b = appendPad(b, x, 3)
	b = append(b, '-')
	return appendPad(b, num, 4)
}

func (s *Source) genSupplier(w RowWriter, k int64) {
	w.Int(k)
	s.buf = appendPad(append(s.buf[:0], "Supplier#"...), k, 9)
	w.Text(s.buf)
	s.buf = appendVString(s.buf[:0], &s.st[sdSAddr], 10, 40)
	w.Text(s.buf)
	n := s.st[sdSNtrg].intn(0, 24)
	w.Int(n)
	s.buf = appendPhone(s.buf[:0], &s.st[sdSPhne], n)
	w.Text(s.buf)
	w.Decimal(s.st[sdSAbal].intn(-99999, 999999))
	c := append(s.cbuf[:0], text(s.pool, &s.st[sdSCmnt], 25, 100)...)
	s.cbuf = c
	// "Better Business Bureau" comments: always drawn, applied to about
	// 10 suppliers in 10,000 (half complaints).
	clen := int64(len(c))
	bad := s.st[sdBBBCmnt].intn(1, 10000)
	typ := s.st[sdBBBType].intn(0, 100)
	noise := s.st[sdBBBJnk].intn(0, clen-19)
	off := s.st[sdBBBOff].intn(0, clen-(19+noise))
	if bad <= 10 {
		copy(c[off:], "Customer ")
		if typ < 50 {
			copy(c[off+9+noise:], "Complaints")
		} else {
			copy(c[off+9+noise:], "Recommends")
		}
	}
	w.Text(c)
	s.rowDone()
}

func (s *Source) genCustomer(w RowWriter, k int64) {
	w.Int(k)
	s.buf = appendPad(append(s.buf[:0], "Customer#"...), k, 9)
	w.Text(s.buf)
	s.buf = appendVString(s.buf[:0], &s.st[sdCAddr], 10, 40)
	w.Text(s.buf)
	n := s.st[sdCNtrg].intn(0, 24)
	w.Int(n)
	s.buf = appendPhone(s.buf[:0], &s.st[sdCPhne], n)
	w.Text(s.buf)
	w.Decimal(s.st[sdCAbal].intn(-99999, 999999))
	w.Text(distSegments.words[s.st[sdCMseg].pick(distSegments)])
	w.Text(text(s.pool, &s.st[sdCCmnt], 29, 116))
	s.rowDone()
}

var identity92 = func() (p [92]uint8) {
	for i := range p {
		p[i] = uint8(i)
	}
	return p
}()

func (s *Source) genPart(w RowWriter, k int64) {
	w.Int(k)
	// P_NAME: dbgen permutes all 92 colours (92 draws) and keeps the first
	// five; positions 0..4 are final after the first five swaps, and the
	// stream is resynchronised at the row's end anyway.
	s.perm = identity92
	st := &s.st[sdPName]
	b := s.buf[:0]
	for i := 0; i < 5; i++ {
		j := st.intn(int64(i), 91)
		s.perm[i], s.perm[j] = s.perm[j], s.perm[i]
		if i > 0 {
			b = append(b, ' ')
		}
		b = append(b, colors[s.perm[i]]...)
	}
	w.Text(b)
	m := s.st[sdPMfg].intn(1, 5)
	b = append(b[:0], "Manufacturer#"...)
	b = append(b, byte('0'+m))
	w.Text(b)
	br := s.st[sdPBrnd].intn(1, 5)
	b = append(b[:0], "Brand#"...)
	b = append(b, byte('0'+m), byte('0'+br))
	w.Text(b)
	s.buf = b
	w.Text(distTypes.words[s.st[sdPType].pick(distTypes)])
	w.Int(s.st[sdPSize].intn(1, 50))
	w.Text(distContainers.words[s.st[sdPCntr].pick(distContainers)])
	w.Decimal(retailPrice(k))
	w.Text(text(s.pool, &s.st[sdPCmnt], 5, 22))
	s.rowDone()
}

func (s *Source) genPartSupp(p int64) {
	for i := range s.ps {
		r := &s.ps[i]
		r.suppkey = partSuppKey(p, int64(i), s.g.supps)
		r.qty = s.st[sdPSQty].intn(1, 9999)
		r.cost = s.st[sdPSScst].intn(100, 100000)
		r.comment = text(s.pool, &s.st[sdPSCmnt], 49, 198)
	}
	s.touchText(s.ps[0].comment, s.ps[1].comment, s.ps[2].comment, s.ps[3].comment)
	s.rowDone()
}

// genOrder is dbgen's mk_order for row index k. The ORDERS source (full)
// skips the lines' columns the order does not depend on, the LINEITEM source
// the order's own columns; streams are per column, so skipping draws of
// other columns changes nothing.
func (s *Source) genOrder(k int64, full bool) {
	g := s.g
	o := &s.order
	o.key = sparseKey(k, s.slot)
	if full {
		ck := &s.st[sdOCKey]
		if g.big {
			o.cust = ck.intn64(1, g.custs)
		} else {
			o.cust = ck.intn(1, g.custs)
		}
		delta := int64(1)
		for o.cust%3 == 0 {
			o.cust = min(o.cust+delta, g.custs)
			delta = -delta
		}
	}
	od := s.st[sdOODate].intn(92001, 92001+orderDateMaxOff) - 92001
	o.date = int32(od)
	if full {
		o.prio = uint8(s.st[sdOPrio].pick(distPriorities))
		o.clerk = s.st[sdOClrk].intn(1, g.clerks)
		o.comment = text(s.pool, &s.st[sdOCmnt], 19, 78)
	}
	o.lines = int(s.st[sdOLcnt].intn(1, 7))
	var total int64
	shipped := 0
	pk := &s.st[sdLPKey]
	for i := 0; i < o.lines; i++ {
		l := &o.l[i]
		l.qty = s.st[sdLQty].intn(1, 50)
		l.disc = s.st[sdLDcnt].intn(0, 10)
		l.tax = s.st[sdLTax].intn(0, 8)
		if !full {
			l.instr = uint8(s.st[sdLShip].pick(distInstructions))
			l.mode = uint8(s.st[sdLSMode].pick(distModes))
			l.comment = text(s.pool, &s.st[sdLCmnt], 10, 43)
		}
		if g.big {
			l.partkey = pk.intn64(1, g.parts)
		} else {
			l.partkey = pk.intn(1, g.parts)
		}
		if !full {
			l.suppkey = partSuppKey(l.partkey, s.st[sdLSKey].intn(0, 3), g.supps)
		}
		l.eprice = retailPrice(l.partkey) * l.qty
		total += ((l.eprice * (100 - l.disc)) / 100) * (100 + l.tax) / 100
		sd := s.st[sdLSDate].intn(1, 121) + od
		l.ship = int32(sd)
		if !full {
			l.commit = int32(s.st[sdLCDate].intn(30, 90) + od)
			rd := s.st[sdLRDate].intn(1, 30) + sd
			l.receipt = int32(rd)
			if rd <= currentDayOff {
				l.rflag = distRFlag.words[s.st[sdLRFlag].pick(distRFlag)][0]
			} else {
				l.rflag = 'N'
			}
		}
		if sd <= currentDayOff {
			shipped++
			l.status = 'F'
		} else {
			l.status = 'O'
		}
	}
	o.total = total
	if !full {
		var x byte
		for i := range o.lines {
			c := o.l[i].comment
			x += c[0] + c[len(c)-1]
		}
		s.touch += x // see touchText
	}
	switch shipped {
	case 0:
		o.status = 'O'
	case o.lines:
		o.status = 'F'
	default:
		o.status = 'P'
	}
	if g.big {
		// dbgen resynchronises its 64-bit streams with the 32-bit skip
		// (row_stop → NthElement) over the unused draws.
		ckv, pkv := s.st[sdOCKey].cur, pk.cur
		s.rowDone()
		if full {
			s.st[sdOCKey].cur = ckv
			s.st[sdOCKey].row = ckv
		}
		v := nthElement(pkv, 7-int64(o.lines))
		pk.cur, pk.row = v, v
		return
	}
	s.rowDone()
}

// flagBytes holds the one-letter flag values as byte slices.
var flagBytes [256][]byte

func init() {
	for _, c := range []byte("RANFOP") {
		flagBytes[c] = []byte{c}
	}
}

func (s *Source) writeOrder(w RowWriter) {
	o := &s.order
	w.Int(o.key)
	w.Int(o.cust)
	w.Text(flagBytes[o.status])
	w.Decimal(o.total)
	w.Date(startDay + o.date)
	w.Text(distPriorities.words[o.prio])
	s.buf = appendPad(append(s.buf[:0], "Clerk#"...), o.clerk, 9)
	w.Text(s.buf)
	w.Int(0)
	w.Text(o.comment)
}

func (s *Source) writeLine(w RowWriter, l *lineRow, n int) {
	w.Int(s.order.key)
	w.Int(l.partkey)
	w.Int(l.suppkey)
	w.Int(int64(n))
	w.Decimal(l.qty * 100)
	w.Decimal(l.eprice)
	w.Decimal(l.disc)
	w.Decimal(l.tax)
	w.Text(flagBytes[l.rflag])
	w.Text(flagBytes[l.status])
	w.Date(startDay + l.ship)
	w.Date(startDay + l.commit)
	w.Date(startDay + l.receipt)
	w.Text(distInstructions.words[l.instr])
	w.Text(distModes.words[l.mode])
	w.Text(l.comment)
}

// strBytes returns the bytes of a constant name without allocating per row.
func strBytes(s string) []byte {
	if b, ok := nameBytes[s]; ok {
		return b
	}
	return []byte(s)
}

var nameBytes = func() map[string][]byte {
	m := map[string][]byte{}
	for _, n := range nationNames {
		m[n] = []byte(n)
	}
	for _, n := range regionNames {
		m[n] = []byte(n)
	}
	return m
}()
