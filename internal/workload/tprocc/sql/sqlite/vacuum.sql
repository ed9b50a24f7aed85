-- Between the trials of a series (--between vacuum): the file rewritten
-- without its free pages, then the statistics made fresh
-- (internal/workload RunMaintenance).

-- name: vacuum
VACUUM;

-- name: analyze
ANALYZE;
