package tprocc

import (
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/sledge-bench/sledge/internal/db"
)

// value is one column value as a test sees it.
type value struct {
	null bool
	now  bool
	num  int64 // Int, Money (cents), Decimal4 (1/10000)
	text string
	kind byte // 'i' int, 't' text, 'm' money, 'd' decimal4, 'n' null, 'w' now
}

// rowCollector is a RowWriter keeping every row, for inspecting generated data.
type rowCollector struct {
	cur  []value
	rows [][]value
}

func (c *rowCollector) Int(v int64)      { c.cur = append(c.cur, value{num: v, kind: 'i'}) }
func (c *rowCollector) Text(b []byte)    { c.cur = append(c.cur, value{text: string(b), kind: 't'}) }
func (c *rowCollector) Str(s string)     { c.cur = append(c.cur, value{text: s, kind: 't'}) }
func (c *rowCollector) Money(v int64)    { c.cur = append(c.cur, value{num: v, kind: 'm'}) }
func (c *rowCollector) Decimal4(v int64) { c.cur = append(c.cur, value{num: v, kind: 'd'}) }
func (c *rowCollector) Null()            { c.cur = append(c.cur, value{null: true, kind: 'n'}) }
func (c *rowCollector) Now()             { c.cur = append(c.cur, value{now: true, kind: 'w'}) }
func (c *rowCollector) EndRow() error    { c.rows = append(c.rows, c.cur); c.cur = nil; return nil }
func (c *rowCollector) col(r int, t Table, name string) value {
	for i, n := range tables[t].cols {
		if n == name {
			return c.rows[r][i]
		}
	}
	panic("no column " + name)
}

func collect(t *testing.T, g *Generator, tb Table, w int) *rowCollector {
	t.Helper()
	c := &rowCollector{}
	n, err := g.WriteRows(context.Background(), tb, w, c)
	if err != nil {
		t.Fatal(err)
	}
	if n != int64(len(c.rows)) || n != g.Rows(tb, w) {
		t.Fatalf("%s: WriteRows says %d rows, collected %d, Rows says %d", tb, n, len(c.rows), g.Rows(tb, w))
	}
	for i, r := range c.rows {
		if len(r) != len(tables[tb].cols) {
			t.Fatalf("%s row %d has %d values for %d columns", tb, i, len(r), len(tables[tb].cols))
		}
	}
	return c
}

var (
	alnumRe = regexp.MustCompile(`^[a-zA-Z0-9]*$`)
	zipRe   = regexp.MustCompile(`^[0-9]{4}11111$`)
	stateRe = regexp.MustCompile(`^[A-Z]{2}$`)
	phoneRe = regexp.MustCompile(`^[0-9]{16}$`)
)

// checkAString fails unless v is a random a-string [lo .. hi].
func checkAString(t *testing.T, what string, v value, lo, hi int) {
	t.Helper()
	if v.kind != 't' || len(v.text) < lo || len(v.text) > hi || !alnumRe.MatchString(v.text) {
		t.Fatalf("%s = %q (kind %c), want an a-string [%d .. %d]", what, v.text, v.kind, lo, hi)
	}
}

func checkRange(t *testing.T, what string, v value, kind byte, lo, hi int64) {
	t.Helper()
	if v.kind != kind || v.num < lo || v.num > hi {
		t.Fatalf("%s = %d (kind %c), want %c in [%d, %d]", what, v.num, v.kind, kind, lo, hi)
	}
}

func TestColumnsMatchSchema(t *testing.T) {
	// The column list of each CREATE TABLE, in order.
	colRe := regexp.MustCompile(`^\s+([a-z_0-9]+)\s+[a-zA-Z]`)
	for _, kind := range []db.Kind{db.Postgres, db.SQLite} {
		stmts, err := statements(kind, "schema.sql")
		if err != nil {
			t.Fatal(err)
		}
		found := map[string][]string{}
		for _, s := range stmts {
			for _, line := range strings.Split(s.SQL, "\n") {
				if m := colRe.FindStringSubmatch(line); m != nil && m[1] != "key" && m[1] != "value" {
					found[s.Name] = append(found[s.Name], m[1])
				}
			}
		}
		for _, tb := range AllTables() {
			if got, want := strings.Join(found[tb.String()], ","), strings.Join(tb.Columns(), ","); got != want {
				t.Errorf("%s %s columns:\nschema    %s\ngenerator %s", kind, tb, got, want)
			}
		}
	}
}

