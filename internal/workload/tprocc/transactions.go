package tprocc

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/sledge-bench/sledge/internal/db"
	"github.com/sledge-bench/sledge/internal/workload"
)

// The five transactions, each written once. In sql mode a transaction is the
// dialect's statements in one client-side transaction; in procs mode it is one
// call of the server-side routine. Output-only columns are read into sink:
// the terminal has nothing to display, but the database must still produce
// every output the profile names.

// sink discards a column value; it works as a scan target for both pgx and
// database/sql.
type sink struct{}

func (sink) Scan(any) error { return nil }

var out sink

// invalidItemState is the SQLSTATE sledge_neword raises for the unused item.
const invalidItemState = "SLIIV"

// execute runs the terminal's current transaction once.
func (t *terminal) execute(ctx context.Context) error {
	in := &t.gen.in
	if t.procs {
		return t.executeProc(ctx, in)
	}
	switch t.tx {
	case txNewOrder:
		return t.inTx(ctx, false, in, t.newOrder)
	case txPayment:
		return t.inTx(ctx, false, in, t.payment)
	case txOrderStatus:
		return t.inTx(ctx, true, in, t.orderStatus)
	case txDelivery:
		return t.inTx(ctx, false, in, t.delivery)
	case txStockLevel:
		return t.inTx(ctx, true, in, t.stockLevel)
	}
	return fmt.Errorf("unknown transaction type %d", t.tx)
}

// inTx wraps body in BEGIN … COMMIT, rolling back on any error (including the
// designed rollback, which is passed on as workload.ErrRolledBack).
func (t *terminal) inTx(ctx context.Context, readOnly bool, in *inputs, body func(context.Context, *inputs) error) error {
	if err := t.conn.Begin(ctx, readOnly); err != nil {
		return err
	}
	if err := body(ctx, in); err != nil {
		_ = t.conn.Rollback(ctx)
		return err
	}
	return t.conn.Commit(ctx)
}

// updateRow runs a statement that updates one row and returns columns of it
// (sel), followed by upd where the dialect splits it in two (see queries).
func (t *terminal) updateRow(ctx context.Context, sel, upd string, args []any, dest ...any) error {
	if err := t.conn.QueryRow(ctx, sel, args...).Scan(dest...); err != nil {
		return err
	}
	if upd != "" {
		if _, err := t.conn.Exec(ctx, upd, args...); err != nil {
			return err
		}
	}
	return nil
}

func (t *terminal) newOrder(ctx context.Context, in *inputs) error {
	q, c := t.q, t.conn
	var (
		wTax, dTax, discount float64
		oID                  int
		credit               string
		total                int64
	)
	if err := c.QueryRow(ctx, q.newordWarehouse, in.w).Scan(&wTax); err != nil {
		return fmt.Errorf("read warehouse %d: %w", in.w, err)
	}
	if err := t.updateRow(ctx, q.newordDistrict, q.newordDistrictUpd, []any{in.w, in.d}, &dTax, &oID); err != nil {
		return fmt.Errorf("next order id of district %d/%d: %w", in.w, in.d, err)
	}
	if err := c.QueryRow(ctx, q.newordCustomer, in.w, in.d, in.customer).Scan(&discount, out, &credit); err != nil {
		return fmt.Errorf("read customer %d/%d/%d: %w", in.w, in.d, in.customer, err)
	}
	if _, err := c.Exec(ctx, q.newordInsertOrder, oID, in.d, in.w, in.customer, in.nLines, in.allLocal); err != nil {
		return fmt.Errorf("insert order: %w", err)
	}
	if _, err := c.Exec(ctx, q.newordInsertNewOrder, oID, in.d, in.w); err != nil {
		return fmt.Errorf("insert new_order: %w", err)
	}
	for i := 0; i < in.nLines; i++ {
		l := &in.lines[i]
		var price int64
		err := c.QueryRow(ctx, q.newordItem, l.itemID).Scan(&price, out, out)
		if errors.Is(err, db.ErrNoRows) {
			// "Item number is not valid": the profile's designed rollback.
			return workload.ErrRolledBack
		}
		if err != nil {
			return fmt.Errorf("read item %d: %w", l.itemID, err)
		}
		remote := 0
		if int(l.supplyW) != in.w {
			remote = 1
		}
		var dist string
		err = t.updateRow(ctx, q.newordStock, q.newordStockUpd, []any{l.supplyW, l.itemID, l.quantity, remote, in.d}, out, out, &dist)
		if err != nil {
			return fmt.Errorf("update stock %d/%d: %w", l.supplyW, l.itemID, err)
		}
		amount := int64(l.quantity) * price
		total += amount
		if _, err := c.Exec(ctx, q.newordInsertOrderLine, oID, in.d, in.w, i+1, l.itemID, l.supplyW, l.quantity, amount, dist); err != nil {
			return fmt.Errorf("insert order line: %w", err)
		}
	}
	_ = float64(total) * (1 - discount) * (1 + wTax + dTax) // displayed total, output only
	return nil
}

