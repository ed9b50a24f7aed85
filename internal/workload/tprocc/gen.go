package tprocc

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"strconv"
)

// The initial population [4.3.3.1, reference §4] comes from a deterministic
// generator: a seed, the build's C_LOAD and a warehouse number define exactly
// the rows produced, whatever the number of workers sharing the warehouses.
// Every (table, warehouse[, district]) draws from its own random stream, so a
// warehouse can be generated alone, in any order, on any worker.
//
// The generator writes column values into a RowWriter, the seam that lets one
// generator feed several sinks (a COPY text encoder, batched INSERT
// arguments, files) without building row values in between.

// RowWriter receives one row at a time, column by column in the table's
// column order (Table.Columns). Implementations copy what they need: the
// byte slices passed to Text are only valid during the call.
type RowWriter interface {
	Int(v int64)
	// Text is a string value; b may alias the generator's buffers.
	Text(b []byte)
	// Str is a string value known at compile time or shared (e.g. C_LAST).
	Str(s string)
	// Money is an exact amount in cents (NUMERIC(n,2)): money never crosses
	// the generator as a float.
	Money(cents int64)
	// Decimal4 is an exact value in units of 1/10000 (NUMERIC(4,4)).
	Decimal4(v int64)
	Null()
	// Now is the load timestamp, fixed once per build by the sink's owner.
	Now()
	// EndRow completes the row. A sink that executes batches may do I/O here.
	EndRow() error
}

// Table is one of the nine TPROC-C tables.
type Table uint8

const (
	TableItem Table = iota
	TableWarehouse
	TableDistrict
	TableCustomer
	TableHistory
	TableOrders
	TableNewOrder
	TableOrderLine
	TableStock
	numTables
)

// Cardinalities of the initial population [reference §3].
const (
	numItems             = 100000
	districtsPerWH       = 10
	customersPerDistrict = 3000
	ordersPerDistrict    = 3000
	// firstNewOrder is the first undelivered order of a district: orders
	// 2101..3000 have no carrier, NULL delivery dates and a NEW-ORDER row.
	firstNewOrder   = 2101
	originalPerItem = numItems / 10 // rows of ITEM (and of STOCK per warehouse) holding "ORIGINAL"
	badCreditPerD   = customersPerDistrict / 10
)

type tableSpec struct {
	name string
	cols []string
	// rows per warehouse (ITEM: in total). For ORDER-LINE the mean; the exact
	// number depends on the seed (Generator.Rows).
	rows int64
}

// tables describes the nine tables; the column order is that of schema.sql
// (a test checks it).
var tables = [numTables]tableSpec{
	TableItem: {"item", []string{"i_id", "i_im_id", "i_name", "i_price", "i_data"}, numItems},
	TableWarehouse: {"warehouse", []string{"w_id", "w_name", "w_street_1", "w_street_2", "w_city", "w_state",
		"w_zip", "w_tax", "w_ytd"}, 1},
	TableDistrict: {"district", []string{"d_id", "d_w_id", "d_name", "d_street_1", "d_street_2", "d_city",
		"d_state", "d_zip", "d_tax", "d_ytd", "d_next_o_id"}, districtsPerWH},
	TableCustomer: {"customer", []string{"c_id", "c_d_id", "c_w_id", "c_first", "c_middle", "c_last",
		"c_street_1", "c_street_2", "c_city", "c_state", "c_zip", "c_phone", "c_since", "c_credit",
		"c_credit_lim", "c_discount", "c_balance", "c_ytd_payment", "c_payment_cnt", "c_delivery_cnt",
		"c_data"}, districtsPerWH * customersPerDistrict},
	TableHistory: {"history", []string{"h_c_id", "h_c_d_id", "h_c_w_id", "h_d_id", "h_w_id", "h_date",
		"h_amount", "h_data"}, districtsPerWH * customersPerDistrict},
	TableOrders: {"orders", []string{"o_id", "o_d_id", "o_w_id", "o_c_id", "o_entry_d", "o_carrier_id",
		"o_ol_cnt", "o_all_local"}, districtsPerWH * ordersPerDistrict},
	TableNewOrder: {"new_order", []string{"no_o_id", "no_d_id", "no_w_id"},
		districtsPerWH * (ordersPerDistrict - firstNewOrder + 1)},
	TableOrderLine: {"order_line", []string{"ol_o_id", "ol_d_id", "ol_w_id", "ol_number", "ol_i_id",
		"ol_supply_w_id", "ol_delivery_d", "ol_quantity", "ol_amount", "ol_dist_info"},
		districtsPerWH * ordersPerDistrict * 10},
	TableStock: {"stock", []string{"s_i_id", "s_w_id", "s_quantity", "s_dist_01", "s_dist_02", "s_dist_03",
		"s_dist_04", "s_dist_05", "s_dist_06", "s_dist_07", "s_dist_08", "s_dist_09", "s_dist_10", "s_ytd",
		"s_order_cnt", "s_remote_cnt", "s_data"}, numItems},
}

