-- name: pgbench_tellers
-- differs: SQLite cannot add a primary key to a table after it is created
CREATE TABLE pgbench_tellers (
  tid      int NOT NULL PRIMARY KEY,
  bid      int,
  tbalance int,
  filler   char(84)
);

-- name: pgbench_accounts
-- differs: SQLite cannot add a primary key to a table after it is created
CREATE TABLE pgbench_accounts (
  aid      {aid} NOT NULL PRIMARY KEY,
  bid      int,
  abalance int,
  filler   char(84)
);

-- name: pgbench_branches
-- differs: SQLite cannot add a primary key to a table after it is created
CREATE TABLE pgbench_branches (
  bid      int NOT NULL PRIMARY KEY,
  bbalance int,
  filler   char(88)
);
