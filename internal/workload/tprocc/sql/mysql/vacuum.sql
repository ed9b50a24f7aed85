-- Between the trials of a series (--between vacuum). MariaDB/MySQL have no
-- VACUUM (InnoDB purges dead rows by itself): ANALYZE TABLE, fresh index
-- statistics, is the quick equivalent. OPTIMIZE TABLE, which copies each
-- table anew, is not run. {table} is each TPROC-C table in turn
-- (internal/workload RunMaintenance).

-- name: analyze
-- note: MariaDB/MySQL have no VACUUM: ANALYZE TABLE is the quick equivalent; no OPTIMIZE TABLE, which would rebuild each table
-- rows: status
ANALYZE TABLE {table};
