-- v7: iteration runs (HammerDB's test driver with total_iterations). Each
-- virtual user ran this many transactions; measured_s is then the elapsed
-- time from the start to the last one's end, with no ramp-up, and
-- duration_s (the configured one) is 0. 0 is a timed run, as every result
-- stored before.
ALTER TABLE job_result ADD COLUMN iterations INTEGER NOT NULL DEFAULT 0;