// AllTables lists the nine tables in load order.
func AllTables() []Table {
	return []Table{TableItem, TableWarehouse, TableDistrict, TableCustomer, TableHistory,
		TableOrders, TableNewOrder, TableOrderLine, TableStock}
}

func (t Table) String() string {
	if t < numTables {
		return tables[t].name
	}
	return "table(" + strconv.Itoa(int(t)) + ")"
}

// Columns lists the table's columns in the order a RowWriter receives them.
func (t Table) Columns() []string { return append([]string(nil), tables[t].cols...) }

// PerWarehouse reports whether the table is populated per warehouse (all but
// ITEM).
func (t Table) PerWarehouse() bool { return t != TableItem }

// Random streams: one per (table, warehouse[, district]), plus a few for
// values shared by several tables or the whole build.
const (
	streamTextPool = 1<<63 | iota
	streamCLoad
)

// streamOLCnt is the stream of O_OL_CNT values of a district. ORDER and
// ORDER-LINE are loaded separately (two COPY streams, possibly on two
// workers); both re-derive the line counts from this stream, so they agree.
const streamOLCnt = Table(200)

func streamID(t Table, w, d int) uint64 {
	return uint64(t)<<48 | uint64(w)<<8 | uint64(d)
}

// textPoolSize is the number of random alphanumerics strings are cut from.
// The spec allows pre-computed random text for the initial population
// [4.3.2.1]: a random a-string of length n is n consecutive characters of a
// random pool at a random offset. 1 MiB of pool gives a million distinct
// starting points, plenty against the ~30 strings of a row, and cutting costs
// two random draws instead of one per character.
const (
	textPoolSize = 1 << 20
	maxTextLen   = 500 // longest a-string (C_DATA)
)

// CLoadFor is the C_LOAD of NURand for C_LAST used by a build with this seed.
func CLoadFor(seed uint64) int { return LoadCLast(NewRand(seed, streamCLoad)) }

// Generator produces the initial population. It is immutable once made and
// safe for concurrent use: every table scope draws from its own stream.
type Generator struct {
	seed  uint64
	cLoad int
	pool  []byte
}

// NewGenerator returns the generator of a build. cLoad is the C used for
// C_LAST [2.1.6.1] and must be in [0, 255]; builds use CLoadFor(seed).
func NewGenerator(seed uint64, cLoad int) *Generator {
	r := NewRand(seed, streamTextPool)
	pool := make([]byte, textPoolSize+maxTextLen)
	for i := range pool {
		pool[i] = alnum[r.r.IntN(len(alnum))]
	}
	return &Generator{seed: seed, cLoad: cLoad, pool: pool}
}

// Seed and CLoad are the generator's parameters.
func (g *Generator) Seed() uint64 { return g.seed }
func (g *Generator) CLoad() int   { return g.cLoad }

// Rows returns how many rows table t holds for warehouse w (ITEM: in total).
// Only ORDER-LINE depends on the seed.
func (g *Generator) Rows(t Table, w int) int64 {
	if t == TableOrderLine {
		return g.orderLineRows(w)
	}
	return tables[t].rows
}

func (g *Generator) orderLineRows(w int) int64 {
	var n int64
	for d := 1; d <= districtsPerWH; d++ {
		r := NewRand(g.seed, streamID(streamOLCnt, w, d))
		for o := 1; o <= ordersPerDistrict; o++ {
			n += int64(olCount(r))
		}
	}
	return n
}

func olCount(r *Rand) int { return r.Int(5, 15) }

