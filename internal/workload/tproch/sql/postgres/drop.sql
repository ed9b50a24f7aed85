-- Everything Sledge creates for TPROC-H, removed, one table per statement
-- (reverse load order). IF EXISTS: a partial build (interrupted load) must
-- be droppable too.

-- name: lineitem
DROP TABLE IF EXISTS lineitem CASCADE;

-- name: orders
DROP TABLE IF EXISTS orders CASCADE;

-- name: partsupp
DROP TABLE IF EXISTS partsupp CASCADE;

-- name: part
DROP TABLE IF EXISTS part CASCADE;

-- name: customer
DROP TABLE IF EXISTS customer CASCADE;

-- name: supplier
DROP TABLE IF EXISTS supplier CASCADE;

-- name: nation
DROP TABLE IF EXISTS nation CASCADE;

-- name: region
DROP TABLE IF EXISTS region CASCADE;