func (t *terminal) payment(ctx context.Context, in *inputs) error {
	q, c := t.q, t.conn
	var wName, dName, credit string
	if err := t.updateRow(ctx, q.paymentWarehouse, q.paymentWarehouseUpd, []any{in.w, in.amount}, &wName, out, out, out, out, out); err != nil {
		return fmt.Errorf("update warehouse %d: %w", in.w, err)
	}
	if err := t.updateRow(ctx, q.paymentDistrict, q.paymentDistrictUpd, []any{in.w, in.d, in.amount}, &dName, out, out, out, out, out); err != nil {
		return fmt.Errorf("update district %d/%d: %w", in.w, in.d, err)
	}
	cID := in.customer
	if in.byName {
		var err error
		if cID, err = t.customerByName(ctx, in.cw, in.cd, in.lastName); err != nil {
			return err
		}
	}
	var balance int64
	err := t.updateRow(ctx, q.paymentCustomer, q.paymentCustomerUpd, []any{in.cw, in.cd, cID, in.amount},
		out, out, out, out, out, out, out, out, out, out, &credit, out, out, &balance)
	if err != nil {
		return fmt.Errorf("update customer %d/%d/%d: %w", in.cw, in.cd, cID, err)
	}
	if credit == "BC" {
		if _, err := c.Exec(ctx, q.paymentCustomerData, in.cw, in.cd, cID, t.badCreditData(cID, in)); err != nil {
			return fmt.Errorf("update bad-credit data of customer %d/%d/%d: %w", in.cw, in.cd, cID, err)
		}
	}
	if _, err := c.Exec(ctx, q.paymentInsertHist, cID, in.cd, in.cw, in.d, in.w, in.amount, wName+"    "+dName); err != nil {
		return fmt.Errorf("insert history: %w", err)
	}
	return nil
}

// badCreditData is the text Payment puts in front of a bad-credit customer's
// C_DATA: the customer, district, warehouse and amount.
func (t *terminal) badCreditData(cID int, in *inputs) string {
	b := t.buf[:0]
	b = strconv.AppendInt(b, int64(cID), 10)
	b = append(b, ' ')
	b = strconv.AppendInt(b, int64(in.cd), 10)
	b = append(b, ' ')
	b = strconv.AppendInt(b, int64(in.cw), 10)
	b = append(b, ' ')
	b = strconv.AppendInt(b, int64(in.d), 10)
	b = append(b, ' ')
	b = strconv.AppendInt(b, int64(in.w), 10)
	b = append(b, ' ')
	b = strconv.AppendInt(b, in.amount/100, 10)
	b = append(b, '.', byte('0'+in.amount%100/10), byte('0'+in.amount%10), ' ', '|', ' ')
	t.buf = b
	return string(b)
}

// customerByName picks the customer at position ceil(n/2) of those with the
// last name, ordered by first name [2.5.2.2].
func (t *terminal) customerByName(ctx context.Context, w, d int, last string) (int, error) {
	rows, err := t.conn.Query(ctx, t.q.customerByName, w, d, last)
	if err != nil {
		return 0, fmt.Errorf("customers named %s in %d/%d: %w", last, w, d, err)
	}
	ids := t.ids[:0]
	for rows.Next() {
		var id int
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return 0, fmt.Errorf("customers named %s in %d/%d: %w", last, w, d, err)
		}
		ids = append(ids, id)
	}
	rows.Close()
	t.ids = ids
	if err := rows.Err(); err != nil {
		return 0, fmt.Errorf("customers named %s in %d/%d: %w", last, w, d, err)
	}
	if len(ids) == 0 {
		return 0, fmt.Errorf("no customer named %s in warehouse %d district %d", last, w, d)
	}
	return ids[(len(ids)-1)/2], nil
}

func (t *terminal) orderStatus(ctx context.Context, in *inputs) error {
	q, c := t.q, t.conn
	cID := in.customer
	if in.byName {
		var err error
		if cID, err = t.customerByName(ctx, in.cw, in.cd, in.lastName); err != nil {
			return err
		}
	}
	if err := c.QueryRow(ctx, q.ostatCustomer, in.cw, in.cd, cID).Scan(out, out, out, out); err != nil {
		return fmt.Errorf("read customer %d/%d/%d: %w", in.cw, in.cd, cID, err)
	}
	var oID int
	err := c.QueryRow(ctx, q.ostatLastOrder, in.cw, in.cd, cID).Scan(&oID, out, out)
	if errors.Is(err, db.ErrNoRows) {
		return nil // a customer without orders has nothing more to show
	}
	if err != nil {
		return fmt.Errorf("latest order of customer %d/%d/%d: %w", in.cw, in.cd, cID, err)
	}
	rows, err := c.Query(ctx, q.ostatOrderLines, in.cw, in.cd, oID)
	if err != nil {
		return fmt.Errorf("lines of order %d/%d/%d: %w", in.cw, in.cd, oID, err)
	}
	defer rows.Close()
	for rows.Next() {
		if err := rows.Scan(out, out, out, out, out); err != nil {
			return fmt.Errorf("lines of order %d/%d/%d: %w", in.cw, in.cd, oID, err)
		}
	}
	return rows.Err()
}