func TestItemRows(t *testing.T) {
	c := collect(t, NewGenerator(1, 0), TableItem, 0)
	original := 0
	for i := range c.rows {
		checkRange(t, "I_ID", c.col(i, TableItem, "i_id"), 'i', int64(i+1), int64(i+1))
		checkRange(t, "I_IM_ID", c.col(i, TableItem, "i_im_id"), 'i', 1, 10000)
		checkAString(t, "I_NAME", c.col(i, TableItem, "i_name"), 14, 24)
		checkRange(t, "I_PRICE", c.col(i, TableItem, "i_price"), 'm', 100, 10000)
		d := c.col(i, TableItem, "i_data")
		checkAString(t, "I_DATA", d, 26, 50)
		if strings.Contains(d.text, "ORIGINAL") {
			original++
		}
	}
	// Exactly 10% of the rows, chosen at random (selection sampling).
	if original != 10000 {
		t.Errorf("%d items with ORIGINAL, want exactly 10,000", original)
	}
}

func TestStockRows(t *testing.T) {
	const w = 2
	c := collect(t, NewGenerator(1, 0), TableStock, w)
	original := 0
	var firstHalf int
	for i := range c.rows {
		checkRange(t, "S_I_ID", c.col(i, TableStock, "s_i_id"), 'i', int64(i+1), int64(i+1))
		checkRange(t, "S_W_ID", c.col(i, TableStock, "s_w_id"), 'i', w, w)
		checkRange(t, "S_QUANTITY", c.col(i, TableStock, "s_quantity"), 'i', 10, 100)
		for d := 1; d <= 10; d++ {
			checkAString(t, "S_DIST", c.col(i, TableStock, fmt.Sprintf("s_dist_%02d", d)), 24, 24)
		}
		for _, z := range []string{"s_ytd", "s_order_cnt", "s_remote_cnt"} {
			checkRange(t, z, c.col(i, TableStock, z), 'i', 0, 0)
		}
		d := c.col(i, TableStock, "s_data")
		checkAString(t, "S_DATA", d, 26, 50)
		if strings.Contains(d.text, "ORIGINAL") {
			original++
			if i < numItems/2 {
				firstHalf++
			}
		}
	}
	if original != 10000 {
		t.Errorf("%d stock rows with ORIGINAL, want exactly 10,000", original)
	}
	// Chosen at random over all rows, not bunched: about half in each half.
	if firstHalf < 4700 || firstHalf > 5300 {
		t.Errorf("%d of the ORIGINAL rows in the first half of the items", firstHalf)
	}
}

func TestWarehouseAndDistrictRows(t *testing.T) {
	g := NewGenerator(9, 0)
	for w := 1; w <= 3; w++ {
		c := collect(t, g, TableWarehouse, w)
		checkRange(t, "W_ID", c.col(0, TableWarehouse, "w_id"), 'i', int64(w), int64(w))
		checkAString(t, "W_NAME", c.col(0, TableWarehouse, "w_name"), 6, 10)
		checkAString(t, "W_CITY", c.col(0, TableWarehouse, "w_city"), 10, 20)
		if s := c.col(0, TableWarehouse, "w_state").text; !stateRe.MatchString(s) {
			t.Errorf("W_STATE %q", s)
		}
		if z := c.col(0, TableWarehouse, "w_zip").text; !zipRe.MatchString(z) {
			t.Errorf("W_ZIP %q", z)
		}
		checkRange(t, "W_TAX", c.col(0, TableWarehouse, "w_tax"), 'd', 0, 2000)
		checkRange(t, "W_YTD", c.col(0, TableWarehouse, "w_ytd"), 'm', 300000_00, 300000_00)

		c = collect(t, g, TableDistrict, w)
		for i := range c.rows {
			checkRange(t, "D_ID", c.col(i, TableDistrict, "d_id"), 'i', int64(i+1), int64(i+1))
			checkRange(t, "D_W_ID", c.col(i, TableDistrict, "d_w_id"), 'i', int64(w), int64(w))
			checkAString(t, "D_NAME", c.col(i, TableDistrict, "d_name"), 6, 10)
			checkAString(t, "D_STREET_1", c.col(i, TableDistrict, "d_street_1"), 10, 20)
			if z := c.col(i, TableDistrict, "d_zip").text; !zipRe.MatchString(z) {
				t.Errorf("D_ZIP %q", z)
			}
			checkRange(t, "D_TAX", c.col(i, TableDistrict, "d_tax"), 'd', 0, 2000)
			checkRange(t, "D_YTD", c.col(i, TableDistrict, "d_ytd"), 'm', 30000_00, 30000_00)
			checkRange(t, "D_NEXT_O_ID", c.col(i, TableDistrict, "d_next_o_id"), 'i', 3001, 3001)
		}
	}
}

