-- pgbench's primary keys, added after the load as pgbench -i does (an index
-- built once over the loaded rows is faster than one kept up row by row).
-- MariaDB/MySQL and SQLite declare them with their tables (schema.sql).

-- name: pgbench_branches_pkey
ALTER TABLE pgbench_branches ADD PRIMARY KEY (bid);

-- name: pgbench_tellers_pkey
ALTER TABLE pgbench_tellers ADD PRIMARY KEY (tid);

-- name: pgbench_accounts_pkey
ALTER TABLE pgbench_accounts ADD PRIMARY KEY (aid);
