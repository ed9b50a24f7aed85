-- Between the trials of a series (--between checkpoint): the write-ahead
-- log written back into the database file and truncated
-- (internal/workload RunMaintenance).

-- name: checkpoint
-- note: SQLite writes the log back by itself when its last session closes, so often there is little left
-- rows: busy
PRAGMA wal_checkpoint(TRUNCATE);
