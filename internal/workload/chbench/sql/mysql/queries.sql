-- The CH-benCHmark queries whose MariaDB and MySQL text differs from the
-- base, ../queries.sql; every other query runs as written there. The
-- TPROC-C tables take the database's default collation, which on
-- MariaDB/MySQL is case-insensitive: LIKE 'PR%' would match 'pr' too, and
-- the answers would differ from every other database's. Sessions run with
-- ANSI_QUOTES.

-- name: q2
-- differs: LIKE follows the column's collation, case-insensitive by default on MariaDB/MySQL; the TPROC-C text columns hold both cases, so the pattern is matched against the binary string
-- Q2: European suppliers with the least stock of an item
select
	su_suppkey,
	su_name,
	n_name,
	i_id,
	i_name,
	su_address,
	su_phone,
	su_comment
from
	item,
	supplier,
	stock,
	nation,
	region,
	(
		select
			s_i_id as m_i_id,
			min(s_quantity) as m_s_quantity
		from
			stock,
			supplier,
			nation,
			region
		where
			mod(s_w_id * s_i_id, 10000) = su_suppkey
			and su_nationkey = n_nationkey
			and n_regionkey = r_regionkey
			and r_name like 'Europ%'
		group by
			s_i_id
	) m
where
	i_id = s_i_id
	and mod(s_w_id * s_i_id, 10000) = su_suppkey
	and su_nationkey = n_nationkey
	and n_regionkey = r_regionkey
	and cast(i_data as binary) like '%b'
	and r_name like 'Europ%'
	and i_id = m_i_id
	and s_quantity = m_s_quantity
order by
	n_name,
	su_name,
	i_id

-- name: q8
-- differs: LIKE follows the column's collation, case-insensitive by default on MariaDB/MySQL; the TPROC-C text columns hold both cases, so the pattern is matched against the binary string
-- Q8: Germany's share of European customers' orders of some items, by year
select
	extract(year from o_entry_d) as l_year,
	sum(case when n2.n_name = 'Germany' then ol_amount else 0 end) / sum(ol_amount) as mkt_share
from
	item,
	supplier,
	stock,
	order_line,
	orders,
	customer,
	nation n1,
	nation n2,
	region
where
	i_id = s_i_id
	and ol_i_id = s_i_id
	and ol_supply_w_id = s_w_id
	and mod(s_w_id * s_i_id, 10000) = su_suppkey
	and ol_w_id = o_w_id
	and ol_d_id = o_d_id
	and ol_o_id = o_id
	and c_id = o_c_id
	and c_w_id = o_w_id
	and c_d_id = o_d_id
	and n1.n_nationkey = ascii(substr(c_state, 1, 1))
	and n1.n_regionkey = r_regionkey
	and ol_i_id < 1000
	and r_name = 'Europe'
	and su_nationkey = n2.n_nationkey
	and o_entry_d between '2007-01-02 00:00:00' and '2100-01-01 00:00:00'
	and cast(i_data as binary) like '%b'
	and i_id = ol_i_id
group by
	extract(year from o_entry_d)
order by
	l_year

-- name: q9
-- differs: LIKE follows the column's collation, case-insensitive by default on MariaDB/MySQL; the TPROC-C text columns hold both cases, so the pattern is matched against the binary string
-- Q9: amount ordered of some items by supplier nation and year
select
	n_name,
	extract(year from o_entry_d) as l_year,
	sum(ol_amount) as sum_profit
from
	item,
	stock,
	supplier,
	order_line,
	orders,
	nation
where
	ol_i_id = s_i_id
	and ol_supply_w_id = s_w_id
	and mod(s_w_id * s_i_id, 10000) = su_suppkey
	and ol_w_id = o_w_id
	and ol_d_id = o_d_id
	and ol_o_id = o_id
	and ol_i_id = i_id
	and su_nationkey = n_nationkey
	and cast(i_data as binary) like '%BB'
group by
	n_name,
	extract(year from o_entry_d)
