-- Version 20: the timing of each command of a script-driven run's scripts
-- (the pgbench workload's; pgbench's per-statement latencies, -r), over
-- the run: executions that ended, their latencies' sum, and failures.
CREATE TABLE job_script_command (
    job_id   bigint NOT NULL REFERENCES job (id) ON DELETE CASCADE,
    tx       text   NOT NULL, -- the script (its transaction type)
    ord      bigint NOT NULL, -- the command's place in the script, 0-based
    command  text   NOT NULL,
    count    bigint NOT NULL,
    total_us bigint NOT NULL,
    failures bigint NOT NULL,
    PRIMARY KEY (job_id, tx, ord)
);

-- and a rate run's latency limit (pgbench's -L; 0: none) with the arrivals
-- it skipped in the window.
ALTER TABLE job_load ADD COLUMN skip_late_us bigint NOT NULL DEFAULT 0;
ALTER TABLE job_load ADD COLUMN skipped      bigint NOT NULL DEFAULT 0;
