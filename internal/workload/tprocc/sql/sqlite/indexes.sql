-- Secondary indexes, created after the load (primary keys are in the tables).

-- name: customer_by_name
CREATE UNIQUE INDEX customer_by_name ON customer (c_w_id, c_d_id, c_last, c_first, c_id);

-- name: orders_by_customer
CREATE UNIQUE INDEX orders_by_customer ON orders (o_w_id, o_d_id, o_c_id, o_id);