// WriteRows generates all rows of table t for warehouse w (ignored for ITEM)
// into out, checking ctx every few thousand rows, and returns the number of
// rows written.
func (g *Generator) WriteRows(ctx context.Context, t Table, w int, out RowWriter) (int64, error) {
	src, err := g.source(t, w)
	if err != nil {
		return 0, err
	}
	var n int64
	for {
		if n&4095 == 0 {
			if err := ctx.Err(); err != nil {
				return n, err
			}
		}
		ok, err := src.next(out)
		if err != nil {
			return n, fmt.Errorf("generate %s for warehouse %d: %w", t, w, err)
		}
		if !ok {
			return n, nil
		}
		n++
	}
}

// rowSource produces the rows of one table scope, one row per call. It keeps
// its position between calls so that a COPY stream can pull rows on demand.
type rowSource interface {
	// next writes one row to out and reports false when there are no more
	// rows (then nothing was written).
	next(out RowWriter) (bool, error)
}

func (g *Generator) source(t Table, w int) (rowSource, error) {
	if t != TableItem && (w < 1 || w > maxWarehouses) {
		return nil, fmt.Errorf("warehouse %d out of range [1, %d]", w, maxWarehouses)
	}
	base := genBase{g: g, w: w, wid: int64(w)}
	switch t {
	case TableItem:
		return &itemSource{genBase: base, r: NewRand(g.seed, streamID(TableItem, 0, 0)), id: 1,
			orig: selector{need: originalPerItem, left: numItems}}, nil
	case TableWarehouse:
		return &warehouseSource{genBase: base}, nil
	case TableDistrict:
		return &districtSource{genBase: base, r: NewRand(g.seed, streamID(TableDistrict, w, 0))}, nil
	case TableCustomer:
		return &customerSource{genBase: base}, nil
	case TableHistory:
		return &historySource{genBase: base}, nil
	case TableOrders:
		return &ordersSource{genBase: base, perm: make([]int, customersPerDistrict)}, nil
	case TableNewOrder:
		return &newOrderSource{genBase: base, d: 1, o: firstNewOrder}, nil
	case TableOrderLine:
		return &orderLineSource{genBase: base}, nil
	case TableStock:
		return &stockSource{genBase: base, r: NewRand(g.seed, streamID(TableStock, w, 0)), id: 1,
			orig: selector{need: originalPerItem, left: numItems}}, nil
	}
	return nil, fmt.Errorf("unknown table %d", t)
}

// genBase holds what every source needs: the generator, the warehouse and a
// scratch buffer for values that are assembled rather than cut from the pool.
type genBase struct {
	g       *Generator
	w       int
	wid     int64
	scratch []byte
}

// aString is a random a-string with length in [lo, hi], cut from the pool.
// The result aliases the pool: sinks copy it, nobody writes to it.
func (b *genBase) aString(r *Rand, lo, hi int) []byte {
	n := lo
	if hi > lo {
		n = r.Int(lo, hi)
	}
	off := r.r.IntN(textPoolSize)
	return b.g.pool[off : off+n]
}

// data is I_DATA / S_DATA: an a-string [26 .. 50] that, for rows chosen for
// it, has "ORIGINAL" over 8 consecutive characters at a random position.
func (b *genBase) data(r *Rand, original bool) []byte {
	s := b.aString(r, 26, 50)
	if !original {
		return s
	}
	b.scratch = append(b.scratch[:0], s...)
	copy(b.scratch[r.Int(0, len(s)-8):], "ORIGINAL")
	return b.scratch
}

// address writes STREET_1, STREET_2, CITY, STATE and ZIP.
func (b *genBase) address(r *Rand, out RowWriter) {
	out.Text(b.aString(r, 10, 20))
	out.Text(b.aString(r, 10, 20))
	out.Text(b.aString(r, 10, 20))
	b.scratch = r.Letters(b.scratch[:0], 2)
	out.Text(b.scratch)
	b.scratch = r.Zip(b.scratch[:0])
	out.Text(b.scratch)
}

// selector picks exactly need of the next left rows, uniformly at random
// among all such subsets (selection sampling, Knuth's Algorithm S): each row
// is taken with probability need/left. This implements "10% of the rows,
// chosen at random" as exactly 10% — exactly 10,000 ORIGINAL items, 10,000
// ORIGINAL stock rows per warehouse and 300 "BC" customers per district —
// rather than an independent 10% draw per row, so no load is off by chance.
type selector struct{ need, left int }

func (s *selector) next(r *Rand) bool {
	take := r.r.IntN(s.left) < s.need
	if take {
		s.need--
	}
	s.left--
	return take
}

// ---- ITEM

type itemSource struct {
	genBase
	r    *Rand
	id   int
	orig selector
}

