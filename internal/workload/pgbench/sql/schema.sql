-- pgbench's four tables, as its documentation defines them (pgbench -i):
-- per scale unit 1 branch, 10 tellers and 100,000 accounts; the history
-- starts empty. The filler columns pad the rows to the widths pgbench
-- gives them. On PostgreSQL the primary keys are added after the load
-- (postgres/keys.sql), as pgbench does; the build appends a fillfactor and
-- a partitioning clause to these statements when asked. {aid} is int, or
-- bigint from scale 20,000 (more than 2^31 accounts).

-- name: pgbench_history
-- overridden: mysql (timestamps need DATETIME to hold NULL without a default)
CREATE TABLE pgbench_history (
  tid    int,
  bid    int,
  aid    {aid},
  delta  int,
  mtime  timestamp,
  filler char(22)
);

-- name: pgbench_tellers
-- overridden: mysql (keys declared with the table), sqlite (keys declared with the table)
CREATE TABLE pgbench_tellers (
  tid      int NOT NULL,
  bid      int,
  tbalance int,
  filler   char(84)
);

-- name: pgbench_accounts
-- overridden: mysql (keys declared with the table), sqlite (keys declared with the table)
CREATE TABLE pgbench_accounts (
  aid      {aid} NOT NULL,
  bid      int,
  abalance int,
  filler   char(84)
);

-- name: pgbench_branches
-- overridden: mysql (keys declared with the table), sqlite (keys declared with the table)
CREATE TABLE pgbench_branches (
  bid      int NOT NULL,
  bbalance int,
  filler   char(88)
);
