-- Between the trials of a series (--between vacuum): the dead rows of the
-- last trial reclaimed and the statistics made fresh, table by table.
-- VACUUM cannot run inside a transaction block: each statement runs on its
-- own. {table} is each TPROC-H table in turn (internal/workload
-- RunMaintenance).

-- name: vacuum
VACUUM (ANALYZE) {table};
