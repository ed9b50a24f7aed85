-- pgbench's foreign keys (pgbench -i --foreign-keys), added after the keys.
-- The same text runs on PostgreSQL and MariaDB/MySQL; SQLite cannot add a
-- constraint to an existing table, and the build refuses them there.

-- name: pgbench_tellers_bid_fkey
ALTER TABLE pgbench_tellers ADD CONSTRAINT pgbench_tellers_bid_fkey FOREIGN KEY (bid) REFERENCES pgbench_branches (bid);

-- name: pgbench_accounts_bid_fkey
ALTER TABLE pgbench_accounts ADD CONSTRAINT pgbench_accounts_bid_fkey FOREIGN KEY (bid) REFERENCES pgbench_branches (bid);

-- name: pgbench_history_bid_fkey
ALTER TABLE pgbench_history ADD CONSTRAINT pgbench_history_bid_fkey FOREIGN KEY (bid) REFERENCES pgbench_branches (bid);

-- name: pgbench_history_tid_fkey
ALTER TABLE pgbench_history ADD CONSTRAINT pgbench_history_tid_fkey FOREIGN KEY (tid) REFERENCES pgbench_tellers (tid);

-- name: pgbench_history_aid_fkey
ALTER TABLE pgbench_history ADD CONSTRAINT pgbench_history_aid_fkey FOREIGN KEY (aid) REFERENCES pgbench_accounts (aid);
