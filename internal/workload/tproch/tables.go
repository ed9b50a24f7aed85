// Package tproch is TPROC-H, an analytic workload derived from the TPC-H
// specification: a dbgen-equivalent generator, loaders, the 22 queries with
// their parameters, the power and throughput tests and their metrics.
// TPROC-H results are not comparable with audited TPC results.
package tproch

// Table is one of the eight TPROC-H tables.
type Table int

const (
	TableRegion Table = iota
	TableNation
	TableSupplier
	TableCustomer
	TablePart
	TablePartSupp
	TableOrders
	TableLineitem
	numTables
)

// Tables lists every table in load order.
func Tables() []Table {
	return []Table{TableRegion, TableNation, TableSupplier, TableCustomer, TablePart, TablePartSupp, TableOrders, TableLineitem}
}

var tableNames = [numTables]string{"region", "nation", "supplier", "customer", "part", "partsupp", "orders", "lineitem"}

func (t Table) String() string {
	if t < 0 || t >= numTables {
		return "table?"
	}
	return tableNames[t]
}

// ParseTable accepts a table's name.
func ParseTable(name string) (Table, bool) {
	for i, n := range tableNames {
		if n == name {
			return Table(i), true
		}
	}
	return 0, false
}

// Columns lists a table's columns in schema order: the order the generator
// writes them and the loaders name them.
func (t Table) Columns() []string { return tableColumns[t] }

var tableColumns = [numTables][]string{
	TableRegion:   {"r_regionkey", "r_name", "r_comment"},
	TableNation:   {"n_nationkey", "n_name", "n_regionkey", "n_comment"},
	TableSupplier: {"s_suppkey", "s_name", "s_address", "s_nationkey", "s_phone", "s_acctbal", "s_comment"},
	TableCustomer: {"c_custkey", "c_name", "c_address", "c_nationkey", "c_phone", "c_acctbal", "c_mktsegment", "c_comment"},
	TablePart: {"p_partkey", "p_name", "p_mfgr", "p_brand", "p_type", "p_size", "p_container", "p_retailprice",
		"p_comment"},
	TablePartSupp: {"ps_partkey", "ps_suppkey", "ps_availqty", "ps_supplycost", "ps_comment"},
	TableOrders: {"o_orderkey", "o_custkey", "o_orderstatus", "o_totalprice", "o_orderdate", "o_orderpriority",
		"o_clerk", "o_shippriority", "o_comment"},
	TableLineitem: {"l_orderkey", "l_partkey", "l_suppkey", "l_linenumber", "l_quantity", "l_extendedprice",
		"l_discount", "l_tax", "l_returnflag", "l_linestatus", "l_shipdate", "l_commitdate", "l_receiptdate",
		"l_shipinstruct", "l_shipmode", "l_comment"},
}

// RowWriter receives one generated row, value by value in column order, then
// EndRow. Text passed as bytes is only valid during the call. Encoders for
// COPY text, '|'-delimited files and DuckDB's appender implement it.
type RowWriter interface {
	Int(v int64)
	Text(b []byte)
	// Decimal is a two-decimal exact number given in hundredths (1234 = 12.34).
	Decimal(hundredths int64)
	// Date is a day number: days since 1970-01-01 (Unix epoch), as
	// time.Unix(days*86400, 0).UTC() gives it.
	Date(days int32)
	EndRow() error
}
