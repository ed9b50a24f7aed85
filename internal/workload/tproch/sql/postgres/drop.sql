-- The TPROC-H tables dropped with CASCADE for PostgreSQL, which otherwise
-- refuses to drop a table that another object (a view, a foreign key)
-- depends on. Otherwise as the base, ../drop.sql.

-- name: lineitem
-- differs: PostgreSQL refuses to drop a table that a view or a foreign key depends on, unless CASCADE
DROP TABLE IF EXISTS lineitem CASCADE;

-- name: orders
-- differs: PostgreSQL refuses to drop a table that a view or a foreign key depends on, unless CASCADE
DROP TABLE IF EXISTS orders CASCADE;

-- name: partsupp
-- differs: PostgreSQL refuses to drop a table that a view or a foreign key depends on, unless CASCADE
DROP TABLE IF EXISTS partsupp CASCADE;

-- name: part
-- differs: PostgreSQL refuses to drop a table that a view or a foreign key depends on, unless CASCADE
DROP TABLE IF EXISTS part CASCADE;

-- name: customer
-- differs: PostgreSQL refuses to drop a table that a view or a foreign key depends on, unless CASCADE
DROP TABLE IF EXISTS customer CASCADE;

-- name: supplier
-- differs: PostgreSQL refuses to drop a table that a view or a foreign key depends on, unless CASCADE
DROP TABLE IF EXISTS supplier CASCADE;

-- name: nation
-- differs: PostgreSQL refuses to drop a table that a view or a foreign key depends on, unless CASCADE
DROP TABLE IF EXISTS nation CASCADE;

-- name: region
-- differs: PostgreSQL refuses to drop a table that a view or a foreign key depends on, unless CASCADE
DROP TABLE IF EXISTS region CASCADE;