func TestCustomerRows(t *testing.T) {
	const w, cLoad = 1, 157
	c := collect(t, NewGenerator(5, cLoad), TableCustomer, w)
	bc := map[int64]int{}
	nameCount := map[string]int{}
	for i := range c.rows {
		d := int64(i/3000 + 1)
		id := int64(i%3000 + 1)
		checkRange(t, "C_ID", c.col(i, TableCustomer, "c_id"), 'i', id, id)
		checkRange(t, "C_D_ID", c.col(i, TableCustomer, "c_d_id"), 'i', d, d)
		checkRange(t, "C_W_ID", c.col(i, TableCustomer, "c_w_id"), 'i', w, w)
		checkAString(t, "C_FIRST", c.col(i, TableCustomer, "c_first"), 8, 16)
		if m := c.col(i, TableCustomer, "c_middle").text; m != "OE" {
			t.Fatalf("C_MIDDLE %q", m)
		}
		last := c.col(i, TableCustomer, "c_last").text
		if id <= 1000 {
			// The first 1,000 customers of a district take names 0..999 in turn.
			if want := LastName(int(id - 1)); last != want {
				t.Fatalf("customer %d/%d: C_LAST %q, want %q", d, id, last, want)
			}
		} else {
			nameCount[last]++
		}
		if s := c.col(i, TableCustomer, "c_state").text; !stateRe.MatchString(s) {
			t.Fatalf("C_STATE %q", s)
		}
		if z := c.col(i, TableCustomer, "c_zip").text; !zipRe.MatchString(z) {
			t.Fatalf("C_ZIP %q", z)
		}
		if p := c.col(i, TableCustomer, "c_phone").text; !phoneRe.MatchString(p) {
			t.Fatalf("C_PHONE %q", p)
		}
		if !c.col(i, TableCustomer, "c_since").now {
			t.Fatal("C_SINCE is not the load time")
		}
		switch cr := c.col(i, TableCustomer, "c_credit").text; cr {
		case "BC":
			bc[d]++
		case "GC":
		default:
			t.Fatalf("C_CREDIT %q", cr)
		}
		checkRange(t, "C_CREDIT_LIM", c.col(i, TableCustomer, "c_credit_lim"), 'm', 50000_00, 50000_00)
		checkRange(t, "C_DISCOUNT", c.col(i, TableCustomer, "c_discount"), 'd', 0, 5000)
		checkRange(t, "C_BALANCE", c.col(i, TableCustomer, "c_balance"), 'm', -10_00, -10_00)
		checkRange(t, "C_YTD_PAYMENT", c.col(i, TableCustomer, "c_ytd_payment"), 'm', 10_00, 10_00)
		checkRange(t, "C_PAYMENT_CNT", c.col(i, TableCustomer, "c_payment_cnt"), 'i', 1, 1)
		checkRange(t, "C_DELIVERY_CNT", c.col(i, TableCustomer, "c_delivery_cnt"), 'i', 0, 0)
		checkAString(t, "C_DATA", c.col(i, TableCustomer, "c_data"), 300, 500)
	}
	// 10% "BC", chosen at random: exactly 300 per district.
	for d := int64(1); d <= 10; d++ {
		if bc[d] != 300 {
			t.Errorf("district %d: %d BC customers, want 300", d, bc[d])
		}
	}
	// The other 2,000 per district follow NURand(255, 0, 999) with C_LOAD:
	// the most frequent names are far above the uniform 20,000/1,000 = 20.
	hot := 0
	for n := range 1000 {
		if nameCount[LastName(n)] >= 40 {
			hot++
		}
	}
	if hot < 50 {
		t.Errorf("only %d last names are at least twice as frequent as uniform", hot)
	}
	// A different C_LOAD gives different names.
	other := collect(t, NewGenerator(5, (cLoad+100)%256), TableCustomer, w)
	same := 0
	for i := range other.rows {
		if i%3000 >= 1000 && other.col(i, TableCustomer, "c_last").text == c.col(i, TableCustomer, "c_last").text {
			same++
		}
	}
	if same > 2000 {
		t.Errorf("%d of 20,000 NURand names unchanged by another C_LOAD", same)
	}
}

