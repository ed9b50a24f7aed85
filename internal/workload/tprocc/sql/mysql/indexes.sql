-- Secondary indexes, created after the load (the primary keys are part of the
-- tables: InnoDB clusters rows on them). Each block may run on its own
-- connection in parallel with the others.

-- name: customer_by_name
-- Payment and Order-Status by last name: covering, ordered by first name.
ALTER TABLE customer ADD UNIQUE INDEX customer_by_name (c_w_id, c_d_id, c_last, c_first, c_id);

-- name: orders_by_customer
-- Order-Status: the latest order of a customer.
ALTER TABLE orders ADD UNIQUE INDEX orders_by_customer (o_w_id, o_d_id, o_c_id, o_id);
