-- The CH-benCHmark queries whose SQLite text differs from the base,
-- ../queries.sql; every other query runs as written there. SQLite's LIKE
-- ignores case (GLOB does not), it has unicode() where the others have
-- ascii(), and no extract(). Timestamps are TEXT 'YYYY-MM-DD HH:MM:SS', so
-- the base's comparisons with such literals compare them in time order.

-- name: q2
-- differs: SQLite's LIKE ignores case: GLOB matches case-sensitively
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
	and i_data glob '*b'
	and r_name like 'Europ%'
	and i_id = m_i_id
	and s_quantity = m_s_quantity
order by
	n_name,
	su_name,
	i_id

-- name: q5
-- differs: SQLite has unicode(), not ascii()
-- Q5: revenue in Europe from suppliers of the customer's own nation
select
	n_name,
	sum(ol_amount) as revenue
from
	customer,
	orders,
	order_line,
	stock,
	supplier,
	nation,
	region
where
	c_id = o_c_id
	and c_w_id = o_w_id
	and c_d_id = o_d_id
	and ol_o_id = o_id
	and ol_w_id = o_w_id
	and ol_d_id = o_d_id
	and ol_w_id = s_w_id
	and ol_i_id = s_i_id
	and mod(s_w_id * s_i_id, 10000) = su_suppkey
	and unicode(substr(c_state, 1, 1)) = su_nationkey
	and su_nationkey = n_nationkey
	and n_regionkey = r_regionkey
	and r_name = 'Europe'
	and o_entry_d >= '2007-01-02 00:00:00'
group by
	n_name
order by
	revenue desc

-- name: q7
-- differs: SQLite has unicode(), not ascii(); SQLite has no extract(): the year is strftime('%Y')
-- Q7: trade between Germany and Cambodia by year
select
	su_nationkey as supp_nation,
	substr(c_state, 1, 1) as cust_nation,
	cast(strftime('%Y', o_entry_d) as integer) as l_year,
	sum(ol_amount) as revenue
from
	supplier,
	stock,
	order_line,
	orders,
	customer,
	nation n1,
	nation n2
where
	ol_supply_w_id = s_w_id
	and ol_i_id = s_i_id
	and mod(s_w_id * s_i_id, 10000) = su_suppkey
	and ol_w_id = o_w_id
	and ol_d_id = o_d_id
	and ol_o_id = o_id
	and c_id = o_c_id
	and c_w_id = o_w_id
	and c_d_id = o_d_id
	and su_nationkey = n1.n_nationkey
	and unicode(substr(c_state, 1, 1)) = n2.n_nationkey
	and (
		(n1.n_name = 'Germany' and n2.n_name = 'Cambodia')
		or (n1.n_name = 'Cambodia' and n2.n_name = 'Germany')
	)
	and ol_delivery_d between '2007-01-02 00:00:00' and '2100-01-01 00:00:00'
group by
	su_nationkey,
	substr(c_state, 1, 1),
	cast(strftime('%Y', o_entry_d) as integer)
order by
	su_nationkey,
	cust_nation,
	l_year

-- name: q8
-- differs: SQLite's LIKE ignores case: GLOB matches case-sensitively; SQLite has unicode(), not ascii(); SQLite has no extract(): the year is strftime('%Y')
-- Q8: Germany's share of European customers' orders of some items, by year
select
	cast(strftime('%Y', o_entry_d) as integer) as l_year,
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
	and n1.n_nationkey = unicode(substr(c_state, 1, 1))
	and n1.n_regionkey = r_regionkey
	and ol_i_id < 1000
	and r_name = 'Europe'
	and su_nationkey = n2.n_nationkey
	and o_entry_d between '2007-01-02 00:00:00' and '2100-01-01 00:00:00'
	and i_data glob '*b'
	and i_id = ol_i_id
group by
	cast(strftime('%Y', o_entry_d) as integer)
order by
	l_year

-- name: q9
-- differs: SQLite's LIKE ignores case: GLOB matches case-sensitively; SQLite has no extract(): the year is strftime('%Y')
-- Q9: amount ordered of some items by supplier nation and year
select
	n_name,
	cast(strftime('%Y', o_entry_d) as integer) as l_year,
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
	and i_data glob '*BB'
group by
	n_name,
	cast(strftime('%Y', o_entry_d) as integer)
order by
	n_name,
	l_year desc

-- name: q10
-- differs: SQLite has unicode(), not ascii()
-- Q10: customers' revenue from delivered lines, with their nation
select
	c_id,
	c_last,
	sum(ol_amount) as revenue,
	c_city,
	c_phone,
	n_name
from
	customer,
	orders,
	order_line,
	nation
where
	c_id = o_c_id
	and c_w_id = o_w_id
	and c_d_id = o_d_id
	and ol_w_id = o_w_id
	and ol_d_id = o_d_id
	and ol_o_id = o_id
	and o_entry_d >= '2007-01-02 00:00:00'
	and o_entry_d <= ol_delivery_d
	and n_nationkey = unicode(substr(c_state, 1, 1))
group by
	c_id,
	c_last,
	c_city,
	c_phone,
	n_name
order by
	revenue desc

-- name: q14
-- differs: SQLite's LIKE ignores case: GLOB matches case-sensitively
-- Q14: the share of delivered revenue from items whose data starts with PR
select
	100.00 * sum(case when i_data glob 'PR*' then ol_amount else 0 end) / (1 + sum(ol_amount)) as promo_revenue
from
	order_line,
	item
where
	ol_i_id = i_id
	and ol_delivery_d >= '2007-01-02 00:00:00'
	and ol_delivery_d < '2100-01-01 00:00:00'

-- name: q16
-- differs: SQLite's LIKE ignores case: GLOB matches case-sensitively
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
	and i_data not glob 'zz*'
	and mod(s_w_id * s_i_id, 10000) not in (
		select
			su_suppkey
		from
			supplier
		where
			su_comment glob '*bad*'
	)
group by
	i_name,
	substr(i_data, 1, 3),
	i_price
order by
	supplier_cnt desc

-- name: q17
-- differs: SQLite's LIKE ignores case: GLOB matches case-sensitively
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
			i_data glob '*b'
			and ol_i_id = i_id
		group by
			i_id
	) t
where
	ol_i_id = t.i_id
	and ol_quantity < t.a

-- name: q19
-- differs: SQLite's LIKE ignores case: GLOB matches case-sensitively
-- Q19: revenue of small lines of three groups of items and warehouses
select
	sum(ol_amount) as revenue
from
	order_line,
	item
where
	(
		ol_i_id = i_id
		and i_data glob '*a'
		and ol_quantity >= 1
		and ol_quantity <= 10
		and i_price between 1 and 400000
		and ol_w_id in (1, 2, 3)
	)
	or (
		ol_i_id = i_id
		and i_data glob '*b'
		and ol_quantity >= 1
		and ol_quantity <= 10
		and i_price between 1 and 400000
		and ol_w_id in (1, 2, 4)
	)
	or (
		ol_i_id = i_id
		and i_data glob '*c'
		and ol_quantity >= 1
		and ol_quantity <= 10
		and i_price between 1 and 400000
		and ol_w_id in (1, 5, 3)
	)

-- name: q20
-- differs: SQLite's LIKE ignores case: GLOB matches case-sensitively
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
					i_data glob 'co*'
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
