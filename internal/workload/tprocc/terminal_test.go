package tprocc

import (
	"math"
	"testing"
)

func TestDeckWalksWithoutReplacement(t *testing.T) {
	r := NewRand(7, 1)
	d := newDeck()
	for pass := 0; pass < 200; pass++ {
		var counts [numTx]int
		for i := 0; i < 23; i++ {
			counts[d.draw(r)]++
		}
		want := [numTx]int{10, 10, 1, 1, 1}
		if counts != want {
			t.Fatalf("pass %d drew %v, want exactly %v", pass, counts, want)
		}
	}
}

func TestDeckOrderChangesBetweenPasses(t *testing.T) {
	r := NewRand(7, 2)
	d := newDeck()
	seqs := map[[23]int]bool{}
	for pass := 0; pass < 20; pass++ {
		var s [23]int
		for i := range s {
			s[i] = d.draw(r)
		}
		seqs[s] = true
	}
	if len(seqs) < 19 {
		t.Fatalf("only %d distinct orders in 20 passes: the deck is not reshuffled", len(seqs))
	}
}

func newTestGenerator(warehouses, home int) *generator {
	return &generator{
		rng: NewRand(42, 3), c: Constants{CLast: 100, CID: 500, OLIID: 4000},
		warehouses: warehouses, home: home, slevD: 3, deck: newDeck(), audit: &auditCounters{},
	}
}

func TestGeneratorMixAndInputRules(t *testing.T) {
	g := newTestGenerator(5, 2)
	const n = 230000
	var (
		counts                           [numTx]int
		rollbacks, newOrders, lines      int
		remoteLines, payments, remotePay int
		byName, customerSelections       int
	)
	for i := 0; i < n; i++ {
		tx := g.next()
		counts[tx]++
		in := &g.in
		if in.w != 2 {
			t.Fatalf("home warehouse changed to %d", in.w)
		}
		switch tx {
		case txNewOrder:
			newOrders++
			if in.nLines < 5 || in.nLines > 15 {
				t.Fatalf("ol_cnt %d outside [5,15]", in.nLines)
			}
			if in.customer < 1 || in.customer > 3000 {
				t.Fatalf("c_id %d outside [1,3000]", in.customer)
			}
			seen := map[int32]bool{}
			allLocal := 1
			for j := 0; j < in.nLines; j++ {
				l := in.lines[j]
				if seen[l.itemID] {
					t.Fatalf("duplicate item %d in one order", l.itemID)
				}
				seen[l.itemID] = true
				if j > 0 && in.lines[j-1].itemID > l.itemID {
					t.Fatalf("lines not sorted by item id")
				}
				if l.quantity < 1 || l.quantity > 10 {
					t.Fatalf("quantity %d outside [1,10]", l.quantity)
				}
				if l.supplyW != 2 {
					remoteLines++
					allLocal = 0
					if l.supplyW < 1 || l.supplyW > 5 {
						t.Fatalf("supply warehouse %d outside [1,5]", l.supplyW)
					}
				}
				lines++
			}
			if allLocal != in.allLocal {
				t.Fatalf("all_local %d but lines say %d", in.allLocal, allLocal)
			}
			last := in.lines[in.nLines-1].itemID
			if in.rollback {
				rollbacks++
				if last != unusedItemID {
					t.Fatalf("rollback order's last item is %d, want the unused id", last)
				}
			} else if last > 100000 {
				t.Fatalf("item %d outside [1,100000] in a valid order", last)
			}
		case txPayment:
			payments++
			if in.cw != in.w {
				remotePay++
				if in.cw < 1 || in.cw > 5 {
					t.Fatalf("remote customer warehouse %d", in.cw)
				}
			} else if in.cd != in.d {
				t.Fatalf("home payment with customer district %d ≠ %d", in.cd, in.d)
			}
			if in.amount < 100 || in.amount > 500000 {
				t.Fatalf("amount %d cents outside [1.00, 5000.00]", in.amount)
			}
			fallthrough
		case txOrderStatus:
			customerSelections++
			if in.byName {
				byName++
				if in.lastName == "" {
					t.Fatal("by-name selection without a name")
				}
			}
		case txStockLevel:
			if in.d != 3 {
				t.Fatalf("stock-level district %d, want the terminal's fixed 3", in.d)
			}
			if in.threshold < 10 || in.threshold > 20 {
				t.Fatalf("threshold %d outside [10,20]", in.threshold)
			}
		case txDelivery:
			if in.carrier < 1 || in.carrier > 10 {
				t.Fatalf("carrier %d outside [1,10]", in.carrier)
			}
		}
	}
	wantShare := [numTx]float64{10.0 / 23, 10.0 / 23, 1.0 / 23, 1.0 / 23, 1.0 / 23}
	for tx, c := range counts {
		if got := float64(c) / n; math.Abs(got-wantShare[tx]) > 1e-9 {
			t.Errorf("%s share %.5f, want %.5f exactly (whole deck passes)", txNames[tx], got, wantShare[tx])
		}
	}
	within := func(name string, got, want, tol float64) {
		t.Helper()
		if math.Abs(got-want) > tol {
			t.Errorf("%s = %.3f%%, want %.1f%% ± %.1f", name, 100*got, 100*want, 100*tol)
		}
	}
	within("rollback share", float64(rollbacks)/float64(newOrders), 0.01, 0.002)
	within("remote line share", float64(remoteLines)/float64(lines), 0.01, 0.001)
	within("remote payment share", float64(remotePay)/float64(payments), 0.15, 0.005)
	within("by-name share", float64(byName)/float64(customerSelections), 0.60, 0.01)
	if got := g.audit.remoteLines.Load(); got != int64(remoteLines) {
		t.Errorf("audit counted %d remote lines, generator made %d", got, remoteLines)
	}
}

func TestSingleWarehouseIsAlwaysHome(t *testing.T) {
	g := newTestGenerator(1, 1)
	for i := 0; i < 23*500; i++ {
		tx := g.next()
		in := &g.in
		if tx == txPayment && in.cw != 1 {
			t.Fatalf("payment customer warehouse %d with a single warehouse", in.cw)
		}
		if tx == txNewOrder {
			for _, l := range in.lines[:in.nLines] {
				if l.supplyW != 1 {
					t.Fatalf("supply warehouse %d with a single warehouse", l.supplyW)
				}
			}
		}
	}
}

func TestOtherWarehouseNeverHome(t *testing.T) {
	g := newTestGenerator(3, 2)
	seen := map[int]int{}
	for i := 0; i < 3000; i++ {
		o := g.otherWarehouse()
		if o == 2 || o < 1 || o > 3 {
			t.Fatalf("other warehouse %d (home 2 of 3)", o)
		}
		seen[o]++
	}
	if seen[1] < 1300 || seen[3] < 1300 {
		t.Fatalf("other warehouses not uniform: %v", seen)
	}
}

func TestBadCreditDataFormat(t *testing.T) {
	term := &terminal{}
	in := &inputs{w: 1, d: 2, cw: 3, cd: 4, amount: 123405}
	got := term.badCreditData(17, in)
	if want := "17 4 3 2 1 1234.05 | "; got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
}
