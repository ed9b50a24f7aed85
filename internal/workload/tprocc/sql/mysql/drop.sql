-- Everything Sledge creates for TPROC-C, removed. IF EXISTS: a partial build
-- (interrupted load) must be droppable too. DROP PROCEDURE takes one name.

-- name: tables
DROP TABLE IF EXISTS order_line, new_order, orders, history, customer, district, stock, warehouse, item, sledge_meta;

-- name: neword
DROP PROCEDURE IF EXISTS sledge_neword;

-- name: payment
DROP PROCEDURE IF EXISTS sledge_payment;

-- name: ostat
DROP PROCEDURE IF EXISTS sledge_ostat;

-- name: delivery
DROP PROCEDURE IF EXISTS sledge_delivery;

-- name: slev
DROP PROCEDURE IF EXISTS sledge_slev;
