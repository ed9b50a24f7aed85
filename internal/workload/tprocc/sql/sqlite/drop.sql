-- Everything Sledge creates for TPROC-C, removed (a partial build too).

-- name: order_line
DROP TABLE IF EXISTS order_line;
-- name: new_order
DROP TABLE IF EXISTS new_order;
-- name: orders
DROP TABLE IF EXISTS orders;
-- name: history
DROP TABLE IF EXISTS history;
-- name: customer
DROP TABLE IF EXISTS customer;
-- name: district
DROP TABLE IF EXISTS district;
-- name: stock
DROP TABLE IF EXISTS stock;
-- name: warehouse
DROP TABLE IF EXISTS warehouse;
-- name: item
DROP TABLE IF EXISTS item;
-- name: sledge_meta
DROP TABLE IF EXISTS sledge_meta;
