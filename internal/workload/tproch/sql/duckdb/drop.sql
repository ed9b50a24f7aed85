-- Everything Sledge creates for TPROC-H, removed, one table per statement
-- (reverse load order). IF EXISTS: a partial build (interrupted load) must
-- be droppable too.

-- name: lineitem
DROP TABLE IF EXISTS lineitem;

-- name: orders
DROP TABLE IF EXISTS orders;

-- name: partsupp
DROP TABLE IF EXISTS partsupp;

-- name: part
DROP TABLE IF EXISTS part;

-- name: customer
DROP TABLE IF EXISTS customer;

-- name: supplier
DROP TABLE IF EXISTS supplier;

-- name: nation
DROP TABLE IF EXISTS nation;

-- name: region
DROP TABLE IF EXISTS region;
