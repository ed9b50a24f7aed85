-- Version 20: the timing of each command of a script-driven run's scripts
-- (the pgbench workload's; pgbench's per-statement latencies, -r), over
-- the run: executions that ended, their latencies' sum, and failures.
CREATE TABLE job_script_command (
    job_id   INTEGER NOT NULL REFERENCES job (id) ON DELETE CASCADE,
    tx       TEXT    NOT NULL, -- the script (its transaction type)
    ord      INTEGER NOT NULL, -- the command's place in the script, 0-based
    command  TEXT    NOT NULL,
    count    INTEGER NOT NULL,
    total_us INTEGER NOT NULL,
    failures INTEGER NOT NULL,
    PRIMARY KEY (job_id, tx, ord)
) STRICT;

-- and a rate run's latency limit (pgbench's -L; 0: none) with the arrivals
-- it skipped in the window.
ALTER TABLE job_load ADD COLUMN skip_late_us INTEGER NOT NULL DEFAULT 0;
ALTER TABLE job_load ADD COLUMN skipped      INTEGER NOT NULL DEFAULT 0;