func (t *terminal) delivery(ctx context.Context, in *inputs) error {
	q, c := t.q, t.conn
	for d := 1; d <= 10; d++ {
		var oID, cID int
		err := c.QueryRow(ctx, q.deliveryOldestNewOrder, in.w, d).Scan(&oID)
		if errors.Is(err, db.ErrNoRows) {
			t.gen.audit.skippedDistr.Add(1)
			continue
		}
		if err != nil {
			return fmt.Errorf("oldest new order of district %d/%d: %w", in.w, d, err)
		}
		n, err := c.Exec(ctx, q.deliveryDeleteNewOrder, in.w, d, oID)
		if err != nil {
			return fmt.Errorf("delete new order %d/%d/%d: %w", in.w, d, oID, err)
		}
		if n == 0 {
			// A concurrent Delivery took it first (read committed).
			t.gen.audit.skippedDistr.Add(1)
			continue
		}
		if err := t.updateRow(ctx, q.deliveryOrder, q.deliveryOrderUpd, []any{in.w, d, oID, in.carrier}, &cID); err != nil {
			return fmt.Errorf("update order %d/%d/%d: %w", in.w, d, oID, err)
		}
		rows, err := c.Query(ctx, q.deliveryOrderLines, in.w, d, oID)
		if err != nil {
			return fmt.Errorf("deliver lines of order %d/%d/%d: %w", in.w, d, oID, err)
		}
		var sum int64
		for rows.Next() {
			var cents int64
			if err := rows.Scan(&cents); err != nil {
				rows.Close()
				return fmt.Errorf("deliver lines of order %d/%d/%d: %w", in.w, d, oID, err)
			}
			sum += cents
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return fmt.Errorf("deliver lines of order %d/%d/%d: %w", in.w, d, oID, err)
		}
		if q.deliveryOrderLinesUpd != "" {
			if _, err := c.Exec(ctx, q.deliveryOrderLinesUpd, in.w, d, oID); err != nil {
				return fmt.Errorf("deliver lines of order %d/%d/%d: %w", in.w, d, oID, err)
			}
		}
		if _, err := c.Exec(ctx, q.deliveryCustomer, in.w, d, cID, sum); err != nil {
			return fmt.Errorf("update customer %d/%d/%d: %w", in.w, d, cID, err)
		}
	}
	return nil
}

func (t *terminal) stockLevel(ctx context.Context, in *inputs) error {
	q, c := t.q, t.conn
	var next, low int
	if err := c.QueryRow(ctx, q.slevNextOID, in.w, in.d).Scan(&next); err != nil {
		return fmt.Errorf("next order id of district %d/%d: %w", in.w, in.d, err)
	}
	if err := c.QueryRow(ctx, q.slevLowStock, in.w, in.d, next, in.threshold).Scan(&low); err != nil {
		return fmt.Errorf("low stock of district %d/%d: %w", in.w, in.d, err)
	}
	return nil
}

// executeProc runs the current transaction as one routine call.
func (t *terminal) executeProc(ctx context.Context, in *inputs) error {
	q, c := t.q, t.conn
	var err error
	switch t.tx {
	case txNewOrder:
		n := in.nLines
		for i := 0; i < n; i++ {
			t.itemIDs[i], t.supplyWs[i], t.quantities[i] = in.lines[i].itemID, in.lines[i].supplyW, in.lines[i].quantity
		}
		_, err = c.Exec(ctx, q.procNeword, in.w, in.d, in.customer, in.allLocal,
			t.itemIDs[:n], t.supplyWs[:n], t.quantities[:n])
		if err != nil && db.SQLState(err) == invalidItemState {
			return workload.ErrRolledBack
		}
	case txPayment:
		_, err = c.Exec(ctx, q.procPayment, in.w, in.d, in.cw, in.cd, in.customer, lastNameArg(in), in.amount)
	case txOrderStatus:
		_, err = c.Exec(ctx, q.procOstat, in.cw, in.cd, in.customer, lastNameArg(in))
	case txDelivery:
		var delivered int
		err = c.QueryRow(ctx, q.procDelivery, in.w, in.carrier).Scan(&delivered)
		if err == nil {
			t.gen.audit.skippedDistr.Add(int64(10 - delivered))
		}
	case txStockLevel:
		_, err = c.Exec(ctx, q.procSlev, in.w, in.d, in.threshold)
	default:
		err = fmt.Errorf("unknown transaction type %d", t.tx)
	}
	if err != nil {
		return fmt.Errorf("%s: %w", txNames[t.tx], err)
	}
	return nil
}

// lastNameArg is the routine's p_c_last: NULL selects by customer number.
func lastNameArg(in *inputs) any {
	if in.byName {
		return in.lastName
	}
	return nil
}