func (s *itemSource) next(out RowWriter) (bool, error) {
	if s.id > numItems {
		return false, nil
	}
	r := s.r
	out.Int(int64(s.id))
	out.Int(int64(r.Int(1, 10000)))     // I_IM_ID
	out.Text(s.aString(r, 14, 24))      // I_NAME
	out.Money(int64(r.Int(100, 10000))) // I_PRICE [1.00 .. 100.00]
	out.Text(s.data(r, s.orig.next(r))) // I_DATA
	s.id++
	return true, out.EndRow()
}

// ---- WAREHOUSE

type warehouseSource struct {
	genBase
	done bool
}

func (s *warehouseSource) next(out RowWriter) (bool, error) {
	if s.done {
		return false, nil
	}
	s.done = true
	r := NewRand(s.g.seed, streamID(TableWarehouse, s.w, 0))
	out.Int(s.wid)
	out.Text(s.aString(r, 6, 10))
	s.address(r, out)
	out.Decimal4(int64(r.Int(0, 2000))) // W_TAX [0.0000 .. 0.2000]
	out.Money(300000_00)                // W_YTD = 30,000 customers × 10.00 of history
	return true, out.EndRow()
}

// ---- DISTRICT

type districtSource struct {
	genBase
	r *Rand
	d int
}

func (s *districtSource) next(out RowWriter) (bool, error) {
	if s.d >= districtsPerWH {
		return false, nil
	}
	s.d++
	r := s.r
	out.Int(int64(s.d))
	out.Int(s.wid)
	out.Text(s.aString(r, 6, 10))
	s.address(r, out)
	out.Decimal4(int64(r.Int(0, 2000))) // D_TAX
	out.Money(30000_00)                 // D_YTD = 3,000 customers × 10.00
	out.Int(ordersPerDistrict + 1)      // D_NEXT_O_ID
	return true, out.EndRow()
}

// ---- CUSTOMER

type customerSource struct {
	genBase
	r      *Rand
	d, c   int
	credit selector
}

func (s *customerSource) next(out RowWriter) (bool, error) {
	if s.c == customersPerDistrict || s.r == nil {
		if s.d == districtsPerWH {
			return false, nil
		}
		s.d++
		s.c = 0
		s.r = NewRand(s.g.seed, streamID(TableCustomer, s.w, s.d))
		s.credit = selector{need: badCreditPerD, left: customersPerDistrict}
	}
	s.c++
	r := s.r
	out.Int(int64(s.c))
	out.Int(int64(s.d))
	out.Int(s.wid)
	out.Text(s.aString(r, 8, 16)) // C_FIRST
	out.Str("OE")                 // C_MIDDLE
	// C_LAST: the first 1,000 customers take the names 0..999 in turn, so
	// every name exists in every district; the rest are NURand(255, 0, 999)
	// with C_LOAD [4.3.3.1].
	n := s.c - 1
	if s.c > 1000 {
		n = r.NURand(nuA_CLast, 0, 999, s.g.cLoad)
	}
	out.Str(LastName(n))
	s.address(r, out)
	s.scratch = r.NString(s.scratch[:0], 16, 16)
	out.Text(s.scratch) // C_PHONE
	out.Now()           // C_SINCE
	if s.credit.next(r) {
		out.Str("BC")
	} else {
		out.Str("GC")
	}
	out.Money(50000_00)                 // C_CREDIT_LIM
	out.Decimal4(int64(r.Int(0, 5000))) // C_DISCOUNT [0.0000 .. 0.5000]
	out.Money(-10_00)                   // C_BALANCE: no delivered amount, one payment of 10.00
	out.Money(10_00)                    // C_YTD_PAYMENT
	out.Int(1)                          // C_PAYMENT_CNT
	out.Int(0)                          // C_DELIVERY_CNT
	out.Text(s.aString(r, 300, 500))    // C_DATA
	return true, out.EndRow()
}

// ---- HISTORY (one row per customer)

type historySource struct {
	genBase
	r    *Rand
	d, c int
}

func (s *historySource) next(out RowWriter) (bool, error) {
	if s.c == customersPerDistrict || s.r == nil {
		if s.d == districtsPerWH {
			return false, nil
		}
		s.d++
		s.c = 0
		s.r = NewRand(s.g.seed, streamID(TableHistory, s.w, s.d))
	}
	s.c++
	out.Int(int64(s.c))
	out.Int(int64(s.d))
	out.Int(s.wid)
	out.Int(int64(s.d))
	out.Int(s.wid)
	out.Now()
	out.Money(10_00)
	out.Text(s.aString(s.r, 12, 24))
	return true, out.EndRow()
}

