-- Version 22: how long a run's sessions took to open as its load started
-- (pgbench's "initial connection time"): the openings counted, their sum
-- and the longest, in microseconds (0 in results stored before).
ALTER TABLE job_result ADD COLUMN connects         INTEGER NOT NULL DEFAULT 0;
ALTER TABLE job_result ADD COLUMN connect_total_us INTEGER NOT NULL DEFAULT 0;
ALTER TABLE job_result ADD COLUMN connect_max_us   INTEGER NOT NULL DEFAULT 0;
