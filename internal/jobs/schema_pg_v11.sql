-- Version 11: stalls and the client's pauses in a run's disruption account.

-- How many sessions the run had (the share of them an outage touched) and
-- the stall threshold in force (0: not recorded).
ALTER TABLE job_disruption ADD COLUMN sessions      bigint  NOT NULL DEFAULT 0;
ALTER TABLE job_disruption ADD COLUMN stall_after_s double precision NOT NULL DEFAULT 0;

-- One row per stall (sessions connected and waiting, no transaction
-- completing) or pause of the client (metrics.Stall, metrics.Pause).
CREATE TABLE job_stall (
    job_id         bigint  NOT NULL REFERENCES job (id) ON DELETE CASCADE,
    kind           text    NOT NULL, -- stall | pause
    ord            bigint  NOT NULL, -- in order of start, per kind
    start_s        double precision NOT NULL, -- since the run started
    end_s          double precision NOT NULL,
    ended          bigint  NOT NULL, -- stall: a transaction completed at end_s (0: the run stopped first)
    suspended      bigint  NOT NULL, -- pause: the machine slept (0: the process was stopped)
    vus            bigint  NOT NULL, -- stall: sessions waiting, at most at once
    longest_wait_s double precision NOT NULL, -- stall: the longest wait seen; pause: how long the machine slept (suspended)
    PRIMARY KEY (job_id, kind, ord)
);
