-- Between the trials of a series (--between vacuum). DuckDB's VACUUM alone
-- does nothing; ANALYZE makes the statistics fresh (internal/workload
-- RunMaintenance).

-- name: analyze
-- note: DuckDB's VACUUM reclaims nothing; ANALYZE refreshes its statistics
ANALYZE;
