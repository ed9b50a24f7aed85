-- Keys and secondary indexes, created after the load. Each block may run on
-- its own connection in parallel with the others.

-- name: item_pk
ALTER TABLE item ADD PRIMARY KEY (i_id);

-- name: warehouse_pk
ALTER TABLE warehouse ADD PRIMARY KEY (w_id);

-- name: district_pk
ALTER TABLE district ADD PRIMARY KEY (d_w_id, d_id);

-- name: customer_pk
ALTER TABLE customer ADD PRIMARY KEY (c_w_id, c_d_id, c_id);

-- name: customer_by_name
-- Payment and Order-Status by last name: covering, ordered by first name.
CREATE UNIQUE INDEX customer_by_name ON customer (c_w_id, c_d_id, c_last, c_first, c_id);

-- name: orders_pk
ALTER TABLE orders ADD PRIMARY KEY (o_w_id, o_d_id, o_id);

-- name: orders_by_customer
-- Order-Status: the latest order of a customer.
CREATE UNIQUE INDEX orders_by_customer ON orders (o_w_id, o_d_id, o_c_id, o_id);

-- name: new_order_pk
ALTER TABLE new_order ADD PRIMARY KEY (no_w_id, no_d_id, no_o_id);

-- name: order_line_pk
ALTER TABLE order_line ADD PRIMARY KEY (ol_w_id, ol_d_id, ol_o_id, ol_number);

-- name: stock_pk
ALTER TABLE stock ADD PRIMARY KEY (s_w_id, s_i_id);