func TestHistoryRows(t *testing.T) {
	c := collect(t, NewGenerator(5, 0), TableHistory, 4)
	for i := range c.rows {
		d, id := int64(i/3000+1), int64(i%3000+1)
		checkRange(t, "H_C_ID", c.col(i, TableHistory, "h_c_id"), 'i', id, id)
		checkRange(t, "H_C_D_ID", c.col(i, TableHistory, "h_c_d_id"), 'i', d, d)
		checkRange(t, "H_D_ID", c.col(i, TableHistory, "h_d_id"), 'i', d, d)
		checkRange(t, "H_C_W_ID", c.col(i, TableHistory, "h_c_w_id"), 'i', 4, 4)
		checkRange(t, "H_W_ID", c.col(i, TableHistory, "h_w_id"), 'i', 4, 4)
		checkRange(t, "H_AMOUNT", c.col(i, TableHistory, "h_amount"), 'm', 10_00, 10_00)
		checkAString(t, "H_DATA", c.col(i, TableHistory, "h_data"), 12, 24)
	}
}

func TestOrdersAndLines(t *testing.T) {
	const w = 3
	g := NewGenerator(11, 0)
	orders := collect(t, g, TableOrders, w)
	lines := collect(t, g, TableOrderLine, w)
	newOrders := collect(t, g, TableNewOrder, w)

	type key struct{ d, o int64 }
	olCnt := map[key]int64{}
	for d := int64(1); d <= 10; d++ {
		seen := make([]bool, 3001)
		for o := int64(1); o <= 3000; o++ {
			i := int((d-1)*3000 + o - 1)
			checkRange(t, "O_ID", orders.col(i, TableOrders, "o_id"), 'i', o, o)
			checkRange(t, "O_D_ID", orders.col(i, TableOrders, "o_d_id"), 'i', d, d)
			checkRange(t, "O_W_ID", orders.col(i, TableOrders, "o_w_id"), 'i', w, w)
			cid := orders.col(i, TableOrders, "o_c_id")
			checkRange(t, "O_C_ID", cid, 'i', 1, 3000)
			if seen[cid.num] {
				t.Fatalf("district %d: customer %d has two orders", d, cid.num)
			}
			seen[cid.num] = true
			if !orders.col(i, TableOrders, "o_entry_d").now {
				t.Fatal("O_ENTRY_D is not the load time")
			}
			carrier := orders.col(i, TableOrders, "o_carrier_id")
			if o < 2101 {
				checkRange(t, "O_CARRIER_ID", carrier, 'i', 1, 10)
			} else if !carrier.null {
				t.Fatalf("order %d/%d: O_CARRIER_ID %d, want NULL", d, o, carrier.num)
			}
			cnt := orders.col(i, TableOrders, "o_ol_cnt")
			checkRange(t, "O_OL_CNT", cnt, 'i', 5, 15)
			olCnt[key{d, o}] = cnt.num
			checkRange(t, "O_ALL_LOCAL", orders.col(i, TableOrders, "o_all_local"), 'i', 1, 1)
		}
		// A permutation: every customer of the district has exactly one order.
		for cid := 1; cid <= 3000; cid++ {
			if !seen[cid] {
				t.Fatalf("district %d: customer %d has no order", d, cid)
			}
		}
	}

	got := map[key]int64{}
	var undelivered, sum int64
	for i := range lines.rows {
		d := lines.col(i, TableOrderLine, "ol_d_id").num
		o := lines.col(i, TableOrderLine, "ol_o_id").num
		k := key{d, o}
		got[k]++
		checkRange(t, "OL_NUMBER", lines.col(i, TableOrderLine, "ol_number"), 'i', got[k], got[k])
		checkRange(t, "OL_W_ID", lines.col(i, TableOrderLine, "ol_w_id"), 'i', w, w)
		checkRange(t, "OL_I_ID", lines.col(i, TableOrderLine, "ol_i_id"), 'i', 1, 100000)
		checkRange(t, "OL_SUPPLY_W_ID", lines.col(i, TableOrderLine, "ol_supply_w_id"), 'i', w, w)
		checkRange(t, "OL_QUANTITY", lines.col(i, TableOrderLine, "ol_quantity"), 'i', 5, 5)
		checkAString(t, "OL_DIST_INFO", lines.col(i, TableOrderLine, "ol_dist_info"), 24, 24)
		del := lines.col(i, TableOrderLine, "ol_delivery_d")
		amount := lines.col(i, TableOrderLine, "ol_amount")
		if o < 2101 {
			// Delivered: dated like the order, amount 0.00.
			if !del.now {
				t.Fatalf("line %d/%d: OL_DELIVERY_D not the load time", d, o)
			}
			checkRange(t, "delivered OL_AMOUNT", amount, 'm', 0, 0)
		} else {
			if !del.null {
				t.Fatalf("line %d/%d: OL_DELIVERY_D not NULL", d, o)
			}
			checkRange(t, "undelivered OL_AMOUNT", amount, 'm', 1, 999999)
			undelivered++
			sum += amount.num
		}
	}
	for k, n := range olCnt {
		if got[k] != n {
			t.Fatalf("order %d/%d: O_OL_CNT %d, %d lines", k.d, k.o, n, got[k])
		}
	}
	if len(got) != len(olCnt) {
		t.Fatalf("lines for %d orders, %d orders", len(got), len(olCnt))
	}
	// Uniform in [0.01, 9,999.99]: the mean is close to 5,000.00.
	if mean := sum / undelivered; mean < 4900_00 || mean > 5100_00 {
		t.Errorf("mean undelivered OL_AMOUNT %d cents", mean)
	}

	if len(newOrders.rows) != 9000 {
		t.Fatalf("%d NEW-ORDER rows", len(newOrders.rows))
	}
	for i := range newOrders.rows {
		d, o := int64(i/900+1), int64(2101+i%900)
		checkRange(t, "NO_O_ID", newOrders.col(i, TableNewOrder, "no_o_id"), 'i', o, o)
		checkRange(t, "NO_D_ID", newOrders.col(i, TableNewOrder, "no_d_id"), 'i', d, d)
		checkRange(t, "NO_W_ID", newOrders.col(i, TableNewOrder, "no_w_id"), 'i', w, w)
	}
}

