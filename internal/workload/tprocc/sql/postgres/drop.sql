-- Everything Sledge creates for TPROC-C, removed. IF EXISTS: a partial build
-- (interrupted load) must be droppable too.

-- name: tables
DROP TABLE IF EXISTS order_line, new_order, orders, history, customer, district, stock, warehouse, item, sledge_meta CASCADE;

-- name: routines
DROP FUNCTION IF EXISTS sledge_neword, sledge_payment, sledge_ostat, sledge_delivery, sledge_slev CASCADE;
