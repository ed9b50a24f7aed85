-- name: pgbench_history
-- differs: a TIMESTAMP column of MariaDB/MySQL may get an automatic default; DATETIME keeps the value given
CREATE TABLE pgbench_history (
  tid    int,
  bid    int,
  aid    {aid},
  delta  int,
  mtime  datetime,
  filler char(22)
);

-- name: pgbench_tellers
-- differs: InnoDB clusters rows on the primary key, so it is declared with the table rather than added after the load
CREATE TABLE pgbench_tellers (
  tid      int NOT NULL,
  bid      int,
  tbalance int,
  filler   char(84),
  PRIMARY KEY (tid)
);

-- name: pgbench_accounts
-- differs: InnoDB clusters rows on the primary key, so it is declared with the table rather than added after the load
CREATE TABLE pgbench_accounts (
  aid      {aid} NOT NULL,
  bid      int,
  abalance int,
  filler   char(84),
  PRIMARY KEY (aid)
);

-- name: pgbench_branches
-- differs: InnoDB clusters rows on the primary key, so it is declared with the table rather than added after the load
CREATE TABLE pgbench_branches (
  bid      int NOT NULL,
  bbalance int,
  filler   char(88),
  PRIMARY KEY (bid)
);