// warehouseDigest is the SHA-256 of warehouse w's COPY text, table by table.
func warehouseDigest(t testing.TB, g *Generator, w int) [32]byte {
	h := sha256.New()
	enc := NewCopyEncoder("2026-01-02 03:04:05")
	for _, tb := range AllTables()[1:] {
		enc.Reset()
		if _, err := g.WriteRows(context.Background(), tb, w, enc); err != nil {
			t.Fatal(err)
		}
		h.Write([]byte(tb.String()))
		h.Write(enc.Bytes())
	}
	var sum [32]byte
	h.Sum(sum[:0])
	return sum
}

func TestGenerationIsDeterministic(t *testing.T) {
	if testing.Short() {
		t.Skip("generates several warehouses")
	}
	const seed = 77
	// Warehouse 3 from a generator of its own, first: the reference.
	a := warehouseDigest(t, NewGenerator(seed, CLoadFor(seed)), 3)
	if b := warehouseDigest(t, NewGenerator(seed+1, CLoadFor(seed+1)), 3); a == b {
		t.Fatal("warehouse 3 is the same for another seed")
	}

	// Another generator with the same seed, one worker doing warehouses
	// 1..3 in order, and two workers splitting them the other way round
	// concurrently, produce the same warehouses (and warehouse 3 the same
	// bytes as the reference's generator).
	g := NewGenerator(seed, CLoadFor(seed))
	var serial [4][32]byte
	for w := 1; w <= 3; w++ {
		serial[w] = warehouseDigest(t, g, w)
	}
	if serial[3] != a {
		t.Fatal("warehouse 3 differs between two generators with the same seed, or depends on the warehouses generated before it")
	}
	var split [4][32]byte
	var wg sync.WaitGroup
	for _, share := range [][]int{{3, 1}, {2}} {
		wg.Go(func() {
			for _, w := range share {
				split[w] = warehouseDigest(t, g, w)
			}
		})
	}
	wg.Wait()
	if split != serial {
		t.Fatal("a different split of the warehouses over workers gives different data")
	}
	for w := 2; w <= 3; w++ {
		if serial[w] == serial[1] {
			t.Fatalf("warehouses 1 and %d are identical", w)
		}
	}

	// ITEM too.
	var x, y bytes.Buffer
	for _, buf := range []*bytes.Buffer{&x, &y} {
		enc := NewCopyEncoder("now")
		if _, err := NewGenerator(seed, 0).WriteRows(context.Background(), TableItem, 0, enc); err != nil {
			t.Fatal(err)
		}
		buf.Write(enc.Bytes())
	}
	if !bytes.Equal(x.Bytes(), y.Bytes()) {
		t.Fatal("ITEM differs between two generators with the same seed")
	}
}

