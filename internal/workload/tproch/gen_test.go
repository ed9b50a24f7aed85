package tproch

import (
	"bytes"
	"context"
	"io"
	"strconv"
	"strings"
	"testing"
	"time"
)

// val is one collected column value.
type val struct {
	i int64 // Int, Decimal (hundredths), Date (day number)
	s string
}

// collector is a RowWriter keeping every row (tests only).
type collector struct {
	cur  []val
	rows [][]val
}

func (c *collector) Int(v int64)     { c.cur = append(c.cur, val{i: v}) }
func (c *collector) Text(b []byte)   { c.cur = append(c.cur, val{s: string(b)}) }
func (c *collector) Decimal(h int64) { c.cur = append(c.cur, val{i: h}) }
func (c *collector) Date(d int32)    { c.cur = append(c.cur, val{i: int64(d)}) }
func (c *collector) EndRow() error   { c.rows = append(c.rows, c.cur); c.cur = nil; return nil }
func (c *collector) drain(s *Source) error {
	for {
		ok, err := s.Next(c)
		if err != nil || !ok {
			return err
		}
	}
}

func mustGen(t testing.TB, sf float64) *Generator {
	t.Helper()
	g, err := NewGenerator(sf)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// srcOf unwraps a (Source, error) pair, failing the test on error.
func srcOf(t testing.TB) func(*Source, error) *Source {
	return func(s *Source, err error) *Source {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
}

func collect(t testing.TB, src *Source) [][]val {
	t.Helper()
	var c collector
	if err := c.drain(src); err != nil {
		t.Fatal(err)
	}
	return c.rows
}

func tableRows(t testing.TB, g *Generator, tb Table) [][]val {
	return collect(t, srcOf(t)(g.Source(tb, 0, 1)))
}

func encodeAll(t testing.TB, src *Source) []byte {
	t.Helper()
	b, err := io.ReadAll(NewReader(context.Background(), src, FormatPipe))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// dbgen 3.0 SF 1 .tbl first rows (L_QUANTITY is typed decimal here, so
// "17" reads "17.00").
var dbgenFirstRows = map[Table][]string{
	TableRegion: {"0|AFRICA|lar deposits. blithely final packages cajole. regular waters are final requests. regular accounts are according to |"},
	TableNation: {"0|ALGERIA|0| haggle. carefully final deposits detect slyly agai|"},
	TableSupplier: {"1|Supplier#000000001| N kD4on9OM Ipw3,gf0JBoQDd7tgrzrddZ|17|27-918-335-1736|5755.94|each slyly above the careful|",
		"2|Supplier#000000002|89eJ5ksX3ImxJQBvxObC,|5|15-679-861-2259|4032.68| slyly bold instructions. idle dependen|"},
	TableCustomer: {"1|Customer#000000001|IVhzIApeRb ot,c,E|15|25-989-741-2988|711.56|BUILDING|to the even, regular platelets. regular, ironic epitaphs nag e|",
		"2|Customer#000000002|XSTf4,NCwDVaWNe6tEgvwfmRchLXak|13|23-768-687-3665|121.65|AUTOMOBILE|l accounts. blithely ironic theodolites integrate boldly: caref|"},
	TablePart: {"1|goldenrod lavender spring chocolate lace|Manufacturer#1|Brand#13|PROMO BURNISHED COPPER|7|JUMBO PKG|901.00|ly. slyly ironi|",
		"2|blush thistle blue yellow saddle|Manufacturer#1|Brand#13|LARGE BRUSHED BRASS|1|LG CASE|902.00|lar accounts amo|"},
	TablePartSupp: {"1|2|3325|771.64|, even theodolites. regular, final theodolites eat after the carefully pending foxes. furiously regular deposits sleep slyly. carefully bold realms above the ironic dependencies haggle careful|"},
	TableOrders: {"1|36901|O|173665.47|1996-01-02|5-LOW|Clerk#000000951|0|nstructions sleep furiously among |",
		"2|78002|O|46929.18|1996-12-01|1-URGENT|Clerk#000000880|0| foxes. pending accounts at the pending, silent asymptot|"},
	TableLineitem: {"1|155190|7706|1|17.00|21168.23|0.04|0.02|N|O|1996-03-13|1996-02-12|1996-03-22|DELIVER IN PERSON|TRUCK|egular courts above the|",
		"1|67310|7311|2|36.00|45983.16|0.09|0.06|N|O|1996-04-12|1996-02-28|1996-04-20|TAKE BACK RETURN|MAIL|ly final dependencies: slyly bold |"},
}

func TestFirstRowsMatchDbgen(t *testing.T) {
	t.Parallel()
	g := mustGen(t, 1)
	for _, tb := range Tables() {
		want := dbgenFirstRows[tb]
		src, err := g.Source(tb, 0, 1)
		if err != nil {
			t.Fatal(err)
		}
		enc := NewTextEncoder(FormatPipe)
		for range want {
			if ok, err := src.Next(enc); !ok || err != nil {
				t.Fatalf("%v: %v %v", tb, ok, err)
			}
		}
		got := strings.Split(strings.TrimSuffix(string(enc.Bytes()), "\n"), "\n")
		for i := range want {
			if got[i] != want[i] {
				t.Errorf("%v row %d:\n got %s\nwant %s", tb, i+1, got[i], want[i])
			}
		}
	}
}

func TestNewGeneratorValidation(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		sf float64
		ok bool
	}{{1, true}, {10, true}, {100000, true}, {0.01, true}, {0.1, true}, {0.001, true},
		{3, false}, {2, false}, {0, false}, {-1, false}, {0.0005, false}, {1.5, false}, {0.0125, false}} {
		_, err := NewGenerator(tc.sf)
		if (err == nil) != tc.ok {
			t.Errorf("NewGenerator(%v): err %v, want ok=%v", tc.sf, err, tc.ok)
		}
	}
}

func TestCardinalities(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		sf   float64
		rows map[Table]int64
	}{
		{0.01, map[Table]int64{TableRegion: 5, TableNation: 25, TableSupplier: 100, TableCustomer: 1500,
			TablePart: 2000, TablePartSupp: 8000, TableOrders: 15000, TableLineitem: 60000}},
		{1, map[Table]int64{TableRegion: 5, TableNation: 25, TableSupplier: 10000, TableCustomer: 150000,
			TablePart: 200000, TablePartSupp: 800000, TableOrders: 1500000, TableLineitem: 6000000}},
		{1000, map[Table]int64{TableSupplier: 10000000, TableCustomer: 150000000, TablePart: 200000000,
			TablePartSupp: 800000000, TableOrders: 1500000000}},
	} {
		g := mustGen(t, tc.sf)
		for tb, want := range tc.rows {
			if got := g.Rows(tb); got != want {
				t.Errorf("SF %v %v: Rows %d, want %d", tc.sf, tb, got, want)
			}
		}
	}
	// Generated counts at SF 0.01 equal Rows (lineitem: ExactLineitemRows).
	g := mustGen(t, 0.01)
	for _, tb := range Tables() {
		n := int64(len(tableRows(t, g, tb)))
		want := g.Rows(tb)
		if tb == TableLineitem {
			want = g.ExactLineitemRows()
		}
		if n != want {
			t.Errorf("SF 0.01 %v: generated %d rows, want %d", tb, n, want)
		}
	}
}

type countWriter struct{ rows int64 }

func (c *countWriter) Int(int64)     {}
func (c *countWriter) Text([]byte)   {}
func (c *countWriter) Decimal(int64) {}
func (c *countWriter) Date(int32)    {}
func (c *countWriter) EndRow() error { c.rows++; return nil }

func dayOf(y, m, d int) int32 {
	return int32(time.Date(y, time.Month(m), d, 0, 0, 0, 0, time.UTC).Unix() / 86400)
}

func TestColumnRules(t *testing.T) {
	t.Parallel()
	g := mustGen(t, 0.01)
	S, P, C := g.Rows(TableSupplier), g.Rows(TablePart), g.Rows(TableCustomer)
	dStart, dEnd := dayOf(1992, 1, 1), dayOf(1998, 12, 31)
	dCurrent := dayOf(1995, 6, 17)
	colorSet := map[string]bool{}
	for _, c := range colors {
		colorSet[c] = true
	}
	checkPhone := func(tb Table, p string, nation int64) {
		if len(p) != 15 || p[2] != '-' || p[6] != '-' || p[10] != '-' || p[:2] != string(rune('0'+(10+nation)/10))+string(rune('0'+(10+nation)%10)) {
			t.Errorf("%v phone %q for nation %d", tb, p, nation)
		}
	}

	// SUPPLIER
	bbb := 0
	for i, r := range tableRows(t, g, TableSupplier) {
		if r[0].i != int64(i+1) || r[1].s != "Supplier#"+pad9(r[0].i) {
			t.Errorf("supplier key/name %v %v", r[0].i, r[1].s)
		}
		if n := len(r[2].s); n < 10 || n > 40 {
			t.Errorf("s_address length %d", n)
		}
		if r[3].i < 0 || r[3].i > 24 {
			t.Errorf("s_nationkey %d", r[3].i)
		}
		checkPhone(TableSupplier, r[4].s, r[3].i)
		if r[5].i < -99999 || r[5].i > 999999 {
			t.Errorf("s_acctbal %d", r[5].i)
		}
		if n := len(r[6].s); n < 25 || n > 100 {
			t.Errorf("s_comment length %d", n)
		}
		if strings.Contains(r[6].s, "Customer ") {
			bbb++
		}
	}
	_ = bbb // ~0.1 expected at SF 0.01; checked at SF 1 below.

	// PART
	for i, r := range tableRows(t, g, TablePart) {
		k := int64(i + 1)
		if r[0].i != k {
			t.Fatalf("p_partkey %d at row %d", r[0].i, i)
		}
		words := strings.Split(r[1].s, " ")
		seen := map[string]bool{}
		for _, w := range words {
			if !colorSet[w] || seen[w] {
				t.Errorf("p_name %q", r[1].s)
			}
			seen[w] = true
		}
		if len(words) != 5 {
			t.Errorf("p_name %q: %d words", r[1].s, len(words))
		}
		m := r[2].s[len(r[2].s)-1]
		if !strings.HasPrefix(r[2].s, "Manufacturer#") || m < '1' || m > '5' ||
			!strings.HasPrefix(r[3].s, "Brand#") || r[3].s[6] != m || r[3].s[7] < '1' || r[3].s[7] > '5' {
			t.Errorf("p_mfgr/p_brand %q %q", r[2].s, r[3].s)
		}
		if len(strings.Fields(r[4].s)) != 3 || r[5].i < 1 || r[5].i > 50 {
			t.Errorf("p_type/p_size %q %d", r[4].s, r[5].i)
		}
		if want := 90000 + (k/10)%20001 + 100*(k%1000); r[7].i != want {
			t.Errorf("p_retailprice(%d) = %d, want %d", k, r[7].i, want)
		}
		if n := len(r[8].s); n < 5 || n > 22 {
			t.Errorf("p_comment length %d", n)
		}
	}

	// PARTSUPP
	pairs := map[[2]int64]bool{}
	for i, r := range tableRows(t, g, TablePartSupp) {
		p, j := int64(i/4+1), int64(i%4)
		if r[0].i != p {
			t.Fatalf("ps_partkey %d at row %d", r[0].i, i)
		}
		if want := (p+j*(S/4+(p-1)/S))%S + 1; r[1].i != want {
			t.Errorf("ps_suppkey(%d,%d) = %d, want %d", p, j, r[1].i, want)
		}
		if r[2].i < 1 || r[2].i > 9999 || r[3].i < 100 || r[3].i > 100000 {
			t.Errorf("ps_availqty/ps_supplycost %d %d", r[2].i, r[3].i)
		}
		if n := len(r[4].s); n < 49 || n > 198 {
			t.Errorf("ps_comment length %d", n)
		}
		pairs[[2]int64{r[0].i, r[1].i}] = true
	}
	if len(pairs) != int(4*P) {
		t.Errorf("partsupp has %d distinct pairs, want %d", len(pairs), 4*P)
	}

	// CUSTOMER
	segs := map[string]bool{"AUTOMOBILE": true, "BUILDING": true, "FURNITURE": true, "HOUSEHOLD": true, "MACHINERY": true}
	for i, r := range tableRows(t, g, TableCustomer) {
		if r[0].i != int64(i+1) || r[1].s != "Customer#"+pad9(r[0].i) {
			t.Errorf("customer key/name %v %v", r[0].i, r[1].s)
		}
		checkPhone(TableCustomer, r[4].s, r[3].i)
		if !segs[r[6].s] || r[5].i < -99999 || r[5].i > 999999 {
			t.Errorf("customer %v", r)
		}
		if n := len(r[7].s); n < 29 || n > 116 {
			t.Errorf("c_comment length %d", n)
		}
	}

	// ORDERS and LINEITEM
	orders := tableRows(t, g, TableOrders)
	lines := tableRows(t, g, TableLineitem)
	byOrder := map[int64][][]val{}
	for _, l := range lines {
		byOrder[l[0].i] = append(byOrder[l[0].i], l)
	}
	for i, o := range orders {
		k := int64(i + 1)
		key := o[0].i
		if want := ((k >> 3) << 5) + (k & 7); key != want {
			t.Fatalf("order %d key %d, want %d", k, key, want)
		}
		if key%32 >= 8 {
			t.Errorf("order key %d outside the first 8 slots", key)
		}
		if o[1].i%3 == 0 || o[1].i < 1 || o[1].i > C {
			t.Errorf("o_custkey %d", o[1].i)
		}
		od := int32(o[4].i)
		if od < dStart || od > dayOf(1998, 8, 2) {
			t.Errorf("o_orderdate %d", od)
		}
		if n := len(o[8].s); n < 19 || n > 78 {
			t.Errorf("o_comment length %d", n)
		}
		if !strings.HasPrefix(o[6].s, "Clerk#") || o[7].i != 0 {
			t.Errorf("o_clerk/o_shippriority %q %d", o[6].s, o[7].i)
		}
		ls := byOrder[key]
		if len(ls) < 1 || len(ls) > 7 {
			t.Fatalf("order %d has %d lines", key, len(ls))
		}
		var total int64
		nF := 0
		for j, l := range ls {
			if l[3].i != int64(j+1) {
				t.Errorf("l_linenumber %d at %d", l[3].i, j+1)
			}
			pk, sk, qty, ext, disc, tax := l[1].i, l[2].i, l[4].i, l[5].i, l[6].i, l[7].i
			if pk < 1 || pk > P || !pairs[[2]int64{pk, sk}] {
				t.Errorf("lineitem (%d,%d) not in partsupp", pk, sk)
			}
			if qty%100 != 0 || qty < 100 || qty > 5000 || ext != qty/100*retailPrice(pk) {
				t.Errorf("l_quantity/l_extendedprice %d %d", qty, ext)
			}
			if disc < 0 || disc > 10 || tax < 0 || tax > 8 {
				t.Errorf("l_discount/l_tax %d %d", disc, tax)
			}
			ship, commit, receipt := int32(l[10].i), int32(l[11].i), int32(l[12].i)
			if ship-od < 1 || ship-od > 121 || commit-od < 30 || commit-od > 90 ||
				receipt-ship < 1 || receipt-ship > 30 || receipt > dEnd {
				t.Errorf("lineitem dates %d %d %d (order %d)", ship, commit, receipt, od)
			}
			flag, status := l[8].s, l[9].s
			if (receipt <= dCurrent) != (flag == "R" || flag == "A") || (receipt > dCurrent) != (flag == "N") {
				t.Errorf("l_returnflag %s with receipt %d", flag, receipt)
			}
			if (ship > dCurrent) != (status == "O") || (ship <= dCurrent) != (status == "F") {
				t.Errorf("l_linestatus %s with ship %d", status, ship)
			}
			if status == "F" {
				nF++
			}
			total += (ext * (100 - disc) / 100) * (100 + tax) / 100
			if n := len(l[15].s); n < 10 || n > 43 {
				t.Errorf("l_comment length %d", n)
			}
		}
		if o[3].i != total {
			t.Errorf("order %d: o_totalprice %d, recomputed %d", key, o[3].i, total)
		}
		want := "P"
		if nF == len(ls) {
			want = "F"
		} else if nF == 0 {
			want = "O"
		}
		if o[2].s != want {
			t.Errorf("order %d: o_orderstatus %s, want %s", key, o[2].s, want)
		}
		delete(byOrder, key)
	}
	if len(byOrder) != 0 {
		t.Errorf("%d line groups without an order", len(byOrder))
	}

	// NATION and REGION
	for i, r := range tableRows(t, g, TableNation) {
		if r[0].i != int64(i) || r[1].s != nationNames[i] || r[2].i != nationRegion[i] {
			t.Errorf("nation %v", r)
		}
	}
	for i, r := range tableRows(t, g, TableRegion) {
		if r[0].i != int64(i) || r[1].s != regionNames[i] {
			t.Errorf("region %v", r)
		}
	}
}

// TestSupplierBBBComments checks the Q16 "Customer…Complaints" rows at SF 1
// (about 5 complaints and 5 recommendations per 10,000 suppliers).
func TestSupplierBBBComments(t *testing.T) {
	t.Parallel()
	g := mustGen(t, 1)
	var compl, rec int
	for _, r := range tableRows(t, g, TableSupplier) {
		c := r[6].s
		i := strings.Index(c, "Customer ")
		if i < 0 {
			continue
		}
		switch {
		case strings.Contains(c[i:], "Complaints"):
			compl++
		case strings.Contains(c[i:], "Recommends"):
			rec++
		}
	}
	if compl < 1 || rec < 1 || compl+rec > 20 {
		t.Errorf("BBB comments: %d complaints, %d recommends", compl, rec)
	}
	t.Logf("SF 1 suppliers: %d Complaints, %d Recommends", compl, rec)
}

func pad9(v int64) string { return string(appendPad(nil, v, 9)) }

func TestDeterminism(t *testing.T) {
	t.Parallel()
	for _, tb := range Tables() {
		a := encodeAll(t, srcOf(t)(mustGen(t, 0.01).Source(tb, 0, 1)))
		b := encodeAll(t, srcOf(t)(mustGen(t, 0.01).Source(tb, 0, 1)))
		if !bytes.Equal(a, b) {
			t.Errorf("%v: two generations differ", tb)
		}
	}
}

func TestPartsConcatenate(t *testing.T) {
	t.Parallel()
	g := mustGen(t, 0.01)
	for _, tb := range Tables() {
		whole := encodeAll(t, srcOf(t)(g.Source(tb, 0, 1)))
		for _, parts := range []int{2, 3, 7} {
			var cat []byte
			for p := parts - 1; p >= 0; p-- { // any order: parts are independent
				cat = append(encodeAll(t, srcOf(t)(g.Source(tb, p, parts))), cat...)
			}
			if !bytes.Equal(whole, cat) {
				t.Errorf("%v: %d parts differ from the whole", tb, parts)
			}
		}
	}
	if _, err := g.Source(TableOrders, 3, 3); err == nil {
		t.Error("part 3 of 3 accepted")
	}
}

func TestRefresh(t *testing.T) {
	t.Parallel()
	g := mustGen(t, 0.1)
	r := g.RefreshRows()
	if r != 150 {
		t.Fatalf("RefreshRows at SF 0.1 = %d, want 150", r)
	}
	if n := mustGen(t, 1).RefreshRows(); n != 1500 {
		t.Fatalf("RefreshRows at SF 1 = %d, want 1500", n)
	}
	base := map[int64]bool{}
	for _, o := range tableRows(t, g, TableOrders) {
		base[o[0].i] = true
	}
	seen := map[int64]bool{}
	for set := 1; set <= 3; set++ {
		orders := collect(t, srcOf(t)(g.RefreshSource(TableOrders, set)))
		lines := collect(t, srcOf(t)(g.RefreshSource(TableLineitem, set)))
		del := g.RefreshDeleteKeys(set)
		if int64(len(orders)) != r || int64(len(del)) != r {
			t.Fatalf("set %d: %d orders, %d delete keys, want %d", set, len(orders), len(del), r)
		}
		lineTotal := map[int64]int64{}
		for _, l := range lines {
			lineTotal[l[0].i] += (l[5].i * (100 - l[6].i) / 100) * (100 + l[7].i) / 100
		}
		for i, o := range orders {
			k := int64(set-1)*r + int64(i) + 1
			key := o[0].i
			if key%32 < 8 || key%32 >= 16 || key != ((k>>3)<<5)+8+(k&7) {
				t.Errorf("set %d row %d: key %d not in the second slot", set, k, key)
			}
			if base[key] || seen[key] {
				t.Errorf("refresh key %d collides", key)
			}
			seen[key] = true
			if lineTotal[key] != o[3].i {
				t.Errorf("refresh order %d: total %d, lines %d", key, o[3].i, lineTotal[key])
			}
			if del[i] != key-8 || !base[del[i]] {
				t.Errorf("set %d: delete key %d, want original %d", set, del[i], key-8)
			}
		}
		// Refresh rows continue the streams past the base data: not a copy
		// of base rows.
		if o0 := tableRows(t, g, TableOrders)[(set-1)*int(r)]; o0[8].s == orders[0][8].s {
			t.Errorf("set %d: refresh row repeats base row comment", set)
		}
	}
	if _, err := g.RefreshSource(TablePart, 1); err == nil {
		t.Error("refresh of part accepted")
	}
	if _, err := g.RefreshSource(TableOrders, 0); err == nil {
		t.Error("refresh set 0 accepted")
	}
	// Slots beyond set 1000 (dbgen's general form).
	if k := g.RefreshDeleteKeys(1000)[0]; k%32 < 8 || k%32 >= 16 {
		t.Errorf("set 1000 deletes key %d, want slot 1", k)
	}
}

// TestNoAllocs: generating rows allocates nothing once a Source exists.
func TestNoAllocs(t *testing.T) {
	// Not parallel: testing.AllocsPerRun refuses parallel tests (it
	// counts the whole process's allocations).
	g := mustGen(t, 0.01)
	enc := NewTextEncoder(FormatCopy)
	for _, tb := range Tables() {
		src, err := g.Source(tb, 0, 1)
		if err != nil {
			t.Fatal(err)
		}
		src.Next(enc) // warm up
		n := 20
		if tb == TableRegion {
			n = 3
		}
		a := testing.AllocsPerRun(n, func() {
			enc.Reset()
			if _, err := src.Next(enc); err != nil {
				t.Fatal(err)
			}
		})
		if a != 0 {
			t.Errorf("%v: %v allocations per row", tb, a)
		}
	}
}

func benchTable(b *testing.B, sf float64, tb Table) {
	g := mustGen(b, sf)
	textPool() // built once per process, outside the measurement
	var c countWriter
	b.ReportAllocs()
	b.ResetTimer()
	var rows int64
	for b.Loop() {
		src, _ := g.Source(tb, 0, 1)
		for {
			ok, _ := src.Next(&c)
			if !ok {
				break
			}
			rows++
		}
	}
	b.ReportMetric(float64(rows)/b.Elapsed().Seconds(), "rows/s")
}

// BenchmarkLineitemSF1 generates the whole SF 1 lineitem table.
func BenchmarkLineitemSF1(b *testing.B) { benchTable(b, 1, TableLineitem) }

// BenchmarkTablesSF1 generates every SF 1 table, one goroutine.
func BenchmarkTablesSF1(b *testing.B) {
	for _, tb := range Tables() {
		b.Run(tb.String(), func(b *testing.B) { benchTable(b, 1, tb) })
	}
}

// BenchmarkLineitemSF1COPY includes COPY text encoding.
func BenchmarkLineitemSF1COPY(b *testing.B) { benchCOPY(b, TableLineitem) }

// BenchmarkAllTablesSF1COPY encodes the whole SF 1 database as COPY text on
// one goroutine.
func BenchmarkAllTablesSF1COPY(b *testing.B) { benchCOPY(b, Tables()...) }

// BenchmarkTablesSF1Binary encodes every SF 1 table as PostgreSQL binary
// COPY, what a PostgreSQL build sends, one table per sub-benchmark.
func BenchmarkTablesSF1Binary(b *testing.B) {
	for _, tb := range Tables() {
		b.Run(tb.String(), func(b *testing.B) { benchEncode(b, true, tb) })
	}
}

func benchCOPY(b *testing.B, tables ...Table) { benchEncode(b, false, tables...) }

func benchEncode(b *testing.B, binary bool, tables ...Table) {
	g := mustGen(b, 1)
	textPool()
	b.ReportAllocs()
	var n, rows int64
	for b.Loop() {
		for _, tb := range tables {
			src, _ := g.Source(tb, 0, 1)
			r := NewReader(context.Background(), src, FormatCopy)
			if binary {
				r = newBinaryReader(context.Background(), src, nil)
			}
			m, _ := io.Copy(io.Discard, r)
			n += m
			rows += g.Rows(tb)
			if tb == TableLineitem {
				rows += g.ExactLineitemRows() - g.Rows(tb)
			}
		}
	}
	b.SetBytes(n / int64(b.N))
	b.ReportMetric(float64(rows)/b.Elapsed().Seconds(), "rows/s")
}

// TestLargeSFSmoke exercises dbgen's 64-bit key streams (SF ≥ 30,000) on a
// few rows of a middle part.
func TestLargeSFSmoke(t *testing.T) {
	t.Parallel()
	g := mustGen(t, 100000)
	src := srcOf(t)(g.Source(TableOrders, 500, 100000))
	var c collector
	for i := 0; i < 200; i++ {
		if ok, err := src.Next(&c); !ok || err != nil {
			t.Fatal(ok, err)
		}
	}
	for _, r := range c.rows {
		if ck := r[1].i; ck < 1 || ck > g.Rows(TableCustomer) || ck%3 == 0 {
			t.Errorf("o_custkey %d", ck)
		}
	}
	src = srcOf(t)(g.Source(TableLineitem, 500, 100000))
	c.rows = nil
	for i := 0; i < 200; i++ {
		if ok, err := src.Next(&c); !ok || err != nil {
			t.Fatal(ok, err)
		}
	}
	for _, r := range c.rows {
		if pk := r[1].i; pk < 1 || pk > g.Rows(TablePart) {
			t.Errorf("l_partkey %d", pk)
		}
	}
}

// TestPartSuppKeysUnique: at every scale, a part's four suppliers are
// distinct suppliers (PARTSUPP's primary key holds; dbgen's spread repeats
// some below SF 0.023), they are dbgen's wherever dbgen's are distinct, and
// every LINEITEM (part, supplier) pair, base and refresh, is in PARTSUPP.
func TestPartSuppKeysUnique(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		sf      float64
		repeats bool // dbgen's formula repeats a supplier for some part
	}{
		{0.001, true}, {0.002, true}, {0.005, true}, {0.007, true}, {0.008, false}, {0.01, false},
		{0.021, true}, {0.022, false}, {0.05, false}, {0.1, false},
	} {
		t.Run(strconv.FormatFloat(tc.sf, 'g', -1, 64), func(t *testing.T) {
			t.Parallel()
			g := mustGen(t, tc.sf)
			s := g.Rows(TableSupplier)
			dbgenRepeats := false
			for p := int64(1); p <= g.Rows(TablePart); p++ {
				seen := map[int64]bool{}
				var dbgen [4]int64
				dbgenDistinct := true
				for i := int64(0); i < 4; i++ {
					dbgen[i] = (p+i*(s/4+(p-1)/s))%s + 1
					for _, d := range dbgen[:i] {
						dbgenDistinct = dbgenDistinct && d != dbgen[i]
					}
				}
				dbgenRepeats = dbgenRepeats || !dbgenDistinct
				for i := int64(0); i < 4; i++ {
					k := partSuppKey(p, i, s)
					if k < 1 || k > s || seen[k] {
						t.Fatalf("part %d: supplier %d is %d (of %d suppliers; earlier %v)", p, i, k, s, seen)
					}
					seen[k] = true
					if dbgenDistinct && k != dbgen[i] {
						t.Fatalf("part %d: supplier %d is %d, dbgen's is %d", p, i, k, dbgen[i])
					}
				}
			}
			if dbgenRepeats != tc.repeats {
				t.Errorf("dbgen's spread repeats a supplier: %v, want %v", dbgenRepeats, tc.repeats)
			}
			// The generated PARTSUPP rows: unique keys; LINEITEM's pairs in them.
			pairs := map[[2]int64]bool{}
			for _, r := range tableRows(t, g, TablePartSupp) {
				key := [2]int64{r[0].i, r[1].i}
				if pairs[key] {
					t.Fatalf("PARTSUPP key %v twice", key)
				}
				pairs[key] = true
			}
			lines := tableRows(t, g, TableLineitem)
			if g.RefreshRows() > 0 {
				lines = append(lines, collect(t, srcOf(t)(g.RefreshSource(TableLineitem, 1)))...)
			}
			for _, l := range lines {
				if key := [2]int64{l[1].i, l[2].i}; !pairs[key] {
					t.Fatalf("LINEITEM (part, supplier) %v is not in PARTSUPP", key)
				}
			}
		})
	}
}

// BenchmarkTextPool builds the 300 MiB text pool, which a build waits for
// before its first row.
func BenchmarkTextPool(b *testing.B) {
	for b.Loop() {
		buildTextPool(textPoolSize)
	}
	b.SetBytes(textPoolSize)
}
