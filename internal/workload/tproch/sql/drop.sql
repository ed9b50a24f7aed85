-- Everything Sledge creates for TPROC-H, removed, one table per statement
-- (reverse load order). IF EXISTS: a partial build (interrupted load) must
-- be droppable too. PostgreSQL adds CASCADE (postgres/drop.sql).

-- name: lineitem
-- overridden: postgres (CASCADE)
DROP TABLE IF EXISTS lineitem;

-- name: orders
-- overridden: postgres (CASCADE)
DROP TABLE IF EXISTS orders;

-- name: partsupp
-- overridden: postgres (CASCADE)
DROP TABLE IF EXISTS partsupp;

-- name: part
-- overridden: postgres (CASCADE)
DROP TABLE IF EXISTS part;

-- name: customer
-- overridden: postgres (CASCADE)
DROP TABLE IF EXISTS customer;

-- name: supplier
-- overridden: postgres (CASCADE)
DROP TABLE IF EXISTS supplier;

-- name: nation
-- overridden: postgres (CASCADE)
DROP TABLE IF EXISTS nation;

-- name: region
-- overridden: postgres (CASCADE)
DROP TABLE IF EXISTS region;