func TestOrderLineRowsMatchesGeneration(t *testing.T) {
	g := NewGenerator(123, 0)
	for _, w := range []int{1, 7} {
		n, err := g.WriteRows(context.Background(), TableOrderLine, w, discard{})
		if err != nil {
			t.Fatal(err)
		}
		if n != g.Rows(TableOrderLine, w) {
			t.Errorf("warehouse %d: generated %d lines, Rows says %d", w, n, g.Rows(TableOrderLine, w))
		}
		if n < 297000 || n > 303000 {
			t.Errorf("warehouse %d: %d lines, want ≈ 300,000", w, n)
		}
	}
}

func TestWriteRowsStopsOnCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	n, err := NewGenerator(1, 0).WriteRows(ctx, TableStock, 1, discard{})
	if err != context.Canceled || n != 0 {
		t.Fatalf("cancelled WriteRows: %d rows, %v", n, err)
	}
	if _, err := NewGenerator(1, 0).WriteRows(context.Background(), TableStock, 0, discard{}); err == nil {
		t.Fatal("warehouse 0 accepted")
	}
}

// discard is a RowWriter that drops everything.
type discard struct{}

func (discard) Int(int64)      {}
func (discard) Text([]byte)    {}
func (discard) Str(string)     {}
func (discard) Money(int64)    {}
func (discard) Decimal4(int64) {}
func (discard) Null()          {}
func (discard) Now()           {}
func (discard) EndRow() error  { return nil }

func TestCopyEncoder(t *testing.T) {
	e := NewCopyEncoder("2026-01-02 03:04:05")
	e.Int(42)
	e.Text([]byte("plain"))
	e.Text([]byte("tab\there\\back\nnew\rcr"))
	e.Str("OE")
	e.Money(-10_00)
	e.Money(5)
	e.Money(999999)
	e.Decimal4(2000)
	e.Decimal4(7)
	e.Null()
	e.Now()
	e.Text(nil)
	if err := e.EndRow(); err != nil {
		t.Fatal(err)
	}
	e.Int(-1)
	_ = e.EndRow()
	want := "42\tplain\ttab\\there\\\\back\\nnew\\rcr\tOE\t-10.00\t0.05\t9999.99\t0.2000\t0.0007\t\\N\t2026-01-02 03:04:05\t\n-1\n"
	if got := string(e.Bytes()); got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	e.Reset()
	if len(e.Bytes()) != 0 {
		t.Error("Reset left bytes")
	}
}

func TestAppendFixed(t *testing.T) {
	cases := []struct {
		v     int64
		scale int
		want  string
	}{
		{0, 2, "0.00"}, {1, 2, "0.01"}, {10, 2, "0.10"}, {100, 2, "1.00"}, {-1000, 2, "-10.00"},
		{30000000, 2, "300000.00"}, {-5, 2, "-0.05"}, {999999, 2, "9999.99"},
		{0, 4, "0.0000"}, {2000, 4, "0.2000"}, {5000, 4, "0.5000"}, {1, 4, "0.0001"}, {12345, 4, "1.2345"},
	}
	for _, c := range cases {
		if got := string(appendFixed(nil, c.v, c.scale)); got != c.want {
			t.Errorf("appendFixed(%d, %d) = %q, want %q", c.v, c.scale, got, c.want)
		}
	}
}

func TestInsertBatch(t *testing.T) {
	b := &insertBatch{now: "2026-01-02 03:04:05"}
	b.reset(TableHistory)
	for i := range 2 {
		b.Int(int64(i))
		b.Text([]byte(fmt.Sprintf("text%d", i)))
		b.Str("OE")
		b.Money(-10_00)
		b.Decimal4(1234)
		b.Null()
		b.Now()
		_ = b.EndRow()
	}
	b.seal()
	want := []any{int64(0), "text0", "OE", -10.0, 0.1234, nil, "2026-01-02 03:04:05",
		int64(1), "text1", "OE", -10.0, 0.1234, nil, "2026-01-02 03:04:05"}
	if b.rows != 2 || fmt.Sprint(b.args) != fmt.Sprint(want) {
		t.Errorf("rows %d args %v, want %v", b.rows, b.args, want)
	}
	// Money in cents becomes the double nearest to the decimal, as SQLite
	// would store the literal.
	for _, cents := range []int64{1, 10, 99, 12345, 999999, 5000000} {
		b.reset(TableItem)
		b.Money(cents)
		want, err := strconv.ParseFloat(string(appendFixed(nil, cents, 2)), 64)
		if err != nil || b.args[0] != any(want) {
			t.Errorf("Money(%d) = %v, want %v (%v)", cents, b.args[0], want, err)
		}
	}
}