order by
	n_name,
	l_year desc

-- name: q14
-- differs: LIKE follows the column's collation, case-insensitive by default on MariaDB/MySQL; the TPROC-C text columns hold both cases, so the pattern is matched against the binary string
-- Q14: the share of delivered revenue from items whose data starts with PR
select
	100.00 * sum(case when cast(i_data as binary) like 'PR%' then ol_amount else 0 end) / (1 + sum(ol_amount)) as promo_revenue
from
	order_line,
	item
where
	ol_i_id = i_id
	and ol_delivery_d >= '2007-01-02 00:00:00'
	and ol_delivery_d < '2100-01-01 00:00:00'

-- name: q16
-- differs: LIKE follows the column's collation, case-insensitive by default on MariaDB/MySQL; the TPROC-C text columns hold both cases, so the pattern is matched against the binary string
-- Q16: how many suppliers without complaints stock each item
select
	i_name,
	substr(i_data, 1, 3) as brand,
	i_price,
	count(distinct mod(s_w_id * s_i_id, 10000)) as supplier_cnt
from
	stock,
	item
where
	i_id = s_i_id
	and cast(i_data as binary) not like 'zz%'
	and mod(s_w_id * s_i_id, 10000) not in (
		select
			su_suppkey
		from
			supplier
		where
			cast(su_comment as binary) like '%bad%'
	)
group by
	i_name,
	substr(i_data, 1, 3),
	i_price
order by
	supplier_cnt desc

-- name: q17
-- differs: LIKE follows the column's collation, case-insensitive by default on MariaDB/MySQL; the TPROC-C text columns hold both cases, so the pattern is matched against the binary string
-- Q17: yearly amount of small lines of some items
select
	sum(ol_amount) / 2.0 as avg_yearly
from
	order_line,
	(
		select
			i_id,
			avg(ol_quantity) as a
		from
			item,
			order_line
		where
			cast(i_data as binary) like '%b'
			and ol_i_id = i_id
		group by
			i_id
	) t
where
	ol_i_id = t.i_id
	and ol_quantity < t.a

-- name: q19
-- differs: LIKE follows the column's collation, case-insensitive by default on MariaDB/MySQL; the TPROC-C text columns hold both cases, so the pattern is matched against the binary string
-- Q19: revenue of small lines of three groups of items and warehouses
select
	sum(ol_amount) as revenue
from
	order_line,
	item
where
	(
		ol_i_id = i_id
		and cast(i_data as binary) like '%a'
		and ol_quantity >= 1
		and ol_quantity <= 10
		and i_price between 1 and 400000
		and ol_w_id in (1, 2, 3)
	)
	or (
		ol_i_id = i_id
		and cast(i_data as binary) like '%b'
		and ol_quantity >= 1
		and ol_quantity <= 10
		and i_price between 1 and 400000
		and ol_w_id in (1, 2, 4)
	)
	or (
		ol_i_id = i_id
		and cast(i_data as binary) like '%c'
		and ol_quantity >= 1
		and ol_quantity <= 10
		and i_price between 1 and 400000
		and ol_w_id in (1, 5, 3)
	)

-- name: q20
-- differs: LIKE follows the column's collation, case-insensitive by default on MariaDB/MySQL; the TPROC-C text columns hold both cases, so the pattern is matched against the binary string
-- Q20: German suppliers with surplus stock of some items
select
	su_name,
	su_address
from
	supplier,
	nation
where
	su_suppkey in (
		select
			mod(s_i_id * s_w_id, 10000)
		from
			stock,
			order_line
		where
			s_i_id in (
				select
					i_id
				from
					item
				where
					cast(i_data as binary) like 'co%'
			)
			and ol_i_id = s_i_id
			and ol_delivery_d > '2010-05-23 12:00:00'
		group by
			s_i_id,
			s_w_id,
			s_quantity
		having
			2 * s_quantity > sum(ol_quantity)
	)
	and su_nationkey = n_nationkey
	and n_name = 'Germany'
order by
	su_name
