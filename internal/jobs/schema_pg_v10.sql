-- Version 10: how a run offers its load (closed-loop VUs, terminals over a
-- pool of sessions, open-loop arrivals at a rate) and its stages.

-- Per interval: the stage it lies in (0: ramp-up, or no stages) and the
-- schedule's figures of terminal and rate runs (0 otherwise).
ALTER TABLE job_interval ADD COLUMN stage      bigint  NOT NULL DEFAULT 0;
ALTER TABLE job_interval ADD COLUMN lag_p99_us double precision    NOT NULL DEFAULT 0;
ALTER TABLE job_interval ADD COLUMN late       bigint  NOT NULL DEFAULT 0; -- sent more than 10 ms after their scheduled start
ALTER TABLE job_interval ADD COLUMN scheduled  bigint  NOT NULL DEFAULT 0; -- rate runs: arrivals
ALTER TABLE job_interval ADD COLUMN dropped    bigint  NOT NULL DEFAULT 0; -- rate runs: arrivals that found the queue full

-- A terminal or rate run's load over its measured window (metrics.LoadResult);
-- no row for a closed-loop run.
CREATE TABLE job_load (
    job_id        bigint PRIMARY KEY REFERENCES job (id) ON DELETE CASCADE,
    model         text    NOT NULL, -- terminals | rate
    terminals     bigint  NOT NULL,
    connections   bigint  NOT NULL,
    asked_rate    double precision    NOT NULL, -- transactions per second; 0 for terminals
    achieved_rate double precision    NOT NULL,
    scheduled     bigint  NOT NULL,
    dropped       bigint  NOT NULL,
    max_queue     bigint  NOT NULL,
    lag_p50_us    double precision    NOT NULL,
    lag_p99_us    double precision    NOT NULL,
    lag_max_us    double precision    NOT NULL,
    late          bigint  NOT NULL
);

-- One row per stage of a staged run (metrics.StageResult).
CREATE TABLE job_stage (
    job_id     bigint  NOT NULL REFERENCES job (id) ON DELETE CASCADE,
    stage      bigint  NOT NULL, -- 1-based
    target     double precision    NOT NULL, -- VUs, terminals or transactions per second
    start_s    double precision    NOT NULL, -- since the run started
    end_s      double precision    NOT NULL,
    commits    bigint  NOT NULL,
    new_orders bigint  NOT NULL,
    errors     bigint  NOT NULL,
    tpm        double precision,
    nopm       double precision,
    p50_us     double precision    NOT NULL, -- of the headline transaction
    p95_us     double precision    NOT NULL,
    p99_us     double precision    NOT NULL,
    lag_p99_us double precision    NOT NULL,
    PRIMARY KEY (job_id, stage)
);