func TestInsertSQL(t *testing.T) {
	l := &sqliteLoader{stmts: map[[2]int]string{}}
	got := l.insertSQL(TableNewOrder, 2)
	want := "INSERT INTO new_order (no_o_id, no_d_id, no_w_id) VALUES (?, ?, ?), (?, ?, ?)"
	if got != want {
		t.Errorf("got %q\nwant %q", got, want)
	}
}

func TestCLoadForIsStable(t *testing.T) {
	for seed := range uint64(50) {
		c := CLoadFor(seed)
		if c < 0 || c > 255 || c != CLoadFor(seed) {
			t.Fatalf("CLoadFor(%d) = %d", seed, c)
		}
	}
}

// BenchmarkGenerateWarehouse generates one warehouse (all eight per-warehouse
// tables, ≈ 500,000 rows) into a COPY encoder whose output is discarded.
func BenchmarkGenerateWarehouse(b *testing.B) {
	g := NewGenerator(1, CLoadFor(1))
	enc := NewCopyEncoder("2026-01-02 03:04:05")
	var rows, bytes int64
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		for _, tb := range AllTables()[1:] {
			src, err := g.source(tb, i%100+1)
			if err != nil {
				b.Fatal(err)
			}
			for {
				ok, err := src.next(enc)
				if err != nil {
					b.Fatal(err)
				}
				if !ok {
					break
				}
				rows++
				if len(enc.buf) >= 64<<10 { // what the COPY reader hands the driver
					bytes += int64(len(enc.buf))
					enc.Reset()
				}
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(rows), "ns/row")
	b.ReportMetric(float64(bytes)/float64(b.N)/1e6, "MB/warehouse")
}

// BenchmarkGenerateTable reports each table separately.
func BenchmarkGenerateTable(b *testing.B) {
	g := NewGenerator(1, CLoadFor(1))
	for _, tb := range AllTables() {
		b.Run(tb.String(), func(b *testing.B) {
			enc := NewCopyEncoder("2026-01-02 03:04:05")
			var rows int64
			b.ReportAllocs()
			for b.Loop() {
				src, _ := g.source(tb, 1)
				for {
					ok, _ := src.next(enc)
					if !ok {
						break
					}
					rows++
					if len(enc.buf) >= 64<<10 {
						enc.Reset()
					}
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(rows), "ns/row")
		})
	}
}

// TestAppendCopyTextMatchesNaive compares the word-at-a-time escaping with
// a byte-by-byte reference on random strings drawn from a set rich in the
// special characters, control characters and UTF-8.
func TestAppendCopyTextMatchesNaive(t *testing.T) {
	naive := func(b []byte) []byte {
		var out []byte
		for _, c := range b {
			switch c {
			case '\\':
				out = append(out, '\\', '\\')
			case '\t':
				out = append(out, '\\', 't')
			case '\n':
				out = append(out, '\\', 'n')
			case '\r':
				out = append(out, '\\', 'r')
			default:
				out = append(out, c)
			}
		}
		return out
	}
	chars := []byte("aZ09 \\\t\n\r\x00\x01\x1f\x20\x5b\x5d\x7f\x80\xc3\xa9\xff")
	r := NewRand(1, 1)
	for i := range 20000 {
		b := make([]byte, r.Int(0, 40))
		for j := range b {
			if i%2 == 0 && r.Int(0, 9) > 0 {
				b[j] = 'x' // mostly plain, like real data
			} else {
				b[j] = chars[r.Int(0, len(chars)-1)]
			}
		}
		if got, want := appendCopyText([]byte("p"), b), append([]byte("p"), naive(b)...); !bytes.Equal(got, want) {
			t.Fatalf("appendCopyText(%q) = %q, want %q", b, got, want)
		}
	}
}
