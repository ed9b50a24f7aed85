-- Version 10: how a run offers its load (closed-loop VUs, terminals over a
-- pool of sessions, open-loop arrivals at a rate) and its stages.

-- Per interval: the stage it lies in (0: ramp-up, or no stages) and the
-- schedule's figures of terminal and rate runs (0 otherwise).
ALTER TABLE job_interval ADD COLUMN stage      INTEGER NOT NULL DEFAULT 0;
ALTER TABLE job_interval ADD COLUMN lag_p99_us REAL    NOT NULL DEFAULT 0;
ALTER TABLE job_interval ADD COLUMN late       INTEGER NOT NULL DEFAULT 0; -- sent more than 10 ms after their scheduled start
ALTER TABLE job_interval ADD COLUMN scheduled  INTEGER NOT NULL DEFAULT 0; -- rate runs: arrivals
ALTER TABLE job_interval ADD COLUMN dropped    INTEGER NOT NULL DEFAULT 0; -- rate runs: arrivals that found the queue full

-- A terminal or rate run's load over its measured window (metrics.LoadResult);
-- no row for a closed-loop run.
CREATE TABLE job_load (
    job_id        INTEGER PRIMARY KEY REFERENCES job (id) ON DELETE CASCADE,
    model         TEXT    NOT NULL, -- terminals | rate
    terminals     INTEGER NOT NULL,
    connections   INTEGER NOT NULL,
    asked_rate    REAL    NOT NULL, -- transactions per second; 0 for terminals
    achieved_rate REAL    NOT NULL,
    scheduled     INTEGER NOT NULL,
    dropped       INTEGER NOT NULL,
    max_queue     INTEGER NOT NULL,
    lag_p50_us    REAL    NOT NULL,
    lag_p99_us    REAL    NOT NULL,
    lag_max_us    REAL    NOT NULL,
    late          INTEGER NOT NULL
) STRICT;

-- One row per stage of a staged run (metrics.StageResult).
CREATE TABLE job_stage (
    job_id     INTEGER NOT NULL REFERENCES job (id) ON DELETE CASCADE,
    stage      INTEGER NOT NULL, -- 1-based
    target     REAL    NOT NULL, -- VUs, terminals or transactions per second
    start_s    REAL    NOT NULL, -- since the run started
    end_s      REAL    NOT NULL,
    commits    INTEGER NOT NULL,
    new_orders INTEGER NOT NULL,
    errors     INTEGER NOT NULL,
    tpm        REAL,
    nopm       REAL,
    p50_us     REAL    NOT NULL, -- of the headline transaction
    p95_us     REAL    NOT NULL,
    p99_us     REAL    NOT NULL,
    lag_p99_us REAL    NOT NULL,
    PRIMARY KEY (job_id, stage)
) STRICT;
