-- The TPROC-H queries whose DuckDB text differs from the base,
-- ../queries.sql; every other query runs as written there (DuckDB accepts
-- PostgreSQL-style SQL).
-- Date bounds computed with an interval are cast back to DATE: DATE +
-- INTERVAL is a TIMESTAMP in DuckDB, and a DATE-to-DATE comparison keeps
-- the filter on the bare column, where DuckDB pushes it into the scan (zone
-- maps).
-- Money is DECIMAL: sums are exact; DuckDB returns AVG and the quotient of
-- two decimals as DOUBLE (Q8, Q14, Q17, the AVG columns), which the
-- validation tolerances for ratios and averages allow.

-- name: q1
-- differs: DATE + INTERVAL is a TIMESTAMP in DuckDB; cast back to DATE, the bound is pushed into the scan (zone maps)
-- Pricing Summary Report
select
	l_returnflag,
	l_linestatus,
	sum(l_quantity) as sum_qty,
	sum(l_extendedprice) as sum_base_price,
	sum(l_extendedprice * (1 - l_discount)) as sum_disc_price,
	sum(l_extendedprice * (1 - l_discount) * (1 + l_tax)) as sum_charge,
	avg(l_quantity) as avg_qty,
	avg(l_extendedprice) as avg_price,
	avg(l_discount) as avg_disc,
	count(*) as count_order
from
	lineitem
where
	l_shipdate <= cast(date '1998-12-01' - interval ':1' day as date)
group by
	l_returnflag,
	l_linestatus
order by
	l_returnflag,
	l_linestatus

-- name: q4
-- differs: DATE + INTERVAL is a TIMESTAMP in DuckDB; cast back to DATE, the bound is pushed into the scan (zone maps)
-- Order Priority Checking
select
	o_orderpriority,
	count(*) as order_count
from
	orders
where
	o_orderdate >= date ':1'
	and o_orderdate < cast(date ':1' + interval '3' month as date)
	and exists (
		select
			*
		from
			lineitem
		where
			l_orderkey = o_orderkey
			and l_commitdate < l_receiptdate
	)
group by
	o_orderpriority
order by
	o_orderpriority

-- name: q5
-- differs: DATE + INTERVAL is a TIMESTAMP in DuckDB; cast back to DATE, the bound is pushed into the scan (zone maps)
-- Local Supplier Volume
select
	n_name,
	sum(l_extendedprice * (1 - l_discount)) as revenue
from
	customer,
	orders,
	lineitem,
	supplier,
	nation,
	region
where
	c_custkey = o_custkey
	and l_orderkey = o_orderkey
	and l_suppkey = s_suppkey
	and c_nationkey = s_nationkey
	and s_nationkey = n_nationkey
	and n_regionkey = r_regionkey
	and r_name = ':1'
	and o_orderdate >= date ':2'
	and o_orderdate < cast(date ':2' + interval '1' year as date)
group by
	n_name
order by
	revenue desc

-- name: q6
-- differs: DATE + INTERVAL is a TIMESTAMP in DuckDB; cast back to DATE, the bound is pushed into the scan (zone maps)
-- Forecasting Revenue Change
select
	sum(l_extendedprice * l_discount) as revenue
from
	lineitem
where
	l_shipdate >= date ':1'
	and l_shipdate < cast(date ':1' + interval '1' year as date)
	and l_discount between :2 - 0.01 and :2 + 0.01
	and l_quantity < :3

-- name: q10
-- differs: DATE + INTERVAL is a TIMESTAMP in DuckDB; cast back to DATE, the bound is pushed into the scan (zone maps)
-- Returned Item Reporting
select
	c_custkey,
	c_name,
	sum(l_extendedprice * (1 - l_discount)) as revenue,
	c_acctbal,
	n_name,
	c_address,
	c_phone,
	c_comment
from
	customer,
	orders,
	lineitem,
	nation
where
	c_custkey = o_custkey
	and l_orderkey = o_orderkey
	and o_orderdate >= date ':1'
	and o_orderdate < cast(date ':1' + interval '3' month as date)
	and l_returnflag = 'R'
	and c_nationkey = n_nationkey
group by
	c_custkey,
	c_name,
	c_acctbal,
	c_phone,
	n_name,
	c_address,
	c_comment
order by
	revenue desc
limit 20

-- name: q12
-- differs: DATE + INTERVAL is a TIMESTAMP in DuckDB; cast back to DATE, the bound is pushed into the scan (zone maps)
-- Shipping Modes and Order Priority
select
	l_shipmode,
	sum(case
		when o_orderpriority = '1-URGENT'
			or o_orderpriority = '2-HIGH'
			then 1
		else 0
	end) as high_line_count,
	sum(case
		when o_orderpriority <> '1-URGENT'
			and o_orderpriority <> '2-HIGH'
			then 1
		else 0
	end) as low_line_count
from
	orders,
	lineitem
where
	o_orderkey = l_orderkey
	and l_shipmode in (':1', ':2')
	and l_commitdate < l_receiptdate
	and l_shipdate < l_commitdate
	and l_receiptdate >= date ':3'
	and l_receiptdate < cast(date ':3' + interval '1' year as date)
group by
	l_shipmode
order by
	l_shipmode

-- name: q14
-- differs: DATE + INTERVAL is a TIMESTAMP in DuckDB; cast back to DATE, the bound is pushed into the scan (zone maps)
-- Promotion Effect
select
	100.00 * sum(case
		when p_type like 'PROMO%'
			then l_extendedprice * (1 - l_discount)
		else 0
	end) / sum(l_extendedprice * (1 - l_discount)) as promo_revenue
from
	lineitem,
	part
where
	l_partkey = p_partkey
	and l_shipdate >= date ':1'
	and l_shipdate < cast(date ':1' + interval '1' month as date)

-- name: q15
-- differs: DATE + INTERVAL is a TIMESTAMP in DuckDB; cast back to DATE, the bound is pushed into the scan (zone maps)
-- Top Supplier, approved variant 15a: the revenue view is a WITH clause
with revenue (supplier_no, total_revenue) as (
	select
		l_suppkey,
		sum(l_extendedprice * (1 - l_discount))
	from
		lineitem
	where
		l_shipdate >= date ':1'
		and l_shipdate < cast(date ':1' + interval '3' month as date)
	group by
		l_suppkey
)
select
	s_suppkey,
	s_name,
	s_address,
	s_phone,
	total_revenue
from
	supplier,
	revenue
where
	s_suppkey = supplier_no
	and total_revenue = (
		select
			max(total_revenue)
		from
			revenue
	)
order by
	s_suppkey

-- name: q20
-- differs: DATE + INTERVAL is a TIMESTAMP in DuckDB; cast back to DATE, the bound is pushed into the scan (zone maps)
-- Potential Part Promotion
select
	s_name,
	s_address
from
	supplier,
	nation
where
	s_suppkey in (
		select
			ps_suppkey
		from
			partsupp
		where
			ps_partkey in (
				select
					p_partkey
				from
					part
				where
					p_name like ':1%'
			)
			and ps_availqty > (
				select
					0.5 * sum(l_quantity)
				from
					lineitem
				where
					l_partkey = ps_partkey
					and l_suppkey = ps_suppkey
					and l_shipdate >= date ':2'
					and l_shipdate < cast(date ':2' + interval '1' year as date)
			)
	)
	and s_nationkey = n_nationkey
	and n_name = ':3'
order by
	s_name
