-- CH-benCHmark's own tables, removed (the TPROC-C schema under them is
-- TPROC-C's drop). IF EXISTS: a partial build must be droppable too.

-- name: supplier
DROP TABLE IF EXISTS supplier;

-- name: nation
DROP TABLE IF EXISTS nation;

-- name: region
DROP TABLE IF EXISTS region;