// ---- ORDERS

type ordersSource struct {
	genBase
	r, cnt *Rand
	d, o   int
	perm   []int
}

func (s *ordersSource) next(out RowWriter) (bool, error) {
	if s.o == ordersPerDistrict || s.r == nil {
		if s.d == districtsPerWH {
			return false, nil
		}
		s.d++
		s.o = 0
		s.r = NewRand(s.g.seed, streamID(TableOrders, s.w, s.d))
		s.cnt = NewRand(s.g.seed, streamID(streamOLCnt, s.w, s.d))
		// O_C_ID walks a fresh random permutation of 1..3000: every customer
		// has exactly one initial order.
		s.r.Perm(s.perm)
	}
	s.o++
	out.Int(int64(s.o))
	out.Int(int64(s.d))
	out.Int(s.wid)
	out.Int(int64(s.perm[s.o-1]))
	out.Now()
	if s.o < firstNewOrder {
		out.Int(int64(s.r.Int(1, 10))) // O_CARRIER_ID: delivered
	} else {
		out.Null()
	}
	out.Int(int64(olCount(s.cnt)))
	out.Int(1) // O_ALL_LOCAL
	return true, out.EndRow()
}

// ---- NEW-ORDER (orders 2101..3000 of each district)

type newOrderSource struct {
	genBase
	d, o int
}

func (s *newOrderSource) next(out RowWriter) (bool, error) {
	if s.o > ordersPerDistrict {
		s.d++
		s.o = firstNewOrder
	}
	if s.d > districtsPerWH {
		return false, nil
	}
	out.Int(int64(s.o))
	out.Int(int64(s.d))
	out.Int(s.wid)
	s.o++
	return true, out.EndRow()
}

// ---- ORDER-LINE

type orderLineSource struct {
	genBase
	r, cnt         *Rand
	d, o, n, olCnt int
}

func (s *orderLineSource) next(out RowWriter) (bool, error) {
	if s.n == s.olCnt {
		if s.o == ordersPerDistrict || s.r == nil {
			if s.d == districtsPerWH {
				return false, nil
			}
			s.d++
			s.o = 0
			s.r = NewRand(s.g.seed, streamID(TableOrderLine, s.w, s.d))
			s.cnt = NewRand(s.g.seed, streamID(streamOLCnt, s.w, s.d))
		}
		s.o++
		s.n = 0
		s.olCnt = olCount(s.cnt)
	}
	s.n++
	r := s.r
	delivered := s.o < firstNewOrder
	out.Int(int64(s.o))
	out.Int(int64(s.d))
	out.Int(s.wid)
	out.Int(int64(s.n))
	out.Int(int64(r.Int(1, numItems))) // OL_I_ID: uniform at load
	out.Int(s.wid)                     // OL_SUPPLY_W_ID: all local
	if delivered {
		out.Now() // OL_DELIVERY_D = O_ENTRY_D
	} else {
		out.Null()
	}
	out.Int(5) // OL_QUANTITY
	// OL_AMOUNT: delivered lines carry 0.00, so that C_BALANCE (−10.00) and
	// C_YTD_PAYMENT (10.00) agree with them (conditions 10 and 12); the
	// undelivered ones a random [0.01 .. 9,999.99].
	if delivered {
		out.Money(0)
	} else {
		out.Money(int64(r.Int(1, 999999)))
	}
	out.Text(s.aString(r, 24, 24)) // OL_DIST_INFO
	return true, out.EndRow()
}

// ---- STOCK

type stockSource struct {
	genBase
	r    *Rand
	id   int
	orig selector
}

func (s *stockSource) next(out RowWriter) (bool, error) {
	if s.id > numItems {
		return false, nil
	}
	r := s.r
	out.Int(int64(s.id))
	out.Int(s.wid)
	out.Int(int64(r.Int(10, 100))) // S_QUANTITY
	for range 10 {
		out.Text(s.aString(r, 24, 24)) // S_DIST_01 .. S_DIST_10
	}
	out.Int(0) // S_YTD
	out.Int(0) // S_ORDER_CNT
	out.Int(0) // S_REMOTE_CNT
	out.Text(s.data(r, s.orig.next(r)))
	s.id++
	return true, out.EndRow()
}

