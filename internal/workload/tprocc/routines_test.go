package tprocc

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/sledge-bench/sledge/internal/db"
	"github.com/sledge-bench/sledge/internal/db/mysql"
	"github.com/sledge-bench/sledge/internal/db/postgres"
)

// The routines of procs mode do New-Order set-based (one statement for all
// lines) where sql mode runs the profile's statements line by line. These
// tests hold the two to the same effects.

// routineOrder is a New-Order whose lines cover every branch of the stock
// update: a remote line (supplied by warehouse 2) and a line whose stock is
// below its quantity + 10 and is replenished.
func routineOrder(in *inputs) {
	*in = inputs{w: 1, d: 3, customer: 42, nLines: 10, allLocal: 0}
	for i := 0; i < in.nLines; i++ {
		in.lines[i] = orderLine{itemID: int32(200 + 7*i), supplyW: 1, quantity: int32(1 + i)}
	}
	in.lines[5].supplyW = 2
}

// replenishedItem is the line (index 4, item 228, quantity 5) whose stock the
// test lowers to 12 first.
const replenishedItem, replenishedQty = 228, 12

// stockState reads the order's stock rows: what New-Order changes.
func stockState(t *testing.T, c db.Conn, in *inputs) string {
	t.Helper()
	var b strings.Builder
	for _, l := range in.lines[:in.nLines] {
		var qty, ytd, orders, remote int64
		q := fmt.Sprintf("SELECT s_quantity, s_ytd, s_order_cnt, s_remote_cnt FROM stock WHERE s_w_id = %d AND s_i_id = %d", l.supplyW, l.itemID)
		if err := c.QueryRow(context.Background(), q).Scan(&qty, &ytd, &orders, &remote); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		fmt.Fprintf(&b, "stock %d/%d: quantity %d ytd %d orders %d remote %d\n", l.supplyW, l.itemID, qty, ytd, orders, remote)
	}
	return b.String()
}

