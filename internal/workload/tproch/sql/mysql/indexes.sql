-- Secondary indexes, created after the load (the primary keys are part of
-- the tables: InnoDB clusters rows on them). Each block may run on its own
-- connection in parallel with the others. Only foreign-key and date columns
-- are indexed (the specification allows only primary-key, foreign-key and
-- date columns, clause 1.5.7), one table per index, and only where a query
-- uses it. MariaDB and MySQL join mostly by index lookups, so these matter.

-- name: supplier_nationkey
-- Q2, Q5, Q7-Q9, Q11, Q20, Q21: suppliers of a nation
ALTER TABLE supplier ADD INDEX supplier_nationkey (s_nationkey);

-- name: customer_nationkey
-- Q5, Q7, Q8, Q10: customers of a nation
ALTER TABLE customer ADD INDEX customer_nationkey (c_nationkey);

-- name: partsupp_suppkey
-- Q11, Q16, Q20: a supplier's parts (the key leads with ps_partkey)
ALTER TABLE partsupp ADD INDEX partsupp_suppkey (ps_suppkey);

-- name: orders_custkey
-- Q13, Q18, Q22 (NOT EXISTS probe): a customer's orders
ALTER TABLE orders ADD INDEX orders_custkey (o_custkey);

-- name: orders_orderdate
-- Q3-Q5, Q8, Q10: order-date ranges
ALTER TABLE orders ADD INDEX orders_orderdate (o_orderdate);

-- name: lineitem_partkey_suppkey
-- Q17, Q20 (correlated per part / part-supplier), Q9, Q14, Q19
ALTER TABLE lineitem ADD INDEX lineitem_partkey_suppkey (l_partkey, l_suppkey);

-- name: lineitem_shipdate
-- Q6, Q14, Q15, Q20: narrow ship-date ranges
ALTER TABLE lineitem ADD INDEX lineitem_shipdate (l_shipdate);
