-- Everything a build makes, the referencing tables first (foreign keys),
-- then the build's record. The same text runs on every database.

-- name: pgbench_history
DROP TABLE IF EXISTS pgbench_history;

-- name: pgbench_accounts
DROP TABLE IF EXISTS pgbench_accounts;

-- name: pgbench_tellers
DROP TABLE IF EXISTS pgbench_tellers;

-- name: pgbench_branches
DROP TABLE IF EXISTS pgbench_branches;

-- name: sledge_pgbench_meta
DROP TABLE IF EXISTS sledge_pgbench_meta;