// setStock puts the order's stock rows back to a state read by stockState.
func setStock(t *testing.T, c db.Conn, state string) {
	t.Helper()
	for _, line := range strings.Split(strings.TrimSpace(state), "\n") {
		var w, i, qty, ytd, orders, remote int64
		if _, err := fmt.Sscanf(line, "stock %d/%d: quantity %d ytd %d orders %d remote %d", &w, &i, &qty, &ytd, &orders, &remote); err != nil {
			t.Fatalf("parse %q: %v", line, err)
		}
		q := fmt.Sprintf("UPDATE stock SET s_quantity = %d, s_ytd = %d, s_order_cnt = %d, s_remote_cnt = %d WHERE s_w_id = %d AND s_i_id = %d",
			qty, ytd, orders, remote, w, i)
		if _, err := c.Exec(context.Background(), q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
}

// orderState reads the last order of the input's district: the ORDER,
// NEW-ORDER and ORDER-LINE rows New-Order inserted, without the order id.
func orderState(t *testing.T, c db.Conn, in *inputs) string {
	t.Helper()
	ctx := context.Background()
	var oID, cID, carrierNull, olCnt, allLocal, newOrders int64
	q := fmt.Sprintf(`SELECT o_id, o_c_id, CASE WHEN o_carrier_id IS NULL THEN 1 ELSE 0 END, o_ol_cnt, o_all_local
  FROM orders WHERE o_w_id = %d AND o_d_id = %d AND o_id = (SELECT d_next_o_id - 1 FROM district WHERE d_w_id = %[1]d AND d_id = %[2]d)`, in.w, in.d)
	if err := c.QueryRow(ctx, q).Scan(&oID, &cID, &carrierNull, &olCnt, &allLocal); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	q = fmt.Sprintf("SELECT count(*) FROM new_order WHERE no_w_id = %d AND no_d_id = %d AND no_o_id = %d", in.w, in.d, oID)
	if err := c.QueryRow(ctx, q).Scan(&newOrders); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "order: customer %d, carrier NULL %d, %d lines, all local %d, new_order rows %d\n", cID, carrierNull, olCnt, allLocal, newOrders)
	q = fmt.Sprintf(`SELECT ol_number, ol_i_id, ol_supply_w_id, CASE WHEN ol_delivery_d IS NULL THEN 1 ELSE 0 END, ol_quantity, ol_amount, ol_dist_info
  FROM order_line WHERE ol_w_id = %d AND ol_d_id = %d AND ol_o_id = %d ORDER BY ol_number`, in.w, in.d, oID)
	rows, err := c.Query(ctx, q)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	defer rows.Close()
	for rows.Next() {
		var n, item, supply, deliveryNull, qty int64
		var amount float64
		var dist string
		if err := rows.Scan(&n, &item, &supply, &deliveryNull, &qty, &amount, &dist); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		fmt.Fprintf(&b, "line %d: item %d supply %d delivery NULL %d quantity %d amount %.2f dist %q\n", n, item, supply, deliveryNull, qty, amount, dist)
	}
	if err := rows.Err(); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return b.String()
}

// TestNewOrderRoutineMatchesStatements runs the same New-Order once as the
// routine and once as sql mode's statements, from the same stock, and
// requires the same rows and the same stock afterwards; then the
// consistency conditions.
func TestNewOrderRoutineMatchesStatements(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a warehouse")
	}
	t.Parallel()
	for _, tc := range []struct {
		name string
		drv  db.Driver
		kind db.Kind
	}{
		{"postgres", postgres.Driver{}, db.Postgres},
		{"mariadb", mysql.Driver{}, db.MySQL},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			tg := built(t, tc.kind, 1, 3)
			c := connect(t, tc.drv, tg)
			var in inputs
			routineOrder(&in)
			// The remote line's supplier: stock rows of a second warehouse
			// for its item (no condition looks at stock, and the build has
			// one warehouse).
			remote := in.lines[5].itemID
			if _, err := c.Exec(ctx, fmt.Sprintf(`INSERT INTO stock (s_i_id, s_w_id, s_quantity, s_dist_01, s_dist_02, s_dist_03, s_dist_04,
  s_dist_05, s_dist_06, s_dist_07, s_dist_08, s_dist_09, s_dist_10, s_ytd, s_order_cnt, s_remote_cnt, s_data)
SELECT s_i_id, 2, s_quantity, s_dist_01, s_dist_02, s_dist_03, s_dist_04, s_dist_05, s_dist_06, s_dist_07, s_dist_08,
  s_dist_09, s_dist_10, s_ytd, s_order_cnt, s_remote_cnt, s_data FROM stock WHERE s_w_id = 1 AND s_i_id = %d`, remote)); err != nil {
				t.Fatal(err)
			}
			if _, err := c.Exec(ctx, fmt.Sprintf("UPDATE stock SET s_quantity = %d WHERE s_w_id = 1 AND s_i_id = %d", replenishedQty, replenishedItem)); err != nil {
				t.Fatal(err)
			}
			before := stockState(t, c, &in)

			got := map[Mode]string{}
			for _, mode := range []Mode{ModeProcs, ModeSQL} {
				setStock(t, c, before)
				r, err := NewRunner(ctx, tc.drv, tg, RunOptions{Mode: mode, Seed: 5})
				if err != nil {
					t.Fatal(err)
				}
				w, err := r.NewWorker(ctx, 0)
				if err != nil {
					t.Fatal(err)
				}
				term := w.(*worker).terminal
				term.tx = txNewOrder
				routineOrder(&term.gen.in)
				err = w.Execute(ctx)
				w.Close(ctx)
				r.Close(ctx)
				if err != nil {
					t.Fatalf("%s: %v", mode, err)
				}
				got[mode] = orderState(t, c, &in) + stockState(t, c, &in)
			}
			if got[ModeProcs] != got[ModeSQL] {
				t.Errorf("the routine and the statements differ:\nprocs:\n%s\nsql:\n%s", got[ModeProcs], got[ModeSQL])
			}
			// Guard against two equal mistakes: the branches did what the
			// profile says.
			for _, want := range []string{
				fmt.Sprintf("stock 1/%d: quantity %d ", replenishedItem, replenishedQty-5+91),
				fmt.Sprintf("line 6: item %d supply 2 ", remote),
				"order: customer 42, carrier NULL 1, 10 lines, all local 0, new_order rows 1\n",
			} {
				if !strings.Contains(got[ModeProcs], want) {
					t.Errorf("procs result lacks %q:\n%s", want, got[ModeProcs])
				}
			}
			for _, l := range strings.Split(before, "\n") {
				if strings.HasPrefix(l, fmt.Sprintf("stock 2/%d:", remote)) {
					var w, i, qty, ytd, orders, rem int64
					fmt.Sscanf(l, "stock %d/%d: quantity %d ytd %d orders %d remote %d", &w, &i, &qty, &ytd, &orders, &rem)
					want := fmt.Sprintf("stock 2/%d: quantity %d ytd %d orders %d remote %d", remote, qty-6, ytd+6, orders+1, rem+1)
					if qty < 16 {
						want = fmt.Sprintf("stock 2/%d: quantity %d ytd %d orders %d remote %d", remote, qty-6+91, ytd+6, orders+1, rem+1)
					}
					if !strings.Contains(got[ModeProcs], want) {
						t.Errorf("remote stock row: want %q in\n%s", want, got[ModeProcs])
					}
				}
			}
			requireConsistent(t, tc.drv, tg, "after the orders")
		})
	}
}
