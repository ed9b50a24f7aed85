-- Between the trials of a series (--between checkpoint). FLUSH TABLES …
-- FOR EXPORT makes InnoDB write the named tables' dirty pages to their
-- files (and closes them); UNLOCK TABLES lets them go again. Nothing
-- global is changed (no innodb_max_dirty_pages_pct): the redo log's own
-- checkpoint is left to InnoDB. {tables} is the TPROC-C tables
-- (internal/workload RunMaintenance).

-- name: flush
-- note: InnoDB writes the tables' dirty pages to their files; the redo log's checkpoint is left to InnoDB
-- needs: the RELOAD and LOCK TABLES privileges
FLUSH TABLES {tables} FOR EXPORT;

-- name: unlock
UNLOCK TABLES;
