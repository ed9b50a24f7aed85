-- Keys and secondary indexes, created after the load. Each block may run on
-- its own connection in parallel with the others. Only primary-key,
-- foreign-key and date columns are indexed (the specification allows no
-- others, clause 1.5.7), one table per index, and only where a query uses it.

-- name: region_pk
ALTER TABLE region ADD PRIMARY KEY (r_regionkey);

-- name: nation_pk
ALTER TABLE nation ADD PRIMARY KEY (n_nationkey);

-- name: supplier_pk
ALTER TABLE supplier ADD PRIMARY KEY (s_suppkey);

-- name: customer_pk
ALTER TABLE customer ADD PRIMARY KEY (c_custkey);

-- name: part_pk
ALTER TABLE part ADD PRIMARY KEY (p_partkey);

-- name: partsupp_pk
ALTER TABLE partsupp ADD PRIMARY KEY (ps_partkey, ps_suppkey);

-- name: orders_pk
ALTER TABLE orders ADD PRIMARY KEY (o_orderkey);

-- name: lineitem_pk
ALTER TABLE lineitem ADD PRIMARY KEY (l_orderkey, l_linenumber);

-- name: supplier_nationkey
-- Q2, Q5, Q7-Q9, Q11, Q20, Q21: suppliers of a nation
CREATE INDEX supplier_nationkey ON supplier (s_nationkey);

-- name: customer_nationkey
-- Q5, Q7, Q8, Q10: customers of a nation
CREATE INDEX customer_nationkey ON customer (c_nationkey);

-- name: partsupp_suppkey
-- Q11, Q16, Q20: a supplier's parts (the key leads with ps_partkey)
CREATE INDEX partsupp_suppkey ON partsupp (ps_suppkey);

-- name: orders_custkey
-- Q13, Q18, Q22 (NOT EXISTS probe): a customer's orders
CREATE INDEX orders_custkey ON orders (o_custkey);

-- name: orders_orderdate
-- Q3-Q5, Q8, Q10: order-date ranges
CREATE INDEX orders_orderdate ON orders (o_orderdate);

-- name: lineitem_partkey_suppkey
-- Q17, Q20 (correlated per part / part-supplier), Q9, Q14, Q19
CREATE INDEX lineitem_partkey_suppkey ON lineitem (l_partkey, l_suppkey);

-- name: lineitem_shipdate
-- Q6, Q14, Q15, Q20: narrow ship-date ranges
CREATE INDEX lineitem_shipdate ON lineitem (l_shipdate);
