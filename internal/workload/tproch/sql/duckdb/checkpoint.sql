-- Between the trials of a series (--between checkpoint): the write-ahead
-- log written into the database file (internal/workload RunMaintenance).

-- name: checkpoint
CHECKPOINT;
