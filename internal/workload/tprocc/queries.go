package tprocc

import (
	"fmt"

	"github.com/sledge-bench/sledge/internal/db"
)

// queries are the statements of the five transactions for one dialect,
// resolved once from sql/<dialect>/queries.sql so the hot path never looks
// anything up by name.
type queries struct {
	newordWarehouse, newordDistrict, newordCustomer            string
	newordInsertOrder, newordInsertNewOrder                    string
	newordItem, newordStock, newordInsertOrderLine             string
	paymentWarehouse, paymentDistrict, customerByName          string
	paymentCustomer, paymentCustomerData, paymentInsertHist    string
	ostatCustomer, ostatLastOrder, ostatOrderLines             string
	deliveryOldestNewOrder, deliveryDeleteNewOrder             string
	deliveryOrder, deliveryOrderLines, deliveryCustomer        string
	slevNextOID, slevLowStock                                  string
	procNeword, procPayment, procOstat, procDelivery, procSlev string // empty where the dialect has no routines

	// Dialects without UPDATE … RETURNING (MariaDB, MySQL) give the statements
	// that update and return a row as two: <name> is a locking SELECT … FOR
	// UPDATE of the columns RETURNING would give, <name>_update the UPDATE,
	// both with the same numbered parameters. Empty where one statement does.
	newordDistrictUpd, newordStockUpd, paymentWarehouseUpd, paymentDistrictUpd string
	paymentCustomerUpd, deliveryOrderUpd, deliveryOrderLinesUpd                string
}

func loadQueries(k db.Kind) (*queries, error) {
	m, err := statementMap(k, "queries.sql")
	if err != nil {
		return nil, err
	}
	q := &queries{}
	required := map[string]*string{
		"neword_warehouse":          &q.newordWarehouse,
		"neword_district":           &q.newordDistrict,
		"neword_customer":           &q.newordCustomer,
		"neword_insert_order":       &q.newordInsertOrder,
		"neword_insert_new_order":   &q.newordInsertNewOrder,
		"neword_item":               &q.newordItem,
		"neword_stock":              &q.newordStock,
		"neword_insert_order_line":  &q.newordInsertOrderLine,
		"payment_warehouse":         &q.paymentWarehouse,
		"payment_district":          &q.paymentDistrict,
		"customer_by_name":          &q.customerByName,
		"payment_customer":          &q.paymentCustomer,
		"payment_customer_data":     &q.paymentCustomerData,
		"payment_insert_history":    &q.paymentInsertHist,
		"ostat_customer":            &q.ostatCustomer,
		"ostat_last_order":          &q.ostatLastOrder,
		"ostat_order_lines":         &q.ostatOrderLines,
		"delivery_oldest_new_order": &q.deliveryOldestNewOrder,
		"delivery_delete_new_order": &q.deliveryDeleteNewOrder,
		"delivery_order":            &q.deliveryOrder,
		"delivery_order_lines":      &q.deliveryOrderLines,
		"delivery_customer":         &q.deliveryCustomer,
		"slev_next_o_id":            &q.slevNextOID,
		"slev_low_stock":            &q.slevLowStock,
	}
	optional := map[string]*string{
		"proc_neword":   &q.procNeword,
		"proc_payment":  &q.procPayment,
		"proc_ostat":    &q.procOstat,
		"proc_delivery": &q.procDelivery,
		"proc_slev":     &q.procSlev,

		"neword_district_update":      &q.newordDistrictUpd,
		"neword_stock_update":         &q.newordStockUpd,
		"payment_warehouse_update":    &q.paymentWarehouseUpd,
		"payment_district_update":     &q.paymentDistrictUpd,
		"payment_customer_update":     &q.paymentCustomerUpd,
		"delivery_order_update":       &q.deliveryOrderUpd,
		"delivery_order_lines_update": &q.deliveryOrderLinesUpd,
	}
	for name, dst := range required {
		s, ok := m[name]
		if !ok {
			return nil, fmt.Errorf("TPROC-C SQL for %s lacks statement %q", k, name)
		}
		*dst = s
		delete(m, name)
	}
	for name, dst := range optional {
		*dst = m[name]
		delete(m, name)
	}
	for name := range m {
		return nil, fmt.Errorf("TPROC-C SQL for %s has unknown statement %q", k, name)
	}
	return q, nil
}

// hasProcs reports whether the dialect has server-side routines.
func (q *queries) hasProcs() bool { return q.procNeword != "" }
