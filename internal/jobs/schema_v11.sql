-- Version 11: stalls and the client's pauses in a run's disruption account.

-- How many sessions the run had (the share of them an outage touched) and
-- the stall threshold in force (0: not recorded).
ALTER TABLE job_disruption ADD COLUMN sessions      INTEGER NOT NULL DEFAULT 0;
ALTER TABLE job_disruption ADD COLUMN stall_after_s REAL    NOT NULL DEFAULT 0;

-- One row per stall (sessions connected and waiting, no transaction
-- completing) or pause of the client (metrics.Stall, metrics.Pause).
CREATE TABLE job_stall (
    job_id         INTEGER NOT NULL REFERENCES job (id) ON DELETE CASCADE,
    kind           TEXT    NOT NULL, -- stall | pause
    ord            INTEGER NOT NULL, -- in order of start, per kind
    start_s        REAL    NOT NULL, -- since the run started
    end_s          REAL    NOT NULL,
    ended          INTEGER NOT NULL, -- stall: a transaction completed at end_s (0: the run stopped first)
    suspended      INTEGER NOT NULL, -- pause: the machine slept (0: the process was stopped)
    vus            INTEGER NOT NULL, -- stall: sessions waiting, at most at once
    longest_wait_s REAL    NOT NULL, -- stall: the longest wait seen; pause: how long the machine slept (suspended)
    PRIMARY KEY (job_id, kind, ord)
) STRICT;