// ---- COPY text encoder

// CopyEncoder is a RowWriter appending rows in PostgreSQL's COPY text format
// (tab-separated, \N for NULL, backslash escapes) to a byte buffer.
type CopyEncoder struct {
	buf []byte
	now []byte
}

// NewCopyEncoder returns an encoder writing now (already in a form the
// server parses as a timestamp, e.g. "2026-01-02 15:04:05") for Now.
func NewCopyEncoder(now string) *CopyEncoder {
	return &CopyEncoder{buf: make([]byte, 0, 128<<10), now: appendCopyText(nil, []byte(now))}
}

// Bytes returns the encoded rows; Reset empties the buffer for reuse.
func (e *CopyEncoder) Bytes() []byte { return e.buf }
func (e *CopyEncoder) Reset()        { e.buf = e.buf[:0] }

// Every value is followed by a tab; EndRow turns the row's last tab into the
// newline. No per-column "first column?" test.

func (e *CopyEncoder) Int(v int64)   { e.buf = append(strconv.AppendInt(e.buf, v, 10), '\t') }
func (e *CopyEncoder) Text(b []byte) { e.buf = append(appendCopyText(e.buf, b), '\t') }
func (e *CopyEncoder) Str(s string) {
	e.buf = append(appendCopyText(e.buf, []byte(s)), '\t') // the conversion does not escape: no allocation
}
func (e *CopyEncoder) Money(cents int64) { e.buf = append(appendFixed(e.buf, cents, 2), '\t') }
func (e *CopyEncoder) Decimal4(v int64)  { e.buf = append(appendFixed(e.buf, v, 4), '\t') }
func (e *CopyEncoder) Null()             { e.buf = append(e.buf, '\\', 'N', '\t') }
func (e *CopyEncoder) Now()              { e.buf = append(append(e.buf, e.now...), '\t') }
func (e *CopyEncoder) EndRow() error {
	if n := len(e.buf); n > 0 && e.buf[n-1] == '\t' {
		e.buf[n-1] = '\n'
		return nil
	}
	return errors.New("COPY encoder: a row without columns")
}

// appendCopyText appends b escaped for COPY text format. The generator's text
// is alphanumeric, so the common path is one scan and one copy; the scan
// tests eight bytes at a time (it was half the generator's time byte by byte).
func appendCopyText(dst, b []byte) []byte {
	i := 0
	for ; i+8 <= len(b); i += 8 {
		if mayNeedEscape(binary.LittleEndian.Uint64(b[i:])) {
			break
		}
	}
	for j, c := range b[i:] {
		if c == '\\' || c == '\t' || c == '\n' || c == '\r' {
			i += j
			dst = append(dst, b[:i]...)
			for _, c := range b[i:] {
				switch c {
				case '\\':
					dst = append(dst, '\\', '\\')
				case '\t':
					dst = append(dst, '\\', 't')
				case '\n':
					dst = append(dst, '\\', 'n')
				case '\r':
					dst = append(dst, '\\', 'r')
				default:
					dst = append(dst, c)
				}
			}
			return dst
		}
	}
	return append(dst, b...)
}

// mayNeedEscape reports whether any byte of the word is a control character
// (below 0x20: tab, newline, carriage return among them) or a backslash. It
// has no false negatives; a rare false positive only costs the byte-wise
// scan. (The classic "has a byte less than n" and "has a zero byte" bit
// tricks.)
func mayNeedEscape(v uint64) bool {
	const (
		ones  = 0x0101010101010101
		highs = 0x8080808080808080
	)
	less32 := (v - ones*0x20) & ^v & highs
	x := v ^ (ones * '\\')
	backslash := (x - ones) & ^x & highs
	return less32|backslash != 0
}

// appendFixed appends v / 10^scale as an exact decimal with scale digits
// after the point (scale 2: cents → "123.45", -1000 → "-10.00").
func appendFixed(dst []byte, v int64, scale int) []byte {
	u := uint64(v)
	if v < 0 {
		dst = append(dst, '-')
		u = uint64(-v)
	}
	var pow uint64 = 1
	for range scale {
		pow *= 10
	}
	dst = strconv.AppendUint(dst, u/pow, 10)
	dst = append(dst, '.')
	frac := u % pow
	for p := pow / 10; p > 0; p /= 10 {
		dst = append(dst, byte('0'+frac/p%10))
	}
	return dst
}
